//! The run folder's error: what the runtime refused, or what the file system did.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Runtime(#[from] switchyard_runtime::Error),
    /// A file or folder of the run folder cannot be written or read.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// The state document just rendered does not read back.
    #[error("the state document in {} is unreadable", folder.display())]
    Unreadable { folder: PathBuf },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io { context: context.into(), source }
    }

    /// Stable code a program or agent can react to.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Runtime(error) => error.code(),
            Self::Io { .. } | Self::Unreadable { .. } => "ENVIRONMENT",
        }
    }
}
