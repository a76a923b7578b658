//! `switchyard inspect --format text|json|mermaid|dot|source`: a workflow's compiled graph for
//! people (`text`), programs (`json`, as `--json`), or READMEs and design docs (`mermaid`,
//! `dot`); or its source as written (`source`), byte for byte, so a built-in can be vendored
//! again (`inspect --builtin code-review --format source > …`).

use clap::ValueEnum;
use serde::Serialize;
use switchyard_catalog::{Diagnostic, Found, to_dot, to_mermaid};
use switchyard_config::ExecutionConfig;
use switchyard_core::workflow::{Limits, OutputCheck};
use switchyard_core::{Workflow, wire_name};

use crate::output::ColorChoice;
use crate::output::{Failure, Outcome, Printer};

/// Writes `found`'s workflow in `format` (by default `json` under `--json`, `text` otherwise); the
/// text and JSON say the limits a run would get under `execution`.
pub fn run(
    printer: &Printer,
    found: &Found,
    execution: &ExecutionConfig,
    format: Option<InspectFormat>,
) -> Result<Outcome, Failure> {
    let format = match (format, printer.json) {
        (None, false) => InspectFormat::Text,
        (None, true) | (Some(InspectFormat::Json), _) => InspectFormat::Json,
        (Some(format), false) => format,
        (Some(format), true) => {
            return Err(Failure::usage(format!(
                "--json asks for JSON but --format asks for {}: pass one of them",
                format.name()
            )));
        }
    };
    match format {
        InspectFormat::Text => describe(printer, found, execution),
        // `--format json` is `--json`: the same document, never coloured.
        InspectFormat::Json => describe(&Printer::new(true, ColorChoice::Never), found, execution),
        InspectFormat::Mermaid => {
            printer.line(to_mermaid(compiled_workflow(found)?).trim_end())?;
            Ok(Outcome::Success)
        }
        InspectFormat::Dot => {
            printer.line(to_dot(compiled_workflow(found)?).trim_end())?;
            Ok(Outcome::Success)
        }
        InspectFormat::Source => {
            printer.verbatim(&found.source()?)?;
            Ok(Outcome::Success)
        }
    }
}

/// The workflow `found` compiled to, or the error saying why it did not.
pub fn compiled_workflow(found: &Found) -> Result<&Workflow, Failure> {
    found.compiled.workflow.as_ref().ok_or_else(|| {
        switchyard_runtime::Error::InvalidWorkflow {
            name: found.name.clone(),
            source_path: found.location.path.clone(),
            diagnostics: found.compiled.diagnostics.clone(),
        }
        .into()
    })
}

/// What `inspect` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InspectFormat {
    Text,
    Json,
    Mermaid,
    Dot,
    /// The workflow's source as written, byte for byte.
    Source,
}

impl InspectFormat {
    pub fn name(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
            Self::Mermaid => "mermaid",
            Self::Dot => "dot",
            Self::Source => "source",
        }
    }
}

#[derive(Serialize)]
struct Inspected<'a> {
    name: &'a str,
    source: &'a switchyard_catalog::Location,
    format: &'a switchyard_catalog::Format,
    hash: String,
    workflow: &'a Workflow,
    /// The limits a run started now gets: the workflow's own, `[execution]`'s where it declares
    /// none (`workflow.limits` holds the engine's defaults there).
    run_limits: Limits,
    diagnostics: &'a [Diagnostic],
}

/// Where a limit the workflow does not declare comes from, said after its value.
fn from_execution(declared: bool) -> &'static str {
    if declared { "" } else { " ([execution])" }
}

/// One output check in a line: what it asks, its message, and when it applies.
fn describe_check(check: &OutputCheck) -> String {
    let (what, message) = match check {
        OutputCheck::Contains { value, message, .. } => (format!("notes contain {value:?}"), message),
        OutputCheck::Regex { pattern, flags, message, .. } => {
            let flags = flags.as_deref().map(|flags| format!(" (flags {flags})")).unwrap_or_default();
            (format!("notes match /{pattern}/{flags}"), message)
        }
        OutputCheck::Length { min, max, message, .. } => {
            let bound = |bound: &Option<u64>| bound.map_or_else(|| "any".to_owned(), |bound| bound.to_string());
            (format!("notes length {}..{} characters", bound(min), bound(max)), message)
        }
        OutputCheck::Schema { schema, message, .. } => (format!("notes are JSON satisfying {schema}"), message),
        OutputCheck::Condition { condition, message, .. } => (format!("`{condition}` holds"), message),
        OutputCheck::All { checks, .. } => {
            (format!("all of ({})", checks.iter().map(describe_check).collect::<Vec<_>>().join("; ")), &None)
        }
        OutputCheck::Any { checks, .. } => {
            (format!("any of ({})", checks.iter().map(describe_check).collect::<Vec<_>>().join("; ")), &None)
        }
        OutputCheck::Not { check, .. } => (format!("not ({})", describe_check(check)), &None),
    };
    let mut line = what;
    if let Some(when) = check.when() {
        line.push_str(&format!(" when `{when}`"));
    }
    if let Some(message) = message {
        line.push_str(&format!(", else \"{message}\""));
    }
    line
}

/// The compiled workflow for people, or as the JSON object `--json` promises.
fn describe(printer: &Printer, found: &Found, execution: &ExecutionConfig) -> Result<Outcome, Failure> {
    let workflow = compiled_workflow(found)?;
    let declared = found.compiled.declared_limits;
    let run_limits = switchyard_runtime::limits_for(execution, declared, workflow.limits);
    if printer.json {
        printer.json(&Inspected {
            name: &found.name,
            source: &found.location,
            format: &found.compiled.format,
            hash: workflow.hash().to_string(),
            workflow,
            run_limits,
            diagnostics: &found.compiled.diagnostics,
        })?;
        return Ok(Outcome::Success);
    }
    let mut text = format!(
        "{} {} v{} — {}\n{}\nsource {} · hash {}\nlimits: max_cycles {} · max_revision_attempts {}{} · max_replan_attempts {}{}\nstart: {}\n",
        printer.bold("workflow"),
        workflow.id,
        workflow.version,
        workflow.title,
        workflow.description.trim(),
        found.location.path,
        workflow.hash(),
        run_limits.max_cycles,
        run_limits.max_revision_attempts,
        from_execution(declared.max_revision_attempts),
        run_limits.max_replan_attempts,
        from_execution(declared.max_replan_attempts),
        workflow.entry
    );
    if !workflow.variables.is_empty() {
        text.push_str(&format!("\n{}\n", printer.bold("variables")));
        for variable in &workflow.variables {
            text.push_str(&format!(
                "  {}: {} ({}){}\n",
                variable.name,
                variable.value_type.name(),
                wire_name(&variable.layer),
                variable.default.as_ref().map(|value| format!(" = {value}")).unwrap_or_default()
            ));
        }
    }
    text.push_str(&format!("\n{}\n", printer.bold("steps")));
    for step in &workflow.steps {
        let mut facts = Vec::new();
        if step.gate {
            facts.push("gate".to_owned());
        }
        if step.context_reset {
            facts.push("context reset".to_owned());
        }
        if let Some(phase) = &step.phase {
            facts.push(format!("phase {phase}"));
        }
        if let Some(role) = &step.role {
            facts.push(format!("role {role}"));
        }
        if step.output_schema.is_some() {
            facts.push("output contract".to_owned());
        }
        facts.push(format!("notes {}", wire_name(&step.notes)));
        facts.push(format!("max attempts {}", step.max_attempts));
        if step.is_end() {
            facts.push("end".to_owned());
        }
        text.push_str(&format!("  {} — {} [{}]\n", printer.bold(step.id.as_str()), step.title, facts.join(", ")));
        let rules = workflow.rules(&step.id);
        if let Some(condition) = &rules.run_when {
            text.push_str(&format!("      runs only when `{condition}` (skipped otherwise)\n"));
        }
        if let Some(condition) = &rules.gate_when {
            text.push_str(&format!("      gate when `{condition}`\n"));
        }
        for check in &rules.checks {
            text.push_str(&format!("      check: {}\n", describe_check(check)));
        }
        match (rules.audit, rules.status_report) {
            (true, mode) => text.push_str(&format!(
                "      audit report{}: a validated blocked finding at or above the run's audit_min_confidence blocks, others are downgraded\n",
                if mode == Some(switchyard_core::workflow::StatusReportMode::Strict) { " (strict)" } else { "" }
            )),
            (false, Some(mode)) => text.push_str(&format!("      status report ({mode:?})\n").to_lowercase()),
            (false, None) => {}
        }
        for edge in &step.edges {
            let to = match &edge.target {
                switchyard_core::workflow::EdgeTarget::Step(step) => step.to_string(),
                switchyard_core::workflow::EdgeTarget::Complete => "(complete)".to_owned(),
            };
            let mut line = format!("      {} → {to}", edge.label);
            if edge.default {
                line.push_str(" default");
            }
            if let Some(condition) = &edge.condition {
                line.push_str(&format!(" when `{condition}`"));
            }
            if let Some(words) = &edge.condition_text {
                line.push_str(&format!(" ({words})"));
            }
            if let Some(max) = edge.max_traversals {
                line.push_str(&format!(" at most {max}×"));
            }
            if edge.kind != switchyard_core::workflow::EdgeKind::Normal {
                line.push_str(&format!(" [{}]", wire_name(&edge.kind)));
            }
            if let Some(assignments) = rules.assign.get(&edge.label).filter(|assignments| !assignments.is_empty()) {
                let assignments: Vec<String> =
                    assignments.iter().map(|(name, expression)| format!("{name} = `{expression}`")).collect();
                line.push_str(&format!(" sets {}", assignments.join(", ")));
            }
            text.push_str(&line);
            text.push('\n');
        }
    }
    printer.line(text.trim_end())?;
    Ok(Outcome::Success)
}
