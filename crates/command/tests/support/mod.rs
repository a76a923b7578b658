//! What the command crate's tests share: running an argv in a sandbox, and asking the kernel
//! whether Landlock and a process group are there.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use switchyard_command::{CommandSpec, Confinement, Limits, Outcome, Sandbox};
use tokio_util::sync::CancellationToken;

/// Limits no test here reaches unless it means to.
pub const LIMITS: Limits = Limits { timeout: Duration::from_secs(60), max_output_bytes: 64 * 1024 };

/// The longest a killed command may take to come back, generously: the bound is seconds.
pub const KILLED_WITHIN: Duration = Duration::from_secs(20);

pub fn spec(argv: &[&str]) -> CommandSpec {
    CommandSpec { argv: argv.iter().map(|word| (*word).to_owned()).collect(), env: Vec::new() }
}

/// Runs `argv` in `sandbox` with [`LIMITS`]; the command must start.
pub async fn run(argv: &[&str], sandbox: &Sandbox) -> Outcome {
    run_within(argv, sandbox, LIMITS).await
}

pub async fn run_within(argv: &[&str], sandbox: &Sandbox, limits: Limits) -> Outcome {
    switchyard_command::run(&spec(argv), sandbox, &limits, &CancellationToken::new())
        .await
        .unwrap_or_else(|error| panic!("{argv:?} did not start: {error} ({})", error.code()))
}

/// Fails the test, loudly, on a machine where the kernel cannot confine commands at least to
/// Landlock ABI `at_least`: these tests prove confinement, they must not pass without it.
pub fn require_landlock(at_least: u8) {
    match switchyard_command::confinement() {
        Confinement::Landlock { abi, .. } => {
            assert!(*abi >= at_least, "this test needs Landlock ABI {at_least} or later; the kernel has ABI {abi}")
        }
        Confinement::Unavailable { reason } => {
            panic!("this test needs Landlock, and commands here run unconfined: {reason}")
        }
    }
}

/// `outcome` is a confined command that failed with "permission denied" (from `sh` or Python).
pub fn assert_denied(outcome: &Outcome, what: &str) {
    assert!(outcome.confined, "{what}: the command was not confined");
    assert_ne!(outcome.exit_code, Some(0), "{what}: the command succeeded: {outcome:?}");
    let said = format!("{}{}", outcome.stdout.tail, outcome.stderr.tail);
    assert!(
        said.contains("Permission denied")
            || said.contains("PermissionError")
            || said.contains("Operation not permitted"),
        "{what}: the command did not fail on a permission: {said}"
    );
}

/// Processes in process group `group` still running a while after the group was killed: a
/// SIGKILL is sent at once but acted on when the kernel next schedules the process, so a member
/// may still be listed for a moment after `killpg` returned. Waits up to two seconds for them.
pub fn survivors(group: i32) -> Vec<i32> {
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    loop {
        let living = living_members(group);
        if living.is_empty() || std::time::Instant::now() > deadline {
            return living;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Processes in process group `group` that are still running; a zombie (dead, waiting for its new
/// parent to reap it) does not count.
fn living_members(group: i32) -> Vec<i32> {
    let mut living = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc is mounted").flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<i32>().ok()) else { continue };
        // A process that ended since the listing has no stat any more.
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else { continue };
        // "pid (name) state ppid pgrp ...": the name may hold spaces and parentheses.
        let Some((_, after_name)) = stat.rsplit_once(')') else { continue };
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        let (state, process_group) = (fields[0], fields[2].parse::<i32>().unwrap_or(0));
        if process_group == group && !matches!(state, "Z" | "X") {
            living.push(pid);
        }
    }
    living
}

/// The first line of what the command printed, as a number (a pid or a group id it printed).
pub fn first_number(outcome: &Outcome) -> i32 {
    let line = outcome.stdout.tail.lines().next().unwrap_or_default();
    line.trim().parse().unwrap_or_else(|_| panic!("the command printed no number first: {outcome:?}"))
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}
