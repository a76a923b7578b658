//! `--log-format json` through the real binary: every log line on stderr is one JSON object, the
//! runtime's lifecycle events carry their ids under stable field names, and no token, note or
//! goal text reaches the log.

mod support;

use serde_json::Value;
use support::{Ran, Sandbox, continue_token, ran, string};

/// Runs `switchyard --json --log-format json <args>` with info logs on.
fn logged(sandbox: &Sandbox, args: &[&str]) -> Ran {
    let mut all = vec!["--json", "--log-format", "json"];
    all.extend_from_slice(args);
    ran(&sandbox.command(&all).env("SWITCHYARD_LOG", "info").output().expect("the switchyard binary runs"))
}

/// Every log line on stderr of `ran`, each parsed as JSON (failing on any line that is not). The
/// one line that is not a log line is the error report of a failed command (`switchyard: …`),
/// the CLI's answer rather than a log.
fn log_lines(ran: &Ran) -> Vec<Value> {
    ran.stderr
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with("switchyard: "))
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("not a JSON log line ({error}): {line}")))
        .collect()
}

/// The lifecycle lines among `lines`, by their `event` field.
fn lifecycle<'a>(lines: &'a [Value], event: &str) -> Vec<&'a Value> {
    lines.iter().filter(|line| line["event"] == event).collect()
}

/// Every token a step response handed out.
fn tokens(response: &Value) -> Vec<String> {
    response["tokens"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(_, token)| token.as_str().map(str::to_owned))
        .collect()
}

#[test]
fn lifecycle_events_are_json_log_lines_with_their_ids_and_no_secrets() {
    let sandbox = Sandbox::new();
    let goal = "Goal text that must stay out of the log";
    let notes = "Notes text that must stay out of the log";
    let mut handed_out = Vec::new();
    let mut lines = Vec::new();
    let mut step = |ran: Ran, code: i32| {
        let response = ran.expect(code);
        handed_out.extend(tokens(&response));
        lines.extend(log_lines(&ran));
        (response, ran.stderr)
    };

    let (started, _) = step(logged(&sandbox, &["start", "dev-cycle", "--goal", goal]), 0);
    let (run, session) = (string(&started["run"]), string(&started["session"]));
    let (gated, _) = step(logged(&sandbox, &["continue", &continue_token(&started), "--notes", notes]), 0);
    assert_eq!(gated["kind"], "waiting_gate");
    let (approved, _) = step(logged(&sandbox, &["approve", &run]), 0);
    let (blocked, _) = step(logged(&sandbox, &["continue", &continue_token(&approved)]), 1);
    assert_eq!(blocked["kind"], "blocked");
    step(logged(&sandbox, &["continue", &continue_token(&blocked), "--notes", notes]), 0);
    step(logged(&sandbox, &["stop", &run, "--reason", notes]), 0);

    let run_started = lifecycle(&lines, "run_started");
    assert_eq!(run_started.len(), 1, "{lines:#?}");
    let first = run_started[0];
    assert_eq!(first["level"], "INFO");
    assert_eq!(first["target"], "switchyard::lifecycle");
    assert_eq!(first["run"], run.as_str());
    assert_eq!(first["session"], session.as_str());
    assert_eq!(first["workflow"], "dev-cycle");
    assert_eq!(first["step"], "plan");
    assert_eq!(first["node"], started["node"]);

    let gate = lifecycle(&lines, "gate_waiting");
    assert_eq!((gate.len(), &gate[0]["step"], &gate[0]["node"]), (1, &Value::from("plan"), &gated["node"]));
    let decided = lifecycle(&lines, "gate_decided");
    assert_eq!((decided.len(), &decided[0]["approved"]), (1, &Value::Bool(true)));
    let blocked_lines = lifecycle(&lines, "advance_blocked");
    assert_eq!((blocked_lines.len(), &blocked_lines[0]["step"]), (1, &Value::from("implement")));
    let completed: Vec<&Value> = lifecycle(&lines, "step_completed").into_iter().map(|line| &line["step"]).collect();
    assert_eq!(completed, [&Value::from("plan"), &Value::from("implement")]);
    let finished = lifecycle(&lines, "run_finished");
    assert_eq!((finished.len(), &finished[0]["outcome"]), (1, &Value::from("stopped")));
    for line in lines.iter().filter(|line| line["target"] == "switchyard::lifecycle") {
        assert_eq!((&line["run"], &line["session"]), (&Value::from(run.as_str()), &Value::from(session.as_str())));
    }

    let log: String = lines.iter().map(Value::to_string).collect();
    assert!(!handed_out.is_empty());
    for secret in handed_out.iter().map(String::as_str).chain([goal, notes]) {
        assert!(!log.contains(secret), "`{secret}` leaked into the log:\n{log}");
    }
}

#[test]
fn a_human_decision_past_a_limit_is_a_decision_made_line_with_the_option() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow(
        "once.yaml",
        "id: once\nlimits: {max_revision_attempts: 0}\nsteps:\n  - {id: draft, prompt: Draft., gate: true, next: done}\n  - {id: done, prompt: Done.}\n",
    );
    let started = sandbox.run(&["start", "once", "--goal", "Draft once"]).ok();
    let run = string(&started["run"]);
    sandbox.run(&["continue", &continue_token(&started), "--notes", "a draft"]).ok();
    let rejected = sandbox.run(&["reject", &run, "--reason", "Reason text that must stay out of the log"]).ok();
    assert_eq!(rejected["kind"], "waiting_for_human_decision", "{rejected:#}");
    let decided = logged(&sandbox, &["decide", &run, "revise", "--note", "Note text that must stay out of the log"]);
    let decided_response = decided.expect(0);
    let lines = log_lines(&decided);
    let made = lifecycle(&lines, "decision_made");
    assert_eq!(made.len(), 1, "{lines:#?}");
    assert_eq!(
        (&made[0]["option"], &made[0]["run"], &made[0]["step"]),
        (&Value::from("revise"), &Value::from(run.as_str()), &Value::from("draft"))
    );
    assert_eq!(made[0]["next_node"], decided_response["node"]);
    assert!(!decided.stderr.contains("must stay out of the log"), "{}", decided.stderr);
}

#[test]
fn a_refused_file_tool_call_is_a_security_refused_line_naming_the_run() {
    let sandbox = Sandbox::new();
    let run = string(&sandbox.run(&["start", "code-review", "--goal", "Review PR 9"]).ok()["run"]);
    let escape = r#"{"path": "../../evil.md", "content": "x"}"#;
    let refused = logged(&sandbox, &["tool", "save_output", escape, "--run", &run]);
    assert_eq!(refused.expect(1)["error"]["code"], "E_PATH_TRAVERSAL");
    let lines = log_lines(&refused);
    let refusals = lifecycle(&lines, "security_refused");
    assert_eq!(refusals.len(), 1, "{lines:#?}");
    assert_eq!(refusals[0]["level"], "WARN");
    assert_eq!(refusals[0]["target"], "switchyard::lifecycle", "beside the other lifecycle lines");
    assert_eq!(refusals[0]["run"], run.as_str());
    assert_eq!(refusals[0]["tool"], "save_output");
    assert_eq!(refusals[0]["code"], "E_PATH_TRAVERSAL");
}

#[test]
fn the_log_format_comes_from_the_environment_too() {
    let sandbox = Sandbox::new();
    let ran = ran(&sandbox
        .command(&["--json", "start", "dev-cycle", "--goal", "g"])
        .env("SWITCHYARD_LOG", "info")
        .env("SWITCHYARD_LOG_FORMAT", "json")
        .output()
        .unwrap());
    ran.ok();
    assert_eq!(lifecycle(&log_lines(&ran), "run_started").len(), 1, "{}", ran.stderr);
    let wrong = ran_with_format(&sandbox, "xml");
    assert_eq!(wrong.code, 2, "{}", wrong.stderr);
    assert!(wrong.stderr.contains("--log-format") && wrong.stderr.contains("json"), "{}", wrong.stderr);
}

fn ran_with_format(sandbox: &Sandbox, format: &str) -> Ran {
    ran(&sandbox.command(&["list"]).env("SWITCHYARD_LOG_FORMAT", format).output().unwrap())
}

#[test]
fn a_token_whose_signature_does_not_verify_is_a_security_refused_line_without_the_token() {
    let sandbox = Sandbox::new();
    let started = sandbox.run(&["start", "dev-cycle", "--goal", "Tokens"]).ok();
    let run = string(&started["run"]);
    let mut tampered: Vec<char> = continue_token(&started).chars().collect();
    tampered[5] = if tampered[5] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();

    let refused = logged(&sandbox, &["continue", &tampered, "--run", &run, "--notes", "x"]);
    assert_eq!(refused.expect(2)["error"]["code"], "TOKEN_BAD_SIGNATURE");
    let lines = log_lines(&refused);
    let refusals = lifecycle(&lines, "security_refused");
    assert_eq!(refusals.len(), 1, "{lines:#?}");
    let line = refusals[0];
    assert_eq!((&line["level"], &line["target"]), (&Value::from("WARN"), &Value::from("switchyard::lifecycle")));
    assert_eq!((&line["code"], &line["token_kind"]), (&Value::from("TOKEN_BAD_SIGNATURE"), &Value::from("continue")));
    assert_eq!(line["run"], run.as_str(), "the run the caller named");

    // Something that is no token at all is most often a copy cut short: a line at info.
    let cut_short = &tampered[..20];
    let malformed = logged(&sandbox, &["continue", cut_short, "--notes", "x"]);
    assert_eq!(malformed.expect(2)["error"]["code"], "TOKEN_MALFORMED");
    let malformed_lines = log_lines(&malformed);
    let refusals = lifecycle(&malformed_lines, "security_refused");
    assert_eq!(refusals.len(), 1, "{malformed_lines:#?}");
    assert_eq!((&refusals[0]["level"], &refusals[0]["code"]), (&Value::from("INFO"), &Value::from("TOKEN_MALFORMED")));
    assert!(refusals[0]["reason"].as_str().is_some_and(|reason| reason.contains("characters")), "{:#}", refusals[0]);

    let log: String = lines.iter().chain(&malformed_lines).map(Value::to_string).collect();
    assert!(!log.contains(cut_short), "no token, whole or in part, in the log:\n{log}");

    // Under the default filter (warn) the forged token is still logged, the copy error is not.
    let default_filter = |args: &[&str]| {
        let mut all = vec!["--json", "--log-format", "json"];
        all.extend_from_slice(args);
        ran(&sandbox.command(&all).output().unwrap())
    };
    let forged = default_filter(&["continue", &tampered, "--notes", "x"]);
    assert_eq!(lifecycle(&log_lines(&forged), "security_refused").len(), 1, "{}", forged.stderr);
    let short = default_filter(&["continue", cut_short, "--notes", "x"]);
    assert_eq!(lifecycle(&log_lines(&short), "security_refused").len(), 0, "{}", short.stderr);
}
