//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, with a framing guard in
//! front of rmcp. rmcp drops lines it cannot decode without a word; this guard answers them with
//! a JSON-RPC error instead (`-32700` for bytes that are not JSON, `-32600` for JSON that is not
//! a JSON-RPC message or a frame over the size limit), and keeps serving. Only frames reach
//! stdout: every write goes through one writer task, so answers never interleave.

use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::SwitchyardServer;

/// The largest frame read from stdin (16 MiB); larger frames are refused with `-32600`.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// Why a line is not a frame rmcp should see, as a JSON-RPC error response.
pub fn frame_error(line: &[u8]) -> Option<Value> {
    let error = |id: Value, code: i64, message: String| {
        Some(json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }))
    };
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(problem) => return error(Value::Null, -32700, format!("Parse error: the frame is not JSON ({problem})")),
    };
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let Some(object) = value.as_object() else {
        return error(
            Value::Null,
            -32600,
            "Invalid Request: a frame must be one JSON-RPC object (batches are not supported)".to_owned(),
        );
    };
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return error(id, -32600, "Invalid Request: `jsonrpc` must be \"2.0\"".to_owned());
    }
    let is_request = object.get("method").is_some_and(Value::is_string);
    let is_response = object.contains_key("id") && (object.contains_key("result") || object.contains_key("error"));
    if !is_request && !is_response {
        return error(
            id,
            -32600,
            "Invalid Request: a frame needs a string `method` (or is a response with `id` and `result` or `error`)"
                .to_owned(),
        );
    }
    None
}

/// Serves `server` over `input`/`output` until `input` ends.
pub async fn serve_io<R, W>(server: SwitchyardServer, input: R, mut output: W) -> Result<(), std::io::Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (outgoing, mut frames) = mpsc::unbounded_channel::<Vec<u8>>();
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (from_server, mut to_server) = tokio::io::split(client_side);
    let writer = tokio::spawn(async move {
        while let Some(mut frame) = frames.recv().await {
            frame.push(b'\n');
            if output.write_all(&frame).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    let answers = outgoing.clone();
    let pump_out = tokio::spawn(async move {
        let mut lines = BufReader::new(from_server).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if answers.send(line.into_bytes()).is_err() {
                break;
            }
        }
    });
    let errors = outgoing.clone();
    let pump_in = tokio::spawn(async move {
        let mut reader = BufReader::new(input);
        loop {
            let mut line = Vec::new();
            let read = (&mut reader).take(MAX_FRAME_BYTES as u64 + 1).read_until(b'\n', &mut line).await;
            match read {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if line.len() > MAX_FRAME_BYTES && !line.ends_with(b"\n") {
                // Skip the rest of the oversized frame.
                let mut rest = Vec::new();
                let _ = reader.read_until(b'\n', &mut rest).await;
                let refusal = json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32600, "message": format!("Invalid Request: the frame is larger than {MAX_FRAME_BYTES} bytes") } });
                let _ = errors.send(refusal.to_string().into_bytes());
                continue;
            }
            let trimmed = line.trim_ascii();
            if trimmed.is_empty() {
                continue;
            }
            match frame_error(trimmed) {
                Some(refusal) => {
                    let _ = errors.send(refusal.to_string().into_bytes());
                }
                None => {
                    if to_server.write_all(trimmed).await.is_err() || to_server.write_all(b"\n").await.is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to_server.shutdown().await;
    });
    drop(outgoing);
    let (server_read, server_write) = tokio::io::split(server_side);
    let served = async {
        let running = server
            .serve((server_read, server_write))
            .await
            .map_err(|error| std::io::Error::other(format!("MCP initialization over stdio failed: {error}")))?;
        running
            .waiting()
            .await
            .map_err(|error| std::io::Error::other(format!("the stdio MCP session failed: {error}")))?;
        Ok::<(), std::io::Error>(())
    }
    .await;
    pump_in.abort();
    let _ = pump_out.await;
    let _ = writer.await;
    served
}
