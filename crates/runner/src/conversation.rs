//! The conversation with the model: messages kept across a step's turns (and across steps unless
//! a step resets its context), trimmed to the model's context window by replacing the oldest tool
//! answers with a visible marker, and the new messages each turn records.

use switchyard_core::turn::{TurnMessage, bounded};
use switchyard_llm::{Message, Role};

/// What replaces a tool answer trimmed away to fit the context window.
pub(crate) const TRIMMED_MARKER: &str = "[switchyard: this older tool answer was removed to fit the model's context window; call the tool again if you need it]";

/// A rough count of bytes per token: conservative, so a trimmed conversation fits.
const BYTES_PER_TOKEN: u64 = 3;

#[derive(Debug, Default)]
pub(crate) struct Conversation {
    messages: Vec<Message>,
    /// Messages added since the last recorded turn (tool answers aside), for its record.
    unrecorded: Vec<TurnMessage>,
    /// The conversation started afresh since the last recorded turn.
    fresh: bool,
}

impl Conversation {
    /// A fresh conversation holding only `system` and, when there is one, the recap.
    pub(crate) fn fresh(system: String, recap: Option<String>) -> Self {
        let mut conversation = Self { fresh: true, ..Self::default() };
        conversation.push_recorded(Message::system(system));
        if let Some(recap) = recap {
            conversation.push_recorded(Message::user(recap));
        }
        conversation
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    pub(crate) fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Replaces the system prompt (a new step in a carried-over conversation, or the same step
    /// at a new node) and records it when it changed.
    pub(crate) fn set_system(&mut self, system: String) {
        match self.messages.first_mut() {
            Some(first) if first.role == Role::System => {
                if first.content.as_deref() != Some(system.as_str()) {
                    self.unrecorded.push(TurnMessage { role: "system".to_owned(), content: bounded(&system) });
                    first.content = Some(system);
                }
            }
            _ => {
                self.unrecorded.push(TurnMessage { role: "system".to_owned(), content: bounded(&system) });
                self.messages.insert(0, Message::system(system));
            }
        }
    }

    /// A message the runner adds (a reminder, a person's reason): recorded with the next turn.
    pub(crate) fn push_user(&mut self, text: String) {
        self.push_recorded(Message::user(text));
    }

    /// The model's answer, recorded in the turn's response.
    pub(crate) fn push_assistant(&mut self, message: Message) {
        self.messages.push(message);
    }

    /// A tool's answer, recorded in the turn's tool results.
    pub(crate) fn push_tool(&mut self, call_id: &str, text: String) {
        self.messages.push(Message::tool(call_id, text));
    }

    fn push_recorded(&mut self, message: Message) {
        let role = match message.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        };
        self.unrecorded
            .push(TurnMessage { role: role.to_owned(), content: bounded(message.content.as_deref().unwrap_or("")) });
        self.messages.push(message);
    }

    /// The new messages and whether the conversation started afresh, for the turn's record.
    pub(crate) fn take_unrecorded(&mut self) -> (Vec<TurnMessage>, bool) {
        (std::mem::take(&mut self.unrecorded), std::mem::replace(&mut self.fresh, false))
    }

    /// Trims the conversation to `window_tokens`: the oldest tool answers are replaced by
    /// [`TRIMMED_MARKER`] until it fits, never the answers to the latest tool calls nor one
    /// shorter than the marker. Returns how many were replaced.
    pub(crate) fn trim_to(&mut self, window_tokens: u64) -> u32 {
        let limit = window_tokens.saturating_mul(BYTES_PER_TOKEN);
        let mut size: u64 = self.messages.iter().map(message_bytes).sum();
        if size <= limit {
            return 0;
        }
        // The answers after the last assistant message are what the model is about to read.
        let keep_from = self.messages.iter().rposition(|message| message.role == Role::Assistant).unwrap_or(0);
        let mut trimmed = 0;
        for message in self.messages.iter_mut().take(keep_from) {
            if size <= limit {
                break;
            }
            let worth_trimming = message.content.as_deref().is_some_and(|text| text.len() > TRIMMED_MARKER.len());
            if message.role != Role::Tool || !worth_trimming {
                continue;
            }
            size -= message_bytes(message);
            message.content = Some(TRIMMED_MARKER.to_owned());
            size += message_bytes(message);
            trimmed += 1;
        }
        trimmed
    }
}

fn message_bytes(message: &Message) -> u64 {
    let calls: usize =
        message.tool_calls.iter().map(|call| call.function.name.len() + call.function.arguments.len()).sum();
    (message.content.as_deref().map_or(0, str::len) + calls) as u64
}

#[cfg(test)]
mod tests {
    use switchyard_llm::{FunctionCall, ToolCall};

    use super::*;

    fn assistant_calling(id: &str) -> Message {
        Message {
            role: Role::Assistant,
            content: None,
            tool_calls: vec![ToolCall {
                id: id.to_owned(),
                kind: "function".to_owned(),
                function: FunctionCall { name: "read_file".to_owned(), arguments: "{}".to_owned() },
            }],
            tool_call_id: None,
        }
    }

    #[test]
    fn trimming_replaces_the_oldest_tool_answers_first_and_keeps_the_latest() {
        let mut conversation = Conversation::fresh("system".to_owned(), None);
        for (id, size) in [("short", 20), ("a", 3000), ("b", 3000), ("c", 3000)] {
            conversation.push_assistant(assistant_calling(id));
            conversation.push_tool(id, "x".repeat(size));
        }
        // 9 000 bytes of answers in a window of 2 500 tokens (7 500 bytes): one must go.
        assert_eq!(conversation.trim_to(2500), 1);
        let answers: Vec<&str> = conversation
            .messages()
            .iter()
            .filter(|message| message.role == Role::Tool)
            .map(|message| message.content.as_deref().unwrap())
            .collect();
        assert_eq!(answers[0].len(), 20, "shorter than the marker: kept");
        assert_eq!(answers[1], TRIMMED_MARKER);
        assert_eq!((answers[2].len(), answers[3].len()), (3000, 3000));
        // Far too small a window: everything but the latest answer goes, and nothing more.
        assert_eq!(conversation.trim_to(10), 1);
        assert_eq!(conversation.messages().last().unwrap().content.as_deref().map(str::len), Some(3000));
    }

    #[test]
    fn a_fresh_conversation_records_its_system_prompt_and_recap_once() {
        let mut conversation = Conversation::fresh("system".to_owned(), Some("recap".to_owned()));
        let (messages, fresh) = conversation.take_unrecorded();
        assert!(fresh);
        assert_eq!(messages.iter().map(|message| message.role.as_str()).collect::<Vec<_>>(), ["system", "user"]);
        conversation.set_system("system".to_owned());
        assert_eq!(conversation.take_unrecorded(), (Vec::new(), false));
        conversation.set_system("another step".to_owned());
        assert_eq!(conversation.take_unrecorded().0.len(), 1);
    }
}
