//! `[execution]` of `switchyard.toml` through the runtime: the limits a workflow gets when it does
//! not declare them, pinned with the run's copy; a workflow's own limits win; the default
//! configuration changes no workflow's hash; the replans are counted.

use std::path::{Path, PathBuf};

use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_core::state::{DecisionReason, RunStatus};
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};
use switchyard_test_support::TestHome;

const UNDECLARED: &str = "id: undeclared\nsteps:\n  - {id: draft, prompt: Draft it., gate: true, next: done}\n  - {id: done, prompt: Finish.}\n";
const DECLARED: &str = "id: declared\nlimits: {max_revision_attempts: 3}\nsteps:\n  - {id: draft, prompt: Draft it., gate: true, next: done}\n  - {id: done, prompt: Finish.}\n";
/// Plan, work, and from work either a replan back to plan or the end.
const REPLANNING: &str = "id: replanning\nsteps:\n  - {id: plan, prompt: Plan it., next: work}\n  - id: work\n    prompt: Work.\n    next:\n      - {to: plan, label: replan, kind: replan}\n      - {end: true, label: finish}\n";

/// A runtime whose home's `switchyard.toml` holds `switchyard_toml`, over the home's store.
async fn runtime(home: &TestHome, switchyard_toml: &str) -> Runtime {
    home.write_config(switchyard_toml);
    let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() }).unwrap();
    Runtime::open(&config).await.unwrap()
}

fn workflow_file(home: &Path, name: &str, text: &str) -> PathBuf {
    let path = home.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Starts `file` and submits the gated step, so the run waits at the gate.
async fn at_gate(runtime: &Runtime, file: &Path) -> StepResponse {
    let request = StartRequest { file: Some(file.to_owned()), goal: "limits".to_owned(), ..StartRequest::default() };
    let started = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    submit(runtime, &started).await
}

async fn submit(runtime: &Runtime, response: &StepResponse) -> StepResponse {
    let token = response.tokens.continue_token.clone().expect("the agent has a step");
    let input = AdvanceInput { notes: Some("a draft".to_owned()), ..AdvanceInput::default() };
    let waiting = runtime.advance(&token, None, input).await.unwrap();
    assert_eq!(waiting.status, RunStatus::WaitingGate, "{waiting:?}");
    waiting
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workflow_without_limits_gets_the_configured_revision_limit_and_one_with_its_own_keeps_it() {
    let home = TestHome::new();
    let runtime = runtime(&home, "[execution]\nmax_revision_attempts = 1\n").await;
    let undeclared = at_gate(&runtime, &workflow_file(home.path(), "undeclared.yaml", UNDECLARED)).await;
    let declared = at_gate(&runtime, &workflow_file(home.path(), "declared.yaml", DECLARED)).await;
    for (run, first_gate) in [(undeclared.run, &undeclared), (declared.run, &declared)] {
        // One rejection is within both limits: the agent revises.
        let revising = runtime.reject(run, "again".to_owned()).await.unwrap();
        assert_eq!(revising.status, RunStatus::Active, "{first_gate:?}");
        submit(&runtime, &revising).await;
    }
    // The second rejection is past the configured limit of 1, not past the workflow's own 3.
    let undeclared_after = runtime.reject(undeclared.run, "still not".to_owned()).await.unwrap();
    assert_eq!(undeclared_after.status, RunStatus::WaitingForHumanDecision, "{undeclared_after:?}");
    let declared_after = runtime.reject(declared.run, "still not".to_owned()).await.unwrap();
    assert_eq!(declared_after.status, RunStatus::Active, "{declared_after:?}");
    let pinned = runtime.pinned_workflow(undeclared.workflow.hash).await.unwrap();
    assert_eq!(pinned.workflow.limits.max_revision_attempts, 1, "the run's copy holds the limit it ran under");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_running_run_keeps_its_limits_when_the_configuration_changes() {
    let home = TestHome::new();
    let strict = runtime(&home, "[execution]\nmax_revision_attempts = 0\n").await;
    let file = workflow_file(home.path(), "undeclared.yaml", UNDECLARED);
    let waiting = at_gate(&strict, &file).await;
    drop(strict);
    let relaxed = runtime(&home, "").await;
    let after = relaxed.reject(waiting.run, "no".to_owned()).await.unwrap();
    assert_eq!(after.status, RunStatus::WaitingForHumanDecision, "the limit of 0 the run started with: {after:?}");
    // The process-wide compile cache holds the source's own compile, not the strict run's copy.
    let fresh = at_gate(&relaxed, &file).await;
    assert_ne!(fresh.workflow.hash, waiting.workflow.hash);
    let revising = relaxed.reject(fresh.run, "again".to_owned()).await.unwrap();
    assert_eq!(revising.status, RunStatus::Active, "the default limit of 3: {revising:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_default_configuration_changes_no_workflow_hash() {
    let home = TestHome::new();
    let runtime = runtime(&home, "").await;
    for (name, text) in [("undeclared.yaml", UNDECLARED), ("declared.yaml", DECLARED)] {
        let file = workflow_file(home.path(), name, text);
        let compiled_hash = Catalog::file(&file).unwrap().compiled.workflow.unwrap().hash();
        let request = StartRequest { file: Some(file), goal: "hash".to_owned(), ..StartRequest::default() };
        assert_eq!(
            runtime.start(&Catalog::builtins_only(), request).await.unwrap().workflow.hash,
            compiled_hash,
            "{name}"
        );
    }
}

/// Reports on `response`'s step, taking the edge `choice` when given; the run must go on.
async fn step(runtime: &Runtime, response: &StepResponse, choice: Option<&str>) -> StepResponse {
    let token = response.tokens.continue_token.clone().expect("the agent has a step");
    let input =
        AdvanceInput { notes: Some("done".to_owned()), choice: choice.map(str::to_owned), ..AdvanceInput::default() };
    runtime.advance(&token, None, input).await.unwrap()
}

/// The replans the run's tip counts (what `_iteration_state.json` shows, see the run folder's
/// tests).
fn replan_count(response: &StepResponse) -> u32 {
    response.progress.replans
}

#[tokio::test(flavor = "multi_thread")]
async fn the_configured_replan_limit_sends_the_run_to_a_human_and_the_replans_are_counted() {
    let home = TestHome::new();
    let runtime = runtime(&home, "[execution]\nmax_replan_attempts = 1\n").await;
    let undeclared = workflow_file(home.path(), "replanning.yaml", REPLANNING);
    let declared = workflow_file(
        home.path(),
        "replanning-own.yaml",
        &REPLANNING.replace("id: replanning\n", "id: replanning-own\nlimits: {max_replan_attempts: 3}\n"),
    );
    let mut second_replans = Vec::new();
    for file in [undeclared, declared] {
        let request = StartRequest { file: Some(file), goal: "replan".to_owned(), ..StartRequest::default() };
        let started = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
        assert_eq!(replan_count(&started), 0);
        // The first replan is within both limits: back to `plan`, counted.
        let replanned = step(&runtime, &step(&runtime, &started, None).await, Some("replan")).await;
        assert_eq!(replanned.step.as_ref().map(|step| step.step.as_str()), Some("plan"), "{replanned:?}");
        assert_eq!(replan_count(&replanned), 1);
        let again = step(&runtime, &step(&runtime, &replanned, None).await, Some("replan")).await;
        second_replans.push((
            again.status,
            again.decision.as_ref().map(|decision| decision.reason),
            replan_count(&again),
        ));
    }
    // The second replan is past the configured limit of 1: a human decides, and nothing more is
    // counted; the workflow declaring 3 replans goes back to `plan`.
    assert_eq!(
        second_replans,
        [(RunStatus::WaitingForHumanDecision, Some(DecisionReason::ReplanLimit), 1), (RunStatus::Active, None, 2),]
    );
}
