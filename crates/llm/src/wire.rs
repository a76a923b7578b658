//! The chat-completions request and response, as hand-written, tolerant serde types.
//!
//! What the servers that call themselves OpenAI-compatible send differently, and how it is read:
//! - `content` null, missing, or a list of parts (`[{"type": "text", "text": ...}]`): `None`, or
//!   the parts' text joined;
//! - `tool_calls[].function.arguments` as a JSON object (Ollama) instead of a JSON string: kept as
//!   its JSON text, so the caller always parses one form;
//! - `null` where a list, a string or a number is expected (`tool_calls: null`, `id: null`): the
//!   empty value; a tool call without an id gets one from the client (`call_<index>`);
//! - a message without a `role`: the assistant's;
//! - `finish_reason` values other than OpenAI's (`eos`, `tool_call`, ...): kept as sent, and
//!   sorted by [`Choice::finish`];
//! - no `usage`, or a `usage` with fields missing: `None`, or zeros;
//! - a model's reasoning as `reasoning_content` (DeepSeek, older vLLM) or `reasoning` (OpenRouter,
//!   newer vLLM), or both: [`Message::reasoning_content`], from `reasoning_content` when both come;
//! - the answer streamed as server-sent events, asked for or not: assembled into the same
//!   [`ChatResponse`] (the client's `stream` module);
//! - fields no type declares, at any level: ignored (kept in `ChatResponse::extra` at the top).

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of a conversation.
///
/// Read as a `ReceivedMessage`, which holds the tolerant reading of each field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "ReceivedMessage")]
pub struct Message {
    pub role: Role,
    /// Text; an assistant message that only calls tools may have none (servers send `null`).
    pub content: Option<String>,
    /// The tools an assistant message calls.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// On a tool message: the call it answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// What a reasoning model thought before it answered, when the server returns it apart from
    /// the answer. Kept so a conversation can hand it back: some models lose the thread of a
    /// chain of tool calls without their earlier reasoning.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
}

/// A message as a server may send it. Not a serde alias for the reasoning: servers moving from
/// `reasoning_content` to `reasoning` send both for a while, and an alias would refuse the
/// message as holding a duplicate field.
#[derive(Deserialize)]
struct ReceivedMessage {
    #[serde(default = "assistant_role", deserialize_with = "role_or_assistant")]
    role: Role,
    #[serde(default, deserialize_with = "text_content")]
    content: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    tool_calls: Vec<ToolCall>,
    #[serde(default)]
    tool_call_id: Option<String>,
    #[serde(default, deserialize_with = "text_content")]
    reasoning_content: Option<String>,
    #[serde(default, deserialize_with = "text_content")]
    reasoning: Option<String>,
}

impl From<ReceivedMessage> for Message {
    fn from(received: ReceivedMessage) -> Self {
        Self {
            role: received.role,
            content: received.content,
            tool_calls: received.tool_calls,
            tool_call_id: received.tool_call_id,
            reasoning_content: received.reasoning_content.or(received.reasoning).filter(|text| !text.is_empty()),
        }
    }
}

fn assistant_role() -> Role {
    Role::Assistant
}

fn role_or_assistant<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Role, D::Error> {
    Ok(Option::<Role>::deserialize(deserializer)?.unwrap_or(Role::Assistant))
}

/// A `null` read as the type's empty value, as if the field were missing.
pub(crate) fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// A message's text: a string, `null`, or a list of parts whose text is joined.
pub(crate) fn text_content<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Null => None,
        Value::String(text) => Some(text),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|part| part.as_str().or_else(|| part.get("text").and_then(Value::as_str)))
                .collect();
            if texts.is_empty() { None } else { Some(texts.concat()) }
        }
        other => Some(other.to_string()),
    })
}

/// A tool call's arguments as JSON text: a string as sent, anything else (an object, as Ollama
/// sends) as its JSON text, `null` as nothing.
pub(crate) fn arguments_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(match Value::deserialize(deserializer)? {
        Value::Null => String::new(),
        Value::String(text) => text,
        other => other.to_string(),
    })
}

impl Message {
    pub fn system(text: impl Into<String>) -> Self {
        Self::plain(Role::System, text.into())
    }

    pub fn user(text: impl Into<String>) -> Self {
        Self::plain(Role::User, text.into())
    }

    /// The answer to the tool call `call_id`.
    pub fn tool(call_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self { tool_call_id: Some(call_id.into()), ..Self::plain(Role::Tool, text.into()) }
    }

    /// An assistant message calling `calls`, without text.
    pub fn calling(calls: Vec<ToolCall>) -> Self {
        Self { content: None, tool_calls: calls, ..Self::plain(Role::Assistant, String::new()) }
    }

    fn plain(role: Role, text: String) -> Self {
        Self { role, content: Some(text), tool_calls: Vec::new(), tool_call_id: None, reasoning_content: None }
    }
}

/// A tool call an assistant message makes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Empty when the server sent none; [`crate::Client`] fills it in.
    #[serde(default, deserialize_with = "null_as_default")]
    pub id: String,
    /// Always `function` today; kept as sent.
    #[serde(rename = "type", default = "function_kind", deserialize_with = "function_kind_or_null")]
    pub kind: String,
    pub function: FunctionCall,
}

fn function_kind() -> String {
    "function".to_owned()
}

fn function_kind_or_null<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    Ok(Option::<String>::deserialize(deserializer)?.unwrap_or_else(function_kind))
}

/// The function a tool call names and its arguments, as the JSON text the model wrote (which may
/// not parse: the runner tells the model so). Arguments the server sent as a JSON object are kept
/// as that object's JSON text (same content, keys possibly reordered); none at all is the empty
/// string.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    #[serde(default, deserialize_with = "arguments_text")]
    pub arguments: String,
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    #[serde(rename = "type")]
    pub kind: String,
    pub function: FunctionSpec,
}

impl ToolSpec {
    pub fn function(name: impl Into<String>, description: impl Into<String>, parameters: Value) -> Self {
        Self {
            kind: function_kind(),
            function: FunctionSpec { name: name.into(), description: description.into(), parameters },
        }
    }
}

/// A function's name, what it is for, and its parameters' JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// A chat-completions request. The messages and tools may be lent (a runner's conversation
/// grows each turn: copying it into every request is the largest cost of a turn), or owned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatRequest<'a> {
    pub model: String,
    pub messages: Cow<'a, [Message]>,
    #[serde(skip_serializing_if = "<[ToolSpec]>::is_empty")]
    pub tools: Cow<'a, [ToolSpec]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    /// Asks the server to stream its answer as server-sent events, for servers and gateways that
    /// only stream; [`crate::Client::complete`] returns the same [`ChatResponse`] either way.
    /// Sent only when true, with `stream_options.include_usage` so the last event carries the
    /// token counts (without it OpenAI's streams count none).
    #[serde(flatten, serialize_with = "streaming_fields")]
    pub stream: bool,
}

/// `"stream": true, "stream_options": {"include_usage": true}` when streaming, nothing otherwise.
fn streaming_fields<S: serde::Serializer>(stream: &bool, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut fields = serializer.serialize_map(None)?;
    if *stream {
        fields.serialize_entry("stream", &true)?;
        fields.serialize_entry("stream_options", &serde_json::json!({"include_usage": true}))?;
    }
    fields.end()
}

/// A chat-completions response.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ChatResponse {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    pub choices: Vec<Choice>,
    #[serde(default)]
    pub usage: Option<Usage>,
    /// What the server added beyond the protocol.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// One choice of a response; the runner asks for one.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Choice {
    #[serde(default, deserialize_with = "null_as_default")]
    pub index: u32,
    pub message: Message,
    #[serde(default)]
    pub finish_reason: Option<String>,
}

impl Choice {
    /// Why the model stopped, sorted across the servers' spellings.
    pub fn finish(&self) -> Finish {
        match self.finish_reason.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("stop" | "eos" | "eos_token" | "end_turn" | "stop_sequence") => Finish::Stop,
            Some("tool_calls" | "tool_call" | "function_call" | "tool_use") => Finish::ToolCalls,
            Some("length" | "max_tokens" | "model_length") => Finish::Length,
            Some("content_filter" | "safety") => Finish::ContentFilter,
            _ => Finish::Other,
        }
    }
}

/// Why the model stopped writing, whatever the server called it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// It finished its answer.
    Stop,
    /// It called tools.
    ToolCalls,
    /// It ran out of tokens (`max_tokens` or the context window): the answer is cut.
    Length,
    /// The server's filter stopped it.
    ContentFilter,
    /// No reason given, or one not known here (see `Choice::finish_reason` for the text).
    Other,
}

/// The tokens a request used, as the server counted them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    #[serde(default, deserialize_with = "null_as_default")]
    pub prompt_tokens: u64,
    #[serde(default, deserialize_with = "null_as_default")]
    pub completion_tokens: u64,
    #[serde(default, deserialize_with = "null_as_default")]
    pub total_tokens: u64,
}

impl Usage {
    /// The total, or the sum of the parts when the server left the total out.
    pub fn total(&self) -> u64 {
        if self.total_tokens == 0 { self.prompt_tokens + self.completion_tokens } else { self.total_tokens }
    }

    /// Adds `other`'s counts, for the tokens of a run or a step.
    pub fn add(&mut self, other: &Usage) {
        self.total_tokens = self.total() + other.total();
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
    }

    /// What these tokens cost at `price`, in US dollars.
    pub fn cost(&self, price: &Price) -> f64 {
        // Token counts stay far below 2^53, where u64 to f64 would round.
        (self.prompt_tokens as f64 * price.input_per_mtok + self.completion_tokens as f64 * price.output_per_mtok)
            / 1_000_000.0
    }
}

/// A model's price in US dollars per million tokens, for cost estimates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}
