//! The web console in a real browser: headless Chromium (Debian's package) driven by Playwright
//! scripts (`crates/console/tests/browser/*.mjs`, on Node 22 with `playwright-core` from npm)
//! against a real `switchyard serve` on a real store, with CLI commands run in other processes.
//!
//! Each test sets up its sessions with the CLI, starts the server, and runs one script, which
//! may ask this harness to act (run a CLI command, stop or start the server) through lines on
//! its stdout and stdin. A failing script fails the test with everything it printed. Screenshots
//! of each page land in `target/console-screenshots/`.
//!
//! Node 22 and `playwright-core` are provisioned into `target/test-tools/node` on first use, as
//! the MCP client tests do; Chromium is installed by `cargo xtask test` (`apt-get install chromium`).
//! Neither is ever skipped: when one is missing, the test fails and says how to get it.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use switchyard_test_support::TestHome;

const SWITCHYARD: &str = env!("CARGO_BIN_EXE_switchyard");
const CHROMIUM: &str = "/usr/bin/chromium";
const NPM_PACKAGES: [&str; 2] = ["node@22", "playwright-core@1.65.1"];

/// One provisioning at a time within this test binary.
static PROVISION: Mutex<()> = Mutex::new(());

fn target_dir() -> PathBuf {
    // target/<profile>/switchyard → target
    Path::new(SWITCHYARD).parent().and_then(Path::parent).expect("the binary lives in target/<profile>/").to_owned()
}

fn scripts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../console/tests/browser")
}

fn screenshots_dir() -> PathBuf {
    let dir = target_dir().join("console-screenshots");
    std::fs::create_dir_all(&dir).expect("create target/console-screenshots");
    dir
}

/// Node 22 and playwright-core's entry point, installed into `target/test-tools/node` if missing.
fn node_tools() -> (PathBuf, PathBuf) {
    let _guard = PROVISION.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let dir = target_dir().join("test-tools/node");
    let node = dir.join("node_modules/node/bin/node");
    let playwright = dir.join("node_modules/playwright-core/index.mjs");
    if !(node.is_file() && playwright.is_file()) {
        std::fs::create_dir_all(&dir).unwrap();
        if !dir.join("package.json").is_file() {
            std::fs::write(dir.join("package.json"), "{\"name\":\"switchyard-test-tools\",\"private\":true}\n")
                .unwrap();
        }
        let output = Command::new("npm")
            .current_dir(&dir)
            .args(["install", "--no-fund", "--no-audit"])
            .args(NPM_PACKAGES)
            .output()
            .expect("npm runs (install Node.js and npm)");
        assert!(
            output.status.success() && node.is_file() && playwright.is_file(),
            "provisioning failed: npm install {} in {}.\nstdout:\n{}\nstderr:\n{}\nFix the network or npm and rerun; these tests never skip.",
            NPM_PACKAGES.join(" "),
            dir.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    assert!(
        Path::new(CHROMIUM).is_file(),
        "{CHROMIUM} is missing: install Debian's package (`apt-get install chromium`, as `cargo xtask test` does); these tests never skip"
    );
    (node, playwright)
}

/// A home and a workspace of their own, and the CLI run in them.
struct Home {
    home: TestHome,
    workspace: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home { home: TestHome::new(), workspace: tempfile::tempdir().unwrap() }
    }

    fn command(&self) -> Command {
        let mut command = Command::new(SWITCHYARD);
        support::without_switchyard_environment(&mut command)
            .env("SWITCHYARD_HOME", self.home.path())
            .current_dir(self.workspace.path());
        command
    }

    /// `switchyard --json <args>` in another process: its exit code and the JSON it printed.
    fn cli(&self, args: &[&str]) -> (i32, Value) {
        let output = self.command().arg("--json").args(args).output().expect("switchyard runs");
        let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|_| {
            json!({ "stdout": String::from_utf8_lossy(&output.stdout), "stderr": String::from_utf8_lossy(&output.stderr) })
        });
        (output.status.code().unwrap_or(-1), json)
    }

    /// The same, failing the test unless the command succeeded.
    fn cli_ok(&self, args: &[&str]) -> Value {
        let (code, json) = self.cli(args);
        assert_eq!(code, 0, "switchyard {args:?} failed: {json}");
        json
    }

    fn start(&self, goal: &str) -> Value {
        self.cli_ok(&["start", "dev-cycle", "--goal", goal])
    }
}

fn text<'a>(json: &'a Value, pointer: &str) -> &'a str {
    json.pointer(pointer).and_then(Value::as_str).unwrap_or_else(|| panic!("no {pointer} in {json}"))
}

/// A running `switchyard serve`, and everything it wrote on stderr.
struct Server {
    child: Child,
    address: String,
    log: Arc<Mutex<String>>,
}

impl Server {
    /// Starts `switchyard serve` on `port` (0: any free one) with `extra` flags, and waits until
    /// it says where it listens.
    fn start(home: &Home, port: u16, extra: &[&str]) -> Server {
        let mut child = home
            .command()
            .args(["serve", "--port", &port.to_string()])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("switchyard serve starts");
        let mut reader = BufReader::new(child.stderr.take().expect("stderr is piped"));
        let log = Arc::new(Mutex::new(String::new()));
        let address = loop {
            let mut line = String::new();
            let read = reader.read_line(&mut line).expect("reading serve's stderr");
            log.lock().unwrap().push_str(&line);
            assert!(read > 0, "switchyard serve stopped before listening:\n{}", log.lock().unwrap());
            if let Some(address) = support::start_line_address(&line) {
                break address;
            }
        };
        support::drain(reader, Arc::clone(&log));
        Server { child, address, log }
    }

    fn port(&self) -> u16 {
        self.address.rsplit(':').next().and_then(|port| port.parse().ok()).expect("a port in the address")
    }

    /// Interrupts the server as Ctrl-C would and waits for it to exit.
    fn interrupt(mut self) {
        let status = Command::new("kill").args(["-INT", &self.child.id().to_string()]).status().expect("kill runs");
        assert!(status.success(), "kill -INT failed");
        let exited = self.child.wait().expect("waiting for serve");
        assert!(exited.success(), "switchyard serve exited with {exited} on Ctrl-C:\n{}", self.log.lock().unwrap());
    }
}

/// Keeps reading a child's stderr so it never blocks on a full pipe.
impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `crates/console/tests/browser/<script>` against `server`, answering its requests with
/// `act`, and fails with everything it printed unless it succeeds.
#[expect(
    clippy::print_stderr,
    reason = "what a passing script measured (the live update's delay) goes to the test log"
)]
fn browse(
    script: &str,
    server: &mut Option<Server>,
    scenario: &Value,
    mut act: impl FnMut(&Value, &mut Option<Server>) -> Value,
) {
    let (node, playwright) = node_tools();
    let address = server.as_ref().expect("a running server").address.clone();
    let mut child = Command::new(node)
        .arg(scripts_dir().join(script))
        .env("CONSOLE_URL", format!("http://{address}"))
        .env("PLAYWRIGHT_CORE", format!("file://{}", playwright.display()))
        .env("CHROMIUM", CHROMIUM)
        .env("SCREENSHOT_DIR", screenshots_dir())
        .env("SCENARIO", scenario.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs the browser script");
    let errors = Arc::new(Mutex::new(String::new()));
    support::drain(BufReader::new(child.stderr.take().expect("piped stderr")), Arc::clone(&errors));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut printed = String::new();
    for line in BufReader::new(child.stdout.take().expect("piped stdout")).lines() {
        let line = line.expect("reading the script's stdout");
        let Some(request) = line.strip_prefix("@@harness ") else {
            printed.push_str(&line);
            printed.push('\n');
            continue;
        };
        let request: Value = serde_json::from_str(request).expect("a JSON request");
        let answer = act(&request, server);
        writeln!(stdin, "{answer}").and_then(|()| stdin.flush()).expect("answering the script");
    }
    let status = child.wait().expect("the script ends");
    let server_log = server.as_ref().map(|server| server.log.lock().unwrap().clone()).unwrap_or_default();
    assert!(
        status.success(),
        "browser script {script} failed ({status}).\nstdout:\n{printed}\nstderr:\n{}\nserve's stderr:\n{server_log}",
        errors.lock().unwrap()
    );
    eprint!("{printed}");
}

/// Answers `{"action": "cli", "args": [...]}` by running the CLI in another process.
fn cli_action(home: &Home, request: &Value) -> Option<Value> {
    if request["action"] != "cli" {
        return None;
    }
    let args: Vec<&str> = request["args"].as_array()?.iter().filter_map(Value::as_str).collect();
    let (code, json) = home.cli(&args);
    Some(json!({ "code": code, "json": json }))
}

fn unknown(request: &Value) -> Value {
    json!({ "error": format!("no such action: {request}") })
}

#[test]
fn a_cli_continue_in_another_process_shows_on_an_open_session_page() {
    let home = Home::new();
    let started = home.start("Watch the plan move");
    let mut server = Some(Server::start(&home, 0, &[]));
    let scenario = json!({
        "session": text(&started, "/session"),
        "continue_token": text(&started, "/tokens/continue_token"),
    });
    browse("live_update.mjs", &mut server, &scenario, |request, _| {
        cli_action(&home, request).unwrap_or_else(|| unknown(request))
    });
}

#[test]
fn an_open_page_reconnects_after_a_restart_and_shows_what_changed_meanwhile() {
    let home = Home::new();
    home.start("Before the restart");
    let mut server = Some(Server::start(&home, 0, &[]));
    let port = server.as_ref().unwrap().port();
    browse("restart.mjs", &mut server, &json!({}), |request, server| match request["action"].as_str() {
        Some("stop-server") => {
            server.take().expect("the server runs").interrupt();
            json!({})
        }
        Some("start-while-down") => {
            let goal = "Started while the server was down";
            home.start(goal);
            json!({ "goal": goal })
        }
        Some("start-server") => {
            *server = Some(Server::start(&home, port, &[]));
            json!({})
        }
        _ => unknown(request),
    });
}

#[test]
fn the_pages_render_the_sessions_their_search_and_a_forked_graph() {
    let home = Home::new();
    home.start("Tidy the parser module");
    home.start("Write the release notes");
    let forked = home.start("Port the scheduler to tokio");
    let token = text(&forked, "/tokens/continue_token");
    let run = text(&forked, "/run");
    home.cli_ok(&["continue", token, "--notes", "Planned the port."]);
    home.cli_ok(&["approve", run]);
    // Back to the first node and on again from there: a second branch beside the first.
    let first = home.cli_ok(&["show", text(&forked, "/node")]);
    home.cli_ok(&["continue", text(&first, "/tokens/continue_token"), "--notes", "Planned it differently."]);
    let status = home.cli_ok(&["status", run]);
    let nodes = status["node_count"].as_u64().unwrap_or_else(|| panic!("no node_count in {status}"));
    assert_eq!(nodes, 4, "a start, the gate, the step after it and the fork's gate: {status}");
    let scenario = json!({
        "sessions": [1, 2, 3],
        "search": { "word": "scheduler", "goal": "Port the scheduler to tokio" },
        "forked": { "session": text(&forked, "/session"), "nodes": nodes },
    });
    let mut server = Some(Server::start(&home, 0, &[]));
    browse("pages.mjs", &mut server, &scenario, |request, _| unknown(request));
}

#[test]
fn approving_and_rejecting_from_the_inbox_moves_the_runs() {
    let home = Home::new();
    let mut waiting = Vec::new();
    for goal in ["Plan to approve", "Plan to reject"] {
        let started = home.start(goal);
        home.cli_ok(&["continue", text(&started, "/tokens/continue_token"), "--notes", "A plan."]);
        waiting.push(text(&started, "/run").to_owned());
    }
    let scenario = json!({ "approve": waiting[0], "reject": waiting[1] });
    let mut server = Some(Server::start(&home, 0, &[]));
    browse("gates.mjs", &mut server, &scenario, |request, _| {
        cli_action(&home, request).unwrap_or_else(|| unknown(request))
    });
}

#[test]
fn stopping_a_run_asks_first_and_enter_in_the_reason_does_not_stop_it() {
    let home = Home::new();
    let started = home.start("Stop me only when I say so");
    let scenario = json!({ "session": text(&started, "/session"), "run": text(&started, "/run") });
    let mut server = Some(Server::start(&home, 0, &[]));
    browse("stop.mjs", &mut server, &scenario, |request, _| {
        cli_action(&home, request).unwrap_or_else(|| unknown(request))
    });
}

#[test]
fn agent_written_scripts_and_javascript_links_never_run() {
    let home = Home::new();
    let started = home.start("<script>window.xssRan = 1; alert('goal')</script>");
    let notes = "Done. <script>window.xssRan = 2; alert('notes')</script>\n\n\
        <img src=x onerror=\"window.xssRan = 3\">\n\n\
        [bait](javascript:window.xssRan=4) and <a href=\"javascript:window.xssRan=5\">raw bait</a>\n\n\
        <iframe src=\"javascript:alert(6)\"></iframe>";
    home.cli_ok(&["continue", text(&started, "/tokens/continue_token"), "--notes", notes]);
    let scenario = json!({ "session": text(&started, "/session"), "node": text(&started, "/node") });
    let mut server = Some(Server::start(&home, 0, &[]));
    browse("xss.mjs", &mut server, &scenario, |request, _| unknown(request));
}

#[test]
fn a_wrong_token_and_a_foreign_origin_are_refused_off_loopback() {
    let home = Home::new();
    let started = home.start("Guarded plan");
    home.cli_ok(&["continue", text(&started, "/tokens/continue_token"), "--notes", "A plan."]);
    let token = "browser-test-token-0123456789abcdef";
    let mut server = Some(Server::start(&home, 0, &["--host", "0.0.0.0", "--token", token]));
    let port = server.as_ref().unwrap().port();
    // The browser reaches the server over loopback; the server listens on every address.
    server.as_mut().unwrap().address = format!("127.0.0.1:{port}");
    let scenario = json!({
        "token": token,
        "session": text(&started, "/session"),
        "run": text(&started, "/run"),
        "node": text(&started, "/node"),
    });
    browse("security.mjs", &mut server, &scenario, |request, _| {
        cli_action(&home, request).unwrap_or_else(|| unknown(request))
    });
}
