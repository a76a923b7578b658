//! The conversation with the model: messages kept across a step's turns (and across steps unless
//! a step resets its context), trimmed to the model's context window by replacing the oldest tool
//! answers with a visible marker, then by dropping the oldest whole exchanges behind another, and
//! the new messages each turn records.
//!
//! The current step's task (a user message, see [`crate::prompt::task`]) is pinned: trimming
//! never drops it, wherever in the conversation it was handed out.

use std::collections::HashSet;

use switchyard_core::turn::{TRUNCATED_MARKER, TurnMessage, bounded};
use switchyard_llm::{FunctionCall, Message, Role, ToolCall};
use switchyard_runtime::RecordedTurn;

/// What replaces a tool answer trimmed away to fit the context window.
pub(crate) const TRIMMED_MARKER: &str = "[switchyard: this older tool answer was removed to fit the model's context window; call the tool again if you need it]";

/// A rough count of bytes per token: conservative, so a trimmed conversation fits.
pub(crate) const BYTES_PER_TOKEN: u64 = 3;

/// What a message costs beyond its text, in bytes: the role and the template's markers around it
/// (a few tokens in every chat template), and a tool call's id and type.
const MESSAGE_OVERHEAD_BYTES: u64 = 24;
const CALL_OVERHEAD_BYTES: u64 = 48;

#[derive(Debug, Default)]
pub(crate) struct Conversation {
    messages: Vec<Message>,
    /// The estimate of `messages`' size, kept as they change so a turn need not measure them all.
    bytes: u64,
    /// How many of the oldest exchanges were dropped: when some were, the message after the
    /// system prompt and recap is the marker saying so.
    dropped_turns: u32,
    /// Messages added since the last recorded turn (tool answers aside), for its record.
    unrecorded: Vec<TurnMessage>,
    /// The conversation started afresh since the last recorded turn.
    fresh: bool,
    /// Where the current step's task is; trimming keeps it.
    task: Option<usize>,
    /// Every tool call id the conversation holds or held, so an id a server sends again is
    /// renamed before it goes back (a repeated id leaves a tool answer matching two calls).
    call_ids: HashSet<String>,
}

impl Conversation {
    /// A fresh conversation holding `system`, the recap when there is one, and the step's task.
    pub(crate) fn fresh(system: String, recap: Option<String>, task: String) -> Self {
        let mut conversation = Self { fresh: true, ..Self::default() };
        conversation.push_recorded(Message::system(system));
        if let Some(recap) = recap {
            conversation.push_recorded(Message::user(recap));
        }
        conversation.hand_out(task);
        conversation
    }

    /// Hands out a step's task: a user message, pinned in place of the previous step's (which
    /// becomes ordinary history, trimmed like any other).
    pub(crate) fn hand_out(&mut self, task: String) {
        self.push_recorded(Message::user(task));
        self.task = Some(self.messages.len() - 1);
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
                    self.bytes -= message_bytes(first);
                    first.content = Some(system);
                    self.bytes += message_bytes(first);
                }
            }
            _ => {
                self.unrecorded.push(TurnMessage { role: "system".to_owned(), content: bounded(&system) });
                let message = Message::system(system);
                self.bytes += message_bytes(&message);
                self.messages.insert(0, message);
            }
        }
    }

    /// A message the runner adds (a reminder, a person's reason): recorded with the next turn.
    pub(crate) fn push_user(&mut self, text: String) {
        self.push_recorded(Message::user(text));
    }

    /// The model's answer, recorded in the turn's response. A tool call id that is empty or
    /// already in the conversation is renamed (`<id>_2`, ...); the calls are returned as sent
    /// back from now on.
    pub(crate) fn push_assistant(&mut self, mut message: Message) -> Vec<ToolCall> {
        for call in &mut message.tool_calls {
            if call.id.is_empty() {
                call.id = "call".to_owned();
            }
            if !self.call_ids.insert(call.id.clone()) {
                let unique = (2..).map(|n| format!("{}_{n}", call.id)).find(|id| !self.call_ids.contains(id));
                call.id = unique.expect("an unbounded range holds an unused id");
                self.call_ids.insert(call.id.clone());
            }
        }
        let calls = message.tool_calls.clone();
        self.push(message);
        calls
    }

    /// Replaces the arguments of the latest call `call_id` with a short note: a call that was
    /// refused need not be sent again with every later request (a refused oversized write would
    /// fill the window turn after turn). Arguments of `keep_below` bytes or fewer are kept.
    pub(crate) fn forget_arguments(&mut self, call_id: &str, keep_below: usize) {
        let Some(message) = self.messages.iter_mut().rev().find(|message| message.role == Role::Assistant) else {
            return;
        };
        let before = message_bytes(message);
        let Some(call) = message.tool_calls.iter_mut().find(|call| call.id == call_id) else { return };
        if call.function.arguments.len() <= keep_below {
            return;
        }
        call.function.arguments = arguments_note(&format!(
            "the {} bytes of arguments of this refused call were removed; its answer says why",
            call.function.arguments.len()
        ));
        self.bytes = self.bytes - before + message_bytes(message);
    }

    /// Restores a step's recorded turns after a fresh start (system prompt, recap, task): the
    /// messages each turn added (but the first's and a fresh one's, which the fresh start stands
    /// for), the model's answers and the tool answers, none recorded again. Recorded texts were
    /// bounded: arguments cut short are replaced by a note, since a server parsing them as JSON
    /// would refuse the whole request.
    pub(crate) fn restore(&mut self, turns: &[RecordedTurn]) {
        for (index, recorded) in turns.iter().enumerate() {
            let turn = &recorded.turn;
            if index > 0 && !turn.request.fresh {
                for message in turn.request.new_messages.iter().filter(|message| message.role == "user") {
                    self.push(Message::user(message.content.clone()));
                }
            }
            let calls: Vec<ToolCall> = turn
                .response
                .tool_calls
                .iter()
                .map(|call| ToolCall {
                    id: call.id.clone(),
                    kind: "function".to_owned(),
                    function: FunctionCall {
                        name: call.name.clone(),
                        arguments: if call.arguments.contains(TRUNCATED_MARKER) {
                            arguments_note(&format!(
                                "the arguments of this earlier call ({} bytes as recorded) were too long to restore",
                                call.arguments.len()
                            ))
                        } else {
                            call.arguments.clone()
                        },
                    },
                })
                .collect();
            let text = turn.response.text.clone().filter(|text| !text.trim().is_empty());
            if calls.is_empty() && text.is_none() {
                continue;
            }
            self.push_assistant(Message { content: text, ..Message::calling(calls) });
            for result in &turn.tool_results {
                self.push_tool(&result.call_id, result.content.clone());
            }
        }
    }

    /// Whether a message holds reasoning sent back to the server.
    pub(crate) fn holds_reasoning(&self) -> bool {
        self.messages.iter().any(|message| message.reasoning_content.is_some())
    }

    /// Takes the reasoning out of every message (a server refused it).
    pub(crate) fn forget_reasoning(&mut self) {
        for message in &mut self.messages {
            if let Some(reasoning) = message.reasoning_content.take() {
                self.bytes -= reasoning.len() as u64;
            }
        }
    }

    /// The estimate of the messages' size in bytes, overhead included.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// A tool's answer, recorded in the turn's tool results.
    pub(crate) fn push_tool(&mut self, call_id: &str, text: String) {
        self.push(Message::tool(call_id, text));
    }

    fn push(&mut self, message: Message) {
        self.bytes += message_bytes(&message);
        self.messages.push(message);
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
        self.push(message);
    }

    /// The new messages and whether the conversation started afresh, for the turn's record.
    pub(crate) fn take_unrecorded(&mut self) -> (Vec<TurnMessage>, bool) {
        (std::mem::take(&mut self.unrecorded), std::mem::replace(&mut self.fresh, false))
    }

    /// Trims the conversation to `window_tokens`: first the oldest tool answers are replaced by
    /// [`TRIMMED_MARKER`], never the answers to the latest tool calls nor one shorter than the
    /// marker; if that is not enough, the oldest whole exchanges are dropped behind one marker
    /// message (see [`Self::drop_oldest_exchanges`]). Returns how many answers were replaced plus
    /// how many exchanges were dropped.
    pub(crate) fn trim_to(&mut self, window_tokens: u64) -> u32 {
        let limit = window_tokens.saturating_mul(BYTES_PER_TOKEN);
        if self.bytes <= limit {
            return 0;
        }
        // The answers after the last assistant message are what the model is about to read.
        let keep_from = self.latest_exchange();
        let mut trimmed = 0;
        for message in self.messages.iter_mut().take(keep_from) {
            if self.bytes <= limit {
                break;
            }
            let worth_trimming = message.content.as_deref().is_some_and(|text| text.len() > TRIMMED_MARKER.len());
            if message.role != Role::Tool || !worth_trimming {
                continue;
            }
            self.bytes -= message_bytes(message);
            message.content = Some(TRIMMED_MARKER.to_owned());
            self.bytes += message_bytes(message);
            trimmed += 1;
        }
        if self.bytes > limit {
            trimmed += self.drop_oldest_exchanges(limit);
        }
        trimmed
    }

    /// Drops the oldest exchanges (an assistant message with what follows it up to the next one:
    /// its tool answers and any message the runner added) until the conversation fits `limit`
    /// bytes, or only the latest exchange is left. The system prompt and the recap (or first user
    /// message) stay, followed by one marker message counting every exchange dropped so far. A cut
    /// falls only before an assistant message, so no tool answer loses the call it answers (a
    /// server refuses such a conversation). Returns how many exchanges were dropped this time.
    fn drop_oldest_exchanges(&mut self, limit: u64) -> u32 {
        let mut start = usize::from(self.messages.first().is_some_and(|first| first.role == Role::System));
        if self.messages.get(start).is_some_and(|message| message.role == Role::User && !self.is_marker(message)) {
            start += 1;
        }
        let marker_bytes = self.messages.get(start).filter(|message| self.is_marker(message)).map(message_bytes);
        let old_marker = marker_bytes.is_some();
        let latest = self.latest_exchange();
        if latest <= start + usize::from(old_marker) {
            return 0;
        }
        // The exchanges begin right after the old marker, if there is one.
        let mut size = self.bytes - marker_bytes.unwrap_or(0);
        let mut cut = start + usize::from(old_marker);
        let mut dropped = 0;
        // The new marker's size barely depends on the count: measure it with the largest.
        let new_marker_bytes = message_bytes(&marker_message(u32::MAX));
        let first_cut = cut;
        while cut < latest && size + new_marker_bytes > limit {
            // One exchange: the message at the cut and everything up to the next assistant message.
            loop {
                let message = &self.messages[cut];
                if self.task != Some(cut) {
                    size -= message_bytes(message);
                }
                dropped += u32::from(message.role == Role::Assistant);
                cut += 1;
                if cut == latest || self.messages[cut].role == Role::Assistant {
                    break;
                }
            }
        }
        if cut == first_cut {
            return 0;
        }
        self.dropped_turns = self.dropped_turns.saturating_add(dropped);
        let marker = marker_message(self.dropped_turns);
        self.bytes = size + message_bytes(&marker);
        let task = self.task.filter(|task| (start..cut).contains(task));
        let kept = task.map(|task| self.messages[task].clone());
        self.messages.splice(start..cut, std::iter::once(marker).chain(kept));
        match (task, self.task) {
            (Some(_), _) => self.task = Some(start + 1),
            (None, Some(later)) if later >= cut => self.task = Some(later + start + 1 - cut),
            (None, _) => {}
        }
        dropped
    }

    /// Where the latest exchange starts: the last assistant message (0 when there is none yet, so
    /// nothing counts as old).
    fn latest_exchange(&self) -> usize {
        self.messages.iter().rposition(|message| message.role == Role::Assistant).unwrap_or(0)
    }

    fn is_marker(&self, message: &Message) -> bool {
        self.dropped_turns > 0
            && message.role == Role::User
            && message.content.as_deref() == marker_message(self.dropped_turns).content.as_deref()
    }
}

/// What stands in for a call's arguments that are not sent: a JSON object, since servers that
/// render tool calls through a chat template parse the arguments and refuse what is not JSON.
fn arguments_note(note: &str) -> String {
    serde_json::json!({ "switchyard": note }).to_string()
}

/// What stands in for the oldest exchanges dropped to fit the context window.
fn marker_message(dropped_turns: u32) -> Message {
    Message::user(format!(
        "[switchyard: {dropped_turns} earlier turns of this conversation were removed to fit the model's context window; the system prompt describes the current step]"
    ))
}

fn message_bytes(message: &Message) -> u64 {
    let calls: u64 = message
        .tool_calls
        .iter()
        .map(|call| {
            (call.id.len() + call.function.name.len() + call.function.arguments.len()) as u64 + CALL_OVERHEAD_BYTES
        })
        .sum();
    let text =
        message.content.as_deref().map_or(0, str::len) + message.reasoning_content.as_deref().map_or(0, str::len);
    MESSAGE_OVERHEAD_BYTES + text as u64 + calls + message.tool_call_id.as_deref().map_or(0, str::len) as u64
}

#[cfg(test)]
mod tests {
    use switchyard_llm::{FunctionCall, ToolCall};

    use super::*;

    fn assistant_calling(id: &str) -> Message {
        assistant_calling_each(&[id])
    }

    fn assistant_calling_each(ids: &[&str]) -> Message {
        let call = |id: &&str| ToolCall {
            id: (*id).to_owned(),
            kind: "function".to_owned(),
            function: FunctionCall { name: "read_file".to_owned(), arguments: "{}".to_owned() },
        };
        Message::calling(ids.iter().map(call).collect())
    }

    #[test]
    fn trimming_replaces_the_oldest_tool_answers_first_and_keeps_the_latest() {
        let mut conversation = Conversation::fresh("system".to_owned(), None, "task".to_owned());
        for (id, size) in [("short", 20), ("a", 3000), ("b", 3000), ("c", 3000)] {
            conversation.push_assistant(assistant_calling(id));
            conversation.push_tool(id, "x".repeat(size));
        }
        // 9 000 bytes of answers (and their overhead) in a window of 2 500 tokens (7 500 bytes):
        // one must go.
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
        // Far too small a window: the other long answer is replaced, then the three older
        // exchanges are dropped, and the latest answer is kept whole.
        assert_eq!(conversation.trim_to(10), 1 + 3);
        assert_eq!(conversation.messages().len(), 5, "system, task, marker, the latest call and its answer");
        assert_eq!(conversation.messages()[1].content.as_deref(), Some("task"));
        assert_eq!(conversation.messages().last().unwrap().content.as_deref().map(str::len), Some(3000));
    }

    /// Every tool answer's call is in the assistant message before it and its answers.
    fn assert_every_answer_has_its_call(messages: &[Message]) {
        let mut calls: Vec<&str> = Vec::new();
        for message in messages {
            match message.role {
                Role::Assistant => calls = message.tool_calls.iter().map(|call| call.id.as_str()).collect(),
                Role::Tool => {
                    let id = message.tool_call_id.as_deref().unwrap();
                    assert!(calls.contains(&id), "the answer to `{id}` has lost its call: {messages:#?}");
                }
                Role::System | Role::User => calls.clear(),
            }
        }
    }

    #[test]
    fn a_long_conversation_of_short_tool_answers_drops_its_oldest_exchanges_to_fit_the_window() {
        let window_tokens = 2000;
        let mut conversation = Conversation::fresh("system".to_owned(), Some("recap".to_owned()), "task".to_owned());
        for turn in 0..1000 {
            conversation.trim_to(window_tokens);
            conversation.push_assistant(assistant_calling(&format!("call-{turn}")));
            conversation.push_tool(&format!("call-{turn}"), format!("short answer {turn}"));
        }
        let trimmed = conversation.trim_to(window_tokens);

        assert!(trimmed > 0, "the last turn had to drop something");
        let messages = conversation.messages();
        let size: u64 = messages.iter().map(message_bytes).sum();
        assert!(size <= window_tokens * BYTES_PER_TOKEN, "{size} bytes in {} messages", messages.len());
        assert_eq!(conversation.bytes, size, "the running count matches the messages");
        assert_every_answer_has_its_call(messages);
        assert_eq!((messages[0].role, messages[0].content.as_deref()), (Role::System, Some("system")));
        assert_eq!((messages[1].role, messages[1].content.as_deref()), (Role::User, Some("recap")));
        let marker = messages[2].content.as_deref().unwrap();
        assert_eq!(messages[2].role, Role::User);
        assert!(marker.contains("earlier turns of this conversation were removed"), "{marker}");
        let kept = messages.iter().filter(|message| message.role == Role::Assistant).count();
        assert!(marker.contains(&format!(" {} earlier turns", 1000 - kept)), "{marker}");
        assert_eq!((messages[3].role, messages[3].content.as_deref()), (Role::User, Some("task")), "the task is kept");
        let [.., call, answer] = messages else { panic!("too short: {messages:?}") };
        assert_eq!(call.tool_calls[0].id, "call-999", "the latest exchange is kept");
        assert_eq!(answer.content.as_deref(), Some("short answer 999"));
    }

    #[test]
    fn a_window_too_small_for_anything_keeps_the_system_prompt_and_the_latest_exchange_whole() {
        let mut conversation = Conversation::fresh("system".to_owned(), None, "task".to_owned());
        for turn in 0..5 {
            let id = format!("call-{turn}");
            conversation.push_assistant(assistant_calling_each(&[&format!("{id}a"), &format!("{id}b")]));
            conversation.push_tool(&format!("{id}a"), "answer a".to_owned());
            conversation.push_tool(&format!("{id}b"), "answer b".to_owned());
        }
        conversation.push_user("The previous step is done.".to_owned());

        assert_eq!(conversation.trim_to(1), 4, "every exchange but the latest is dropped");
        let roles: Vec<Role> = conversation.messages().iter().map(|message| message.role).collect();
        assert_eq!(roles, [Role::System, Role::User, Role::User, Role::Assistant, Role::Tool, Role::Tool, Role::User]);
        assert!(conversation.messages()[2].content.as_deref().unwrap().starts_with("[switchyard: 4 earlier turns"));
        assert_every_answer_has_its_call(conversation.messages());
        // A later trim counts on from the earlier marker and still keeps only one.
        conversation.push_assistant(assistant_calling("later"));
        conversation.push_tool("later", "answer".to_owned());
        assert_eq!(conversation.trim_to(1), 1);
        let messages = conversation.messages();
        assert_eq!(messages.len(), 5, "{messages:#?}");
        assert!(messages[2].content.as_deref().unwrap().starts_with("[switchyard: 5 earlier turns"));
        assert_every_answer_has_its_call(messages);
    }

    #[test]
    fn a_task_handed_out_mid_conversation_survives_every_trim() {
        let mut conversation = Conversation::fresh("system".to_owned(), Some("recap".to_owned()), "first".to_owned());
        for turn in 0..3 {
            conversation.push_assistant(assistant_calling(&format!("old-{turn}")));
            conversation.push_tool(&format!("old-{turn}"), "x".repeat(500));
        }
        conversation.hand_out("second step's task".to_owned());
        for turn in 0..50 {
            conversation.push_assistant(assistant_calling(&format!("new-{turn}")));
            conversation.push_tool(&format!("new-{turn}"), "y".repeat(500));
            conversation.trim_to(400);
            let messages = conversation.messages();
            let tasks: Vec<usize> = (0..messages.len())
                .filter(|&index| messages[index].content.as_deref() == Some("second step's task"))
                .collect();
            assert_eq!(tasks.len(), 1, "turn {turn}: the task is kept once: {messages:#?}");
            assert!(tasks[0] < conversation.latest_exchange(), "turn {turn}: the task stays before the latest call");
            assert_every_answer_has_its_call(messages);
            let size: u64 = messages.iter().map(message_bytes).sum();
            assert_eq!(conversation.bytes, size, "turn {turn}: the running count matches the messages");
        }
        let messages = conversation.messages();
        assert!(!messages.iter().any(|message| message.content.as_deref() == Some("first")), "the old task went");
    }

    #[test]
    fn repeated_and_missing_call_ids_are_made_unique_before_they_go_back() {
        let mut conversation = Conversation::fresh("system".to_owned(), None, "task".to_owned());
        let first = conversation.push_assistant(assistant_calling_each(&["call_0", "call_0", ""]));
        let ids: Vec<&str> = first.iter().map(|call| call.id.as_str()).collect();
        assert_eq!(ids, ["call_0", "call_0_2", "call"]);
        let second = conversation.push_assistant(assistant_calling_each(&["call_0", "call_1"]));
        let ids: Vec<&str> = second.iter().map(|call| call.id.as_str()).collect();
        assert_eq!(ids, ["call_0_3", "call_1"], "ids of earlier answers stay taken");
        let last = conversation.messages().last().unwrap();
        assert_eq!(last.tool_calls[0].id, "call_0_3", "the conversation holds the renamed ids");
    }

    #[test]
    fn a_refused_calls_long_arguments_are_not_sent_again() {
        let mut conversation = Conversation::fresh("system".to_owned(), None, "task".to_owned());
        let mut message = assistant_calling_each(&["big", "small"]);
        message.tool_calls[0].function.arguments = serde_json::json!({ "content": "z".repeat(100_000) }).to_string();
        conversation.push_assistant(message);
        let before = conversation.bytes();
        conversation.forget_arguments("big", 2048);
        conversation.forget_arguments("small", 2048);
        let calls = &conversation.messages().last().unwrap().tool_calls;
        let note: serde_json::Value = serde_json::from_str(&calls[0].function.arguments).unwrap();
        assert!(note["switchyard"].as_str().unwrap().contains("100014 bytes of arguments"), "{note}");
        assert_eq!(calls[1].function.arguments, "{}", "short arguments stay");
        assert!(conversation.bytes() < before - 99_000);
        let size: u64 = conversation.messages().iter().map(message_bytes).sum();
        assert_eq!(conversation.bytes(), size);
    }

    #[test]
    fn a_fresh_conversation_records_its_system_prompt_recap_and_task_once() {
        let mut conversation = Conversation::fresh("system".to_owned(), Some("recap".to_owned()), "task".to_owned());
        let (messages, fresh) = conversation.take_unrecorded();
        assert!(fresh);
        let roles: Vec<&str> = messages.iter().map(|message| message.role.as_str()).collect();
        assert_eq!(roles, ["system", "user", "user"], "the system prompt, the recap and the task");
        conversation.set_system("system".to_owned());
        assert_eq!(conversation.take_unrecorded(), (Vec::new(), false));
        conversation.set_system("another step".to_owned());
        assert_eq!(conversation.take_unrecorded().0.len(), 1);
    }
}
