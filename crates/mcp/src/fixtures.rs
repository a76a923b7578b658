//! The fixture tools the official MCP conformance suite calls by fixed names. Served only with
//! `--conformance-fixtures` (off by default): they exist to prove the protocol plumbing, not for
//! agents.

// The conformance suite still checks logging notifications, which rmcp marks deprecated (SEP-2577).
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, JsonObject, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ResourceContents, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value, json};

/// A 1×1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A 44-byte WAV header with no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

const NAMES: [(&str, &str); 8] = [
    ("test_simple_text", "Returns a text item."),
    ("test_image_content", "Returns an image item."),
    ("test_audio_content", "Returns an audio item."),
    ("test_embedded_resource", "Returns an embedded resource."),
    ("test_multiple_content_types", "Returns text, an image and a resource."),
    ("test_tool_with_logging", "Sends three log notifications."),
    ("test_error_handling", "Always fails with a tool error."),
    ("test_tool_with_progress", "Sends three progress notifications."),
];

pub fn tools() -> Vec<Tool> {
    NAMES
        .iter()
        .map(|(name, description)| {
            let schema: JsonObject =
                serde_json::from_value(json!({ "type": "object", "properties": {} })).unwrap_or_default();
            Tool::new(*name, *description, Arc::new(schema))
        })
        .collect()
}

pub fn server_config() -> ServerConfig {
    ServerConfig::new(ServerCapabilities::builder().enable_logging().enable_completions().enable_tools().build())
        .with_server_info(Implementation::new("switchyard-conformance-fixtures", env!("CARGO_PKG_VERSION")))
}

fn resource() -> ResourceContents {
    ResourceContents::text("This is an embedded resource content.", "test://embedded-resource")
        .with_mime_type("text/plain")
}

pub async fn call(
    name: &str,
    _arguments: Map<String, Value>,
    context: Option<&RequestContext<RoleServer>>,
) -> Result<CallToolResult, ErrorData> {
    let content = match name {
        "test_simple_text" => vec![ContentBlock::text("This is a simple text response for testing.")],
        "test_image_content" => vec![ContentBlock::image(PNG, "image/png")],
        "test_audio_content" => vec![ContentBlock::audio(WAV, "audio/wav")],
        "test_embedded_resource" => vec![ContentBlock::resource(resource())],
        "test_multiple_content_types" => vec![
            ContentBlock::text("Multiple content types test:"),
            ContentBlock::image(PNG, "image/png"),
            ContentBlock::resource(resource()),
        ],
        "test_error_handling" => {
            return Ok(CallToolResult::error(vec![ContentBlock::text(
                "This tool intentionally returns an error for testing",
            )]));
        }
        "test_tool_with_logging" => {
            if let Some(context) = context {
                for message in ["Tool execution started", "Tool processing data", "Tool execution completed"] {
                    let param = LoggingMessageNotificationParam::new(LoggingLevel::Info, json!(message));
                    let _ = context.peer.notify_logging_message(param).await;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
            }
            vec![ContentBlock::text("Tool with logging executed successfully")]
        }
        "test_tool_with_progress" => {
            if let Some(context) = context
                && let Some(token) = context.meta.get_progress_token()
            {
                for progress in [0.0, 50.0, 100.0] {
                    let mut param = ProgressNotificationParam::new(token.clone(), progress);
                    param.total = Some(100.0);
                    let _ = context.peer.notify_progress(param).await;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
            }
            vec![ContentBlock::text("Tool with progress executed successfully")]
        }
        other => return Err(ErrorData::invalid_params(format!("Unknown tool: {other}"), None)),
    };
    Ok(CallToolResult::success(content))
}
