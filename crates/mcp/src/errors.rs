//! The closed set of error codes every switchyard tool answers with, and the one place runtime
//! errors become tool errors: `{code, message, retry, details}` as a tool result the model reads.

use serde::Serialize;
use serde_json::{Value, json};
use switchyard_catalog::Error as CatalogError;
use switchyard_core::token::TokenError;
use switchyard_runtime::Error;

/// Every code a switchyard tool error carries. WorkRail's set, plus `REPLAY_MISMATCH` and
/// `HUMAN_ACTION_REQUIRED`; `details.cause` names switchyard's finer runtime code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The arguments do not match the tool's schema, or a value is out of range.
    ValidationError,
    /// No workflow, session, run or node by that name or id.
    NotFound,
    /// A rule refused the call in the run's current state (finished run, stopped run, invalid
    /// workflow file).
    PreconditionFailed,
    /// The call took too long.
    Timeout,
    /// Something failed inside switchyard (store, files); the message says what.
    InternalError,
    /// Not a token switchyard issues: wrong prefix, length or encoding.
    TokenInvalidFormat,
    /// The token's signature does not verify: it was altered, or signed with another key.
    TokenBadSignature,
    /// A token of the wrong kind for this tool, or of another run.
    TokenScopeMismatch,
    /// The token is well formed and signed, but this store does not know it.
    TokenUnknownNode,
    /// Another process holds the session; retry shortly.
    TokenSessionLocked,
    /// The same call was made before with a different payload; the first result stands.
    ReplayMismatch,
    /// The run waits for a human (gate approval or a decision); agents cannot act until then.
    HumanActionRequired,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 12] = [
        Self::ValidationError,
        Self::NotFound,
        Self::PreconditionFailed,
        Self::Timeout,
        Self::InternalError,
        Self::TokenInvalidFormat,
        Self::TokenBadSignature,
        Self::TokenScopeMismatch,
        Self::TokenUnknownNode,
        Self::TokenSessionLocked,
        Self::ReplayMismatch,
        Self::HumanActionRequired,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::ValidationError => "VALIDATION_ERROR",
            Self::NotFound => "NOT_FOUND",
            Self::PreconditionFailed => "PRECONDITION_FAILED",
            Self::Timeout => "TIMEOUT",
            Self::InternalError => "INTERNAL_ERROR",
            Self::TokenInvalidFormat => "TOKEN_INVALID_FORMAT",
            Self::TokenBadSignature => "TOKEN_BAD_SIGNATURE",
            Self::TokenScopeMismatch => "TOKEN_SCOPE_MISMATCH",
            Self::TokenUnknownNode => "TOKEN_UNKNOWN_NODE",
            Self::TokenSessionLocked => "TOKEN_SESSION_LOCKED",
            Self::ReplayMismatch => "REPLAY_MISMATCH",
            Self::HumanActionRequired => "HUMAN_ACTION_REQUIRED",
        }
    }

    /// One line for the documentation.
    pub fn meaning(self) -> &'static str {
        match self {
            Self::ValidationError => {
                "the arguments do not match the tool's schema, or a report is over a size limit (`details.cause` `INPUT_TOO_LARGE`, see `docs/limits.md`); the message names the field or limit and suggests a fix"
            }
            Self::NotFound => "no workflow, session, run or node by that name or id",
            Self::PreconditionFailed => {
                "a rule refused the call in the run's current state (finished or stopped run, invalid workflow file)"
            }
            Self::Timeout => "the call took too long",
            Self::InternalError => "something failed inside switchyard (store, files); the message says what",
            Self::TokenInvalidFormat => "not a token switchyard issues (prefix, length or encoding)",
            Self::TokenBadSignature => "the token was altered or signed with another key",
            Self::TokenScopeMismatch => {
                "a token of the wrong kind for this tool (a `st_` resume token used to advance), or of another run"
            }
            Self::TokenUnknownNode => "a well-formed, signed token this store does not know",
            Self::TokenSessionLocked => "another process holds the store; retry after `retry.afterMs`",
            Self::ReplayMismatch => {
                "this token was already used with other content (`details.differs` names the fields); the first call stands and the run has moved on: get a fresh token"
            }
            Self::HumanActionRequired => "the run waits for a human (gate or decision); retry after `retry.afterMs`",
        }
    }
}

/// When the same call may be made again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Retry {
    NotRetryable,
    RetryableImmediate,
    RetryableAfterMs {
        #[serde(rename = "afterMs")]
        after_ms: u64,
    },
}

/// A tool error as the agent reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolError {
    pub code: ErrorCode,
    pub message: String,
    pub retry: Retry,
    #[serde(skip_serializing_if = "Value::is_null")]
    pub details: Value,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), retry: Retry::NotRetryable, details: Value::Null }
    }

    pub fn validation(message: impl Into<String>, details: Value) -> Self {
        Self { details, ..Self::new(ErrorCode::ValidationError, message) }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = details;
        self
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| format!("{{\"code\":\"{}\"}}", self.code.as_str()))
    }
}

impl From<CatalogError> for ToolError {
    fn from(error: CatalogError) -> Self {
        Error::Catalog(error).into()
    }
}

impl From<Error> for ToolError {
    fn from(error: Error) -> Self {
        let cause = error.code();
        let message = error.to_string();
        let (code, retry) = match &error {
            Error::InvalidInput(_)
            | Error::Catalog(
                CatalogError::InvalidName { .. }
                | CatalogError::AmbiguousWorkflow { .. }
                | CatalogError::NotASource(_)
                | CatalogError::AttachRefused(_),
            )
            | Error::ReportNotFilledIn { .. } => (ErrorCode::ValidationError, Retry::NotRetryable),
            Error::Catalog(CatalogError::WorkflowNotFound { .. }) | Error::NotFound { .. } => {
                (ErrorCode::NotFound, Retry::NotRetryable)
            }
            Error::InvalidWorkflow { .. } => (ErrorCode::PreconditionFailed, Retry::NotRetryable),
            Error::Token(token) => match token {
                TokenError::Malformed { .. } => (ErrorCode::TokenInvalidFormat, Retry::NotRetryable),
                TokenError::BadSignature => (ErrorCode::TokenBadSignature, Retry::NotRetryable),
                TokenError::Unknown => (ErrorCode::TokenUnknownNode, Retry::NotRetryable),
                _ => (ErrorCode::TokenScopeMismatch, Retry::NotRetryable),
            },
            Error::IdNotToken { .. } => (ErrorCode::TokenInvalidFormat, Retry::NotRetryable),
            Error::TokenOfOtherKind { .. } => (ErrorCode::TokenScopeMismatch, Retry::NotRetryable),
            Error::ReplayMismatch { .. } => (ErrorCode::ReplayMismatch, Retry::NotRetryable),
            // A report over a size limit is bad arguments, not a refusal by the run's state.
            Error::Engine(_) if cause == "INPUT_TOO_LARGE" => (ErrorCode::ValidationError, Retry::NotRetryable),
            Error::Engine(engine) if engine.retryable() => {
                if matches!(cause, "AWAITING_GATE" | "AWAITING_HUMAN_DECISION") {
                    (ErrorCode::HumanActionRequired, Retry::RetryableAfterMs { after_ms: 30_000 })
                } else {
                    (ErrorCode::PreconditionFailed, Retry::RetryableAfterMs { after_ms: 30_000 })
                }
            }
            Error::Engine(_) => (ErrorCode::PreconditionFailed, Retry::NotRetryable),
            Error::Store(store) if store.is_retryable() => {
                (ErrorCode::TokenSessionLocked, Retry::RetryableAfterMs { after_ms: 250 })
            }
            _ => (ErrorCode::InternalError, Retry::NotRetryable),
        };
        let mut details = json!({ "cause": cause });
        if let Error::ReplayMismatch { run, differs, recorded_sha256, sent_sha256, .. } = &error {
            details["runId"] = json!(run);
            details["differs"] = json!(differs);
            details["recordedSha256"] = json!(recorded_sha256);
            details["sentSha256"] = json!(sent_sha256);
        }
        if let Error::ReportNotFilledIn { paths } = &error {
            details["placeholders"] = json!(paths);
        }
        if let Error::InvalidWorkflow { diagnostics, .. } = &error {
            details["diagnostics"] = json!(diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>());
        }
        Self { code, message, retry, details }
    }
}
