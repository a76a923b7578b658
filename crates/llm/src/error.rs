//! What can go wrong talking to a model, sorted by what the caller should do about it.

use std::time::Duration;

/// What kind of failure, and so whether a retry can help.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// 401 or 403: the key is missing, wrong or not allowed. Retrying cannot help.
    Unauthorized,
    /// The server does not know the model. Retrying cannot help.
    UnknownModel,
    /// 429: too many requests; retry after the server's `Retry-After` when it gave one.
    RateLimited,
    /// 5xx: the server failed; a retry may succeed.
    Server,
    /// No answer within the request timeout.
    Timeout,
    /// The connection could not be made or broke.
    Transport,
    /// The request is longer than the model's context window: a shorter one may pass.
    ContextExceeded,
    /// The server answers only streamed requests (`stream: true`).
    StreamRequired,
    /// The server or the model does not take tools: its tool calling is not switched on.
    ToolsUnsupported,
    /// The server refused a message of the conversation: the request is malformed.
    InvalidMessage,
    /// Another 4xx: the request itself is wrong. Retrying cannot help.
    Rejected,
    /// The answer is not a chat-completions response.
    Malformed,
}

impl ErrorKind {
    /// Whether sending the same request again may succeed.
    pub fn is_retryable(self) -> bool {
        matches!(self, ErrorKind::RateLimited | ErrorKind::Server | ErrorKind::Timeout | ErrorKind::Transport)
    }

    /// A stable code for programs and events (`LLM_UNAUTHORIZED`, ...).
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::Unauthorized => "LLM_UNAUTHORIZED",
            ErrorKind::UnknownModel => "LLM_UNKNOWN_MODEL",
            ErrorKind::RateLimited => "LLM_RATE_LIMITED",
            ErrorKind::Server => "LLM_SERVER_ERROR",
            ErrorKind::Timeout => "LLM_TIMEOUT",
            ErrorKind::Transport => "LLM_TRANSPORT",
            ErrorKind::ContextExceeded => "LLM_CONTEXT_EXCEEDED",
            ErrorKind::StreamRequired => "LLM_STREAM_REQUIRED",
            ErrorKind::ToolsUnsupported => "LLM_TOOLS_UNSUPPORTED",
            ErrorKind::InvalidMessage => "LLM_INVALID_MESSAGE",
            ErrorKind::Rejected => "LLM_REJECTED",
            ErrorKind::Malformed => "LLM_MALFORMED_RESPONSE",
        }
    }
}

/// A failed request: its kind, the HTTP status when there was one, and a message for a person
/// (what failed, where, what to do) that never holds the API key, even when the server echoed it.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    pub kind: ErrorKind,
    pub status: Option<u16>,
    /// How long the server asked to wait before the next request (`Retry-After`, given in
    /// seconds or as an HTTP date).
    pub retry_after: Option<Duration>,
    pub message: String,
}
