//! One function per subcommand: read the arguments, ask the runtime, print the answer.

use std::io::Read;
use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};
use switchyard_catalog::{Catalog, Diagnostic};
use switchyard_config::Overrides;
use switchyard_core::state::DecisionOption;
use switchyard_core::wire_name;
use switchyard_runtime::{AdvanceInput, StartRequest};
use switchyard_store::SessionQuery;

/// How many nodes back from the tip `status --why` looks for decisions.
const WHY_NODES: usize = 50;

use crate::args::{Cli, Commands, KeysAction, Report};
use crate::named::{json_object, json_value, name_or_file, run_id};
use crate::output::{Failure, Outcome, Printer, RunSummary};

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
    // Commands that need no store first; the rest open it once, in the last arm.
    match cli.command {
        Commands::Quickstart => crate::quickstart::run(&printer).await,
        Commands::Init => crate::init::run(&printer, &project),
        Commands::Doctor => crate::doctor::run(&printer, overrides).await,
        Commands::Completions { shell } => crate::generate::completions(shell),
        Commands::Man { command, out } => crate::generate::man(&printer, &command, out.as_deref()),
        Commands::Validate(args) => crate::validate::run(&printer, &args, overrides),
        Commands::Schema { which } => schema(&printer, &which),
        Commands::Mcp(args) => crate::serve::mcp(&args, overrides).await,
        Commands::Serve(args) => crate::serve::serve(&args, overrides, cli.global.log_format).await,
        Commands::Import { path, to, output } => crate::import::run(&printer, &path, &to, output.as_deref()),
        Commands::Config => crate::config_command::run(&printer, overrides),
        Commands::Store { action } => crate::store_copy::run(&printer, action).await,
        Commands::List => {
            let config = crate::opened::resolve(overrides)?;
            list(&printer, &Catalog::new(config.project_root.as_deref(), &config.home))
        }
        Commands::Inspect { name, file, builtin, format } => {
            let config = crate::opened::resolve(overrides)?;
            let catalog = Catalog::new(config.project_root.as_deref(), &config.home);
            let (name, file) = name_or_file(name, file);
            let found = match (name, file, builtin) {
                (_, _, Some(builtin)) => Catalog::builtin(&builtin)?,
                (_, Some(file), None) => Catalog::file(&file)?,
                (Some(name), None, None) => catalog.find(&name)?,
                (None, None, None) => return Err(Failure::usage("name a workflow, or pass --file or --builtin")),
            };
            crate::inspect::run(&printer, &found, &config.execution, format)
        }
        Commands::Keys { action: KeysAction::Rotate } => {
            let config = crate::opened::resolve(overrides)?;
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
        Commands::Run(args) => crate::run::run(&printer, overrides, project, args).await,
        Commands::Transcript(args) => crate::transcript::run(&printer, overrides, &args).await,
        Commands::Tool { name, arguments, run } => {
            let config = crate::opened::resolve(overrides)?;
            crate::tool::run(&printer, &config, &name, &arguments, run.as_deref()).await
        }
        command => {
            let config = crate::opened::resolve(overrides)?;
            let opened = crate::opened::Opened::open(&config).await?;
            run_command(&printer, &opened, command, project).await
        }
    }
}

async fn run_command(
    printer: &Printer,
    opened: &crate::opened::Opened,
    command: Commands,
    project: PathBuf,
) -> Result<Outcome, Failure> {
    let runtime = opened.runtime.as_ref();
    match command {
        Commands::Start { workflow, file, goal, context, workspace, strict_status } => {
            let context = match context {
                Some(text) => json_object("--context", &text)?,
                None => Map::new(),
            };
            let (workflow, file) = name_or_file(workflow, file);
            let workspace = Some(workspace.unwrap_or(project));
            let request = StartRequest { workflow, file, goal, context, workspace, strict_status };
            step(printer, &runtime.start(&opened.catalog, request).await?)
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
        Commands::Status { target, why } => {
            let run = runtime.run(&target.parse()?).await?;
            let runner = crate::transcript::metrics(&runtime.transcript(run.id).await?);
            let nodes = runtime.run_nodes(run.id).await?;
            let decisions = match why {
                true => Some(runtime.decisions(&nodes, run.tip, WHY_NODES).await?),
                false => None,
            };
            if printer.json {
                printer.json(&crate::transcript::StatusWithRunner { run: &run, runner, why: decisions })?;
            } else {
                let workflow = runtime.pinned_workflow(run.workflow_hash).await.ok();
                printer.run_summary(&RunSummary {
                    run: &run,
                    tip: nodes.iter().find(|node| node.id == run.tip),
                    workflow: workflow.as_ref().map(|loaded| &loaded.workflow),
                    now_ms: runtime.now_ms(),
                    runner: runner.as_ref().map(crate::transcript::RunnerMetrics::line),
                })?;
                if let Some(decisions) = decisions {
                    printer.decisions(&decisions, WHY_NODES)?;
                }
            }
            Ok(Outcome::Success)
        }
        Commands::Log { target, after, limit } => {
            let run = runtime.run(&target.parse()?).await?;
            let events = runtime.events(run.session, after, limit).await?;
            if printer.json {
                printer.json(&events)?;
            } else {
                printer.event_log(&events)?;
            }
            Ok(Outcome::Success)
        }
        Commands::Sessions { status, workflow, workspace, branch, limit } => {
            // The filters as they were typed, for the answer when no session passes them.
            let filters: Vec<String> = [
                status.map(|status| format!("--status {status}")),
                workflow.as_ref().map(|workflow| format!("--workflow {workflow}")),
                workspace.as_ref().map(|dir| format!("--workspace {}", dir.display())),
                branch.as_ref().map(|branch| format!("--branch {branch}")),
            ]
            .into_iter()
            .flatten()
            .collect();
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
            } else {
                printer.sessions(&sessions, &filters, runtime.now_ms())?;
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
        other => unreachable!("`{other:?}` is answered by `run` without opening the store"),
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

fn schema(printer: &Printer, which: &str) -> Result<Outcome, Failure> {
    match which {
        "workflow" => {
            printer.json(&switchyard_catalog::native_schema())?;
            Ok(Outcome::Success)
        }
        "state" => {
            printer.json(&switchyard_run_folder::state_schema())?;
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
    format: &'a switchyard_catalog::Format,
    hash: Option<String>,
    source: &'a switchyard_catalog::Location,
    shadows: &'a [switchyard_catalog::Location],
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
    printer.workflows(&listed.iter().map(ListedWorkflow::row).collect::<Vec<_>>())?;
    Ok(Outcome::Success)
}

impl ListedWorkflow<'_> {
    fn row(&self) -> crate::output::WorkflowRow {
        crate::output::WorkflowRow {
            name: self.name.to_owned(),
            format: wire_name(self.format),
            source: self.source.path.clone(),
            valid: self.valid,
            shadows: self.shadows.iter().map(|shadowed| shadowed.path.clone()).collect(),
        }
    }
}
