//! Runs a project's command (an argv) the way switchyard runs anything an agent cannot be trusted
//! with: confined by the kernel, bounded in time and output, with a scrubbed environment.
//!
//! Two callers: the agent runner's `run_command` tool, whose argvs an [`Allowlist`] checks first,
//! and the evidence checks a workflow declares.
//!
//! # What [`run`] guarantees
//!
//! - **No shell.** `argv[0]` is looked up on the scrubbed `PATH` (its absolute folders only) and
//!   executed with the other words as its arguments; nothing is split, expanded or globbed.
//! - **A scrubbed environment.** Only `PATH`, `HOME`, `USER`, `LANG`, `LC_ALL`, `LC_CTYPE` and `TZ`
//!   pass, with the names the caller lists, less any that look like switchyard's own variables or
//!   a credential; `TERM` is `dumb` and `TMPDIR`, `TMP` and `TEMP` name a folder of the command's
//!   own, removed when it ends. Standard input is `/dev/null`.
//! - **Bounded time.** The command runs in a process group of its own; when its time is up, when
//!   the caller cancels, or when it is over, the whole group is killed (SIGKILL) and the program
//!   reaped, and the call returns a few seconds after that at most, whatever holds the output open.
//! - **Bounded output.** Each stream is read as it comes; its last `max_output_bytes` are kept and
//!   every byte is counted and hashed, so gigabytes of output cost no more memory than a few.
//! - **Kernel confinement** (Landlock, where the kernel has it): the command reads and executes
//!   anything but the [`Sandbox::secret`] places; it writes only below the workspace, its temporary
//!   folder and [`Sandbox::writable`], never in [`Sandbox::unwritable`] or secret places; with
//!   [`Sandbox::network`] off it can neither connect nor listen on TCP (Landlock ABI 4); it cannot
//!   signal a process outside its own (ABI 6). Only the thread that starts the command is confined,
//!   never the caller's.
//!
//! # What it does not do
//!
//! - **No seccomp and no cgroups.** System calls Landlock does not mediate stay open: UDP, UNIX
//!   sockets reached by path (a Docker socket the user can open, say), and whatever else the user
//!   may do. Memory, processor time and the number of processes are not limited, and a process that
//!   leaves the group (`setsid`) escapes the kill.
//! - **Around a protected place, no new entries.** Landlock grants rights on whole hierarchies, so
//!   a place is left out by granting rights to each of its neighbours and none to the folders that
//!   lead to it (`confine`'s documentation has the details). A command therefore cannot create,
//!   remove or rename entries directly in any folder from a writable place down to a protected
//!   place inside it: the workspace root, when `switchyard.toml` or `.git` is there, so a build's
//!   output folder (`target/`) must exist before the command runs. Entries that appear in such a
//!   folder after the command started are out of its reach. Reading works the same way from `/`
//!   down to each secret place, with a listing right on the way: the names in a secret folder can
//!   be listed, though none of its files can be opened.
//! - **Reading is open by default.** Only the [`Sandbox::secret`] places are kept unread: the
//!   user's other credentials (`~/.ssh`, a cloud tool's tokens) are read like anything else unless
//!   the caller lists them.
//! - **Aliases.** A hard link to a secret file, or a bind mount of a secret folder, elsewhere is
//!   reached through that other path.
//! - **No confinement without Landlock.** On a kernel without it (before 5.13, or with Landlock off)
//!   commands run unconfined, [`Outcome::confined`] is false, and [`confinement`] says why, for the
//!   start-up message.

mod allowlist;
mod capture;
#[cfg(target_os = "linux")]
mod confine;
mod environment;
mod error;
mod launch;
mod program;
mod supervise;

use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

pub use crate::allowlist::Allowlist;
pub use crate::error::Error;

/// Where a command may read and write, and whether it may use the network. Relative places are
/// taken relative to the workspace; places that do not exist yet are protected where they would
/// be created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sandbox {
    /// The command's working directory, writable. It must exist.
    pub workspace: PathBuf,
    /// More folders the command may write below (a build cache such as `~/.cargo`); one that does
    /// not exist, or is no folder, is skipped.
    pub writable: Vec<PathBuf>,
    /// Places below a writable one that must stay read-only: switchyard's configuration
    /// (`switchyard.toml`), its folder (`.switchyard/`), the repository's history (`.git`).
    pub unwritable: Vec<PathBuf>,
    /// Places the command may neither read nor write: the key folder, the store file, a token.
    pub secret: Vec<PathBuf>,
    /// Whether the command may connect and listen on TCP. Enforced from Landlock ABI 4 on.
    pub network: bool,
}

impl Sandbox {
    /// A sandbox that may write only in `workspace`, protects nothing inside it and has no network.
    pub fn new(workspace: impl Into<PathBuf>) -> Self {
        Self {
            workspace: workspace.into(),
            writable: Vec::new(),
            unwritable: Vec::new(),
            secret: Vec::new(),
            network: false,
        }
    }
}

/// How long a command may run and how much of its output is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// From the call's start; the command's process group is killed when it is up.
    pub timeout: Duration,
    /// The tail kept of each stream, in bytes; the rest is counted and hashed, not kept.
    pub max_output_bytes: usize,
}

/// A command to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    /// The program and its arguments, executed as they are.
    pub argv: Vec<String>,
    /// Names of the runner's environment variables passed through besides the base set. A name
    /// that looks like switchyard's own (`SWITCHYARD_…`) or a credential's (holding `KEY`, `TOKEN`,
    /// `SECRET`, `PASSWORD` or `DATABASE_URL`) is refused, with a warning in the log.
    pub env: Vec<String>,
}

/// What the kernel can enforce on this machine, probed once per process by [`confinement`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    /// Commands are confined. `abi` is the kernel's Landlock ABI version; `network` is whether the
    /// TCP rules can be enforced (ABI 4 and later).
    Landlock { abi: u8, network: bool },
    /// Commands run unconfined, for this reason.
    Unavailable { reason: String },
}

impl fmt::Display for Confinement {
    /// One line for a start-up message.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Landlock { abi, network: true } => {
                write!(formatter, "commands are confined by Landlock (ABI {abi}): files and TCP as each sandbox allows")
            }
            Self::Landlock { abi, network: false } => write!(
                formatter,
                "commands are confined by Landlock (ABI {abi}): files as each sandbox allows, but not the network (ABI 4 is needed)"
            ),
            Self::Unavailable { reason } => write!(formatter, "commands run unconfined: {reason}"),
        }
    }
}

/// What the kernel can enforce, probed on the first call (by confining a throwaway thread) and
/// remembered for the life of the process.
pub fn confinement() -> &'static Confinement {
    static PROBED: OnceLock<Confinement> = OnceLock::new();
    PROBED.get_or_init(probe)
}

#[cfg(target_os = "linux")]
fn probe() -> Confinement {
    confine::probe()
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Confinement {
    Confinement::Unavailable { reason: "Landlock is a Linux kernel feature".to_owned() }
}

/// How a command that started ended. A command that could not start is an [`Error`] instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The program's exit code, when it exited rather than being killed.
    pub exit_code: Option<i32>,
    /// The signal that ended the program (9 when switchyard killed it).
    pub signal: Option<i32>,
    /// The time limit was reached and the command killed.
    pub timed_out: bool,
    /// The caller cancelled and the command was killed.
    pub cancelled: bool,
    /// From the call's start to its end.
    pub duration: Duration,
    pub stdout: Captured,
    pub stderr: Captured,
    /// Whether Landlock confined the command.
    pub confined: bool,
}

impl Outcome {
    /// Whether the command ran to its end and exited with 0.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.cancelled
    }
}

/// One output stream of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// The last `max_output_bytes` bytes as text (invalid UTF-8 replaced), starting on a character
    /// boundary when the cut fell inside one.
    pub tail: String,
    /// Every byte the command wrote to the stream.
    pub total_bytes: u64,
    /// SHA-256 of everything written, as lowercase hex.
    pub sha256: String,
    /// Whether bytes before the tail were left out.
    pub truncated: bool,
}

/// Runs `spec` in `sandbox` within `limits`, until it is over, its time is up or `cancel` fires.
///
/// The command is killed (its whole process group) in every case, and also when this future is
/// dropped before it completes.
pub async fn run(
    spec: &CommandSpec,
    sandbox: &Sandbox,
    limits: &Limits,
    cancel: &CancellationToken,
) -> Result<Outcome, Error> {
    supervise::run(spec, sandbox, limits, cancel).await
}
