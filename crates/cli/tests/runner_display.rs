//! `switchyard run`'s live display in a real terminal (tmux): while the fake model works a short
//! workflow, the screen shows the workflow, the step and its place, the model, turns and tokens;
//! at the gate it shows a block saying who approves and what to type; an approval typed in
//! another process lets the run finish, and the closing line says so.

mod support;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::json;
use support::Sandbox;
use switchyard_test_support::fake_llm::{FakeLlm, Reply};

/// How long the screen may take to show what the test waits for.
const DEADLINE: Duration = Duration::from_secs(60);

/// A tmux server of the test's own, with one window running one command; killed when dropped.
struct Screen {
    socket: std::path::PathBuf,
}

impl Screen {
    /// Starts `command` (a shell line) in a 160×40 window, in `folder`, with `environment` only.
    fn start(socket: &Path, folder: &Path, command: &str, environment: &[(&str, &str)]) -> Self {
        let found = Command::new("tmux").arg("-V").output().is_ok_and(|output| output.status.success());
        assert!(
            found,
            "this test drives a real terminal with tmux: `apt-get install -y tmux` (`cargo xtask test` installs it)"
        );
        let mut tmux = Command::new("tmux");
        tmux.arg("-S")
            .arg(socket)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "live", "-x", "160", "-y", "40", "-c"])
            .arg(folder)
            .args(["bash", "--norc", "--noprofile", "-c", command])
            .env_clear()
            .envs(environment.iter().copied());
        let started = tmux.output().expect("tmux runs");
        assert!(started.status.success(), "tmux new-session: {}", String::from_utf8_lossy(&started.stderr));
        Self { socket: socket.to_owned() }
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux").arg("-S").arg(&self.socket).args(args).output().expect("tmux runs")
    }

    /// The window as a person sees it now, without colour codes.
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "live"]).stdout).into_owned()
    }

    /// Looks at the screen until it shows `wanted` (bounded by [`DEADLINE`]); returns it.
    fn wait_for(&self, wanted: &str) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let screen = self.text();
            if screen.contains(wanted) {
                return screen;
            }
            assert!(Instant::now() < deadline, "the screen never showed `{wanted}`:\n{screen}");
            // Between two looks at the screen; the wait ends on what the screen shows.
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        let _ = self.tmux(&["kill-server"]);
    }
}

#[test]
fn the_live_display_shows_the_run_and_a_gate_waiting_for_a_person() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("greeting.yaml", include_str!("support/greeting.yaml"));
    let server = FakeLlm::start();
    server.push_all([
        Reply::tool_call("save_output", json!({"path": "greeting.md", "content": "hello there"})).usage(1200, 300),
        Reply::tool_call("complete_step", json!({"notes": "hello, reader"})),
        Reply::tool_call("complete_step", json!({"notes": "It sounds warm."})),
    ]);
    let binary = env!("CARGO_BIN_EXE_switchyard");
    let line = format!(
        "{binary} run greeting --goal 'greet the reader' --model fake-model --base-url {}; echo \"run exited $?\"; cat",
        server.base_url()
    );
    let home = sandbox.home.path().display().to_string();
    let screen = Screen::start(
        &sandbox.home.path().join("tmux.sock"),
        sandbox.project.path(),
        &line,
        &[
            ("PATH", "/usr/bin:/bin"),
            ("HOME", &home),
            ("SWITCHYARD_HOME", &home),
            ("TERM", "xterm-256color"),
            ("LANG", "C.UTF-8"),
        ],
    );

    let waiting = screen.wait_for("waits (gate)");
    assert!(waiting.contains("review waits (gate): a person must approve its result."), "{waiting}");
    assert!(waiting.contains("from any terminal"), "{waiting}");
    assert!(waiting.contains("step 1/2 draft: Draft the greeting (model fake-model)"), "{waiting}");
    assert!(waiting.contains("step draft completed, next: review"), "{waiting}");
    assert!(waiting.contains("greeting · step 2/2 review · fake-model"), "the status line:\n{waiting}");
    assert!(waiting.contains("3 turns · 1.5k tokens"), "turns and tokens so far:\n{waiting}");
    let approve = waiting
        .lines()
        .find(|line| line.trim_start().starts_with("switchyard approve run_"))
        .unwrap_or_else(|| panic!("no approve line:\n{waiting}"));
    let run = approve.split_whitespace().nth(2).unwrap().to_owned();

    assert_eq!(sandbox.run(&["approve", &run]).code, 0);
    let finished = screen.wait_for("run exited");
    assert!(finished.contains("run exited 0"), "{finished}");
    assert!(finished.contains(&format!("run {run} completed (3 turns, 1.5k tokens)")), "{finished}");
}
