//! What a failed request comes to: mended and sent again (a context window too small for it, a
//! server that streams only, a server that refuses the reasoning sent back), or why the run
//! pauses.

use switchyard_llm::ErrorKind;

use super::{Drive, StepState};
use crate::conversation::{BYTES_PER_TOKEN, Conversation};
use crate::event::{PauseReason, RunnerEvent};

/// How many times one turn's request is trimmed and sent again after a server refused it as
/// longer than the model's context window.
const MAX_CONTEXT_TRIMS: u32 = 4;

/// The remedies one turn's request has had.
#[derive(Debug, Default)]
pub(super) struct Remedies {
    pub(super) trims: u32,
    /// Tool answers replaced and exchanges dropped by those trims.
    pub(super) trimmed: u32,
}

impl Drive<'_> {
    /// What a failed request comes to: `None` when the conversation or the request was mended
    /// and the request goes again (a context window too small for it, a server that streams
    /// only, a server that refuses the reasoning sent back), each remedy bounded; otherwise why
    /// the run pauses, in words that say what to do.
    pub(super) fn remedy(
        &mut self,
        error: &switchyard_llm::Error,
        conversation: &mut Conversation,
        state: &StepState,
        remedies: &mut Remedies,
    ) -> Option<(PauseReason, String)> {
        let model = format!("model `{}` ({})", state.model_name, state.spec.model_id);
        let quirks = self.runner.quirks(&state.model_name);
        match error.kind {
            ErrorKind::ContextExceeded if remedies.trims < MAX_CONTEXT_TRIMS => {
                remedies.trims += 1;
                // The server counts more than the estimate did: aim a quarter lower than what
                // was sent, and trim to that.
                let sent = conversation.bytes().div_ceil(BYTES_PER_TOKEN);
                let room = sent.saturating_mul(3) / 4;
                let before = conversation.bytes();
                remedies.trimmed += conversation.trim_to(room);
                self.runner.learn(&state.model_name, |quirks| {
                    quirks.room = Some(quirks.room.map_or(room, |known| known.min(room)))
                });
                if conversation.bytes() < before {
                    self.emit(RunnerEvent::Retrying { attempt: remedies.trims, delay_ms: 0, reason: format!("{model}: the request was longer than its context window; trimmed the conversation and sending it again") });
                    return None;
                }
                Some((
                    PauseReason::ContextFull,
                    format!(
                        "{model} refused the request as longer than its context window, and nothing is left to trim: the system prompt, the step's task and the latest exchange alone are too long ({}). Give the model a larger window (`context_window` in `[models.{}]` and the server's own setting) or a smaller `max_tokens`",
                        error.message, state.model_name
                    ),
                ))
            }
            ErrorKind::ContextExceeded => Some((
                PauseReason::ContextFull,
                format!(
                    "{model} still refused the request as too long after {MAX_CONTEXT_TRIMS} trims: {}",
                    error.message
                ),
            )),
            ErrorKind::StreamRequired if !state.spec.stream && !quirks.stream => {
                self.runner.learn(&state.model_name, |quirks| quirks.stream = true);
                self.emit(RunnerEvent::Retrying { attempt: 1, delay_ms: 0, reason: format!("{model} answers only streamed requests: streaming from now on (set `stream = true` in `[models.{}]` to start so)", state.model_name) });
                None
            }
            ErrorKind::Rejected | ErrorKind::InvalidMessage
                if state.spec.send_reasoning.is_none()
                    && error.message.contains("reasoning_content")
                    && conversation.holds_reasoning() =>
            {
                self.runner.learn(&state.model_name, |quirks| quirks.refuses_reasoning = true);
                conversation.forget_reasoning();
                self.emit(RunnerEvent::Retrying { attempt: 1, delay_ms: 0, reason: format!("{model} refuses the reasoning sent back: sending it no more (`send_reasoning = \"never\"` in `[models.{}]` says so from the start)", state.model_name) });
                None
            }
            ErrorKind::Unauthorized | ErrorKind::UnknownModel => Some((
                PauseReason::ModelRefused,
                format!(
                    "{model} refused the request ({}): {}. Check the API key's variable and the model's id, then resume",
                    error.kind.code(),
                    error.message
                ),
            )),
            kind if kind.is_retryable() || kind == ErrorKind::Malformed => Some((
                PauseReason::ModelUnavailable,
                format!("{model} is unavailable ({}): {}", error.kind.code(), error.message),
            )),
            _ => Some((
                PauseReason::RequestRejected,
                format!("{model} rejected the request ({}): {}", error.kind.code(), error.message),
            )),
        }
    }
}
