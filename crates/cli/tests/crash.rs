//! The crash harness: CLI and `serve` processes killed with SIGKILL at random points of a stream
//! of starts, advances and file-door writes. After each kill every acknowledged answer is in the
//! store, `verify` passes, and every run is still usable through the CLI and the file door.
//!
//! Kill points come from a seeded generator; a failure prints its seed, and `CRASH_SEED=<seed>`
//! replays the same choices (the machine's timing still varies, so a replay is likely, not certain,
//! to kill at the same instants).

// The seed and the counts of a harness run go to the test's output, shown when it fails.
#![allow(clippy::print_stdout)]

mod support;

use std::collections::BTreeMap;
use std::process::{Child, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use support::mcp_http::{Answer, McpClient};
use support::{Sandbox, continue_token, string};

const LOOP: &str = "\
id: treadmill
title: Treadmill
description: One step that can be repeated many times.
steps:
  - id: work
    title: Work
    prompt: Do one more unit of work.
    notes: optional
    next:
      - to: work
        label: again
        max_traversals: 100000
      - end: true
        label: done
";

#[test]
fn sigkill_during_a_stream_of_advances_loses_no_acknowledged_advance() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("treadmill.yaml", LOOP);
    let start = sandbox.run(&["start", "treadmill", "--goal", "crash me"]).ok();
    let run = string(&start["run"]);
    // Kill points sweep a window around one advance's duration. The window adapts: it widens while
    // too few advances finish and narrows while too few are interrupted, so the test exercises both
    // outcomes however fast or loaded the machine is.
    let started = Instant::now();
    let first = sandbox.run(&["continue", &continue_token(&start), "--choice", "again"]).ok();
    let mut window = u64::try_from(started.elapsed().as_micros()).unwrap().max(1_000) * 3 / 2;
    let mut token = continue_token(&first);
    let mut acknowledged = vec![string(&first["node"])];
    let mut killed = 0;
    let mut round = 0u64;
    while (killed < 6 || acknowledged.len() < 7) && round < 400 {
        round += 1;
        if round.is_multiple_of(20) {
            if acknowledged.len() < 7 {
                window *= 2;
            } else if killed < 6 {
                window = (window / 2).max(100);
            }
        }
        let mut child = sandbox.spawn(&["continue", &token, "--notes", &format!("round {round}"), "--choice", "again"]);
        std::thread::sleep(Duration::from_micros((round * 7_919) % window));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap();
            killed += 1;
        }
        let output = support::ran(&child.wait_with_output().unwrap());
        if output.code == 0 {
            let response = output.json();
            acknowledged.push(string(&response["node"]));
            token = continue_token(&response);
        } else {
            // Killed: resume from whatever the store says the run's tip is, as a fresh agent would.
            let shown = sandbox.run(&["show", &run]).ok();
            token = continue_token(&shown);
        }
    }
    assert!(killed >= 6, "the kill points must actually interrupt advances (killed {killed} in {round} rounds)");
    assert!(acknowledged.len() >= 7, "some advances must complete ({} in {round} rounds)", acknowledged.len());

    let verify = sandbox.run(&["verify"]).ok();
    assert_eq!(verify["problems"], json!([]), "{verify:#}");
    for node in &acknowledged {
        let shown = sandbox.run(&["show", node]).ok();
        assert_eq!(shown["run"], json!(run), "acknowledged node {node} is in the run");
    }
    let advances = sandbox.count_events(&run, "advance_recorded");
    assert!(advances >= acknowledged.len(), "{advances} recorded < {} acknowledged", acknowledged.len());
    // The run still works after all of that.
    let shown = sandbox.run(&["show", &run]).ok();
    let done = sandbox.run(&["continue", &continue_token(&shown), "--choice", "done"]).ok();
    assert_eq!(done["kind"], "complete");
}

/// Regression (issue 17, failure 8): a SIGKILL or a full disk between the start's commit and its
/// run folder left a run whose file door failed forever. The folder, its manifest and its state
/// document are projections of the log, re-created by whoever needs them.
#[test]
fn a_run_whose_folder_is_missing_gets_it_back_from_the_log() {
    let sandbox = Sandbox::new();
    let started = sandbox.run(&["start", "code-review", "--goal", "Review PR 9"]).ok();
    let run = string(&started["run"]);
    let folder = sandbox.home.path().join("runs").join(string(&started["session"]));
    let manifest_before: Value = serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    let tool = |name: &str, arguments: Value| {
        if folder.exists() {
            std::fs::remove_dir_all(&folder).unwrap();
        }
        let answer = sandbox.run(&["tool", name, &arguments.to_string(), "--run", &run]).ok();
        assert!(folder.join("manifest.json").is_file(), "{name} re-creates the manifest");
        assert!(folder.join("state/workflow.md").is_file(), "{name} re-creates the state document");
        answer
    };
    tool("save_output", json!({ "path": "report.md", "content": "saved\n" }));
    tool("write_file", json!({ "path": "{output-root}/notes.md", "content": "written\n" }));
    tool("list_files", json!({ "path": "{output-root}" }));
    let read = tool("read_file", json!({ "path": "{output-root}/state/workflow.md" }));
    assert!(string(&read["content"]).contains("currentNodeId: scope"), "{read}");
    // Half a folder (the manifest and the state document gone, an output kept) is mended too.
    tool("save_output", json!({ "path": "kept.md", "content": "one\n" }));
    std::fs::remove_file(folder.join("manifest.json")).unwrap();
    std::fs::remove_dir_all(folder.join("state")).unwrap();
    let patch = json!({ "path": "{output-root}/kept.md", "hunks": [{ "search": "one", "replace": "two" }] });
    sandbox.run(&["tool", "apply_patch", &patch.to_string(), "--run", &run]).ok();
    assert!(folder.join("manifest.json").is_file() && folder.join("state/workflow.md").is_file());
    assert_eq!(std::fs::read_to_string(folder.join("kept.md")).unwrap(), "two\n");
    let step = json!({ "path": "state/workflow.md", "operations": [
        { "op": "set", "key": "currentNodeId", "value": "assess" },
        { "op": "append", "key": "decisionLog", "value": { "notes": "scoped", "artifacts": { "intent": "x", "files": [] } } }
    ] });
    let moved = tool("update_frontmatter", step);
    assert!(string(&moved["content"]).contains("now at step `assess`"), "{moved}");

    std::fs::remove_dir_all(&folder).unwrap();
    let shown = sandbox.run(&["show", &run]).ok();
    assert_eq!(shown["step"]["step"], "assess");
    tool("save_output", json!({ "path": "again.md", "content": "again\n" }));
    let manifest: Value = serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    for field in ["workflowId", "workflowHash", "runId", "sessionId", "startedAt"] {
        assert_eq!(manifest[field], manifest_before[field], "{field} comes from the log");
    }
    assert_eq!(manifest["files"][0]["path"], "again.md");
    let document = std::fs::read_to_string(folder.join("state/workflow.md")).unwrap();
    assert!(document.contains("currentNodeId: assess") && document.contains("again.md"), "{document}");
    assert_eq!(sandbox.run(&["verify"]).ok()["problems"], json!([]));
}

/// The seeded generator of a harness test, and the seed to print when it fails.
struct Chaos {
    seed: u64,
    random: StdRng,
}

impl Chaos {
    /// Seeded from `CRASH_SEED`, or from the clock; the seed is printed either way (a failing test
    /// shows its output).
    fn new(test: &str) -> Self {
        let seed = std::env::var("CRASH_SEED").ok().and_then(|seed| seed.parse().ok()).unwrap_or_else(|| {
            u64::try_from(
                std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() % (1 << 48),
            )
            .unwrap()
        });
        println!("{test}: CRASH_SEED={seed}");
        Self { seed, random: StdRng::seed_from_u64(seed) }
    }

    /// A kill point within `window`.
    fn delay(&mut self, window: Duration) -> Duration {
        let micros = u64::try_from(window.as_micros()).unwrap().max(1);
        Duration::from_micros(self.random.random_range(0..micros))
    }

    fn check(&self, condition: bool, what: impl std::fmt::Display) {
        assert!(condition, "{what} (reproduce with CRASH_SEED={})", self.seed);
    }
}

/// One kind of write the CLI harness interrupts.
#[derive(Debug, Clone, Copy)]
enum Operation {
    Start,
    Continue,
    SaveOutput,
    WriteFile,
    StateEdit,
}

const OPERATIONS: [Operation; 5] =
    [Operation::Start, Operation::Continue, Operation::SaveOutput, Operation::WriteFile, Operation::StateEdit];

/// What the harness was told was done: runs, the notes of every acknowledged advance, and the
/// content of every acknowledged file.
#[derive(Debug, Default)]
struct Acknowledged {
    runs: Vec<(String, String)>,
    advances: BTreeMap<String, Vec<String>>,
    files: BTreeMap<(String, String), String>,
}

/// Spawns `args`, kills it after `delay` unless it finished, and returns its JSON answer if it
/// finished successfully.
fn run_until(sandbox: &Sandbox, args: &[&str], delay: Duration) -> (bool, Option<Value>) {
    let mut child = sandbox.spawn(args);
    std::thread::sleep(delay);
    let killed = child.try_wait().unwrap().is_none();
    if killed {
        child.kill().unwrap();
    }
    let output = support::ran(&child.wait_with_output().unwrap());
    (killed, (output.code == 0).then(|| output.json()))
}

/// The notes of every advance recorded in a run's log.
fn recorded_notes(sandbox: &Sandbox, run: &str) -> Vec<String> {
    sandbox
        .events(run)
        .iter()
        .filter(|event| event["kind"]["type"] == "advance_recorded")
        .filter_map(|event| event["kind"]["notes"].as_str().map(str::to_owned))
        .collect()
}

/// Every run in the store, as `(run, session)`.
fn runs_in_store(sandbox: &Sandbox) -> Vec<(String, String)> {
    let sessions = sandbox.run(&["sessions", "--limit", "1000"]).ok();
    sessions.as_array().unwrap().iter().map(|session| (string(&session["run"]), string(&session["id"]))).collect()
}

/// Checks what must hold after any kill: the store verifies, and every acknowledged advance and
/// file is there.
fn check_store(chaos: &Chaos, sandbox: &Sandbox, acknowledged: &Acknowledged) {
    let verify = sandbox.run(&["verify"]);
    chaos.check(verify.code == 0 && verify.json()["problems"] == json!([]), format!("verify: {}", verify.stdout));
    for (run, notes) in &acknowledged.advances {
        let recorded = recorded_notes(sandbox, run);
        for note in notes {
            chaos.check(recorded.contains(note), format!("acknowledged advance `{note}` of {run} is in the log"));
        }
    }
    for ((session, path), content) in &acknowledged.files {
        let on_disk = std::fs::read_to_string(sandbox.home.path().join("runs").join(session).join(path));
        chaos.check(on_disk.ok().as_deref() == Some(content.as_str()), format!("acknowledged file {session}/{path}"));
    }
}

/// Checks that a run is fully usable: its file door writes (folder, manifest and state document
/// there afterwards), and it advances through the CLI.
fn check_usable(chaos: &Chaos, sandbox: &Sandbox, run: &str, session: &str, acknowledged: &mut Acknowledged) {
    let path = format!("usable/{}.md", acknowledged.files.len());
    let arguments = json!({ "path": path, "content": "usable\n" });
    let saved = sandbox.run(&["tool", "save_output", &arguments.to_string(), "--run", run]);
    chaos.check(saved.code == 0, format!("save_output on {run}: {}{}", saved.stdout, saved.stderr));
    acknowledged.files.insert((session.to_owned(), path), "usable\n".to_owned());
    let folder = sandbox.home.path().join("runs").join(session);
    let manifest: Value = serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    chaos.check(manifest["runId"] == json!(run), format!("the manifest of {run} names it: {manifest}"));
    let read = sandbox.run(&["tool", "read_file", r#"{"path": "{output-root}/state/workflow.md"}"#, "--run", run]);
    chaos.check(read.code == 0, format!("the state document of {run} reads: {}{}", read.stdout, read.stderr));
    let notes = format!("usable {}", acknowledged.files.len());
    let token = continue_token(&sandbox.run(&["show", run]).ok());
    let advanced = sandbox.run(&["continue", &token, "--notes", &notes, "--choice", "again"]);
    chaos.check(advanced.code == 0, format!("{run} advances: {}{}", advanced.stdout, advanced.stderr));
    acknowledged.advances.entry(run.to_owned()).or_default().push(notes);
}

/// How long `args` takes to answer here, with a floor: the window kill points are drawn from.
fn measure(sandbox: &Sandbox, args: &[&str]) -> Duration {
    let started = Instant::now();
    sandbox.run(args).ok();
    started.elapsed().max(Duration::from_millis(2)) * 2
}

#[test]
fn sigkill_at_random_points_of_starts_advances_and_file_writes_keeps_every_run_usable() {
    const ROUNDS: usize = 40;
    let mut chaos = Chaos::new("sigkill_at_random_points_of_starts_advances_and_file_writes");
    let sandbox = Sandbox::new();
    sandbox.write_workflow("treadmill.yaml", LOOP);
    let mut acknowledged = Acknowledged::default();
    let start_window = measure(&sandbox, &["start", "treadmill", "--goal", "measure"]);
    let known = runs_in_store(&sandbox);
    let (run, _) = &known[0];
    let continue_window =
        measure(&sandbox, &["continue", &continue_token(&sandbox.run(&["show", run]).ok()), "--choice", "again"]);
    let tool_window = measure(&sandbox, &["tool", "save_output", r#"{"path": "m.md", "content": "m"}"#, "--run", run]);
    acknowledged.runs = known;
    let mut killed = 0;
    for round in 0..ROUNDS {
        let operation = OPERATIONS[chaos.random.random_range(0..OPERATIONS.len())];
        let (run, session) = acknowledged.runs[chaos.random.random_range(0..acknowledged.runs.len())].clone();
        let notes = format!("round {round}");
        let path = format!("out/round-{round}.md");
        let content = format!("written in round {round}\n");
        let (args, window): (Vec<String>, Duration) = match operation {
            Operation::Start => (["start", "treadmill", "--goal", &notes].map(str::to_owned).to_vec(), start_window),
            Operation::Continue => {
                let token = continue_token(&sandbox.run(&["show", &run]).ok());
                (
                    ["continue", &token, "--notes", &notes, "--choice", "again"].map(str::to_owned).to_vec(),
                    continue_window,
                )
            }
            Operation::SaveOutput | Operation::WriteFile | Operation::StateEdit => {
                let (tool, arguments) = match operation {
                    Operation::SaveOutput => ("save_output", json!({ "path": path, "content": content })),
                    Operation::WriteFile => {
                        ("write_file", json!({ "path": format!("{{output-root}}/{path}"), "content": content }))
                    }
                    _ => (
                        "update_frontmatter",
                        json!({ "path": "state/workflow.md", "operations": [
                            { "op": "append", "key": "decisionLog", "value": { "choice": "again", "notes": notes } }
                        ] }),
                    ),
                };
                (["tool", tool, &arguments.to_string(), "--run", &run].map(str::to_owned).to_vec(), tool_window)
            }
        };
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let delay = chaos.delay(window);
        let (was_killed, answer) = run_until(&sandbox, &args, delay);
        killed += usize::from(was_killed);
        if let Some(answer) = answer {
            match operation {
                Operation::Start => acknowledged.runs.push((string(&answer["run"]), string(&answer["session"]))),
                Operation::Continue | Operation::StateEdit => {
                    acknowledged.advances.entry(run.clone()).or_default().push(notes);
                }
                Operation::SaveOutput | Operation::WriteFile => {
                    acknowledged.files.insert((session.clone(), path), content);
                }
            }
        }
        if was_killed {
            check_store(&chaos, &sandbox, &acknowledged);
            // A start killed after its commit left a run nobody was told about: it must be as
            // usable as any other, folder included.
            for found in runs_in_store(&sandbox) {
                if !acknowledged.runs.contains(&found) {
                    check_usable(&chaos, &sandbox, &found.0, &found.1, &mut acknowledged);
                    acknowledged.runs.push(found);
                }
            }
            check_usable(&chaos, &sandbox, &run, &session, &mut acknowledged);
        }
    }
    let advances: usize = acknowledged.advances.values().map(Vec::len).sum();
    println!(
        "killed {killed} of {ROUNDS}; {} runs, {advances} advances, {} files acknowledged",
        acknowledged.runs.len(),
        acknowledged.files.len()
    );
    chaos.check(killed >= ROUNDS / 8, format!("the kill points must interrupt some operations (killed {killed})"));
    check_store(&chaos, &sandbox, &acknowledged);
    for (run, session) in acknowledged.runs.clone() {
        check_usable(&chaos, &sandbox, &run, &session, &mut acknowledged);
    }
    check_store(&chaos, &sandbox, &acknowledged);
}

/// A `switchyard serve` process and the address it listens on.
struct Server {
    child: Child,
    address: String,
}

impl Server {
    fn start(sandbox: &Sandbox) -> Self {
        let mut child = sandbox
            .command(&["serve", "--port", "0"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let address = support::serve_address(&mut child);
        Self { child, address }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn sigkill_of_serve_mid_stream_loses_no_acknowledged_advance() {
    const KILLS: usize = 4;
    let mut chaos = Chaos::new("sigkill_of_serve_mid_stream_loses_no_acknowledged_advance");
    let sandbox = Sandbox::new();
    sandbox.write_workflow("treadmill.yaml", LOOP);
    let start = sandbox.run(&["start", "treadmill", "--goal", "serve me"]).ok();
    let (run, session) = (string(&start["run"]), string(&start["session"]));
    let mut acknowledged = Acknowledged { runs: vec![(run.clone(), session.clone())], ..Acknowledged::default() };
    let mut total = 0;
    for kill in 0..KILLS {
        let server = Server::start(&sandbox);
        let streamed = Arc::new(Mutex::new(Vec::new()));
        let first = continue_token(&sandbox.run(&["show", &run]).ok());
        let client = std::thread::spawn({
            let (address, streamed) = (server.address.clone(), Arc::clone(&streamed));
            move || {
                let Some(mut client) = McpClient::connect(&address, None) else { return };
                let mut token = Some(first);
                for call in 0.. {
                    let Some(current) = token.take() else { return };
                    let notes = format!("serve {kill} call {call}");
                    let arguments = json!({ "continueToken": current, "notes": notes, "choice": "again" });
                    let Answer::Done(answer) = client.call("continue_workflow", &arguments) else { return };
                    streamed.lock().unwrap().push(notes);
                    token = answer["continueToken"].as_str().map(str::to_owned);
                }
            }
        });
        std::thread::sleep(Duration::from_millis(50) + chaos.delay(Duration::from_millis(400)));
        drop(server);
        client.join().unwrap();
        let streamed = std::mem::take(&mut *streamed.lock().unwrap());
        total += streamed.len();
        acknowledged.advances.entry(run.clone()).or_default().extend(streamed);
        check_store(&chaos, &sandbox, &acknowledged);
        check_usable(&chaos, &sandbox, &run, &session, &mut acknowledged);
    }
    println!("{total} advances acknowledged over HTTP across {KILLS} kills");
    chaos.check(total >= KILLS, format!("the server must acknowledge advances before it is killed ({total})"));
}
