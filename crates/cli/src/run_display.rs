//! What `switchyard run` shows while the runner drives: a live display on a terminal
//! (`indicatif`), one plain line per event when stderr is not a terminal, or the events
//! themselves as JSON lines on stdout (`--json`). All three are drawn from the runner's
//! [`RunnerEvent`]s and nothing else, so what a person sees is what a program reads.

use std::io::{IsTerminal, Write};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use switchyard_runner::{PauseReason, RunSummary, RunnerEvent};
use tokio::sync::mpsc;

/// How the display redraws on its own, so the elapsed time moves while the model thinks.
const TICK: Duration = Duration::from_millis(250);

/// The longest tool summary or reason a status line shows; the rest is cut with `…`.
const SUMMARY_WIDTH: usize = 60;

/// Where the events go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The live display on stderr.
    Terminal,
    /// One line per event on stderr.
    Plain,
    /// One JSON object per event on stdout.
    Json,
}

impl Mode {
    /// `--json` wins; otherwise the live display when stderr is a terminal, plain lines when it is
    /// not (a log file, CI, a pipe).
    pub fn choose(json: bool) -> Self {
        match json {
            true => Self::Json,
            false if std::io::stderr().is_terminal() => Self::Terminal,
            false => Self::Plain,
        }
    }
}

/// How the runner stopped driving, as its last event said; `None` when it sent neither
/// [`RunnerEvent::Finished`] nor [`RunnerEvent::Paused`] (it failed before).
#[derive(Debug, Clone, PartialEq)]
pub enum Ending {
    Finished { status: String },
    Paused { reason: PauseReason, message: String, resume: String },
}

/// What the display knows about the run so far: everything its status lines show.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Progress {
    pub run: String,
    pub workflow: String,
    pub step: String,
    pub title: String,
    pub index: Option<u32>,
    pub total: Option<u32>,
    pub role: Option<String>,
    pub model: String,
    pub turns: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub cost_usd: Option<f64>,
    /// Some token counts are the runner's estimates (a server that reports none).
    pub tokens_estimated: bool,
    /// A request failing and about to be sent again: what the status line says until the next
    /// turn comes back.
    pub retrying: Option<String>,
    /// The last tool call: its name, whether it went through, and what it touched.
    pub last_tool: Option<(String, bool, String)>,
    /// What the run waits on, while it waits for a person: the step, the kind, what to type.
    pub waiting: Option<(String, String, String)>,
    pub ending: Option<Ending>,
    /// What this drive did, as the runner summed it up before its last event.
    pub summary: Option<RunSummary>,
}

impl Progress {
    /// Takes one event into account.
    pub fn apply(&mut self, event: &RunnerEvent) {
        // A retry is news until anything else happens.
        if !matches!(event, RunnerEvent::Retrying { .. }) {
            self.retrying = None;
        }
        match event {
            RunnerEvent::RunStarted { run, workflow, .. } => {
                self.run.clone_from(run);
                self.workflow.clone_from(workflow);
            }
            RunnerEvent::StepStarted { step, title, index, total, role, model } => {
                self.step.clone_from(step);
                self.title.clone_from(title);
                self.index = *index;
                self.total = *total;
                self.role.clone_from(role);
                self.model.clone_from(model);
                self.last_tool = None;
                self.waiting = None;
            }
            RunnerEvent::Turn { prompt_tokens, completion_tokens, cost_usd, tokens_estimated, .. } => {
                self.turns += 1;
                self.tokens_estimated |= tokens_estimated;
                self.prompt_tokens += prompt_tokens;
                self.completion_tokens += completion_tokens;
                if cost_usd.is_some() {
                    self.cost_usd = *cost_usd;
                }
            }
            RunnerEvent::ToolCalled { tool, ok, summary, .. } => {
                self.last_tool = Some((tool.clone(), *ok, summary.clone()));
            }
            RunnerEvent::WaitingForHuman { step, kind, how } => {
                self.waiting = Some((step.clone(), kind.clone(), how.clone()));
            }
            RunnerEvent::HumanDecided { .. } => self.waiting = None,
            RunnerEvent::Paused { reason, message, resume } => {
                self.waiting = None;
                self.ending =
                    Some(Ending::Paused { reason: *reason, message: message.clone(), resume: resume.clone() });
            }
            RunnerEvent::Finished { status, turns, prompt_tokens, completion_tokens, cost_usd } => {
                self.waiting = None;
                // The runner's totals cover the whole run, turns of earlier drives included.
                self.turns = *turns;
                self.prompt_tokens = *prompt_tokens;
                self.completion_tokens = *completion_tokens;
                self.cost_usd = *cost_usd;
                self.ending = Some(Ending::Finished { status: status.clone() });
            }
            RunnerEvent::Summary(summary) => self.summary = Some(summary.clone()),
            RunnerEvent::Retrying { .. } => self.retrying = Some(plain_line(event)),
            RunnerEvent::StepBlocked { .. } | RunnerEvent::StepCompleted { .. } => {}
        }
    }

    /// The first status line: where the run is, and who works it.
    pub fn where_line(&self) -> String {
        let mut parts = vec![if self.workflow.is_empty() { "starting".to_owned() } else { self.workflow.clone() }];
        if !self.step.is_empty() {
            let place = match (self.index, self.total) {
                (Some(index), Some(total)) => format!("step {index}/{total} {}", self.step),
                _ => format!("step {}", self.step),
            };
            parts.push(place);
        }
        match (&self.role, self.model.is_empty()) {
            (Some(role), false) => parts.push(format!("{role} on {}", self.model)),
            (Some(role), true) => parts.push(role.clone()),
            (None, false) => parts.push(self.model.clone()),
            (None, true) => {}
        }
        parts.join(" · ")
    }

    /// The second status line: how much the run has spent, and what the model did last, or what
    /// the run waits on.
    pub fn work_line(&self) -> String {
        let mut parts = vec![
            format!("{} turn{}", self.turns, if self.turns == 1 { "" } else { "s" }),
            format!(
                "{}{} tokens",
                if self.tokens_estimated { "~" } else { "" },
                tokens(self.prompt_tokens + self.completion_tokens)
            ),
        ];
        if let Some(cost) = self.cost_usd {
            parts.push(dollars(cost));
        }
        match (&self.waiting, &self.retrying, &self.last_tool) {
            (Some((step, kind, how)), _, _) => parts.push(format!("{step} waits ({kind}): {how}")),
            (None, Some(retrying), _) => parts.push(cut(retrying, SUMMARY_WIDTH * 2)),
            (None, None, Some((tool, ok, summary))) => {
                let mark = if *ok { "ok" } else { "refused" };
                parts.push(format!("last: {tool} {mark} {}", cut(summary, SUMMARY_WIDTH)).trim_end().to_owned());
            }
            (None, None, None) => {}
        }
        parts.join(" · ")
    }
}

/// One line for one event, as the plain display prints it.
pub fn plain_line(event: &RunnerEvent) -> String {
    match event {
        RunnerEvent::RunStarted { run, session, workflow, resumed } => {
            let verb = if *resumed { "resumed" } else { "started" };
            format!("run {run} {verb}: workflow {workflow}, session {session}")
        }
        RunnerEvent::StepStarted { step, title, index, total, role, model } => {
            let place = match (index, total) {
                (Some(index), Some(total)) => format!("step {index}/{total} {step}"),
                _ => format!("step {step}"),
            };
            let role = role.as_deref().map(|role| format!("role {role}, ")).unwrap_or_default();
            format!("{place}: {title} ({role}model {model})")
        }
        RunnerEvent::Turn { step, turn, prompt_tokens, completion_tokens, tokens_estimated, latency_ms, cost_usd } => {
            let cost = cost_usd.map(|cost| format!(", {} so far", dollars(cost))).unwrap_or_default();
            let estimated = if *tokens_estimated { " (estimated: the server reported no usage)" } else { "" };
            format!(
                "turn {turn} of {step}: {prompt_tokens} in, {completion_tokens} out{estimated}, {latency_ms} ms{cost}"
            )
        }
        RunnerEvent::ToolCalled { step, tool, ok, summary } => {
            let mark = if *ok { "ok" } else { "refused" };
            format!("tool {tool} on {step}: {mark} {summary}").trim_end().to_owned()
        }
        RunnerEvent::StepBlocked { step, attempt, reason } => {
            format!("step {step} blocked (attempt {attempt}): {reason}")
        }
        RunnerEvent::StepCompleted { step, next } => match next {
            Some(next) => format!("step {step} completed, next: {next}"),
            None => format!("step {step} completed"),
        },
        RunnerEvent::Retrying { attempt, delay_ms, reason } => {
            format!("retrying in {} (attempt {attempt}): {reason}", seconds(*delay_ms))
        }
        RunnerEvent::WaitingForHuman { step, kind, how } => format!("step {step} waits for a person ({kind}): {how}"),
        RunnerEvent::HumanDecided { step, decision, by } => format!("step {step}: {decision} by {by}"),
        RunnerEvent::Paused { reason, message, resume } => {
            format!("paused ({}): {message}; resume with: {resume}", switchyard_core::wire_name(reason))
        }
        RunnerEvent::Summary(summary) => summary_line(summary),
        RunnerEvent::Finished { status, turns, prompt_tokens, completion_tokens, cost_usd } => {
            let cost = cost_usd.map(|cost| format!(", {}", dollars(cost))).unwrap_or_default();
            format!("finished ({status}): {turns} turns, {prompt_tokens} tokens in, {completion_tokens} out{cost}")
        }
    }
}

/// What one drive did, in a line: its tool calls and how they went, the steps it completed, and
/// where the time went.
pub fn summary_line(summary: &RunSummary) -> String {
    format!(
        "this drive: {} turns, {} tool calls ({} refused, {} security violations, {} ms in tools), {} blocked reports, {} steps completed, {}",
        summary.turns,
        summary.tool_calls,
        summary.tool_errors,
        summary.violations,
        summary.tool_call_ms,
        summary.blocked_attempts,
        summary.steps_completed,
        elapsed(summary.elapsed_ms)
    )
}

/// `1h 02m 03s`, `4m 05s`, `6.0 s`: a drive's length.
pub fn elapsed(milliseconds: u64) -> String {
    let total = milliseconds / 1000;
    let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60);
    match (hours, minutes) {
        (0, 0) => seconds(milliseconds),
        (0, _) => format!("{minutes}m {secs:02}s"),
        _ => format!("{hours}h {minutes:02}m {secs:02}s"),
    }
}

/// The block the live display prints when the run waits for a person: which step, who decides,
/// and what to type, from any terminal.
pub fn waiting_block(step: &str, kind: &str, how: &str) -> String {
    let who = match kind {
        "gate" => "a person must approve its result",
        _ => "a person must decide how the run goes on",
    };
    format!(
        "  ⏸  {step} waits ({kind}): {who}.\n     {how}\n     from any terminal; this one goes on by itself once it is decided."
    )
}

/// Draws events as they come until the runner drops its sender; returns what it learned.
pub async fn show(mode: Mode, mut events: mpsc::UnboundedReceiver<RunnerEvent>) -> Progress {
    let mut progress = Progress::default();
    let bar = match mode {
        Mode::Terminal => Some(live_bar()),
        Mode::Plain | Mode::Json => None,
    };
    while let Some(event) = events.recv().await {
        progress.apply(&event);
        match (mode, &bar) {
            (Mode::Json, _) => json_line(&event),
            (Mode::Plain, _) => plain(&plain_line(&event)),
            (Mode::Terminal, Some(bar)) => draw(bar, &progress, &event),
            (Mode::Terminal, None) => {}
        }
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    progress
}

fn live_bar() -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{spinner} {prefix} · {elapsed}\n  {wide_msg}")
        .expect("the display's template is valid");
    bar.set_style(style);
    bar.enable_steady_tick(TICK);
    bar
}

/// Updates the live display for one event: the two status lines always, and a line above them
/// for what a person should keep (a step done or blocked, a retry, a gate waiting).
fn draw(bar: &ProgressBar, progress: &Progress, event: &RunnerEvent) {
    bar.set_prefix(progress.where_line());
    bar.set_message(progress.work_line());
    match event {
        RunnerEvent::WaitingForHuman { step, kind, how } => bar.println(waiting_block(step, kind, how)),
        RunnerEvent::RunStarted { .. }
        | RunnerEvent::StepStarted { .. }
        | RunnerEvent::StepBlocked { .. }
        | RunnerEvent::StepCompleted { .. }
        | RunnerEvent::HumanDecided { .. } => bar.println(format!("  {}", plain_line(event))),
        // The closing summary goes to stdout (see `run`); turns, tool calls and retries only move
        // the status lines.
        RunnerEvent::Turn { .. }
        | RunnerEvent::Retrying { .. }
        | RunnerEvent::ToolCalled { .. }
        | RunnerEvent::Summary(_)
        | RunnerEvent::Paused { .. }
        | RunnerEvent::Finished { .. } => {}
    }
}

#[allow(clippy::print_stderr)]
fn plain(line: &str) {
    eprintln!("{line}");
}

/// One event as one line of JSON on stdout, flushed at once so a reader sees it as it happens.
fn json_line(event: &RunnerEvent) {
    let Ok(text) = serde_json::to_string(event) else { return };
    let mut out = std::io::stdout().lock();
    // A reader that went away stops seeing events; the run goes on and is recorded either way.
    let _ = writeln!(out, "{text}").and_then(|()| out.flush());
}

/// `12.3k`, `1.2M`: token counts as a person reads them at a glance.
pub fn tokens(count: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let value = count as f64;
    match count {
        0..1_000 => count.to_string(),
        1_000..1_000_000 => format!("{:.1}k", value / 1e3),
        _ => format!("{:.1}M", value / 1e6),
    }
}

/// `$0.0123`: four decimals, since a turn of a small model costs fractions of a cent; six below
/// a hundredth of a cent, so a cost is never shown as nothing.
pub fn dollars(cost: f64) -> String {
    if cost > 0.0 && cost < 0.0001 { format!("${cost:.6}") } else { format!("${cost:.4}") }
}

fn seconds(milliseconds: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let value = milliseconds as f64 / 1000.0;
    format!("{value:.1} s")
}

fn cut(text: &str, width: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    match line.char_indices().nth(width) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short run: two steps, a blocked report, a retry, a gate approved, the end.
    fn scripted() -> Vec<RunnerEvent> {
        vec![
            RunnerEvent::RunStarted {
                run: "run_1".into(),
                session: "sess_1".into(),
                workflow: "dev-cycle".into(),
                resumed: false,
            },
            RunnerEvent::StepStarted {
                step: "plan".into(),
                title: "Plan the change".into(),
                index: Some(1),
                total: Some(2),
                role: Some("planner".into()),
                model: "qwen2.5".into(),
            },
            RunnerEvent::Turn {
                step: "plan".into(),
                turn: 1,
                prompt_tokens: 1200,
                completion_tokens: 300,
                tokens_estimated: false,
                latency_ms: 850,
                cost_usd: Some(0.0015),
            },
            RunnerEvent::ToolCalled {
                step: "plan".into(),
                tool: "write_file".into(),
                ok: true,
                summary: "plan.md".into(),
            },
            RunnerEvent::StepBlocked {
                step: "plan".into(),
                attempt: 1,
                reason: "notes must contain \"## Plan\"".into(),
            },
            RunnerEvent::Retrying { attempt: 2, delay_ms: 1500, reason: "429 Too Many Requests".into() },
            RunnerEvent::WaitingForHuman {
                step: "plan".into(),
                kind: "gate".into(),
                how: "switchyard approve run_1".into(),
            },
            RunnerEvent::HumanDecided { step: "plan".into(), decision: "approved".into(), by: "alice".into() },
            RunnerEvent::StepCompleted { step: "plan".into(), next: Some("build".into()) },
            RunnerEvent::Finished {
                status: "completed".into(),
                turns: 3,
                prompt_tokens: 4000,
                completion_tokens: 900,
                cost_usd: Some(0.0051),
            },
        ]
    }

    #[test]
    fn plain_lines_say_what_happened_one_line_per_event() {
        let lines: Vec<String> = scripted().iter().map(plain_line).collect();
        assert_eq!(
            lines,
            [
                "run run_1 started: workflow dev-cycle, session sess_1",
                "step 1/2 plan: Plan the change (role planner, model qwen2.5)",
                "turn 1 of plan: 1200 in, 300 out, 850 ms, $0.0015 so far",
                "tool write_file on plan: ok plan.md",
                "step plan blocked (attempt 1): notes must contain \"## Plan\"",
                "retrying in 1.5 s (attempt 2): 429 Too Many Requests",
                "step plan waits for a person (gate): switchyard approve run_1",
                "step plan: approved by alice",
                "step plan completed, next: build",
                "finished (completed): 3 turns, 4000 tokens in, 900 out, $0.0051",
            ]
        );
    }

    /// The status lines after each event of the script, as the live display shows them.
    #[test]
    fn status_lines_follow_the_run_and_show_a_waiting_gate_and_a_retry() {
        let mut progress = Progress::default();
        let mut seen = Vec::new();
        for event in scripted() {
            progress.apply(&event);
            seen.push(format!("{} | {}", progress.where_line(), progress.work_line()));
        }
        assert_eq!(
            seen,
            [
                "dev-cycle | 0 turns · 0 tokens",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 0 turns · 0 tokens",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 1 turn · 1.5k tokens · $0.0015",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 1 turn · 1.5k tokens · $0.0015 · last: write_file ok plan.md",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 1 turn · 1.5k tokens · $0.0015 · last: write_file ok plan.md",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 1 turn · 1.5k tokens · $0.0015 · retrying in 1.5 s (attempt 2): 429 Too Many Requests",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 1 turn · 1.5k tokens · $0.0015 · plan waits (gate): switchyard approve run_1",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 1 turn · 1.5k tokens · $0.0015 · last: write_file ok plan.md",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 1 turn · 1.5k tokens · $0.0015 · last: write_file ok plan.md",
                "dev-cycle · step 1/2 plan · planner on qwen2.5 | 3 turns · 4.9k tokens · $0.0051 · last: write_file ok plan.md",
            ]
        );
        assert_eq!(progress.ending, Some(Ending::Finished { status: "completed".into() }));
    }

    #[test]
    fn a_waiting_gate_says_who_approves_and_how_from_any_terminal() {
        let how = "switchyard approve run_1   (or: switchyard reject run_1 --reason \"…\")";
        assert_eq!(
            waiting_block("review", "gate", how),
            "  ⏸  review waits (gate): a person must approve its result.\n     switchyard approve run_1   (or: switchyard reject run_1 --reason \"…\")\n     from any terminal; this one goes on by itself once it is decided."
        );
    }

    #[test]
    fn a_pause_is_the_ending_with_how_to_resume() {
        let mut progress = Progress::default();
        progress.apply(&RunnerEvent::Paused {
            reason: PauseReason::Interrupted,
            message: "Ctrl-C".into(),
            resume: "switchyard run --resume run_1".into(),
        });
        assert_eq!(
            progress.ending,
            Some(Ending::Paused {
                reason: PauseReason::Interrupted,
                message: "Ctrl-C".into(),
                resume: "switchyard run --resume run_1".into()
            })
        );
    }

    #[test]
    fn large_counts_read_at_a_glance() {
        assert_eq!([tokens(999), tokens(12_345), tokens(2_500_000)], ["999", "12.3k", "2.5M"]);
        assert_eq!([dollars(0.0), dollars(0.01234), dollars(0.000_035)], ["$0.0000", "$0.0123", "$0.000035"]);
        assert_eq!(cut("write_file a/very/long/path", 10), "write_file…");
        assert_eq!([elapsed(6_000), elapsed(245_000), elapsed(3_723_000)], ["6.0 s", "4m 05s", "1h 02m 03s"]);
    }
}
