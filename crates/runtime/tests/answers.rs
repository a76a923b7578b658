//! A person's answer names the node they were shown (`Runtime::answer`): it acts there, replays
//! when sent again, and is refused once the run has moved past that node, so a page or a
//! terminal left open never approves a later gate its author did not see.

mod common;

use switchyard_catalog::Catalog;
use switchyard_core::RunStatus;
use switchyard_runtime::{AdvanceInput, HumanAnswer, Runtime, StartRequest, StepResponse, Target};

fn notes(text: &str) -> AdvanceInput {
    AdvanceInput { notes: Some(text.to_owned()), ..AdvanceInput::default() }
}

/// A dev-cycle run whose plan waits at its gate.
async fn at_gate(runtime: &Runtime) -> (StepResponse, StepResponse) {
    let request =
        StartRequest { workflow: Some("dev-cycle".to_owned()), goal: "g".to_owned(), ..StartRequest::default() };
    let started = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    let token = started.tokens.continue_token.clone().unwrap();
    let waiting = runtime.advance(&token, None, notes("the plan")).await.unwrap();
    assert_eq!(waiting.status, RunStatus::WaitingGate);
    (started, waiting)
}

fn approve(note: &str) -> HumanAnswer {
    HumanAnswer::Approve { note: Some(note.to_owned()) }
}

#[tokio::test]
async fn an_answer_at_the_waiting_node_acts_and_sent_again_replays() {
    let home = common::TestHome::new();
    let runtime = common::runtime(&home).await;
    let (_, waiting) = at_gate(&runtime).await;

    let approved = runtime.answer(waiting.run, waiting.node, approve("yes")).await.unwrap();
    assert_ne!(approved.node, waiting.node, "the run moved on to the next step");
    let again = runtime.answer(waiting.run, waiting.node, approve("yes")).await.unwrap();
    assert_eq!(again.node, approved.node, "the same answer replays the first one's result");
    let tip = runtime.run(&Target::Run(waiting.run)).await.unwrap().tip;
    assert_eq!(tip, approved.node, "one approval, one step");
}

#[tokio::test]
async fn an_answer_for_a_node_the_run_has_left_is_refused_and_changes_nothing() {
    let home = common::TestHome::new();
    let runtime = common::runtime(&home).await;
    let (started, waiting) = at_gate(&runtime).await;

    // The first step's node never waited at a gate; the run has moved past it.
    let error = runtime.answer(waiting.run, started.node, approve("late")).await.unwrap_err();
    assert_eq!(error.code(), "RUN_MOVED_ON", "{error}");
    let message = error.to_string();
    assert!(message.contains(&started.node.to_string()) && message.contains(&waiting.node.to_string()), "{message}");
    assert!(message.contains("nothing was done"), "{message}");
    let run = runtime.run(&Target::Run(waiting.run)).await.unwrap();
    assert_eq!((run.status, run.tip), (RunStatus::WaitingGate, waiting.node), "nothing moved");
}

#[tokio::test]
async fn a_gate_decided_elsewhere_refuses_a_different_answer_from_a_page_left_open() {
    let home = common::TestHome::new();
    let runtime = common::runtime(&home).await;
    let (_, waiting) = at_gate(&runtime).await;
    runtime.reject(waiting.run, "add tests to the plan".to_owned()).await.unwrap();

    let error = runtime.answer(waiting.run, waiting.node, approve("ship it")).await.unwrap_err();
    assert_eq!(error.code(), "REPLAY_MISMATCH", "{error}");
    assert!(error.to_string().contains("already decided"), "{error}");
}
