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

const WAITS: &str = r#"id: waits
steps:
  - id: work
    prompt: Do the work.
    notes: optional
    evidence:
      - {kind: command, run: "echo ran >> runs.log; while [ ! -e go ]; do sleep 0.05; done", shell: true, timeout: 60s}
    next: end
  - id: end
    prompt: Nothing more.
    notes: optional
"#;

/// A process killed while switchyard gathers the evidence (between running the checks and
/// committing the advance) records nothing; the same report sent again runs the checks again.
#[test]
fn a_crash_while_the_checks_run_records_nothing_and_the_retry_runs_them_again() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("waits.yaml", WAITS);
    let started = sandbox.run(&["start", "waits", "--goal", "Crash mid-check"]).ok();
    let run = string(&started["run"]);
    let token = continue_token(&started);
    let runs_log = sandbox.project.path().join("runs.log");
    let before = sandbox.events(&run).len();

    let mut reporting = sandbox.spawn(&["continue", &token]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !std::fs::read_to_string(&runs_log).is_ok_and(|text| text.lines().count() == 1) {
        assert!(std::time::Instant::now() < deadline, "the check never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    reporting.kill().unwrap();
    reporting.wait().unwrap();
    assert_eq!(sandbox.events(&run).len(), before, "nothing of the interrupted report was recorded");
    assert_eq!(sandbox.run_text(&["verify"]).code, 0);

    // The command left behind ends once it may; the report sent again runs the check again.
    std::fs::write(sandbox.project.path().join("go"), "").unwrap();
    let retried = sandbox.run(&["continue", &token]).ok();
    assert_eq!(retried["step"]["step"], "end", "{retried}");
    let runs = std::fs::read_to_string(&runs_log).unwrap();
    assert_eq!(runs.lines().count(), 2, "the retry ran the check again: {runs}");
    assert_eq!(sandbox.count_events(&run, "evidence_recorded"), 1);
}

/// The built-in `tested-change`: the workspace must change, switchyard runs the project's test
/// command (`[project] test_command`) and sends a failure back to `implement`; without a test
/// command the step is skipped, and the why says so.
#[test]
fn small_change_runs_the_projects_test_command_and_skips_it_when_none_is_set() {
    let sandbox = Sandbox::new();
    let project = sandbox.project.path();
    std::fs::write(project.join("switchyard.toml"), "[project]\ntest_command = \"test -f passing\"\n").unwrap();
    let started = sandbox.run(&["start", "tested-change", "--goal", "Add a flag"]).ok();
    let run = string(&started["run"]);
    let unchanged = sandbox.run_text(&["continue", &continue_token(&started), "--notes", "Added it."]);
    assert_eq!(unchanged.code, 1, "nothing changed: {}", unchanged.stdout);
    assert!(unchanged.stdout.contains("nothing changed in the workspace"), "{}", unchanged.stdout);

    std::fs::write(project.join("flag.txt"), "--verbose\n").unwrap();
    let shown = sandbox.run(&["show", &run]).ok();
    let failed = sandbox.run_text(&["continue", &continue_token(&shown), "--notes", "Added the flag."]);
    assert_eq!(failed.code, 0, "{}", failed.stderr);
    assert!(failed.stdout.contains("failed command: exit code 1"), "{}", failed.stdout);
    assert!(failed.stdout.contains("took `on_failure` because `exit_code != 0` held"), "{}", failed.stdout);
    assert!(failed.stdout.contains("step implement"), "back to implement: {}", failed.stdout);

    std::fs::write(project.join("passing"), "").unwrap();
    let shown = sandbox.run(&["show", &run]).ok();
    let passed = sandbox.run(&["continue", &continue_token(&shown), "--notes", "Made the tests pass."]).ok();
    assert_eq!(passed["step"]["step"], "review", "{passed}");
    assert_eq!(passed["evidence"][0]["observation"]["exit_code"], 0, "{passed}");
    let started_event = sandbox.events(&run).into_iter().find(|event| event["kind"]["type"] == "run_started").unwrap();
    assert_eq!(started_event["kind"]["project_commands"]["test_command"], "test -f passing", "kept by the run");

    // Without a test command, the run goes from implement to review, and says why.
    let skipping = "id: skipping\nsteps:\n  - id: tests\n    run: {project: test_command}\n    next: write\n  - id: write\n    prompt: Write it.\n    notes: optional\n";
    let bare = Sandbox::new();
    bare.write_workflow("skipping.yaml", skipping);
    let started = bare.run(&["start", "skipping", "--goal", "Skip the tests"]).ok();
    assert_eq!(started["step"]["step"], "write", "{started}");
    assert_eq!(started["why"]["rule"]["kind"], "entry", "a start that skipped steps says why: {started}");
    let started = bare.run(&["start", "tested-change", "--goal", "Fix a typo"]).ok();
    std::fs::write(bare.project.path().join("typo.txt"), "fixed\n").unwrap();
    let skipped = bare.run_text(&["continue", &continue_token(&started), "--notes", "Fixed it."]);
    assert_eq!(skipped.code, 0, "{}", skipped.stderr);
    assert!(skipped.stdout.contains("skipped `tests`"), "{}", skipped.stdout);
    assert!(skipped.stdout.contains("`[project] test_command is set in switchyard.toml`"), "{}", skipped.stdout);
    assert!(skipped.stdout.contains("step review"), "{}", skipped.stdout);
}
