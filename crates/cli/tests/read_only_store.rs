//! A store that cannot be written (a read-only mount; without root, a read-only file and folder)
//! still answers every reading command, and refuses writes with `STORE_READ_ONLY` saying why.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use support::{Sandbox, string};

/// A tmpfs mounted over the sandbox's home, unmounted on drop.
struct Mount(std::path::PathBuf);

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn mount(home: &std::path::Path) -> Option<Mount> {
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=32m,mode=0700", "tmpfs"])
        .arg(home)
        .output()
        .is_ok_and(|output| output.status.success());
    mounted.then(|| Mount(home.to_owned()))
}

#[test]
fn a_store_that_cannot_be_written_answers_reading_commands_and_refuses_writes_saying_why() {
    let sandbox = Sandbox::sqlite();
    let mount = mount(sandbox.home.path());
    assert!(
        mount.is_some() || std::env::var_os("CI").is_none(),
        "CI must be able to mount a tmpfs (run as root) to test a read-only mount"
    );
    let started = sandbox.run(&["start", "dev-cycle", "--goal", "read me later"]).ok();
    let run = string(&started["run"]);
    let expected_reason = match &mount {
        Some(mount) => {
            let remounted = Command::new("mount").args(["-o", "remount,ro"]).arg(&mount.0).status().unwrap();
            assert!(remounted.success());
            "mounted read-only"
        }
        None => {
            // Without root: the store file and its folder lose their write permission.
            std::fs::set_permissions(sandbox.store_path(), std::fs::Permissions::from_mode(0o444)).unwrap();
            std::fs::set_permissions(sandbox.home.path(), std::fs::Permissions::from_mode(0o555)).unwrap();
            "not writable by this user"
        }
    };
    for command in [vec!["status", run.as_str()], vec!["log", run.as_str()], vec!["sessions"], vec!["verify"]] {
        let answer = sandbox.run(&command);
        assert_eq!(answer.code, 0, "`{}` on a read-only store:\n{}{}", command.join(" "), answer.stdout, answer.stderr);
    }
    let refused = sandbox.run(&["start", "dev-cycle", "--goal", "write me"]);
    let error = &refused.json()["error"];
    assert_eq!(error["code"], "STORE_READ_ONLY", "{refused:?}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(expected_reason) && message.contains("remount"), "{message}");
    if mount.is_none() {
        std::fs::set_permissions(sandbox.home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
