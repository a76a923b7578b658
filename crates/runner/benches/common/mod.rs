//! What the runner's benchmarks share: a workflow whose one step loops on itself, and the tool
//! calls a scripted model makes through it, a function of the request alone.

// Each bench target compiles this module and uses a different part of it.
#![allow(dead_code)]

use serde_json::{Value, json};
use switchyard_test_support::fake_llm::{RecordedRequest, Reply};

pub const TURNS_PER_STEP: usize = 10;

/// One step, `work`, whose `again` edge leads back to itself.
pub const LOOP_WORKFLOW: &str = r#"id: runner-bench-loop
version: "1"
title: Runner benchmark loop
description: One unit of work at a time, as often as the model asks.
steps:
  - id: work
    title: Do one unit of work
    prompt: Do one unit of work toward {{ goal }}, then report it.
    next:
      - to: work
        label: again
        max_traversals: 1000000
      - end: true
        label: done
"#;

/// What the first turn saves and every `read_file` reads back: a short note.
pub const NOTE: &str =
    "# Notes\n\nThe parser keeps its state in one struct; the lexer is a plain iterator.\nNext: the error messages.\n";

/// What the model calls at `turn` (counted from 0) of a run of `total` turns.
pub fn call_at(turn: usize, total: usize) -> (&'static str, Value) {
    let position = turn % TURNS_PER_STEP;
    if turn + 1 == total {
        (
            "complete_step",
            json!({ "notes": format!("Unit {} done; that was the last.", turn / TURNS_PER_STEP), "choice": "done" }),
        )
    } else if turn == 0 {
        ("save_output", json!({ "path": "notes.md", "content": NOTE }))
    } else if position == TURNS_PER_STEP - 1 {
        ("complete_step", json!({ "notes": format!("Unit {} done.", turn / TURNS_PER_STEP), "choice": "again" }))
    } else if position == 0 {
        ("checkpoint", json!({ "notes": format!("Turn {turn}: starting the next unit.") }))
    } else {
        ("read_file", json!({ "path": "{output-root}/notes.md" }))
    }
}

/// The turn a request asks for: one past the turn of the conversation's last answer of the model,
/// whose call id names it (`turn_<k>`), 0 before any. The id survives trimming to a context
/// window, which drops the oldest turns but never the last one. The reply is a function of the
/// request alone, so a bare replay of the same body gets the same reply.
pub fn turn_of(request: &RecordedRequest) -> usize {
    request
        .messages()
        .iter()
        .rev()
        .find(|message| message["role"] == "assistant")
        .and_then(|message| message["tool_calls"][0]["id"].as_str())
        .and_then(|id| id.strip_prefix("turn_"))
        .and_then(|turn| turn.parse::<usize>().ok())
        .map_or(0, |turn| turn + 1)
}

/// The reply to `request` in a run of `total` turns: a completion calling one tool, its call id
/// naming the turn.
pub fn reply_to(request: &RecordedRequest, total: usize) -> Reply {
    let turn = turn_of(request);
    let (name, arguments) = call_at(turn, total);
    let call = json!({
        "id": format!("turn_{turn}"),
        "type": "function",
        "function": { "name": name, "arguments": arguments.to_string() },
    });
    Reply::json(json!({
        "id": format!("chatcmpl-bench-{turn}"),
        "object": "chat.completion",
        "model": request.model(),
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": null, "tool_calls": [call] },
            "finish_reason": "tool_calls",
        }],
        "usage": { "prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15 },
    }))
}

/// The load average over 1, 5 and 15 minutes.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The CPU time this process has used so far, user and system, in milliseconds (from
/// `/proc/self/stat`, in clock ticks of 10 ms: meaningful over many turns, not one).
pub fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command name (which may hold spaces), from the state (field 3) on.
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |index: usize| fields.get(index).and_then(|value| value.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15, that is 11 and 12 after the state.
    (ticks(11) + ticks(12)) * 10.0
}
