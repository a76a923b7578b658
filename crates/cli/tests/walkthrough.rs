//! Every built-in workflow walked end to end through the real binary with `--json`: gates
//! rejected and approved, blocked attempts and their retries, forks, replays, and `verify`.

mod support;

use serde_json::{Value, json};
use support::{Sandbox, continue_token, string};

const NO_REPORT: &[&str] = &[];

fn advance<S: AsRef<str>>(sandbox: &Sandbox, token: &str, report: &[S]) -> support::Ran {
    let mut args = vec!["continue", token];
    args.extend(report.iter().map(AsRef::as_ref));
    sandbox.run(&args)
}

#[test]
fn dev_cycle_walks_through_a_rejected_gate_a_blocked_attempt_a_replay_and_a_fork() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "Add a --verbose flag"]).ok();
    assert_eq!(start["kind"], "ok");
    assert_eq!(start["step"]["step"], "plan");
    assert!(start["step"]["prompt"].as_str().unwrap().contains("Add a --verbose flag"));
    let run = string(&start["run"]);
    let plan_node = string(&start["node"]);

    // The gated plan waits for a human; the agent's token cannot move it on.
    let gated = advance(&sandbox, &continue_token(&start), &["--notes", "plan v1"]).ok();
    assert_eq!(gated["kind"], "waiting_gate");
    assert_eq!(gated["tokens"]["continue_token"], Value::Null);

    // Rejected: the step comes back with the reason in the prompt.
    let rejected = sandbox.run(&["reject", &run, "--reason", "no tests in the plan"]).ok();
    assert_eq!(rejected["kind"], "ok");
    assert_eq!(rejected["step"]["rejection"], "no tests in the plan");
    assert_eq!(rejected["progress"]["revisions"], 1);

    let gated_again = advance(&sandbox, &continue_token(&rejected), &["--notes", "plan v2 with tests"]).ok();
    assert_eq!(gated_again["kind"], "waiting_gate");
    let approved = sandbox.run(&["approve", &run]).ok();
    assert_eq!(approved["step"]["step"], "implement");
    // Approving twice is a replay of the recorded decision, not a second approval.
    let approved_again = sandbox.run(&["approve", &run]);
    assert_ne!(approved_again.code, 0, "the gate is no longer waiting: {}", approved_again.stdout);

    // A report without notes is a blocked attempt (exit 1) with a retry token.
    let blocked = advance(&sandbox, &continue_token(&approved), NO_REPORT).expect(1);
    assert_eq!(blocked["kind"], "blocked");
    assert_eq!(blocked["validation"]["issues"][0]["code"], "NOTES_REQUIRED");
    let retried = advance(&sandbox, &continue_token(&blocked), &["--notes", "implemented"]).ok();
    assert_eq!(retried["step"]["step"], "review");

    // The review decides by label; the same call twice advances nothing.
    let review_token = continue_token(&retried);
    let review_args = ["--notes", "looks good", "--choice", "close"];
    let reviewed = advance(&sandbox, &review_token, &review_args).ok();
    assert_eq!(reviewed["kind"], "waiting_gate");
    let events_before = sandbox.events(&run).len();
    let replayed = advance(&sandbox, &review_token, &review_args).ok();
    assert_eq!(replayed["replayed"], true);
    assert_eq!(replayed["node"], reviewed["node"]);
    assert_eq!(replayed["tokens"], reviewed["tokens"], "a replay re-mints the same tokens");
    assert_eq!(sandbox.events(&run).len(), events_before, "a replay must append nothing");
    // A replay with a different payload is refused, not silently dropped.
    let mismatch = advance(&sandbox, &review_token, &["--notes", "something else", "--choice", "close"]).expect(1);
    assert_eq!(mismatch["error"]["code"], "REPLAY_MISMATCH");

    let done = sandbox.run(&["approve", &run]).ok();
    assert_eq!(done["kind"], "complete");
    let finished = advance(&sandbox, &review_token, &["--notes", "again?"]).expect(1);
    assert_eq!(finished["error"]["code"], "REPLAY_MISMATCH");

    // Fork: rehydrate the first plan node and advance it; the old branch stays intact.
    let old = sandbox.run(&["show", &plan_node]).ok();
    let fork_token = continue_token(&old);
    assert_ne!(fork_token, continue_token(&start), "an acted-on node hands out a fresh attempt");
    let forked = advance(&sandbox, &fork_token, &["--notes", "a different plan"]).ok();
    assert_eq!(forked["forked"], true);
    assert_eq!(forked["kind"], "waiting_gate");
    let status = sandbox.run(&["status", &run]).ok();
    assert_eq!(status["tip"], forked["node"], "the new branch is the run's tip");
    let completed_node = sandbox.run(&["show", &string(&done["node"])]).ok();
    assert_eq!(completed_node["kind"], "complete", "the old branch is untouched");

    let verify = sandbox.run(&["verify"]).ok();
    assert_eq!(verify["problems"], json!([]));
}

#[test]
fn bug_investigation_loops_back_until_a_hypothesis_is_confirmed() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "bug-investigation", "--goal", "Crash on empty input"]).ok();
    let run = string(&start["run"]);
    assert_eq!(start["step"]["step"], "reproduce");

    // The output contract blocks a report without the required artifacts.
    let blocked = advance(&sandbox, &continue_token(&start), &["--notes", "repro", "--artifacts", "{}"]).expect(1);
    assert!(blocked["validation"]["issues"].as_array().unwrap().iter().all(|issue| issue["code"] == "OUTPUT_SCHEMA"));
    let reproduced = advance(
        &sandbox,
        &continue_token(&blocked),
        &[
            "--notes",
            "reproduced",
            "--artifacts",
            r#"{"reproduced": true, "command": "prog ''", "observed": "panic", "expected": "error message"}"#,
            "--context",
            r#"{"reproduction": "prog ''"}"#,
        ],
    )
    .ok();
    assert_eq!(reproduced["step"]["step"], "hypothesize");

    let hypothesis = |response: &Value, text: &str| {
        advance(
            &sandbox,
            &continue_token(response),
            &[
                "--notes",
                text,
                "--artifacts",
                &json!({"hypothesis": text, "evidence": ["src/parse.rs:10"], "experiment": "add an assertion"})
                    .to_string(),
                "--context",
                &json!({"hypothesis": text}).to_string(),
            ],
        )
        .ok()
    };
    let verify_step = hypothesis(&reproduced, "index out of range on empty slice");
    assert_eq!(verify_step["step"]["step"], "verify");
    let verify_args = |confirmed: bool| {
        vec![
            "--notes".to_owned(),
            "ran the experiment".to_owned(),
            "--artifacts".to_owned(),
            json!({"result": "assertion fired", "confirmed": confirmed}).to_string(),
            "--context".to_owned(),
            json!({"confirmed": confirmed}).to_string(),
        ]
    };
    let back = advance(&sandbox, &continue_token(&verify_step), &verify_args(false)).ok();
    assert_eq!(back["step"]["step"], "hypothesize", "an unconfirmed hypothesis goes back");
    let verify_again = hypothesis(&back, "unchecked first() on an empty vec");
    let fix = advance(&sandbox, &continue_token(&verify_again), &verify_args(true)).ok();
    assert_eq!(fix["step"]["step"], "fix");
    assert_eq!(fix["step"]["context_reset"], true);

    let reviewed = advance(
        &sandbox,
        &continue_token(&fix),
        &[
            "--notes",
            "fixed",
            "--artifacts",
            r#"{"files_changed": ["src/parse.rs"], "tests_added": 1, "summary": "guard the empty case"}"#,
        ],
    )
    .ok();
    let mut response = reviewed;
    // Walk the rest: approve gates, report notes elsewhere, until the run completes.
    for _ in 0..10 {
        match response["kind"].as_str().unwrap() {
            "complete" => break,
            "waiting_gate" => response = sandbox.run(&["approve", &run]).ok(),
            "ok" => {
                let schema = &response["step"]["output_schema"];
                let artifacts =
                    if schema.is_null() { "null".to_owned() } else { minimal_artifacts(schema).to_string() };
                let mut args = vec!["--notes", "done"];
                if schema.is_object() {
                    args.extend(["--artifacts", artifacts.as_str()]);
                }
                response = advance(&sandbox, &continue_token(&response), &args).ok();
            }
            other => panic!("unexpected {other}: {response:#}"),
        }
    }
    assert_eq!(response["kind"], "complete", "{response:#}");
    assert_eq!(sandbox.run(&["verify"]).ok()["problems"], json!([]));
}

#[test]
fn code_review_decides_by_label_and_gates_the_change_request() {
    let sandbox = Sandbox::new();
    let start =
        sandbox.run(&["start", "code-review", "--goal", "Review PR #42", "--context", r#"{"focus": "errors"}"#]).ok();
    let run = string(&start["run"]);
    assert!(start["step"]["prompt"].as_str().unwrap().contains("errors"));
    let mut response = start;
    let mut visited = Vec::new();
    for _ in 0..12 {
        let kind = response["kind"].as_str().unwrap().to_owned();
        if kind == "complete" {
            break;
        }
        if kind == "waiting_gate" {
            response = sandbox.run(&["approve", &run]).ok();
            continue;
        }
        let step = string(&response["step"]["step"]);
        visited.push(step.clone());
        let schema = &response["step"]["output_schema"];
        let mut args: Vec<String> = vec!["--notes".into(), format!("did {step}")];
        if step == "assess" {
            args.extend([
                "--artifacts".into(),
                json!({"findings": [{"severity": "major", "file": "a.rs", "message": "unchecked unwrap"}]}).to_string(),
                "--context".into(),
                json!({"blocking_findings": 1}).to_string(),
            ]);
        } else if schema.is_object() {
            args.extend(["--artifacts".into(), minimal_artifacts(schema).to_string()]);
        }
        if response["step"]["needs_choice"] == true {
            args.extend(["--choice".into(), "request-changes".into()]);
        }
        response = advance(&sandbox, &continue_token(&response), &args).ok();
    }
    assert_eq!(response["kind"], "complete", "{response:#}");
    assert!(visited.contains(&"request-changes".to_owned()), "visited {visited:?}");
    assert!(!visited.contains(&"approve".to_owned()), "visited {visited:?}");
    assert_eq!(sandbox.run(&["verify"]).ok()["problems"], json!([]));
}

#[test]
fn pause_resume_stop_and_checkpoint_through_the_cli() {
    let sandbox = Sandbox::new();
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "pause me"]).ok();
    let run = string(&start["run"]);
    let checkpoint_token = string(&start["tokens"]["checkpoint_token"]);
    let checkpoint = sandbox.run(&["checkpoint", &checkpoint_token, "--notes", "half way"]).ok();
    assert_eq!(checkpoint["replayed"], false);
    assert_eq!(sandbox.run(&["checkpoint", &checkpoint_token, "--notes", "half way"]).ok()["replayed"], true);

    assert_eq!(sandbox.run(&["pause", &run, "--reason", "lunch"]).ok()["status"], "paused");
    let refused = advance(&sandbox, &continue_token(&start), &["--notes", "x"]).expect(1);
    assert_eq!(refused["error"]["code"], "RUN_PAUSED");
    assert_eq!(refused["error"]["retryable"], true);
    assert_eq!(sandbox.run(&["pause", &run]).expect(1)["error"]["code"], "ALREADY_PAUSED");
    assert_eq!(sandbox.run(&["resume", &run]).ok()["status"], "active");
    assert_eq!(sandbox.run(&["stop", &run, "--reason", "superseded"]).ok()["status"], "stopped");
    assert_eq!(advance(&sandbox, &continue_token(&start), &["--notes", "x"]).expect(1)["error"]["code"], "RUN_STOPPED");
    assert_eq!(sandbox.count_events(&run, "run_stopped"), 1);

    let sessions = sandbox.run(&["sessions", "--status", "stopped"]).ok();
    assert_eq!(sessions.as_array().unwrap().len(), 1);
    assert_eq!(sandbox.run(&["sessions", "--status", "active"]).ok(), json!([]));
}

#[test]
fn sessions_are_listed_by_workspace_and_branch() {
    let sandbox = Sandbox::new();
    let elsewhere = tempfile::tempdir().unwrap();
    switchyard_test_support::git_repository(elsewhere.path(), "topic/okapi");
    let elsewhere = elsewhere.path().display().to_string();
    let here = sandbox.run(&["start", "dev-cycle", "--goal", "here"]).ok();
    let there = sandbox.run(&["start", "dev-cycle", "--goal", "there", "--workspace", &elsewhere]).ok();
    let sessions_of = |arguments: &[&str]| -> Vec<String> {
        let listed = sandbox.run(&[&["sessions"], arguments].concat()).ok();
        listed.as_array().unwrap().iter().map(|session| string(&session["goal"])).collect()
    };
    assert_eq!(sessions_of(&[]), ["there", "here"]);
    assert_eq!(sessions_of(&["--workspace", &elsewhere]), ["there"], "{there}");
    let project = sandbox.run(&["sessions"]).ok()[1]["workspace"].clone();
    assert_eq!(sessions_of(&["--workspace", project.as_str().unwrap()]), ["here"], "{here}");
    assert_eq!(sessions_of(&["--branch", "topic/okapi"]), ["there"]);
    assert!(sessions_of(&["--branch", "no-such-branch"]).is_empty());
}

/// The smallest value that satisfies the simple object schemas the built-ins use.
fn minimal_artifacts(schema: &Value) -> Value {
    match schema["type"].as_str() {
        Some("object") | None if schema.get("properties").is_some() => {
            let mut object = serde_json::Map::new();
            let required: Vec<&str> = schema["required"]
                .as_array()
                .map(|list| list.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (name, property) in schema["properties"].as_object().unwrap() {
                if required.contains(&name.as_str()) {
                    object.insert(name.clone(), minimal_artifacts(property));
                }
            }
            Value::Object(object)
        }
        Some("array") => {
            let min = schema["minItems"].as_u64().unwrap_or(0);
            Value::Array((0..min.max(1)).map(|_| minimal_artifacts(&schema["items"])).collect())
        }
        Some("integer") | Some("number") => json!(schema["minimum"].as_i64().unwrap_or(1)),
        Some("boolean") => json!(true),
        _ if schema.get("enum").is_some() => schema["enum"][0].clone(),
        _ => json!("text"),
    }
}
