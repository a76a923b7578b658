//! A started command watched to its end: its output read as it comes, its time counted, and its
//! whole process group killed when the time is up, when the caller cancels, or when it is over.
//!
//! A command is over when its program has exited and both its output streams have closed, as for
//! a shell's `$(...)`: a background process still writing to them is part of the command. Then the
//! group is killed all the same, so nothing the command left behind outlives the call.
//!
//! The group is always killed before the program is reaped. Until it is reaped, the program's pid
//! (which is its group's id) cannot be given to another process, so the kill reaches the command's
//! processes and nothing else.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use tokio::process::{ChildStderr, ChildStdout};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::capture::{self, Tail};
use crate::launch::{self, Started};
use crate::{CommandSpec, Error, Limits, Outcome, Sandbox};

/// How long output is still read once the group is killed: the pipes close as its processes die,
/// so this only matters when a process outside the group (one that called `setsid`) holds them.
const DRAIN_AFTER_KILL: Duration = Duration::from_secs(2);

/// How long the program is awaited once killed. Only a process stuck in the kernel (on an
/// unreachable network file system, say) takes longer; its exit is then not reported, and it is
/// reaped whenever it ends.
const EXIT_AFTER_KILL: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Over,
    TimedOut,
    Cancelled,
}

pub(crate) async fn run(
    spec: &CommandSpec,
    sandbox: &Sandbox,
    limits: &Limits,
    cancel: &CancellationToken,
) -> Result<Outcome, Error> {
    let started_at = Instant::now();
    // A timeout too long to count is as good as none: a year.
    let deadline = tokio::time::Instant::now()
        .checked_add(limits.timeout)
        .unwrap_or_else(|| tokio::time::Instant::now() + Duration::from_secs(365 * 24 * 60 * 60));
    let Started { mut process, temporary, confined } = launch::start(spec, sandbox).await?;
    let program = spec.argv[0].clone();
    let mut child = process.child.take().expect("a started process has its child");
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let not_started = |source: io::Error| Error::Spawn { program: program.clone(), source };
    let mut leader = Leader::watch(child).map_err(not_started)?;
    let stdout = ChildStdout::from_std(stdout.expect("stdout is piped")).map_err(not_started)?;
    let stderr = ChildStderr::from_std(stderr.expect("stderr is piped")).map_err(not_started)?;

    let stop_reading = CancellationToken::new();
    let _stop_reading_when_dropped = stop_reading.clone().drop_guard();
    let keep = limits.max_output_bytes;
    let stdout = tokio::spawn(capture::read_to_end(stdout, keep, stop_reading.clone()));
    let stderr = tokio::spawn(capture::read_to_end(stderr, keep, stop_reading.clone()));
    let streams = async {
        let finished = |joined: Result<Tail, tokio::task::JoinError>| {
            joined.unwrap_or_else(|error| {
                tracing::warn!(%error, "reading a command's output stopped abnormally");
                Tail::new(keep)
            })
        };
        (finished(stdout.await), finished(stderr.await))
    };
    let mut streams = std::pin::pin!(streams);

    // The program exits, or its time is up, or the caller cancels; once it exited, the command is
    // over when its output closes, unless its time is up or the caller cancels first.
    let mut ending = Ending::Over;
    let mut exited = false;
    tokio::select! {
        biased;
        _ = &mut leader.exited => exited = true,
        () = tokio::time::sleep_until(deadline) => ending = Ending::TimedOut,
        () = cancel.cancelled() => ending = Ending::Cancelled,
    }
    let mut output = None;
    if exited {
        tokio::select! {
            biased;
            both = &mut streams => output = Some(both),
            () = tokio::time::sleep_until(deadline) => ending = Ending::TimedOut,
            () = cancel.cancelled() => ending = Ending::Cancelled,
        }
    }
    // Whatever happened, the program is not reaped yet: the kill reaches its group and nothing else.
    process.kill();
    let exited = exited || tokio::time::timeout(EXIT_AFTER_KILL, &mut leader.exited).await.is_ok();
    let (stdout, stderr) = match output {
        Some(both) => both,
        None => match tokio::time::timeout(DRAIN_AFTER_KILL, &mut streams).await {
            Ok(both) => both,
            Err(_) => {
                stop_reading.cancel();
                streams.await
            }
        },
    };
    let status = if exited {
        leader.reap().await
    } else {
        tracing::warn!(%program, "the command's program did not die within {EXIT_AFTER_KILL:?} of SIGKILL; its exit is not reported");
        None
    };
    match tokio::task::spawn_blocking(move || temporary.close()).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::debug!(%error, "the command's temporary folder was not removed entirely"),
        Err(error) => tracing::debug!(%error, "removing the command's temporary folder stopped abnormally"),
    }
    let outcome = Outcome {
        exit_code: status.and_then(|status| status.code()),
        signal: status.and_then(|status| status.signal()),
        timed_out: ending == Ending::TimedOut,
        cancelled: ending == Ending::Cancelled,
        duration: started_at.elapsed(),
        stdout: stdout.finish(),
        stderr: stderr.finish(),
        confined,
    };
    tracing::debug!(
        %program,
        exit_code = ?outcome.exit_code,
        signal = ?outcome.signal,
        timed_out = outcome.timed_out,
        cancelled = outcome.cancelled,
        duration = ?outcome.duration,
        "command finished"
    );
    Ok(outcome)
}

/// A started program and its process group. The group is killed once, explicitly or when this is
/// dropped: by `run` half-way (the caller's own timeout, a shutdown), or before `run` even received
/// it, so no command outlives a caller that went away.
#[derive(Debug)]
pub(crate) struct Process {
    /// Until a [`Leader`] takes it over; a program still here when this is dropped is reaped by a
    /// thread of its own.
    child: Option<Child>,
    group: Pid,
    killed: bool,
}

impl Process {
    pub(crate) fn new(child: Child) -> Self {
        Self { group: Pid::from_child(&child), child: Some(child), killed: false }
    }

    fn kill(&mut self) {
        if std::mem::replace(&mut self.killed, true) {
            return;
        }
        match rustix::process::kill_process_group(self.group, Signal::KILL) {
            Ok(()) | Err(Errno::SRCH) => {}
            Err(error) => {
                tracing::warn!(%error, group = self.group.as_raw_pid(), "the command's process group could not be killed")
            }
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
        if let Some(mut child) = self.child.take() {
            let reaping =
                std::thread::Builder::new().name("switchyard-command-reap".to_owned()).spawn(move || child.wait());
            if let Err(error) = reaping {
                tracing::debug!(%error, "a killed command is left unreaped");
            }
        }
    }
}

/// The program's own process, watched by a thread that reports its exit without reaping it
/// (`waitid` with `WNOWAIT`), then reaps it when told to, or as soon as `run` is gone.
#[derive(Debug)]
struct Leader {
    exited: oneshot::Receiver<()>,
    reap: mpsc::Sender<()>,
    status: oneshot::Receiver<io::Result<ExitStatus>>,
}

impl Leader {
    fn watch(mut child: Child) -> io::Result<Self> {
        let pid = Pid::from_child(&child);
        let (exited_sender, exited) = oneshot::channel();
        let (reap, reap_order) = mpsc::channel();
        let (status_sender, status) = oneshot::channel();
        std::thread::Builder::new().name("switchyard-command-wait".to_owned()).spawn(move || {
            while let Err(Errno::INTR) =
                rustix::process::waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT)
            {}
            let _ = exited_sender.send(());
            // An error means `run` is gone: reap all the same.
            let _ = reap_order.recv();
            let _ = status_sender.send(child.wait());
        })?;
        Ok(Self { exited, reap, status })
    }

    /// Reaps the program, which has exited; `None` when its status could not be had (the runner
    /// ignores SIGCHLD, say, so the kernel reaped it first).
    async fn reap(self) -> Option<ExitStatus> {
        let _ = self.reap.send(());
        match self.status.await {
            Ok(Ok(status)) => Some(status),
            Ok(Err(error)) => {
                tracing::debug!(%error, "the command's exit status could not be read");
                None
            }
            Err(_) => None,
        }
    }
}
