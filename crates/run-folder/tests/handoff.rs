//! `_handoff.md` in a run folder: the audit findings a command downgraded, appended under
//! `## Downgraded Findings` once per committed command, so a replay appends nothing.

mod common;

use serde_json::{Value, json};
use switchyard_catalog::Catalog;
use switchyard_run_folder::{DOWNGRADED_FINDINGS_HEADING, HANDOFF_FILE};
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};
use switchyard_test_support::{AUDITED_WORKFLOW, audit_finding};

async fn send(runtime: &Runtime, response: &StepResponse, artifacts: Value) -> StepResponse {
    let token = response.tokens.continue_token.as_deref().unwrap();
    let input = AdvanceInput { artifacts: Some(artifacts), ..AdvanceInput::default() };
    runtime.advance(token, None, input).await.unwrap()
}

#[tokio::test]
async fn downgraded_findings_are_handed_off_once_under_one_heading() {
    let home = common::TestHome::new();
    let (runtime, folders) = common::open(&home).await;
    let file = home.path().join("audited.yaml");
    std::fs::write(&file, AUDITED_WORKFLOW).unwrap();
    let request = StartRequest { file: Some(file), goal: "ship it".to_owned(), ..StartRequest::default() };
    let started = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    let report = json!({
        "status": "pass", "summary": "two findings", "confidence": 1.0, "validated": true,
        "skills_used": [], "skills_missing": [], "model_override_reason": null,
        "findings": [audit_finding("blocked", 0.79, true), audit_finding("blocked", 0.95, false)]
    });
    let advanced = send(&runtime, &started, report.clone()).await;
    let handoff_file = folders.folder(started.session).join(HANDOFF_FILE);
    let handoff = std::fs::read_to_string(&handoff_file).unwrap();
    assert!(handoff.starts_with(DOWNGRADED_FINDINGS_HEADING), "{handoff}");
    assert!(
        handoff.contains("`/artifacts/findings/0`: confidence 0.79 is below audit_min_confidence 0.8. blocked at 0.79"),
        "{handoff}"
    );
    assert!(handoff.contains("`/artifacts/findings/1`: not validated (confidence 0.95)"), "{handoff}");
    assert_eq!(handoff.matches("- step `audit`").count(), 2, "{handoff}");

    // A replay answers with what was recorded and appends nothing.
    assert!(send(&runtime, &started, report).await.replayed);
    assert_eq!(std::fs::read_to_string(&handoff_file).unwrap(), handoff);

    // Warnings without downgrades are not handed off.
    send(&runtime, &advanced, json!({"status": "pass", "summary": "done"})).await;
    assert_eq!(std::fs::read_to_string(&handoff_file).unwrap(), handoff);
}
