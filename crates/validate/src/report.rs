//! The one report of `switchyard validate`: every file it checked and every violation, whatever
//! kind of file (workflow, prompt, mirror, status report), in one JSON shape that is a superset
//! of the SPW seed's `{ok, summary, violations[{file, field, rule, message}], stats}`.
//!
//! The shape is a stable interface (golden-tested in `crates/cli/tests/validate_reports.rs`):
//! keys are only ever added. `line`, `column`, `field` and `help` are always present, `null`
//! where they do not apply (a mirror's missing file has no line).

use std::fmt;

use serde::Serialize;
use switchyard_compiler::{Diagnostic, Format, Severity};

/// What kind of file a violation is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FileKind {
    /// A workflow file or bundle, compiled as discovery compiles it.
    Workflow,
    /// A Markdown prompt file whose frontmatter is checked against a rule set.
    Prompt,
    /// A file of a `[[validate.mirrors]]` pair, or a vendored copy of a built-in workflow.
    Mirror,
    /// A standalone status report (`status.json`), checked by the engine's status rules.
    Status,
}

impl FileKind {
    /// The plural for summaries ("3 workflow(s)").
    fn counted(self) -> &'static str {
        match self {
            Self::Workflow => "workflow(s)",
            Self::Prompt => "prompt file(s)",
            Self::Mirror => "mirrored file(s)",
            Self::Status => "status report(s)",
        }
    }
}

/// One broken rule, located as precisely as the file allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The file to fix, as it was named (or relative to the project root when validating the
    /// project).
    pub file: String,
    pub kind: FileKind,
    /// The workflow of a bundle that holds several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// The frontmatter field (or report field) the rule is about.
    pub field: Option<String>,
    /// The seed's rule name: `required`, `type`, `enum`, `pattern`, `unknown-field`,
    /// `frontmatter`, `yaml`, `mirror`, or a workflow diagnostic's code.
    pub rule: &'static str,
    /// The stable code a program reacts to (listed in `docs/validate.md`).
    pub code: &'static str,
    pub severity: Severity,
    /// 1-based; `null` for problems of a whole file (a missing mirror copy).
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    /// The other file of a mirror pair.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related: Option<String>,
}

impl Violation {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// A workflow diagnostic as a violation; `workflow` names the bundle's workflow it belongs to.
    pub fn from_diagnostic(diagnostic: &Diagnostic, workflow: Option<&str>) -> Self {
        Self {
            file: diagnostic.file.clone(),
            kind: FileKind::Workflow,
            workflow: workflow.map(str::to_owned),
            field: None,
            rule: diagnostic.code,
            code: diagnostic.code,
            severity: diagnostic.severity,
            line: Some(diagnostic.line),
            column: Some(diagnostic.column),
            message: diagnostic.message.clone(),
            help: diagnostic.help.clone(),
            related: None,
        }
    }
}

/// `file:line:column: severity[code]: message` and a `help:` line, as workflow diagnostics print.
impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}:{}", self.column.unwrap_or(1))?;
        }
        write!(f, ": {}[{}]: {}", self.severity.name(), self.code, self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// One file (or one workflow of a bundle) that was checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckedFile {
    pub path: String,
    pub kind: FileKind,
    /// The workflow's name, for each workflow of a bundle (a package may hold several).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// A workflow's source format; `null` for other kinds.
    pub format: Option<Format>,
    /// No error among its violations (warnings allowed) and read.
    pub valid: bool,
    /// A valid workflow's hash; `null` otherwise.
    pub hash: Option<String>,
    /// The rule set a prompt file was checked against (a preset name, or the glob of a
    /// configured set without one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// Why the source could not be read at all (a refused bundle, an unreadable file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How many of the report's violations are this file's (they follow each other).
    pub violations: usize,
}

impl CheckedFile {
    /// A file of `kind` at `path`, before it is checked.
    pub fn new(path: impl Into<String>, kind: FileKind) -> Self {
        Self {
            path: path.into(),
            kind,
            workflow: None,
            format: None,
            valid: true,
            hash: None,
            rules: None,
            error: None,
            violations: 0,
        }
    }
}

/// A file or folder that is no workflow in any supported format, skipped by `validate`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotAWorkflow {
    pub path: String,
    pub reason: String,
}

/// The seed's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub files_checked: usize,
    pub files_passed: usize,
    pub files_failed: usize,
    pub total_violations: usize,
}

/// What `switchyard validate` found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// No error (warnings allowed): the exit code is 0.
    pub ok: bool,
    /// One line for people: what was checked and what was found.
    pub summary: String,
    pub violations: Vec<Violation>,
    pub stats: Stats,
    pub files: Vec<CheckedFile>,
    /// Sources that are no workflow (configs, agent definitions, manifests): neither errors nor
    /// counted among the files checked.
    pub not_workflows: Vec<NotAWorkflow>,
    /// Violations that are errors.
    pub errors: usize,
    /// Violations that are warnings.
    pub warnings: usize,
}

impl Report {
    /// Flattens the checked files' violations in file order, counts, and writes the summary.
    pub fn new(checked: Vec<Checked>, not_workflows: Vec<NotAWorkflow>) -> Self {
        let mut files = Vec::with_capacity(checked.len());
        let mut violations = Vec::new();
        for Checked { mut file, violations: found } in checked {
            file.valid = file.valid && file.error.is_none() && !found.iter().any(Violation::is_error);
            file.violations = found.len();
            files.push(file);
            violations.extend(found);
        }
        let errors = violations.iter().filter(|violation| violation.is_error()).count();
        let warnings = violations.len() - errors;
        let files_failed = files.iter().filter(|file| !file.valid).count();
        let stats = Stats {
            files_checked: files.len(),
            files_passed: files.len() - files_failed,
            files_failed,
            total_violations: violations.len(),
        };
        let summary = summary(&files, errors, warnings, not_workflows.len());
        Self { ok: errors == 0, summary, violations, stats, files, not_workflows, errors, warnings }
    }

    /// Each checked file with its violations, in report order.
    pub fn by_file(&self) -> impl Iterator<Item = (&CheckedFile, &[Violation])> {
        let mut rest = self.violations.as_slice();
        self.files.iter().map(move |file| {
            let (own, after) = rest.split_at(file.violations.min(rest.len()));
            rest = after;
            (file, own)
        })
    }
}

/// A checked file with the violations found in it, as each checker hands it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub file: CheckedFile,
    pub violations: Vec<Violation>,
}

fn summary(files: &[CheckedFile], errors: usize, warnings: usize, skipped: usize) -> String {
    let mut kinds: Vec<FileKind> = files.iter().map(|file| file.kind).collect();
    kinds.sort();
    kinds.dedup();
    let counted: Vec<String> = kinds
        .iter()
        .map(|kind| {
            let count = files.iter().filter(|file| file.kind == *kind).count();
            format!("{count} {}", kind.counted())
        })
        .collect();
    let checked = if counted.is_empty() { "0 files".to_owned() } else { counted.join(", ") };
    let skipped = match skipped {
        0 => String::new(),
        count => format!("; {count} skipped as not a workflow"),
    };
    format!("{checked}: {errors} error(s), {warnings} warning(s){skipped}")
}

/// GitHub Actions workflow commands, one annotation per violation
/// (`::error file=…,line=…,col=…,title=…::message`), paths as `relative` gives them, and a
/// closing `::notice` with the summary.
pub fn github_annotations(report: &Report, relative: impl Fn(&str) -> String) -> String {
    let mut out = String::new();
    for violation in &report.violations {
        let level = if violation.is_error() { "error" } else { "warning" };
        let mut properties = vec![format!("file={}", escape_property(&relative(&violation.file)))];
        if let Some(line) = violation.line {
            properties.push(format!("line={line}"));
            properties.push(format!("col={}", violation.column.unwrap_or(1)));
        }
        properties.push(format!("title={}", escape_property(&format!("switchyard {}", violation.code))));
        let mut message = violation.message.clone();
        if let Some(help) = &violation.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        out.push_str(&format!("::{level} {}::{}\n", properties.join(","), escape_data(&message)));
    }
    out.push_str(&format!("::notice title=switchyard validate::{}\n", escape_data(&report.summary)));
    out
}

/// Escapes a command's message as the runner reads it back.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a command's property value: its message escapes plus `:` and `,`.
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}
