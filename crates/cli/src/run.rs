//! `switchyard run`: the agent runner's door on the command line. It reads the flags, lets them
//! override `[runner]` and `[models.<name>]` of the configuration, starts a run (or picks one up
//! with `--resume`), hands it to the runner and shows what the runner tells (see
//! [`crate::run_display`]). Ctrl-C asks the runner to pause cleanly; a second one quits at once.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use switchyard_catalog::Catalog;
use switchyard_command::{Allowlist, Confinement};
use switchyard_config::{Config, Overrides};
use switchyard_config::{ModelFlags, ResolvedModel, RunnerConfig, SendReasoning};
use switchyard_llm::{ApiKey, Endpoint};
use switchyard_runner::{
    Commands, Limits, ModelSpec, Models, PauseReason, Price, RetryPolicy, RunOptions, Runner, RunnerEvent, Target,
};
use switchyard_runtime::{Runtime, StartRequest};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::output::{Failure, Outcome, Printer};
use crate::run_display::{Ending, Mode, Progress};

/// `switchyard run`'s arguments; `--json` is the global one.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// A workflow name (see `switchyard list`) or a workflow file's path.
    #[arg(required_unless_present = "resume", conflicts_with = "resume")]
    pub workflow: Option<String>,
    /// What the run is for.
    #[arg(long, required_unless_present = "resume", conflicts_with = "resume")]
    pub goal: Option<String>,
    /// Pick up this run (or session) at its tip instead of starting one, whichever door started it.
    #[arg(long, value_name = "RUN")]
    pub resume: Option<String>,
    /// Initial context as a JSON object, or @FILE.
    #[arg(long, value_name = "JSON", conflicts_with = "resume")]
    pub context: Option<String>,
    /// The workspace the run is about (its git branch and HEAD are recorded). Default: --project.
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub workspace: Option<PathBuf>,
    /// Check every status report of the run strictly: all five fields required.
    #[arg(long, conflicts_with = "resume")]
    pub strict_status: bool,
    /// The model: a `[models.<name>]` of switchyard.toml, or the model id the server knows.
    #[arg(long, value_name = "NAME")]
    pub model: Option<String>,
    /// The server's base URL up to `/v1` (http://127.0.0.1:8080/v1 for llama.cpp, http://127.0.0.1:11434/v1 for Ollama).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// The environment variable holding the API key (its value is never printed or stored).
    #[arg(long, value_name = "VARIABLE")]
    pub api_key_env: Option<String>,
    /// Approve every gate the run reaches, recording that the runner did.
    #[arg(long)]
    pub auto_approve: bool,
    /// Pause the run after this many model turns in this drive (`--resume` starts a fresh count).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_turns: Option<u32>,
    /// Pause the run after this many tokens (prompt and completion) in this drive (`--resume`
    /// starts a fresh count).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_tokens: Option<u64>,
    /// Pause the run after working this long in this drive, waiting for people excluded: `90s`,
    /// `30m`, `2h`, `1h 30m` (`--resume` starts a fresh clock).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub max_time: Option<Duration>,
    /// Pause the run when one step has taken this many model turns in this drive.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub step_max_turns: Option<u32>,
    /// Pause the run when one step has used this many tokens in this drive.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub step_max_tokens: Option<u64>,
    /// Pause the run when one step has worked this long in this drive: `90s`, `30m`, `2h`.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub step_max_time: Option<Duration>,
}

/// Starts the run (or picks it up), drives it while showing what happens, and closes with how it
/// ended.
pub async fn run(printer: &Printer, overrides: Overrides, project: PathBuf, args: RunArgs) -> Result<Outcome, Failure> {
    let mode = Mode::choose(printer.json);
    let config = crate::opened::resolve(overrides)?;
    let opened = crate::opened::Opened::open(&config).await?;
    let (sender, receiver) = mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    pause_on_ctrl_c(cancel.clone());
    let display = tokio::spawn(crate::run_display::show(mode, receiver));
    let driven = drive(&config, &opened, project, args, sender, cancel).await;
    let progress = display.await.map_err(|error| Failure::environment(format!("the display stopped: {error}")))?;
    driven?;
    if mode != Mode::Json {
        printer.line(&closing(&progress))?;
    }
    Ok(outcome(&progress))
}

/// Hands the run to the runner: the models and options from the flags over the configuration,
/// the file tools of the file door on the same sandbox, and the run to start or pick up.
async fn drive(
    config: &Config,
    opened: &crate::opened::Opened,
    project: PathBuf,
    args: RunArgs,
    events: mpsc::UnboundedSender<RunnerEvent>,
    cancel: CancellationToken,
) -> Result<(), Failure> {
    let target = match &args.resume {
        Some(run) => Target::Resume(crate::named::run_id(&opened.runtime, run).await?),
        None => {
            let context = match &args.context {
                Some(text) => crate::named::json_object("--context", text)?,
                None => serde_json::Map::new(),
            };
            let (workflow, file) = crate::named::name_or_file(args.workflow.clone(), None);
            Target::Start(StartRequest {
                workflow,
                file,
                goal: args.goal.clone().unwrap_or_default(),
                context,
                workspace: Some(args.workspace.clone().unwrap_or_else(|| project.clone())),
                strict_status: args.strict_status,
            })
        }
    };
    let models = models(config, &args, &step_models(&opened.runtime, &opened.catalog, &target).await)?;
    let mut options = options(&config.runner, &args);
    options.commands = commands(config, &project);
    let files = Arc::new(opened.file_host(config));
    let runner = Runner::new(Arc::clone(&opened.runtime), opened.catalog.clone(), files, models, options);
    runner.drive(target, events, cancel).await.map_err(runner_failure)?;
    Ok(())
}

/// The model names the steps of the workflow to drive carry (a seed-004 stage's `model`, a
/// native step's); empty when the workflow cannot be read here, which `start` then reports.
async fn step_models(runtime: &Runtime, catalog: &Catalog, target: &Target) -> Vec<String> {
    let workflow = match target {
        Target::Resume(run) => match runtime.run(&switchyard_runtime::Target::Run(*run)).await {
            Ok(record) => {
                runtime.pinned_workflow(record.workflow_hash).await.ok().map(|loaded| loaded.workflow.clone())
            }
            Err(_) => None,
        },
        Target::Start(request) => {
            let found = match (&request.workflow, &request.file) {
                (_, Some(file)) => Catalog::file(file),
                (Some(name), None) => catalog.find(name),
                (None, None) => return Vec::new(),
            };
            found.ok().and_then(|found| found.compiled.workflow)
        }
    };
    let mut names: Vec<String> =
        workflow.iter().flat_map(|workflow| workflow.steps.iter().filter_map(|step| step.model.clone())).collect();
    names.sort();
    names.dedup();
    names
}

/// The models of this drive: the run's model (`--model`, else `[runner] model`) and every model
/// a step names (`step_names`), each resolved from `[models.<name>]` with the flags winning, its
/// key read from its variable. A step naming a model the configuration lacks stops the run before
/// it starts, as does a key variable that is not set.
fn models(config: &Config, args: &RunArgs, step_names: &[String]) -> Result<Models, Failure> {
    let flags = ModelFlags {
        model: args.model.clone(),
        base_url: args.base_url.clone(),
        api_key_env: args.api_key_env.clone(),
    };
    let timeout = config.runner.request_timeout();
    let run_model = config.run_model(&flags)?;
    let default_name = run_model.name.clone().unwrap_or_else(|| run_model.model.clone());
    let mut models = Models::single(default_name.clone(), spec(&run_model, timeout)?);
    for name in step_names.iter().filter(|name| **name != default_name) {
        let resolved = config.named_model(name, &flags)?;
        models.named.insert(name.clone(), spec(&resolved, timeout)?);
    }
    Ok(models)
}

/// What the runner needs of a resolved model, with its key read from its variable.
fn spec(model: &ResolvedModel, timeout: Duration) -> Result<ModelSpec, Failure> {
    model.check_key_in_environment()?;
    let api_key = model
        .api_key_env
        .as_deref()
        .and_then(|variable| std::env::var(variable).ok())
        .map(|key| ApiKey::new(key.trim()));
    Ok(ModelSpec {
        model_id: model.model.clone(),
        endpoint: Endpoint { base_url: model.base_url.clone(), api_key, timeout },
        temperature: model.temperature,
        max_tokens: model.max_tokens,
        context_window_tokens: model.context_window,
        price: model.price.map(|price| Price {
            prompt_usd_per_token: price.input_per_mtok / 1e6,
            completion_usd_per_token: price.output_per_mtok / 1e6,
        }),
        stream: model.stream,
        send_reasoning: match model.send_reasoning {
            SendReasoning::Auto => None,
            SendReasoning::Always => Some(true),
            SendReasoning::Never => Some(false),
        },
    })
}

/// How the runner drives: `[runner]` of the configuration, the flags winning.
fn options(runner: &RunnerConfig, args: &RunArgs) -> RunOptions {
    RunOptions {
        auto_approve: args.auto_approve || runner.auto_approve,
        run_limits: Limits {
            max_turns: Some(args.max_turns.unwrap_or(runner.max_turns)),
            max_tokens: Some(args.max_tokens.unwrap_or(runner.max_tokens)),
            max_time: Some(args.max_time.unwrap_or_else(|| runner.max_time())),
        },
        step_limits: Limits {
            max_turns: args.step_max_turns.or(runner.step_max_turns),
            max_tokens: args.step_max_tokens.or(runner.step_max_tokens),
            max_time: args.step_max_time.or_else(|| runner.step_max_time()),
        },
        stuck_repeats: runner.stuck_repeats,
        stuck_turns: runner.stuck_turns,
        max_tool_errors: runner.max_tool_errors,
        retry: RetryPolicy { max_attempts: runner.max_retries + 1, ..RetryPolicy::default() },
        ..RunOptions::default()
    }
}

/// The project's commands the model may run, from `[runner.commands]`; `None` when it allows
/// none. Says at start how they will be confined, or that the kernel cannot confine them.
fn commands(config: &Config, project: &Path) -> Option<Commands> {
    let configured = &config.runner.commands;
    if configured.allow.is_empty() {
        return None;
    }
    let confinement = describe_confinement(switchyard_command::confinement(), configured.network);
    say(&format!("switchyard: the model may run {confinement}"));
    let home = dirs::home_dir();
    let place = |path: &PathBuf| match (path.strip_prefix("~"), &home) {
        (Ok(rest), Some(home)) => home.join(rest),
        _ => project.join(path),
    };
    let places = config.protected_places();
    let mut unwritable = places.unwritable;
    unwritable.push(project.join(".git"));
    let mut secret = places.secret;
    // Credentials a command has no business reading: what it reads, the model reads.
    secret.extend(home.iter().flat_map(|home| CREDENTIALS.iter().map(move |place| home.join(place))));
    Some(Commands {
        allow: Allowlist::new(configured.allow.clone()),
        limits: switchyard_command::Limits {
            timeout: configured.timeout(),
            max_output_bytes: configured.max_output_bytes,
        },
        workspace: project.to_owned(),
        writable: configured.writable.iter().map(place).collect(),
        unwritable,
        secret,
        network: configured.network,
        env: configured.env.clone(),
    })
}

/// Places under the home folder that hold credentials, kept from commands.
const CREDENTIALS: [&str; 9] =
    [".ssh", ".aws", ".azure", ".config/gcloud", ".kube", ".docker", ".gnupg", ".netrc", ".git-credentials"];

/// The start-up line about commands' confinement: where the kernel cannot confine them, only
/// the allowlist stands between the model and the machine, which the person starting a run must
/// know.
fn describe_confinement(confinement: &Confinement, network: bool) -> String {
    let allowed = "the commands [runner.commands] allows";
    match confinement {
        Confinement::Landlock { abi, network: closable } => {
            let tcp = match (network, closable) {
                (true, _) => "TCP allowed (network = true)",
                (false, true) => "no TCP",
                (false, false) => "TCP open all the same: this kernel's Landlock cannot close it (ABI 4 can)",
            };
            format!(
                "{allowed}, confined by Landlock (ABI {abi}): writes only in the workspace and a private temporary folder, {tcp}"
            )
        }
        Confinement::Unavailable { reason } => {
            format!("{allowed} UNCONFINED ({reason}): only the allowlist limits what runs")
        }
    }
}

/// A runner error as the CLI reports it: an unknown model is a usage error (nothing started).
fn runner_failure(error: switchyard_runner::Error) -> Failure {
    match error {
        switchyard_runner::Error::Runtime(error) => error.into(),
        error @ switchyard_runner::Error::UnknownModel { .. } => {
            Failure { code: error.code().to_owned(), ..Failure::usage(error.to_string()) }
        }
        error => Failure { code: error.code().to_owned(), ..Failure::environment(error.to_string()) },
    }
}

/// A duration as a person writes it: `90s`, `30m`, `2h`, `1h 30m` (or ISO 8601, `PT30M`).
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let refused = || format!("`{text}` is not a duration: write it like 90s, 30m, 2h or 1h 30m");
    let parsed: jiff::SignedDuration = text.trim().parse().map_err(|_| refused())?;
    let duration = Duration::try_from(parsed).map_err(|_| refused())?;
    if duration.is_zero() {
        return Err(format!("`{text}` is no time at all: give the run at least a second, like 30m"));
    }
    Ok(duration)
}

/// How `switchyard run` exits, from how the runner stopped: 0 when the run completed, 1 when it
/// failed or paused for a rule (a stuck model, a limit, tool errors, a pause from elsewhere), 2 when
/// the environment stopped it (the server refused the key or the model, or stayed down), 130
/// when a person pressed Ctrl-C.
pub fn outcome(progress: &Progress) -> Outcome {
    match &progress.ending {
        Some(Ending::Finished { status }) if status == "completed" => Outcome::Success,
        Some(Ending::Finished { .. }) | None => Outcome::RuleViolation,
        Some(Ending::Paused { reason, .. }) => match reason {
            PauseReason::Interrupted => Outcome::Interrupted,
            PauseReason::ModelRefused
            | PauseReason::ModelUnavailable
            | PauseReason::RequestRejected
            | PauseReason::ContextFull => Outcome::EnvironmentProblem,
            PauseReason::LimitReached | PauseReason::Stuck | PauseReason::ToolErrors | PauseReason::PausedElsewhere => {
                Outcome::RuleViolation
            }
        },
    }
}

/// The closing lines on stdout (without `--json`): how the run ended and, when it paused, how to
/// pick it up again.
pub fn closing(progress: &Progress) -> String {
    let spent = format!(
        "{} turns, {}{} tokens{}",
        progress.turns,
        if progress.tokens_estimated { "~" } else { "" },
        crate::run_display::tokens(progress.prompt_tokens + progress.completion_tokens),
        progress.cost_usd.map(|cost| format!(", {}", crate::run_display::dollars(cost))).unwrap_or_default()
    );
    match &progress.ending {
        Some(Ending::Finished { status }) => format!("run {} {status} ({spent})", progress.run),
        Some(Ending::Paused { reason, message, resume }) => format!(
            "run {} paused ({}): {message}\n({spent})\nresume with: {resume}",
            progress.run,
            switchyard_core::wire_name(reason)
        ),
        None => format!("run {} stopped before its end ({spent})", progress.run),
    }
}

/// Watches for Ctrl-C and SIGTERM while the runner drives: the first one cancels `cancel` (the
/// runner pauses the run at the next safe point and says how to resume), a second quits at once,
/// which is safe too: everything done so far is in the store, and `--resume` continues from
/// there. SIGTERM is what `kill`, systemd and container runtimes send: it pauses the same way.
pub fn pause_on_ctrl_c(cancel: CancellationToken) {
    tokio::spawn(async move {
        let mut terminate = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(terminate) => Some(terminate),
            Err(error) => {
                tracing::warn!(%error, "SIGTERM cannot be watched; only Ctrl-C pauses the run cleanly");
                None
            }
        };
        let mut stop = async || {
            tokio::select! {
                signal = tokio::signal::ctrl_c() => signal.is_ok().then_some("Ctrl-C"),
                Some(()) = async { terminate.as_mut()?.recv().await } => Some("SIGTERM"),
            }
        };
        let Some(first) = stop().await else { return };
        cancel.cancel();
        say(&format!("\nswitchyard: {first}: pausing the run after the current request (Ctrl-C again to quit now)"));
        if stop().await.is_some() {
            say("switchyard: quit; the run resumes with `switchyard run --resume <run>`");
            std::process::exit(130);
        }
    });
}

#[allow(clippy::print_stderr)]
fn say(line: &str) {
    eprintln!("{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_read_as_people_write_them() {
        assert_eq!(parse_duration("30m"), Ok(Duration::from_secs(1800)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("1h 30m"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_duration("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(
            parse_duration("soon"),
            Err("`soon` is not a duration: write it like 90s, 30m, 2h or 1h 30m".to_owned())
        );
        assert!(parse_duration("0s").unwrap_err().contains("no time at all"));
        assert!(parse_duration("-5m").is_err());
    }

    fn ended(ending: Ending) -> Progress {
        Progress { run: "run_1".into(), ending: Some(ending), ..Progress::default() }
    }

    fn paused(reason: PauseReason) -> Progress {
        ended(Ending::Paused { reason, message: "why".into(), resume: "switchyard run --resume run_1".into() })
    }

    #[test]
    fn exit_codes_follow_how_the_run_stopped() {
        let code = |progress: &Progress| outcome(progress).exit_code();
        assert_eq!(code(&ended(Ending::Finished { status: "completed".into() })), 0);
        assert_eq!(code(&ended(Ending::Finished { status: "failed".into() })), 1);
        assert_eq!(code(&paused(PauseReason::LimitReached)), 1);
        assert_eq!(code(&paused(PauseReason::Stuck)), 1);
        assert_eq!(code(&paused(PauseReason::ToolErrors)), 1);
        assert_eq!(code(&paused(PauseReason::ModelRefused)), 2);
        assert_eq!(code(&paused(PauseReason::ModelUnavailable)), 2);
        assert_eq!(code(&paused(PauseReason::RequestRejected)), 2);
        assert_eq!(code(&paused(PauseReason::ContextFull)), 2);
        assert_eq!(code(&paused(PauseReason::Interrupted)), 130);
        assert_eq!(code(&Progress::default()), 1);
    }

    #[test]
    fn a_paused_run_closes_with_how_to_resume() {
        let text = closing(&paused(PauseReason::LimitReached));
        assert_eq!(
            text,
            "run run_1 paused (limit_reached): why\n(0 turns, 0 tokens)\nresume with: switchyard run --resume run_1"
        );
        let estimated =
            Progress { turns: 3, prompt_tokens: 9000, tokens_estimated: true, ..paused(PauseReason::Stuck) };
        assert!(closing(&estimated).contains("(3 turns, ~9.0k tokens)"), "{}", closing(&estimated));
    }
}
