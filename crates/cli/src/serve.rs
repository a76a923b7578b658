//! `switchyard mcp` (stdio) and `switchyard serve` (streamable HTTP): open the runtime, build the
//! MCP server, and serve until the client goes away or the process is interrupted.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use serde_json::{Map, Value};
use switchyard_config::{Config, Overrides, Secret, ServeLimits, ServeTokenSource};
use switchyard_files::FileHost;
use switchyard_mcp::{
    CallToolResult, Console, HttpLimits, HttpOptions, LoginCheck, ServerOptions, SwitchyardServer, Tool, ToolProvider,
};
use tokio_util::sync::CancellationToken;

use crate::opened::Opened;
use crate::output::LogFormat;
use crate::output::{Failure, Outcome};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Also serve the file tools (read_file, list_files, save_output, write_file, apply_patch, update_frontmatter, preload_workflow).
    #[arg(long)]
    pub file_tools: bool,
    /// Expose the fixture tools the MCP conformance suite calls (for testing switchyard itself).
    #[arg(long, hide = true)]
    pub conformance_fixtures: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to bind (default: `[serve] host` of switchyard.toml, else 127.0.0.1). Anything but loopback needs a token.
    #[arg(long)]
    pub host: Option<IpAddr>,
    /// The port; 0 picks a free one, printed on stderr (default: `[serve] port`, else 7878).
    #[arg(long)]
    pub port: Option<u16>,
    /// Bearer token clients must send (`Authorization: Bearer <token>`); required off loopback.
    /// Other users can see it in the process list: prefer --token-file.
    /// Precedence: this flag or --token-file, then $SWITCHYARD_SERVE_TOKEN, then `[serve] token_file` (or `token`) of switchyard.toml.
    #[arg(long)]
    pub token: Option<String>,
    /// Read the bearer token from this file (content trimmed); the file must be readable by you only (`chmod 600`).
    #[arg(long, value_name = "PATH", conflicts_with = "token")]
    pub token_file: Option<PathBuf>,
    /// Another `Host` header value to accept (name or name:port); repeatable. Replaces `[serve] allowed_hosts`.
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
    /// Another browser origin to accept (scheme://host:port); repeatable. Replaces `[serve] allowed_origins`.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// Also serve the file tools (read_file, list_files, save_output, write_file, apply_patch, update_frontmatter, preload_workflow).
    #[arg(long)]
    pub file_tools: bool,
    /// Expose the fixture tools the MCP conformance suite calls (for testing switchyard itself).
    #[arg(long, hide = true)]
    pub conformance_fixtures: bool,
}

/// The default `serve` port.
pub(crate) const DEFAULT_PORT: u16 = 7878;

/// The file tools of `switchyard-files`, served next to the workflow tools.
#[derive(Debug)]
struct FileTools {
    host: Arc<FileHost>,
}

#[async_trait::async_trait]
impl ToolProvider for FileTools {
    fn tools(&self) -> Vec<Tool> {
        switchyard_files::tool_definitions()
            .into_iter()
            .map(|definition| {
                switchyard_mcp::tool_definition(definition.name, definition.description, definition.input_schema)
            })
            .collect()
    }

    async fn call(&self, name: &str, arguments: Map<String, Value>) -> CallToolResult {
        match self.host.call(name, Value::Object(arguments), None).await {
            Ok(text) => switchyard_mcp::text_result(text, false),
            Err(error) => {
                let envelope = serde_json::json!({
                    "code": error.code, "message": error.message,
                    "retry": { "kind": "not_retryable" }, "details": error.details,
                });
                switchyard_mcp::text_result(envelope.to_string(), true)
            }
        }
    }
}

async fn server(config: &Config, conformance_fixtures: bool, file_tools: bool) -> Result<SwitchyardServer, Failure> {
    let opened = Opened::open(config).await?;
    Ok(server_on(&opened, config, conformance_fixtures, file_tools))
}

/// The MCP server over an open runtime (which `serve` shares with the console).
fn server_on(opened: &Opened, config: &Config, conformance_fixtures: bool, file_tools: bool) -> SwitchyardServer {
    let mut providers: Vec<Arc<dyn ToolProvider>> = Vec::new();
    if file_tools {
        let host = Arc::new(opened.file_host(config));
        providers.push(Arc::new(FileTools { host }));
    }
    SwitchyardServer::new(
        Arc::clone(&opened.runtime),
        opened.catalog.clone(),
        &ServerOptions { conformance_fixtures, providers },
    )
}

/// Serves MCP over stdio; returns when the client closes stdin.
pub async fn mcp(args: &McpArgs, overrides: Overrides) -> Result<Outcome, Failure> {
    let config = crate::opened::resolve(overrides)?;
    let server = server(&config, args.conformance_fixtures, args.file_tools).await?;
    switchyard_mcp::serve_stdio(server).await.map_err(|error| Failure::environment(error.to_string()))?;
    Ok(Outcome::Success)
}

/// The bearer token and where it came from: `--token` or `--token-file`, then the configuration
/// (`SWITCHYARD_SERVE_TOKEN`, then `switchyard.toml`). Empty values count as unset, but an empty
/// token file is refused. The token itself is never printed.
fn bearer_token(args: &ServeArgs, config: &Config) -> Result<Option<(Secret, String)>, Failure> {
    if let Some(token) = args.token.clone().filter(|token| !token.is_empty()) {
        return Ok(Some((Secret::new(token), "--token".to_owned())));
    }
    if let Some(path) = &args.token_file {
        // The same checks as `[serve] token_file`: private to this user, trimmed, not empty.
        let token = ServeTokenSource::File(path.clone()).read()?;
        return Ok(Some((token, format!("--token-file {}", path.display()))));
    }
    match &config.serve.token {
        Some(source) => Ok(Some((source.read()?, source.describe()))),
        None => Ok(None),
    }
}

/// The extra `Host` values: the `--allowed-host` flags when there are any (they replace, not
/// extend, the configured list, so one command line says everything that is allowed), else
/// `[serve] allowed_hosts`.
fn allowed_hosts(args: &ServeArgs, config: &Config) -> Result<Vec<String>, Failure> {
    if args.allowed_hosts.is_empty() {
        return Ok(config.serve.allowed_hosts.clone().unwrap_or_default());
    }
    switchyard_config::check_allowed_hosts(&args.allowed_hosts, "--allowed-host")?;
    Ok(args.allowed_hosts.clone())
}

/// The extra browser origins, chosen like [`allowed_hosts`].
fn allowed_origins(args: &ServeArgs, config: &Config) -> Result<Vec<String>, Failure> {
    if args.allowed_origins.is_empty() {
        return Ok(config.serve.allowed_origins.clone().unwrap_or_default());
    }
    switchyard_config::check_allowed_origins(&args.allowed_origins, "--allowed-origin")?;
    Ok(args.allowed_origins.clone())
}

/// `[serve]`'s bounds over the door's defaults.
/// What `serve` uses for a `[serve]` key nobody set (`serve.port` → 7878), for `switchyard config`
/// to show; `None` for keys whose absence means "none" (a token, extra hosts).
pub(crate) fn default_of(key: &str) -> Option<Value> {
    let limits = http_limits(&ServeLimits::default());
    let value = match key {
        "serve.host" => serde_json::json!(Ipv4Addr::LOCALHOST.to_string()),
        "serve.port" => serde_json::json!(DEFAULT_PORT),
        "serve.max_connections" => serde_json::json!(limits.max_connections),
        "serve.max_pending_connections" => serde_json::json!(limits.max_pending_connections),
        "serve.header_timeout_seconds" => serde_json::json!(limits.header_timeout.as_secs()),
        "serve.body_timeout_seconds" => serde_json::json!(limits.body_timeout.as_secs()),
        "serve.max_sessions" => serde_json::json!(limits.max_sessions),
        "serve.session_idle_seconds" => serde_json::json!(limits.session_idle_timeout.as_secs()),
        _ => return None,
    };
    Some(value)
}

pub(crate) fn http_limits(configured: &ServeLimits) -> HttpLimits {
    let defaults = HttpLimits::default();
    let seconds = |value: Option<u64>, default: Duration| value.map_or(default, Duration::from_secs);
    HttpLimits {
        max_connections: configured.max_connections.unwrap_or(defaults.max_connections),
        max_pending_connections: configured.max_pending_connections.unwrap_or(defaults.max_pending_connections),
        header_timeout: seconds(configured.header_timeout_seconds, defaults.header_timeout),
        body_timeout: seconds(configured.body_timeout_seconds, defaults.body_timeout),
        max_sessions: configured.max_sessions.unwrap_or(defaults.max_sessions),
        session_idle_timeout: seconds(configured.session_idle_seconds, defaults.session_idle_timeout),
    }
}

/// Serves MCP over HTTP until interrupted (Ctrl-C).
pub async fn serve(args: &ServeArgs, overrides: Overrides, log_format: LogFormat) -> Result<Outcome, Failure> {
    let config = crate::opened::resolve(overrides)?;
    let host = args.host.or(config.serve.host).unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let port = args.port.or(config.serve.port).unwrap_or(DEFAULT_PORT);
    let token = bearer_token(args, &config)?;
    let opened = Opened::serving(&config).await?;
    // The console reads and acts through the same runtime as `/mcp`; the guard accepts its login
    // cookie (a value derived from the token) in place of the token off `/mcp`.
    let console_token = token.as_ref().map(|(token, _)| token.clone());
    let shutdown = CancellationToken::new();
    let console = Console {
        logged_in: console_token.as_ref().map(|token| LoginCheck(Arc::new(switchyard_console::login_check(token)))),
        router: switchyard_console::router_with(
            Arc::clone(&opened.runtime),
            opened.catalog.clone(),
            switchyard_console::ConsoleOptions { token: console_token, shutdown: shutdown.clone() },
        ),
    };
    let options = HttpOptions {
        bind: SocketAddr::new(host, port),
        token_source: token.as_ref().map(|(_, source)| source.clone()),
        token: token.map(|(token, _)| token),
        allowed_hosts: allowed_hosts(args, &config)?,
        allowed_origins: allowed_origins(args, &config)?,
        limits: http_limits(&config.serve.limits),
        console: Some(console),
    };
    if !options.bind.ip().is_loopback() && options.token.is_none() {
        return Err(Failure::usage(switchyard_mcp::HttpError::TokenRequired(options.bind).to_string()));
    }
    let server = server_on(&opened, &config, args.conformance_fixtures, args.file_tools);
    let stop = shutdown.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    let bound = switchyard_mcp::http::bind(&options).await.map_err(|error| Failure::environment(error.to_string()))?;
    announce(bound.address(), &options, log_format);
    bound.serve(server, options, shutdown).await.map_err(|error| Failure::environment(error.to_string()))?;
    Ok(Outcome::Success)
}

/// The `tracing` target of the line that says where `serve` listens; under `--log-format json` it
/// is logged whatever `SWITCHYARD_LOG` says (`main::init_logs`), since it is the command's answer.
pub(crate) const START_TARGET: &str = "switchyard::serve";

/// Says where `serve` listens, the console first: a person opens it in a browser, while `/mcp`
/// answers MCP clients only. For people (the text log format) a few lines on stderr; under
/// `--log-format json` one `serve_started` log line with the same addresses, so that stderr stays
/// one JSON object a line.
fn announce(address: SocketAddr, options: &HttpOptions, log_format: LogFormat) {
    let access = options.access();
    let base = format!("http://{address}");
    let (console, mcp, metrics) = (format!("{base}/"), format!("{base}/mcp"), format!("{base}/metrics"));
    tracing::info!(
        target: START_TARGET,
        event = "serve_started",
        %address,
        console,
        mcp,
        metrics,
        access = access.as_str(),
        "serving the console and MCP over HTTP"
    );
    if log_format != LogFormat::Text {
        return;
    }
    let (console_note, mcp_note) = if options.token.is_some() {
        (
            "open it in a browser, log in with the token".to_owned(),
            "for MCP clients, which send `Authorization: Bearer <token>`".to_owned(),
        )
    } else {
        (
            "open it in a browser".to_owned(),
            format!("for MCP clients: claude mcp add --transport http switchyard {mcp}"),
        )
    };
    let width = metrics.len();
    let banner = format!(
        "switchyard: serving on {base} ({access}); Ctrl-C stops it\n  console  {console:<width$}  {console_note}\n  MCP      {mcp:<width$}  {mcp_note}\n  metrics  {metrics:<width$}  Prometheus, behind the same guard\n"
    );
    // One write, and a stderr that is gone (a reader that stopped after the first line, a log
    // collector restarted) never stops the server, as `eprintln!` would by panicking.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), banner.as_bytes());
}
