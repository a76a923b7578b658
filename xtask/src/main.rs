//! `cargo xtask test`: the whole test suite on a machine that has Rust and little else. It
//! provisions and starts what the tests need (each step says on stderr what it installs and why
//! before it does), runs `cargo test --workspace --locked --no-fail-fast`, then runs the runtime's,
//! the MCP door's and the CLI's integration tests again with each test home on a PostgreSQL
//! database.
//! `.ci/run` calls exactly this after its format, lint and documentation checks.

#![allow(clippy::print_stderr, reason = "a task runner's progress and advice go to stderr")]

mod postgres_pass;
mod provision;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

const USAGE: &str = "usage: cargo xtask test

  test   provision what the test suite needs (MCP test clients, Chromium, tmux, man, Graphviz,
         a PostgreSQL cluster and its hot standby), then run
         `cargo test --workspace --locked --no-fail-fast` and the integration tests of the runtime, the MCP door and the CLI again on PostgreSQL";

fn main() -> ExitCode {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match arguments.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["test"] => test(),
        ["help" | "--help" | "-h"] => {
            eprintln!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn test() -> Result<()> {
    let root = workspace_root();
    std::env::set_current_dir(&root).with_context(|| format!("cannot enter {}", root.display()))?;
    let servers = provision::everything(&root)?;

    eprintln!("== tests: cargo test --workspace --locked --no-fail-fast");
    // Disk is what a cold build of ~90 test binaries runs out of first.
    run(Command::new("df").args(["-h", "."]), "df -h .")?;
    // Every test binary runs, so one failure does not hide the results of the binaries after it.
    run(
        Command::new(cargo()).args(["test", "--workspace", "--locked", "--no-fail-fast"]).envs(servers.clone()),
        "cargo test --workspace",
    )?;

    eprintln!(
        "== the runtime's, the MCP door's and the CLI's integration tests again, each test home on a PostgreSQL database of its own"
    );
    postgres_pass::run(&servers)
}

/// The workspace's root: this package's parent folder.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask/ sits in the workspace's root").to_owned()
}

/// The cargo that runs this task, as cargo tells its children.
fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned())
}

/// Runs `command` with this process's stdin, stdout and stderr; fails unless it succeeds (what
/// failed is in its own output, above).
fn run(command: &mut Command, what: &str) -> Result<()> {
    let status = command.status().with_context(|| format!("cannot run {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status}): see its output above");
    }
    Ok(())
}
