//! Judging evidence: whether what the runtime observed of a step's work meets each check the step
//! declares. The rule for every kind lives here, so a replay of the same observations decides the
//! same, whichever door the report came through.

use std::fmt::Write as _;

use serde_json::json;
use switchyard_core::evidence::{CommandRun, EvidenceCheck, EvidenceResult, Observation, TestReport};
use switchyard_core::state::ValidationIssue;
use switchyard_core::workflow::Step;

use crate::{Advance, Error};

/// The verdict on each check, and an `EVIDENCE` issue for each that failed.
pub(crate) fn judge(
    checks: &[EvidenceCheck],
    observed: Vec<Observation>,
) -> (Vec<EvidenceResult>, Vec<ValidationIssue>) {
    let mut results = Vec::with_capacity(checks.len());
    let mut issues = Vec::new();
    for (index, (check, observation)) in checks.iter().zip(observed).enumerate() {
        let failure = failure(check, &observation);
        if let Some(observed) = &failure {
            issues.push(ValidationIssue {
                code: "EVIDENCE".to_owned(),
                path: format!("evidence/{index}"),
                message: format!(
                    "evidence {} ({}): switchyard requires that {}, but {observed}",
                    index + 1,
                    check.kind(),
                    check.requirement()
                ),
            });
        }
        let check = u32::try_from(index).unwrap_or(u32::MAX);
        results.push(EvidenceResult { check, passed: failure.is_none(), observation });
    }
    (results, issues)
}

/// The report of a step switchyard runs itself, from the one observation of its command the
/// advance brings: the verdict (it succeeded or not) and, as the advance's artifacts, its exit
/// code, whether it was killed, its duration and the end of its output, which its edges read.
/// An advance carrying anything an agent would send is refused.
pub(crate) fn ran(step: &Step, advance: &mut Advance) -> Result<EvidenceResult, Error> {
    if advance.notes.is_some() || advance.artifacts.is_some() || advance.context.is_some() || advance.choice.is_some() {
        return Err(Error::RunStepReported { step: step.id.to_string() });
    }
    let observation = match std::mem::take(&mut advance.evidence).as_slice() {
        [observation @ (Observation::Command(_) | Observation::Unavailable { .. })] => observation.clone(),
        other => {
            return Err(Error::EvidenceNotGathered { step: step.id.to_string(), checks: 1, observed: other.len() });
        }
    };
    let (passed, report) = match &observation {
        Observation::Command(run) => (
            !run.timed_out && run.exit_code == Some(0),
            json!({
                "exit_code": run.exit_code,
                "timed_out": run.timed_out,
                "duration_ms": run.duration_ms,
                "output_tail": run.output_tail,
            }),
        ),
        Observation::Unavailable { reason } => (false, json!({ "exit_code": null, "not_run": reason })),
        _ => unreachable!("matched above"),
    };
    advance.artifacts = Some(report);
    Ok(EvidenceResult { check: 0, passed, observation })
}

/// What was observed instead of what the check requires, and what to do; `None` when it passed.
fn failure(check: &EvidenceCheck, observation: &Observation) -> Option<String> {
    match (check, observation) {
        (_, Observation::Unavailable { reason }) => Some(format!("the check could not be carried out: {reason}")),
        (EvidenceCheck::Files { .. }, Observation::Files { unmatched }) => (!unmatched.is_empty()).then(|| {
            format!(
                "no regular file inside the workspace matches {}: create what the step asks for, then report again",
                listed(unmatched)
            )
        }),
        (EvidenceCheck::Changed { paths }, Observation::Changed { count, .. }) => (*count == 0).then(|| {
            let place = if paths.is_empty() { "in the workspace".to_owned() } else { format!("in {}", listed(paths)) };
            format!(
                "nothing changed {place} since the step was handed out: make the change the step asks for (committed or not), then report again"
            )
        }),
        (EvidenceCheck::Command(command), Observation::Command(run)) => command_failure(command.expect_exit, run),
        (EvidenceCheck::TestReport { min_tests, .. }, Observation::TestReport(report)) => {
            report_failure(*min_tests, report)
        }
        (EvidenceCheck::ArtifactPaths { field, .. }, Observation::ArtifactPaths { listed: count, missing, outside, unchanged }) => {
            artifact_failure(field, *count, missing, outside, unchanged)
        }
        (check, observation) => Some(format!(
            "switchyard observed {} for a `{}` check, which is a defect of switchyard: report it",
            observation_kind(observation),
            check.kind()
        )),
    }
}

fn command_failure(expect_exit: i32, run: &CommandRun) -> Option<String> {
    if !run.timed_out && run.exit_code == Some(expect_exit) {
        return None;
    }
    let seconds = run.duration_ms as f64 / 1000.0;
    let mut said = match (run.timed_out, run.exit_code, run.signal) {
        (true, _, _) => format!("it was killed at its time limit, after {seconds:.1} s"),
        (false, Some(code), _) => format!("it exited with code {code} after {seconds:.1} s"),
        (false, None, Some(signal)) => format!("it was ended by signal {signal} after {seconds:.1} s"),
        (false, None, None) => format!("it ended without an exit code after {seconds:.1} s"),
    };
    let tail = run.output_tail.trim_end();
    if tail.is_empty() {
        said.push_str(" and wrote nothing");
    } else {
        let _ = write!(said, "; the end of its output:\n```\n{tail}\n```\n");
    }
    said.push_str(if run.timed_out {
        "; make it finish sooner (or ask for a longer `timeout` in the workflow), then report again"
    } else {
        "; fix what it reports, then report again"
    });
    Some(said)
}

fn report_failure(min_tests: u64, report: &TestReport) -> Option<String> {
    if let Some(problem) = &report.problem {
        return Some(format!(
            "{problem}: run the tests through the workflow's command, never write the report by hand"
        ));
    }
    let TestReport { tests, failures, errors, .. } = *report;
    if failures > 0 || errors > 0 {
        return Some(format!(
            "the report records {failures} failure(s) and {errors} error(s) among {tests} test(s): make the tests pass, then report again"
        ));
    }
    (tests < min_tests).then(|| {
        format!("the report records {tests} test(s), fewer than {min_tests}: write the tests the step asks for, then report again")
    })
}

fn artifact_failure(
    field: &str,
    count: u64,
    missing: &[String],
    outside: &[String],
    unchanged: &[String],
) -> Option<String> {
    let mut problems = Vec::new();
    if count == 0 {
        problems.push(format!("the artifacts' `{field}` lists no path: list the files the step changed"));
    }
    if !outside.is_empty() {
        problems.push(format!("{} lead outside the workspace", listed(outside)));
    }
    if !missing.is_empty() {
        problems.push(format!("{} do not exist", listed(missing)));
    }
    if !unchanged.is_empty() {
        problems.push(format!("{} did not change since the step was handed out", listed(unchanged)));
    }
    (!problems.is_empty())
        .then(|| format!("{}; list only paths inside the workspace that the step's work changed", problems.join("; ")))
}

fn listed(paths: &[String]) -> String {
    paths.iter().map(|path| format!("`{path}`")).collect::<Vec<_>>().join(", ")
}

fn observation_kind(observation: &Observation) -> &'static str {
    match observation {
        Observation::Files { .. } => "files",
        Observation::Changed { .. } => "changes",
        Observation::Command(_) => "a command's run",
        Observation::TestReport(_) => "a test report",
        Observation::ArtifactPaths { .. } => "artifact paths",
        Observation::Unavailable { .. } => "nothing",
    }
}
