//! The catalog's error: a workflow that cannot be found or read, or a folder that cannot be
//! attached, each kind with the stable code a door shows.

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("no workflow named `{name}`; available: {}", available.join(", "))]
    WorkflowNotFound { name: String, available: Vec<String> },
    #[error("`{name}` names more than one workflow: {}; name one by the file name before its source", candidates.join(", "))]
    AmbiguousWorkflow { name: String, candidates: Vec<String> },
    /// A name that is no workflow id (and so could reach outside the workflow folders).
    #[error("{message}")]
    InvalidName { message: String },
    /// What was named cannot be read as a workflow source: not UTF-8, a special file, too large,
    /// a malformed bundle, a bundle where one file is needed, or nothing a workflow at all.
    #[error("{0}")]
    NotASource(String),
    /// A folder `manage_workflow_source` may not attach, or that is not a folder.
    #[error("{0}")]
    AttachRefused(String),
    /// The file system refused a read or a write discovery needed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io { context: context.into(), source }
    }

    /// Stable code a program or agent can react to.
    pub fn code(&self) -> &'static str {
        match self {
            Self::WorkflowNotFound { .. } => "WORKFLOW_NOT_FOUND",
            Self::AmbiguousWorkflow { .. } => "WORKFLOW_AMBIGUOUS",
            Self::InvalidName { .. } => "INVALID_NAME",
            Self::NotASource(_) | Self::AttachRefused(_) => "INVALID_INPUT",
            Self::Io { .. } => "ENVIRONMENT",
        }
    }
}
