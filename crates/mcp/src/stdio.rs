//! The stdio transport: newline-delimited JSON-RPC on stdin/stdout, decoded here and handed to
//! rmcp as messages. A line that is not a message rmcp can take is answered with a JSON-RPC error
//! instead of being dropped (`-32700` for bytes that are not JSON; `-32600` for JSON that is not a
//! JSON-RPC message, a request rmcp cannot decode, or a frame over the size limit), and the server
//! keeps serving. Only frames reach stdout: every write goes through one writer task, so answers
//! never interleave.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Sink;
use rmcp::ServiceExt;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::SwitchyardServer;

/// The largest frame read from stdin (16 MiB); larger frames are refused with `-32600`.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// A byte-order mark some clients put before a frame; rmcp skips it too.
pub(crate) const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// A frame (a stdio line or an HTTP body, without surrounding whitespace) decoded into rmcp's
/// message type, or else the JSON-RPC error answering it (`None` for a notification, which
/// JSON-RPC never answers). Both doors decode through here, so a frame gets the same answer
/// whichever door it came through.
pub(crate) fn decode_frame(frame: &[u8]) -> Result<ClientJsonRpcMessage, Option<Value>> {
    serde_json::from_slice::<ClientJsonRpcMessage>(frame).map_err(|problem| refusal(frame, &problem))
}

/// The JSON-RPC error refusing a frame over `limit` bytes; its id is unknown, since the frame was
/// not read.
pub(crate) fn oversized_refusal(limit: usize) -> Value {
    json!({ "jsonrpc": "2.0", "id": null, "error": { "code": -32600, "message": format!("Invalid Request: the frame is larger than {limit} bytes") } })
}

/// The JSON-RPC error answering a line rmcp could not decode (`problem` is why), or `None` for a
/// notification, which JSON-RPC never answers. Only lines that failed come here.
fn refusal(line: &[u8], problem: &serde_json::Error) -> Option<Value> {
    let error = |id: Value, code: i64, message: String| {
        Some(json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }))
    };
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(problem) => return error(Value::Null, -32700, format!("Parse error: the frame is not JSON ({problem})")),
    };
    // Answered under its id when that is a valid one (a string or a number).
    let id = value.get("id").filter(|id| id.is_string() || id.is_number()).cloned().unwrap_or(Value::Null);
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
    if !object.contains_key("id") {
        return None;
    }
    // A JSON-RPC request in shape that rmcp still cannot decode.
    error(id, -32600, format!("Invalid Request: {problem}"))
}

/// Serves `server` over `input`/`output` until `input` ends.
///
/// Each line is decoded once, straight into rmcp's message type; only a line that fails is looked
/// at again, to say why (`refusal`). Answers and refusals go through one channel to one
/// writer task, which writes whole lines and exits once every sender is gone and the channel is
/// drained, so no answer is lost when the client closes stdin first.
pub async fn serve_io<R, W>(server: SwitchyardServer, input: R, output: W) -> Result<(), std::io::Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (outgoing, frames) = mpsc::unbounded_channel::<Vec<u8>>();
    let writer = tokio::spawn(write_frames(frames, output));
    let incoming = Box::pin(futures::stream::unfold(
        (BufReader::new(input), outgoing.clone()),
        |(mut reader, refusals)| async move {
            let message = next_message(&mut reader, &refusals).await?;
            Some((message, (reader, refusals)))
        },
    ));
    let served = async {
        let running = server
            .serve((FrameSink(outgoing), incoming))
            .await
            .map_err(|error| std::io::Error::other(format!("MCP initialization over stdio failed: {error}")))?;
        running
            .waiting()
            .await
            .map_err(|error| std::io::Error::other(format!("the stdio MCP session failed: {error}")))?;
        Ok::<(), std::io::Error>(())
    }
    .await;
    let _ = writer.await;
    served
}

/// The next message rmcp should see; lines that are not one are answered through `refusals`.
/// `None` at the end of the input or on a read error.
async fn next_message<R: AsyncRead + Unpin>(
    reader: &mut BufReader<R>,
    refusals: &mpsc::UnboundedSender<Vec<u8>>,
) -> Option<ClientJsonRpcMessage> {
    let refuse = |answer: Value| {
        let _ = refusals.send(answer.to_string().into_bytes());
    };
    loop {
        let mut line = Vec::new();
        match (&mut *reader).take(MAX_FRAME_BYTES as u64 + 1).read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        if line.len() > MAX_FRAME_BYTES && !line.ends_with(b"\n") {
            drop(line);
            if discard_through_newline(reader).await.is_err() {
                return None;
            }
            refuse(oversized_refusal(MAX_FRAME_BYTES));
            continue;
        }
        let trimmed = line.trim_ascii();
        let trimmed = trimmed.strip_prefix(UTF8_BOM).unwrap_or(trimmed);
        if trimmed.is_empty() {
            continue;
        }
        match decode_frame(trimmed) {
            Ok(message) => return Some(message),
            Err(Some(answer)) => refuse(answer),
            Err(None) => {}
        }
    }
}

/// Skips the rest of an oversized frame, up to and including its newline, one buffer at a time:
/// however long the line, it is never held in memory (a client could send gigabytes of it).
async fn discard_through_newline<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<()> {
    loop {
        let buffer = reader.fill_buf().await?;
        if buffer.is_empty() {
            return Ok(());
        }
        match buffer.iter().position(|byte| *byte == b'\n') {
            Some(end) => {
                reader.consume(end + 1);
                return Ok(());
            }
            None => {
                let skipped = buffer.len();
                reader.consume(skipped);
            }
        }
    }
}

/// Writes each frame as one line, flushed, until every sender is gone or the output fails.
async fn write_frames<W: AsyncWrite + Unpin>(mut frames: mpsc::UnboundedReceiver<Vec<u8>>, mut output: W) {
    while let Some(mut frame) = frames.recv().await {
        frame.push(b'\n');
        if output.write_all(&frame).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

/// rmcp's outgoing side: encodes each message and hands it to the writer task.
struct FrameSink(mpsc::UnboundedSender<Vec<u8>>);

impl Sink<ServerJsonRpcMessage> for FrameSink {
    type Error = std::io::Error;

    fn poll_ready(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn start_send(self: Pin<&mut Self>, message: ServerJsonRpcMessage) -> Result<(), Self::Error> {
        let frame = serde_json::to_vec(&message)?;
        self.0.send(frame).map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed"))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }
}
