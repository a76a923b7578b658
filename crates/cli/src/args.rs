//! The command line, declared with clap.

use std::path::PathBuf;

use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand};
use switchyard_core::RunStatus;

use crate::inspect::InspectFormat;
use crate::output::{ColorChoice, LogFormat};

const AFTER_HELP: &str = "\
Exit codes:
  0  success
  1  a workflow rule said no: invalid workflow, blocked advance, refused command, failed verify
  2  usage or environment error: bad arguments, unknown id, bad token, store or file problem

Data goes to stdout, everything else to stderr. Colour only on a terminal; NO_COLOR is respected.
Logs: SWITCHYARD_LOG=debug (tracing filter syntax); --log-format json for one JSON object a line.";

/// switchyard keeps LLM agents on rails: one step at a time, checked, recorded, resumable.
#[derive(Debug, Parser)]
#[command(name = "switchyard", version, about, after_help = AFTER_HELP, styles = HELP_STYLES)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    #[command(subcommand)]
    pub command: Commands,
}

/// Help as cargo prints it: headings and flags stand out, placeholders are quiet.
const HELP_STYLES: clap::builder::Styles = clap::builder::Styles::styled()
    .header(anstyle::AnsiColor::Green.on_default().bold())
    .usage(anstyle::AnsiColor::Green.on_default().bold())
    .literal(anstyle::AnsiColor::Cyan.on_default().bold())
    .placeholder(anstyle::AnsiColor::Cyan.on_default());

/// Options every command takes; `--help` lists them under their own heading, after the
/// command's own.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub struct Global {
    /// Print machine-readable JSON on stdout (stable; snapshot-tested).
    #[arg(long, global = true)]
    pub json: bool,
    /// switchyard's home: keys, user workflows, the default store. [env: SWITCHYARD_HOME]
    #[arg(long, global = true, value_name = "DIR")]
    pub home: Option<PathBuf>,
    /// The store: a SQLite file (default: $SWITCHYARD_HOME/switchyard.sqlite3, or switchyard.toml's [store] path), or a PostgreSQL database as postgres://user@host:port/database. [env: SWITCHYARD_STORE]
    // The text is the `--help` line, where `[store]` names the configuration's section, not an item.
    #[allow(rustdoc::broken_intra_doc_links)]
    #[arg(long, global = true, value_name = "FILE|URL")]
    pub store: Option<PathBuf>,
    /// The project whose .switchyard/workflows/ is searched first (default: the current directory).
    #[arg(long, global = true, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// When to colour text output.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// How log lines on stderr look: `text` for people, `json` (one object a line) for log collectors.
    #[arg(long, global = true, value_enum, env = "SWITCHYARD_LOG_FORMAT", default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

#[derive(Debug, Subcommand)]
pub enum Commands {
    /// Walk a built-in workflow end to end in a temporary store and show what happened.
    Quickstart,
    /// Set up a project: a documented switchyard.toml and an example workflow (never overwrites a file).
    Init,
    /// Check the store, the key file, the configuration, the workflows and MCP client setups; print fixes.
    Doctor,
    /// Print a shell completion script (e.g. `switchyard completions bash > ~/.local/share/bash-completion/completions/switchyard`).
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print a man page as roff (`switchyard man start | man -l -`), or write every page with --out.
    Man {
        /// The command whose page to print (`start`, `keys rotate`); none for the whole command line's.
        command: Vec<String>,
        /// Write every page into this folder instead, one file each (`switchyard.1`, `switchyard-start.1`, …), e.g. ~/.local/share/man/man1.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        out: Option<PathBuf>,
    },
    /// Check workflows, prompt files' frontmatter and (with --strict) mirrored folders; report every problem with its location.
    Validate(crate::validate::ValidateArgs),
    /// Print a JSON Schema (draft 2020-12).
    Schema {
        /// Which schema: `workflow` (the native workflow format) or `state` (the state document frontmatter).
        #[arg(default_value = "workflow")]
        which: String,
    },
    /// List the workflows visible from here, where each comes from and what it shadows.
    List,
    /// Show a workflow's whole compiled graph: steps, edges, conditions, gates, limits, hash.
    Inspect {
        /// A workflow name.
        name: Option<String>,
        /// A workflow file instead of a name.
        #[arg(long, conflicts_with = "name")]
        file: Option<PathBuf>,
        /// The built-in workflow of this name as this switchyard embeds it, even where the project or the user folder holds one of the same name.
        #[arg(long, value_name = "NAME", conflicts_with_all = ["name", "file"])]
        builtin: Option<String>,
        /// What to write: `text` for people, `json` (as --json), the graph as a Mermaid flowchart or Graphviz DOT for a README or design doc, or the `source` as written (`--builtin code-review --format source` to vendor a built-in again). Default: text, or json under --json.
        #[arg(long, value_enum, value_name = "FORMAT")]
        format: Option<InspectFormat>,
    },
    /// Start a run and print its first step.
    Start {
        /// A workflow name (see `switchyard list`).
        workflow: Option<String>,
        /// A workflow file instead of a name.
        #[arg(long, conflicts_with = "workflow")]
        file: Option<PathBuf>,
        /// What the run is for.
        #[arg(long)]
        goal: String,
        /// Initial context as a JSON object, or @FILE.
        #[arg(long, value_name = "JSON")]
        context: Option<String>,
        /// The workspace the run is about (its git branch and HEAD are recorded). Default: --project.
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
        /// Check every status report of the run strictly: all five fields required.
        #[arg(long)]
        strict_status: bool,
    },
    /// Show the pending step of a run (or of any earlier point, to fork from it).
    Show {
        /// A run, session or node id, or a token.
        target: String,
    },
    /// Report on the pending step and move the run on.
    Continue {
        /// The continue token (`ct_…`) from the last response.
        token: String,
        /// Refuse the token unless it belongs to this run (or session).
        #[arg(long, value_name = "RUN")]
        run: Option<String>,
        #[command(flatten)]
        report: Report,
    },
    /// Drive a run to its end with an OpenAI-compatible model (or pick one up with --resume); see docs/runner.md.
    Run(crate::run::RunArgs),
    /// Show what the model saw and did in a run the runner drove: per step and turn.
    Transcript(crate::transcript::TranscriptArgs),
    /// Show a run's status.
    Status {
        /// A run, session or node id, or a token.
        target: String,
        /// Also explain each decision that brought the run to its tip: the conditions and checks
        /// switchyard evaluated, what they read, and the change that would have taken another way.
        #[arg(long)]
        why: bool,
    },
    /// Show a session's event log.
    Log {
        /// A run, session or node id, or a token.
        target: String,
        /// Only events after this sequence number.
        #[arg(long, default_value_t = 0)]
        after: u64,
        /// At most this many events.
        #[arg(long, default_value_t = 200)]
        limit: u32,
    },
    /// List sessions, most recently active first.
    Sessions {
        /// Only sessions with this status.
        #[arg(long, value_parser = run_status())]
        status: Option<RunStatus>,
        /// Only sessions running this workflow.
        #[arg(long)]
        workflow: Option<String>,
        /// Only sessions started in this workspace, as the session recorded it (`--workspace` of
        /// `start`, or the project; an MCP client's `workspacePath`).
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
        /// Only sessions started on this git branch.
        #[arg(long)]
        branch: Option<String>,
        /// At most this many sessions (max 1000).
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
    /// Approve the result a gate waits on.
    Approve {
        /// A run or session id.
        run: String,
        #[arg(long)]
        note: Option<String>,
    },
    /// Reject the result a gate waits on; the step goes back to the agent with the reason.
    Reject {
        /// A run or session id.
        run: String,
        #[arg(long)]
        reason: String,
    },
    /// Pick an option where a run waits for a human decision (accept, revise, replan, proceed, stop).
    Decide {
        /// A run or session id.
        run: String,
        /// One of the options the run offers.
        option: String,
        #[arg(long)]
        note: Option<String>,
    },
    /// Pause a run: no advance is accepted until it is resumed.
    Pause {
        run: String,
        #[arg(long)]
        reason: Option<String>,
    },
    /// Resume a paused run.
    Resume { run: String },
    /// Stop a run for good.
    Stop {
        run: String,
        #[arg(long)]
        reason: Option<String>,
    },
    /// Record notes on the current step without advancing.
    Checkpoint {
        /// The checkpoint token (`ck_…`).
        token: String,
        /// Refuse the token unless it belongs to this run (or session).
        #[arg(long, value_name = "RUN")]
        run: Option<String>,
        /// Notes as text; `-` reads stdin.
        #[arg(long, conflicts_with = "notes_file")]
        notes: Option<String>,
        /// Notes from a file.
        #[arg(long, value_name = "FILE")]
        notes_file: Option<PathBuf>,
    },
    /// Check every session's hash chain and every projection; say exactly what is wrong.
    Verify,
    /// Print every effective setting of switchyard.toml, the environment and the flags, with where it came from.
    Config,
    /// Move a store: `switchyard store copy --from store.db --to postgres://…` (and back).
    Store {
        #[command(subcommand)]
        action: crate::store_copy::StoreAction,
    },
    /// Manage the token signing keys.
    Keys {
        #[command(subcommand)]
        action: KeysAction,
    },
    /// Serve MCP over stdio for Claude Code, Cursor and other MCP clients (only protocol frames on stdout).
    Mcp(crate::serve::McpArgs),
    /// Serve MCP at /mcp and the web console at / (127.0.0.1:7878 by default; off loopback needs --token).
    Serve(crate::serve::ServeArgs),
    /// Call a file tool on a run as an agent would (`switchyard tool list` prints every tool).
    Tool {
        /// read_file, list_files, save_output, write_file, apply_patch, update_frontmatter, preload_workflow, or `list`.
        name: String,
        /// The tool's arguments as a JSON object.
        #[arg(default_value = "{}")]
        arguments: String,
        /// The run (or session) the tool acts on.
        #[arg(long)]
        run: Option<String>,
    },
    /// Convert a workflow in any supported format (WorkRail JSON, ...) to native YAML; lossy spots go to stderr.
    Import {
        /// The workflow file to convert.
        path: PathBuf,
        /// The target format.
        #[arg(long, default_value = "native")]
        to: String,
        /// Write the YAML here instead of stdout.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

/// A run status in the words `--json` uses; a wrong one is refused with the list of them.
fn run_status() -> impl TypedValueParser<Value = RunStatus> {
    clap::builder::PossibleValuesParser::new(RunStatus::ALL.map(RunStatus::as_str))
        .map(|text| text.parse::<RunStatus>().expect("every possible value is a status"))
}

#[derive(Debug, Subcommand)]
pub enum KeysAction {
    /// Make a new signing key; tokens signed with the old one keep working until the next rotation.
    Rotate,
}

/// What the agent reports when it advances.
#[derive(Debug, Args)]
pub struct Report {
    /// Notes (markdown) as text; `-` reads stdin.
    #[arg(long, conflicts_with = "notes_file")]
    pub notes: Option<String>,
    /// Notes from a file.
    #[arg(long, value_name = "FILE")]
    pub notes_file: Option<PathBuf>,
    /// Artifacts as a JSON value, or @FILE.
    #[arg(long, value_name = "JSON")]
    pub artifacts: Option<String>,
    /// A context delta as a JSON object (null deletes a key), or @FILE.
    #[arg(long, value_name = "JSON")]
    pub context: Option<String>,
    /// The label of the edge to take, where the step asks you to choose.
    #[arg(long)]
    pub choice: Option<String>,
}
