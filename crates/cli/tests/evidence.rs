//! Evidence through the binary: the step says what switchyard will check, a refused report lists
//! each check as passed or failed with what was seen, and `log` shows the verdicts.

mod support;

use support::{Sandbox, continue_token, string};

const CHECKED: &str = r#"id: checked
steps:
  - id: write
    prompt: Write done.txt.
    notes: optional
    evidence:
      - {kind: files, paths: ["*.txt"]}
      - {kind: command, run: [sh, -c, "test -f done.txt || { echo done.txt is missing; exit 3; }"]}
    next: end
  - id: end
    prompt: Nothing more.
    notes: optional
"#;

#[test]
fn continue_lists_each_check_and_log_shows_the_verdicts() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("checked.yaml", CHECKED);
    let started = sandbox.run(&["start", "checked", "--goal", "Write it"]).ok();
    let run = string(&started["run"]);
    let shown = sandbox.run_text(&["show", &run]);
    assert!(shown.stdout.contains("switchyard checks that files matching `*.txt` exist"), "{}", shown.stdout);
    let token = continue_token(&started);
    let refused = sandbox.run_text(&["continue", &token]);
    assert_eq!(refused.code, 1, "a refused report is a rule saying no\n{}", refused.stderr);
    let text = &refused.stdout;
    assert!(text.contains("What switchyard checked itself:"), "{text}");
    assert!(text.contains("failed files: nothing matches `*.txt`"), "{text}");
    assert!(text.contains("failed command: exit code 3"), "{text}");
    assert!(text.contains("      done.txt is missing"), "a failed command's last lines are shown: {text}");
    assert!(text.contains("[EVIDENCE] evidence/1") && text.contains("done.txt is missing"), "{text}");

    std::fs::write(sandbox.project.path().join("done.txt"), "done").unwrap();
    let retry = sandbox.run(&["show", &run]).ok();
    let passed = sandbox.run_text(&["continue", &continue_token(&retry)]);
    assert_eq!(passed.code, 0, "{}", passed.stderr);
    assert!(passed.stdout.contains("passed files: every glob matched a file"), "{}", passed.stdout);
    assert!(passed.stdout.contains("passed command: exit code 0"), "{}", passed.stdout);

    let log = sandbox.run_text(&["log", &run]);
    assert!(log.stdout.contains("evidence 1, 2 of 2 failed"), "{}", log.stdout);
    assert!(log.stdout.contains("2 evidence check(s) passed"), "{}", log.stdout);
}

const REVIEWED: &str = r#"id: reviewed
variables:
  stable: {type: boolean, default: false}
steps:
  - id: check
    prompt: Check it; set stable when it is.
    notes: optional
    next:
      - {to: done, label: ship, when: "stable == true"}
      - {to: check, label: again, when: "!stable", kind: loop}
  - id: done
    prompt: Done.
    notes: optional
"#;

#[test]
fn status_why_explains_each_decision_and_log_shows_it() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("reviewed.yaml", REVIEWED);
    let started = sandbox.run(&["start", "reviewed", "--goal", "Check it"]).ok();
    let run = string(&started["run"]);
    let again = sandbox.run_text(&["continue", &continue_token(&started)]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert!(again.stdout.contains("Why: took `again` because `!stable` held; not `ship`"), "{}", again.stdout);
    assert!(
        again.stdout.contains("SKIP  edge `ship`: `stable == true` (stable = false); set stable to true would take it"),
        "{}",
        again.stdout
    );
    let shown = sandbox.run(&["show", &run]).ok();
    let shipped = sandbox.run_text(&["continue", &continue_token(&shown), "--context", r#"{"stable": true}"#]);
    assert_eq!(shipped.code, 0, "{}", shipped.stderr);

    let status = sandbox.run_text(&["status", &run, "--why"]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let text = &status.stdout;
    let first = text.find("took `again` because `!stable` held").expect(text);
    let second = text.find("took `ship` because `stable == true` held").expect(text);
    assert!(first < second, "oldest first: {text}");
    let json = sandbox.run(&["status", &run, "--why", "--json"]).ok();
    let why = json["why"].as_array().expect("--json carries the decisions");
    assert_eq!(why.len(), 2, "{json}");
    assert_eq!(why[1]["why"]["rule"], serde_json::json!({"kind": "condition", "label": "ship"}));
    assert_eq!(why[0]["why"]["evaluated"][0]["nearest"]["changes"][0]["name"], "stable");

    let log = sandbox.run_text(&["log", &run]);
    assert!(
        log.stdout.contains("decision_recorded") && log.stdout.contains("step check · took `again`"),
        "{}",
        log.stdout
    );
}
