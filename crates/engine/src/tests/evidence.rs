//! Evidence through the engine: each kind judged from what the runtime observed, the verdicts
//! recorded with the advance, failures as blocked attempts, and the snapshot a step keeps.

use switchyard_core::event::EventKind;
use switchyard_core::evidence::{CommandRun, EvidenceResult, Observation, Snapshot, TestReport};
use switchyard_core::state::{Phase, RunStatus};

use crate::fixture::{Run, advance, names};
use crate::{Advance, Command, Error};

const VERIFIED: &str = r#"
step plan
edge next -> implement
step implement attempts=2
evidence {"kind": "files", "paths": ["src/**/*.rs"]}
evidence {"kind": "changed"}
evidence {"kind": "command", "run": ["cargo", "test"], "expect_exit": 0}
evidence {"kind": "test_report", "path": "report.xml", "min_tests": 2}
evidence {"kind": "artifact_paths", "field": "files", "changed": true}
edge next -> complete
"#;

fn ran(exit_code: i32) -> Observation {
    Observation::Command(CommandRun {
        exit_code: Some(exit_code),
        signal: None,
        timed_out: false,
        duration_ms: 1500,
        output_tail: "test result: FAILED. 1 passed; 1 failed".to_owned(),
        output_bytes: 40,
        stdout_sha256: "ab".repeat(32),
        stderr_sha256: "cd".repeat(32),
        confined: true,
    })
}

fn report(tests: u64, failures: u64, problem: Option<&str>) -> Observation {
    Observation::TestReport(TestReport { tests, failures, errors: 0, skipped: 0, problem: problem.map(str::to_owned) })
}

fn all_passing() -> Vec<Observation> {
    vec![
        Observation::Files { unmatched: vec![] },
        Observation::Changed { changed: vec!["src/lib.rs".to_owned()], count: 1 },
        ran(0),
        report(3, 0, None),
        Observation::ArtifactPaths { listed: 1, missing: vec![], outside: vec![], unchanged: vec![] },
    ]
}

fn reported(evidence: Vec<Observation>) -> Command {
    Command::Advance(Advance { evidence, ..advance() })
}

fn at_implement() -> Run {
    let mut run = Run::start(VERIFIED);
    run.snapshot = Some(Snapshot::Git { tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904".to_owned() });
    run.apply(Command::Advance(advance()));
    assert_eq!(run.step(), "implement");
    run
}

fn recorded(events: &[EventKind]) -> Vec<EvidenceResult> {
    events
        .iter()
        .find_map(|event| match event {
            EventKind::EvidenceRecorded { results, .. } => Some(results.clone()),
            _ => None,
        })
        .expect("the advance records its evidence")
}

#[test]
fn a_step_keeps_the_snapshot_of_its_first_hand_out_through_its_retries() {
    let mut run = at_implement();
    let taken = run.state.snapshot.clone().expect("a step whose evidence compares gets the snapshot");
    // The runtime would hand in a newer snapshot at every transition; a retry keeps the first.
    run.snapshot = Some(Snapshot::Git { tree: "0".repeat(40) });
    let mut observed = all_passing();
    observed[2] = ran(1);
    run.apply(reported(observed));
    assert_eq!(run.status(), RunStatus::Blocked);
    assert_eq!(run.state.snapshot, Some(taken));
    // A step that compares with nothing holds none, whatever is handed in.
    let plan = Run::start(VERIFIED);
    assert_eq!(plan.state.snapshot, None);
}

#[test]
fn passing_evidence_is_recorded_with_the_advance_and_moves_the_run_on() {
    let mut run = at_implement();
    let transition = run.apply(reported(all_passing()));
    assert_eq!(run.status(), RunStatus::Completed);
    assert_eq!(
        names(&transition)[..3],
        ["node_created", "advance_recorded", "evidence_recorded"],
        "the evidence follows the advance it is about"
    );
    let results = recorded(&transition.events);
    assert!(results.iter().all(|result| result.passed));
    assert_eq!(results.iter().map(|result| result.check).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
}

#[test]
fn each_failed_check_is_an_issue_that_says_what_was_required_and_what_was_seen() {
    let mut run = at_implement();
    let observed = vec![
        Observation::Files { unmatched: vec!["src/**/*.rs".to_owned()] },
        Observation::Changed { changed: vec![], count: 0 },
        ran(101),
        report(1, 1, None),
        Observation::ArtifactPaths {
            listed: 2,
            missing: vec!["src/gone.rs".to_owned()],
            outside: vec!["/etc/passwd".to_owned()],
            unchanged: vec![],
        },
    ];
    let transition = run.apply(reported(observed.clone()));
    assert_eq!(run.status(), RunStatus::Blocked);
    let Phase::Blocked { validation } = &run.state.phase else { unreachable!() };
    let paths: Vec<&str> = validation.issues.iter().map(|issue| issue.path.as_str()).collect();
    assert_eq!(paths, ["evidence/0", "evidence/1", "evidence/2", "evidence/3", "evidence/4"]);
    assert!(validation.issues.iter().all(|issue| issue.code == "EVIDENCE"));
    let messages: Vec<&str> = validation.issues.iter().map(|issue| issue.message.as_str()).collect();
    assert!(messages[0].contains("no regular file inside the workspace matches `src/**/*.rs`"), "{}", messages[0]);
    assert!(messages[1].contains("nothing changed in the workspace since the step was handed out"), "{}", messages[1]);
    assert!(messages[2].contains("`cargo test` succeeds (exit code 0)"), "{}", messages[2]);
    assert!(messages[2].contains("exited with code 101 after 1.5 s"), "{}", messages[2]);
    assert!(messages[2].contains("1 passed; 1 failed"), "the output's end is shown: {}", messages[2]);
    assert!(messages[3].contains("1 failure(s) and 0 error(s) among 1 test(s)"), "{}", messages[3]);
    assert!(
        messages[4].contains("`/etc/passwd` lead outside the workspace; `src/gone.rs` do not exist"),
        "{}",
        messages[4]
    );
    let results = recorded(&transition.events);
    assert!(results.iter().all(|result| !result.passed), "failed evidence is recorded too");
    assert_eq!(results.into_iter().map(|result| result.observation).collect::<Vec<_>>(), observed);
}

#[test]
fn a_report_that_is_not_usable_or_too_small_fails() {
    for (observation, said) in [
        (report(0, 0, Some("`report.xml` was not written by the command")), "was not written by the command"),
        (report(1, 0, None), "records 1 test(s), fewer than 2"),
        (
            Observation::Unavailable { reason: "commands are off".to_owned() },
            "could not be carried out: commands are off",
        ),
    ] {
        let mut run = at_implement();
        let mut observed = all_passing();
        observed[3] = observation;
        run.apply(reported(observed));
        let Phase::Blocked { validation } = &run.state.phase else { panic!("{:?}", run.state.phase) };
        assert_eq!(validation.issues.len(), 1);
        assert!(validation.issues[0].message.contains(said), "{}", validation.issues[0].message);
    }
}

#[test]
fn failing_evidence_past_max_attempts_fails_the_run() {
    let mut run = at_implement();
    let mut observed = all_passing();
    observed[2] = ran(1);
    run.apply(reported(observed.clone()));
    run.apply(reported(observed));
    assert_eq!(run.status(), RunStatus::Failed);
}

#[test]
fn an_advance_without_the_runtimes_observations_is_refused() {
    let mut run = at_implement();
    let error = run.try_apply(Command::Advance(advance())).unwrap_err();
    assert!(matches!(error, Error::EvidenceNotGathered { checks: 5, observed: 0, .. }), "{error:?}");
    assert_eq!(error.code(), "EVIDENCE_NOT_GATHERED");
    // An observation of another kind than its check is a defect, said as such, never a pass.
    let mut observed = all_passing();
    observed.swap(0, 1);
    run.apply(reported(observed));
    let Phase::Blocked { validation } = &run.state.phase else { panic!("{:?}", run.state.phase) };
    assert!(validation.issues.iter().all(|issue| issue.message.contains("defect")), "{validation:?}");
}
