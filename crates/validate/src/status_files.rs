//! Standalone status reports (`status.json`, `*.status.json`): the seed's dispatch status files,
//! checked by the same rules an advance is checked by (`switchyard_engine::status_report`), so a
//! file that validates here is a report a `status_report` or `audit` step accepts.
//!
//! A report holding `confidence`, `validated` or `findings` is an audit report: checked with the
//! audit fields, then weighed by the audit gate at `[audit] audit_min_confidence`. A finding that
//! blocks is an error (exit 1, as the step would block); a downgraded one is a warning.
//! Locations come from reading the file a second time with a YAML parser that keeps spans (JSON
//! is YAML): a pointer is located at its value, a missing field at the object that lacks it.

use std::path::Path;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_saphyr::Spanned;
use switchyard_compiler::Severity;
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;
use switchyard_engine::status_report::{self, CheckOptions, ReportKind, WeighedFinding};

use crate::report::{Checked, CheckedFile, FileKind, Violation};
use switchyard_catalog::read::read_bounded;

/// The stable codes of status-report violations (listed in `docs/validate.md`).
pub mod codes {
    /// Not readable as JSON (or not a regular UTF-8 file).
    pub const UNREADABLE: &str = "status-unreadable";
    /// A field the status rules refuse (rule: `required`, `not_null`, `type`, `enum`, ...).
    pub const FIELD: &str = "status-field";
    /// A validated `blocked` audit finding at or above the threshold.
    pub const AUDIT_BLOCKED: &str = "audit-blocked";
    /// A `blocked` audit finding below the threshold, or not validated.
    pub const AUDIT_DOWNGRADED: &str = "audit-downgraded";
}

/// Whether `path` names a status report: `status.json`, or a name ending in `.status.json`.
pub fn is_status_file(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name == "status.json" || name.ends_with(".status.json"))
}

/// Checks the status report at `path`, shown as `shown`.
pub(crate) fn check_file(path: &Path, shown: &str, strict: bool, min_confidence: f64) -> Checked {
    let file = CheckedFile::new(shown, FileKind::Status);
    let text = match read_bounded(path, MAX_WORKFLOW_SOURCE_BYTES) {
        Ok(bytes) => String::from_utf8(bytes).map_err(|_| format!("{shown} is not UTF-8 text")),
        Err(unread) => Err(unread.reason(Path::new(shown))),
    };
    let text = match text {
        Ok(text) => text,
        Err(reason) => return unreadable(file, shown, reason, None),
    };
    let report: Value = match serde_json::from_str(&text) {
        Ok(report) => report,
        Err(error) => {
            let at = Some((clamp(error.line()), clamp(error.column())));
            return unreadable(file, shown, format!("{shown} is not valid JSON: {error}"), at);
        }
    };
    let kind = if ["confidence", "validated", "findings"].iter().any(|field| report.get(field).is_some()) {
        ReportKind::Audit
    } else {
        ReportKind::Status
    };
    let review = status_report::review(Some(&report), "", CheckOptions { kind, strict }, min_confidence);
    let tree = serde_saphyr::from_str::<Spanned<Tree>>(&text).ok();
    let locate = |pointer: &str| tree.as_ref().map(|tree| locate(tree, pointer));
    let mut violations: Vec<Violation> = review
        .findings
        .iter()
        .map(|finding| {
            let at = locate(&finding.pointer);
            Violation {
                file: shown.to_owned(),
                kind: FileKind::Status,
                workflow: None,
                field: (!finding.field.is_empty()).then(|| finding.field.clone()),
                rule: finding.rule.as_str(),
                code: codes::FIELD,
                severity: match finding.severity {
                    status_report::Severity::Error => Severity::Error,
                    status_report::Severity::Warning => Severity::Warning,
                },
                line: at.map(|(line, _)| line),
                column: at.map(|(_, column)| column),
                message: finding.message.clone(),
                help: Some(finding.help.clone()),
                related: None,
            }
        })
        .collect();
    if let Some(verdict) = &review.verdict {
        let weighed = |finding: &WeighedFinding, blocks: bool| {
            let at = locate(&finding.pointer);
            let what = if finding.pointer.is_empty() { "the report".to_owned() } else { finding.pointer.clone() };
            let (code, severity, message, help) = if blocks {
                (
                    codes::AUDIT_BLOCKED,
                    Severity::Error,
                    format!(
                        "{what} is blocked with confidence {} (at least {min_confidence}) and validated: an audit step would block on it: {}",
                        finding.confidence, finding.summary
                    ),
                    "fix what it found and report the audit again, or lower its confidence if it is not sure"
                        .to_owned(),
                )
            } else {
                let why = if finding.validated { "below" } else { "not validated; the threshold is" };
                (
                    codes::AUDIT_DOWNGRADED,
                    Severity::Warning,
                    format!(
                        "{what} is blocked with confidence {} ({why} {min_confidence}), so it is downgraded to a warning: {}",
                        finding.confidence, finding.summary
                    ),
                    "a run appends downgraded findings to _handoff.md; validate it and raise its confidence if it must block".to_owned(),
                )
            };
            Violation {
                file: shown.to_owned(),
                kind: FileKind::Status,
                workflow: None,
                field: Some("status".to_owned()),
                rule: "audit_gate",
                code,
                severity,
                line: at.map(|(line, _)| line),
                column: at.map(|(_, column)| column),
                message,
                help: Some(help),
                related: None,
            }
        };
        violations.extend(verdict.blocking.iter().map(|finding| weighed(finding, true)));
        violations.extend(verdict.downgraded.iter().map(|finding| weighed(finding, false)));
    }
    violations.sort_by_key(|violation| (violation.line, violation.column));
    let mut file = file;
    file.valid = !violations.iter().any(Violation::is_error);
    Checked { file, violations }
}

fn unreadable(mut file: CheckedFile, shown: &str, reason: String, at: Option<(u32, u32)>) -> Checked {
    file.error = Some(reason.clone());
    file.valid = false;
    let violation = Violation {
        file: shown.to_owned(),
        kind: FileKind::Status,
        workflow: None,
        field: None,
        rule: "json",
        code: codes::UNREADABLE,
        severity: Severity::Error,
        line: at.map(|(line, _)| line),
        column: at.map(|(_, column)| column),
        message: reason,
        help: Some("write the report as one JSON object: {\"status\": \"pass\", \"summary\": \"…\"}".to_owned()),
        related: None,
    };
    Checked { file, violations: vec![violation] }
}

fn clamp(value: usize) -> u32 {
    u32::try_from(value.max(1)).unwrap_or(u32::MAX)
}

fn span_part(value: u64) -> u32 {
    u32::try_from(value.max(1)).unwrap_or(u32::MAX)
}

/// A JSON document as far as locating a pointer needs: objects and arrays with where each value
/// starts.
#[derive(Debug)]
enum Tree {
    Object(Vec<(String, Spanned<Tree>)>),
    Array(Vec<Spanned<Tree>>),
    Scalar,
}

/// Where `pointer` (`/findings/1/confidence`) is written in `tree`; a part that is missing is
/// located at the deepest value that exists on the way (the object lacking the field).
fn locate(tree: &Spanned<Tree>, pointer: &str) -> (u32, u32) {
    let mut at = tree;
    for part in pointer.split('/').skip(1) {
        let part = part.replace("~1", "/").replace("~0", "~");
        let next = match &at.value {
            Tree::Object(fields) => fields.iter().find(|(key, _)| *key == part).map(|(_, value)| value),
            Tree::Array(items) => part.parse::<usize>().ok().and_then(|index| items.get(index)),
            Tree::Scalar => None,
        };
        match next {
            Some(next) => at = next,
            None => break,
        }
    }
    (span_part(at.referenced.line()), span_part(at.referenced.column()))
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TreeVisitor;
        impl<'de> Visitor<'de> for TreeVisitor {
            type Value = Tree;
            fn expecting(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                formatter.write_str("a JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Tree, E> {
                Ok(Tree::Scalar)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Tree, E> {
                Ok(Tree::Scalar)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Tree, E> {
                Ok(Tree::Scalar)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Tree, E> {
                Ok(Tree::Scalar)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Tree, E> {
                Ok(Tree::Scalar)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Tree, E> {
                Ok(Tree::Scalar)
            }
            fn visit_none<E: de::Error>(self) -> Result<Tree, E> {
                Ok(Tree::Scalar)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Tree, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = access.next_element::<Spanned<Tree>>()? {
                    items.push(item);
                }
                Ok(Tree::Array(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Tree, A::Error> {
                let mut fields = Vec::new();
                while let Some(key) = access.next_key::<String>()? {
                    fields.push((key, access.next_value::<Spanned<Tree>>()?));
                }
                Ok(Tree::Object(fields))
            }
        }
        deserializer.deserialize_any(TreeVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn checked(text: &str, strict: bool) -> Checked {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("status.json");
        std::fs::write(&path, text).unwrap();
        check_file(&path, "status.json", strict, 0.8)
    }

    fn codes_and_lines(checked: &Checked) -> Vec<(&'static str, &'static str, Severity, Option<u32>)> {
        checked
            .violations
            .iter()
            .map(|violation| (violation.code, violation.rule, violation.severity, violation.line))
            .collect()
    }

    #[test]
    fn core_fields_pass_with_warnings_and_strict_requires_the_extended_ones() {
        let core_only = "{\n  \"status\": \"pass\",\n  \"summary\": \"done\"\n}\n";
        let relaxed = checked(core_only, false);
        assert!(relaxed.file.valid);
        assert_eq!(relaxed.violations.len(), 3, "{:?}", relaxed.violations);
        assert!(relaxed.violations.iter().all(|violation| violation.severity == Severity::Warning));
        let strict = checked(core_only, true);
        assert!(!strict.file.valid);
        assert!(
            strict
                .violations
                .iter()
                .all(|violation| violation.severity == Severity::Error && violation.rule == "required")
        );
    }

    #[test]
    fn wrong_types_bad_enums_and_null_are_located_at_their_values() {
        let text = "{\n  \"status\": \"done\",\n  \"summary\": null,\n  \"skills_used\": \"git\",\n  \"skills_missing\": [],\n  \"model_override_reason\": null\n}\n";
        let checked = checked(text, false);
        assert_eq!(
            codes_and_lines(&checked),
            [
                (codes::FIELD, "enum", Severity::Error, Some(2)),
                (codes::FIELD, "not_null", Severity::Error, Some(3)),
                (codes::FIELD, "type", Severity::Error, Some(4)),
            ]
        );
    }

    #[test]
    fn audit_findings_are_weighed_at_the_threshold() {
        let finding = |confidence: f64| {
            format!(
                "{{\"status\": \"blocked\", \"summary\": \"race\", \"confidence\": {confidence}, \"validated\": true, \"skills_used\": [], \"skills_missing\": [], \"model_override_reason\": null}}"
            )
        };
        for (confidence, code, severity) in [
            (0.8, codes::AUDIT_BLOCKED, Severity::Error),
            (0.81, codes::AUDIT_BLOCKED, Severity::Error),
            (0.79, codes::AUDIT_DOWNGRADED, Severity::Warning),
        ] {
            let report = format!(
                "{{\n\"status\": \"pass\", \"summary\": \"audit\", \"confidence\": 1.0, \"validated\": true,\n\"skills_used\": [], \"skills_missing\": [], \"model_override_reason\": null,\n\"findings\": [\n{}\n]}}",
                finding(confidence)
            );
            let checked = checked(&report, false);
            assert_eq!(codes_and_lines(&checked), [(code, "audit_gate", severity, Some(5))], "confidence {confidence}");
        }
    }

    #[test]
    fn a_missing_confidence_is_an_error_not_a_downgrade_and_broken_json_is_located() {
        let missing = checked("{\"status\": \"blocked\", \"summary\": \"x\", \"validated\": true}", false);
        assert!(
            missing
                .violations
                .iter()
                .any(|violation| violation.field.as_deref() == Some("confidence") && violation.rule == "required")
        );
        assert!(!missing.violations.iter().any(|violation| violation.code == codes::AUDIT_DOWNGRADED));
        let broken = checked("{\n  \"status\": \"pass\",\n  \"summary\": \n}", false);
        assert_eq!(codes_and_lines(&broken), [(codes::UNREADABLE, "json", Severity::Error, Some(4))]);
    }

    #[test]
    fn status_files_are_named_status_json() {
        assert!(is_status_file(Path::new("runs/a/status.json")));
        assert!(is_status_file(Path::new("impl.status.json")));
        assert!(!is_status_file(Path::new("statuses.json")));
        assert!(!is_status_file(Path::new("workflow.json")));
    }
}
