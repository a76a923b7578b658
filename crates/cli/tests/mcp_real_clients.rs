//! Real MCP clients against the real `switchyard` binary: the official Python SDK (`mcp` from
//! PyPI) over stdio and HTTP, the MCP Inspector CLI, and the official conformance suite
//! (`@modelcontextprotocol/conformance`, on Node 22 from npm).
//!
//! The tools are provisioned into `target/test-tools/` on first use and reused afterwards
//! (`support::test_tools`). Provisioning needs PyPI and npm; when it fails the test fails and says
//! what to fix: these checks never skip.

mod support;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use support::test_tools::{Follower, node_tools, python, tools_dir};
use switchyard_test_support::TestHome;

const SWITCHYARD: &str = env!("CARGO_BIN_EXE_switchyard");

struct Home {
    home: TestHome,
    workspace: tempfile::TempDir,
}

fn home() -> Home {
    Home { home: TestHome::new(), workspace: tempfile::tempdir().unwrap() }
}

impl Home {
    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        support::without_switchyard_environment(&mut command)
            .env("SWITCHYARD_HOME", self.home.path())
            .current_dir(self.workspace.path());
        command
    }
}

/// A `switchyard serve --port 0` process and the URL it printed.
struct Server {
    child: Child,
    url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(home: &Home, extra: &[&str]) -> Server {
    let mut child = home
        .command(SWITCHYARD)
        .args(["serve", "--port", "0"])
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("switchyard serve starts");
    let mut reader = BufReader::new(child.stderr.take().expect("stderr is piped"));
    let mut line = String::new();
    reader.read_line(&mut line).expect("switchyard serve says where it listens");
    let address = support::start_line_address(&line).unwrap_or_else(|| panic!("no address in `{line}`"));
    let url = format!("http://{address}/mcp");
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || for _ in reader.lines() {});
    Server { child, url }
}

fn walk(home: &Home, target: &str, workflow: &str) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../mcp/tests/python/walk.py");
    let output = home
        .command(python())
        .arg(script)
        .arg(SWITCHYARD)
        .arg(home.workspace.path())
        .arg(target)
        .arg(workflow)
        .output()
        .expect("the Python walker runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && stdout.contains("WALK OK"),
        "the Python SDK walk over {target} failed.\nstdout:\n{stdout}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn python_sdk_walks_a_builtin_workflow_over_stdio() {
    walk(&home(), "stdio", "dev-cycle");
}

#[test]
fn python_sdk_walks_a_builtin_workflow_over_http() {
    let home = home();
    let server = serve(&home, &[]);
    walk(&home, &server.url, "dev-cycle");
}

#[test]
fn python_sdk_walks_an_unseen_project_workflow() {
    let home = home();
    let folder = home.workspace.path().join(".switchyard/workflows");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("ship-fossil.yaml"),
        "id: ship-fossil\nversion: \"1\"\ntitle: Ship a fossil\ndescription: A workflow no test has seen.\nsteps:\n  - id: sketch\n    title: Sketch\n    prompt: Sketch {{ goal }}.\n    gate: true\n    next: polish\n  - id: polish\n    title: Polish\n    prompt: Polish it.\n    next:\n      - {to: sketch, label: again, kind: loop}\n      - {end: true, label: ship}\n",
    )
    .unwrap();
    walk(&home, "stdio", "ship-fossil");
}

/// `switchyard --json <args>` in the home, its answer.
fn cli(home: &Home, args: &[&str]) -> serde_json::Value {
    let output = home.command(SWITCHYARD).arg("--json").args(args).output().expect("switchyard runs");
    assert!(output.status.success(), "switchyard {args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("switchyard --json answers JSON")
}

/// A client following a run's resource, in both protocol generations and over both transports,
/// hears what another process commits to the run (the CLI here), and reads the run as it is then.
#[test]
fn python_sdk_follows_a_run_and_hears_what_another_process_commits() {
    let home = home();
    let server = serve(&home, &[]);
    for target in ["stdio", server.url.as_str()] {
        for mode in ["auto", "legacy"] {
            let started = cli(&home, &["start", "dev-cycle", "--goal", &format!("follow over {target} in {mode}")]);
            let run = started["run"].as_str().unwrap();
            let follower = Follower::start(home.command(python()), target, mode, run);
            let token = started["tokens"]["continue_token"].as_str().unwrap();
            let gate = cli(&home, &["continue", token, "--notes", "Plan: add the flag, test it, document it."]);
            let gate_node = gate["node"].as_str().unwrap();
            let (update, _) =
                follower.wait_for(|update| update == format!("waiting_gate {gate_node}"), Duration::from_secs(30));
            assert_eq!(update, format!("waiting_gate {gate_node}"), "{mode} over {target}");
            let approved = cli(&home, &["approve", run]);
            let next_node = approved["node"].as_str().unwrap();
            follower.wait_for(|update| update == format!("active {next_node}"), Duration::from_secs(30));
        }
    }
}

#[test]
fn inspector_cli_lists_the_tools() {
    let home = home();
    let node = node_tools();
    let output = home
        .command(node.join("node_modules/node/bin/node"))
        .arg(node.join("node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"))
        .args(["--cli", SWITCHYARD, "mcp", "--method", "tools/list"])
        .output()
        .expect("the Inspector runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "Inspector failed: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    let listed: serde_json::Value = serde_json::from_str(&stdout).expect("the Inspector prints JSON");
    let mut names: Vec<&str> =
        listed["tools"].as_array().unwrap().iter().filter_map(|tool| tool["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "checkpoint_workflow",
            "continue_workflow",
            "inspect_workflow",
            "list_workflows",
            "manage_workflow_source",
            "resume_session",
            "start_workflow"
        ]
    );
}

#[test]
fn conformance_suite_passes_except_the_baseline() {
    let home = home();
    let node = node_tools();
    let server = serve(&home, &["--conformance-fixtures"]);
    let results = tools_dir().join("conformance-results");
    let baseline = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../conformance-baseline.yml");
    let output = home
        .command(node.join("node_modules/node/bin/node"))
        .arg(node.join("node_modules/@modelcontextprotocol/conformance/dist/index.js"))
        .args(["server", "--url", &server.url, "-o"])
        .arg(&results)
        .arg("--expected-failures")
        .arg(&baseline)
        .output()
        .expect("the conformance suite runs");
    // The suite's summary looks like a test summary; keep it in a file, not in this test's output.
    let log = tools_dir().join("conformance.log");
    let text = format!("{}{}", String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    std::fs::write(&log, &text).unwrap();
    assert!(
        output.status.success() && text.contains("Baseline check passed"),
        "the MCP conformance suite found unexpected failures (or a baseline entry that now passes); see {}",
        log.display()
    );
}
