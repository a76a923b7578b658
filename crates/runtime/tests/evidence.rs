//! Evidence through the runtime, on a real git repository with real commands: an agent that
//! claims work it never did is refused check by check, work done (committed or not) passes, and
//! commands are bounded in time and output and refused where they may not run.

mod common;

use std::path::Path;
use std::process::Command;

use switchyard_catalog::Catalog;
use switchyard_core::evidence::{Observation, Snapshot};
use switchyard_core::why::Rule;
use switchyard_core::{EventKind, RunStatus};
use switchyard_runtime::evidence::{CommandPlaces, EvidencePolicy};
use switchyard_runtime::{AdvanceInput, ResponseKind, Runtime, StartRequest, StepResponse};

/// A test runner of the tiny project: runs `tests/` with unittest and writes a JUnit report.
const CHECK_PY: &str = r#"
import sys, unittest, xml.etree.ElementTree as tree
sys.path.insert(0, "src")
def cases(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from cases(item)
        else:
            yield item
root = tree.Element("testsuite", name="check")
failed = 0
for case in cases(unittest.defaultTestLoader.discover("tests")):
    result = unittest.TestResult()
    case.run(result)
    node = tree.SubElement(root, "testcase", name=case.id())
    for _, trace in result.failures:
        tree.SubElement(node, "failure").text = trace
    for _, trace in result.errors:
        tree.SubElement(node, "error").text = trace
    failed += len(result.failures) + len(result.errors)
tree.ElementTree(root).write("report.xml")
print(f"{len(root)} tests, {failed} failed")
sys.exit(1 if failed else 0)
"#;

const TEST_PY: &str = "import unittest\nfrom calc import add\n\nclass Add(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(add(2, 3), 5)\n\n    def test_negative(self):\n        self.assertEqual(add(-2, -3), -5)\n";

const VERIFIED: &str = r#"
id: verified
steps:
  - id: implement
    prompt: Implement add in src/calc.py.
    notes: optional
    output: {type: object, properties: {files: {type: array, items: {type: string}}}}
    evidence:
      - {kind: files, paths: ["src/*.py"]}
      - {kind: changed, paths: ["src/"]}
      - {kind: command, run: [python3, check.py], timeout: 60s}
      - {kind: test_report, path: report.xml, min_tests: 2}
      - {kind: artifact_paths, field: files, changed: true}
    next: done
  - id: done
    prompt: Done.
    notes: optional
"#;

fn git(workspace: &Path, arguments: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"])
        .args(arguments)
        .current_dir(workspace)
        .status()
        .unwrap();
    assert!(status.success(), "git {arguments:?}");
}

/// The tiny project, committed: its test runner and a test of a module nobody wrote yet.
fn project() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    std::fs::write(root.join("check.py"), CHECK_PY).unwrap();
    std::fs::write(root.join("tests/test_calc.py"), TEST_PY).unwrap();
    std::fs::write(root.join(".gitignore"), "report.xml\n__pycache__/\n").unwrap();
    git(root, &["init", "-q"]);
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "the tests"]);
    workspace
}

async fn start(
    runtime: &Runtime,
    home: &Path,
    workspace: &Path,
    workflow: &str,
) -> Result<StepResponse, switchyard_runtime::Error> {
    let file = home.join("workflow.yaml");
    std::fs::write(&file, workflow).unwrap();
    let request = StartRequest {
        file: Some(file),
        goal: "add numbers".to_owned(),
        workspace: Some(workspace.to_owned()),
        ..StartRequest::default()
    };
    runtime.start(&Catalog::builtins_only(), request).await
}

async fn report(runtime: &Runtime, at: &StepResponse, artifacts: serde_json::Value) -> StepResponse {
    let token = at.tokens.continue_token.as_deref().expect("a continue token");
    runtime.advance(token, None, AdvanceInput { artifacts: Some(artifacts), ..AdvanceInput::default() }).await.unwrap()
}

fn messages(response: &StepResponse) -> Vec<String> {
    let validation = response.validation.as_ref().expect("a blocked answer says why");
    validation.issues.iter().map(|issue| format!("{} {}: {}", issue.code, issue.path, issue.message)).collect()
}

#[tokio::test]
async fn claimed_work_is_refused_check_by_check_and_real_work_passes() {
    let home = common::TestHome::new();
    let runtime = common::runtime(&home).await;
    let workspace = project();
    let root = workspace.path();
    let started = start(&runtime, home.path(), root, VERIFIED).await.unwrap();
    let pending = started.step.as_ref().unwrap();
    assert_eq!(pending.evidence.len(), 5, "the step handed out lists what will be checked");
    let snapshot = runtime.node(started.node).await.unwrap().state.snapshot;
    assert!(matches!(snapshot, Some(Snapshot::Git { .. })), "{snapshot:?}");

    // The agent says it is done and did nothing.
    let claimed = report(&runtime, &started, serde_json::json!({"files": []})).await;
    assert_eq!(claimed.kind, ResponseKind::Blocked);
    let said = messages(&claimed);
    assert_eq!(said.len(), 5, "{said:#?}");
    assert!(said[0].contains("no regular file inside the workspace matches `src/*.py`"), "{}", said[0]);
    assert!(said[1].contains("nothing changed in `src/`"), "{}", said[1]);
    assert!(said[2].contains("exited with code 1") && said[2].contains("1 tests, 1 failed"), "{}", said[2]);
    assert!(said[3].contains("0 failure(s) and 1 error(s) among 1 test(s)"), "the import failed: {}", said[3]);
    assert!(said[4].contains("lists no path"), "{}", said[4]);
    assert_eq!(claimed.evidence.len(), 5);
    assert!(claimed.evidence.iter().all(|result| !result.passed));

    // It writes a wrong module: the command runs again and its failure is what the agent reads.
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/calc.py"), "def add(a, b):\n    return a - b\n").unwrap();
    let wrong = report(&runtime, &claimed, serde_json::json!({"files": ["src/calc.py"]})).await;
    let said = messages(&wrong);
    assert_eq!(said.len(), 2, "files, changes and paths pass now: {said:#?}");
    assert!(said[0].starts_with("EVIDENCE evidence/2") && said[0].contains("2 tests, 2 failed"), "{}", said[0]);
    assert!(said[1].contains("2 failure(s) and 0 error(s) among 2 test(s)"), "{}", said[1]);

    // The right one, committed: a commit is content like any other change.
    // (A different length from the wrong one: Python trusts its cached bytecode by time and size.)
    std::fs::write(root.join("src/calc.py"), "def add(a, b):\n    return b + a  # fixed\n").unwrap();
    git(root, &["add", "src"]);
    git(root, &["commit", "-q", "-m", "add"]);
    let done = report(&runtime, &wrong, serde_json::json!({"files": ["src/calc.py"]})).await;
    assert_eq!(done.kind, ResponseKind::Ok, "{:?} {:?}", done.failure, done.evidence);
    assert_eq!(done.step.as_ref().unwrap().step.as_str(), "done");
    assert!(done.evidence.iter().all(|result| result.passed), "{:?}", done.evidence);
    let Observation::Command(ran) = &done.evidence[2].observation else { panic!("{:?}", done.evidence[2]) };
    assert_eq!(ran.exit_code, Some(0));
    assert!(ran.output_tail.contains("2 tests, 0 failed"));

    let events = runtime.events(done.session, 0, 100).await.unwrap();
    let recorded: Vec<bool> = events
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::EvidenceRecorded { results, .. } => Some(results.iter().all(|result| result.passed)),
            _ => None,
        })
        .collect();
    assert_eq!(recorded, [false, false, true], "every report's evidence is in the log");

    // The same report sent again replays the answer, evidence and all, without running anything.
    std::fs::write(root.join("check.py"), "import sys\nsys.exit(3)\n").unwrap();
    let token = wrong.tokens.continue_token.as_deref().unwrap();
    let input =
        AdvanceInput { artifacts: Some(serde_json::json!({"files": ["src/calc.py"]})), ..AdvanceInput::default() };
    let replayed = runtime.advance(token, None, input).await.unwrap();
    assert!(replayed.replayed);
    assert_eq!(replayed.evidence, done.evidence);
}

#[tokio::test]
async fn a_report_the_agent_wrote_itself_or_an_undone_reset_is_refused() {
    let home = common::TestHome::new();
    let runtime = common::runtime(&home).await;
    let workspace = project();
    let root = workspace.path();
    let workflow = r#"
id: honest
steps:
  - id: test
    prompt: Run the tests.
    notes: optional
    evidence:
      - {kind: changed}
      - {kind: command, run: [python3, -c, "print('tests skipped')"]}
      - {kind: test_report, path: report.xml}
"#;
    let started = start(&runtime, home.path(), root, workflow).await.unwrap();
    // A report written by the agent, then a change committed and reset away: nothing is left.
    std::fs::write(root.join("report.xml"), r#"<testsuite><testcase name="a"/><testcase name="b"/></testsuite>"#)
        .unwrap();
    std::fs::write(root.join("notes.txt"), "work").unwrap();
    git(root, &["add", "notes.txt"]);
    git(root, &["commit", "-q", "-m", "work"]);
    git(root, &["reset", "-q", "--hard", "HEAD~1"]);
    let answer = report(&runtime, &started, serde_json::json!({})).await;
    let said = messages(&answer);
    assert_eq!(said.len(), 2, "{said:#?}");
    assert!(said[0].contains("nothing changed in the workspace"), "{}", said[0]);
    assert!(said[1].contains("is as it was before the command ran"), "{}", said[1]);
}

#[tokio::test]
async fn a_hanging_command_is_killed_at_its_time_and_huge_output_is_bounded() {
    let home = common::TestHome::new();
    let runtime = common::runtime(&home).await;
    let workspace = tempfile::tempdir().unwrap();
    let workflow = r#"
id: bounded
steps:
  - id: work
    prompt: Work.
    notes: optional
    evidence:
      - {kind: command, run: "head -c 100000000 /dev/zero | tr '\\0' x; echo; echo the end", shell: true}
      - {kind: command, run: [sleep, "30"], timeout: 1s}
"#;
    let started = start(&runtime, home.path(), workspace.path(), workflow).await.unwrap();
    let began = std::time::Instant::now();
    let answer = report(&runtime, &started, serde_json::json!({})).await;
    assert!(began.elapsed() < std::time::Duration::from_secs(25), "the sleep was not cut short");
    let said = messages(&answer);
    assert_eq!(said.len(), 1, "{said:#?}");
    assert!(said[0].contains("killed at its time limit"), "{}", said[0]);
    let Observation::Command(loud) = &answer.evidence[0].observation else { panic!("{:?}", answer.evidence[0]) };
    assert!(answer.evidence[0].passed);
    assert_eq!(loud.output_bytes, 100_000_000 + 9);
    assert!(loud.output_tail.len() <= 4096 && loud.output_tail.ends_with("the end\n"), "{}", loud.output_tail.len());
}

#[tokio::test]
async fn commands_are_refused_at_start_where_they_may_not_run() {
    let home = common::TestHome::new();
    let workspace = project();
    let workflow = "id: tested\nsteps:\n  - id: test\n    prompt: Test.\n    evidence: [{kind: command, run: [python3, check.py]}]\n";
    let ran = "id: ran\nsteps:\n  - id: test\n    run: [python3, check.py]\n";
    let runtime = common::runtime(&home).await;
    let off = runtime.with_evidence(EvidencePolicy { commands: CommandPlaces::Nowhere, ..EvidencePolicy::default() });
    let error = start(&off, home.path(), workspace.path(), ran).await.unwrap_err();
    assert_eq!(error.code(), "EVIDENCE_COMMANDS_OFF", "a run step is a command too: {error}");
    for (commands, said) in [
        (CommandPlaces::Nowhere, "`[evidence] commands = false`"),
        (CommandPlaces::Trusted(vec![home.path().to_owned()]), "is not one: add it to `[evidence] trusted_workspaces`"),
    ] {
        let runtime =
            common::runtime(&home).await.with_evidence(EvidencePolicy { commands, ..EvidencePolicy::default() });
        let error = start(&runtime, home.path(), workspace.path(), workflow).await.unwrap_err();
        assert_eq!(error.code(), "EVIDENCE_COMMANDS_OFF");
        assert!(error.to_string().contains(said), "{error}");
    }
    let trusted = EvidencePolicy {
        commands: CommandPlaces::Trusted(vec![workspace.path().to_owned()]),
        ..EvidencePolicy::default()
    };
    let runtime = common::runtime(&home).await.with_evidence(trusted);
    let started = start(&runtime, home.path(), workspace.path(), workflow).await.unwrap();
    assert_eq!(started.status, RunStatus::Active);
}

const TESTED: &str = r#"
id: tested
steps:
  - id: implement
    prompt: Implement add in src/calc.py.
    notes: optional
    next: tests
  - id: tests
    run: [python3, check.py]
    timeout: 60s
    on_failure: implement
    next: review
  - id: review
    prompt: Review the change.
    notes: optional
"#;

#[tokio::test]
async fn a_run_step_is_run_by_switchyard_and_its_exit_code_picks_the_edge() {
    let home = common::TestHome::new();
    let runtime = common::runtime(&home).await;
    let workspace = project();
    let root = workspace.path();
    let started = start(&runtime, home.path(), root, TESTED).await.unwrap();
    assert_eq!(started.step.as_ref().unwrap().step.as_str(), "implement");

    // Reported without the module: switchyard runs the tests, they fail, and the step comes back.
    let failed = report(&runtime, &started, serde_json::json!({})).await;
    let step = failed.step.as_ref().unwrap();
    assert_eq!(step.step.as_str(), "implement", "on_failure sent the run back");
    assert_eq!(failed.progress.cycle, 1, "a failure is another cycle");
    // The agent reads why: the command switchyard ran, and the end of what it said.
    let Observation::Command(tests) = &failed.evidence[0].observation else { panic!("{:?}", failed.evidence) };
    assert!(!failed.evidence[0].passed && tests.output_tail.contains("1 tests, 1 failed"), "{tests:?}");
    // And why it went back: the exit code, read by the edge's condition.
    let why = failed.why.as_ref().expect("the exit code decided");
    assert_eq!(why.rule, Rule::Condition { label: "on_failure".to_owned() });
    assert_eq!(why.evaluated[0].line(), "PASS  edge `on_failure`: `exit_code != 0` (exit_code = 1)");

    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/calc.py"), "def add(a, b):\n    return a + b\n").unwrap();
    let passed = report(&runtime, &failed, serde_json::json!({})).await;
    assert_eq!(passed.step.as_ref().unwrap().step.as_str(), "review");

    // The command's runs are the step's reports, in the log like any other.
    let events = runtime.events(passed.session, 0, 200).await.unwrap();
    let ran: Vec<(Option<i64>, String)> = events
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::AdvanceRecorded { artifacts: Some(report), edge_label, .. }
                if report.get("output_tail").is_some() =>
            {
                Some((report["exit_code"].as_i64(), edge_label.clone().unwrap_or_default()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(ran, [(Some(1), "on_failure".to_owned()), (Some(0), "review".to_owned())]);

    // The run step's own token only asks switchyard to run it: sent again, it replays; with a
    // report of the agent's, it is refused.
    let run_nodes = runtime.run_nodes(passed.run).await.unwrap();
    let at_tests = run_nodes.iter().rfind(|node| node.step.as_str() == "tests").unwrap();
    let token = runtime.first_attempt_token(at_tests.id).await.unwrap().expect("a run step hands out a token");
    let again = runtime.advance(&token, None, AdvanceInput::default()).await.unwrap();
    assert!(again.replayed, "{again:?}");
    assert_eq!(again.why, passed.why, "a replay answers with the why it recorded");
    let why = passed.why.as_ref().unwrap();
    assert_eq!(why.sentence(), "took `review`, the only way on; not `on_failure`");
    // The run's decisions, oldest first: each time the exit code chose.
    let decisions = runtime.decisions(&run_nodes, passed.node, 50).await.unwrap();
    let sentences: Vec<String> = decisions.iter().map(|decision| decision.why.sentence()).collect();
    assert_eq!(
        sentences,
        ["took `on_failure` because `exit_code != 0` held", "took `review`, the only way on; not `on_failure`"]
    );
    let claimed = AdvanceInput { notes: Some("tests pass".to_owned()), ..AdvanceInput::default() };
    let error = runtime.advance(&token, None, claimed).await.unwrap_err();
    assert_eq!(error.code(), "RUN_STEP_REPORTED", "{error}");
}

#[tokio::test]
async fn a_workspace_in_no_repository_is_compared_through_a_private_one() {
    let home = common::TestHome::new();
    let snapshots = home.path().join("snapshots");
    let policy = EvidencePolicy { snapshots: Some(snapshots.clone()), ..EvidencePolicy::default() };
    let runtime = common::runtime(&home).await.with_evidence(policy);
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.md"), "before").unwrap();
    let workflow =
        "id: plain\nsteps:\n  - id: edit\n    prompt: Edit.\n    notes: optional\n    evidence: [{kind: changed}]\n";
    let started = start(&runtime, home.path(), workspace.path(), workflow).await.unwrap();
    let unchanged = report(&runtime, &started, serde_json::json!({})).await;
    assert!(messages(&unchanged)[0].contains("nothing changed in the workspace"), "{:?}", messages(&unchanged));
    assert!(!workspace.path().join(".git").exists(), "the workspace is left as it was");
    assert_eq!(std::fs::read_dir(&snapshots).unwrap().count(), 1, "one private repository per workspace");

    std::fs::write(workspace.path().join("notes.md"), "after").unwrap();
    let changed = report(&runtime, &unchanged, serde_json::json!({})).await;
    assert_eq!(changed.status, RunStatus::Completed, "{:?}", changed.validation);
    let Observation::Changed { changed: paths, .. } = &changed.evidence[0].observation else { panic!() };
    assert_eq!(paths, &["notes.md"]);
}

#[tokio::test]
async fn a_workspace_inside_a_larger_repository_is_judged_on_its_own_folder() {
    let home = common::TestHome::new();
    let runtime = common::runtime(&home).await;
    let repository = project();
    let workspace = repository.path().join("app");
    std::fs::create_dir(&workspace).unwrap();
    std::fs::write(workspace.join("main.py"), "print('hi')\n").unwrap();
    git(repository.path(), &["add", "."]);
    git(repository.path(), &["commit", "-q", "-m", "the app"]);
    let workflow =
        "id: sub\nsteps:\n  - id: edit\n    prompt: Edit.\n    notes: optional\n    evidence: [{kind: changed}]\n";
    let started = start(&runtime, home.path(), &workspace, workflow).await.unwrap();
    // A change beside the workspace is no change of it.
    std::fs::write(repository.path().join("elsewhere.txt"), "not the app").unwrap();
    let outside = report(&runtime, &started, serde_json::json!({})).await;
    assert!(messages(&outside)[0].contains("nothing changed in the workspace"), "{:?}", messages(&outside));
    std::fs::write(workspace.join("main.py"), "print('hello')\n").unwrap();
    let inside = report(&runtime, &outside, serde_json::json!({})).await;
    let Observation::Changed { changed, .. } = &inside.evidence[0].observation else { panic!("{:?}", inside.evidence) };
    assert_eq!(changed, &["main.py"], "paths are the workspace's own");
}
