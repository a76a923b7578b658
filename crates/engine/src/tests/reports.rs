//! Status reports and the audit gate: the checker's rules table-driven, then the gate's
//! decisions through the engine (blocked attempts, `ReportWarned` events).

use serde_json::{Value, json};
use switchyard_core::event::EventKind;
use switchyard_core::state::{DowngradedFinding, Phase, ReportPolicy, RunStatus};

use crate::fixture::{Run, advance, names};
use crate::status_report::{self, CheckOptions, ReportKind};
use crate::{Advance, Command, Transition};

const STATUS: CheckOptions = CheckOptions { kind: ReportKind::Status, strict: false };
const STRICT: CheckOptions = CheckOptions { kind: ReportKind::Status, strict: true };
const AUDIT: CheckOptions = CheckOptions { kind: ReportKind::Audit, strict: false };

/// Checks `report` and compares its findings, each written `<pointer> <rule> <severity>`.
fn check(report: &Value, options: CheckOptions, expected: &[&str]) {
    let findings = status_report::check(Some(report), "", options);
    let actual: Vec<String> = findings
        .iter()
        .map(|finding| format!("{} {} {:?}", finding.pointer, finding.rule.as_str(), finding.severity).to_lowercase())
        .collect();
    assert_eq!(actual, expected, "findings of {report}: {findings:#?}");
    for finding in &findings {
        assert!(finding.message.starts_with(&format!("`{}`", finding.field)) || finding.field.is_empty());
        assert!(!finding.message.contains(": "), "the message says what is wrong, the help how to fix: {finding:?}");
        assert!(finding.help.starts_with("send") || finding.help.starts_with("add it"), "{finding:?}");
    }
}

fn full() -> Value {
    json!({
        "status": "pass",
        "summary": "Implementation complete",
        "skills_used": ["conventional-commits"],
        "skills_missing": [],
        "model_override_reason": null
    })
}

fn with(mut report: Value, field: &str, value: Option<Value>) -> Value {
    let object = report.as_object_mut().unwrap();
    match value {
        Some(value) => object.insert(field.to_owned(), value),
        None => object.remove(field),
    };
    report
}

#[test]
fn a_report_with_all_five_fields_passes_in_both_modes() {
    check(&full(), STATUS, &[]);
    check(&full(), STRICT, &[]);
}

#[test]
fn a_report_with_only_core_fields_warns_by_default_and_fails_when_strict() {
    let core = json!({"status": "pass", "summary": "done"});
    check(
        &core,
        STATUS,
        &[
            "/skills_used required warning",
            "/skills_missing required warning",
            "/model_override_reason required warning",
        ],
    );
    check(
        &core,
        STRICT,
        &["/skills_used required error", "/skills_missing required error", "/model_override_reason required error"],
    );
}

#[test]
fn core_fields_are_required_and_typed() {
    check(&with(full(), "status", None), STATUS, &["/status required error"]);
    check(&with(full(), "status", Some(json!("done"))), STATUS, &["/status enum error"]);
    check(&with(full(), "status", Some(json!(true))), STATUS, &["/status type error"]);
    check(&with(full(), "summary", None), STATUS, &["/summary required error"]);
    check(&with(full(), "summary", Some(json!("  "))), STATUS, &["/summary non_empty error"]);
    check(&with(full(), "summary", Some(json!(["a"]))), STATUS, &["/summary type error"]);
    check(&json!("pass"), STATUS, &[" type error"]);
}

#[test]
fn a_null_is_told_what_to_send_and_only_a_field_that_may_be_left_out_is_told_so() {
    let help = |report: Value, options: CheckOptions| status_report::check(Some(&report), "", options)[0].help.clone();
    assert_eq!(help(with(full(), "status", Some(Value::Null)), STATUS), "send `pass` or `blocked`");
    assert_eq!(
        help(with(full(), "summary", Some(Value::Null)), STATUS),
        "send a one-sentence summary of what was done or what blocks"
    );
    assert_eq!(
        help(with(audit("blocked", 0.9, true), "confidence", Some(Value::Null)), AUDIT),
        "send how sure the finding is, a number from 0.0 to 1.0"
    );
    assert_eq!(
        help(with(audit("pass", 1.0, true), "findings", Some(Value::Null)), AUDIT),
        "send a list of finding reports, or leave `findings` out"
    );
    for (field, value) in [("status", Value::Null), ("summary", Value::Null), ("skills_used", Value::Null)] {
        assert!(!help(with(full(), field, Some(value)), STRICT).contains("leave"), "{field}");
    }
}

#[test]
fn null_and_missing_are_told_apart() {
    // A null status is something sent that is not a value; a missing one was not sent.
    check(&with(full(), "status", Some(Value::Null)), STATUS, &["/status not_null error"]);
    check(&with(full(), "skills_used", Some(Value::Null)), STATUS, &["/skills_used not_null error"]);
    check(&with(full(), "skills_used", None), STATUS, &["/skills_used required warning"]);
    // `model_override_reason` is a string or null: null is the value "not overridden".
    check(&with(full(), "model_override_reason", Some(Value::Null)), STRICT, &[]);
    check(&with(full(), "model_override_reason", None), STRICT, &["/model_override_reason required error"]);
}

#[test]
fn extended_fields_of_the_wrong_type_are_errors_in_both_modes() {
    check(&with(full(), "skills_used", Some(json!("git"))), STATUS, &["/skills_used type error"]);
    check(&with(full(), "skills_missing", Some(json!(["a", 3]))), STATUS, &["/skills_missing type error"]);
    check(&with(full(), "model_override_reason", Some(json!(1))), STATUS, &["/model_override_reason type error"]);
}

fn audit(status: &str, confidence: f64, validated: bool) -> Value {
    with(
        with(
            with(
                with(full(), "status", Some(json!(status))),
                "summary",
                Some(json!(format!("{status} at {confidence}"))),
            ),
            "confidence",
            Some(json!(confidence)),
        ),
        "validated",
        Some(json!(validated)),
    )
}

#[test]
fn audit_reports_require_confidence_and_validated() {
    check(&audit("blocked", 0.65, false), AUDIT, &[]);
    check(&with(audit("blocked", 0.9, true), "confidence", None), AUDIT, &["/confidence required error"]);
    check(&with(audit("blocked", 0.9, true), "confidence", Some(json!("high"))), AUDIT, &["/confidence type error"]);
    check(&with(audit("blocked", 0.9, true), "confidence", Some(json!(1.2))), AUDIT, &["/confidence range error"]);
    check(&with(audit("blocked", 0.9, true), "validated", None), AUDIT, &["/validated required error"]);
    check(&with(audit("blocked", 0.9, true), "validated", Some(json!("yes"))), AUDIT, &["/validated type error"]);
    // A status report is not asked for them.
    check(&full(), STATUS, &[]);
}

#[test]
fn audit_findings_are_reports_of_the_same_shape() {
    let report = with(
        audit("pass", 1.0, true),
        "findings",
        Some(json!([audit("blocked", 0.9, true), {"status": "blocked", "summary": "x", "validated": true}])),
    );
    check(
        &report,
        AUDIT,
        &[
            "/findings/1/skills_used required warning",
            "/findings/1/skills_missing required warning",
            "/findings/1/model_override_reason required warning",
            "/findings/1/confidence required error",
        ],
    );
    // A field of a finding is named by its place in the report.
    let findings = status_report::check(Some(&report), "", AUDIT);
    let confidence = findings
        .iter()
        .find(|finding| finding.rule.as_str() == "required" && finding.severity == status_report::Severity::Error)
        .unwrap();
    assert_eq!(confidence.field, "/findings/1/confidence");
    assert_eq!(confidence.message, "`/findings/1/confidence` is missing");
    check(&with(audit("pass", 1.0, true), "findings", Some(Value::Null)), AUDIT, &["/findings not_null error"]);
    check(&with(audit("pass", 1.0, true), "findings", Some(json!({}))), AUDIT, &["/findings type error"]);
}

#[test]
fn nothing_sent_is_a_missing_report() {
    let findings = status_report::check(None, "/artifacts", STATUS);
    assert_eq!(findings.len(), 1);
    assert_eq!((findings[0].pointer.as_str(), findings[0].rule.as_str()), ("/artifacts", "required"));
}

// ---------------------------------------------------------------- through the engine

const AUDITED: &str = "
step audit
audit
edge next -> done
step done
";

const REPORTED: &str = "
step work
report
edge next -> done
step done
";

fn send(run: &mut Run, artifacts: Value) -> Transition {
    run.apply(Command::Advance(Advance { artifacts: Some(artifacts), ..advance() }))
}

fn blocking(run: &Run) -> Vec<(String, String)> {
    match &run.state.phase {
        Phase::Blocked { validation } => {
            validation.issues.iter().map(|issue| (issue.path.clone(), issue.code.clone())).collect()
        }
        other => panic!("not blocked: {other:?}"),
    }
}

fn downgraded(transition: &Transition) -> Vec<DowngradedFinding> {
    transition
        .events
        .iter()
        .find_map(|event| match event {
            EventKind::ReportWarned { downgraded, .. } => Some(downgraded.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn a_validated_blocker_at_exactly_the_threshold_blocks() {
    let mut run = Run::start(AUDITED);
    let transition = send(&mut run, audit("blocked", 0.8, true));
    assert_eq!(run.status(), RunStatus::Blocked);
    assert_eq!(blocking(&run), [("/artifacts".to_owned(), "AUDIT_FINDING".to_owned())]);
    let Phase::Blocked { validation } = &run.state.phase else { unreachable!() };
    assert!(validation.issues[0].message.contains("confidence 0.8"), "{}", validation.issues[0].message);
    assert_eq!(names(&transition), ["node_created", "advance_recorded"]);
}

#[test]
fn a_validated_blocker_above_the_threshold_blocks() {
    let mut run = Run::start(AUDITED);
    send(&mut run, audit("blocked", 0.81, true));
    assert_eq!(run.status(), RunStatus::Blocked);
}

#[test]
fn a_blocker_below_the_threshold_is_downgraded_and_the_step_moves_on() {
    let mut run = Run::start(AUDITED);
    let transition = send(&mut run, audit("blocked", 0.79, true));
    assert_eq!((run.step(), run.status()), ("done", RunStatus::Active));
    assert_eq!(names(&transition), ["node_created", "advance_recorded", "report_warned"]);
    assert_eq!(
        downgraded(&transition),
        [DowngradedFinding {
            path: "/artifacts".to_owned(),
            summary: "blocked at 0.79".to_owned(),
            confidence: 0.79,
            validated: true,
            min_confidence: 0.8,
        }]
    );
    let EventKind::ReportWarned { node, .. } = &transition.events[2] else { unreachable!() };
    assert_eq!(*node, run.tip, "the warning names the node the advance created");
}

#[test]
fn an_unvalidated_blocker_is_downgraded_whatever_its_confidence() {
    let mut run = Run::start(AUDITED);
    let transition = send(&mut run, audit("blocked", 1.0, false));
    assert_eq!(run.step(), "done");
    assert!(!downgraded(&transition)[0].validated);
}

#[test]
fn the_runs_own_threshold_decides() {
    let mut strict = Run::start(AUDITED);
    strict.reports = ReportPolicy { audit_min_confidence: 0.6, strict_status: false };
    send(&mut strict, audit("blocked", 0.65, true));
    assert_eq!(strict.status(), RunStatus::Blocked);

    let mut lenient = Run::start(AUDITED);
    lenient.reports = ReportPolicy { audit_min_confidence: 0.95, strict_status: false };
    let transition = send(&mut lenient, audit("blocked", 0.9, true));
    assert_eq!(lenient.step(), "done");
    assert_eq!(downgraded(&transition)[0].min_confidence, 0.95);
}

#[test]
fn a_missing_confidence_blocks_as_an_invalid_report_not_a_downgrade() {
    let mut run = Run::start(AUDITED);
    let transition = send(&mut run, with(audit("blocked", 0.1, false), "confidence", None));
    assert_eq!(blocking(&run), [("/artifacts/confidence".to_owned(), "STATUS_REPORT".to_owned())]);
    assert!(downgraded(&transition).is_empty());
}

#[test]
fn a_findings_list_blocks_on_each_confident_finding_and_downgrades_the_rest() {
    let report = with(
        audit("pass", 1.0, true),
        "findings",
        Some(json!([
            audit("blocked", 0.9, true),
            audit("blocked", 0.5, true),
            audit("pass", 0.2, false),
            audit("blocked", 0.8, true),
            audit("blocked", 0.95, false),
        ])),
    );
    let mut run = Run::start(AUDITED);
    let transition = send(&mut run, report);
    assert_eq!(
        blocking(&run),
        [
            ("/artifacts/findings/0".to_owned(), "AUDIT_FINDING".to_owned()),
            ("/artifacts/findings/3".to_owned(), "AUDIT_FINDING".to_owned()),
        ]
    );
    let paths: Vec<_> = downgraded(&transition).into_iter().map(|finding| finding.path).collect();
    assert_eq!(paths, ["/artifacts/findings/1", "/artifacts/findings/4"]);
    assert_eq!(names(&transition), ["node_created", "advance_recorded", "report_warned"]);
}

#[test]
fn a_status_report_with_only_core_fields_passes_with_warnings() {
    let mut run = Run::start(REPORTED);
    let transition = send(&mut run, json!({"status": "pass", "summary": "done"}));
    assert_eq!(run.step(), "done");
    let EventKind::ReportWarned { warnings, downgraded, .. } = &transition.events[2] else {
        panic!("no warning: {:?}", names(&transition));
    };
    let paths: Vec<&str> = warnings.iter().map(|warning| warning.path.as_str()).collect();
    assert_eq!(paths, ["/artifacts/skills_used", "/artifacts/skills_missing", "/artifacts/model_override_reason"]);
    assert!(downgraded.is_empty());
}

#[test]
fn a_status_report_with_only_core_fields_blocks_when_strict() {
    let mut by_step = Run::start(&REPORTED.replace("report", "report strict"));
    send(&mut by_step, json!({"status": "pass", "summary": "done"}));
    assert_eq!(blocking(&by_step).len(), 3);

    let mut by_run = Run::start(REPORTED);
    by_run.reports = ReportPolicy { strict_status: true, ..ReportPolicy::default() };
    let transition = send(&mut by_run, json!({"status": "pass", "summary": "done"}));
    assert_eq!(blocking(&by_run).iter().map(|(_, code)| code.as_str()).collect::<Vec<_>>(), ["STATUS_REPORT"; 3]);
    assert_eq!(names(&transition), ["node_created", "advance_recorded"]);
}

#[test]
fn a_complete_status_report_passes_without_warnings_and_its_status_is_data() {
    // A plain status report's `blocked` does not block: the workflow routes on it if it wants.
    let mut run = Run::start(REPORTED);
    let transition = send(&mut run, with(full(), "status", Some(json!("blocked"))));
    assert_eq!(run.step(), "done");
    assert_eq!(names(&transition), ["node_created", "advance_recorded"]);
}

#[test]
fn steps_without_a_report_are_not_checked() {
    let mut run = Run::start("step a\nedge next -> b\nstep b");
    let transition = send(&mut run, json!({"status": "nonsense"}));
    assert_eq!(run.step(), "b");
    assert_eq!(names(&transition), ["node_created", "advance_recorded"]);
}

#[test]
fn a_review_weighs_only_clean_audit_reports() {
    let options = AUDIT;
    let low = status_report::review(Some(&audit("blocked", 0.5, true)), "", options, 0.8);
    assert!(!low.blocks());
    assert_eq!(low.verdict.unwrap().downgraded.len(), 1);
    let high = status_report::review(Some(&audit("blocked", 0.9, true)), "", options, 0.8);
    assert!(high.blocks());
    let broken = status_report::review(Some(&with(audit("blocked", 0.9, true), "validated", None)), "", options, 0.8);
    assert!(broken.blocks() && broken.verdict.is_none());
    let status = status_report::review(Some(&audit("blocked", 0.9, true)), "", STATUS, 0.8);
    assert!(!status.blocks() && status.verdict.is_none(), "a status report is not gated");
}
