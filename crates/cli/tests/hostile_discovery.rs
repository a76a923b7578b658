//! Hostile files met by the real binary: `validate`, `list` and the MCP `list_workflows` tool
//! answer with a FIFO named like a workflow and a device inside a bundle folder in the project's
//! workflows. Each process runs under `timeout -s KILL 10` (an answer within 10 s) and
//! `ulimit -v` (2 GiB of address space): a blocking open or an unbounded read is killed and
//! fails the test instead of hanging it or exhausting the machine.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rustix::fs::{CWD, FileType, Mode, makedev, mknodat};
use serde_json::{Value, json};
use support::{Ran, Sandbox, ran};
use switchyard_test_support::{copy_folder, testdata};

const SWITCHYARD: &str = env!("CARGO_BIN_EXE_switchyard");
const GOOD: &str = "id: good\nversion: \"1\"\ntitle: Good\nsteps:\n  - id: only\n    title: Only\n    prompt: Do it.\n";

/// A project whose workflows are `good.yaml`, the FIFO `stuck.yaml` and the bundle folder
/// `zeroed/` holding a character device that reads as endless zeros.
struct Hostile {
    sandbox: Sandbox,
    fifo: PathBuf,
    device: PathBuf,
}

impl Hostile {
    fn new() -> Self {
        let sandbox = Sandbox::new();
        let good = sandbox.write_workflow("good.yaml", GOOD);
        let workflows = good.parent().unwrap().to_owned();
        let fifo = workflows.join("stuck.yaml");
        mknodat(CWD, &fifo, FileType::Fifo, Mode::from(0o644), 0).unwrap();
        let bundle = workflows.join("zeroed");
        copy_folder(&testdata().join("crewagent").join("hello-branch"), &bundle);
        let device = bundle.join("steps").join("zero.md");
        mknodat(CWD, &device, FileType::CharacterDevice, Mode::from(0o644), makedev(1, 5)).unwrap();
        Self { sandbox, fifo, device }
    }

    fn workflows(&self) -> &Path {
        self.fifo.parent().unwrap()
    }

    /// Runs the binary with `arguments` within the bounds, `stdin` fed from a file when given.
    fn bounded(&self, arguments: &[&str], stdin: Option<&Path>) -> Ran {
        let mut command = Command::new("sh");
        support::without_switchyard_environment(&mut command)
            .args(["-c", "ulimit -v 2097152 && exec timeout -s KILL 10 \"$@\"", "sh", SWITCHYARD])
            .args(arguments)
            .env("SWITCHYARD_HOME", self.sandbox.home.path())
            .env("NO_COLOR", "1")
            .current_dir(self.sandbox.project.path())
            .stdin(stdin.map_or_else(Stdio::null, |path| std::fs::File::open(path).unwrap().into()));
        let output = command.output().expect("sh runs");
        assert!(output.status.code().is_some(), "killed past its time or memory bound: {output:?}");
        ran(&output)
    }
}

#[test]
fn validate_names_a_fifo_and_a_device_without_reading_them() {
    let hostile = Hostile::new();
    let workflows = hostile.workflows().display().to_string();
    let report = hostile.bounded(&["--json", "validate", &workflows], None).expect(1);
    let files = report["files"].as_array().unwrap();
    let error_of = |path: &Path| {
        let path = path.display().to_string();
        files
            .iter()
            .filter_map(|file| file["error"].as_str())
            .find(|error| error.contains(&path))
            .unwrap_or_else(|| panic!("{path} is not reported: {report:#}"))
            .to_owned()
    };
    assert!(error_of(&hostile.fifo).contains("named pipe (FIFO)"));
    assert!(error_of(&hostile.device).contains("character device"));
    assert!(files.iter().any(|file| file["path"].as_str().unwrap().ends_with("good.yaml") && file["valid"] == true));
}

#[test]
fn list_skips_a_fifo_and_a_bundle_holding_a_device() {
    let hostile = Hostile::new();
    let listed = hostile.bounded(&["--json", "list"], None).ok();
    let names: Vec<&str> = listed.as_array().unwrap().iter().filter_map(|found| found["name"].as_str()).collect();
    assert!(names.contains(&"good"), "{listed:#}");
    assert!(!names.contains(&"stuck") && !names.contains(&"zeroed"), "{listed:#}");
}

#[test]
fn mcp_list_workflows_answers_with_a_fifo_present() {
    let hostile = Hostile::new();
    let workspace = hostile.sandbox.project.path().display().to_string();
    let frames = [
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "hostile-test", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "list_workflows", "arguments": { "workspacePath": workspace, "listAll": true } } }),
    ];
    let frames_path = hostile.sandbox.home.path().join("frames.jsonl");
    let lines: Vec<String> = frames.iter().map(Value::to_string).collect();
    std::fs::write(&frames_path, lines.join("\n") + "\n").unwrap();

    let served = hostile.bounded(&["mcp"], Some(&frames_path));
    assert_eq!(served.code, 0, "{}", served.stderr);
    let answer: Value = served
        .stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|answer| answer["id"] == 2)
        .unwrap_or_else(|| panic!("list_workflows is not answered: {}", served.stdout));
    let workflows =
        answer["result"]["structuredContent"]["workflows"].as_array().unwrap_or_else(|| panic!("{answer:#}"));
    let names: Vec<&str> = workflows.iter().filter_map(|workflow| workflow["workflowId"].as_str()).collect();
    assert!(names.contains(&"good") && !names.contains(&"stuck"), "{answer:#}");
}

#[test]
fn validate_of_an_empty_folder_named_like_a_workflow_names_it() {
    let sandbox = Sandbox::new();
    let folder = sandbox.project.path().join("x.yaml");
    std::fs::create_dir(&folder).unwrap();
    let refused = sandbox.run_text(&["validate", &folder.display().to_string()]);
    assert_ne!(refused.code, 0);
    assert!(
        refused.stderr.contains(&folder.display().to_string()) && refused.stderr.contains("must be a file"),
        "{}",
        refused.stderr
    );
}
