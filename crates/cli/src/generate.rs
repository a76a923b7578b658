//! `switchyard completions` and `switchyard man`: shell completion scripts and the man page,
//! generated from the command line's clap definition so they never drift from it.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::Shell;

use crate::args::Cli;
use crate::output::{Failure, Outcome};

/// Writes the completion script for `shell` on stdout.
pub fn completions(shell: Shell) -> Result<Outcome, Failure> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "switchyard", &mut script);
    write_stdout(&script)
}

/// Writes the man page (roff, section 1) on stdout, subcommands included.
pub fn man() -> Result<Outcome, Failure> {
    // The NAME line is `switchyard \- <about>`: an about that starts with the name would repeat it.
    let command = Cli::command().about("a workflow runtime that keeps LLM agents on rails");
    let mut page = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut page)
        .map_err(|error| Failure::environment(format!("cannot render the man page: {error}")))?;
    write_stdout(&page)
}

fn write_stdout(bytes: &[u8]) -> Result<Outcome, Failure> {
    std::io::stdout()
        .lock()
        .write_all(bytes)
        .map_err(|error| Failure::environment(format!("cannot write to stdout: {error}")))?;
    Ok(Outcome::Success)
}
