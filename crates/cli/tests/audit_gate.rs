//! Status reports and the audit gate through the binary: `start --strict-status` blocks a
//! report with only the core fields (exit 1), a downgraded audit finding is in the `continue`
//! answer and in `log`, and `inspect` names both kinds of step.

mod support;

use support::{Sandbox, continue_token, string};

const AUDITED: &str = "id: audited\nsteps:\n  - {id: audit, prompt: Audit., notes: optional, audit: true, next: work}\n  - {id: work, prompt: Work., notes: optional, status_report: true, next: done}\n  - {id: done, prompt: Done.}\n";

const LOW_CONFIDENCE: &str = r#"{"status": "blocked", "summary": "Maybe a race", "confidence": 0.65, "validated": true, "skills_used": [], "skills_missing": [], "model_override_reason": null}"#;

#[test]
fn a_downgraded_finding_is_answered_and_logged() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("audited.yaml", AUDITED);
    let start = sandbox.run(&["start", "audited", "--goal", "Audit it"]).ok();
    let advanced = sandbox.run(&["continue", &continue_token(&start), "--artifacts", LOW_CONFIDENCE]).ok();
    assert_eq!(advanced["status"], "active", "{advanced}");
    let downgraded = &advanced["report_warnings"]["downgraded"][0];
    assert_eq!((downgraded["confidence"].as_f64(), downgraded["min_confidence"].as_f64()), (Some(0.65), Some(0.8)));
    let log = sandbox.run_text(&["log", &string(&start["run"])]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    assert!(log.stdout.contains("report_warned"), "{}", log.stdout);
    assert!(log.stdout.contains("downgraded /artifacts (confidence 0.65, below 0.8)"), "{}", log.stdout);
}

#[test]
fn strict_status_blocks_a_report_with_only_core_fields() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("audited.yaml", AUDITED);
    let core_only = r#"{"status": "pass", "summary": "done"}"#;
    for (strict, code) in [(false, 0), (true, 1)] {
        let mut arguments = vec!["start", "audited", "--goal", "Audit it"];
        if strict {
            arguments.push("--strict-status");
        }
        let start = sandbox.run(&arguments).ok();
        let audited = sandbox
            .run(&["continue", &continue_token(&start), "--artifacts", &LOW_CONFIDENCE.replace("blocked", "pass")])
            .ok();
        let answer = sandbox.run(&["continue", &continue_token(&audited), "--artifacts", core_only]).expect(code);
        if strict {
            assert_eq!(answer["validation"]["issues"].as_array().unwrap().len(), 3, "{answer}");
        } else {
            assert_eq!(answer["report_warnings"]["warnings"].as_array().unwrap().len(), 3, "{answer}");
        }
    }
}

#[test]
fn inspect_shows_status_reports_and_audits() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("audited.yaml", AUDITED);
    let inspect = sandbox.run_text(&["inspect", "audited"]);
    assert_eq!(inspect.code, 0, "{}", inspect.stderr);
    assert!(inspect.stdout.contains("audit report: a validated blocked finding"), "{}", inspect.stdout);
    assert!(inspect.stdout.contains("status report (graduated)"), "{}", inspect.stdout);
}

#[test]
fn a_refused_report_with_warnings_is_shown_as_refused_only() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("audited.yaml", AUDITED);
    let start = sandbox.run(&["start", "audited", "--goal", "Audit it"]).ok();
    let audited = sandbox
        .run(&["continue", &continue_token(&start), "--artifacts", &LOW_CONFIDENCE.replace("blocked", "pass")])
        .ok();
    // No summary (an error) and no extended fields (warnings): one refused report.
    let refused = sandbox.run_text(&["continue", &continue_token(&audited), "--artifacts", r#"{"status": "pass"}"#]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(refused.stdout.contains("The last report was refused:"), "{}", refused.stdout);
    assert!(
        refused.stdout.contains("`summary` is missing: add it: a one-sentence summary of what was done or what blocks"),
        "{}",
        refused.stdout
    );
    assert!(refused.stdout.contains("The same report also has warnings:"), "{}", refused.stdout);
    assert!(!refused.stdout.contains("accepted"), "{}", refused.stdout);
}
