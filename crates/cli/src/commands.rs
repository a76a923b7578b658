//! One function per subcommand: read the arguments, ask the runtime, print the answer.

use std::io::Read;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};
use switchyard_core::state::DecisionOption;
use switchyard_core::workflow::OutputCheck;
use switchyard_core::{RunId, RunStatus};
use switchyard_runtime::catalog::Sourced;
use switchyard_runtime::{AdvanceInput, Catalog, Config, Diagnostic, Found, Overrides, Runtime, StartRequest, Target};
use switchyard_store::SessionQuery;

use crate::args::{Cli, Commands, KeysAction, Report};
use crate::output::{Failure, Outcome, Printer};

pub async fn run(cli: Cli) -> Result<Outcome, Failure> {
    let printer = Printer::new(cli.global.json, cli.global.color);
    let project = match cli.global.project.clone() {
        Some(project) => project,
        None => std::env::current_dir()
            .map_err(|error| Failure::environment(format!("cannot read the current directory: {error}")))?,
    };
    let overrides = Overrides {
        home: cli.global.home.clone(),
        store: cli.global.store.clone(),
        project_root: Some(project.clone()),
    };
    // Commands that need no store.
    match &cli.command {
        Commands::Quickstart => return crate::quickstart::run(&printer).await,
        Commands::Init => return crate::init::run(&printer, &project),
        Commands::Doctor => return crate::doctor::run(&printer, overrides).await,
        Commands::Completions { shell } => return crate::generate::completions(*shell),
        Commands::Man => return crate::generate::man(),
        Commands::Validate { paths } => return validate(&printer, paths),
        Commands::Schema { which } => return schema(&printer, which),
        Commands::Mcp(args) => return crate::serve::mcp(args, overrides).await,
        Commands::Serve(args) => return crate::serve::serve(args, overrides).await,
        Commands::Import { path, to, output } => return crate::import::run(&printer, path, to, output.as_deref()),
        _ => {}
    }
    let config = Config::resolve(overrides)?;
    match cli.command {
        Commands::Quickstart
        | Commands::Init
        | Commands::Doctor
        | Commands::Completions { .. }
        | Commands::Man
        | Commands::Validate { .. }
        | Commands::Schema { .. } => unreachable!("handled above"),
        Commands::List => list(&printer, &Catalog::new(config.project_root.as_deref(), &config.home)),
        Commands::Inspect { name, file } => {
            let catalog = Catalog::new(config.project_root.as_deref(), &config.home);
            let found = match (name, file) {
                (_, Some(file)) => Catalog::file(&file)?,
                (Some(name), None) => catalog.find(&name)?,
                (None, None) => return Err(Failure::usage("name a workflow, or pass --file")),
            };
            inspect(&printer, &found)
        }
        Commands::Keys { action: KeysAction::Rotate } => {
            switchyard_runtime::keys::rotate(&config.home, &switchyard_runtime::clock::RandomIds)?;
            let key_file = switchyard_runtime::keys::key_file_path(&config.home);
            if printer.json {
                printer.json(&serde_json::json!({ "rotated": true, "key_file": key_file }))?;
            } else {
                printer
                    .line(&format!("rotated: {} (the previous key still verifies old tokens)", key_file.display()))?;
            }
            Ok(Outcome::Success)
        }
        Commands::Tool { name, arguments, run } => {
            crate::tool::run(&printer, &config, &name, &arguments, run.as_deref()).await
        }
        command => {
            let runtime = Runtime::open(&config).await?;
            run_command(&printer, &runtime, command, project).await
        }
    }
}

async fn run_command(
    printer: &Printer,
    runtime: &Runtime,
    command: Commands,
    project: PathBuf,
) -> Result<Outcome, Failure> {
    match command {
        Commands::Start { workflow, file, goal, context, workspace } => {
            let context = match context {
                Some(text) => json_object("--context", &text)?,
                None => Map::new(),
            };
            let request = StartRequest { workflow, file, goal, context, workspace: Some(workspace.unwrap_or(project)) };
            step(printer, &runtime.start(request).await?)
        }
        Commands::Show { target } => step(printer, &runtime.show(&target.parse()?).await?),
        Commands::Continue { token, run, report } => {
            let input = advance_input(report)?;
            let run = match run {
                Some(run) => Some(run_id(runtime, &run).await?),
                None => None,
            };
            advanced(printer, &runtime.advance(&token, run, input).await?)
        }
        Commands::Status { target } => {
            let run = runtime.run(&target.parse()?).await?;
            if printer.json {
                printer.json(&run)?;
            } else {
                printer.line(&format!(
                    "run {} · session {} · workflow {} ({})\nstatus {} · tip {} · {} nodes · control {:?}",
                    run.id,
                    run.session,
                    run.workflow_id,
                    run.workflow_hash,
                    run.status,
                    run.tip,
                    run.node_count,
                    run.control
                ))?;
            }
            Ok(Outcome::Success)
        }
        Commands::Log { target, after, limit } => {
            let run = runtime.run(&target.parse()?).await?;
            let events = runtime.events(run.session, after, limit).await?;
            if printer.json {
                printer.json(&events)?;
            } else {
                for event in &events {
                    let run = event.run.map(|run| run.to_string()).unwrap_or_default();
                    printer.line(&format!(
                        "{:>5} {} {} {}",
                        event.seq,
                        event.at_ms,
                        event.kind.name(),
                        printer.dim(&summary(&event.kind, &run))
                    ))?;
                }
            }
            Ok(Outcome::Success)
        }
        Commands::Sessions { status, workflow, workspace, branch, limit } => {
            let status = status.map(|text| text.parse::<RunStatus>().map_err(Failure::usage)).transpose()?;
            let query = SessionQuery {
                status,
                workflow_id: workflow,
                workspace: workspace.map(|dir| dir.display().to_string()),
                git_branch: branch,
                limit,
                ..SessionQuery::default()
            };
            let sessions = runtime.sessions(query).await?;
            if printer.json {
                printer.json(&sessions)?;
            } else if sessions.is_empty() {
                printer.line("no sessions")?;
            } else {
                for session in &sessions {
                    printer.line(&format!(
                        "{} {} {:<26} {}",
                        session.id,
                        session.workflow_id.as_deref().unwrap_or("-"),
                        session.status.map(|status| status.as_str()).unwrap_or("-"),
                        session.title
                    ))?;
                }
            }
            Ok(Outcome::Success)
        }
        Commands::Approve { run, note } => step(printer, &runtime.approve(run_id(runtime, &run).await?, note).await?),
        Commands::Reject { run, reason } => step(printer, &runtime.reject(run_id(runtime, &run).await?, reason).await?),
        Commands::Decide { run, option, note } => {
            let option = parse_option(&option)?;
            step(printer, &runtime.decide(run_id(runtime, &run).await?, option, note).await?)
        }
        Commands::Pause { run, reason } => step(printer, &runtime.pause(run_id(runtime, &run).await?, reason).await?),
        Commands::Resume { run } => step(printer, &runtime.resume(run_id(runtime, &run).await?).await?),
        Commands::Stop { run, reason } => step(printer, &runtime.stop(run_id(runtime, &run).await?, reason).await?),
        Commands::Checkpoint { token, run, notes, notes_file } => {
            let notes = read_notes(notes, notes_file)?;
            let run = match run {
                Some(run) => Some(run_id(runtime, &run).await?),
                None => None,
            };
            let response = runtime.checkpoint(&token, run, notes).await?;
            if printer.json {
                printer.json(&response)?;
            } else {
                let replayed = if response.replayed { " (already recorded)" } else { "" };
                printer.line(&format!("checkpoint recorded on {} of run {}{replayed}", response.node, response.run))?;
            }
            Ok(Outcome::Success)
        }
        Commands::Verify => {
            let report = runtime.verify().await?;
            if printer.json {
                printer.json(&report)?;
            } else {
                for problem in &report.problems {
                    printer.line(&format!(
                        "{}: {}",
                        printer.red("problem"),
                        serde_json::to_string(problem).unwrap_or_default()
                    ))?;
                }
                printer.line(&format!(
                    "verified {} sessions, {} events: {} problem(s)",
                    report.sessions_checked,
                    report.events_checked,
                    report.problems.len()
                ))?;
            }
            Ok(if report.problems.is_empty() { Outcome::Success } else { Outcome::RuleViolation })
        }
        Commands::Quickstart
        | Commands::Init
        | Commands::Doctor
        | Commands::Completions { .. }
        | Commands::Man
        | Commands::Validate { .. }
        | Commands::Schema { .. }
        | Commands::List
        | Commands::Inspect { .. }
        | Commands::Keys { .. }
        | Commands::Mcp(_)
        | Commands::Serve(_)
        | Commands::Import { .. }
        | Commands::Tool { .. } => {
            unreachable!("handled without a store")
        }
    }
}

/// Prints the step response of a command that succeeded. Its kind describes where the run now
/// is (a tip may be a blocked attempt or a failed run), not a refusal of this command: a refused
/// command is an error, and only an advance that its checks block exits 1 ([`advanced`]).
fn step(printer: &Printer, response: &switchyard_runtime::StepResponse) -> Result<Outcome, Failure> {
    printer.step_response(response)?;
    Ok(Outcome::Success)
}

/// Prints the answer to an advance: blocked by its checks, or failing the run, it is a rule saying
/// no to this very advance (exit 1).
fn advanced(printer: &Printer, response: &switchyard_runtime::StepResponse) -> Result<Outcome, Failure> {
    printer.step_response(response)?;
    Ok(match response.kind {
        switchyard_runtime::ResponseKind::Blocked | switchyard_runtime::ResponseKind::Failed => Outcome::RuleViolation,
        _ => Outcome::Success,
    })
}

async fn run_id(runtime: &Runtime, text: &str) -> Result<RunId, Failure> {
    Ok(runtime.run(&text.parse::<Target>()?).await?.id)
}

fn parse_option(text: &str) -> Result<DecisionOption, Failure> {
    serde_json::from_value(Value::String(text.to_owned())).map_err(|_| {
        Failure::usage(format!("`{text}` is not a decision option: use accept, revise, replan, proceed or stop"))
    })
}

fn advance_input(report: Report) -> Result<AdvanceInput, Failure> {
    Ok(AdvanceInput {
        notes: read_notes(report.notes, report.notes_file)?,
        artifacts: report.artifacts.map(|text| json_value("--artifacts", &text)).transpose()?,
        context: report.context.map(|text| json_object("--context", &text)).transpose()?,
        choice: report.choice,
    })
}

fn read_notes(notes: Option<String>, notes_file: Option<PathBuf>) -> Result<Option<String>, Failure> {
    match (notes, notes_file) {
        (Some(text), _) if text == "-" => {
            let mut buffer = String::new();
            std::io::stdin()
                .read_to_string(&mut buffer)
                .map_err(|error| Failure::environment(format!("cannot read notes from stdin: {error}")))?;
            Ok(Some(buffer))
        }
        (Some(text), _) => Ok(Some(text)),
        (None, Some(path)) => std::fs::read_to_string(&path)
            .map(Some)
            .map_err(|error| Failure::usage(format!("cannot read notes file {}: {error}", path.display()))),
        (None, None) => Ok(None),
    }
}

/// A JSON argument given inline or as `@FILE`.
fn json_value(flag: &str, text: &str) -> Result<Value, Failure> {
    let (origin, body) = match text.strip_prefix('@') {
        Some(path) => (
            format!("{flag} file {path}"),
            std::fs::read_to_string(path)
                .map_err(|error| Failure::usage(format!("cannot read {flag} file {path}: {error}")))?,
        ),
        None => (flag.to_owned(), text.to_owned()),
    };
    serde_json::from_str(&body).map_err(|error| Failure::usage(format!("{origin} is not valid JSON: {error}")))
}

fn json_object(flag: &str, text: &str) -> Result<Map<String, Value>, Failure> {
    match json_value(flag, text)? {
        Value::Object(map) => Ok(map),
        other => Err(Failure::usage(format!(
            "{flag} must be a JSON object like {{\"key\": \"value\"}}, not {}",
            kind_of(&other)
        ))),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn summary(kind: &switchyard_core::EventKind, run: &str) -> String {
    use switchyard_core::EventKind as E;
    match kind {
        E::SessionCreated { title, .. } => format!("\"{title}\""),
        E::RunStarted { workflow_id, workflow_hash, .. } => format!("{run} {workflow_id} {workflow_hash}"),
        E::NodeCreated { node, step, status, cause, .. } => {
            format!("{node} step={step} status={status} cause={cause:?}")
        }
        E::AdvanceRecorded { from, to, choice, edge_label, .. } => {
            format!(
                "{from} → {to} choice={} edge={}",
                choice.as_deref().unwrap_or("-"),
                edge_label.as_deref().unwrap_or("-")
            )
        }
        E::GateDecided { approved, reason, .. } => {
            if *approved {
                "approved".to_owned()
            } else {
                format!("rejected: {}", reason.as_deref().unwrap_or(""))
            }
        }
        E::HumanDecided { option, .. } => option.as_str().to_owned(),
        E::CheckpointRecorded { automatic, phase, .. } => {
            if *automatic {
                format!("phase {} ended", phase.as_deref().unwrap_or("-"))
            } else {
                "manual".to_owned()
            }
        }
        E::RunPaused { reason } | E::RunStopped { reason } => reason.clone().unwrap_or_default(),
        E::RunFailed { code, .. } => code.clone(),
        _ => String::new(),
    }
}

// ------------------------------------------------------------------ workflows

#[derive(Serialize)]
struct ValidatedFile<'a> {
    path: String,
    /// The workflow's name, for each workflow of a bundle (a package may hold several).
    #[serde(skip_serializing_if = "Option::is_none")]
    workflow: Option<&'a str>,
    format: Option<&'a switchyard_runtime::Format>,
    valid: bool,
    hash: Option<String>,
    diagnostics: &'a [Diagnostic],
    /// Why the source could not be read at all (a refused bundle, an unreadable file).
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// A file or folder that is no workflow in any supported format, skipped by `validate`.
#[derive(Serialize)]
struct NotAWorkflow {
    path: String,
    reason: String,
}

#[derive(Serialize)]
struct ValidationReport<'a> {
    files: Vec<ValidatedFile<'a>>,
    errors: usize,
    warnings: usize,
    /// Sources that are no workflow (configs, agent definitions, manifests): neither errors nor
    /// counted among the workflows.
    not_workflows: Vec<NotAWorkflow>,
}

/// One validated source: a file, or one workflow of a bundle, or a source that could not be read.
struct Checked {
    path: String,
    bundle: bool,
    result: Result<Found, String>,
}

/// Validates files, bundles (BMad Method classic and step-file folders, CrewAgent packages as
/// folders or archives) and WorkRail files with their routines, found and compiled as discovery
/// does (`Catalog::sources`).
fn validate(printer: &Printer, paths: &[PathBuf]) -> Result<Outcome, Failure> {
    let mut checked = Vec::new();
    let mut not_workflows = Vec::new();
    for path in paths {
        std::fs::metadata(path).map_err(|error| Failure::usage(format!("cannot read {}: {error}", path.display())))?;
        for (source, result) in Catalog::sources(path) {
            let bundle = source.is_dir() || switchyard_runtime::catalog::is_bundle_path(&source);
            let path = source.display().to_string();
            match result {
                Ok(Sourced::Workflows(found)) => checked.extend(found.into_iter().map(|found| Checked {
                    path: path.clone(),
                    bundle,
                    result: Ok(found),
                })),
                Ok(Sourced::NotAWorkflow(reason)) => not_workflows.push(NotAWorkflow { path, reason }),
                Err(error) => checked.push(Checked { path, bundle, result: Err(error.to_string()) }),
            }
        }
    }
    if checked.is_empty() {
        let skipped = if not_workflows.is_empty() {
            String::new()
        } else {
            let listed: Vec<String> =
                not_workflows.iter().map(|skipped| format!("{} ({})", skipped.path, skipped.reason)).collect();
            format!("; not workflows: {}", listed.join(", "))
        };
        return Err(Failure::usage(format!(
            "no workflow files (.yaml, .yml, .json), bundle folders or .bmad/.zip archives found under the given paths{skipped}"
        )));
    }
    let diagnostics = |checked: &Checked| -> Vec<Diagnostic> {
        checked.result.as_ref().map(|found| found.compiled.diagnostics.clone()).unwrap_or_default()
    };
    let all: Vec<Vec<Diagnostic>> = checked.iter().map(diagnostics).collect();
    let unreadable = checked.iter().filter(|checked| checked.result.is_err()).count();
    let report = ValidationReport {
        files: checked
            .iter()
            .zip(&all)
            .map(|(checked, diagnostics)| {
                let found = checked.result.as_ref().ok();
                let workflow = found.and_then(|found| found.compiled.workflow.as_ref());
                ValidatedFile {
                    path: checked.path.clone(),
                    workflow: found.filter(|_| checked.bundle).map(|found| found.name.as_str()),
                    format: found.map(|found| &found.compiled.format),
                    valid: workflow.is_some(),
                    hash: workflow.map(|workflow| workflow.hash().to_string()),
                    diagnostics,
                    error: checked.result.as_ref().err().cloned(),
                }
            })
            .collect(),
        errors: all.iter().flatten().filter(|d| d.is_error()).count() + unreadable,
        warnings: all.iter().flatten().filter(|d| !d.is_error()).count(),
        not_workflows,
    };
    if printer.json {
        printer.json(&report)?;
    } else {
        for (checked, diagnostics) in checked.iter().zip(&all) {
            for diagnostic in diagnostics {
                printer.line(&diagnostic.to_string())?;
            }
            match &checked.result {
                Err(error) => printer.line(&format!("{} {}: {error}", printer.red("error"), checked.path))?,
                Ok(found) if found.compiled.workflow.is_some() => {
                    let what = if checked.bundle {
                        format!("{} ({}, {:?})", checked.path, found.name, found.compiled.format)
                    } else {
                        checked.path.clone()
                    };
                    printer.line(&format!("{} {what}", printer.green("ok")))?;
                }
                Ok(_) => {}
            }
        }
        for skipped in &report.not_workflows {
            printer.line(&format!("skipped {}: not a workflow: {}", skipped.path, skipped.reason))?;
        }
        let skipped = match report.not_workflows.len() {
            0 => String::new(),
            count => format!("; {count} skipped as not a workflow"),
        };
        printer.line(&format!(
            "{} workflow(s): {} error(s), {} warning(s){skipped}",
            checked.len(),
            report.errors,
            report.warnings
        ))?;
    }
    Ok(if report.errors == 0 { Outcome::Success } else { Outcome::RuleViolation })
}

fn schema(printer: &Printer, which: &str) -> Result<Outcome, Failure> {
    match which {
        "workflow" => {
            printer.json(&switchyard_runtime::native_schema())?;
            Ok(Outcome::Success)
        }
        "state" => {
            printer.json(&switchyard_runtime::run_folder::state_schema())?;
            Ok(Outcome::Success)
        }
        other => Err(Failure::usage(format!("no schema named `{other}`; available: workflow, state"))),
    }
}

#[derive(Serialize)]
struct ListedWorkflow<'a> {
    name: &'a str,
    title: Option<&'a str>,
    version: Option<&'a str>,
    format: &'a switchyard_runtime::Format,
    hash: Option<String>,
    source: &'a switchyard_runtime::Location,
    shadows: &'a [switchyard_runtime::Location],
    valid: bool,
    diagnostics: &'a [Diagnostic],
}

fn list(printer: &Printer, catalog: &Catalog) -> Result<Outcome, Failure> {
    let found = catalog.list();
    let listed: Vec<ListedWorkflow<'_>> = found
        .iter()
        .map(|found| ListedWorkflow {
            name: &found.name,
            title: found.compiled.workflow.as_ref().map(|workflow| workflow.title.as_str()),
            version: found.compiled.workflow.as_ref().map(|workflow| workflow.version.as_str()),
            format: &found.compiled.format,
            hash: found.compiled.workflow.as_ref().map(|workflow| workflow.hash().to_string()),
            source: &found.location,
            shadows: &found.shadows,
            valid: found.compiled.workflow.is_some(),
            diagnostics: &found.compiled.diagnostics,
        })
        .collect();
    if printer.json {
        printer.json(&listed)?;
        return Ok(Outcome::Success);
    }
    for workflow in &listed {
        let state = if workflow.valid {
            String::new()
        } else {
            format!(" {}", printer.red("(invalid: run switchyard validate)"))
        };
        printer.line(&format!(
            "{:<24} {:<8} {}{state}",
            workflow.name,
            serde_json::to_value(workflow.format).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default(),
            workflow.source.path
        ))?;
        for shadowed in workflow.shadows {
            printer.line(&format!("{:<24} {}", "", printer.dim(&format!("shadows {}", shadowed.path))))?;
        }
    }
    Ok(Outcome::Success)
}

#[derive(Serialize)]
struct Inspected<'a> {
    name: &'a str,
    source: &'a switchyard_runtime::Location,
    format: &'a switchyard_runtime::Format,
    hash: String,
    workflow: &'a switchyard_core::Workflow,
    diagnostics: &'a [Diagnostic],
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

fn inspect(printer: &Printer, found: &Found) -> Result<Outcome, Failure> {
    let Some(workflow) = &found.compiled.workflow else {
        return Err(switchyard_runtime::Error::InvalidWorkflow {
            name: found.name.clone(),
            source_path: found.location.path.clone(),
            diagnostics: found.compiled.diagnostics.clone(),
        }
        .into());
    };
    if printer.json {
        printer.json(&Inspected {
            name: &found.name,
            source: &found.location,
            format: &found.compiled.format,
            hash: workflow.hash().to_string(),
            workflow,
            diagnostics: &found.compiled.diagnostics,
        })?;
        return Ok(Outcome::Success);
    }
    let mut text = format!(
        "{} {} v{} — {}\n{}\nsource {} · hash {}\nlimits: max_cycles {} · max_revision_attempts {} · max_replan_attempts {}\nstart: {}\n",
        printer.bold("workflow"),
        workflow.id,
        workflow.version,
        workflow.title,
        workflow.description.trim(),
        found.location.path,
        workflow.hash(),
        workflow.limits.max_cycles,
        workflow.limits.max_revision_attempts,
        workflow.limits.max_replan_attempts,
        workflow.entry
    );
    if !workflow.variables.is_empty() {
        text.push_str(&format!("\n{}\n", printer.bold("variables")));
        for variable in &workflow.variables {
            text.push_str(&format!(
                "  {}: {} ({:?}){}\n",
                variable.name,
                variable.value_type.name(),
                variable.layer,
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
        facts.push(format!("notes {:?}", step.notes).to_lowercase());
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
                line.push_str(&format!(" [{:?}]", edge.kind).to_lowercase());
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
