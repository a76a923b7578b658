//! The bounds on a command: a command past its time, or cancelled, is killed with everything it
//! started, whatever holds its output open; output past the bound keeps its tail and is counted
//! and hashed whole.

// The process checks read Linux's /proc.
#![cfg(target_os = "linux")]

mod support;

use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{Pid, WaitId, WaitIdOptions};
use sha2::{Digest, Sha256};
use support::{KILLED_WITHIN, LIMITS, first_number, require_landlock, run_within, spec, survivors};
use switchyard_command::{Limits, Sandbox};
use tokio_util::sync::CancellationToken;

const ONE_SECOND: Limits = Limits { timeout: Duration::from_secs(1), ..LIMITS };

#[tokio::test]
async fn a_hanging_command_is_killed_at_its_timeout() {
    let workspace = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let outcome = run_within(&["sleep", "60"], &Sandbox::new(workspace.path()), ONE_SECOND).await;
    assert!(outcome.timed_out && !outcome.cancelled, "{outcome:?}");
    assert_eq!((outcome.exit_code, outcome.signal), (None, Some(9)));
    assert!(started.elapsed() < KILLED_WITHIN, "the call took {:?}", started.elapsed());
}

#[tokio::test]
async fn what_a_timed_out_command_started_is_killed_with_it() {
    let workspace = tempfile::tempdir().unwrap();
    // Prints its process group, then waits on a child of its own.
    let script = "echo $$; sleep 60 & wait";
    let outcome = run_within(&["sh", "-c", script], &Sandbox::new(workspace.path()), ONE_SECOND).await;
    assert!(outcome.timed_out, "{outcome:?}");
    let group = first_number(&outcome);
    assert_eq!(survivors(group), Vec::<i32>::new(), "processes of the command's group outlived it");
}

/// The program exits at once, but a background process it started keeps its standard output open:
/// the command is not over until the output closes, so it runs into its timeout, and the call
/// still returns at once after it.
#[tokio::test]
async fn a_grandchild_holding_the_output_open_does_not_hang_the_call() {
    let workspace = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let outcome =
        run_within(&["sh", "-c", "echo $$; sleep 60 & exit 0"], &Sandbox::new(workspace.path()), ONE_SECOND).await;
    assert!(outcome.timed_out, "{outcome:?}");
    assert_eq!(outcome.exit_code, Some(0), "the program itself exited: {outcome:?}");
    assert!(started.elapsed() < KILLED_WITHIN, "the call took {:?}", started.elapsed());
    assert_eq!(survivors(first_number(&outcome)), Vec::<i32>::new());
}

#[tokio::test]
async fn what_a_command_leaves_running_is_killed_when_it_is_over() {
    let workspace = tempfile::tempdir().unwrap();
    // The background sleep lets go of the output, so the command is over when `sh` exits.
    let script = "echo $$; sleep 60 > /dev/null 2>&1 & exit 0";
    let outcome = run_within(&["sh", "-c", script], &Sandbox::new(workspace.path()), LIMITS).await;
    assert!(!outcome.timed_out && outcome.exit_code == Some(0), "{outcome:?}");
    assert_eq!(survivors(first_number(&outcome)), Vec::<i32>::new());
}

#[tokio::test]
async fn cancelling_kills_the_command() {
    require_landlock(1);
    let workspace = tempfile::tempdir().unwrap();
    let ready = ready_pipe(workspace.path());
    let cancel = CancellationToken::new();
    let sandbox = Sandbox::new(workspace.path());
    let command = spec(&["sh", "-c", "echo $$ > ready; exec sleep 60"]);
    let limits = Limits { timeout: Duration::from_secs(600), ..LIMITS };
    let started = Instant::now();
    let running = {
        let cancel = cancel.clone();
        tokio::spawn(async move { switchyard_command::run(&command, &sandbox, &limits, &cancel).await })
    };
    // The command has started once it writes to the pipe; opening it for reading waits for that.
    let group = tokio::task::spawn_blocking(move || std::fs::read_to_string(ready)).await.unwrap().unwrap();
    cancel.cancel();
    let outcome = running.await.unwrap().unwrap();
    assert!(outcome.cancelled && !outcome.timed_out, "{outcome:?}");
    assert_eq!(outcome.signal, Some(9));
    assert!(started.elapsed() < KILLED_WITHIN, "the call took {:?}", started.elapsed());
    assert_eq!(survivors(group.trim().parse().unwrap()), Vec::<i32>::new());
}

#[tokio::test]
async fn dropping_the_call_kills_the_command() {
    let workspace = tempfile::tempdir().unwrap();
    let ready = ready_pipe(workspace.path());
    let sandbox = Sandbox::new(workspace.path());
    let command = spec(&["sh", "-c", "echo $$ > ready; exec sleep 60"]);
    let started = Instant::now();
    let running =
        tokio::spawn(
            async move { switchyard_command::run(&command, &sandbox, &LIMITS, &CancellationToken::new()).await },
        );
    let group: i32 = tokio::task::spawn_blocking(move || std::fs::read_to_string(ready))
        .await
        .unwrap()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    running.abort();
    assert!(running.await.unwrap_err().is_cancelled());
    // The program is a child of this process: waiting for its exit without reaping it returns once
    // it died, or says it is no child any more when the crate's watcher reaped it first.
    let program = Pid::from_raw(group).unwrap();
    let waited = tokio::task::spawn_blocking(move || {
        rustix::process::waitid(WaitId::Pid(program), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT)
    })
    .await
    .unwrap();
    assert!(matches!(waited, Ok(_) | Err(Errno::CHILD)), "{waited:?}");
    assert!(started.elapsed() < KILLED_WITHIN, "the program outlived the dropped call for {:?}", started.elapsed());
    assert_eq!(survivors(group), Vec::<i32>::new());
}

/// Five megabytes on each stream at once, in lines a reader can place: `0000042\n` on standard
/// output, `e000042\n` on standard error.
const FLOOD: &str = "
import sys
out, err = sys.stdout.buffer, sys.stderr.buffer
for start in range(0, 625000, 5000):
    out.write(b''.join(b'%07d\\n' % i for i in range(start, start + 5000)))
    err.write(b''.join(b'e%06d\\n' % i for i in range(start, start + 5000)))
";

fn flood(prefix: &str) -> Vec<u8> {
    (0..625_000).flat_map(|line| format!("{prefix}{line:0width$}\n", width = 7 - prefix.len()).into_bytes()).collect()
}

#[tokio::test]
async fn output_past_the_bound_keeps_its_tail_and_is_counted_and_hashed_whole() {
    let workspace = tempfile::tempdir().unwrap();
    let outcome = run_within(&["python3", "-c", FLOOD], &Sandbox::new(workspace.path()), LIMITS).await;
    assert_eq!(outcome.exit_code, Some(0), "{:?}", outcome.stderr.tail);
    for (captured, expected) in [(&outcome.stdout, flood("")), (&outcome.stderr, flood("e"))] {
        assert_eq!(expected.len(), 5_000_000);
        assert_eq!(captured.total_bytes, 5_000_000);
        assert!(captured.truncated);
        assert_eq!(captured.tail.as_bytes(), &expected[expected.len() - LIMITS.max_output_bytes..]);
        let hash: String = Sha256::digest(&expected).iter().map(|byte| format!("{byte:02x}")).collect();
        assert_eq!(captured.sha256, hash);
    }
}

#[tokio::test]
async fn a_cut_inside_a_character_starts_the_tail_at_the_next_one() {
    let workspace = tempfile::tempdir().unwrap();
    // 1000 two-byte characters and a newline: the last 102 bytes begin with half a character.
    let limits = Limits { max_output_bytes: 102, ..LIMITS };
    let outcome = run_within(&["python3", "-c", "print('é' * 1000)"], &Sandbox::new(workspace.path()), limits).await;
    assert_eq!(outcome.stdout.total_bytes, 2001);
    assert!(outcome.stdout.truncated);
    assert_eq!(outcome.stdout.tail, format!("{}\n", "é".repeat(50)));
}

/// A named pipe `ready` in `folder`: a command writes its process group there once it runs, and
/// a reader opening it waits until then, so no test sleeps to let a command start.
fn ready_pipe(folder: &std::path::Path) -> std::path::PathBuf {
    let ready = folder.join("ready");
    let mode = rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR;
    rustix::fs::mknodat(rustix::fs::CWD, &ready, rustix::fs::FileType::Fifo, mode, 0).unwrap();
    ready
}
