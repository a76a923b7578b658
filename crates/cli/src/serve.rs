//! `switchyard mcp` (stdio) and `switchyard serve` (streamable HTTP): open the runtime, build the
//! MCP server, and serve until the client goes away or the process is interrupted.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use clap::Args;
use serde_json::{Map, Value};
use switchyard_files::{FileHost, HostConfig};
use switchyard_mcp::{CallToolResult, HttpOptions, ServerOptions, SwitchyardServer, Tool, ToolProvider};
use switchyard_runtime::{Config, Overrides, Runtime};
use tokio_util::sync::CancellationToken;

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
    /// The address to bind. Anything but loopback needs --token.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,
    /// The port (0 picks a free one; the address is printed on stderr).
    #[arg(long, default_value_t = 7878)]
    pub port: u16,
    /// Bearer token clients must send (`Authorization: Bearer <token>`); required off loopback.
    #[arg(long, env = "SWITCHYARD_SERVE_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Another `Host` header value to accept (name or name:port); repeatable.
    #[arg(long = "allowed-host", value_name = "HOST")]
    pub allowed_hosts: Vec<String>,
    /// Another browser origin to accept (scheme://host:port); repeatable.
    #[arg(long = "allowed-origin", value_name = "ORIGIN")]
    pub allowed_origins: Vec<String>,
    /// Also serve the file tools (read_file, list_files, save_output, write_file, apply_patch, update_frontmatter, preload_workflow).
    #[arg(long)]
    pub file_tools: bool,
    /// Expose the fixture tools the MCP conformance suite calls (for testing switchyard itself).
    #[arg(long, hide = true)]
    pub conformance_fixtures: bool,
}

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
        // `FileHost::call`'s future is not `Send` (it holds a `&dyn References`), so it runs on its
        // own current-thread runtime on a blocking thread.
        let (host, tool) = (Arc::clone(&self.host), name.to_owned());
        let answer = tokio::task::spawn_blocking(move || {
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
            Ok::<_, std::io::Error>(runtime.block_on(host.call(&tool, Value::Object(arguments), None)))
        })
        .await;
        let answer = match answer {
            Ok(Ok(answer)) => answer,
            Ok(Err(error)) => {
                return switchyard_mcp::text_result(
                    format!("{{\"code\":\"INTERNAL_ERROR\",\"message\":\"cannot run the file tool: {error}\"}}"),
                    true,
                );
            }
            Err(error) => {
                return switchyard_mcp::text_result(
                    format!("{{\"code\":\"INTERNAL_ERROR\",\"message\":\"the file tool failed: {error}\"}}"),
                    true,
                );
            }
        };
        match answer {
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

async fn server(
    overrides: Overrides,
    conformance_fixtures: bool,
    file_tools: bool,
) -> Result<SwitchyardServer, Failure> {
    let config = Config::resolve(overrides)?;
    let runtime = Arc::new(Runtime::open(&config).await?);
    let mut providers: Vec<Arc<dyn ToolProvider>> = Vec::new();
    if file_tools {
        let host = Arc::new(FileHost::new(Arc::clone(&runtime), HostConfig::from_config(&config)));
        providers.push(Arc::new(FileTools { host }));
    }
    Ok(SwitchyardServer::new(runtime, &ServerOptions { conformance_fixtures, providers }))
}

/// Serves MCP over stdio; returns when the client closes stdin.
pub async fn mcp(args: &McpArgs, overrides: Overrides) -> Result<Outcome, Failure> {
    let server = server(overrides, args.conformance_fixtures, args.file_tools).await?;
    switchyard_mcp::serve_stdio(server).await.map_err(|error| Failure::environment(error.to_string()))?;
    Ok(Outcome::Success)
}

/// Serves MCP over HTTP until interrupted (Ctrl-C).
pub async fn serve(args: &ServeArgs, overrides: Overrides) -> Result<Outcome, Failure> {
    let options = HttpOptions {
        bind: SocketAddr::new(args.host, args.port),
        token: args.token.clone().filter(|token| !token.is_empty()),
        allowed_hosts: args.allowed_hosts.clone(),
        allowed_origins: args.allowed_origins.clone(),
    };
    if !options.bind.ip().is_loopback() && options.token.is_none() {
        return Err(Failure::usage(switchyard_mcp::HttpError::TokenRequired(options.bind).to_string()));
    }
    let server = server(overrides, args.conformance_fixtures, args.file_tools).await?;
    let shutdown = CancellationToken::new();
    let stop = shutdown.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            stop.cancel();
        }
    });
    switchyard_mcp::http::serve(server, options, shutdown)
        .await
        .map_err(|error| Failure::environment(error.to_string()))?;
    Ok(Outcome::Success)
}
