//! `switchyard init`: sets a project up for switchyard: a `switchyard.toml` that documents every
//! key with its default, and `.switchyard/workflows/` with one example workflow. It never
//! overwrites a file, so running it again changes nothing and says what is already there.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use switchyard_config::{CONFIG_FILE, PROJECT_FOLDER};

use crate::output::{Failure, Outcome, Printer};

/// The example workflow's file name under `.switchyard/workflows/`.
pub const EXAMPLE_FILE: &str = "small-change.yaml";
/// The example workflow's id, as `switchyard start` names it.
pub const EXAMPLE_ID: &str = "small-change";

/// The `switchyard.toml` that `init` writes. A line `#key = value` (no space after `#`) is a
/// key at its default: uncommented, it changes nothing (a test checks it). Paths whose default
/// depends on the home are described in prose instead.
pub const CONFIG_TEMPLATE: &str = r#"# switchyard.toml: settings for switchyard in this project.
#
# switchyard reads this file (at the project root) first, then $SWITCHYARD_HOME/switchyard.toml;
# for each key the first file that sets it wins, and command-line flags win over both.
# Every key below is commented out at its default: remove the `#` to change one.
# Relative paths are relative to the file that names them.
#
# Each key can also be set in the environment as SWITCHYARD_<SECTION>_<KEY>, in capitals, with the
# key's own name not repeating its section's: `[audit] audit_min_confidence` is
# SWITCHYARD_AUDIT_MIN_CONFIDENCE, `[serve] port` is SWITCHYARD_SERVE_PORT.
#
# `switchyard doctor` checks this file; an unknown or misspelled key is an error naming it.

[store]
# The SQLite file holding every session's event log.
# Default: $SWITCHYARD_HOME/switchyard.sqlite3 (also set by --store or SWITCHYARD_STORE).
# path = "switchyard.sqlite3"
# A PostgreSQL database instead of the file, for several servers sharing one store
# (docs/postgres.md); also set by --store postgres://… or SWITCHYARD_STORE_URL. Leave the password
# out: it is read from PGPASSWORD or ~/.pgpass. No default: the SQLite file.
# url = "postgres://switchyard@db.example:5432/switchyard"

[runs]
# Where each run's output folder (manifest, state document, saved outputs) is created.
# Default: $SWITCHYARD_HOME/runs, never inside a repository by surprise.
# output_root = "runs"

[files]
# Whether the file tools may write under {project-root}, this project.
#project_writable = false
# Built-in assets, {core-root}. Default: $SWITCHYARD_HOME/core.
# core_root = "core"

[serve]
# Defaults for `switchyard serve` (MCP over HTTP at /mcp); its flags win over these.
# The address to bind. Anything but loopback needs a bearer token.
#host = "127.0.0.1"
#port = 7878
# The bearer token clients must send (`Authorization: Bearer <token>`): name a file only you
# can read (`chmod 600`), or write the token here in a file only you can read; not both.
# No default: without a token, `serve` accepts only loopback clients.
# token_file = "serve-token"
# token = "a long random secret"
# Host header values to accept besides loopback names (name or name:port).
#allowed_hosts = []
# Browser origins to accept besides loopback origins (scheme://host[:port]).
#allowed_origins = []
# Open connections at most; past it the oldest connection not yet let in is closed.
#max_connections = 256
# Connections at most that have not yet sent a request the guard let through.
#max_pending_connections = 64
# Seconds a client may take to send a request's headers (and a kept-alive connection may idle).
#header_timeout_seconds = 10
# Seconds a client may take to send a request's body.
#body_timeout_seconds = 30
# MCP sessions at most; past it a new `initialize` is refused.
#max_sessions = 256
# Seconds an MCP session may stay idle before it is closed.
#session_idle_seconds = 300

[audit]
# Audit steps' findings: a `blocked` finding with less confidence than this (0.0 to 1.0) is
# downgraded to a warning and does not block the step.
#audit_min_confidence = 0.8

[evidence]
# The commands workflows' evidence checks and `run` steps run (docs/evidence.md).
# Whether they may run at all; off, a workflow asking for one is refused when a run starts.
#commands = true
# Where `switchyard serve` runs them (and the folders below); it runs none elsewhere. The CLI,
# the runner and `switchyard mcp` run them in any run's workspace.
# trusted_workspaces = ["."]
# The longest a command may run, whatever its workflow asks.
#max_timeout_seconds = 3600
# The end of each output stream kept while a command runs; the rest is counted and hashed.
#max_output_bytes = 1048576

[project]
# The command that runs this project's tests: workflows written for any project (the built-in
# tested-change) run it as a step and send a failure back. A string runs with `sh -c`, a list as
# it is. A run keeps the command it started with; without one, such a step is skipped.
# No default.
# test_command = "cargo test"

[execution]
# Limits for workflows that do not set their own (a workflow's `limits` win).
# Rejected or revised results of one step before a human decides.
#max_revision_attempts = 3
# Replans of a run before a human decides.
#max_replan_attempts = 2

[runner]
# Defaults for `switchyard run`, which drives a workflow with a model; its flags win over these.
# The model to use: a name of a [models.<name>] table below, or else a model id sent to base_url.
# model = "local"
# The server for models whose table names none, up to /v1.
# base_url = "http://localhost:11434/v1"
# The NAME of the environment variable holding the API key (never the key itself: a key
# written in this file is refused). None: no key is sent, as local servers want.
# api_key_env = "OPENAI_API_KEY"
# Limits per drive of a run (one `switchyard run`); reaching one pauses the run, and
# `switchyard run --resume` goes on with a fresh budget.
#max_turns = 200
#max_tokens = 2000000
#max_time_seconds = 14400
# Limits per step, none by default; reaching one pauses the run the same way.
# step_max_turns = 40
# step_max_tokens = 400000
# step_max_time_seconds = 3600
# Seconds one model request may take.
#request_timeout_seconds = 300
# Retries of a request that failed with 429, 5xx, a timeout or a broken connection.
#max_retries = 6
# A stuck model pauses the run: the same tool call this many times in a row, or this many turns
# without a file change, a checkpoint or a completed step.
#stuck_repeats = 3
#stuck_turns = 12
# Tool errors in a row (bad arguments, an unknown tool, text instead of a call) before a pause.
#max_tool_errors = 5
# Whether the runner approves human gates itself (and records that it did).
#auto_approve = false

# The project's commands the model may run with its run_command tool; none by default. Each is
# an argv prefix, word for word, run without a shell in the workspace, its process group killed
# after timeout_seconds, and on Linux confined by Landlock to writing in the workspace.
# [runner.commands]
# allow = ["cargo test", "python3 -m unittest"]
# timeout_seconds = 600
# The tail of stdout and of stderr the model reads.
# max_output_bytes = 32768
# Whether commands may open TCP connections.
# network = false
# Places besides the workspace they may write (~/ is the home folder).
# writable = ["~/.cargo"]
# Variables passed beside PATH, HOME, USER, LANG and TZ; never a key's, a token's or switchyard's.
# env = ["CARGO_HOME"]

# Named models, one table each: [models.<name>], the name yours. No model by default.
# [models.<name>]
# base_url = "https://api.openai.com/v1"
# The model id sent to the server. Default: the table's name.
# model = "gpt-4.1"
# api_key_env = "OPENAI_API_KEY"
# temperature = 0.2
# The most tokens one answer may have.
# max_tokens = 4096
# The tokens the model can read; the runner trims a conversation to fit.
# context_window = 128000
# US dollars per million tokens, for cost estimates.
# input_price_per_mtok = 2.0
# output_price_per_mtok = 8.0
# Ask for streamed answers, for servers and gateways that only stream.
# stream = false
# Send a reasoning model's reasoning back: "auto" until the server refuses it, "always", "never".
# send_reasoning = "auto"

[validate]
# What `switchyard validate` checks besides workflows. Globs and folders are relative to the
# project root.
#
# The frontmatter of Markdown prompt files is checked against rule sets. With no
# [[validate.prompts]] below, the four built-in rule sets (presets) apply at their places:
# claude-command (**/.claude/commands/**/*.md), claude-agent (**/.claude/agents/**/*.md),
# claude-skill (**/.claude/skills/*/SKILL.md) and spw-command (commands/spw/*.md).
# A [[validate.prompts]] list REPLACES all four: only the listed rule sets apply, unless
# keep_presets is true, which keeps the presets after the listed ones.
#keep_presets = false
#
# A rule set: a glob, optionally a `preset` to start from (one of the four), and `fields` that
# add to it or replace its rule of the same name. A field's `type` is string, string_array, enum,
# number or boolean; `values` lists an enum's values, `pattern` is a regular expression for
# strings. This one narrows Claude Code commands' `model` to three aliases:
# [[validate.prompts]]
# glob = ".claude/commands/**/*.md"
# preset = "claude-command"
# [[validate.prompts.fields]]
# name = "model"
# required = false
# type = "enum"
# values = ["haiku", "sonnet", "opus"]
#
# Folders that must hold exactly the same files.
# [[validate.mirrors]]
# source = "commands"
# mirror = "copy-ready/commands"
"#;

/// The example workflow: two steps, an output check on the notes, an output contract on the
/// artifacts, and a human gate.
pub const EXAMPLE_WORKFLOW: &str = r#"# An example workflow written by `switchyard init`: edit it, copy it, or delete it.
# The format: `switchyard schema workflow`, and docs/workflow-format.md in switchyard's sources.
id: small-change
version: "1"
title: Make a small change, reviewed
description: Plan a small change, make it, and have a human approve the result.

steps:
  - id: plan
    title: Plan the change
    notes: required
    prompt: |
      Goal: {{ goal }}
      Write a short plan: what you will change, and how you will check that it works.
      End with a line that starts with "Check:" and says how you will check it.
    # An output check: an advance whose notes lack "Check:" is blocked with this message.
    checks:
      - kind: contains
        value: "Check:"
        message: end the plan with a line starting with "Check:" that says how you will check the change
    next: change

  - id: change
    title: Make the change
    # A gate: a human approves (or rejects, with a reason) before the run can finish.
    gate: true
    prompt: |
      Make the change you planned for: {{ goal }}
      {% if rejection %}The reviewer asked for more: {{ rejection }}{% endif %}
      Report the files you changed as artifacts, and in the notes what you checked.
    # An output contract: the artifacts must be an object listing at least one changed file.
    output:
      type: object
      required: [files]
      properties:
        files:
          type: array
          minItems: 1
          items: {type: string}
"#;

/// What `init` did with one path.
#[derive(Debug, Serialize)]
struct Item {
    path: PathBuf,
    /// `created`, or `exists` (left as it was).
    action: &'static str,
}

#[derive(Debug, Serialize)]
struct InitReport {
    project: PathBuf,
    items: Vec<Item>,
    /// The commands to run next.
    next: Vec<String>,
}

/// Sets `project` up; an existing file or folder is left as it is.
pub fn run(printer: &Printer, project: &Path) -> Result<Outcome, Failure> {
    let metadata = std::fs::metadata(project).map_err(|error| {
        Failure::usage(format!("cannot use {} as the project folder: {error}; create it first", project.display()))
    })?;
    if !metadata.is_dir() {
        return Err(Failure::usage(format!(
            "{} is not a folder: pass the project folder with --project, or run init inside it",
            project.display()
        )));
    }
    let workflows = project.join(PROJECT_FOLDER).join("workflows");
    let items = vec![
        write_new(&project.join(CONFIG_FILE), CONFIG_TEMPLATE)?,
        create_folder(&workflows)?,
        write_new(&workflows.join(EXAMPLE_FILE), EXAMPLE_WORKFLOW)?,
    ];
    let report = InitReport { project: project.to_owned(), items, next: next_commands(project) };
    if printer.json {
        printer.json(&report)?;
        return Ok(Outcome::Success);
    }
    for item in &report.items {
        let relative = item.path.strip_prefix(project).unwrap_or(&item.path);
        let action = match item.action {
            "created" => printer.green("created"),
            _ => printer.dim("exists, left as is:"),
        };
        printer.line(&format!("{action} {}", relative.display()))?;
    }
    printer.line(&format!("\n{}", printer.bold("next:")))?;
    for command in &report.next {
        printer.line(&format!("  {command}"))?;
    }
    Ok(Outcome::Success)
}

/// Validate the example, start it, and check the setup; with `--project` when the project is not
/// the current directory, so each command can be pasted as it is.
fn next_commands(project: &Path) -> Vec<String> {
    let here = std::env::current_dir().ok().and_then(|dir| dir.canonicalize().ok());
    let project_flag = match (here, project.canonicalize().ok()) {
        (Some(here), Some(project)) if here == project => String::new(),
        _ => format!(" --project {}", shell_word(&project.display().to_string())),
    };
    let workflows = Path::new(PROJECT_FOLDER).join("workflows");
    let validated = if project_flag.is_empty() {
        workflows.display().to_string()
    } else {
        shell_word(&project.join(&workflows).display().to_string())
    };
    vec![
        format!("switchyard validate {validated}"),
        format!("switchyard start {EXAMPLE_ID}{project_flag} --goal \"Describe the small change you want\""),
        format!("switchyard doctor{project_flag}"),
    ]
}

/// A path quoted for a POSIX shell when it holds anything but plain characters.
fn shell_word(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c)) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

fn create_folder(path: &Path) -> Result<Item, Failure> {
    if path.is_dir() {
        return Ok(Item { path: path.to_owned(), action: "exists" });
    }
    std::fs::create_dir_all(path)
        .map_err(|error| Failure::environment(format!("cannot create {}: {error}", path.display())))?;
    Ok(Item { path: path.to_owned(), action: "created" })
}

/// Writes `text` to `path` unless something is there already. The text goes to a temporary file
/// beside it that is then linked into place without replacing anything, so neither a crash nor a
/// file created meanwhile by someone else ends up half-written or overwritten.
fn write_new(path: &Path, text: &str) -> Result<Item, Failure> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Ok(Item { path: path.to_owned(), action: "exists" });
    }
    let folder = path.parent().unwrap_or(Path::new("."));
    let cannot =
        |error: &dyn std::fmt::Display| Failure::environment(format!("cannot write {}: {error}", path.display()));
    let mut temporary = tempfile::NamedTempFile::new_in(folder).map_err(|error| cannot(&error))?;
    temporary.write_all(text.as_bytes()).map_err(|error| cannot(&error))?;
    temporary.as_file().sync_all().map_err(|error| cannot(&error))?;
    match temporary.persist_noclobber(path) {
        Ok(_) => Ok(Item { path: path.to_owned(), action: "created" }),
        Err(error) if error.error.kind() == std::io::ErrorKind::AlreadyExists => {
            Ok(Item { path: path.to_owned(), action: "exists" })
        }
        Err(error) => Err(cannot(&error.error)),
    }
}

#[cfg(test)]
mod tests {
    use switchyard_config::ServeConfig;
    use switchyard_config::{Config, Overrides};

    use super::*;

    fn resolve(home: &Path, project: &Path) -> Config {
        Config::resolve(Overrides { home: Some(home.to_owned()), store: None, project_root: Some(project.to_owned()) })
            .unwrap_or_else(|error| panic!("{error}"))
    }

    /// The template's `#key = value` lines are the loader's defaults: uncommenting all of them
    /// gives the same configuration as no file at all.
    #[test]
    fn the_config_template_documents_every_key_the_loader_knows() {
        for key in switchyard_config::keys::KEYS {
            let documented = match key.kind {
                switchyard_config::keys::Kind::Tables => {
                    CONFIG_TEMPLATE.contains(&format!("[[{}.{}]]", key.section, key.name))
                }
                _ => {
                    let section = CONFIG_TEMPLATE.split(&format!("[{}]\n", key.section)).nth(1).unwrap_or_default();
                    let section = section.split("\n[").next().unwrap_or_default();
                    section
                        .lines()
                        .any(|line| line.trim_start_matches('#').trim_start().starts_with(&format!("{} =", key.name)))
                }
            };
            assert!(documented, "`{}` is not documented in switchyard init's template", key.dotted());
        }
    }

    /// The template says which rule sets apply when it configures none, and that a list replaces them.
    #[test]
    fn the_config_template_names_the_presets_and_says_a_rule_set_list_replaces_them() {
        for preset in switchyard_config::prompt_rules::PRESETS {
            let named = format!("{} ({})", preset.name, preset.glob);
            assert!(CONFIG_TEMPLATE.contains(&named), "the template does not name {named}");
        }
        assert_eq!(switchyard_config::prompt_rules::PRESETS.len(), 4, "the template counts them");
        assert!(CONFIG_TEMPLATE.contains("A [[validate.prompts]] list REPLACES all four"));
        assert!(!CONFIG_TEMPLATE.contains("No rules by default"));
    }

    #[test]
    fn the_config_template_states_the_loaders_defaults() {
        let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let uncommented: String = CONFIG_TEMPLATE
            .lines()
            .map(|line| match line.strip_prefix('#') {
                Some(rest) if rest.starts_with(|c: char| c.is_ascii_lowercase()) => rest,
                _ => line,
            })
            .map(|line| format!("{line}\n"))
            .collect();
        assert!(uncommented.contains("\nport = 7878\n"), "{uncommented}");
        std::fs::write(project.path().join(CONFIG_FILE), &uncommented).unwrap();
        let mut explicit = resolve(home.path(), project.path());
        // `serve`'s defaults live in `serve`: the loader leaves its keys unset.
        let serve = std::mem::take(&mut explicit.serve);
        assert_eq!(serve.host, Some(std::net::IpAddr::from([127, 0, 0, 1])));
        assert_eq!(serve.port, Some(crate::serve::DEFAULT_PORT));
        assert_eq!(crate::serve::http_limits(&serve.limits), switchyard_mcp::HttpLimits::default());
        assert_eq!((serve.allowed_hosts, serve.allowed_origins), (Some(Vec::new()), Some(Vec::new())));
        assert!(serve.token.is_none());
        let mut defaults = resolve(home.path(), tempfile::tempdir().unwrap().path());
        defaults.project_root = explicit.project_root.clone();
        defaults.serve = ServeConfig::default();
        // Where each value came from differs (the file against the defaults); the values may not.
        explicit.origins.clear();
        defaults.origins.clear();
        assert_eq!(format!("{explicit:?}"), format!("{defaults:?}"));
    }
}
