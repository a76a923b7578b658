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

    /// A `switchyard.toml` naming the built-in dev-cycle's two models, both served by the fake
    /// server under ids of their own.
    fn configure_dev_cycle_models(&self) {
        let base_url = self.server.base_url();
        let config = format!(
            "[models.claude-opus-4-6]\nbase_url = \"{base_url}\"\nmodel = \"fake-opus\"\napi_key_env = \"{KEY_VARIABLE}\"\ninput_price_per_mtok = 3.0\noutput_price_per_mtok = 15.0\n\n\
             [models.codex-1]\nbase_url = \"{base_url}\"\nmodel = \"fake-codex\"\napi_key_env = \"{KEY_VARIABLE}\"\ninput_price_per_mtok = 1.0\noutput_price_per_mtok = 4.0\n"
        );
        std::fs::write(self.sandbox.project.path().join("switchyard.toml"), config).unwrap();
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

    /// Checks that the run completed: exit 0, and `finished` with `completed` last.
    fn completed(&self) -> &Self {
        self.expect(0);
        let last = self.last();
        assert_eq!((&last["event"], &last["status"]), (&json!("finished"), &json!("completed")), "{:#?}", self.events);
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

    /// Checks that the run paused at a limit after `turns` turns: exit 1, `limit_reached` last;
    /// returns the pause's message.
    fn paused_at_a_limit(&self, turns: usize) -> String {
        self.expect(1);
        assert_eq!(self.named("turn").len(), turns, "{:#?}", self.events);
        assert_eq!(self.last()["reason"], "limit_reached", "{:#?}", self.events);
        support::string(&self.last()["message"])
    }
}

/// Checks that `run` is paused and no step was reported on.
fn assert_paused_before_any_report(sandbox: &Sandbox, run: &str) {
    assert_eq!(sandbox.run(&["status", run]).ok()["control"], "paused");
    assert!(reported_steps(sandbox, run).is_empty());
}

/// Whether a message hands out a step's task (`## Step: Title (`id`)`).
fn is_task(message: &Value) -> bool {
    message["role"] == "user" && message["content"].as_str().is_some_and(|text| text.contains("## Step: "))
}

/// The task of the step a request is about: its latest user message that hands one out.
fn task_of(request: &RecordedRequest) -> &str {
    request
        .messages()
        .iter()
        .rev()
        .find(|message| is_task(message))
        .and_then(|task| task["content"].as_str())
        .unwrap_or_default()
}

/// The step a request is about, from its task (`## Step: Title (`id`)`).
fn step_of(request: &RecordedRequest) -> String {
    let task = task_of(request);
    let start = task.find("## Step: ").map(|at| &task[at..]).unwrap_or_default();
    start.split('`').nth(1).unwrap_or_default().to_owned()
}

/// The last choice the step offers (`choice` (required): one of a, b.): the way out of a loop.
fn last_choice(request: &RecordedRequest) -> Option<String> {
    let line = task_of(request).lines().find(|line| line.contains("`choice` (required): one of "))?;
    let labels = line.split("one of ").nth(1)?.trim_end_matches('.');
    labels.split(", ").last().map(str::to_owned)
}

/// A model that completes whatever step it is given, at once: notes naming the step (and saying
/// hello, which the greeting's check wants), and the last choice where the step needs one.
fn complete_any_step(request: &RecordedRequest) -> Reply {
    let step = step_of(request);
    let mut arguments =
        json!({ "notes": format!("## {step}\n\nhello: the work of step {step} is finished and checked.") });
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
    bench.configure_dev_cycle_models();
    bench.server.otherwise(complete_any_step);
    let driven = bench.run(&["dev-cycle", "--goal", "add a --verbose flag", "--auto-approve"]);
    driven.completed();
    let run = driven.run_id();
    assert_eq!(reported_steps(&bench.sandbox, &run), ["plan", "implement", "review"]);
    let completed: Vec<&Value> = driven.named("step_completed").into_iter().map(|event| &event["step"]).collect();
    assert_eq!(completed, ["plan", "implement", "review"]);
    let decided: Vec<&Value> = driven.named("human_decided");
    assert_eq!(decided.len(), 2, "the plan and review gates: {decided:#?}");
    assert!(decided.iter().all(|event| event["by"] == "auto-approve"), "{decided:#?}");
    // Each step's request went to the model its step names, and none carried a token or the key.
    let models: Vec<(String, String)> =
        bench.server.requests().iter().map(|request| (step_of(request), request.model().to_owned())).collect();
    let expected = [("plan", "fake-opus"), ("implement", "fake-codex"), ("review", "fake-opus")];
    assert_eq!(models, expected.map(|(step, model)| (step.to_owned(), model.to_owned())));
    let started: Vec<&Value> = driven.named("step_started").into_iter().map(|event| &event["model"]).collect();
    assert_eq!(started, ["claude-opus-4-6", "codex-1", "claude-opus-4-6"]);
    // Priced models: the cost so far grows with each turn of a priced one.
    assert!(driven.last()["cost_usd"].as_f64().unwrap() > 0.0, "{:#}", driven.last());
    for request in bench.server.requests() {
        assert_eq!(request.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
        assert_no_secret(&request.body_text, &run);
    }
}

#[test]
fn a_gate_is_approved_from_a_second_process_while_run_waits() {
    let bench = Bench::new();
    bench.configure_dev_cycle_models();
    bench.server.otherwise(complete_any_step);
    let mut child = bench.spawn(&["dev-cycle", "--goal", "add a --verbose flag"]);
    let mut lines = lines_of(&mut child);
    let mut seen = read_until(&mut lines, "waiting_for_human");
    let run = support::string(&seen[0]["run"]);
    for gate in ["plan", "review"] {
        let waiting = seen.last().unwrap();
        assert_eq!((&waiting["step"], &waiting["kind"]), (&json!(gate), &json!("gate")), "{seen:#?}");
        let how = support::string(&waiting["how"]);
        assert!(how.starts_with(&format!("switchyard approve {run}")), "{how}");
        bench.sandbox.run(&["approve", &run]).ok();
        let decided = read_until(&mut lines, "human_decided");
        assert_eq!(decided.last().unwrap()["decision"], "approved");
        if gate == "plan" {
            seen = read_until(&mut lines, "waiting_for_human");
        }
    }
    let rest = read_until(&mut lines, "finished");
    assert_eq!(rest.last().unwrap()["status"], "completed");
    let status = child.wait().expect("switchyard run ends");
    assert_eq!(status.code(), Some(0));
    assert_eq!(reported_steps(&bench.sandbox, &run), ["plan", "implement", "review"]);
    assert_eq!(bench.sandbox.count_events(&run, "gate_decided"), 2);
}

#[test]
fn a_rate_limit_is_waited_out_as_retry_after_says_and_the_run_goes_on() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    bench.server.push(Reply::error(429, json!({"error": {"message": "slow down"}})).header("Retry-After", "1"));
    bench.server.otherwise(complete_any_step);
    let driven = bench.run(&["greeting", "--goal", "greet", "--auto-approve"]);
    driven.completed();
    let retrying = driven.named("retrying");
    assert_eq!(retrying.len(), 1, "{:#?}", driven.events);
    assert!(retrying[0]["delay_ms"].as_u64().unwrap() >= 1000, "{:#?}", retrying[0]);
    let requests = bench.server.requests();
    assert!(requests[1].arrived.duration_since(requests[0].arrived) >= Duration::from_secs(1), "Retry-After honoured");
}

#[test]
fn a_server_failing_past_the_retries_pauses_the_run_and_resume_finishes_it() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    std::fs::write(bench.sandbox.project.path().join("switchyard.toml"), "[runner]\nmax_retries = 2\n").unwrap();
    bench.server.push_all((0..3).map(|_| Reply::error(500, json!({"error": {"message": "overloaded"}}))));
    let driven = bench.run(&["greeting", "--goal", "greet", "--auto-approve"]);
    driven.expect(2);
    assert_eq!(driven.named("retrying").len(), 2, "[runner] max_retries: {:#?}", driven.events);
    let paused = driven.last();
    assert_eq!((&paused["event"], &paused["reason"]), (&json!("paused"), &json!("model_unavailable")), "{paused:#}");
    let run = driven.run_id();
    assert_eq!(paused["resume"], format!("switchyard run --resume {run}"));
    assert_eq!(bench.sandbox.run(&["status", &run]).ok()["control"], "paused");
    assert_eq!(bench.server.remaining(), 0);

    bench.server.otherwise(complete_any_step);
    let resumed = bench.run(&["--resume", &run, "--auto-approve"]);
    resumed.completed();
    assert_eq!(resumed.named("run_started")[0]["resumed"], true);
    assert_eq!(reported_steps(&bench.sandbox, &run), ["draft", "review"]);
}

#[test]
fn a_refused_key_stops_at_once_leaves_the_run_paused_and_is_never_shown() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    bench.server.push(Reply::error(401, json!({"error": {"message": "invalid api key"}})));
    let driven = bench.run(&["greeting", "--goal", "greet"]);
    driven.expect(2);
    assert!(driven.named("retrying").is_empty(), "no retry on 401: {:#?}", driven.events);
    assert_eq!(driven.last()["reason"], "model_refused", "{:#?}", driven.events);
    assert_eq!(bench.server.requests().len(), 1);
    let run = driven.run_id();
    assert_eq!(bench.sandbox.run(&["status", &run]).ok()["control"], "paused");
    assert!(!driven.ran.stdout.contains(KEY) && !driven.ran.stderr.contains(KEY), "the key was printed");
    for file in ["switchyard.sqlite3", "switchyard.sqlite3-wal"] {
        if let Ok(bytes) = std::fs::read(bench.sandbox.home.path().join(file)) {
            assert!(!String::from_utf8_lossy(&bytes).contains(KEY), "the key is in the store file {file}");
        }
    }
}

#[test]
fn a_missing_key_variable_stops_before_anything_starts() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    let ran = ran(&bench.command(&["greeting", "--goal", "g"]).env_remove(KEY_VARIABLE).output().unwrap());
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    let expected = format!("reads its API key from the environment variable {KEY_VARIABLE}, which is not set");
    assert!(ran.stderr.contains(&expected), "{}", ran.stderr);
    assert!(ran.stderr.contains("[API_KEY_MISSING]"), "{}", ran.stderr);
    assert_eq!(bench.server.requests().len(), 0);
    assert!(bench.sandbox.run(&["sessions"]).ok().as_array().unwrap().is_empty(), "no run was started");
}

#[test]
fn a_runner_killed_mid_step_resumes_without_repeating_a_completed_step() {
    let bench = Bench::new();
    bench.configure_dev_cycle_models();
    // The plan is completed; the answer to the implement step's first request never comes in
    // time: the runner is killed while it waits for it.
    bench.server.push(Reply::computed(complete_any_step));
    bench.server.push(Reply::text("too late").delayed(Duration::from_secs(600)));
    let mut child = bench.spawn(&["dev-cycle", "--goal", "add a --verbose flag", "--auto-approve"]);
    let requests = bench.server.wait_for_requests(2, BOUND);
    assert_eq!(step_of(&requests[1]), "implement");
    child.kill().expect("SIGKILL reaches switchyard run");
    child.wait().unwrap();
    let run = support::string(&bench.sandbox.run(&["sessions"]).ok()[0]["run"]);
    assert_eq!(reported_steps(&bench.sandbox, &run), ["plan"]);

    bench.server.otherwise(complete_any_step);
    let resumed = bench.run(&["--resume", &run, "--auto-approve"]);
    resumed.completed();
    let started: Vec<&Value> = resumed.named("step_started").into_iter().map(|event| &event["step"]).collect();
    assert_eq!(started, ["implement", "review"], "the plan is not worked again");
    assert_eq!(reported_steps(&bench.sandbox, &run), ["plan", "implement", "review"]);
    assert_eq!(bench.sandbox.run(&["verify"]).ok()["problems"], json!([]));
}

#[test]
fn the_turn_limit_pauses_the_run_and_resume_goes_on() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    bench.server.otherwise(|request| {
        // The first turn of the run lists files; any later one (a resumed drive's restores it)
        // completes the step.
        if request.messages().iter().any(|message| message["role"] == "assistant") {
            complete_any_step(request)
        } else {
            Reply::tool_call("list_files", json!({"path": "{project-root}"}))
        }
    });
    let driven = bench.run(&["greeting", "--goal", "greet", "--max-turns", "1"]);
    let message = driven.paused_at_a_limit(1);
    assert!(message.starts_with("this drive of the run took 1 turn, its limit is 1 (--max-turns"), "{message}");
    let run = driven.run_id();
    assert_paused_before_any_report(&bench.sandbox, &run);

    let resumed = bench.run(&["--resume", &run, "--auto-approve"]);
    resumed.completed();
    assert_eq!(reported_steps(&bench.sandbox, &run), ["draft", "review"]);
}

#[test]
fn a_step_turn_limit_from_the_flag_pauses_naming_the_step_and_resume_gives_the_step_a_fresh_budget() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    bench.server.push_all([
        Reply::tool_call("list_files", json!({"path": "{project-root}"})),
        Reply::tool_call("read_file", json!({"path": "{project-root}/README.md"})),
    ]);
    bench.server.otherwise(complete_any_step);
    let driven = bench.run(&["greeting", "--goal", "greet", "--auto-approve", "--step-max-turns", "2"]);
    let message = driven.paused_at_a_limit(2);
    assert!(message.starts_with("step `draft` took 2 turns, its limit is 2 (--step-max-turns"), "{message}");
    assert!(message.contains("fresh budget"), "{message}");
    let run = driven.run_id();
    assert_paused_before_any_report(&bench.sandbox, &run);

    let resumed = bench.run(&["--resume", &run, "--auto-approve", "--step-max-turns", "2"]);
    resumed.completed();
    assert_eq!(reported_steps(&bench.sandbox, &run), ["draft", "review"]);
}

#[test]
fn a_step_token_limit_from_the_configuration_pauses_naming_the_step_and_the_key() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    std::fs::write(bench.sandbox.project.path().join("switchyard.toml"), "[runner]\nstep_max_tokens = 150\n").unwrap();
    bench.server.push_all([
        Reply::tool_call("list_files", json!({"path": "{project-root}"})).usage(100, 20),
        Reply::tool_call("read_file", json!({"path": "{project-root}/README.md"})).usage(100, 20),
    ]);
    bench.server.otherwise(complete_any_step);
    let driven = bench.run(&["greeting", "--goal", "greet", "--auto-approve"]);
    let message = driven.paused_at_a_limit(2);
    assert!(
        message.starts_with(
            "step `draft` used 240 tokens, its limit is 150 (--step-max-tokens or [runner] step_max_tokens)"
        ),
        "{message}"
    );
    assert_paused_before_any_report(&bench.sandbox, &driven.run_id());
}

/// A small workflow with a check that blocks a careless report, then a gate.
const GREETING: &str = include_str!("support/greeting.yaml");

#[test]
fn the_transcript_shows_what_the_model_saw_and_did_per_step_and_turn() {
    let bench = Bench::new();
    bench.configure_dev_cycle_models();
    bench.server.otherwise(complete_any_step);
    let driven = bench.run(&["dev-cycle", "--goal", "add a --verbose flag", "--auto-approve"]);
    driven.completed();
    let run = driven.run_id();

    let transcript = bench.sandbox.run(&["transcript", &run]).ok();
    let turns = transcript["turns"].as_array().unwrap();
    let steps: Vec<&Value> = turns.iter().map(|turn| &turn["step"]).collect();
    assert_eq!(steps, ["plan", "implement", "review"]);
    assert_eq!(turns[0]["model"], "claude-opus-4-6");
    assert_eq!(turns[0]["response"]["tool_calls"][0]["name"], "complete_step");
    let arguments = support::string(&turns[2]["response"]["tool_calls"][0]["arguments"]);
    assert!(arguments.contains("hello: the work of step review is finished"), "{arguments}");
    assert_eq!(turns[0]["request"]["new_messages"][0]["role"], "system");

    let text = bench.sandbox.run_text(&["transcript", &run, "--step", "implement"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.starts_with("step implement\n"), "{}", text.stdout);
    assert!(text.stdout.contains("turn 2 · codex-1 · 10 in / 5 out · "), "{}", text.stdout);
    assert!(text.stdout.contains("system: You are driving one step of the workflow"), "{}", text.stdout);
    assert!(text.stdout.contains("→ complete_step {\"notes\":"), "{}", text.stdout);
    assert!(text.stdout.contains("← complete_step ok"), "{}", text.stdout);
    assert!(!text.stdout.contains("\nstep plan\n"), "only the implement step: {}", text.stdout);

    let unknown = bench.sandbox.run(&["transcript", &run, "--step", "deploy"]);
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("has no turns on step `deploy`; the steps with turns: plan, implement, review"),
        "{}",
        unknown.stderr
    );
}

#[test]
fn the_json_event_stream_of_a_short_run() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    bench.server.push_all([
        Reply::tool_call("save_output", json!({"path": "greeting.md", "content": "Hi there"})),
        Reply::tool_call("complete_step", json!({"notes": "Hi there"})),
        Reply::tool_call("complete_step", json!({"notes": "hello, world"})).usage(120, 30),
        Reply::tool_call("complete_step", json!({"notes": "It sounds friendly."})),
    ]);
    let driven = bench.run(&["greeting", "--goal", "greet the reader", "--auto-approve"]);
    driven.completed();
    assert_eq!(bench.server.remaining(), 0);
    let mut settings = support::redactions(&[bench.sandbox.project.path(), bench.sandbox.home.path()]);
    settings.add_filter(r#""(latency_ms|elapsed_ms|tool_call_ms)":\d+"#, r#""$1":"[ms]""#);
    settings.add_filter(r"127\.0\.0\.1:\d+", "127.0.0.1:[port]");
    settings.bind(|| insta::assert_snapshot!("runner_json_event_stream", driven.ran.stdout));
}

#[test]
fn a_step_naming_a_model_the_configuration_lacks_stops_the_run_before_it_starts() {
    let bench = Bench::new();
    let ran = ran(&bench.command(&["dev-cycle", "--goal", "g"]).output().unwrap());
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    assert!(ran.stderr.contains("claude-opus-4-6"), "{}", ran.stderr);
    assert!(ran.stderr.contains("[MODEL_UNKNOWN]"), "{}", ran.stderr);
    assert_eq!(bench.server.requests().len(), 0);
    assert!(bench.sandbox.run(&["sessions"]).ok().as_array().unwrap().is_empty(), "no run was started");
}

/// Copies a workflow of the shared corpora (a file or a bundle folder) into the project's
/// workflows as `name`.
fn install_from_corpora(sandbox: &Sandbox, source: &str, name: &str) {
    let source = switchyard_test_support::corpora().join(source);
    let workflows = sandbox.project.path().join(".switchyard/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    if source.is_dir() {
        switchyard_test_support::copy_folder(&source, &workflows.join(name));
    } else {
        std::fs::copy(&source, workflows.join(format!("{name}.json"))).unwrap();
    }
}

#[test]
fn a_workrail_workflow_is_driven_end_to_end() {
    let bench = Bench::new();
    install_from_corpora(&bench.sandbox, "workrail/workflows/document-creation-workflow.json", "document-creation");
    bench.server.otherwise(complete_any_step);
    let driven = bench.run(&["document-creation", "--goal", "write the onboarding guide", "--auto-approve"]);
    driven.completed();
    let run = driven.run_id();
    assert_eq!(reported_steps(&bench.sandbox, &run), ["phase-0-triage", "phase-4-create", "phase-6-finalize"]);
}

/// A model for step-file workflows: it reads the workflow's files with `preload_workflow` at the
/// start of each step, then completes the step.
fn preload_then_complete(request: &RecordedRequest) -> Reply {
    let preloaded_in_this_step = request
        .messages()
        .iter()
        .rev()
        .take_while(|message| !is_task(message))
        .any(|message| message["role"] == "tool");
    if preloaded_in_this_step { complete_any_step(request) } else { Reply::tool_call("preload_workflow", json!({})) }
}

#[test]
fn a_bmad_method_workflow_is_driven_end_to_end_reading_its_files_with_preload_workflow() {
    let bench = Bench::new();
    install_from_corpora(&bench.sandbox, "bmad/6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev", "quick-dev");
    bench.server.otherwise(preload_then_complete);
    let driven = bench.run(&["quick-dev", "--goal", "add a --verbose flag", "--auto-approve"]);
    driven.completed();
    let preloads: Vec<&Value> =
        driven.named("tool_called").into_iter().filter(|event| event["tool"] == "preload_workflow").collect();
    assert!(!preloads.is_empty() && preloads.iter().all(|event| event["ok"] == true), "{preloads:#?}");
    let run = driven.run_id();
    assert_eq!(reported_steps(&bench.sandbox, &run).len(), driven.named("step_completed").len());
}

#[test]
fn ctrl_c_pauses_the_run_cleanly_and_says_how_to_resume() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    bench.server.otherwise(complete_any_step);
    let mut child = bench.spawn(&["greeting", "--goal", "greet"]);
    let mut lines = lines_of(&mut child);
    let seen = read_until(&mut lines, "waiting_for_human");
    let run = support::string(&seen[0]["run"]);
    let interrupted = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(interrupted.success());
    let rest = read_until(&mut lines, "paused");
    let paused = rest.last().unwrap();
    assert_eq!(paused["reason"], "interrupted", "{paused:#}");
    assert_eq!(paused["resume"], format!("switchyard run --resume {run}"));
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("Ctrl-C again to quit now"), "{stderr}");
    assert_eq!(bench.sandbox.run(&["status", &run]).ok()["control"], "paused");

    let resumed = bench.run(&["--resume", &run, "--auto-approve"]);
    resumed.completed();
    assert_eq!(reported_steps(&bench.sandbox, &run), ["draft", "review"]);
}

#[test]
fn status_shows_what_the_runner_did_on_a_run() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    bench.server.push_all([
        Reply::tool_call("read_file", json!({"path": "{project-root}/missing.md"})),
        Reply::tool_call("complete_step", json!({"notes": "hello"})).usage(100, 20),
    ]);
    bench.server.otherwise(complete_any_step);
    let driven = bench.run(&["greeting", "--goal", "greet", "--auto-approve"]);
    driven.completed();
    let run = driven.run_id();
    let status = bench.sandbox.run(&["status", &run]).ok();
    let runner = &status["runner"];
    assert_eq!(
        (&runner["turns"], &runner["tool_calls"], &runner["tool_calls_refused"]),
        (&json!(3), &json!(3), &json!(1)),
        "{status:#}"
    );
    assert_eq!((&runner["prompt_tokens"], &runner["completion_tokens"]), (&json!(120), &json!(30)));
    assert_eq!(runner["steps_completed"], 2);
    let text = bench.sandbox.run_text(&["status", &run]);
    assert!(text.stdout.contains("runner     3 turns · 150 tokens · 3 tool calls (1 refused, "), "{}", text.stdout);

    // A run no runner drove shows no runner line, and its JSON is the run record alone.
    let started = bench.sandbox.run(&["start", "greeting", "--goal", "by hand"]).ok();
    let by_hand = bench.sandbox.run(&["status", &support::string(&started["run"])]).ok();
    assert!(by_hand.get("runner").is_none(), "{by_hand:#}");
}

#[test]
fn without_a_terminal_each_event_is_a_plain_line_and_stdout_closes_with_how_the_run_ended() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    bench.server.otherwise(complete_any_step);
    let base_url = bench.server.base_url();
    let args =
        ["run", "greeting", "--goal", "greet", "--auto-approve", "--model", "fake-model", "--base-url", &base_url];
    let ran = ran(&bench.sandbox.command(&args).output().unwrap());
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    for line in [
        "step 1/2 draft: Draft the greeting (model fake-model)",
        "tool complete_step on draft: ok ",
        "step draft completed, next: review",
        "step review: approved by auto-approve",
        "finished (completed): 2 turns, 20 tokens in, 10 out",
    ] {
        assert!(ran.stderr.lines().any(|printed| printed.starts_with(line)), "no line `{line}` in:\n{}", ran.stderr);
    }
    assert!(
        ran.stdout.starts_with("run run_") && ran.stdout.contains(" completed (2 turns, 30 tokens)"),
        "{}",
        ran.stdout
    );
}

const FIX_AND_TEST: &str = r#"id: fix-and-test
version: "1"
title: Fix and test
description: One step whose model fixes a bug and runs the tests.
steps:
  - id: fix
    title: Fix the bug and run the tests
    prompt: Make the tests in pkg pass.
"#;

/// The answer to the request's latest tool call, parsed.
fn last_answer(request: &RecordedRequest) -> Value {
    let message = request.messages().iter().rev().find(|message| message["role"] == "tool").expect("a tool answer");
    serde_json::from_str(message["content"].as_str().unwrap()).expect("a JSON tool answer")
}

#[test]
fn the_model_runs_the_projects_tests_through_run_command_confined_by_the_kernel() {
    let bench = Bench::new();
    let project = bench.sandbox.project.path();
    let outside = tempfile::tempdir().unwrap();
    let escaped = outside.path().join("escaped.txt");
    std::fs::create_dir(project.join("pkg")).unwrap();
    std::fs::write(project.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(project.join("pkg/calc.py"), "def add(a, b):\n    return a - b\n").unwrap();
    std::fs::write(
        project.join("pkg/test_calc.py"),
        "import unittest\nfrom pkg.calc import add\n\nclass Add(unittest.TestCase):\n    def test_adds(self):\n        self.assertEqual(add(2, 3), 5)\n",
    )
    .unwrap();
    std::fs::write(
        project.join("pkg/test_escape.py"),
        format!(
            "import unittest\n\nclass Escape(unittest.TestCase):\n    def test_writes_outside(self):\n        open({:?}, 'w').write('out')\n",
            escaped.display().to_string()
        ),
    )
    .unwrap();
    std::fs::write(
        project.join("pkg/test_hang.py"),
        "import time, unittest\n\nclass Hang(unittest.TestCase):\n    def test_hangs(self):\n        time.sleep(600)\n",
    )
    .unwrap();
    std::fs::write(
        project.join("switchyard.toml"),
        "[files]\nproject_writable = true\n\n[runner.commands]\nallow = [\"python3 -m unittest\"]\ntimeout_seconds = 3\n",
    )
    .unwrap();
    bench.sandbox.write_workflow("fix-and-test.yaml", FIX_AND_TEST);
    let unittest =
        |module: &str| Reply::tool_call("run_command", json!({"argv": ["python3", "-m", "unittest", module]}));
    bench.server.push_all([
        unittest("pkg.test_calc"),
        Reply::tool_call(
            "write_file",
            // A size of its own: Python trusts a cached module of the same size and second.
            json!({"path": "{project-root}/pkg/calc.py", "content": "def add(a, b):\n    return b + a  # fixed\n"}),
        ),
        unittest("pkg.test_calc"),
        Reply::tool_call("run_command", json!({"argv": ["python3", "-c", "print('not a test')"]})),
        unittest("pkg.test_escape"),
        unittest("pkg.test_hang"),
        Reply::tool_call("complete_step", json!({"notes": "Fixed `add`; the tests pass."})),
    ]);
    let driven = bench.run(&["fix-and-test", "--goal", "fix the adder"]);
    driven.completed();
    let said = "the model may run the commands [runner.commands] allows, confined by Landlock (ABI ";
    assert!(driven.ran.stderr.contains(said) && driven.ran.stderr.contains("no TCP"), "{}", driven.ran.stderr);
    let requests = bench.server.requests();
    assert_eq!(bench.server.remaining(), 0);
    let tools = &requests[0].body["tools"];
    let offered = tools.as_array().unwrap().iter().find(|tool| tool["function"]["name"] == "run_command").unwrap();
    assert!(offered["function"]["description"].as_str().unwrap().contains("`python3 -m unittest`"));

    let failing = last_answer(&requests[1]);
    assert_eq!(failing["exit_code"], 1, "{failing}");
    assert!(failing["stderr"].as_str().unwrap().contains("AssertionError: -1 != 5"), "{failing}");
    let passing = last_answer(&requests[3]);
    assert_eq!(passing["exit_code"], 0, "{passing}");
    assert!(passing["stderr"].as_str().unwrap().contains("OK"), "{passing}");

    let refused = last_answer(&requests[4]);
    assert_eq!(refused["error"]["code"], "COMMAND_NOT_ALLOWED", "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap().contains("python3 -m unittest"), "{refused}");
    assert!(driven.ran.stderr.contains("security: command refused"), "the security log has it: {}", driven.ran.stderr);

    let escape = last_answer(&requests[5]);
    assert_eq!(escape["exit_code"], 1, "{escape}");
    assert!(escape["stderr"].as_str().unwrap().contains("PermissionError"), "the kernel refused: {escape}");
    assert!(!escaped.exists(), "nothing was written outside the workspace");

    let hang = last_answer(&requests[6]);
    assert_eq!((&hang["timed_out"], &hang["exit_code"]), (&json!(true), &Value::Null), "{hang}");
    assert!(hang["what_happened"].as_str().unwrap().contains("killed after 3 s"), "{hang}");

    let run = driven.run_id();
    let transcript = bench.sandbox.run(&["transcript", &run]).ok();
    let results: Vec<&Value> = transcript["turns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|turn| turn["tool_results"].as_array().unwrap())
        .filter(|result| result["name"] == "run_command")
        .collect();
    assert_eq!(results.len(), 5, "every command is in the transcript");
    assert_eq!(results[2]["refusal"], "violation");
}

#[test]
fn sigterm_pauses_the_run_as_ctrl_c_does_and_says_how_to_resume() {
    let bench = Bench::new();
    bench.sandbox.write_workflow("greeting.yaml", GREETING);
    // The first answer never comes in time: the runner is stopped while it waits for it.
    bench.server.push(Reply::text("too late").delayed(Duration::from_secs(600)));
    let child = bench.spawn(&["greeting", "--goal", "greet"]);
    bench.server.wait_for_requests(1, BOUND);
    rustix::process::kill_process(rustix::process::Pid::from_child(&child), rustix::process::Signal::TERM)
        .expect("SIGTERM reaches switchyard run");
    let driven = Driven::from(ran(&child.wait_with_output().unwrap()));
    driven.expect(130);
    assert_eq!(driven.last()["reason"], "interrupted", "{:#?}", driven.events);
    assert!(driven.ran.stderr.contains("SIGTERM: pausing the run"), "{}", driven.ran.stderr);
    let run = driven.run_id();
    assert_eq!(bench.sandbox.run(&["status", &run]).ok()["control"], "paused");
}
