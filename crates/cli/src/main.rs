//! The `switchyard` binary: parses the command line, runs one command, maps the outcome to an
//! exit code (0 ok, 1 a workflow rule said no, 2 usage or environment).

mod args;
mod commands;
mod config_command;
mod doctor;
mod generate;
mod import;
mod init;
mod inspect;
mod named;
mod next;
mod opened;
mod output;
mod quickstart;
mod run;
mod run_display;
mod serve;
mod store_copy;
mod tool;
mod transcript;
mod validate;

use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches};

/// mimalloc instead of glibc's malloc: an advance allocates and frees on three threads (the
/// request's, the store writer's, the state writer's), and glibc's per-thread arenas made that a
/// tenth of the server's CPU under 32 clients (BENCHMARKS.md, "Many clients and servers").
/// Transparent huge pages are off (`no_thp`): with them, mimalloc's arenas took 8 MiB more
/// resident memory at rest (BENCHMARKS.md, "Memory at rest and cold start").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Logs go to stderr, whatever the format: stdout carries data (and, for `switchyard mcp`, protocol
/// frames only). JSON lines put each event's fields at the top level, beside `timestamp`, `level`
/// and `target`, so a collector reads `event`, `run` and `session` without digging.
///
/// Under JSON, `serve`'s start line is a log line too (stderr stays one object a line), so its
/// target is on whatever the filter says, unless the filter names it.
fn init_logs(format: output::LogFormat) {
    let mut filter = tracing_subscriber::EnvFilter::try_from_env("SWITCHYARD_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let filter_names_start = std::env::var("SWITCHYARD_LOG").is_ok_and(|text| text.contains(serve::START_TARGET));
    if format == output::LogFormat::Json && !filter_names_start {
        filter = filter.add_directive(
            format!("{}=info", serve::START_TARGET).parse().expect("a target and a level make a directive"),
        );
    }
    // A log line that cannot be written is dropped: tracing's own report of it would go to the
    // same stderr through `eprintln!`, which panics there, failing the request being logged.
    let logs = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .log_internal_errors(false);
    match format {
        output::LogFormat::Text => logs.init(),
        output::LogFormat::Json => logs.json().flatten_event(true).with_span_list(false).init(),
    }
}

fn main() -> ExitCode {
    // Help and usage errors are printed while parsing, before `--color` is read: take it first.
    let mut command = args::Cli::command();
    if let Some(choice) = color_requested(std::env::args_os().skip(1)) {
        command = command.color(choice);
    }
    let parsed = command.try_get_matches().and_then(|matches| {
        Ok((matches.subcommand_name().unwrap_or_default().to_owned(), args::Cli::from_arg_matches(&matches)?))
    });
    let (command, arguments) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return usage_error(&error),
    };
    init_logs(arguments.global.log_format);
    // The HTTP server serves many clients at once; every other command is one request.
    let mut builder = match arguments.command {
        args::Commands::Serve(_) => tokio::runtime::Builder::new_multi_thread(),
        _ => tokio::runtime::Builder::new_current_thread(),
    };
    let runtime = match builder.enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            output::report_failure(
                &output::Failure::environment(format!("cannot start the async runtime: {error}")),
                false,
                arguments.global.color,
            );
            return ExitCode::from(2);
        }
    };
    let (json, colour) = (arguments.global.json, arguments.global.color);
    match runtime.block_on(commands::run(arguments)) {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(failure) => {
            let failure = opened::naming_the_command(failure, &command);
            output::report_failure(&failure, json, colour);
            ExitCode::from(failure.exit_code())
        }
    }
}

/// A command line clap refused. `--help` and `--version` print as clap prints them; a usage error
/// goes to stderr as clap words it, and with `--json` also as the error envelope on stdout, as
/// every other failure does, so a script reading stdout learns why nothing ran (exit 2).
fn usage_error(error: &clap::Error) -> ExitCode {
    if !error.use_stderr() {
        error.exit();
    }
    if json_requested(std::env::args_os().skip(1)) {
        let rendered = error.render().to_string();
        let message = rendered.trim().strip_prefix("error: ").unwrap_or(rendered.trim());
        let mut failure = output::Failure::usage(message);
        failure.details = Some(serde_json::json!({ "kind": kind_name(error.kind()) }));
        output::print_error_envelope(&failure);
    }
    let _ = error.print();
    ExitCode::from(2)
}

/// Whether `--json` is among the arguments clap could not parse (it is global: anywhere before
/// a `--`).
fn json_requested(arguments: impl Iterator<Item = std::ffi::OsString>) -> bool {
    arguments.take_while(|argument| argument != "--").any(|argument| argument == "--json")
}

/// The `--color` value among the arguments (global: anywhere before a `--`), for the help and
/// usage errors clap prints before the arguments are parsed.
fn color_requested(arguments: impl Iterator<Item = std::ffi::OsString>) -> Option<clap::ColorChoice> {
    let arguments: Vec<String> = arguments
        .take_while(|argument| argument != "--")
        .map(|argument| argument.to_string_lossy().into_owned())
        .collect();
    let value =
        arguments.iter().enumerate().rev().find_map(|(index, argument)| match argument.strip_prefix("--color") {
            Some(rest) if rest.starts_with('=') => Some(rest[1..].to_owned()),
            Some("") => arguments.get(index + 1).cloned(),
            _ => None,
        })?;
    match value.as_str() {
        "always" => Some(clap::ColorChoice::Always),
        "never" => Some(clap::ColorChoice::Never),
        "auto" => Some(clap::ColorChoice::Auto),
        _ => None,
    }
}

/// clap's kind of usage error in snake case (`unknown_argument`, `missing_required_argument`).
fn kind_name(kind: ErrorKind) -> String {
    let mut name = String::new();
    for (index, character) in format!("{kind:?}").chars().enumerate() {
        if character.is_ascii_uppercase() && index > 0 {
            name.push('_');
        }
        name.push(character.to_ascii_lowercase());
    }
    name
}
