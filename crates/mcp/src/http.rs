//! `switchyard serve`: MCP over streamable HTTP at `/mcp`, behind a guard that checks `Host`,
//! `Origin` and, when configured, a bearer token. Loopback by default; any other bind address
//! needs a token.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::uri::Authority;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::serve::ListenerExt;
use ctutils::CtEq;
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

impl Guard {
    fn check(&self, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
        let host = headers.get(header::HOST).and_then(|value| value.to_str().ok()).unwrap_or("");
        let name = host_of(host);
        let host_ok = name.as_deref().is_some_and(is_loopback)
            || self.allowed_hosts.iter().any(|allowed| {
                allowed.eq_ignore_ascii_case(host)
                    || name.as_deref().is_some_and(|name| allowed.eq_ignore_ascii_case(name))
            })
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
            let origin_ok = origin_host(origin).as_deref().is_some_and(is_loopback)
                || self.allowed_origins.iter().any(|allowed| allowed.eq_ignore_ascii_case(origin));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(allowed_hosts: &[&str], allowed_origins: &[&str]) -> Guard {
        Guard {
            loopback_only: true,
            token: None,
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
    fn secrets_compare_whole() {
        assert!(same_secret(b"s3cret", b"s3cret"));
        assert!(!same_secret(b"s3cre", b"s3cret"));
        assert!(!same_secret(b"s3cret!", b"s3cret"));
        assert!(!same_secret(b"S3cret", b"s3cret"));
    }
}
