//! Status reports (seed 003's `status.json`) and audit reports: a pure, graduated checker and
//! the audit gate.
//!
//! [`check`] reads a report as JSON and returns every finding at once, each with its JSON pointer,
//! field, rule, severity and a message saying how to fix it. The core fields (`status`,
//! `summary`) are always required; the extended fields (`skills_used`, `skills_missing`,
//! `model_override_reason`) are warnings when missing unless the check is strict. Audit reports
//! add `confidence` and `validated`, both required (a finding without a confidence cannot be
//! weighed, so it is an error, never a downgrade), and optionally `findings`, a list of reports
//! of the same shape.
//!
//! [`gate`] weighs an audit report that checked clean: a `blocked` report or finding blocks
//! only when it is validated and at least as confident as the threshold; otherwise it is
//! downgraded. The engine uses both on advances of steps that declare a status report or an
//! audit; `switchyard validate` uses them on standalone status files.

use serde_json::Value;

/// What a report is checked as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportKind {
    /// The seed's `status.json`.
    Status,
    /// The audit-extended report: `confidence` and `validated` too, optionally `findings`.
    Audit,
}

/// How a report is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckOptions {
    pub kind: ReportKind,
    /// A missing extended field is an error rather than a warning.
    pub strict: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Warning,
    Error,
}

/// The rule a finding broke; its stable name is [`Rule::as_str`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// The field is missing.
    Required,
    /// The field is `null` where a value is needed (told apart from missing).
    NotNull,
    /// The value has the wrong JSON type.
    Type,
    /// The value is not one of the allowed ones.
    Enum,
    /// The string is empty or blank.
    NonEmpty,
    /// The number is outside its range.
    Range,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::NotNull => "not_null",
            Self::Type => "type",
            Self::Enum => "enum",
            Self::NonEmpty => "non_empty",
            Self::Range => "range",
        }
    }
}

/// One thing wrong with a report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Finding {
    /// JSON pointer of the value (or of where the missing field belongs), under the base the
    /// check was given.
    pub pointer: String,
    /// The field's name (`summary`), its pointer within the report for a field of one of its
    /// `findings` (`/findings/1/confidence`), or `""` for the report itself.
    pub field: String,
    pub rule: Rule,
    pub severity: Severity,
    /// What is wrong, naming the field.
    pub message: String,
    /// What fixes it.
    pub help: String,
}

impl Finding {
    /// What is wrong and how to fix it, in one sentence: what an advance's issue says.
    pub fn sentence(&self) -> String {
        format!("{}: {}", self.message, self.help)
    }
}

/// The core status values.
pub const STATUS_VALUES: [&str; 2] = ["pass", "blocked"];

/// Checks `report` (`None`: nothing was sent) against the report contract. `base` is the JSON
/// pointer of the report in what was sent (`/artifacts` for an advance, `""` for a file), so
/// every finding points into the caller's document.
pub fn check(report: Option<&Value>, base: &str, options: CheckOptions) -> Vec<Finding> {
    let mut findings = Vec::new();
    let what = match options.kind {
        ReportKind::Status => "a status report",
        ReportKind::Audit => "an audit report",
    };
    match report {
        None => findings.push(Finding {
            pointer: base.to_owned(),
            field: String::new(),
            rule: Rule::Required,
            severity: Severity::Error,
            message: format!("the step's artifacts must be {what}, but none were sent"),
            help: "send an object with `status` (pass or blocked) and a non-empty `summary`".to_owned(),
        }),
        Some(value) => check_object(value, base, "", options, &mut findings),
    }
    findings
}

/// What each field holds: the fix of a missing field (`add it: …`), a null, a wrong type or a
/// value out of place (`send …`).
const SEND_STATUS: &str = "`pass` or `blocked`";
const SEND_SUMMARY: &str = "a one-sentence summary of what was done or what blocks";
const SEND_SKILLS: &str = "a list of skill names as strings, `[]` when there is none";
const SEND_REASON: &str = "the reason as a string, or null when the model was not overridden";
const SEND_CONFIDENCE: &str = "how sure the finding is, a number from 0.0 to 1.0";
const SEND_VALIDATED: &str = "true when the finding was checked, false otherwise";
const SEND_FINDINGS: &str = "a list of finding reports, or leave `findings` out";

/// Checks the report (or finding) `value` at `pointer`; `within` is its own pointer within the
/// top report (`""` for the report, `/findings/1` for one of its findings), which names its fields.
fn check_object(value: &Value, pointer: &str, within: &str, options: CheckOptions, findings: &mut Vec<Finding>) {
    let Some(object) = value.as_object() else {
        findings.push(Finding {
            pointer: pointer.to_owned(),
            field: within.to_owned(),
            rule: Rule::Type,
            severity: Severity::Error,
            message: format!("a report must be a JSON object, but {} is {}", shown(within), json_kind(value)),
            help: "send an object with `status` and `summary`".to_owned(),
        });
        return;
    };
    let field = |name: &str, send: &'static str| Field {
        name: if within.is_empty() { name.to_owned() } else { format!("{within}/{name}") },
        pointer: format!("{pointer}/{name}"),
        value: object.get(name),
        send,
    };
    field("status", SEND_STATUS).check(Severity::Error, findings, |value| match value.as_str() {
        Some(status) if STATUS_VALUES.contains(&status) => Ok(()),
        Some(status) => Err((Rule::Enum, format!("is `{status}`, not one of pass, blocked"))),
        None => Err((Rule::Type, format!("is {}, not a string", json_kind(value)))),
    });
    field("summary", SEND_SUMMARY).check(Severity::Error, findings, |value| match value.as_str() {
        Some(summary) if !summary.trim().is_empty() => Ok(()),
        Some(_) => Err((Rule::NonEmpty, "is empty".to_owned())),
        None => Err((Rule::Type, format!("is {}, not a string", json_kind(value)))),
    });
    let extended = if options.strict { Severity::Error } else { Severity::Warning };
    for name in ["skills_used", "skills_missing"] {
        field(name, SEND_SKILLS).check(extended, findings, string_list);
    }
    let reason = field("model_override_reason", SEND_REASON);
    match reason.value {
        None => reason.missing(extended, findings),
        Some(Value::Null | Value::String(_)) => {}
        Some(other) => findings.push(reason.finding(
            Rule::Type,
            Severity::Error,
            &format!("is {}, not a string or null", json_kind(other)),
        )),
    }
    if options.kind == ReportKind::Audit {
        field("confidence", SEND_CONFIDENCE).check(Severity::Error, findings, |value| match value.as_f64() {
            Some(confidence) if (0.0..=1.0).contains(&confidence) => Ok(()),
            Some(confidence) => Err((Rule::Range, format!("is {confidence}, outside 0.0 to 1.0"))),
            None => Err((Rule::Type, format!("is {}, not a number", json_kind(value)))),
        });
        field("validated", SEND_VALIDATED).check(Severity::Error, findings, |value| match value {
            Value::Bool(_) => Ok(()),
            other => Err((Rule::Type, format!("is {}, not a boolean", json_kind(other)))),
        });
        let list = field("findings", SEND_FINDINGS);
        if within.is_empty()
            && let Some(value) = list.value
        {
            match value.as_array() {
                Some(items) => {
                    for (index, item) in items.iter().enumerate() {
                        let within = format!("/findings/{index}");
                        check_object(item, &format!("{}/{index}", list.pointer), &within, options, findings);
                    }
                }
                None if value.is_null() => findings.push(list.finding(Rule::NotNull, Severity::Error, "is null")),
                None => findings.push(list.finding(
                    Rule::Type,
                    Severity::Error,
                    &format!("is {}, not a list", json_kind(value)),
                )),
            }
        }
    }
}

/// How a message names the report or finding at `within`.
fn shown(within: &str) -> String {
    if within.is_empty() { "the report".to_owned() } else { format!("`{within}`") }
}

fn string_list(value: &Value) -> Result<(), (Rule, String)> {
    match value.as_array() {
        Some(items) => match items.iter().position(|item| !item.is_string()) {
            None => Ok(()),
            Some(index) => {
                Err((Rule::Type, format!("has {} at index {index}, not a string", json_kind(&items[index]))))
            }
        },
        None => Err((Rule::Type, format!("is {}, not a list of strings", json_kind(value)))),
    }
}

struct Field<'a> {
    name: String,
    pointer: String,
    value: Option<&'a Value>,
    /// What the field holds, for the fix.
    send: &'static str,
}

impl Field<'_> {
    fn finding(&self, rule: Rule, severity: Severity, what: &str) -> Finding {
        Finding {
            pointer: self.pointer.clone(),
            field: self.name.clone(),
            rule,
            severity,
            message: format!("`{}` {what}", self.name),
            help: format!("send {}", self.send),
        }
    }

    fn missing(&self, severity: Severity, findings: &mut Vec<Finding>) {
        let mut finding = self.finding(Rule::Required, severity, "is missing");
        finding.help = match severity {
            Severity::Error => format!("add it: {}", self.send),
            Severity::Warning => format!("add it (strict status reports require it): {}", self.send),
        };
        findings.push(finding);
    }

    /// Checks a field that must be present and not null; a null is an error whatever
    /// `missing_severity` says, since something was sent but not a value.
    fn check(
        &self,
        missing_severity: Severity,
        findings: &mut Vec<Finding>,
        rule: impl FnOnce(&Value) -> Result<(), (Rule, String)>,
    ) {
        match self.value {
            None => self.missing(missing_severity, findings),
            Some(Value::Null) => findings.push(self.finding(Rule::NotNull, Severity::Error, "is null")),
            Some(value) => {
                if let Err((rule, what)) = rule(value) {
                    findings.push(self.finding(rule, Severity::Error, &what));
                }
            }
        }
    }
}

/// A `blocked` audit report or finding, as the gate weighed it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct WeighedFinding {
    pub pointer: String,
    pub summary: String,
    pub confidence: f64,
    pub validated: bool,
}

/// What the gate decided for an audit report.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Verdict {
    /// Validated and at least as confident as the threshold: these block the advance.
    pub blocking: Vec<WeighedFinding>,
    /// Blocked but below the threshold or not validated: these are warnings.
    pub downgraded: Vec<WeighedFinding>,
}

/// Weighs the `blocked` entries of an audit report (the report itself, then each of its
/// `findings`) against `min_confidence`. Entries the checker refuses (no confidence, no
/// `validated`) are left out: [`check`] already reports them as errors.
pub fn gate(report: &Value, base: &str, min_confidence: f64) -> Verdict {
    let mut verdict = Verdict::default();
    let findings = report.get("findings").and_then(Value::as_array).into_iter().flatten().enumerate();
    let entries = std::iter::once((base.to_owned(), report))
        .chain(findings.map(|(index, finding)| (format!("{base}/findings/{index}"), finding)));
    for (pointer, entry) in entries {
        if entry.get("status").and_then(Value::as_str) != Some("blocked") {
            continue;
        }
        let (Some(confidence), Some(validated)) =
            (entry.get("confidence").and_then(Value::as_f64), entry.get("validated").and_then(Value::as_bool))
        else {
            continue;
        };
        let summary = entry.get("summary").and_then(Value::as_str).unwrap_or_default().to_owned();
        let weighed = WeighedFinding { pointer, summary, confidence, validated };
        if validated && confidence >= min_confidence {
            verdict.blocking.push(weighed);
        } else {
            verdict.downgraded.push(weighed);
        }
    }
    verdict
}

/// A report checked and, when it is a clean audit report, weighed.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Review {
    pub findings: Vec<Finding>,
    /// The gate's verdict: only for an audit report without errors (a report the checker
    /// refuses is not weighed).
    pub verdict: Option<Verdict>,
}

impl Review {
    /// Whether anything blocks: an error finding, or a blocking audit finding.
    pub fn blocks(&self) -> bool {
        self.findings.iter().any(|finding| finding.severity == Severity::Error)
            || self.verdict.as_ref().is_some_and(|verdict| !verdict.blocking.is_empty())
    }
}

/// [`check`], then for a clean audit report [`gate`] at `min_confidence`: what the engine does
/// on an advance, and what `switchyard validate` does with a standalone status file.
pub fn review(report: Option<&Value>, base: &str, options: CheckOptions, min_confidence: f64) -> Review {
    let findings = check(report, base, options);
    let clean = findings.iter().all(|finding| finding.severity != Severity::Error);
    let verdict = match (options.kind, report) {
        (ReportKind::Audit, Some(report)) if clean => Some(gate(report, base, min_confidence)),
        _ => None,
    };
    Review { findings, verdict }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
