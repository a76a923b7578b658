//! The MCP door of switchyard: seven WorkRail-compatible tools (`list_workflows`,
//! `inspect_workflow`, `start_workflow`, `continue_workflow`, `checkpoint_workflow`,
//! `resume_session`, `manage_workflow_source`) over stdio and streamable HTTP.
//!
//! The door decides no engine rule: every tool checks its arguments against its JSON Schema,
//! calls [`switchyard_runtime::Runtime`], and converts the answer into its own wire types
//! ([`wire`]), rendered as text for the agent and sent again as `structuredContent`.

mod admission;
pub mod arguments;
pub mod errors;
pub mod fixtures;
mod front_page;
pub mod http;
mod metrics;
mod registry;
pub mod render;
pub mod resources;
pub mod schemas;
pub mod server;
pub mod stdio;
pub mod tools;
pub mod wire;

pub use errors::{ErrorCode, Retry, ToolError};
pub use http::{Console, HttpError, HttpLimits, HttpOptions, LoginCheck};
pub use rmcp::model::{CallToolResult, Tool};
pub use server::{ServerOptions, SwitchyardServer, ToolProvider};

/// A tool definition from a name, a description and a JSON Schema object (for [`ToolProvider`]s).
pub fn tool_definition(name: &'static str, description: &'static str, input_schema: serde_json::Value) -> Tool {
    let schema = match input_schema {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    Tool::new(name, description, std::sync::Arc::new(schema))
}

/// A tool answer of one text item (`is_error`: the model reads it as a failure).
pub fn text_result(text: String, is_error: bool) -> CallToolResult {
    let content = vec![rmcp::model::ContentBlock::text(text)];
    if is_error { CallToolResult::error(content) } else { CallToolResult::success(content) }
}

/// Serves MCP over stdin/stdout until the client closes stdin. Only protocol frames go to
/// stdout; logs go wherever tracing writes (stderr in the CLI).
///
/// When stdin and stdout are pipes, as MCP clients start servers, they are read and written on
/// the runtime's event loop in non-blocking mode. Tokio's `stdin()`/`stdout()` hand every read and
/// write to a blocking thread instead: two thread hand-offs per call, kept only for a terminal or
/// a file.
pub async fn serve_stdio(server: SwitchyardServer) -> Result<(), std::io::Error> {
    use std::os::fd::AsFd;
    use tokio::io::{AsyncRead, AsyncWrite};
    use tokio::net::unix::pipe;

    // Put back what the pipes below change in the open files, which a parent may share.
    let _restore = StatusFlags::save([std::io::stdin().as_fd(), std::io::stdout().as_fd()]);
    let stdin = std::io::stdin().as_fd().try_clone_to_owned()?;
    let input: Box<dyn AsyncRead + Unpin + Send> = match pipe::Receiver::from_owned_fd(stdin) {
        Ok(pipe) => Box::new(pipe),
        Err(_) => Box::new(tokio::io::stdin()),
    };
    let stdout = std::io::stdout().as_fd().try_clone_to_owned()?;
    // Non-blocking mode belongs to the open pipe, not to one descriptor: with stderr on the same
    // pipe (`2>&1`), a log line written while the client is slow to read would be dropped instead
    // of waiting. Such a stdout goes through tokio's blocking writer.
    let shares_stderr = same_file(stdout.as_fd(), std::io::stderr().as_fd());
    let output: Box<dyn AsyncWrite + Unpin + Send> =
        match (!shares_stderr).then(|| pipe::Sender::from_owned_fd(stdout).ok()).flatten() {
            Some(pipe) => Box::new(pipe),
            None => Box::new(tokio::io::stdout()),
        };
    stdio::serve_io(server, input, output).await
}

/// The status flags of open files, put back when dropped.
///
/// tokio's pipes set `O_NONBLOCK`, and that flag belongs to the open pipe, not to this process's
/// descriptor: a parent that shares the pipe (a shell running `switchyard mcp` in a pipeline, then
/// another command on the same stdin or stdout) would otherwise find it non-blocking after
/// switchyard exits, and fail with `EAGAIN` where it expected to wait. A process killed outright
/// cannot put anything back.
struct StatusFlags(Vec<(std::os::fd::OwnedFd, rustix::fs::OFlags)>);

impl StatusFlags {
    fn save<'a>(fds: impl IntoIterator<Item = std::os::fd::BorrowedFd<'a>>) -> Self {
        let saved = fds.into_iter().filter_map(|fd| {
            let flags = rustix::fs::fcntl_getfl(fd).ok()?;
            Some((fd.try_clone_to_owned().ok()?, flags))
        });
        Self(saved.collect())
    }
}

impl Drop for StatusFlags {
    fn drop(&mut self) {
        for (fd, flags) in &self.0 {
            if let Err(error) = rustix::fs::fcntl_setfl(fd, *flags) {
                tracing::debug!(%error, "the status flags of stdin or stdout were not put back");
            }
        }
    }
}

/// Whether two descriptors are the same file (device and inode); `false` when either cannot say.
fn same_file(a: std::os::fd::BorrowedFd<'_>, b: std::os::fd::BorrowedFd<'_>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let identity = |fd: std::os::fd::BorrowedFd<'_>| {
        let file = std::fs::File::from(fd.try_clone_to_owned().ok()?);
        file.metadata().ok().map(|metadata| (metadata.dev(), metadata.ino()))
    };
    matches!((identity(a), identity(b)), (Some(a), Some(b)) if a == b)
}

/// The heading from which `docs/mcp-tools.md` is written by hand: what [`tools_reference`]
/// generates comes before it.
pub const HAND_WRITTEN_HEADING: &str = "## Differences from WorkRail";

/// The reference documentation of the tools, generated from the live definitions: the part of
/// `docs/mcp-tools.md` before [`HAND_WRITTEN_HEADING`] (a test fails when it differs).
pub fn tools_reference(server: &SwitchyardServer) -> String {
    let mut text = String::from(
        "# MCP tool reference\n\nGenerated from the live `tools/list` by `cargo test -p switchyard-mcp` (`tools_reference_is_current`) up to \"Differences from WorkRail\", which is written by hand.\n",
    );
    for tool in server.tool_list() {
        text.push_str(&format!("\n## `{}`\n\n{}\n", tool.name, tool.description.as_deref().unwrap_or("")));
        if let Some(annotations) = &tool.annotations {
            text.push_str(&format!(
                "\nRead-only: {}. Idempotent: {}.\n",
                annotations.read_only_hint.unwrap_or(false),
                annotations.idempotent_hint.unwrap_or(false)
            ));
        }
        let schema = serde_json::Value::Object((*tool.input_schema).clone());
        let required: Vec<&str> =
            schema["required"].as_array().into_iter().flatten().filter_map(|v| v.as_str()).collect();
        text.push_str("\n| argument | type | required | description |\n|---|---|---|---|\n");
        if let Some(properties) = schema["properties"].as_object() {
            for (name, property) in properties {
                let kind = match &property["type"] {
                    serde_json::Value::Null => "any".to_owned(),
                    serde_json::Value::String(kind) => kind.clone(),
                    other => other.to_string(),
                };
                let mut description = property["description"].as_str().unwrap_or("").to_owned();
                if let Some(values) = property["enum"].as_array() {
                    let values: Vec<String> =
                        values.iter().map(|value| format!("`{}`", value.as_str().unwrap_or(""))).collect();
                    description = format!("{description} One of {}.", values.join(", ")).trim().to_owned();
                }
                text.push_str(&format!(
                    "| `{name}` | {kind} | {} | {} |\n",
                    if required.contains(&name.as_str()) { "yes" } else { "no" },
                    description.replace('|', "\\|")
                ));
            }
        }
        if let Some(output) = &tool.output_schema {
            let output = serde_json::Value::Object((**output).clone());
            let fields: Vec<String> =
                output["properties"].as_object().into_iter().flatten().map(|(name, _)| format!("`{name}`")).collect();
            text.push_str(&format!("\nStructured output fields: {}.\n", fields.join(", ")));
        }
    }
    text.push_str("\n## Errors\n\nA failed call returns `isError: true` and one text item holding `{code, message, retry, details}`.\n`retry` is `{\"kind\":\"not_retryable\"}`, `{\"kind\":\"retryable_immediate\"}` or `{\"kind\":\"retryable_after_ms\",\"afterMs\":N}`; `details.cause` is switchyard's finer code.\nAn unknown tool is a JSON-RPC error (`-32602`).\n\n| code | meaning |\n|---|---|\n");
    for code in ErrorCode::ALL {
        text.push_str(&format!("| `{}` | {} |\n", code.as_str(), code.meaning()));
    }
    text
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsFd;

    use super::same_file;

    #[test]
    fn a_pipe_is_the_same_file_as_its_duplicate_and_not_as_another_pipe() {
        let (_reader, writer) = std::io::pipe().unwrap();
        let duplicate = writer.try_clone().unwrap();
        let (_other_reader, other) = std::io::pipe().unwrap();
        assert!(same_file(writer.as_fd(), duplicate.as_fd()), "2>&1: one pipe");
        assert!(!same_file(writer.as_fd(), other.as_fd()), "two pipes");
    }
}
