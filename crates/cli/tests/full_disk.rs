//! A full disk under the store, for real: the home (store, keys, run folders) lives on a small
//! tmpfs that the test fills. An advance is refused with `STORE_DISK_FULL` and nothing of it is
//! written; once space is freed the run continues and `verify` passes.
//!
//! Mounting needs root (CI runs as root). Where mounting is refused the test fails with the reason,
//! whether `CI` is set or not: it never skips silently. (A fallback through SQLite's own limits
//! would need a `max_page_count` setting the store does not offer yet.)

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use support::{Sandbox, continue_token, string};

const TMPFS_SIZE: &str = "4m";

/// A tmpfs mounted on a temporary folder, unmounted when dropped.
struct Tmpfs {
    folder: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts one, or says why it cannot.
    fn mount() -> Result<Self, String> {
        let folder = tempfile::tempdir().unwrap();
        let output = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={TMPFS_SIZE}"), "tmpfs"])
            .arg(folder.path())
            .output()
            .map_err(|error| format!("cannot run mount: {error}"))?;
        if !output.status.success() {
            return Err(format!("mount -t tmpfs refused: {}", String::from_utf8_lossy(&output.stderr).trim()));
        }
        Ok(Self { folder })
    }

    fn path(&self) -> &Path {
        self.folder.path()
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(self.folder.path()).status();
    }
}

/// Writes one file until the filesystem refuses, and returns it.
fn fill(folder: &Path) -> PathBuf {
    let path = folder.join("filler");
    let mut file = std::fs::File::create(&path).unwrap();
    let block = vec![0xA5u8; 4096];
    loop {
        match file.write_all(&block) {
            Ok(()) => {}
            Err(error) => {
                assert_eq!(error.raw_os_error(), Some(28), "filling stops at ENOSPC: {error}");
                break;
            }
        }
    }
    // Whatever partial block still fits, so not a byte is left.
    let _ = file.write_all(&[0xA5]);
    let _ = file.sync_all();
    path
}

#[test]
fn a_full_disk_refuses_an_advance_with_store_disk_full_and_the_run_continues_once_space_is_freed() {
    let tmpfs = match Tmpfs::mount() {
        Ok(tmpfs) => tmpfs,
        Err(reason) => {
            assert!(std::env::var_os("CI").is_none(), "CI must run the full-disk test as root: {reason}");
            panic!("the full-disk test needs to mount a tmpfs (run it as root): {reason}; it never skips silently");
        }
    };
    let sandbox = Sandbox::sqlite();
    std::fs::write(
        sandbox.project.path().join("loop.yaml"),
        "id: loop\ntitle: Loop\nsteps:\n  - id: work\n    title: Work\n    prompt: Work.\n    notes: optional\n    next:\n      - {to: work, label: again, max_traversals: 1000}\n      - {end: true, label: done}\n",
    )
    .unwrap();
    let run_in = |args: &[&str]| {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        support::ran(&sandbox.command(&all).env("SWITCHYARD_HOME", tmpfs.path()).output().unwrap())
    };
    let started = run_in(&["start", "--file", "loop.yaml", "--goal", "fill the disk"]).ok();
    let run = string(&started["run"]);
    let first = run_in(&["continue", &continue_token(&started), "--notes", "before", "--choice", "again"]).ok();
    let events_before = run_in(&["log", &run, "--limit", "10000"]).ok();

    let filler = fill(tmpfs.path());
    let refused = run_in(&["continue", &continue_token(&first), "--notes", "while full", "--choice", "again"]);
    assert_ne!(refused.code, 0, "an advance on a full disk fails: {}", refused.stdout);
    let error: Value = serde_json::from_str(&refused.stdout)
        .unwrap_or_else(|_| panic!("a JSON error on stdout:\n{}\n{}", refused.stdout, refused.stderr));
    assert_eq!(error["error"]["code"], "STORE_DISK_FULL", "{error:#}");

    std::fs::remove_file(filler).unwrap();
    let events_after = run_in(&["log", &run, "--limit", "10000"]).ok();
    assert_eq!(events_after, events_before, "nothing of the refused advance was written");
    let verify = run_in(&["verify"]).ok();
    assert_eq!(verify["problems"], json!([]), "{verify:#}");
    let again = run_in(&["continue", &continue_token(&first), "--notes", "after", "--choice", "again"]).ok();
    assert_eq!(again["step"]["step"], "work", "{again:#}");
    let done = run_in(&["continue", &continue_token(&again), "--choice", "done"]).ok();
    assert_eq!(done["kind"], "complete");
    let saved = run_in(&["tool", "save_output", r#"{"path": "after.md", "content": "space again\n"}"#, "--run", &run]);
    assert_eq!(saved.code, 0, "the file door works again: {}{}", saved.stdout, saved.stderr);
    assert_eq!(run_in(&["verify"]).ok()["problems"], json!([]));
}
