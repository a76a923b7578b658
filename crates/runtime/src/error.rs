//! The runtime's error: every failure a door can meet, each with a stable code and a class that
//! tells the door whether the caller broke a rule or the call could not run at all.

use switchyard_compiler::Diagnostic;
use switchyard_core::token::TokenError;

/// Whether an error is the caller breaking a workflow rule, or a problem with the call itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// A workflow or engine rule refused the request (exit code 1 in the CLI).
    Rule,
    /// Bad arguments, unknown ids, bad tokens, or the environment (store, files) failed (exit 2).
    Usage,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("no workflow named `{name}`; available: {}", available.join(", "))]
    WorkflowNotFound { name: String, available: Vec<String> },
    #[error("`{name}` names more than one workflow: {}; name one by the file name before its source", candidates.join(", "))]
    AmbiguousWorkflow { name: String, candidates: Vec<String> },
    #[error("workflow `{name}` ({source_path}) does not compile: {} error(s); run `switchyard validate {source_path}` for details", diagnostics.iter().filter(|d| d.is_error()).count())]
    InvalidWorkflow { name: String, source_path: String, diagnostics: Vec<Diagnostic> },
    #[error("{message}")]
    InvalidName { message: String },
    #[error(transparent)]
    Token(#[from] TokenError),
    #[error(transparent)]
    Engine(#[from] switchyard_engine::Error),
    #[error(transparent)]
    Store(#[from] switchyard_store::Error),
    #[error(
        "`{id}` is a {what} id, not a {expected} token; `switchyard show {id}` prints {}",
        match *what {
            "node" => "the tokens at that point of its run",
            "session" => "the current tokens of its run, the continue token (`ct_…`) among them",
            _ => "the run's current tokens, the continue token (`ct_…`) among them",
        }
    )]
    IdNotToken { what: &'static str, id: String, expected: &'static str },
    #[error("no {what} `{id}` in this store ({store})")]
    NotFound { what: &'static str, id: String, store: String },
    #[error(
        "this call was already made with a different payload (recorded {recorded_sha256}, now {sent_sha256}); the first result stands. To do something else, get a fresh token with `switchyard show` and call again"
    )]
    ReplayMismatch { recorded_sha256: String, sent_sha256: String },
    #[error(
        "the report still holds placeholders at {}: replace each `<fill in: …>` with your own value and send it again; nothing was recorded and no attempt was used",
        paths.join(", ")
    )]
    ReportNotFilledIn { paths: Vec<String> },
    #[error("{0}")]
    InvalidInput(String),
    #[error("{0}")]
    Environment(String),
}

impl Error {
    pub fn environment(message: impl Into<String>) -> Self {
        Self::Environment(message.into())
    }

    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::InvalidInput(message.into())
    }

    /// Stable code a program or agent can react to.
    pub fn code(&self) -> &'static str {
        match self {
            Self::WorkflowNotFound { .. } => "WORKFLOW_NOT_FOUND",
            Self::AmbiguousWorkflow { .. } => "WORKFLOW_AMBIGUOUS",
            Self::InvalidWorkflow { .. } => "WORKFLOW_INVALID",
            Self::InvalidName { .. } => "INVALID_NAME",
            Self::Token(error) => error.code(),
            Self::IdNotToken { .. } => "ID_NOT_TOKEN",
            Self::Engine(error) => error.code(),
            Self::Store(error) => error.code(),
            Self::NotFound { .. } => "NOT_FOUND",
            Self::ReplayMismatch { .. } => "REPLAY_MISMATCH",
            Self::ReportNotFilledIn { .. } => "REPORT_NOT_FILLED_IN",
            Self::InvalidInput(_) => "INVALID_INPUT",
            Self::Environment(_) => "ENVIRONMENT",
        }
    }

    pub fn class(&self) -> ErrorClass {
        match self {
            Self::InvalidWorkflow { .. } | Self::Engine(_) | Self::ReplayMismatch { .. } => ErrorClass::Rule,
            _ => ErrorClass::Usage,
        }
    }

    /// Whether the same call may succeed later without changes (a busy store, a gate that is
    /// still waiting for a human).
    pub fn retryable(&self) -> bool {
        match self {
            Self::Engine(error) => error.retryable(),
            Self::Store(error) => error.is_retryable(),
            _ => false,
        }
    }
}
