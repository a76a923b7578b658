//! `switchyard store copy`: copies every session of one store into another (SQLite to Postgres
//! and back), prints progress on stderr and a summary, and fails when the destination does not
//! verify.

use clap::{Args, Subcommand};

use switchyard_runtime::store::copy::{self, CopyOptions, CopyProgress, Location, PROGRESS_EVERY};

use crate::output::{Failure, Outcome, Printer};

#[derive(Debug, Subcommand)]
pub enum StoreAction {
    /// Copy every session (events, claims, tokens, pinned workflows) into another store and verify it there; tokens stay valid with the same key file.
    Copy(CopyArgs),
}

#[derive(Debug, Args)]
pub struct CopyArgs {
    /// The store to copy: a SQLite file (`path` or `sqlite:path`) or a postgres:// URL.
    #[arg(long, value_name = "STORE")]
    pub from: String,
    /// The store to copy into, empty unless --add: a SQLite file (created if missing) or a postgres:// URL.
    #[arg(long, value_name = "STORE")]
    pub to: String,
    /// Copy into a store that already holds sessions; sessions it holds with the same history are skipped.
    #[arg(long)]
    pub add: bool,
}

pub async fn run(printer: &Printer, action: StoreAction) -> Result<Outcome, Failure> {
    let StoreAction::Copy(args) = action;
    let (from, to) = (Location::parse(&args.from), Location::parse(&args.to));
    let summary = copy::copy(&from, &to, CopyOptions { add: args.add }, &mut print_progress).await?;
    if printer.json {
        printer.json(&summary)?;
    } else {
        for problem in &summary.verify.problems {
            printer.line(&format!("{}: {problem}", printer.red("problem")))?;
        }
        let skipped = match summary.skipped_sessions {
            0 => String::new(),
            skipped => format!(", {skipped} already there"),
        };
        printer.line(&format!(
            "copied {} sessions{skipped} ({} events, {} claims, {} tokens, {} pinned workflows) from {} to {} in {:.1} s; verify: {} problem(s)",
            summary.sessions,
            summary.events,
            summary.claims,
            summary.tokens,
            summary.pins,
            summary.from,
            summary.to,
            summary.elapsed_ms as f64 / 1000.0,
            summary.verify.problems.len()
        ))?;
    }
    Ok(if summary.verify.is_clean() { Outcome::Success } else { Outcome::RuleViolation })
}

/// A line on stderr every [`PROGRESS_EVERY`] sessions, so a large copy shows it is moving.
#[allow(clippy::print_stderr)]
fn print_progress(progress: CopyProgress) {
    if progress.sessions_done.is_multiple_of(PROGRESS_EVERY) {
        eprintln!(
            "switchyard: copied {} of {} sessions ({} events)",
            progress.sessions_done, progress.sessions_total, progress.events
        );
    }
}
