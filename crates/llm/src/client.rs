//! The client: one endpoint (a base URL and an optional key), one request at a time.

use std::fmt;
use std::time::Duration;

use crate::error::{Error, ErrorKind};
use crate::wire::{ChatRequest, ChatResponse};

/// An API key. Its `Debug` never shows it; it leaves the process only in the `Authorization`
/// header of a request to the endpoint it was given for.
#[derive(Clone)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
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
            message: format!("cannot build the HTTP client: {error}"),
        })?;
        Ok(Self { http, endpoint })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// Sends one request, once: no retry here (the caller decides, see [`ErrorKind::is_retryable`]).
    pub async fn complete(&self, request: &ChatRequest) -> Result<ChatResponse, Error> {
        let url = format!("{}/chat/completions", self.endpoint.base_url.trim_end_matches('/'));
        let mut builder = self.http.post(&url).json(request);
        if let Some(ApiKey(key)) = &self.endpoint.api_key {
            builder = builder.bearer_auth(key);
        }
        let response = builder.send().await.map_err(|error| transport(&url, &error))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get(reqwest::header::RETRY_AFTER)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.trim().parse::<u64>().ok())
            .map(Duration::from_secs);
        let body = response.bytes().await.map_err(|error| transport(&url, &error))?;
        if !status.is_success() {
            let kind = match status.as_u16() {
                401 | 403 => ErrorKind::Unauthorized,
                404 if mentions_model(&body) => ErrorKind::UnknownModel,
                429 => ErrorKind::RateLimited,
                500..=599 => ErrorKind::Server,
                _ => ErrorKind::Rejected,
            };
            return Err(Error {
                kind,
                status: Some(status.as_u16()),
                retry_after,
                message: format!("{url} answered {status}: {}", excerpt(&body)),
            });
        }
        serde_json::from_slice(&body).map_err(|error| Error {
            kind: ErrorKind::Malformed,
            status: Some(status.as_u16()),
            retry_after: None,
            message: format!(
                "{url} answered with something that is not a chat-completions response ({error}): {}",
                excerpt(&body)
            ),
        })
    }
}

fn transport(url: &str, error: &reqwest::Error) -> Error {
    let kind = if error.is_timeout() { ErrorKind::Timeout } else { ErrorKind::Transport };
    Error { kind, status: None, retry_after: None, message: format!("{url}: {error}") }
}

fn mentions_model(body: &[u8]) -> bool {
    String::from_utf8_lossy(body).to_ascii_lowercase().contains("model")
}

/// The start of an error body, for a message: servers explain themselves there.
fn excerpt(body: &[u8]) -> String {
    const MAX: usize = 300;
    let text = String::from_utf8_lossy(body);
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.into_owned(),
    }
}
