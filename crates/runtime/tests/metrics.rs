//! The runtime's metrics as commands commit: advances and blocked attempts counted, the
//! gates-waiting gauge following a run through its gate, a pause, a resume and a stop, and
//! `count_waiting_gates` starting the gauge from the store in a new process.

mod common;

use switchyard_catalog::Catalog;
use switchyard_runtime::observe::Metrics;
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};

fn notes(text: &str) -> AdvanceInput {
    AdvanceInput { notes: Some(text.to_owned()), ..AdvanceInput::default() }
}

fn continue_token(response: &StepResponse) -> String {
    response.tokens.continue_token.clone().expect("the step takes an advance")
}

/// How many commits the histogram holds, read from its exposition as a scraper reads it.
fn commits(metrics: &Metrics) -> u64 {
    let mut registry = prometheus_client::registry::Registry::default();
    metrics.register(&mut registry);
    let mut text = String::new();
    prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("switchyard_commit_seconds_count "))
        .and_then(|count| count.parse().ok())
        .unwrap_or_else(|| panic!("no commit count in:\n{text}"))
}

async fn start(runtime: &Runtime) -> StepResponse {
    let request =
        StartRequest { workflow: Some("dev-cycle".to_owned()), goal: "g".to_owned(), ..StartRequest::default() };
    runtime.start(&Catalog::builtins_only(), request).await.unwrap()
}

#[tokio::test]
async fn the_gates_waiting_gauge_follows_a_gate_through_pause_resume_approval_and_stop() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await;
    let metrics = runtime.metrics().clone();
    let started = start(&runtime).await;
    assert_eq!(metrics.runs_started.get(), 1);

    let blocked = runtime.advance(&continue_token(&started), None, AdvanceInput::default()).await.unwrap();
    assert_eq!((metrics.advances.get(), metrics.blocked_attempts.get()), (1, 1));
    runtime.advance(&continue_token(&blocked), None, notes("plan")).await.unwrap();
    assert_eq!((metrics.advances.get(), metrics.blocked_attempts.get(), metrics.gates_waiting.get()), (2, 1, 1));

    runtime.pause(started.run, None).await.unwrap();
    assert_eq!(metrics.gates_waiting.get(), 0, "a paused run waits for nobody");
    runtime.resume(started.run).await.unwrap();
    assert_eq!(metrics.gates_waiting.get(), 1);
    let implement = runtime.approve(started.run, None).await.unwrap();
    assert_eq!(metrics.gates_waiting.get(), 0);

    // A second run stopped at its gate leaves the gauge where it was.
    let other = start(&runtime).await;
    runtime.advance(&continue_token(&other), None, notes("plan")).await.unwrap();
    assert_eq!(metrics.gates_waiting.get(), 1);
    runtime.stop(other.run, None).await.unwrap();
    assert_eq!(metrics.gates_waiting.get(), 0);
    let stopped =
        metrics.runs_finished.get_or_create_owned(&switchyard_runtime::observe::Outcome { outcome: "stopped" });
    assert_eq!(stopped.get(), 1);

    // Replaying an advance commits nothing and counts nothing.
    let advances = metrics.advances.get();
    let token = continue_token(&implement);
    runtime.advance(&token, None, notes("done")).await.unwrap();
    runtime.advance(&token, None, notes("done")).await.unwrap();
    assert_eq!(metrics.advances.get(), advances + 1);
    assert!(commits(&metrics) >= 9, "every committed command is timed");
}

#[tokio::test]
async fn count_waiting_gates_starts_the_gauge_from_the_store() {
    let dir = common::TestHome::new();
    let store = common::store(&dir).await;
    let writer = common::runtime_on(std::sync::Arc::clone(&store));
    for _ in 0..3 {
        let started = start(&writer).await;
        writer.advance(&continue_token(&started), None, notes("plan")).await.unwrap();
    }
    start(&writer).await;

    let reader = common::runtime_on(store);
    assert_eq!(reader.metrics().gates_waiting.get(), 0, "a new runtime knows nothing yet");
    assert_eq!(reader.count_waiting_gates().await.unwrap(), 3);
    assert_eq!(reader.metrics().gates_waiting.get(), 3);
}

#[tokio::test]
async fn a_last_attempt_failing_its_checks_counts_as_blocked_and_fails_the_run() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await;
    let metrics = runtime.metrics();
    let mut response = start(&runtime).await;
    let attempts = response.step.as_ref().unwrap().attempts_left;
    for _ in 0..attempts {
        response = runtime.advance(&continue_token(&response), None, AdvanceInput::default()).await.unwrap();
    }
    assert_eq!(response.kind, switchyard_runtime::ResponseKind::Failed);
    assert_eq!((metrics.advances.get(), metrics.blocked_attempts.get()), (u64::from(attempts), u64::from(attempts)));
    let failed = metrics.runs_finished.get_or_create_owned(&switchyard_runtime::observe::Outcome { outcome: "failed" });
    assert_eq!(failed.get(), 1);
}
