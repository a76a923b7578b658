//! The audit gate through the runtime: a run records its threshold when it starts, downgraded
//! findings become a `report_warned` event and the advance's answer (the run folder's
//! `_handoff.md` is the run folder's test); a strict run blocks a report with only the core
//! fields.

mod common;

use serde_json::{Value, json};
use switchyard_catalog::Catalog;
use switchyard_core::state::ReportPolicy;
use switchyard_core::{EventKind, RunStatus};
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};
use switchyard_test_support::{AUDITED_WORKFLOW, audit_finding};

async fn start(runtime: &Runtime, dir: &std::path::Path, strict_status: bool) -> StepResponse {
    let file = dir.join("audited.yaml");
    std::fs::write(&file, AUDITED_WORKFLOW).unwrap();
    runtime
        .start(
            &Catalog::builtins_only(),
            StartRequest { file: Some(file), goal: "ship it".to_owned(), strict_status, ..StartRequest::default() },
        )
        .await
        .unwrap()
}

async fn send(runtime: &Runtime, response: &StepResponse, artifacts: Value) -> StepResponse {
    let token = response.tokens.continue_token.as_deref().unwrap();
    let input = AdvanceInput { artifacts: Some(artifacts), ..AdvanceInput::default() };
    runtime.advance(token, None, input).await.unwrap()
}

async fn recorded_events(runtime: &Runtime, response: &StepResponse) -> Vec<EventKind> {
    runtime.events(response.session, 0, 100).await.unwrap().into_iter().map(|event| event.kind).collect()
}

#[tokio::test]
async fn a_downgraded_finding_is_recorded_and_answered() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await.with_audit_min_confidence(0.8);
    let started = start(&runtime, dir.path(), false).await;
    let report = json!({
        "status": "pass", "summary": "two findings", "confidence": 1.0, "validated": true,
        "skills_used": [], "skills_missing": [], "model_override_reason": null,
        "findings": [audit_finding("blocked", 0.79, true), audit_finding("blocked", 0.95, false)]
    });
    let advanced = send(&runtime, &started, report.clone()).await;
    assert_eq!(advanced.status, RunStatus::Active, "{advanced:?}");
    let downgraded = &advanced.report_warnings.as_ref().expect("the answer carries the downgrade").downgraded;
    let paths: Vec<&str> = downgraded.iter().map(|finding| finding.path.as_str()).collect();
    assert_eq!(paths, ["/artifacts/findings/0", "/artifacts/findings/1"]);

    let events = recorded_events(&runtime, &started).await;
    let policy = events.iter().find_map(|event| match event {
        EventKind::RunStarted { report_policy, .. } => *report_policy,
        _ => None,
    });
    assert_eq!(policy, Some(ReportPolicy { audit_min_confidence: 0.8, strict_status: false }));
    assert!(
        events.iter().any(|event| matches!(event, EventKind::ReportWarned { downgraded, .. } if downgraded.len() == 2))
    );

    // A replay answers with what was recorded, warnings included.
    let replayed = send(&runtime, &started, report.clone()).await;
    assert!(replayed.replayed);
    assert_eq!(replayed.report_warnings, advanced.report_warnings);

    let advanced = send(&runtime, &advanced, json!({"status": "pass", "summary": "done"})).await;
    assert_eq!(advanced.report_warnings.unwrap().warnings.len(), 3, "core fields only: three warnings");
}

#[tokio::test]
async fn a_run_keeps_the_threshold_it_started_with() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await.with_audit_min_confidence(0.6);
    let started = start(&runtime, dir.path(), false).await;
    // The configuration changes while the run is going.
    let later = runtime.with_audit_min_confidence(0.9);
    let blocked = send(&later, &started, audit_finding("blocked", 0.65, true)).await;
    assert_eq!(blocked.status, RunStatus::Blocked, "0.65 is at least the run's 0.6, whatever the config says now");
    let issues = blocked.validation.unwrap().issues;
    assert_eq!((issues[0].code.as_str(), issues[0].path.as_str()), ("AUDIT_FINDING", "/artifacts"));
    assert!(issues[0].message.contains("confidence 0.65"), "{}", issues[0].message);
}

#[tokio::test]
async fn a_strict_run_blocks_a_report_with_only_core_fields() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await;
    let started = start(&runtime, dir.path(), true).await;
    let audited = send(&runtime, &started, audit_finding("pass", 1.0, true)).await;
    let blocked = send(&runtime, &audited, json!({"status": "pass", "summary": "done"})).await;
    assert_eq!(blocked.status, RunStatus::Blocked);
    let paths: Vec<String> = blocked.validation.unwrap().issues.into_iter().map(|issue| issue.path).collect();
    assert_eq!(paths, ["/artifacts/skills_used", "/artifacts/skills_missing", "/artifacts/model_override_reason"]);
}

#[tokio::test]
async fn runs_of_workflows_without_reports_record_no_policy() {
    let dir = common::TestHome::new();
    let runtime = common::runtime(&dir).await;
    let file = dir.path().join("plain.yaml");
    std::fs::write(&file, "id: plain\nsteps:\n  - id: only\n    prompt: Do it.\n").unwrap();
    let started = runtime
        .start(
            &Catalog::builtins_only(),
            StartRequest { file: Some(file), goal: "g".to_owned(), ..StartRequest::default() },
        )
        .await
        .unwrap();
    let events = recorded_events(&runtime, &started).await;
    assert!(events.iter().any(|event| matches!(event, EventKind::RunStarted { report_policy: None, .. })));
}
