//! The `--json` output of every command is a stable interface: these snapshots pin its shape.
//! Ids, tokens, times and temporary paths are redacted; everything else must match exactly.

mod support;

use support::{Sandbox, continue_token, redactions, string};

#[test]
fn step_responses_keep_their_shape() {
    let sandbox = Sandbox::new();
    let settings = redactions(&[sandbox.home.path(), sandbox.project.path()]);
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "Snapshot the wire"]).ok();
    let blocked_run = sandbox.run(&["start", "bug-investigation", "--goal", "Crash on empty input"]).ok();
    let blocked = sandbox
        .run(&["continue", &continue_token(&blocked_run), "--notes", "x", "--artifacts", "{\"reproduced\": \"yes\"}"])
        .expect(1);
    let gate = sandbox.run(&["continue", &continue_token(&start), "--notes", "plan"]).ok();
    let run = string(&start["run"]);
    let status = sandbox.run(&["status", &run]).ok();
    let error = sandbox.run(&["continue", "ct_AAAAAAAAAAAAAAAAAAAAAAAA", "--notes", "x"]).expect(2);
    settings.bind(|| {
        insta::assert_json_snapshot!("start_response", start);
        insta::assert_json_snapshot!("blocked_response", blocked);
        insta::assert_json_snapshot!("gate_response", gate);
        insta::assert_json_snapshot!("status", status);
        insta::assert_json_snapshot!("error_envelope", error);
    });
}

#[test]
fn workflow_commands_keep_their_shape() {
    let sandbox = Sandbox::new();
    let settings = redactions(&[sandbox.home.path(), sandbox.project.path()]);
    sandbox.write_workflow("dev-cycle.yaml", "name: dev-cycle\nstages:\n  - name: only\n    role: dev\n    model: m\n");
    let broken = sandbox.write_workflow(
        "broken.yaml",
        "id: broken\ntitle: Broken\nsteps:\n  - id: a\n    title: A\n    prompt: \"{{ nope }}\"\n    next: b\n",
    );
    let list = sandbox.run(&["list"]).ok();
    let inspect = sandbox.run(&["--project", "/nonexistent", "inspect", "code-review"]).ok();
    let validate = sandbox.run(&["validate", &broken.display().to_string()]).expect(1);
    settings.bind(|| {
        insta::assert_json_snapshot!("list", list);
        insta::assert_json_snapshot!("inspect_code_review", inspect);
        insta::assert_json_snapshot!("validate_broken", validate);
    });
}

#[test]
fn the_log_keeps_its_shape() {
    let sandbox = Sandbox::new();
    let settings = redactions(&[sandbox.home.path(), sandbox.project.path()]);
    let start = sandbox.run(&["start", "dev-cycle", "--goal", "Log me"]).ok();
    sandbox.run(&["continue", &continue_token(&start), "--notes", "plan"]).ok();
    let run = string(&start["run"]);
    sandbox.run(&["reject", &run, "--reason", "too vague"]).ok();
    let log = sandbox.run(&["log", &run]).ok();
    settings.bind(|| insta::assert_json_snapshot!("log", log));
}

#[test]
fn text_inspect_shows_every_rule_that_decides_a_path() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow(
        "ruled.yaml",
        r#"id: ruled
title: Ruled
variables:
  tries: {type: integer, default: 0}
  risky: {type: boolean, default: false}
steps:
  - id: draft
    prompt: Draft it.
    when: "tries < 3"
    gate_when: risky
    checks:
      - {kind: contains, value: "Plan:", message: "add a plan section"}
      - {kind: condition, condition: "tries >= 0", when: risky}
    next:
      - {to: review, label: again, set: {tries: "tries + 1"}}
  - id: review
    prompt: Review it.
"#,
    );
    let inspected = sandbox.run_text(&["inspect", "ruled"]);
    assert_eq!(inspected.code, 0, "{}", inspected.stderr);
    for shown in [
        "`tries < 3`",
        "gate when `risky`",
        "notes contain \"Plan:\"",
        "`tries >= 0` holds when `risky`",
        "tries = `tries + 1`",
    ] {
        assert!(inspected.stdout.contains(shown), "text inspect leaves out {shown}:\n{}", inspected.stdout);
    }
    let settings = redactions(&[sandbox.home.path(), sandbox.project.path()]);
    settings.bind(|| insta::assert_snapshot!("inspect_text_rules", inspected.stdout));
}

#[test]
fn usage_errors_under_json_print_the_error_envelope_on_stdout() {
    let sandbox = Sandbox::new();
    let cases: [(&[&str], &str); 4] = [
        (&["continue", "ct_x", "--bogus"], "unknown_argument"),
        (&["continue"], "missing_required_argument"),
        (&["sessions", "--limit", "many"], "value_validation"),
        (&["no-such-command"], "invalid_subcommand"),
    ];
    for (args, kind) in cases {
        let ran = sandbox.run(args);
        let envelope = ran.expect(2);
        assert_eq!(envelope["error"]["code"], "USAGE", "{args:?}: {envelope}");
        assert_eq!(envelope["error"]["details"]["kind"], kind, "{args:?}: {envelope}");
        assert!(ran.stderr.contains("error:"), "clap's own message still goes to stderr: {}", ran.stderr);
    }
    // `--json` after the subcommand counts too; after `--` it is an argument, not the flag.
    let after = sandbox.run_text(&["continue", "--bogus", "--json"]);
    assert_eq!(after.expect(2)["error"]["code"], "USAGE");
    let quoted = sandbox.run_text(&["continue", "--bogus", "--", "--json"]);
    assert_eq!((quoted.code, quoted.stdout.as_str()), (2, ""));
    // Help and version are no errors: printed as they always were, exit 0.
    for args in [&["--json", "--help"][..], &["--json", "--version"], &["--json", "continue", "--help"]] {
        let ran = sandbox.run_text(args);
        assert_eq!(ran.code, 0, "{args:?}: {}", ran.stderr);
        assert!(serde_json::from_str::<serde_json::Value>(&ran.stdout).is_err(), "{args:?}: {}", ran.stdout);
    }
    let envelope = sandbox.run(&["continue", "ct_x", "--bogus"]).expect(2);
    let settings = redactions(&[]);
    settings.bind(|| insta::assert_json_snapshot!("usage_error_envelope", envelope));
}
