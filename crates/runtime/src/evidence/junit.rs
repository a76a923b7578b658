//! JUnit XML reports, the format most test runners write (pytest's `--junitxml`, cargo-nextest,
//! Maven Surefire, Jest's reporter): how many tests ran and how many failed, read from a report
//! that the check's command wrote while switchyard watched it run.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::SystemTime;

use switchyard_core::evidence::{Observation, TestReport};

use super::files::{Located, locate};

/// The largest report read.
pub(super) const MAX_REPORT_BYTES: u64 = 32 << 20;

/// Slack for file systems whose times are coarser than the clock (a second on some).
const CLOCK_SLACK: std::time::Duration = std::time::Duration::from_secs(1);

/// A file as it was before the checks' commands ran, to tell whether one of them wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fingerprint {
    modified: Option<SystemTime>,
    length: u64,
    inode: u64,
}

/// The report at `path` as it is now, `None` where there is none.
pub(super) async fn fingerprint(workspace: &Path, path: &str) -> Option<Fingerprint> {
    let file = match locate(workspace, path).await {
        Located::Inside(relative) => workspace.join(relative),
        Located::Missing | Located::Outside => return None,
    };
    tokio::task::spawn_blocking(move || {
        let metadata = std::fs::metadata(file).ok()?;
        Some(Fingerprint { modified: metadata.modified().ok(), length: metadata.len(), inode: metadata.ino() })
    })
    .await
    .ok()
    .flatten()
}

/// What the report at `path` says, if the command that ran in `window` wrote it: it is not as it
/// was (`before`) when the checks began, and its time lies within the command's run.
pub(super) async fn read(
    workspace: &Path,
    path: &str,
    before: Option<&Fingerprint>,
    window: Option<(SystemTime, SystemTime)>,
) -> Observation {
    let problem = |problem: String| {
        Observation::TestReport(TestReport { tests: 0, failures: 0, errors: 0, skipped: 0, problem: Some(problem) })
    };
    let Some((started, ended)) = window else {
        return problem(format!("no command ran before `{path}` was read, so nothing shows who wrote it"));
    };
    let relative = match locate(workspace, path).await {
        Located::Inside(relative) => relative,
        Located::Missing => return problem(format!("the command did not write `{path}`")),
        Located::Outside => return problem(format!("`{path}` leads outside the workspace")),
    };
    if before.is_some() && fingerprint(workspace, path).await.as_ref() == before {
        return problem(format!(
            "`{path}` is as it was before the command ran, so the command did not write it (a report written by hand, or left from an earlier run)"
        ));
    }
    let file = workspace.join(&relative);
    let read = tokio::task::spawn_blocking(move || -> Result<(SystemTime, String), String> {
        let metadata = std::fs::metadata(&file).map_err(|error| format!("it cannot be read: {error}"))?;
        if !metadata.is_file() {
            return Err("it is not a file".to_owned());
        }
        if metadata.len() > MAX_REPORT_BYTES {
            return Err(format!("it is {} bytes, over the {MAX_REPORT_BYTES} read", metadata.len()));
        }
        let modified = metadata.modified().map_err(|error| format!("its time cannot be read: {error}"))?;
        let text = std::fs::read_to_string(&file).map_err(|error| format!("it cannot be read: {error}"))?;
        Ok((modified, text))
    })
    .await;
    let (modified, text) = match read {
        Ok(Ok(read)) => read,
        Ok(Err(reason)) => return problem(format!("`{path}` is not usable: {reason}")),
        Err(error) => return problem(format!("`{path}` could not be read: {error}")),
    };
    if modified + CLOCK_SLACK < started || modified > ended + CLOCK_SLACK {
        return problem(format!(
            "`{path}` was not written while the command ran (it is older, or dated after it ended), so the command did not write it"
        ));
    }
    match counts(&text) {
        Ok(report) => Observation::TestReport(report),
        Err(reason) => problem(format!("`{path}` is not a JUnit XML report: {reason}")),
    }
}

/// The counts of a JUnit report: each `<testcase>` is a test; one holding `<failure>` failed, one
/// holding `<error>` errored, one holding `<skipped>` was skipped. Counted from the cases rather
/// than the suites' attributes, which runners fill in differently (or not at all).
fn counts(text: &str) -> Result<TestReport, String> {
    let options = roxmltree::ParsingOptions { allow_dtd: false, ..roxmltree::ParsingOptions::default() };
    let document = roxmltree::Document::parse_with_options(text, options).map_err(|error| error.to_string())?;
    let root = document.root_element();
    if !matches!(root.tag_name().name(), "testsuites" | "testsuite") {
        return Err(format!("its root element is <{}>, not <testsuites> or <testsuite>", root.tag_name().name()));
    }
    let mut report = TestReport { tests: 0, failures: 0, errors: 0, skipped: 0, problem: None };
    for case in root.descendants().filter(|node| node.has_tag_name("testcase")) {
        report.tests += 1;
        let holds = |name: &str| case.children().any(|child| child.has_tag_name(name));
        if holds("failure") {
            report.failures += 1;
        } else if holds("error") {
            report.errors += 1;
        } else if holds("skipped") {
            report.skipped += 1;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_are_counted_by_what_they_hold() {
        let report = counts(
            r#"<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
  <testcase classname="t" name="a"/>
  <testcase classname="t" name="b"><failure message="boom">trace</failure></testcase>
  <testcase classname="t" name="c"><error message="setup"/></testcase>
  <testcase classname="t" name="d"><skipped/></testcase>
</testsuite></testsuites>"#,
        )
        .unwrap();
        assert_eq!((report.tests, report.failures, report.errors, report.skipped), (4, 1, 1, 1));
    }

    #[test]
    fn what_is_not_a_report_says_why() {
        assert!(counts("<html/>").unwrap_err().contains("<html>"));
        assert!(counts("not xml").is_err());
        let entities = r#"<!DOCTYPE t [<!ENTITY a "aaaa">]><testsuite>&a;</testsuite>"#;
        assert!(counts(entities).is_err(), "no DTD, so no entity expansion");
    }
}
