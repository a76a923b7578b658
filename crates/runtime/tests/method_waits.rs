//! BMad Method workflows run through the runtime where the method waits or calls: a step-file
//! menu (`[A] [P] [C]`) stops the run at a gate until a human approves, and a rejection brings
//! the agent back; an invoked workflow carried in the bundle has its steps walked between the
//! invoking step and the next, with the module config's values in the prompt.

mod common;

use std::path::{Path, PathBuf};

use common::runtime;
use switchyard_catalog::Catalog;
use switchyard_core::state::RunStatus;
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};
use switchyard_test_support::{copy_folder, corpora};

fn testdata() -> PathBuf {
    corpora().join("bmad")
}

async fn start(runtime: &Runtime, folder: &Path, context: serde_json::Value) -> StepResponse {
    let request = StartRequest {
        file: Some(folder.to_owned()),
        goal: "scripted run".to_owned(),
        context: context.as_object().cloned().unwrap_or_default(),
        ..StartRequest::default()
    };
    runtime.start(&Catalog::builtins_only(), request).await.unwrap()
}

async fn advance(runtime: &Runtime, response: &StepResponse) -> StepResponse {
    let token = response.tokens.continue_token.clone().expect("a step waits for the agent");
    let input = AdvanceInput { notes: Some("done".to_owned()), ..AdvanceInput::default() };
    runtime.advance(&token, None, input).await.unwrap()
}

fn pending_step(response: &StepResponse) -> String {
    assert_eq!(response.status, RunStatus::Active, "{response:?}");
    response.step.as_ref().unwrap().step.to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_step_file_menu_waits_for_a_human_and_a_rejection_brings_the_agent_back() {
    let dir = common::TestHome::new();
    let runtime = runtime(&dir).await;
    let folder = testdata().join("6.0.4/src/bmm/workflows/1-analysis/create-product-brief");
    let first = start(&runtime, &folder, serde_json::json!({})).await;
    // The init step has no menu: it proceeds.
    assert_eq!(pending_step(&first), "step-01-init");
    assert!(!first.step.as_ref().unwrap().gate);
    let vision = advance(&runtime, &first).await;
    assert_eq!(pending_step(&vision), "step-02-vision");
    assert!(vision.step.as_ref().unwrap().gate, "the [A] [P] [C] menu makes a gate");
    // The agent shows the menu and advances: the run waits for the human.
    let waiting = advance(&runtime, &vision).await;
    assert_eq!(waiting.status, RunStatus::WaitingGate);
    assert_eq!(waiting.gate.as_ref().unwrap().step.as_str(), "step-02-vision");
    assert!(waiting.tokens.continue_token.is_none(), "nothing for the agent to do at a gate");
    // [A] Advanced Elicitation: a rejection sends the agent back to the same step.
    let again = runtime.reject(waiting.run, "A: run advanced elicitation on the vision".to_owned()).await.unwrap();
    assert_eq!(pending_step(&again), "step-02-vision");
    assert!(again.step.as_ref().unwrap().rejection.as_deref().unwrap_or_default().contains("advanced elicitation"));
    // [C] Continue: approval moves on.
    let waiting = advance(&runtime, &again).await;
    assert_eq!(waiting.status, RunStatus::WaitingGate);
    let users = runtime.approve(waiting.run, None).await.unwrap();
    assert_eq!(pending_step(&users), "step-03-users");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invoked_workflow_in_the_bundle_is_walked_step_by_step_and_returns() {
    let dir = common::TestHome::new();
    let runtime = runtime(&dir).await;
    let alpha7 = testdata().join("6.0.0-alpha.7");
    // brainstorm-project with the core brainstorming workflow and the module configs installed
    // where its paths point.
    let folder = dir.path().join("brainstorm-project");
    copy_folder(&alpha7.join("src/modules/bmm/workflows/1-analysis/brainstorm-project"), &folder);
    copy_folder(&alpha7.join("src/core/workflows/brainstorming"), &folder.join("bmad/core/workflows/brainstorming"));
    for module in ["bmm", "cis"] {
        std::fs::create_dir_all(folder.join("bmad").join(module)).unwrap();
        std::fs::copy(alpha7.join("bmad/core/config.yaml"), folder.join("bmad").join(module).join("config.yaml"))
            .unwrap();
    }
    // The user picks technique 2 (AI-recommended): brainstorming's steps 2a, 2c and 2d are
    // skipped by their evaluated `if="selection==N"`.
    let mut response = start(&runtime, &folder, serde_json::json!({"selection": 2})).await;
    assert!(
        response.step.as_ref().unwrap().prompt.contains("`{user_name}`: `BMad`"),
        "{}",
        response.step.as_ref().unwrap().prompt
    );
    let mut trace = Vec::new();
    let mut gates = 0;
    for _ in 0..100 {
        match response.status {
            RunStatus::Completed => break,
            RunStatus::WaitingGate => {
                gates += 1;
                response = runtime.approve(response.run, None).await.unwrap();
            }
            _ => {
                trace.push(pending_step(&response));
                response = advance(&runtime, &response).await;
            }
        }
    }
    assert_eq!(response.status, RunStatus::Completed, "{trace:?}");
    assert_eq!(
        trace,
        [
            "1",
            "2",
            "3",
            "3.brainstorming.1",
            "3.brainstorming.2",
            "3.brainstorming.2b",
            "3.brainstorming.3",
            "3.brainstorming.4",
            "3.brainstorming.5",
            "3.brainstorming.6",
            "3.brainstorming.7",
            "3.brainstorming.8",
            "4",
        ]
    );
    // Brainstorming asks and writes template sections: its steps wait for the human.
    assert!(gates >= 7, "{gates} gates");
}
