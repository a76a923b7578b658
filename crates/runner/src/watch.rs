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
    pub(crate) fn exceeded(&self, limits: &Limits, scope: Scope<'_>) -> Option<String> {
        exceeded(limits, scope, self.turns, self.tokens, self.elapsed())
    }
}

/// Whose budget ran out: the run's for this drive, or one step's.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Scope<'a> {
    Run,
    Step(&'a str),
}

impl Scope<'_> {
    /// Who ran out, and the flag and key that set a limit named by its run flag (`max-turns`) and
    /// run key (`max_turns`).
    fn words(self, flag: &str, key: &str) -> (String, String) {
        match self {
            Self::Run => ("this drive of the run".to_owned(), format!("--{flag} or [runner] {key}")),
            Self::Step(step) => (format!("step `{step}`"), format!("--step-{flag} or [runner] step_{key}")),
        }
    }
}

/// The limit `turns`, `tokens` and `elapsed` reached, in words, if they reached one: whose
/// budget, what it spent, the flag or key that sets it, and that resuming starts a fresh one
/// (budgets count per drive: resuming is a person's decision to spend again).
pub(crate) fn exceeded(
    limits: &Limits,
    scope: Scope<'_>,
    turns: u32,
    tokens: u64,
    elapsed: Duration,
) -> Option<String> {
    let (spent, flag, key) = if let Some(max) = limits.max_turns.filter(|max| turns >= *max) {
        let plural = if turns == 1 { "" } else { "s" };
        (format!("took {turns} turn{plural}, its limit is {max}"), "max-turns", "max_turns")
    } else if let Some(max) = limits.max_tokens.filter(|max| tokens >= *max) {
        (format!("used {tokens} tokens, its limit is {max}"), "max-tokens", "max_tokens")
    } else if let Some(max) = limits.max_time.filter(|max| elapsed >= *max) {
        (format!("worked for {}s, its limit is {}s", elapsed.as_secs(), max.as_secs()), "max-time", "max_time_seconds")
    } else {
        return None;
    };
    let (who, set_by) = scope.words(flag, key);
    Some(format!(
        "{who} {spent} ({set_by}); `switchyard run --resume` goes on with a fresh budget for the run and the step"
    ))
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
        assert_eq!(exceeded(&limits, Scope::Run, 2, 99, Duration::from_secs(59)), None);
        assert!(exceeded(&limits, Scope::Run, 3, 0, Duration::ZERO).unwrap().contains("took 3 turns"));
        assert!(exceeded(&limits, Scope::Step("a"), 0, 100, Duration::ZERO).unwrap().contains("limit is 100"));
        assert!(exceeded(&limits, Scope::Run, 0, 0, Duration::from_secs(60)).unwrap().contains("limit is 60s"));
        assert_eq!(exceeded(&Limits::default(), Scope::Run, u32::MAX, u64::MAX, Duration::MAX), None);
    }

    #[test]
    fn a_limit_message_names_whose_budget_ran_out_what_sets_it_and_that_resuming_starts_afresh() {
        let limits = Limits { max_turns: Some(3), max_tokens: None, max_time: Some(Duration::from_secs(60)) };
        assert_eq!(
            exceeded(&limits, Scope::Run, 3, 0, Duration::ZERO).unwrap(),
            "this drive of the run took 3 turns, its limit is 3 (--max-turns or [runner] max_turns); \
             `switchyard run --resume` goes on with a fresh budget for the run and the step"
        );
        assert_eq!(
            exceeded(&limits, Scope::Step("draft"), 0, 0, Duration::from_secs(61)).unwrap(),
            "step `draft` worked for 61s, its limit is 60s (--step-max-time or [runner] step_max_time_seconds); \
             `switchyard run --resume` goes on with a fresh budget for the run and the step"
        );
    }
}
