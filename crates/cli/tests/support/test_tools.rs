//! The real MCP clients the tests drive, provisioned into `target/test-tools/` on first use and
//! reused afterwards: the official Python SDK (`mcp` from PyPI) in a venv, and Node 22 with the
//! conformance suite and the MCP Inspector from npm. Provisioning needs PyPI and npm; when it
//! fails the test fails and says what to fix: these checks never skip.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const PYTHON_MCP: &str = "mcp==2.3.0";
const NPM_PACKAGES: [&str; 3] =
    ["node@22", "@modelcontextprotocol/conformance@0.1.16", "@modelcontextprotocol/inspector@2.12.0"];
const SWITCHYARD: &str = env!("CARGO_BIN_EXE_switchyard");

/// One provisioning at a time within a test binary.
static PROVISION: Mutex<()> = Mutex::new(());

pub fn tools_dir() -> PathBuf {
    // target/<profile>/switchyard → target/test-tools
    let target = Path::new(SWITCHYARD).parent().and_then(Path::parent).expect("the binary lives in target/<profile>/");
    target.join("test-tools")
}

fn run_checked(command: &mut Command, what: &str) {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {what}: {error}"));
    assert!(
        output.status.success(),
        "provisioning failed: {what} exited with {}.\nstdout:\n{}\nstderr:\n{}\nFix the network or toolchain (python3 with venv, npm) and rerun; these tests never skip.",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The venv's python, with the official MCP SDK installed.
pub fn python() -> PathBuf {
    let _guard = PROVISION.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let venv = tools_dir().join("venv");
    let python = venv.join("bin").join("python");
    let marker = venv.join(".switchyard-provisioned");
    if marker.is_file() && python.is_file() {
        return python;
    }
    std::fs::create_dir_all(tools_dir()).unwrap();
    run_checked(Command::new("python3").arg("-m").arg("venv").arg(&venv), "python3 -m venv target/test-tools/venv");
    run_checked(
        Command::new(&python).args(["-m", "pip", "install", "--quiet", PYTHON_MCP]),
        &format!("pip install {PYTHON_MCP}"),
    );
    std::fs::write(&marker, PYTHON_MCP).unwrap();
    python
}

/// The npm folder with Node 22, the conformance suite and the Inspector.
pub fn node_tools() -> PathBuf {
    let _guard = PROVISION.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = tools_dir().join("node");
    let marker = dir.join(".switchyard-provisioned");
    if marker.is_file() && dir.join("node_modules/node/bin/node").is_file() {
        return dir;
    }
    std::fs::create_dir_all(&dir).unwrap();
    if !dir.join("package.json").is_file() {
        std::fs::write(dir.join("package.json"), "{\"name\":\"switchyard-test-tools\",\"private\":true}\n").unwrap();
    }
    run_checked(
        Command::new("npm").current_dir(&dir).args(["install", "--no-fund", "--no-audit"]).args(NPM_PACKAGES),
        &format!("npm install {}", NPM_PACKAGES.join(" ")),
    );
    let node = dir.join("node_modules/node/bin/node");
    run_checked(Command::new(&node).arg("--version"), "node 22 from npm (node_modules/node/bin/node)");
    std::fs::write(&marker, NPM_PACKAGES.join("\n")).unwrap();
    dir
}

/// A Python SDK client following one run's resource (`crates/mcp/tests/python/follow.py`):
/// each update it hears, as `<status> <nodeId>` read from the resource after it.
pub struct Follower {
    child: Child,
    updates: Receiver<String>,
    stderr: Arc<Mutex<String>>,
}

impl Follower {
    /// Starts the follower of `run` on `target` (`stdio`, or an HTTP endpoint) in `mode` (`auto`:
    /// `subscriptions/listen`; `legacy`: `resources/subscribe`) and waits until its subscription is
    /// in force. `command` is [`python()`] with the environment the client needs (the home for
    /// stdio, `SWITCHYARD_TEST_FOLLOW_TOKEN` for a server with a token).
    pub fn start(mut command: Command, target: &str, mode: &str, run: &str) -> Self {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/python/follow.py");
        let mut child = command
            .arg(script)
            .args([SWITCHYARD, target, mode, run])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the Python follower starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        super::drain(BufReader::new(child.stderr.take().unwrap()), Arc::clone(&stderr));
        let (sender, updates) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let follower = Self { child, updates, stderr };
        let first = follower.updates.recv_timeout(Duration::from_secs(60));
        assert_eq!(first.as_deref(), Ok("FOLLOWING"), "the follower ({mode} over {target}) {}", follower.failure());
        follower
    }

    /// Waits up to `bound` for an update whose `<status> <nodeId>` satisfies `wanted`; returns it
    /// and how long it took.
    pub fn wait_for(&self, wanted: impl Fn(&str) -> bool, bound: Duration) -> (String, Duration) {
        let since = Instant::now();
        loop {
            let line = self.updates.recv_timeout(bound.saturating_sub(since.elapsed())).unwrap_or_else(|_| {
                panic!("the follower heard no update it waited for within {bound:?}; {}", self.failure())
            });
            let update = line.strip_prefix("UPDATED ").unwrap_or_else(|| panic!("unexpected line `{line}`")).to_owned();
            if wanted(&update) {
                return (update, since.elapsed());
            }
        }
    }

    fn failure(&self) -> String {
        std::thread::sleep(Duration::from_millis(200));
        format!("stderr:\n{}", self.stderr.lock().unwrap())
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
