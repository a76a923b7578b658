//! `switchyard validate`: asks the runtime to check (`switchyard_validate`) and prints
//! its report as text, JSON, SARIF or GitHub annotations.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use switchyard_config::Overrides;
use switchyard_validate::{Report, Request};

use crate::output::{Failure, Outcome, Printer};

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// Files or folders. A bundle folder (BMad Method classic or step-file, CrewAgent package) or a
    /// `.bmad`/`.zip` archive is compiled as discovery compiles it; other folders are searched for
    /// `.yaml`, `.yml` and `.json` files, archives, bundle folders, and the Markdown files a prompt
    /// rule set matches. None: the project (its .switchyard/workflows/, its prompt files, and with
    /// --strict its mirrors).
    pub paths: Vec<PathBuf>,
    /// Unknown frontmatter fields are errors, and the project's mirrors ([[validate.mirrors]], vendored
    /// built-in workflows) are compared.
    #[arg(long)]
    pub strict: bool,
    /// How to print the report (`--json` is `--format json`).
    #[arg(long, value_enum)]
    pub format: Option<ReportFormat>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Located diagnostics for people.
    Text,
    /// The report object (stable; see docs/validate.md).
    Json,
    /// SARIF 2.1.0 for code-scanning tools.
    Sarif,
    /// GitHub Actions annotations (`::error file=…,line=…::…`).
    Github,
}

pub fn run(printer: &Printer, args: &ValidateArgs, overrides: Overrides) -> Result<Outcome, Failure> {
    let format = args.format.unwrap_or(if printer.json { ReportFormat::Json } else { ReportFormat::Text });
    let project_root = overrides.project_root.clone().unwrap_or_else(|| PathBuf::from("."));
    let config = crate::opened::resolve(overrides)?;
    let request = Request {
        project_root: &project_root,
        paths: &args.paths,
        strict: args.strict,
        config: &config.validate,
        min_confidence: config.audit.min_confidence,
    };
    let report = switchyard_validate::validate(&request)?;
    let relative = |file: &str| switchyard_validate::relative_to(&project_root, file);
    match format {
        ReportFormat::Json => printer.json(&report)?,
        ReportFormat::Sarif => {
            printer.json(&switchyard_validate::sarif::log(&report, env!("CARGO_PKG_VERSION"), relative))?
        }
        ReportFormat::Github => {
            printer.line(switchyard_validate::report::github_annotations(&report, relative).trim_end())?
        }
        ReportFormat::Text => text(printer, &report)?,
    }
    Ok(if report.ok { Outcome::Success } else { Outcome::RuleViolation })
}

fn text(printer: &Printer, report: &Report) -> Result<(), Failure> {
    for (file, violations) in report.by_file() {
        for violation in violations {
            printer.line(&violation.to_string())?;
        }
        if file.valid {
            let what = match (&file.workflow, &file.format) {
                (Some(workflow), Some(format)) => {
                    format!("{} ({workflow}, {})", file.path, switchyard_core::wire_name(format))
                }
                _ => file.path.clone(),
            };
            printer.line(&format!("{} {what}", printer.green("ok")))?;
        }
    }
    for skipped in &report.not_workflows {
        printer.line(&format!("skipped {}: not a workflow: {}", skipped.path, skipped.reason))?;
    }
    printer.line(&report.summary)
}
