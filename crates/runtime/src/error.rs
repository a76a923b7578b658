//! The runtime's error: every failure a door can meet, each with a stable code and a class that
//! tells the door whether the caller broke a rule or the call could not run at all.

use std::path::PathBuf;

use switchyard_compiler::Diagnostic;
use switchyard_core::token::{TokenError, TokenKind};

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
    /// A workflow could not be found or read (`WORKFLOW_NOT_FOUND`, `WORKFLOW_AMBIGUOUS`, …).
    #[error(transparent)]
    Catalog(#[from] switchyard_catalog::Error),
    /// The configuration is wrong, or names a model it cannot resolve.
    #[error(transparent)]
    Config(#[from] switchyard_config::Error),
    #[error("workflow `{name}` ({source_path}) does not compile: {} error(s); run `switchyard validate {source_path}` for details", diagnostics.iter().filter(|d| d.is_error()).count())]
    InvalidWorkflow { name: String, source_path: String, diagnostics: Vec<Diagnostic> },
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
    /// A genuine token of another kind than the call takes (a state token given to `continue`).
    #[error(
        "this is a {} token (`{}…`) where a {} token (`{}…`) is needed: {}",
        given.name(),
        given.prefix(),
        expected.name(),
        expected.prefix(),
        match run {
            Some(run) => format!("`switchyard show {run}` prints the run's current {} token", expected.name()),
            None => format!("every step response lists its tokens by kind; send its {} token", expected.name()),
        }
    )]
    TokenOfOtherKind { expected: TokenKind, given: TokenKind, run: Option<String> },
    #[error("no {what} `{id}` in this store ({store})")]
    NotFound { what: &'static str, id: String, store: String },
    #[error("{}", replay_mismatch_message(*call, run, differs))]
    ReplayMismatch {
        call: ReplayedCall,
        run: String,
        /// The fields that differ from the recorded call (`notes`, `artifacts`, `context`,
        /// `choice`, `to`, `note`, …); empty when the recorded call did not keep them.
        differs: Vec<String>,
        recorded_sha256: String,
        sent_sha256: String,
    },
    #[error(
        "the report still holds placeholders at {}: replace each `<fill in: …>` with your own value and send it again; nothing was recorded and no attempt was used",
        paths.join(", ")
    )]
    ReportNotFilledIn { paths: Vec<String> },
    /// An answer named the node a person was shown, and the run has moved past it.
    #[error(
        "run {run} has moved on since {expected} was shown (it is now at {tip}): nothing was done; look at the run again (`switchyard status {run}`) before answering"
    )]
    MovedOn { run: String, expected: String, tip: String },
    #[error("{0}")]
    InvalidInput(String),
    /// A run of the workflow could never pass its evidence here: it runs commands where they may
    /// not run. Nothing was started.
    #[error("{0}; nothing was started")]
    EvidenceCommandsOff(String),
    /// switchyard's home folder cannot be created.
    #[error("cannot create switchyard home {}: {source}", path.display())]
    Home {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The token signing key file cannot be read, created, written or trusted; the message says
    /// which and how to fix it.
    #[error("{0}")]
    KeyFile(String),
    /// The store's file cannot be looked at (`doctor`).
    #[error("cannot read the store {}: {source}", path.display())]
    StoreUnreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The store holds something this build cannot read as it expects, or the engine answered
    /// against its own contract: a bug or a damaged store, never the caller's doing.
    #[error("{0}")]
    Internal(String),
    /// `switchyard store copy` was pointed at a store that already holds sessions.
    #[error(
        "the destination store {store} already holds sessions; copy into an empty store (a new SQLite file, an empty database), or pass --add to add the source's sessions to it"
    )]
    DestinationNotEmpty { store: String },
}

/// Which call was made twice with different content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplayedCall {
    /// A report with a continue token.
    Advance,
    /// Notes with a checkpoint token.
    Checkpoint,
    /// An approval or rejection of a gate.
    Gate,
    /// A human decision.
    Decision,
}

impl ReplayedCall {
    /// The call a recorded key's first part (`advance`, `checkpoint`, `gate`, `decide`) names.
    pub fn from_key_kind(kind: &str) -> Self {
        match kind {
            "checkpoint" => Self::Checkpoint,
            "gate" => Self::Gate,
            "decide" => Self::Decision,
            _ => Self::Advance,
        }
    }
}

/// A replay mismatch in words: what was used twice, what differed, and how to go on.
fn replay_mismatch_message(call: ReplayedCall, run: &str, differs: &[String]) -> String {
    let other = match differs {
        [] => "other content".to_owned(),
        [one] => format!("different {one}"),
        [rest @ .., last] => format!("different {} and {last}", rest.join(", ")),
    };
    match call {
        ReplayedCall::Advance => format!(
            "this continue token was already used, with {other}: that first report was recorded and the run has moved on, so this one was not taken. For a fresh token at the run's current step run `switchyard show {run}`, then send your report with the continue token it prints"
        ),
        ReplayedCall::Checkpoint => format!(
            "this checkpoint token was already used, with {other}: that first checkpoint stands and this one was not recorded. `switchyard show {run}` prints the run's current checkpoint token"
        ),
        ReplayedCall::Gate => format!(
            "this gate was already decided, with {other}: the first decision stands and the run has moved on. `switchyard show {run}` shows where it is now"
        ),
        ReplayedCall::Decision => format!(
            "this decision was already made, with {other}: the first one stands and the run has moved on. `switchyard show {run}` shows where it is now"
        ),
    }
}

impl Error {
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::Internal(message.into())
    }

    pub fn invalid_input(message: impl Into<String>) -> Self {
        Self::InvalidInput(message.into())
    }

    /// Stable code a program or agent can react to.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Catalog(error) => error.code(),
            Self::Config(error) => error.code(),
            Self::InvalidWorkflow { .. } => "WORKFLOW_INVALID",
            Self::Token(error) => error.code(),
            Self::IdNotToken { .. } => "ID_NOT_TOKEN",
            Self::TokenOfOtherKind { .. } => "TOKEN_WRONG_KIND",
            Self::Engine(error) => error.code(),
            Self::Store(error) => error.code(),
            Self::NotFound { .. } => "NOT_FOUND",
            Self::ReplayMismatch { .. } => "REPLAY_MISMATCH",
            Self::ReportNotFilledIn { .. } => "REPORT_NOT_FILLED_IN",
            Self::MovedOn { .. } => "RUN_MOVED_ON",
            Self::InvalidInput(_) => "INVALID_INPUT",
            Self::EvidenceCommandsOff(_) => "EVIDENCE_COMMANDS_OFF",
            Self::Home { .. } | Self::KeyFile(_) | Self::StoreUnreadable { .. } => "ENVIRONMENT",
            Self::Internal(_) => "INTERNAL",
            Self::DestinationNotEmpty { .. } => "STORE_COPY_DESTINATION_NOT_EMPTY",
        }
    }

    pub fn class(&self) -> ErrorClass {
        match self {
            Self::InvalidWorkflow { .. } | Self::Engine(_) | Self::ReplayMismatch { .. } | Self::MovedOn { .. } => {
                ErrorClass::Rule
            }
            _ => ErrorClass::Usage,
        }
    }

    /// Whether the call failed for what surrounds it (the store, the home, the key file, a damaged
    /// store) rather than for what it asked: a caller driving runs on its own (the agent runner)
    /// stops on these instead of handing them to a model.
    pub fn is_environment(&self) -> bool {
        matches!(
            self,
            Self::Store(_)
                | Self::Home { .. }
                | Self::KeyFile(_)
                | Self::StoreUnreadable { .. }
                | Self::Internal(_)
                | Self::Catalog(switchyard_catalog::Error::Io { .. })
        )
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
