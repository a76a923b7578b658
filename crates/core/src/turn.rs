//! One turn of a model driving a run (the agent runner): what was sent, what came back, what the
//! tools answered, and what it cost. Recorded as a `model_turn` event in the run's log, so a
//! transcript shows exactly what the model saw and did.
//!
//! Bodies are bounded by whoever records a turn (see [`MAX_TURN_TEXT_BYTES`]): a turn's event
//! stays small, so appending it costs what any other event costs.

use serde::{Deserialize, Serialize};

use crate::id::NodeId;
use crate::workflow::StepId;

/// The most bytes of one text a recorded turn keeps (a message, a tool's arguments or answer);
/// the rest is cut at a character boundary and replaced by [`TRUNCATED_MARKER`].
pub const MAX_TURN_TEXT_BYTES: usize = 16 * 1024;

/// What replaces the end of a text cut to [`MAX_TURN_TEXT_BYTES`], followed by how many bytes
/// were left out.
pub const TRUNCATED_MARKER: &str = "…[truncated: ";

/// One request to the model and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelTurn {
    /// The node the run was at when the request was sent.
    pub node: NodeId,
    pub step: StepId,
    /// The turn's number in the run, from 1, across every time the run was driven.
    pub turn: u32,
    /// The model's name in the configuration (`[models.<name>]`), or its id when none was named.
    pub model: String,
    /// What was sent.
    pub request: TurnRequest,
    /// What the model answered.
    pub response: TurnResponse,
    /// What each tool call of the answer returned, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_results: Vec<TurnToolResult>,
    pub usage: TurnUsage,
    /// From sending the request to the whole answer, retries included.
    pub latency_ms: u64,
    /// What the turn cost in US dollars, when the model has prices.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

/// A summary of a request: how long the conversation was, and the messages that were new in it
/// (the system prompt of a fresh conversation, a recap, a human's reason, a reminder), each
/// bounded. Tool answers are in the previous turn's `tool_results`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnRequest {
    /// Messages in the request, the system prompt included.
    pub messages: u32,
    /// Tools the model was offered.
    pub tools: u32,
    /// The conversation started afresh with this request (a new step with `context_reset`, or a
    /// run picked up again).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh: bool,
    /// Older tool answers replaced by a marker, plus older exchanges dropped, to fit the model's
    /// context window.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub trimmed: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_messages: Vec<TurnMessage>,
}

fn is_zero(count: &u32) -> bool {
    *count == 0
}

/// A message of the conversation, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnMessage {
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    pub content: String,
}

/// What the model answered: its text and its tool calls.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnResponse {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<TurnToolCall>,
    /// Why the model stopped (`stop`, `tool_calls`, `length`), as the server said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
}

/// One tool call of an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnToolCall {
    /// The id the model gave the call.
    pub id: String,
    pub name: String,
    /// The arguments as the model wrote them (which may not be JSON).
    pub arguments: String,
}

/// What a tool call returned to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnToolResult {
    pub call_id: String,
    pub name: String,
    /// False when the call was refused, failed, or was blocked.
    pub ok: bool,
    pub content: String,
    /// How long the call took, in microseconds.
    #[serde(default)]
    pub micros: u64,
    /// Why a call that was not ok was refused, when an operator counts it apart from other
    /// errors; absent for a call that succeeded or failed for any other reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<Refusal>,
}

/// A refusal an operator counts apart from other tool errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// A `complete_step` whose report the step's checks blocked (an attempt used).
    Blocked,
    /// A file tool call the file door refused as a security violation (its security log has
    /// the call too).
    Violation,
}

/// Tokens as the server counted them, or as the runner estimated them when the server said
/// nothing (from the request's and the answer's sizes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TurnUsage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// The counts are the runner's estimate. Absent in turns recorded before estimates existed,
    /// which were all counted by their servers.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

/// `text` cut to [`MAX_TURN_TEXT_BYTES`] at a character boundary, with a marker saying how much
/// was left out.
pub fn bounded(text: &str) -> String {
    bounded_to(text, MAX_TURN_TEXT_BYTES)
}

/// `text` cut to `limit` bytes at a character boundary, with a marker saying how much was left
/// out.
pub fn bounded_to(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_owned();
    }
    let mut cut = limit;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{TRUNCATED_MARKER}{} bytes]", &text[..cut], text.len() - cut)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_cut_at_a_character_boundary_with_a_marker() {
        assert_eq!(bounded_to("short", 10), "short");
        assert_eq!(bounded_to("ééé", 3), "é…[truncated: 4 bytes]");
        assert_eq!(bounded_to("abcdef", 4), "abcd…[truncated: 2 bytes]");
    }
}
