//! The `switchyard` binary: parses the command line, runs one command, maps the outcome to an
//! exit code (0 ok, 1 a workflow rule said no, 2 usage or environment).

mod args;
mod commands;
mod doctor;
mod generate;
mod import;
mod init;
mod output;
mod quickstart;
mod serve;
mod tool;

use std::process::ExitCode;

use clap::Parser;

/// mimalloc instead of glibc's malloc: an advance allocates and frees on three threads (the
/// request's, the store writer's, the state writer's), and glibc's per-thread arenas made that a
/// tenth of the server's CPU. Transparent huge pages are off (`no_thp`): with them, mimalloc's
/// arenas took 8 MiB more resident memory at rest. Figures in BENCHMARKS.md.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let arguments = args::Cli::parse();
    let filter = tracing_subscriber::EnvFilter::try_from_env("SWITCHYARD_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_ansi(false).init();
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
            );
            return ExitCode::from(2);
        }
    };
    let json = arguments.global.json;
    match runtime.block_on(commands::run(arguments)) {
        Ok(outcome) => ExitCode::from(outcome.exit_code()),
        Err(failure) => {
            output::report_failure(&failure, json);
            ExitCode::from(failure.exit_code())
        }
    }
}
