//! Reading a streamed chat completion (server-sent events, `text/event-stream`) into the one
//! [`ChatResponse`] the non-streaming path would have returned, so a caller never knows which
//! way the answer came.
//!
//! A streamed answer is a series of `data:` events, each a JSON chunk whose choices carry a
//! `delta`, a piece of the message. How the pieces are put back together:
//! - `role` from the first delta naming one; `content` and the reasoning (`reasoning_content`, or
//!   `reasoning` in a delta without it) concatenated; text that assembles to nothing is `None`, as
//!   the content of a non-streamed message that only calls tools is;
//! - `tool_calls` deltas merged by their `index`: the first delta of a call names it (`id`,
//!   `type`, `function.name`), later ones append to `function.arguments`, and a server may send a
//!   whole call in one delta. A delta without an `index` starts a new call when it carries an id
//!   other than the last call's, and continues the last call otherwise;
//! - `finish_reason` from the chunk that has it; `usage` from the last chunk that has it (OpenAI
//!   sends it alone, with empty `choices`, when asked with `stream_options.include_usage`); `id`,
//!   `model` and any other top-level field from the first chunk that has it;
//! - `data: [DONE]` ends the stream. One that ends without it is complete when every choice has
//!   its `finish_reason`, and cut otherwise. Comments (`: keep-alive`) are not events;
//! - an `error` event, or a chunk with an `error` member, is the server failing after its 200 went
//!   out: it is sorted as the same body answered with an HTTP status would be.
//!
//! What is read is bounded by [`MAX_STREAM_BYTES`], so a server that streams without end is an
//! error rather than an exhausted memory.

use std::collections::BTreeMap;
use std::pin::pin;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::client::{ApiKey, excerpt};
use crate::wire::{
    ChatResponse, Choice, FunctionCall, Message, Role, ToolCall, Usage, arguments_text, null_as_default, text_content,
};

/// The most of a streamed answer read before giving up on it. Far beyond any completion (a long
/// answer streams a few hundred kilobytes of events), and small enough that a server that never
/// stops cannot exhaust the memory.
pub(crate) const MAX_STREAM_BYTES: usize = 64 << 20;

/// Why a stream could not be read, before the client words it with its URL and status.
#[derive(Debug)]
pub(crate) enum Fault<E> {
    /// Reading the body failed (a timeout, a broken connection).
    Transport(E),
    /// The server sent an error event: its data, to be read as an error answer's body, and the
    /// HTTP status it stands for (see [`error_status`]).
    ErrorEvent { data: String, status: u16 },
    /// Not a chat-completions stream: what is wrong, as the end of a sentence beginning "a
    /// stream that ...".
    Malformed(String),
}

/// Reads the events of `body` into one response, reading at most `limit` bytes. Every event's
/// data, and every text assembled from them, has `key` cut out before it is used, as the
/// non-streaming path does with its body. Returns the result and the bytes read.
/// The most bytes handed to the event parser at once.
const PARSED_PIECE_BYTES: usize = 8 * 1024;

pub(crate) async fn read<B, E>(
    body: impl Stream<Item = Result<B, E>>,
    limit: usize,
    key: Option<&ApiKey>,
) -> (Result<ChatResponse, Fault<E>>, usize)
where
    B: AsRef<[u8]>,
{
    let mut received = 0;
    let result = {
        let bounded = body.map(|chunk| {
            let chunk = chunk.map_err(Fault::Transport)?;
            received += chunk.as_ref().len();
            if received > limit {
                return Err(Fault::Malformed(format!(
                    "went past {} without finishing; the server may be stuck repeating itself: try again, or \
                     lower `max_tokens`",
                    size(limit)
                )));
            }
            Ok(chunk)
        });
        // The event parser's cost grows with the square of one read's size: a server (or a proxy
        // buffering one) handing over megabytes in one read is parsed a bounded piece at a time.
        let pieces = bounded.flat_map(|chunk| {
            let pieces: Vec<Result<Vec<u8>, Fault<E>>> = match chunk {
                Ok(chunk) => chunk.as_ref().chunks(PARSED_PIECE_BYTES).map(|piece| Ok(piece.to_vec())).collect(),
                Err(fault) => vec![Err(fault)],
            };
            futures::stream::iter(pieces)
        });
        assemble(pieces, key).await
    };
    (result, received)
}

async fn assemble<B, E>(
    body: impl Stream<Item = Result<B, Fault<E>>>,
    key: Option<&ApiKey>,
) -> Result<ChatResponse, Fault<E>>
where
    B: AsRef<[u8]>,
{
    let mut events = pin!(body.eventsource());
    let mut assembly = Assembly::default();
    let mut done = false;
    while let Some(event) = events.next().await {
        let event = event.map_err(|error| match error {
            EventStreamError::Transport(fault) => fault,
            EventStreamError::Utf8(error) => Fault::Malformed(format!("is not UTF-8 text ({error})")),
            EventStreamError::Parser(error) => Fault::Malformed(format!("is not in the event-stream format ({error})")),
        })?;
        let data = redact(key, &event.data);
        if data.trim() == "[DONE]" {
            done = true;
            break;
        }
        assembly.take(&event.event, &data)?;
    }
    assembly.finish(done, key)
}

/// A number of bytes in the unit a person reads best.
fn size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}

fn redact(key: Option<&ApiKey>, text: &str) -> String {
    key.map_or_else(|| text.to_owned(), |key| key.redact(text))
}

/// One event's data as servers send it; everything a server may leave out has a default.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    error: Option<Value>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default, deserialize_with = "null_as_default")]
    index: u32,
    #[serde(default, deserialize_with = "null_as_default")]
    delta: Delta,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Default, Deserialize)]
struct Delta {
    #[serde(default)]
    role: Option<Role>,
    #[serde(default, deserialize_with = "text_content")]
    content: Option<String>,
    #[serde(default, deserialize_with = "text_content")]
    reasoning_content: Option<String>,
    #[serde(default, deserialize_with = "text_content")]
    reasoning: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    tool_calls: Vec<CallDelta>,
}

#[derive(Deserialize)]
struct CallDelta {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    id: Option<String>,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    function: FunctionDelta,
}

#[derive(Default, Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default, deserialize_with = "arguments_text")]
    arguments: String,
}

/// The response so far.
#[derive(Default)]
struct Assembly {
    id: Option<String>,
    model: Option<String>,
    choices: BTreeMap<u32, PartialChoice>,
    usage: Option<Usage>,
    extra: Map<String, Value>,
    events: usize,
}

#[derive(Default)]
struct PartialChoice {
    role: Option<Role>,
    content: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
}

#[derive(Default)]
struct PartialCall {
    index: Option<u32>,
    id: String,
    kind: Option<String>,
    name: String,
    arguments: String,
}

impl Assembly {
    /// Adds one event (its name, `message` unless the server named it, and its data).
    fn take<E>(&mut self, name: &str, data: &str) -> Result<(), Fault<E>> {
        self.events += 1;
        let chunk: Chunk = match serde_json::from_str(data) {
            Ok(chunk) => chunk,
            Err(_) if name == "error" => return Err(error_event(data)),
            Err(error) => {
                let what = if serde_json::from_str::<Value>(data).is_ok() {
                    "is not a chat-completions chunk"
                } else {
                    "is not JSON"
                };
                return Err(Fault::Malformed(format!(
                    "has an event ({}) that {what} ({error}): {}; check that the base URL points at an \
                     OpenAI-compatible server (up to `/v1`)",
                    self.events,
                    excerpt(data)
                )));
            }
        };
        if name == "error" || chunk.error.is_some() {
            return Err(error_event(data));
        }
        if self.id.is_none() {
            self.id = chunk.id;
        }
        if self.model.is_none() {
            self.model = chunk.model;
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        for (field, value) in chunk.extra {
            self.extra.entry(field).or_insert(value);
        }
        for choice in chunk.choices {
            let partial = self.choices.entry(choice.index).or_default();
            partial.take(choice.delta);
            if choice.finish_reason.is_some() {
                partial.finish_reason = choice.finish_reason;
            }
        }
        Ok(())
    }

    /// The response, once the stream has ended (`done` when it ended with `[DONE]`).
    fn finish<E>(self, done: bool, key: Option<&ApiKey>) -> Result<ChatResponse, Fault<E>> {
        let finished = !self.choices.is_empty() && self.choices.values().all(|choice| choice.finish_reason.is_some());
        if !done && !finished {
            return Err(Fault::Malformed(format!(
                "was cut: it ended after {} events, without `data: [DONE]` and before the model finished (no \
                 `finish_reason`); a proxy between may have closed it, or the server stopped mid-answer: try again",
                self.events
            )));
        }
        if self.choices.is_empty() {
            return Err(Fault::Malformed(format!(
                "ended after {} events without any choice; check that the base URL points at an OpenAI-compatible \
                 server (up to `/v1`)",
                self.events
            )));
        }
        // A key split across two deltas escaped the redaction of each event's data.
        let text = |assembled: String| (!assembled.is_empty()).then(|| redact(key, &assembled));
        let choices = self
            .choices
            .into_iter()
            .map(|(index, partial)| Choice {
                index,
                message: Message {
                    role: partial.role.unwrap_or(Role::Assistant),
                    content: text(partial.content),
                    tool_calls: partial
                        .calls
                        .into_iter()
                        .map(|call| ToolCall {
                            id: call.id,
                            kind: call.kind.unwrap_or_else(|| "function".to_owned()),
                            function: FunctionCall {
                                name: redact(key, &call.name),
                                arguments: redact(key, &call.arguments),
                            },
                        })
                        .collect(),
                    tool_call_id: None,
                    reasoning_content: text(partial.reasoning),
                },
                finish_reason: partial.finish_reason,
            })
            .collect();
        Ok(ChatResponse { id: self.id, model: self.model, choices, usage: self.usage, extra: self.extra })
    }
}

impl PartialChoice {
    fn take(&mut self, delta: Delta) {
        if self.role.is_none() {
            self.role = delta.role;
        }
        if let Some(text) = delta.content {
            self.content.push_str(&text);
        }
        // Servers moving from one name to the other send the same text under both.
        if let Some(text) = delta.reasoning_content.or(delta.reasoning) {
            self.reasoning.push_str(&text);
        }
        for call in delta.tool_calls {
            self.take_call(call);
        }
    }

    fn take_call(&mut self, call: CallDelta) {
        let id = call.id.filter(|id| !id.is_empty());
        let known = match call.index {
            Some(index) => self.calls.iter().position(|known| known.index == Some(index)),
            None => match (&id, self.calls.last()) {
                (Some(id), Some(last)) if last.id != *id => None,
                (_, Some(_)) => Some(self.calls.len() - 1),
                (_, None) => None,
            },
        };
        let position = known.unwrap_or_else(|| {
            self.calls.push(PartialCall { index: call.index, ..PartialCall::default() });
            self.calls.len() - 1
        });
        let partial = &mut self.calls[position];
        if let Some(id) = id.filter(|_| partial.id.is_empty()) {
            partial.id = id;
        }
        if partial.kind.is_none() {
            partial.kind = call.kind;
        }
        // Some servers repeat the name in every delta of a call: it is named once.
        if let Some(name) = call.function.name.filter(|_| partial.name.is_empty()) {
            partial.name = name;
        }
        partial.arguments.push_str(&call.function.arguments);
    }
}

fn error_event<E>(data: &str) -> Fault<E> {
    Fault::ErrorEvent { data: data.to_owned(), status: error_status(data) }
}

/// The HTTP status an error event (or a 200's error body) stands for, so that it is sorted as the
/// same error answered with a status would be (a stream has already answered 200): the status it
/// gives
/// (`error.code` or `error.status` as a number, as OpenRouter sends), else one read from its type
/// or code (`server_error`, `overloaded_error`: the server failing; `rate_limit_exceeded`), else
/// 400, a request the server would not finish, which trying again does not mend.
pub(crate) fn error_status(data: &str) -> u16 {
    let value: Value = serde_json::from_str(data).unwrap_or(Value::Null);
    let error = if value["error"].is_object() { &value["error"] } else { &value };
    let given = [&error["code"], &error["status"]].into_iter().find_map(|field| match field {
        Value::Number(number) => number.as_u64(),
        Value::String(text) => text.trim().parse().ok(),
        _ => None,
    });
    if let Some(status) =
        given.and_then(|status| u16::try_from(status).ok()).filter(|status| (400..600).contains(status))
    {
        return status;
    }
    let words = [&error["type"], &error["code"]]
        .into_iter()
        .filter_map(Value::as_str)
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join(" ");
    if words.contains("rate_limit") {
        429
    } else if ["server", "overloaded", "internal", "unavailable", "timeout"].iter().any(|word| words.contains(word)) {
        500
    } else {
        400
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use super::*;

    /// The response `chunks` (byte pieces of a body) read into, or the fault's text.
    fn read_pieces(pieces: &[&str], limit: usize) -> Result<ChatResponse, String> {
        let body = futures::stream::iter(pieces.iter().map(|piece| Ok::<_, Infallible>(piece.as_bytes().to_vec())));
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        let (result, _) = runtime.block_on(read(body, limit, Some(&ApiKey::new("sk-KEY"))));
        result.map_err(|fault| match fault {
            Fault::Transport(never) => match never {},
            Fault::ErrorEvent { data, status } => format!("error event {status}: {data}"),
            Fault::Malformed(reason) => reason,
        })
    }

    #[test]
    fn events_split_anywhere_across_reads_assemble_the_same() {
        let body = "data: {\"id\":\"c\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hel\"}}]}\r\n\r\n\
                    : keep-alive\n\n\
                    data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo é\"},\"finish_reason\":\"stop\"}]}\n\n\
                    data: [DONE]\n\n";
        let whole = read_pieces(&[body], MAX_STREAM_BYTES).expect("a response");
        assert_eq!(whole.choices[0].message.content.as_deref(), Some("Hello é"));
        let bytes = body.as_bytes();
        for cut in 1..bytes.len() {
            // Cut between bytes, even inside `é`: the reader keeps what is not yet a whole character.
            let (first, second) = bytes.split_at(cut);
            let pieces = futures::stream::iter([Ok::<_, Infallible>(first.to_vec()), Ok(second.to_vec())]);
            let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
            let (result, read_bytes) = runtime.block_on(read(pieces, MAX_STREAM_BYTES, None));
            assert_eq!(read_bytes, bytes.len());
            assert_eq!(result.ok().as_ref(), Some(&whole), "cut at byte {cut}");
        }
    }

    #[test]
    fn a_stream_longer_than_the_bound_is_refused() {
        let event = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"more \"}}]}\n\n";
        let endless: Vec<&str> = std::iter::repeat_n(event, 100).collect();
        let error = read_pieces(&endless, event.len() * 10).map(|_| ()).expect_err("no end within the bound");
        assert_eq!(
            error,
            format!(
                "went past {} bytes without finishing; the server may be stuck repeating itself: try again, or \
                 lower `max_tokens`",
                event.len() * 10
            )
        );
        let within = read_pieces(&endless, event.len() * 100).map(|_| ()).expect_err("read whole, then cut");
        assert!(within.contains("was cut: it ended after 100 events"), "{within}");
        assert_eq!(size(MAX_STREAM_BYTES), "64 MiB");
    }

    #[test]
    fn the_key_is_cut_from_text_even_when_split_across_deltas() {
        let response = read_pieces(
            &[
                "data: {\"choices\":[{\"delta\":{\"content\":\"you sent sk-\"}}]}\n\n",
                "data: {\"choices\":[{\"delta\":{\"content\":\"KEY and sk-KEY\"},\"finish_reason\":\"stop\"}]}\n\n",
            ],
            MAX_STREAM_BYTES,
        )
        .expect("a response");
        assert_eq!(response.choices[0].message.content.as_deref(), Some("you sent <redacted> and <redacted>"));
        let error = read_pieces(&["data: {\"error\":{\"message\":\"bad key sk-KEY\"}}\n\n"], MAX_STREAM_BYTES)
            .expect_err("an error event");
        assert_eq!(error, "error event 400: {\"error\":{\"message\":\"bad key <redacted>\"}}");
    }

    #[test]
    fn an_error_event_stands_for_the_status_it_gives_or_its_type_says() {
        let check = |data: &str, expected: u16| assert_eq!(error_status(data), expected, "{data}");
        check(r#"{"error":{"code":502,"message":"Provider returned error"}}"#, 502);
        check(r#"{"error":{"status":"429","message":"slow down"}}"#, 429);
        check(r#"{"error":{"message":"The server had an error","type":"server_error","code":null}}"#, 500);
        check(r#"{"error":{"type":"overloaded_error","message":"Overloaded"}}"#, 500);
        check(r#"{"error":{"code":"rate_limit_exceeded","message":"Too many tokens"}}"#, 429);
        check(r#"{"error":{"code":"context_length_exceeded","message":"too long"}}"#, 400);
        check(r#"{"error":{"code":200,"message":"not a failure status"}}"#, 400);
        check(r#"{"message":"a bare body","type":"internal"}"#, 500);
        check("not json at all", 400);
    }

    #[test]
    fn calls_without_an_index_start_at_each_new_id() {
        let response = read_pieces(
            &[
                r#"data: {"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}"#,
                "\n\n",
                r#"data: {"choices":[{"delta":{"tool_calls":[{"function":{"arguments":":1}"}}]}}]}"#,
                "\n\n",
                r#"data: {"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":""}}]}}]}"#,
                "\n\n",
                r#"data: {"choices":[{"delta":{"tool_calls":[{"id":"b","type":"function","function":{"name":"g","arguments":{"y":2}}}]}}]}"#,
                "\n\n",
                r#"data: {"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
                "\n\n",
            ],
            MAX_STREAM_BYTES,
        )
        .expect("a response");
        let calls: Vec<(&str, &str, &str, &str)> = response.choices[0]
            .message
            .tool_calls
            .iter()
            .map(|call| {
                (call.id.as_str(), call.kind.as_str(), call.function.name.as_str(), call.function.arguments.as_str())
            })
            .collect();
        assert_eq!(calls, [("a", "function", "f", r#"{"x":1}"#), ("b", "function", "g", r#"{"y":2}"#)]);
    }

    #[test]
    fn a_stream_without_any_choice_or_event_is_malformed() {
        let error = read_pieces(&["data: {\"usage\":{\"prompt_tokens\":1}}\n\ndata: [DONE]\n\n"], MAX_STREAM_BYTES)
            .expect_err("no choice");
        assert!(error.contains("without any choice"), "{error}");
        let error = read_pieces(&[""], MAX_STREAM_BYTES).expect_err("nothing at all");
        assert!(error.contains("was cut: it ended after 0 events"), "{error}");
        let error = read_pieces(&["data: {\"choices\": 3}\n\n"], MAX_STREAM_BYTES).expect_err("not a chunk");
        assert!(error.contains("is not a chat-completions chunk"), "{error}");
        let error = read_pieces(&["event: error\ndata: upstream gone\n\n"], MAX_STREAM_BYTES).expect_err("an error");
        assert_eq!(error, "error event 400: upstream gone");
    }
}
