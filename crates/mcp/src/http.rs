//! `switchyard serve`: MCP over streamable HTTP at `/mcp`, behind a guard that checks `Host`,
//! `Origin` and, when configured, a bearer token. Loopback by default; any other bind address
//! needs a token.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use switchyard_runtime::config::Secret;

use crate::SwitchyardServer;

/// The largest request body `/mcp` accepts.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

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
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
}

fn host_name(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or(rest);
    }
    authority.rsplit_once(':').map(|(host, _)| host).unwrap_or(authority)
}

fn is_loopback_name(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "::1") || host.ends_with(".localhost")
}

/// Constant-time comparison, so a wrong token's timing says nothing about the right one.
fn same_secret(sent: &[u8], expected: &[u8]) -> bool {
    sent.len() == expected.len() && sent.iter().zip(expected).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

impl Guard {
    fn check(&self, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
        let host = headers.get(header::HOST).and_then(|value| value.to_str().ok()).unwrap_or("");
        let host_ok = self.allowed_hosts.iter().any(|allowed| allowed == host || allowed == host_name(host))
            || (is_loopback_name(host_name(host)))
            || (!self.loopback_only && self.allowed_hosts.is_empty());
        if !host_ok {
            return Err((
                StatusCode::FORBIDDEN,
                format!(
                    "Host `{host}` is not allowed (DNS rebinding guard); allowed: loopback names{}",
                    list(&self.allowed_hosts)
                ),
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            let origin_host = origin.split_once("://").map(|(_, rest)| host_name(rest)).unwrap_or("");
            let origin_ok =
                is_loopback_name(origin_host) || self.allowed_origins.iter().any(|allowed| allowed == origin);
            if !origin_ok {
                return Err((
                    StatusCode::FORBIDDEN,
                    format!(
                        "Origin `{origin}` is not allowed; allowed: loopback origins{}",
                        list(&self.allowed_origins)
                    ),
                ));
            }
        }
        if let Some(token) = &self.token {
            let sent = headers
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "))
                .unwrap_or("");
            if !same_secret(sent.as_bytes(), token.expose().as_bytes()) {
                return Err((
                    StatusCode::UNAUTHORIZED,
                    "missing or wrong bearer token: send `Authorization: Bearer <token>`".to_owned(),
                ));
            }
        }
        Ok(())
    }
}

fn list(extra: &[String]) -> String {
    if extra.is_empty() { String::new() } else { format!(", {}", extra.join(", ")) }
}

async fn guard(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    match guard.check(request.headers()) {
        Ok(()) => next.run(request).await,
        Err((status, message)) => {
            let mut response = (status, message).into_response();
            if status == StatusCode::UNAUTHORIZED {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
            }
            response
        }
    }
}

/// The router: `/mcp` (streamable HTTP) and `/health`, both behind the guard.
pub fn router(server: SwitchyardServer, options: &HttpOptions, shutdown: CancellationToken) -> Router {
    let config = StreamableHttpServerConfig::default()
        .with_cancellation_token(shutdown)
        .with_max_request_body_bytes(MAX_BODY_BYTES)
        // The guard checks Host and Origin for every route, with clearer answers.
        .disable_allowed_hosts();
    let service = StreamableHttpService::new(move || Ok(server.clone()), LocalSessionManager::default().into(), config);
    let guard_state = Arc::new(Guard {
        loopback_only: options.bind.ip().is_loopback(),
        token: options.token.clone(),
        allowed_hosts: options.allowed_hosts.clone(),
        allowed_origins: options.allowed_origins.clone(),
    });
    Router::new()
        .nest_service("/mcp", service)
        .route("/health", axum::routing::get(|| async { "ok" }))
        .layer(middleware::from_fn_with_state(guard_state, guard))
}

/// Checks the options, binds, says where it listens (on stderr), and serves until `shutdown`.
pub async fn serve(
    server: SwitchyardServer,
    options: HttpOptions,
    shutdown: CancellationToken,
) -> Result<(), HttpError> {
    if !options.bind.ip().is_loopback() && options.token.as_ref().is_none_or(|token| token.expose().is_empty()) {
        return Err(HttpError::TokenRequired(options.bind));
    }
    let listener = tokio::net::TcpListener::bind(options.bind)
        .await
        .map_err(|source| HttpError::Bind { address: options.bind, source })?;
    let address = listener.local_addr().map_err(HttpError::Serve)?;
    let auth = match (&options.token, &options.token_source) {
        (Some(_), Some(source)) => format!("bearer token required, from {source}"),
        (Some(_), None) => "bearer token required".to_owned(),
        (None, _) => "loopback only, no token".to_owned(),
    };
    tracing::info!(%address, "serving MCP over HTTP");
    #[allow(clippy::print_stderr)]
    {
        eprintln!("switchyard: serving MCP at http://{address}/mcp ({auth})");
    }
    let app = router(server, &options, shutdown.child_token());
    // An answer leaves as several small writes (headers, the SSE event, the end of the stream):
    // with Nagle's algorithm on, the last waits for the client's delayed ACK, about 40 ms per call
    // on a kept-alive connection.
    let listener = listener.tap_io(|stream| {
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%error, "TCP_NODELAY not set on a connection");
        }
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(async move { shutdown.cancelled().await })
        .await
        .map_err(HttpError::Serve)
}
