//! `switchyard serve`: MCP over streamable HTTP at `/mcp`, behind a guard that checks `Host`,
//! `Origin` and, when configured, a bearer token. Loopback by default; any other bind address
//! needs a token. Every request the guard refuses is logged as a `security_refused` line.
//!
//! What a client can hold is bounded ([`HttpLimits`]): headers and bodies must arrive within a
//! time, open connections are capped and a crowd of connections that never got a request past
//! the guard cannot lock anyone out (`admission`), and MCP sessions are capped and expire when
//! idle. The accept loop is ours rather than `axum::serve`'s, which sets no header timeout and no
//! connection bound.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use ctutils::CtEq;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::model::{ClientJsonRpcMessage, ClientRequest};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, SessionConfig};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_util::sync::CancellationToken;
use tower::ServiceExt;

use switchyard_config::Secret;
use switchyard_runtime::observe::{LIFECYCLE_TARGET, SECURITY_REFUSED, refusal_line};

use crate::SwitchyardServer;
use crate::admission::{Admission, ConnectionBounds, Pass};
use crate::front_page;
use crate::metrics::{HttpMetrics, route_of};
use crate::stdio::{UTF8_BOM, decode_frame, oversized_refusal};

/// The largest request body `/mcp` accepts.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// What `serve` lets clients hold, and for how long (`[serve]` of `switchyard.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpLimits {
    /// Open connections at most (`max_connections`); past it, the oldest connection that has not
    /// yet had a request let through by the guard is closed to make room, and only when there is
    /// none is a new connection refused (`503`).
    pub max_connections: usize,
    /// Connections at most that have not yet had a request let through by the guard
    /// (`max_pending_connections`); past it, the oldest of them is closed.
    pub max_pending_connections: usize,
    /// How long a client may take to send a request's headers (`header_timeout_seconds`); also
    /// how long a kept-alive connection may stay idle.
    pub header_timeout: Duration,
    /// How long a client may take to send a request's body (`body_timeout_seconds`).
    pub body_timeout: Duration,
    /// MCP sessions at most (`max_sessions`); past it, `initialize` is refused (`503`).
    pub max_sessions: usize,
    /// How long an MCP session may stay idle before it is closed (`session_idle_seconds`).
    pub session_idle_timeout: Duration,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            max_connections: 256,
            max_pending_connections: 64,
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_sessions: 256,
            session_idle_timeout: Duration::from_secs(300),
        }
    }
}

/// How to serve HTTP.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub bind: SocketAddr,
    /// Required (`Authorization: Bearer <token>`) when set; must be set to bind off loopback.
    /// A `Secret`, so printing the options never shows it.
    pub token: Option<Secret>,
    /// Where the token came from (`--token`, an environment variable, a file), said at start in
    /// place of the token.
    pub token_source: Option<String>,
    /// Extra `Host` values to accept (names or `name:port`), besides loopback names.
    pub allowed_hosts: Vec<String>,
    /// Extra browser origins to accept (`https://app.example:443`), besides loopback origins.
    pub allowed_origins: Vec<String>,
    pub limits: HttpLimits,
    /// The web console, mounted beside `/mcp` behind the same guard.
    pub console: Option<Console>,
}

/// Whether a request carries the console's login (its cookie), in place of the bearer token.
#[derive(Clone)]
pub struct LoginCheck(pub Arc<dyn Fn(&HeaderMap) -> bool + Send + Sync>);

impl std::fmt::Debug for LoginCheck {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("LoginCheck")
    }
}

/// A web console mounted by `serve` (`switchyard-console`): its routes, `/` among them for
/// browsers, go through the same guard as `/mcp`.
#[derive(Debug, Clone)]
pub struct Console {
    pub router: Router,
    /// Accepted in place of the bearer token on every route but `/mcp`; `None` without a token.
    pub logged_in: Option<LoginCheck>,
}

/// Paths the console serves to anyone who passes the `Host` and `Origin` checks, token or not:
/// the login form, and the stylesheet it is drawn with.
fn is_public_console_path(path: &str) -> bool {
    path == "/login" || (path.starts_with("/assets/console-") && path.ends_with(".css"))
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HttpError {
    #[error(
        "binding to {0} exposes switchyard beyond this machine and needs a bearer token: set `token_file` under [serve] in switchyard.toml (a file only you can read), pass --token-file <path> or --token <secret>, or set SWITCHYARD_SERVE_TOKEN; or bind to 127.0.0.1"
    )]
    TokenRequired(SocketAddr),
    #[error("cannot listen on {address}: {source}")]
    Bind { address: SocketAddr, source: std::io::Error },
    #[error("the HTTP server failed: {0}")]
    Serve(std::io::Error),
}

#[derive(Debug)]
struct Guard {
    loopback_only: bool,
    token: Option<Secret>,
    /// The console's login, accepted in place of `token` off `/mcp`.
    logged_in: Option<LoginCheck>,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
}

/// The host an authority names (`name`, `name:port`, `[v6]:port`), lower-cased, without the port
/// and the brackets; `None` for anything else (a user part, a path, bad characters).
fn host_of(authority: &str) -> Option<String> {
    if authority.contains('@') {
        return None;
    }
    let authority: Authority = authority.parse().ok()?;
    let host = authority.host();
    let host = host.strip_prefix('[').and_then(|inner| inner.strip_suffix(']')).unwrap_or(host);
    Some(host.to_ascii_lowercase())
}

/// The host of an `Origin` (`scheme://authority`), as `host_of` gives it.
fn origin_host(origin: &str) -> Option<String> {
    let uri: Uri = origin.parse().ok()?;
    uri.scheme()?;
    host_of(uri.authority()?.as_str())
}

/// `localhost`, a name under `.localhost` (RFC 6761), or a loopback address (`127.0.0.0/8`, `::1`).
fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|address| address.is_loopback())
}

/// Constant-time comparison, so a wrong token's timing says nothing about the right one.
fn same_secret(sent: &[u8], expected: &[u8]) -> bool {
    sent.ct_eq(expected).into()
}

/// Why the guard refused a request: the answer's status and words, and the `reason` of the
/// `security_refused` line it logs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Refusal {
    /// A `Host` that is neither loopback nor allowed (the DNS rebinding guard), as sent.
    Host(String),
    /// An `Origin` that is neither loopback nor allowed, as sent.
    Origin(String),
    /// No bearer token (and, off `/mcp`, no login cookie).
    TokenMissing,
    /// A bearer token that is not the configured one.
    TokenWrong,
}

impl Refusal {
    fn status(&self) -> StatusCode {
        match self {
            Self::Host(_) | Self::Origin(_) => StatusCode::FORBIDDEN,
            Self::TokenMissing | Self::TokenWrong => StatusCode::UNAUTHORIZED,
        }
    }

    fn is_unauthorised(&self) -> bool {
        self.status() == StatusCode::UNAUTHORIZED
    }

    /// The `reason` field of the log line, stable: operators filter on it.
    fn reason(&self) -> &'static str {
        match self {
            Self::Host(_) => "host_not_allowed",
            Self::Origin(_) => "origin_not_allowed",
            Self::TokenMissing => "bearer_token_missing",
            Self::TokenWrong => "bearer_token_wrong",
        }
    }
}

impl Guard {
    /// Both checks, as `door` makes them for every route but the front page.
    #[cfg(test)]
    fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        self.check_host_and_origin(headers)?;
        self.check_token(headers, "/mcp")
    }

    fn check_host_and_origin(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = headers.get(header::HOST).and_then(|value| value.to_str().ok()).unwrap_or("");
        let name = host_of(host);
        let host_ok = name.as_deref().is_some_and(is_loopback)
            || self.allowed_hosts.iter().any(|allowed| {
                allowed.eq_ignore_ascii_case(host)
                    || name.as_deref().is_some_and(|name| allowed.eq_ignore_ascii_case(name))
            })
            || (!self.loopback_only && self.allowed_hosts.is_empty());
        if !host_ok {
            return Err(Refusal::Host(host.to_owned()));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let origin_ok = origin_host(origin).as_deref().is_some_and(is_loopback)
                || self.allowed_origins.iter().any(|allowed| allowed.eq_ignore_ascii_case(origin));
            if !origin_ok {
                return Err(Refusal::Origin(origin.to_owned()));
            }
        }
        Ok(())
    }

    /// The bearer token, or off `/mcp` the console's login cookie.
    fn check_token(&self, headers: &HeaderMap, path: &str) -> Result<(), Refusal> {
        if let Some(token) = &self.token {
            let sent = headers
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "))
                .unwrap_or("");
            let logged_in = || {
                let on_mcp = path == "/mcp" || path.starts_with("/mcp/");
                !on_mcp && self.logged_in.as_ref().is_some_and(|logged_in| (logged_in.0)(headers))
            };
            if !same_secret(sent.as_bytes(), token.expose().as_bytes()) && !logged_in() {
                return Err(if sent.is_empty() { Refusal::TokenMissing } else { Refusal::TokenWrong });
            }
        }
        Ok(())
    }

    /// What a refused peer is told.
    fn message(&self, refusal: &Refusal) -> String {
        match refusal {
            Refusal::Host(host) => format!(
                "Host `{host}` is not allowed (DNS rebinding guard); allowed: loopback names{}",
                list(&self.allowed_hosts)
            ),
            Refusal::Origin(origin) => {
                format!("Origin `{origin}` is not allowed; allowed: loopback origins{}", list(&self.allowed_origins))
            }
            Refusal::TokenMissing | Refusal::TokenWrong => {
                "missing or wrong bearer token: send `Authorization: Bearer <token>`".to_owned()
            }
        }
    }
}

/// The longest text of a request (its path, a refused `Host` or `Origin`) a log line repeats.
const LOGGED_TEXT_CHARS: usize = 200;

/// `text` cut to [`LOGGED_TEXT_CHARS`] characters with `…`: a peer must not make the log long.
fn logged_text(text: &str) -> String {
    match text.char_indices().nth(LOGGED_TEXT_CHARS) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Logs a request the guard refused as a `security_refused` line (`docs/operations.md`): the
/// method, the path (without its query), the peer's address, why, and the refused `Host` or
/// `Origin` as sent. Never the `Authorization` header, a cookie or any other header.
fn log_refusal(refusal: &Refusal, request: &Request) {
    let Some(suppressed) = refusal_line() else { return };
    let peer = request.extensions().get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(peer)| peer.to_string());
    let (host, origin) = match refusal {
        Refusal::Host(host) => (Some(logged_text(host)), None),
        Refusal::Origin(origin) => (None, Some(logged_text(origin))),
        Refusal::TokenMissing | Refusal::TokenWrong => (None, None),
    };
    tracing::warn!(
        target: LIFECYCLE_TARGET,
        event = SECURITY_REFUSED,
        door = "http",
        reason = refusal.reason(),
        status = refusal.status().as_u16(),
        method = %request.method(),
        path = logged_text(request.uri().path()),
        peer,
        host,
        origin,
        suppressed,
        "security: the HTTP guard refused a request"
    );
}

fn list(extra: &[String]) -> String {
    if extra.is_empty() { String::new() } else { format!(", {}", extra.join(", ")) }
}

/// What the middleware in front of every route needs.
#[derive(Debug)]
struct Door {
    guard: Guard,
    limits: HttpLimits,
    sessions: Arc<LocalSessionManager>,
    metrics: Arc<HttpMetrics>,
    /// Whether the console is mounted: it then answers browsers at `/`.
    console: bool,
}

/// A plain-text answer that also closes the connection, for peers the server will not serve.
fn closing(status: StatusCode, message: String) -> Response {
    let mut response = (status, message).into_response();
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A JSON-RPC error as an HTTP answer, as stdio would send it.
fn json_rpc(status: StatusCode, answer: &Value) -> Response {
    (status, [(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], answer.to_string()).into_response()
}

/// Every request, counted by route and status once answered (`switchyard_http_requests`).
async fn door(State(door): State<Arc<Door>>, request: Request, next: Next) -> Response {
    let route = route_of(request.uri().path());
    let response = admit(&door, request, next).await;
    door.metrics.count(route, response.status());
    response
}

/// The guard, then (for a `POST`) the body within its time and size bounds, decoded as stdio
/// decodes a line, and the session bound; only then rmcp.
async fn admit(door: &Door, request: Request, next: Next) -> Response {
    let guarded = door.guard.check_host_and_origin(request.headers());
    let host_and_origin_ok = guarded.is_ok();
    let authorised = guarded.and_then(|()| door.guard.check_token(request.headers(), request.uri().path()));
    let unauthorised = authorised.as_ref().is_err_and(Refusal::is_unauthorised);
    if host_and_origin_ok && door.console && is_front_page(&request) && !front_page::wants_html(request.headers()) {
        // Programs asking `/` (curl, health probes) still get the plain-text page, token or not.
        let mut response = front_page::answer(request.headers(), door.guard.token.is_some());
        if authorised.is_err() {
            response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        return response;
    }
    if host_and_origin_ok && is_browser_at_mcp(&request) {
        // A person who typed the MCP address into a browser: `/` is what a browser reads there
        // (the console, or the front page), and this answer lets no connection in.
        let mut response = closing(StatusCode::SEE_OTHER, String::new());
        response.headers_mut().insert(header::LOCATION, HeaderValue::from_static(front_page::PATH));
        return response;
    }
    // The login form and its stylesheet go without the token (behind the Host and Origin checks),
    // but like the front page they do not let a connection in: answered once and closed.
    let public = unauthorised && door.console && is_public_console_path(request.uri().path());
    if unauthorised
        && door.console
        && !public
        && request.method() == Method::GET
        && front_page::wants_html(request.headers())
    {
        // A person whose browser holds no login cookie yet: to the login form.
        let mut response = closing(StatusCode::SEE_OTHER, String::new());
        response.headers_mut().insert(header::LOCATION, HeaderValue::from_static("/login"));
        return response;
    }
    if unauthorised && is_front_page(&request) {
        // The front page needs no token, but asking for it does not let a connection in: it is
        // answered once and closed, so it cannot hold a seat that tokenless clients could not.
        let mut response = front_page::answer(request.headers(), true);
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
        return response;
    }
    if let Err(refusal) = &authorised
        && !public
    {
        log_refusal(refusal, &request);
        // Refused peers do not keep their connection: what they can hold is one request's worth.
        let mut response = closing(refusal.status(), door.guard.message(refusal));
        if refusal.is_unauthorised() {
            response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        return response;
    }
    if !public && let Some(Pass(seat)) = request.extensions().get::<Pass>() {
        seat.passed();
    }
    if request.method() != Method::POST {
        return closed_if(public, next.run(request).await);
    }
    let (parts, body) = request.into_parts();
    // A declared length past the limit is refused before a byte of the body is read.
    if axum::body::HttpBody::size_hint(&body).lower() > MAX_BODY_BYTES as u64 {
        return oversized();
    }
    let seconds = door.limits.body_timeout.as_secs_f64();
    let bytes = match tokio::time::timeout(door.limits.body_timeout, Limited::new(body, MAX_BODY_BYTES).collect()).await
    {
        Err(_) => {
            return closing(
                StatusCode::REQUEST_TIMEOUT,
                format!("the request body did not arrive within {seconds} s ([serve] body_timeout_seconds)"),
            );
        }
        Ok(Err(error)) if error.downcast_ref::<LengthLimitError>().is_some() => return oversized(),
        Ok(Err(error)) => return closing(StatusCode::BAD_REQUEST, format!("cannot read the request body: {error}")),
        Ok(Ok(collected)) => collected.to_bytes(),
    };
    if parts.uri.path() == "/mcp"
        && let Some(answer) = refusal_before_rmcp(door, &parts.headers, &bytes).await
    {
        return answer;
    }
    closed_if(public, next.run(Request::from_parts(parts, Body::from(bytes))).await)
}

/// `response`, closing the connection after it when `close`.
fn closed_if(close: bool, mut response: Response) -> Response {
    if close {
        response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// 413 with the JSON-RPC refusal stdio gives an oversized frame; the connection is closed, since
/// the rest of the body is not worth reading.
fn oversized() -> Response {
    let mut response = json_rpc(StatusCode::PAYLOAD_TOO_LARGE, &oversized_refusal(MAX_BODY_BYTES));
    response.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// A browser's `GET /mcp`: it asks for HTML and not for the event stream an MCP client's `GET`
/// opens, so the MCP answer would be `406 Not Acceptable`.
fn is_browser_at_mcp(request: &Request) -> bool {
    let path = request.uri().path();
    request.method() == Method::GET
        && (path == "/mcp" || path == "/mcp/")
        && front_page::wants_html(request.headers())
        && !front_page::accepts(request.headers(), "text/event-stream")
}

/// `GET /` or `HEAD /`, the front page's requests.
fn is_front_page(request: &Request) -> bool {
    request.uri().path() == front_page::PATH && matches!(*request.method(), Method::GET | Method::HEAD)
}

/// The answer to a body rmcp should not see: one that is not a JSON-RPC message (answered as
/// stdio answers it), or an `initialize` that would open a session past the bound.
async fn refusal_before_rmcp(door: &Door, headers: &HeaderMap, body: &Bytes) -> Option<Response> {
    let frame = body.trim_ascii();
    let frame = frame.strip_prefix(UTF8_BOM).unwrap_or(frame);
    let message = match decode_frame(frame) {
        Ok(message) => message,
        Err(Some(answer)) => return Some(json_rpc(StatusCode::BAD_REQUEST, &answer)),
        Err(None) => return Some(StatusCode::ACCEPTED.into_response()),
    };
    let ClientJsonRpcMessage::Request(request) = &message else { return None };
    if !matches!(request.request, ClientRequest::InitializeRequest(_)) || headers.contains_key("mcp-session-id") {
        return None;
    }
    let open = door.sessions.sessions.read().await.len();
    if open < door.limits.max_sessions {
        return None;
    }
    let idle = door.limits.session_idle_timeout.as_secs();
    let answer = json!({ "jsonrpc": "2.0", "id": request.id, "error": { "code": -32000, "message": format!(
        "switchyard serve already holds {open} MCP sessions, its limit ([serve] max_sessions): end one you no longer use (DELETE /mcp with its Mcp-Session-Id), or retry once an idle one expires ({idle} s idle)"
    ) } });
    let mut response = json_rpc(StatusCode::SERVICE_UNAVAILABLE, &answer);
    response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(idle.clamp(1, 60)));
    Some(response)
}

/// The router: `/mcp` (streamable HTTP), `/health`, `/metrics` (OpenMetrics text), and the console
/// when mounted (else the front page `/`), all behind the guard. `/metrics` is a route of its own that reads only what is in
/// memory (and the store file's size), so scraping never holds up `/mcp`.
pub fn router(server: SwitchyardServer, options: &HttpOptions, shutdown: CancellationToken) -> Router {
    let metrics = Arc::new(HttpMetrics::new(server.clone()));
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown)
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        // The guard checks Host and Origin for every route, with clearer answers.
        .disable_allowed_hosts();
    let mut session_config = SessionConfig::default();
    session_config.keep_alive = Some(options.limits.session_idle_timeout);
    let mut sessions = LocalSessionManager::default();
    sessions.session_config = session_config;
    let sessions = Arc::new(sessions);
    let service = StreamableHttpService::new(move || Ok(server.for_connection()), Arc::clone(&sessions), config);
    let token_required = options.token.is_some();
    let door_state = Arc::new(Door {
        guard: Guard {
            loopback_only: options.bind.ip().is_loopback(),
            token: options.token.clone(),
            logged_in: options.console.as_ref().and_then(|console| console.logged_in.clone()),
            allowed_hosts: options.allowed_hosts.clone(),
            allowed_origins: options.allowed_origins.clone(),
        },
        limits: options.limits,
        sessions,
        metrics: Arc::clone(&metrics),
        console: options.console.is_some(),
    });
    let routes =
        Router::new().nest_service("/mcp", service).route("/health", axum::routing::get(|| async { "ok" })).route(
            "/metrics",
            axum::routing::get(move || {
                let metrics = Arc::clone(&metrics);
                async move { metrics.answer() }
            }),
        );
    // With the console mounted, `/` is its sessions page for browsers (`admit` answers programs
    // with the plain-text page); without it, the front page.
    let routes = match &options.console {
        Some(console) => routes.merge(console.router.clone()),
        None => routes.route(
            front_page::PATH,
            axum::routing::get(move |headers: HeaderMap| async move { front_page::answer(&headers, token_required) }),
        ),
    };
    routes.layer(middleware::from_fn_with_state(door_state, door))
}

impl HttpOptions {
    /// What a client needs to get in, for a start line: `loopback only, no token`, or `bearer
    /// token required, from <where it came from>`; never the token.
    pub fn access(&self) -> String {
        match (&self.token, &self.token_source) {
            (Some(_), Some(source)) => format!("bearer token required, from {source}"),
            (Some(_), None) => "bearer token required".to_owned(),
            (None, _) => "loopback only, no token".to_owned(),
        }
    }
}

/// A socket [`bind`] bound, not yet served: its address (with the port `0` picked) is known, so
/// the caller can say where it listens before [`Bound::serve`].
#[derive(Debug)]
pub struct Bound {
    listener: tokio::net::TcpListener,
    address: SocketAddr,
}

/// Checks the options (off loopback a token is required) and binds.
pub async fn bind(options: &HttpOptions) -> Result<Bound, HttpError> {
    if !options.bind.ip().is_loopback() && options.token.as_ref().is_none_or(|token| token.expose().is_empty()) {
        return Err(HttpError::TokenRequired(options.bind));
    }
    let listener = tokio::net::TcpListener::bind(options.bind)
        .await
        .map_err(|source| HttpError::Bind { address: options.bind, source })?;
    let address = listener.local_addr().map_err(HttpError::Serve)?;
    Ok(Bound { listener, address })
}

impl Bound {
    /// The address it listens on.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Serves until `shutdown`.
    pub async fn serve(
        self,
        server: SwitchyardServer,
        options: HttpOptions,
        shutdown: CancellationToken,
    ) -> Result<(), HttpError> {
        serve_on(self.listener, server, options, shutdown).await
    }
}

async fn serve_on(
    listener: tokio::net::TcpListener,
    server: SwitchyardServer,
    options: HttpOptions,
    shutdown: CancellationToken,
) -> Result<(), HttpError> {
    // The gates-waiting gauge starts from the store once; commands keep it current after that.
    if let Err(error) = server.runtime().count_waiting_gates().await {
        tracing::warn!(%error, "cannot count the runs waiting at a gate: switchyard_gates_waiting starts at 0");
    }
    // Runners in other processes reach the metrics through the store; the follower stops with `serve`.
    let _turn_follower = match server.runtime().follow_turns().await {
        Ok(follower) => Some(follower),
        Err(error) => {
            tracing::warn!(%error, "cannot follow the runners' turns: switchyard_runner_* stay at 0");
            None
        }
    };
    let app = router(server, &options, shutdown.child_token());
    let admission = Admission::new(ConnectionBounds {
        max_connections: connections_that_fit(options.limits.max_connections),
        max_pending: options.limits.max_pending_connections,
    });
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(options.limits.header_timeout);
    let refusals = Arc::new(tokio::sync::Semaphore::new(REFUSALS_AT_ONCE));
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        while connections.try_join_next().is_some() {}
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(error) => {
                // Out of file descriptors, most likely: the connections in hand must close first,
                // and retrying at once would only spin.
                tracing::warn!(%error, "accept failed");
                tokio::time::sleep(ACCEPT_RETRY).await;
                continue;
            }
        };
        // An answer leaves as several small writes (headers, the SSE event, the end of the
        // stream): with Nagle's algorithm on, the last waits for the client's delayed ACK, about
        // 40 ms per call on a kept-alive connection (BENCHMARKS.md, "Many clients and servers").
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set on a connection");
        }
        let Some(seat) = admission.admit() else {
            if let Ok(permit) = Arc::clone(&refusals).try_acquire_owned() {
                let bounds = admission.bounds();
                tokio::spawn(async move {
                    refuse_connection(stream, bounds).await;
                    drop(permit);
                });
            }
            continue;
        };
        let pass = Pass(Arc::clone(&seat));
        let service =
            TowerToHyperService::new(app.clone().map_request(move |mut request: Request<hyper::body::Incoming>| {
                request.extensions_mut().insert(pass.clone());
                // Who asked, for the lines that log a refusal (the console's too).
                request.extensions_mut().insert(ConnectInfo(peer));
                request
            }));
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let shutdown = shutdown.clone();
        connections.spawn(async move {
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                () = seat.evicted.cancelled() => {}
                () = shutdown.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(seat);
        });
    }
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// File descriptors kept free of connections: the store, its WAL, the listener, refusals.
const RESERVED_DESCRIPTORS: u64 = 64;

/// `wanted` connections, or fewer when the process may not open that many files: a server out of
/// file descriptors can accept no one, not even to refuse them.
fn connections_that_fit(wanted: usize) -> usize {
    let Some(open_files) = rustix::process::getrlimit(rustix::process::Resource::Nofile).current else {
        return wanted;
    };
    let fit = usize::try_from(open_files.saturating_sub(RESERVED_DESCRIPTORS).max(1)).unwrap_or(usize::MAX);
    if fit < wanted {
        tracing::warn!(
            wanted,
            fit,
            open_files,
            "[serve] max_connections lowered to what the open-files limit (ulimit -n) leaves room for"
        );
    }
    wanted.min(fit)
}

/// Connections being refused at once; past it, a connection over the bound is closed unanswered.
const REFUSALS_AT_ONCE: usize = 16;

/// How long to wait before accepting again after `accept` failed.
const ACCEPT_RETRY: Duration = Duration::from_millis(100);

/// Answers a connection over the bound with `503` and closes it. The request is read first (for
/// at most a second, at most a few kilobytes): closing a socket with unread data resets it, and
/// the client would see a reset instead of the reason.
async fn refuse_connection(mut stream: TcpStream, bounds: ConnectionBounds) {
    let mut request = [0_u8; 8 * 1024];
    let mut read = 0;
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        while read < request.len() {
            match stream.read(&mut request[read..]).await {
                Ok(0) | Err(_) => break,
                Ok(count) => read += count,
            }
            if request[..read].windows(4).any(|window| window == b"\r\n\r\n") {
                break;
            }
        }
    })
    .await;
    let message = format!(
        "switchyard serve is at its limit of {} open connections ([serve] max_connections), all of them in use by clients it let in; retry shortly\n",
        bounds.max_connections
    );
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n{message}",
        message.len()
    );
    let _ = stream.write_all(answer.as_bytes()).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(allowed_hosts: &[&str], allowed_origins: &[&str]) -> Guard {
        Guard {
            loopback_only: true,
            token: None,
            logged_in: None,
            allowed_hosts: allowed_hosts.iter().map(|host| (*host).to_owned()).collect(),
            allowed_origins: allowed_origins.iter().map(|origin| (*origin).to_owned()).collect(),
        }
    }

    fn check(guard: &Guard, host: &str, origin: Option<&str>) -> bool {
        let mut headers = HeaderMap::new();
        headers.insert(header::HOST, host.parse().unwrap());
        if let Some(origin) = origin {
            headers.insert(header::ORIGIN, origin.parse().unwrap());
        }
        guard.check(&headers).is_ok()
    }

    #[test]
    fn loopback_hosts_pass_in_every_spelling() {
        let guard = guard(&[], &[]);
        for host in ["localhost", "LOCALHOST:7878", "app.localhost:80", "127.0.0.1:7878", "127.0.0.2", "[::1]:7878"] {
            assert!(check(&guard, host, None), "{host}");
        }
    }

    #[test]
    fn other_hosts_fail_however_they_dress_up() {
        let guard = guard(&[], &[]);
        for host in
            ["evil.example", "localhost.evil.example", "evil@localhost", "127.0.0.1.evil.example", "[::2]:80", ""]
        {
            assert!(!check(&guard, host, None), "{host}");
        }
    }

    #[test]
    fn allowed_hosts_match_by_name_with_any_port_or_exactly() {
        let guard = guard(&["app.example", "other.example:8443"], &[]);
        assert!(check(&guard, "APP.example:7878", None));
        assert!(check(&guard, "other.example:8443", None));
        assert!(!check(&guard, "other.example:9000", None));
    }

    #[test]
    fn origins_pass_when_loopback_or_listed() {
        let guard = guard(&[], &["https://app.example"]);
        for origin in ["http://localhost:5173", "http://[::1]:3000", "https://127.0.0.1", "https://app.example"] {
            assert!(check(&guard, "localhost", Some(origin)), "{origin}");
        }
        for origin in [
            "http://evil.example",
            "null",
            "localhost:5173",
            "http://localhost.evil.example",
            "https://app.example:444",
        ] {
            assert!(!check(&guard, "localhost", Some(origin)), "{origin}");
        }
    }

    #[test]
    fn a_missing_token_is_told_apart_from_a_wrong_one_and_neither_message_repeats_it() {
        let guard = Guard { token: Some(Secret::new("s3cret")), ..guard(&[], &[]) };
        let refusal = |authorization: Option<&str>| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_static("localhost"));
            if let Some(value) = authorization {
                headers.insert(header::AUTHORIZATION, value.parse().unwrap());
            }
            guard.check(&headers)
        };
        assert_eq!(refusal(None), Err(Refusal::TokenMissing));
        assert_eq!(refusal(Some("Basic czNjcmV0")), Err(Refusal::TokenMissing));
        assert_eq!(refusal(Some("Bearer guess")), Err(Refusal::TokenWrong));
        assert_eq!(refusal(Some("Bearer s3cret")), Ok(()));
        assert!(!guard.message(&Refusal::TokenWrong).contains("guess"));
    }

    #[test]
    fn logged_text_is_cut_to_its_bound_at_a_character() {
        assert_eq!(logged_text("/mcp"), "/mcp");
        let long = "é".repeat(LOGGED_TEXT_CHARS + 5);
        let cut = logged_text(&long);
        assert_eq!(cut.chars().count(), LOGGED_TEXT_CHARS + 1, "{cut}");
        assert!(cut.ends_with("é…"));
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        assert!(!same_secret(b"s3cre", b"s3cret"));
        assert!(!same_secret(b"s3cret!", b"s3cret"));
        assert!(!same_secret(b"S3cret", b"s3cret"));
    }
}
