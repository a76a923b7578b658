//! `command::Error`: why a command did not start. A command that started and then failed is no
//! error: its exit code, signal or timeout is in the [`crate::Outcome`].

use std::io;
use std::path::PathBuf;

/// A command that could not be started. Codes are stable; the runner hands them to the model,
/// which reacts to them.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The argv is outside the allowlist. `allowed` lists what is, already rendered.
    #[error(
        "the command `{command}` is not allowed: {allowed}; run one of those (its first words exactly as listed), or ask the project's owner to add it to the allowlist"
    )]
    NotAllowed { command: String, allowed: String },
    /// The argv has no program.
    #[error("the command is empty: give the program as the first word of its argv")]
    Empty,
    /// The program is not on the scrubbed `PATH`, or is not an executable file.
    #[error("`{program}` was not found: {searched}; install it, or name it by its absolute path")]
    NotFound { program: String, searched: String },
    /// The working directory does not exist or is not a directory.
    #[error("the workspace {} cannot be the command's working directory: {source}; create it or point the sandbox at an existing folder", path.display())]
    Workspace {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The command's private temporary folder could not be made.
    #[error(
        "the command's private temporary folder could not be created: {source}; check that the system's temporary folder (TMPDIR) exists and has free space"
    )]
    TemporaryFolder {
        #[source]
        source: io::Error,
    },
    /// The kernel refused to start the program.
    #[error("`{program}` could not be started: {source}")]
    Spawn {
        program: String,
        #[source]
        source: io::Error,
    },
    /// Landlock is available but the command's confinement could not be built or applied. The
    /// command is not run unconfined in its place: that would be a silent downgrade.
    #[error("the command's sandbox could not be set up, so it was not run: {what}: {source}")]
    Sandbox {
        what: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

impl Error {
    /// The stable code of the error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotAllowed { .. } => "COMMAND_NOT_ALLOWED",
            Self::Empty => "COMMAND_EMPTY",
            Self::NotFound { .. } => "COMMAND_NOT_FOUND",
            Self::Workspace { .. } => "COMMAND_WORKSPACE_MISSING",
            Self::TemporaryFolder { .. } | Self::Spawn { .. } => "COMMAND_SPAWN_FAILED",
            Self::Sandbox { .. } => "COMMAND_SANDBOX_FAILED",
        }
    }
}
