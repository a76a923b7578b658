//! `switchyard run` through the binary against the fake model server (real HTTP on loopback, a
//! real SQLite file): workflows driven to their end, gates approved by the runner or from a second
//! process, a server that is slow, failing or refusing the key, a runner killed mid-step and
//! resumed, the turn limit, and the `--json` event stream pinned by a snapshot. Each scenario is
//! checked against what the run's log recorded.

mod support;

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use support::{Ran, Sandbox, ran};
use switchyard_test_support::fake_llm::{FakeLlm, RecordedRequest, Reply};

/// The variable the tests name with `--api-key-env`, and the key it holds: a value that must
/// appear nowhere but in the `Authorization` header.
const KEY_VARIABLE: &str = "SWITCHYARD_TEST_MODEL_KEY";
const KEY: &str = "sk-test-9f3b7c1e5a2d4f6081726354aabbccdd";

/// How long a test waits for the runner to reach a point it acts at, before it fails.
const BOUND: Duration = Duration::from_secs(60);

/// A sandbox and a fake model server, and `switchyard run` pointed at it.
struct Bench {
    sandbox: Sandbox,
    server: FakeLlm,
}

impl Bench {
    fn new() -> Self {
        Self { sandbox: Sandbox::new(), server: FakeLlm::start() }
    }

    /// `switchyard --json run <args> --model fake-model --base-url <server> --api-key-env …`.
    fn command(&self, args: &[&str]) -> std::process::Command {
        let base_url = self.server.base_url();
        let mut all = vec!["--json", "run"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--model", "fake-model", "--base-url", &base_url, "--api-key-env", KEY_VARIABLE]);
        let mut command = self.sandbox.command(&all);
        command.env(KEY_VARIABLE, KEY);
        command
    }

    fn run(&self, args: &[&str]) -> Driven {
        Driven::from(ran(&self.command(args).output().expect("the switchyard binary runs")))
    }

    fn spawn(&self, args: &[&str]) -> Child {
        self.command(args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("switchyard run starts")
    }
}

/// What one `switchyard run --json` did: its exit code, its events and its stderr.
struct Driven {
    ran: Ran,
    events: Vec<Value>,
}

impl From<Ran> for Driven {
    fn from(ran: Ran) -> Self {
        let events = ran
            .stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line).unwrap_or_else(|error| {
                    panic!("a stdout line is not JSON ({error}): {line}\nstderr:\n{}", ran.stderr)
                })
            })
            .collect();
        Self { ran, events }
    }
}

impl Driven {
    fn expect(&self, code: i32) -> &Self {
        assert_eq!(
            self.ran.code, code,
            "exit code of switchyard run\nstdout:\n{}\nstderr:\n{}",
            self.ran.stdout, self.ran.stderr
        );
        self
    }

    fn named(&self, name: &str) -> Vec<&Value> {
        self.events.iter().filter(|event| event["event"] == name).collect()
    }

    fn last(&self) -> &Value {
        self.events.last().unwrap_or_else(|| panic!("no events; stderr:\n{}", self.ran.stderr))
    }

    fn run_id(&self) -> String {
        support::string(&self.named("run_started")[0]["run"])
    }
}

/// The step a request is about, from its system prompt (`## Step: Title (`id`)`).
fn step_of(request: &RecordedRequest) -> String {
    let system = request.messages()[0]["content"].as_str().unwrap_or_default();
    let start = system.find("## Step: ").map(|at| &system[at..]).unwrap_or_default();
    start.split('`').nth(1).unwrap_or_default().to_owned()
}

/// The last choice the step offers (`choice` (required): one of a, b.): the way out of a loop.
fn last_choice(request: &RecordedRequest) -> Option<String> {
    let system = request.messages()[0]["content"].as_str().unwrap_or_default();
    let line = system.lines().find(|line| line.contains("`choice` (required): one of "))?;
    let labels = line.split("one of ").nth(1)?.trim_end_matches('.');
    labels.split(", ").last().map(str::to_owned)
}

/// A model that completes whatever step it is given, at once: notes naming the step, and the
/// last choice where the step needs one.
fn complete_any_step(request: &RecordedRequest) -> Reply {
    let step = step_of(request);
    let mut arguments =
        json!({ "notes": format!("## {step}\n\nDone: the work of step {step} is finished and checked.") });
    if let Some(choice) = last_choice(request) {
        arguments["choice"] = json!(choice);
    }
    Reply::tool_call("complete_step", arguments)
}

/// The steps reported on, in the order of the run's log: each `advance_recorded`, named by the
/// step of the node it left (a blocked report counts too).
fn reported_steps(sandbox: &Sandbox, run: &str) -> Vec<String> {
    let events = sandbox.events(run);
    let step_of_node: std::collections::HashMap<String, String> = events
        .iter()
        .filter(|event| event["kind"]["type"] == "node_created")
        .map(|event| (support::string(&event["kind"]["node"]), support::string(&event["kind"]["step"])))
        .collect();
    events
        .iter()
        .filter(|event| event["kind"]["type"] == "advance_recorded")
        .map(|event| step_of_node[&support::string(&event["kind"]["from"])].clone())
        .collect()
}

/// Fails when `text` holds the API key, the run's id or anything shaped like a token (`ct_`,
/// `ck_` or `st_` starting a word, followed by 24 token characters).
fn assert_no_secret(text: &str, run: &str) {
    assert!(!text.contains(KEY), "the API key is in: {text}");
    assert!(!text.contains(run), "the run's id is in: {text}");
    for prefix in ["ct_", "ck_", "st_"] {
        for (at, _) in text.match_indices(prefix) {
            let starts_word = text[..at].chars().next_back().is_none_or(|before| !before.is_ascii_alphanumeric());
            let body = &text[at + prefix.len()..];
            let token_like =
                body.chars().take(24).filter(|c| c.is_ascii_alphanumeric() || "-_".contains(*c)).count() == 24;
            assert!(!(starts_word && token_like), "a token is in: {text}");
        }
    }
}

/// Reads `--json` events from a running `switchyard run` until one named `name`.
fn read_until(lines: &mut impl Iterator<Item = std::io::Result<String>>, name: &str) -> Vec<Value> {
    let mut seen = Vec::new();
    for line in lines {
        let event: Value = serde_json::from_str(&line.expect("stdout reads")).expect("each line is JSON");
        let found = event["event"] == name;
        seen.push(event);
        if found {
            return seen;
        }
    }
    panic!("switchyard run ended before `{name}`; its events: {seen:#?}");
}

fn lines_of(child: &mut Child) -> std::io::Lines<BufReader<ChildStdout>> {
    BufReader::new(child.stdout.take().expect("stdout is piped")).lines()
}

#[test]
fn the_builtin_dev_cycle_is_driven_to_completion_with_gates_auto_approved() {
    let bench = Bench::new();
    bench.server.otherwise(complete_any_step);
    let driven = bench.run(&["dev-cycle", "--goal", "add a --verbose flag", "--auto-approve"]);
    driven.expect(0);
    assert_eq!(driven.last()["event"], "finished", "{:#?}", driven.events);
    assert_eq!(driven.last()["status"], "completed");
    let run = driven.run_id();
    assert_eq!(reported_steps(&bench.sandbox, &run), ["plan", "implement", "review"]);
    let completed: Vec<&Value> = driven.named("step_completed").into_iter().map(|event| &event["step"]).collect();
    assert_eq!(completed, ["plan", "implement", "review"]);
    let decided: Vec<&Value> = driven.named("human_decided");
    assert_eq!(decided.len(), 2, "the plan and review gates: {decided:#?}");
    assert!(decided.iter().all(|event| event["by"] == "auto-approve"), "{decided:#?}");
    // Every request went to the model named, and none carried a token or the key.
    for request in bench.server.requests() {
        assert_eq!(request.model(), "fake-model");
        assert_eq!(request.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
        assert_no_secret(&request.body_text, &run);
    }
}
