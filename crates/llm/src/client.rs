//! The client: one endpoint (a base URL and an optional key), one request at a time, and how a
//! failed answer is sorted into an [`ErrorKind`] with a message that never holds the key.

use std::fmt;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::retry;
use crate::stream::{self, Fault};
use crate::wire::{ChatRequest, ChatResponse};

/// An API key. Its `Debug` never shows it; it leaves the process only in the `Authorization`
/// header of a request to the endpoint it was given for, and the client cuts it out of anything
/// a server sends back before it reaches a message.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key held by the environment variable `variable`; `None` when it is unset or empty.
    pub fn from_env(variable: &str) -> Option<Self> {
        std::env::var(variable).ok().filter(|key| !key.trim().is_empty()).map(|key| Self(key.trim().to_owned()))
    }

    /// `text` with every occurrence of the key replaced by `<redacted>`, as written or as a JSON
    /// string escapes it (a server echoing the header inside a JSON body).
    pub fn redact(&self, text: &str) -> String {
        if self.0.is_empty() {
            return text.to_owned();
        }
        let escaped = serde_json::to_string(&self.0).unwrap_or_default();
        let escaped = escaped.trim_matches('"');
        text.replace(&self.0, "<redacted>").replace(escaped, "<redacted>")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("ApiKey(<redacted>)")
    }
}

/// Where requests go: the base URL up to `/v1` (requests go to `<base>/chat/completions`) and
/// the key, if the server wants one.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub base_url: String,
    pub api_key: Option<ApiKey>,
    /// How long one request may take, from sending to the last byte of the answer.
    pub timeout: Duration,
}

/// A chat-completions client for one endpoint.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    endpoint: Endpoint,
}

impl Client {
    pub fn new(endpoint: Endpoint) -> Result<Self, Error> {
        let http = reqwest::Client::builder().timeout(endpoint.timeout).build().map_err(|error| Error {
            kind: ErrorKind::Transport,
            status: None,
            retry_after: None,
            message: format!("cannot build the HTTP client: {}", error_chain(&error)),
        })?;
        Ok(Self { http, endpoint })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// The URL requests are posted to.
    pub fn url(&self) -> String {
        format!("{}/chat/completions", self.endpoint.base_url.trim_end_matches('/'))
    }

    /// Sends one request, once: no retry here (see [`Client::complete_with_retries`], or decide
    /// with [`ErrorKind::is_retryable`]).
    ///
    /// The answer is read as a stream of server-sent events when the request asked for one
    /// ([`ChatRequest::stream`]) or the server streams unasked (some gateways always do), and as
    /// one JSON body otherwise; the response is the same either way.
    /// A tool call the server sent without an id gets `call_<index>` (its place in the message).
    pub async fn complete(&self, request: &ChatRequest<'_>) -> Result<ChatResponse, Error> {
        let url = self.url();
        let mut builder = self.http.post(&url).json(request);
        if let Some(ApiKey(key)) = &self.endpoint.api_key {
            builder = builder.bearer_auth(key);
        }
        let started = std::time::Instant::now();
        let response = builder.send().await.map_err(|error| self.transport(&url, &error))?;
        let status = response.status();
        let retry_after = retry::retry_after(response.headers(), jiff::Timestamp::now());
        if status.is_success() && is_streamed(request, response.headers()) {
            return self.read_stream(response, request, retry_after, started).await;
        }
        let body = response.bytes().await.map_err(|error| self.transport(&url, &error))?;
        let body = self.redact(&String::from_utf8_lossy(&body));
        tracing::debug!(
            model = %request.model,
            status = status.as_u16(),
            elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            bytes = body.len(),
            "model answered"
        );
        if !status.is_success() {
            let kind = classify(status.as_u16(), &body);
            let message = self.explain(kind, &url, Answered::Status(status), request, &body);
            return Err(Error { kind, status: Some(status.as_u16()), retry_after, message });
        }
        let malformed = |reason: String| Error {
            kind: ErrorKind::Malformed,
            status: Some(status.as_u16()),
            retry_after: None,
            message: format!(
                "{url} answered {status} with something that is not a chat-completions response ({reason}): {}; \
                 check that the base URL points at an OpenAI-compatible server (up to `/v1`)",
                excerpt(&body)
            ),
        };
        let mut response: ChatResponse =
            serde_json::from_str(&body).map_err(|error| malformed(self.redact(&error.to_string())))?;
        if response.choices.is_empty() && response.extra.get("error").is_some_and(|error| !error.is_null()) {
            // Some servers (vLLM, gateways) answer 200 with an error body: it is sorted as the
            // same error answered with its status would be.
            let kind = classify(stream::error_status(&body), &body);
            let message = self.explain(kind, &url, Answered::ErrorBody, request, &body);
            return Err(Error { kind, status: Some(status.as_u16()), retry_after, message });
        }
        if response.choices.is_empty() {
            return Err(malformed(match server_says(&body) {
                Some(said) => format!("no choices; the server says: {said}"),
                None => "no choices".to_owned(),
            }));
        }
        fill_call_ids(&mut response);
        Ok(response)
    }

    /// Reads a successful answer streamed as server-sent events (see the `stream` module).
    async fn read_stream(
        &self,
        response: reqwest::Response,
        request: &ChatRequest<'_>,
        retry_after: Option<Duration>,
        started: std::time::Instant,
    ) -> Result<ChatResponse, Error> {
        let url = self.url();
        let status = response.status();
        let (read, bytes) =
            stream::read(response.bytes_stream(), stream::MAX_STREAM_BYTES, self.endpoint.api_key.as_ref()).await;
        tracing::debug!(
            model = %request.model,
            status = status.as_u16(),
            elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            bytes,
            streamed = true,
            "model answered"
        );
        let mut response = read.map_err(|fault| match fault {
            Fault::Transport(error) => self.transport(&url, &error),
            Fault::ErrorEvent { data, status: stands_for } => {
                let kind = classify(stands_for, &data);
                let message = self.explain(kind, &url, Answered::StreamEvent, request, &data);
                Error { kind, status: Some(status.as_u16()), retry_after, message }
            }
            Fault::Malformed(reason) => Error {
                kind: ErrorKind::Malformed,
                status: Some(status.as_u16()),
                retry_after: None,
                message: format!("{url} answered {status} with a stream that {}", self.redact(&reason)),
            },
        })?;
        fill_call_ids(&mut response);
        Ok(response)
    }

    fn redact(&self, text: &str) -> String {
        match &self.endpoint.api_key {
            Some(key) => key.redact(text),
            None => text.to_owned(),
        }
    }

    fn transport(&self, url: &str, error: &reqwest::Error) -> Error {
        let chain = self.redact(&error_chain(error));
        if error.is_timeout() {
            return Error {
                kind: ErrorKind::Timeout,
                status: None,
                retry_after: None,
                message: format!(
                    "{url} did not answer within {} s ({chain}); a slow model may need a longer \
                     `request_timeout_seconds`",
                    self.endpoint.timeout.as_secs_f64()
                ),
            };
        }
        Error {
            kind: ErrorKind::Transport,
            status: None,
            retry_after: None,
            message: format!("cannot reach {url} ({chain}); check that the server runs and the base URL"),
        }
    }

    /// What went wrong in words: the server's own explanation, and what to do.
    fn explain(&self, kind: ErrorKind, url: &str, status: Answered, request: &ChatRequest<'_>, body: &str) -> String {
        let said = server_says(body).unwrap_or_else(|| excerpt(body));
        let said = if said.is_empty() { "(no body)".to_owned() } else { said };
        match kind {
            ErrorKind::Unauthorized if self.endpoint.api_key.is_none() => format!(
                "{url} answered {status}: {said}; no API key was sent: name the environment variable \
                 holding it with `api_key_env` (or --api-key-env)"
            ),
            ErrorKind::Unauthorized => format!(
                "{url} refused the API key ({status}): {said}; check the key in the variable named by \
                 `api_key_env` and that it may use the model `{}`",
                request.model
            ),
            ErrorKind::UnknownModel => format!(
                "{url} does not know the model `{}` ({status}): {said}; check the model id (`model` in \
                 `[models.<name>]`, or --model) against the models the server offers",
                request.model
            ),
            ErrorKind::RateLimited => format!("{url} is rate limiting ({status}): {said}"),
            ErrorKind::Server => format!("{url} failed ({status}): {said}"),
            ErrorKind::Rejected if status == Answered::Status(reqwest::StatusCode::NOT_FOUND) => format!(
                "{url} answered {status}: {said}; check the base URL: requests go to \
                 `<base_url>/chat/completions`, so it usually ends in `/v1`"
            ),
            ErrorKind::ContextExceeded => format!(
                "{url} refused the request as longer than the model's context window ({status}): {said}; \
                 set `context_window` in `[models.<name>]` to the window the server runs the model with"
            ),
            ErrorKind::StreamRequired => format!(
                "{url} answers only streamed requests ({status}): {said}; set `stream = true` in `[models.<name>]`"
            ),
            ErrorKind::ToolsUnsupported => format!(
                "{url} refused the tools ({status}): {said}; the server must run with tool calling on \
                 (vLLM: --enable-auto-tool-choice --tool-call-parser <parser>; llama.cpp: --jinja) \
                 and the model `{}` must support it",
                request.model
            ),
            ErrorKind::InvalidMessage => format!(
                "{url} refused a message of the conversation ({status}): {said}; this is switchyard's request \
                 to mend: please report it with `switchyard transcript <run>`"
            ),
            _ => format!("{url} rejected the request ({status}): {said}"),
        }
    }
}

/// How a server said it failed: with an HTTP status, or in an event of a stream it had begun
/// with a 200.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Answered {
    Status(reqwest::StatusCode),
    StreamEvent,
    ErrorBody,
}

impl fmt::Display for Answered {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Answered::Status(status) => status.fmt(formatter),
            Answered::StreamEvent => formatter.write_str("an error event in its stream"),
            Answered::ErrorBody => formatter.write_str("200 with an error body"),
        }
    }
}

/// Whether a successful answer is read as a stream: when the server says it streams, asked or
/// not (some gateways always stream), and when the request asked for a stream and the server
/// does not say it answers JSON (a server that ignores `stream` sends its usual JSON body, which
/// is read as one).
fn is_streamed(request: &ChatRequest<'_>, headers: &HeaderMap) -> bool {
    let content_type = headers.get(CONTENT_TYPE).and_then(|value| value.to_str().ok()).unwrap_or_default();
    let media_type = content_type.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    media_type == "text/event-stream" || (request.stream && !media_type.ends_with("json"))
}

/// Gives each tool call the server sent without an id `call_<index>`, its place in the message:
/// an answer to a call must name it.
fn fill_call_ids(response: &mut ChatResponse) {
    for choice in &mut response.choices {
        for (index, call) in choice.message.tool_calls.iter_mut().enumerate() {
            if call.id.is_empty() {
                call.id = format!("call_{index}");
            }
        }
    }
}

/// Sorts a failed answer by what a retry can do. How servers say they do not know a model:
/// OpenAI answers 404 with `"code": "model_not_found"`; vLLM 404 "The model `x` does not exist";
/// Ollama 404 `model "x" not found`; llama.cpp's and LM Studio's servers and gateways 400 or 404
/// with "model" and "not found", "does not exist", "unknown", "invalid" or "not a valid" in the
/// message. A 400 about a model that exists ("this model's maximum context length ...") is not
/// one of them.
///
/// Other refusals are sorted by what would mend them, from the words servers use:
/// - the context window: OpenAI and Azure's `context_length_exceeded` and "maximum context
///   length", vLLM's "maximum context length is N tokens", llama.cpp's "exceeds the available
///   context size" (`exceed_context_size_error`), LiteLLM's `ContextWindowExceededError`,
///   "prompt is too long" from gateways in front of other APIs, and a 413;
/// - streaming: gateways that answer only `stream: true` ("only supports streaming", "stream
///   must be true");
/// - tools: vLLM without `--enable-auto-tool-choice`/`--tool-call-parser`, llama.cpp without
///   `--jinja`, Ollama's "does not support tools";
/// - a message the server refuses (`Invalid 'messages[3]'`, "messages ... invalid").
pub fn classify(status: u16, body: &str) -> ErrorKind {
    match status {
        401 | 403 => ErrorKind::Unauthorized,
        429 => ErrorKind::RateLimited,
        500..=599 => ErrorKind::Server,
        413 => ErrorKind::ContextExceeded,
        400..=499 if says_any(body, CONTEXT_WORDS) => ErrorKind::ContextExceeded,
        400 | 404 | 422 if names_unknown_model(status, body) => ErrorKind::UnknownModel,
        408 => ErrorKind::Timeout,
        400..=499 if says_any(body, STREAM_WORDS) => ErrorKind::StreamRequired,
        400..=499 if says_any(body, TOOLS_WORDS) => ErrorKind::ToolsUnsupported,
        400 | 422 if says_any(body, MESSAGE_WORDS) => ErrorKind::InvalidMessage,
        _ => ErrorKind::Rejected,
    }
}

const CONTEXT_WORDS: &[&str] = &[
    "context_length_exceeded",
    "maximum context length",
    "context length exceeded",
    "exceeds the available context size",
    "exceed_context_size",
    "contextwindowexceeded",
    "context window",
    "prompt is too long",
    "too many tokens",
    "reduce the length of the messages",
    "input is too long",
];
const STREAM_WORDS: &[&str] =
    &["only supports streaming", "only streaming", "stream must be true", "streaming is required", "requires stream"];
const TOOLS_WORDS: &[&str] = &[
    "enable-auto-tool-choice",
    "tool-call-parser",
    "tool_call_parser",
    "--jinja",
    "does not support tools",
    "tools are not supported",
    "tool calling is not supported",
    "does not support function calling",
];
const MESSAGE_WORDS: &[&str] = &["'messages", "\"messages", "messages[", "message at position", "roles must alternate"];

/// Whether the body says one of `words` (lower case), in any case.
fn says_any(body: &str, words: &[&str]) -> bool {
    let text = body.to_ascii_lowercase();
    words.iter().any(|word| text.contains(word))
}

fn names_unknown_model(status: u16, body: &str) -> bool {
    let text = body.to_ascii_lowercase();
    if text.contains("model_not_found") {
        return true;
    }
    let said = server_says(body).map_or(text, |said| said.to_ascii_lowercase());
    if !said.contains("model") {
        return false;
    }
    status == 404
        || [
            "not found",
            "does not exist",
            "not exist",
            "unknown model",
            "invalid model",
            "not a valid",
            "no such model",
        ]
        .iter()
        .any(|phrase| said.contains(phrase))
}

/// The explanation a server put in its error body: `error.message`, `error` (a string),
/// `message` or `detail`, cut to a readable length.
fn server_says(body: &str) -> Option<String> {
    let value: Value = serde_json::from_str(body).ok()?;
    let said = [&value["error"]["message"], &value["error"], &value["message"], &value["detail"]]
        .into_iter()
        .find_map(Value::as_str)?;
    Some(excerpt(said))
}

/// The start of an error body, for a message: servers explain themselves there.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 300;
    let text = text.trim();
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// An error and its sources: reqwest's own message ("error sending request") says little alone.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
