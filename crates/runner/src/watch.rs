//! Watching the model: stuck detection (the same call again and again, turns without progress)
//! and the budgets of turns, tokens and time of a run and of a step.

use std::time::{Duration, Instant};

use crate::options::Limits;

/// Whether a turn showed progress, and the calls it made.
#[derive(Debug, Default)]
pub(crate) struct StuckWatch {
    last_call: Option<(String, String)>,
    repeats: u32,
    turns_without_progress: u32,
}

impl StuckWatch {
    /// Notes one tool call; returns how many times in a row it was made.
    pub(crate) fn call(&mut self, name: &str, arguments: &str) -> u32 {
        let call = (name.to_owned(), normalised(arguments));
        if self.last_call.as_ref() == Some(&call) {
            self.repeats += 1;
        } else {
            self.last_call = Some(call);
            self.repeats = 1;
        }
        self.repeats
    }

    /// Notes the end of a turn; returns how many turns in a row showed no progress.
    pub(crate) fn turn(&mut self, progressed: bool) -> u32 {
        if progressed {
            self.turns_without_progress = 0;
            self.last_call = None;
            self.repeats = 0;
        } else {
            self.turns_without_progress += 1;
        }
        self.turns_without_progress
    }
}

/// The same arguments written with other spacing or key order are the same call.
fn normalised(arguments: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(arguments) {
        Ok(value) => String::from_utf8_lossy(&switchyard_core::hash::canonical_json(&value)).into_owned(),
        Err(_) => arguments.trim().to_owned(),
    }
}

/// What a run or a step used so far.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub turns: u32,
    pub tokens: u64,
    /// Working time: from the start, less the time spent waiting for people.
    started: Instant,
    waited: Duration,
}

impl Budget {
    pub(crate) fn new() -> Self {
        Self { turns: 0, tokens: 0, started: Instant::now(), waited: Duration::ZERO }
    }

    pub(crate) fn waited(&mut self, time: Duration) {
        self.waited += time;
    }

    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed().saturating_sub(self.waited)
    }

    /// The limit this budget has reached, in words, if it has reached one.
    pub(crate) fn exceeded(&self, limits: &Limits, what: &str) -> Option<String> {
        exceeded(limits, what, self.turns, self.tokens, self.elapsed())
    }
}

/// The limit `turns`, `tokens` and `elapsed` reached, in words, if they reached one.
pub(crate) fn exceeded(limits: &Limits, what: &str, turns: u32, tokens: u64, elapsed: Duration) -> Option<String> {
    if let Some(max) = limits.max_turns.filter(|max| turns >= *max) {
        return Some(format!("the {what} reached its limit of {max} turns"));
    }
    if let Some(max) = limits.max_tokens.filter(|max| tokens >= *max) {
        return Some(format!("the {what} used {tokens} tokens, its limit is {max}"));
    }
    if let Some(max) = limits.max_time.filter(|max| elapsed >= *max) {
        return Some(format!("the {what} ran for {}s, its limit is {}s", elapsed.as_secs(), max.as_secs()));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_call_counts_whatever_its_spacing_and_progress_resets_it() {
        let mut watch = StuckWatch::default();
        assert_eq!(watch.call("read_file", r#"{"path": "a", "startLine": 1}"#), 1);
        assert_eq!(watch.call("read_file", r#"{"startLine":1,"path":"a"}"#), 2);
        assert_eq!(watch.call("read_file", r#"{"path": "b"}"#), 1);
        assert_eq!(watch.call("read_file", r#"{"path": "b"}"#), 2);
        assert_eq!(watch.turn(false), 1);
        assert_eq!(watch.turn(false), 2);
        assert_eq!(watch.turn(true), 0);
        assert_eq!(watch.call("read_file", r#"{"path": "b"}"#), 1);
    }

    #[test]
    fn each_limit_is_reached_at_its_value() {
        let limits = Limits { max_turns: Some(3), max_tokens: Some(100), max_time: Some(Duration::from_secs(60)) };
        assert_eq!(exceeded(&limits, "run", 2, 99, Duration::from_secs(59)), None);
        assert!(exceeded(&limits, "run", 3, 0, Duration::ZERO).unwrap().contains("3 turns"));
        assert!(exceeded(&limits, "step", 0, 100, Duration::ZERO).unwrap().contains("limit is 100"));
        assert!(exceeded(&limits, "run", 0, 0, Duration::from_secs(60)).unwrap().contains("limit is 60s"));
        assert_eq!(exceeded(&Limits::default(), "run", u32::MAX, u64::MAX, Duration::MAX), None);
    }
}
