//! WorkRail assessment consequences are enforced through the runtime, as WorkRail's engine does:
//! a `wr.assessment` with a dimension at a consequence's level is refused with the consequence's
//! guidance and the step stays pending; an assessment without that level advances. A
//! consequence scoped with `forAssessment` fires only for that assessment.

mod common;

use std::path::Path;

use common::runtime;
use serde_json::{Value, json};
use switchyard_catalog::Catalog;
use switchyard_core::state::RunStatus;
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};

const WORKFLOW: &str = r#"{
  "id": "demo.assessed",
  "name": "Assessed",
  "description": "Two assessment gates.",
  "version": "0.1.0",
  "assessments": [
    {"id": "readiness_gate", "purpose": "Is the diagnosis ready?",
     "dimensions": [{"id": "confidence", "purpose": "How sure are you?", "levels": ["low", "high"]}]},
    {"id": "quality_gate", "purpose": "Quality",
     "dimensions": [{"id": "evidence", "purpose": "Grounded findings", "levels": ["low", "high"]}]},
    {"id": "coverage_gate", "purpose": "Coverage",
     "dimensions": [{"id": "coverage", "purpose": "Every domain checked", "levels": ["low", "high"]}]}
  ],
  "steps": [
    {"id": "diagnose", "title": "Diagnose", "prompt": "Diagnose the bug.",
     "assessmentRefs": ["readiness_gate"],
     "assessmentConsequences": [{"when": {"anyEqualsLevel": "low"},
       "effect": {"kind": "require_followup", "guidance": "Gather more context before proceeding."}}]},
    {"id": "review", "title": "Review", "prompt": "Review the findings.",
     "assessmentRefs": ["quality_gate", "coverage_gate"],
     "assessmentConsequences": [{"when": {"anyEqualsLevel": "low", "forAssessment": "coverage_gate"},
       "effect": {"kind": "require_followup", "guidance": "Check the domains you skipped."}}]},
    {"id": "wrap-up", "title": "Wrap up", "prompt": "Summarize."}
  ]
}"#;

/// Advances the pending step with these artifacts and checks where the run is: still on the
/// same step, blocked with a message holding `blocked_with`, or on `next_step`.
async fn check(runtime: &Runtime, response: StepResponse, artifacts: Value, expected: Expect<'_>) -> StepResponse {
    let pending = response.step.clone().expect("a pending step").step;
    let token = response.tokens.continue_token.clone().expect("a continue token");
    let input = AdvanceInput {
        notes: Some("Did the work.".to_owned()),
        artifacts: Some(artifacts.clone()),
        ..AdvanceInput::default()
    };
    let answer = runtime.advance(&token, None, input).await.unwrap();
    let step = answer.step.as_ref().map(|step| step.step.to_string());
    match expected {
        Expect::Blocked(message) => {
            assert_eq!(answer.status, RunStatus::Blocked, "{artifacts} at `{pending}` was accepted");
            assert_eq!(step.as_deref(), Some(pending.as_str()), "the step stays pending");
            let validation = answer.validation.clone().or_else(|| answer.step.as_ref()?.validation.clone());
            let issues = validation.expect("a blocked answer says why").issues;
            assert!(
                issues.iter().any(|issue| issue.code == "OUTPUT_CHECK" && issue.message.contains(message)),
                "{artifacts} at `{pending}`: {issues:#?}"
            );
        }
        Expect::Next(next) => {
            assert_eq!(answer.status, RunStatus::Active, "{artifacts} at `{pending}`: {:?}", answer.validation);
            assert_eq!(step.as_deref(), Some(next), "{artifacts} at `{pending}`");
        }
    }
    answer
}

enum Expect<'a> {
    Blocked(&'a str),
    Next(&'a str),
}

#[tokio::test(flavor = "multi_thread")]
async fn an_assessment_at_the_consequence_level_is_refused_with_the_guidance_until_it_passes() {
    let dir = common::TestHome::new();
    let file = dir.path().join("assessed.json");
    std::fs::write(&file, WORKFLOW).unwrap();
    let runtime = runtime(&dir).await;
    let request = StartRequest { file: Some(file), goal: "find the bug".to_owned(), ..StartRequest::default() };
    let started = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    let prompt = &started.step.as_ref().unwrap().prompt;
    assert!(prompt.contains("`readiness_gate` / `confidence` (`low` | `high`)"), "{prompt}");

    let assessment = |dimensions: Value| json!([{"kind": "wr.assessment", "dimensions": dimensions}]);
    // Levels compare as WorkRail normalises them: trimmed, any case, bare or with a rationale.
    let response = check(
        &runtime,
        started,
        assessment(json!({"confidence": " LOW "})),
        Expect::Blocked("Gather more context before proceeding."),
    )
    .await;
    let response = check(
        &runtime,
        response,
        assessment(json!({"confidence": {"level": "low", "rationale": "still guessing"}})),
        Expect::Blocked("has a dimension at `low`"),
    )
    .await;
    let response =
        check(&runtime, response, assessment(json!({"confidence": {"level": "high"}})), Expect::Next("review")).await;

    // Scoped to `coverage_gate`: a low coverage blocks, a low evidence does not.
    let scoped = |evidence: &str, coverage: &str| {
        json!([
            {"kind": "wr.assessment", "assessmentId": "quality_gate", "dimensions": {"evidence": evidence}},
            {"kind": "wr.assessment", "assessmentId": "coverage_gate", "dimensions": {"coverage": coverage}}
        ])
    };
    let response =
        check(&runtime, response, scoped("high", "low"), Expect::Blocked("Check the domains you skipped.")).await;
    check(&runtime, response, scoped("low", "high"), Expect::Next("wrap-up")).await;
}

async fn start(runtime: &Runtime, dir: &Path, name: &str, workflow: &str) -> StepResponse {
    let file = dir.join(name);
    std::fs::write(&file, workflow).unwrap();
    let request = StartRequest { file: Some(file), goal: "assess".to_owned(), ..StartRequest::default() };
    runtime.start(&Catalog::builtins_only(), request).await.unwrap()
}

/// An assessment must rate every dimension its definition declares, with a declared level;
/// otherwise an agent could dodge a consequence by leaving the dimension out or inventing a
/// level, which WorkRail refuses too. Each case is a fresh run, since a step fails for good
/// after three blocked attempts.
#[tokio::test(flavor = "multi_thread")]
async fn an_assessment_missing_a_dimension_or_using_an_undeclared_level_is_refused() {
    let dir = common::TestHome::new();
    let runtime = runtime(&dir).await;
    let assessment = |dimensions: Value| json!([{"kind": "wr.assessment", "dimensions": dimensions}]);
    let confidence = "Assessment `readiness_gate` needs dimension `confidence` at one of its levels: `low` | `high`";
    let cases = [
        (assessment(json!({})), Expect::Blocked(confidence)),
        (assessment(json!({"other": "high"})), Expect::Blocked(confidence)),
        (assessment(json!({"confidence": "medium"})), Expect::Blocked(confidence)),
        (assessment(json!({"confidence": {"level": "certain", "rationale": "sure"}})), Expect::Blocked(confidence)),
        (assessment(json!({"confidence": {"rationale": "no level"}})), Expect::Blocked(confidence)),
        (assessment(json!({"confidence": 1})), Expect::Blocked(confidence)),
        (
            json!([{"kind": "wr.assessment", "assessmentId": "quality_gate", "dimensions": {"confidence": "high"}}]),
            Expect::Blocked(confidence),
        ),
        // A second, valid artifact does not hide one with an undeclared level.
        (
            json!([
                {"kind": "wr.assessment", "dimensions": {"confidence": "high"}},
                {"kind": "wr.assessment", "dimensions": {"confidence": "sure"}}
            ]),
            Expect::Blocked(confidence),
        ),
        (assessment(json!({"confidence": " High "})), Expect::Next("review")),
        (assessment(json!({"confidence": {"level": "HIGH", "rationale": "reproduced"}})), Expect::Next("review")),
    ];
    for (artifacts, expected) in cases {
        let started = start(&runtime, dir.path(), "assessed.json", WORKFLOW).await;
        check(&runtime, started, artifacts, expected).await;
    }

    // With two assessments on the step, each is named by `assessmentId` and each is checked.
    let both = |evidence: Value, coverage: Value| {
        json!([
            {"kind": "wr.assessment", "assessmentId": "quality_gate", "dimensions": {"evidence": evidence}},
            {"kind": "wr.assessment", "assessmentId": "coverage_gate", "dimensions": {"coverage": coverage}}
        ])
    };
    let coverage = "Assessment `coverage_gate` needs dimension `coverage` at one of its levels: `low` | `high`";
    let evidence = "Assessment `quality_gate` needs dimension `evidence` at one of its levels: `low` | `high`";
    let unnamed = json!([
        {"kind": "wr.assessment", "assessmentId": "quality_gate", "dimensions": {"evidence": "high"}},
        {"kind": "wr.assessment", "dimensions": {"coverage": "high"}}
    ]);
    let cases = [
        (both(json!("high"), json!("complete")), Expect::Blocked(coverage)),
        (both(json!("great"), json!("high")), Expect::Blocked(evidence)),
        (unnamed, Expect::Blocked(r#""assessmentId": "coverage_gate""#)),
        (both(json!({"level": "HIGH", "rationale": "grounded"}), json!("high")), Expect::Next("wrap-up")),
    ];
    for (artifacts, expected) in cases {
        let started = start(&runtime, dir.path(), "assessed.json", WORKFLOW).await;
        let review = check(&runtime, started, assessment(json!({"confidence": "high"})), Expect::Next("review")).await;
        check(&runtime, review, artifacts, expected).await;
    }
}

/// A dimension declared `required: false` may be left out, but when it is rated the level must
/// be one the assessment declares.
#[tokio::test(flavor = "multi_thread")]
async fn an_optional_dimension_may_be_left_out_but_not_given_an_undeclared_level() {
    let workflow = r#"{
      "id": "demo.optional", "name": "Optional", "description": "An optional dimension.", "version": "0.1.0",
      "assessments": [{"id": "gate", "purpose": "p", "dimensions": [
        {"id": "confidence", "purpose": "p", "levels": ["low", "high"]},
        {"id": "risk", "purpose": "p", "levels": ["small", "large"], "required": false}]}],
      "steps": [
        {"id": "assess", "title": "Assess", "prompt": "Assess.", "assessmentRefs": ["gate"]},
        {"id": "done", "title": "Done", "prompt": "Done."}
      ]
    }"#;
    let dir = common::TestHome::new();
    let runtime = runtime(&dir).await;
    let assessment = |dimensions: Value| json!([{"kind": "wr.assessment", "dimensions": dimensions}]);
    let risk = "Assessment `gate` may have dimension `risk` at one of its levels: `small` | `large`";
    let cases = [
        (assessment(json!({"confidence": "low", "risk": "huge"})), Expect::Blocked(risk)),
        (assessment(json!({"confidence": "low"})), Expect::Next("done")),
        (assessment(json!({"confidence": "high", "risk": "LARGE"})), Expect::Next("done")),
    ];
    for (artifacts, expected) in cases {
        let started = start(&runtime, dir.path(), "optional.json", workflow).await;
        check(&runtime, started, artifacts, expected).await;
    }
}
