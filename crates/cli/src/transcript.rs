//! `switchyard transcript run_…`: what the model saw and did in a run the runner drove, per step
//! and turn, read back from the run's `model_turn` events (`Runtime::transcript`).

use clap::Args;
use serde::Serialize;
use switchyard_config::Overrides;
use switchyard_core::turn::ModelTurn;
use switchyard_runtime::{RecordedTurn, Runtime};

use crate::output::{Failure, Outcome, Printer};

/// The most characters of a tool's answer or a message the text shows; `--json` has them whole
/// (as recorded, itself bounded).
const SHOWN_CHARACTERS: usize = 600;

/// `switchyard transcript`'s arguments; `--json` is the global one.
#[derive(Debug, Args)]
pub struct TranscriptArgs {
    /// A run or session id.
    pub run: String,
    /// Only this step's turns.
    #[arg(long, value_name = "STEP")]
    pub step: Option<String>,
}

#[derive(Serialize)]
struct Transcript<'a> {
    run: String,
    turns: Vec<JsonTurn<'a>>,
}

#[derive(Serialize)]
struct JsonTurn<'a> {
    seq: u64,
    at_ms: i64,
    #[serde(flatten)]
    turn: &'a ModelTurn,
}

pub async fn run(printer: &Printer, overrides: Overrides, args: &TranscriptArgs) -> Result<Outcome, Failure> {
    let config = crate::opened::resolve(overrides)?;
    let runtime = Runtime::open(&config).await?;
    let run = crate::named::run_id(&runtime, &args.run).await?;
    let recorded = runtime.transcript(run).await?;
    let turns: Vec<&RecordedTurn> = match &args.step {
        Some(step) => {
            let chosen: Vec<&RecordedTurn> =
                recorded.iter().filter(|recorded| recorded.turn.step.as_str() == step).collect();
            if chosen.is_empty() && !recorded.is_empty() {
                let mut steps: Vec<&str> = recorded.iter().map(|recorded| recorded.turn.step.as_str()).collect();
                steps.dedup();
                return Err(Failure::usage(format!(
                    "run {run} has no turns on step `{step}`; the steps with turns: {}",
                    steps.join(", ")
                )));
            }
            chosen
        }
        None => recorded.iter().collect(),
    };
    if printer.json {
        let turns =
            turns.iter().map(|recorded| JsonTurn { seq: recorded.seq, at_ms: recorded.at_ms, turn: &recorded.turn });
        printer.json(&Transcript { run: run.to_string(), turns: turns.collect() })?;
        return Ok(Outcome::Success);
    }
    if turns.is_empty() {
        printer.line(&format!(
            "run {run} has no model turns: no runner has driven it (`switchyard run --resume {run}` would)"
        ))?;
        return Ok(Outcome::Success);
    }
    printer.line(&render(printer, &turns))?;
    Ok(Outcome::Success)
}

/// The turns as a person reads them: a heading per step, then each turn's figures, what was new
/// in its request, what the model answered and what its tools returned.
fn render(printer: &Printer, turns: &[&RecordedTurn]) -> String {
    let mut text = String::new();
    let mut step = None;
    for recorded in turns {
        let turn = &recorded.turn;
        if step != Some(&turn.step) {
            step = Some(&turn.step);
            text.push_str(&format!("\n{}\n", printer.bold(&format!("step {}", turn.step))));
        }
        let cost = turn.cost_usd.map(|cost| format!(" · {}", crate::run_display::dollars(cost))).unwrap_or_default();
        text.push_str(&format!(
            "\n  {} · {} · {} in / {} out · {} ms{cost} · {} messages, {} tools{}{}\n",
            printer.bold(&format!("turn {}", turn.turn)),
            turn.model,
            turn.usage.prompt_tokens,
            turn.usage.completion_tokens,
            turn.latency_ms,
            turn.request.messages,
            turn.request.tools,
            if turn.request.fresh { " · fresh conversation" } else { "" },
            match turn.request.trimmed {
                0 => String::new(),
                trimmed => format!(" · {trimmed} old tool answers trimmed"),
            },
        ));
        for message in &turn.request.new_messages {
            let shown = match message.role.as_str() {
                "system" => system_summary(&message.content),
                _ => bounded(&message.content),
            };
            text.push_str(&indented(&format!("{}: {shown}", message.role)));
        }
        if let Some(said) = turn.response.text.as_deref().filter(|said| !said.trim().is_empty()) {
            text.push_str(&indented(&format!("assistant: {}", bounded(said))));
        }
        for call in &turn.response.tool_calls {
            text.push_str(&indented(&format!("→ {} {}", call.name, bounded(&call.arguments))));
        }
        for result in &turn.tool_results {
            let mark = if result.ok { "ok" } else { "refused" };
            text.push_str(&indented(&format!(
                "← {} {mark} ({} µs): {}",
                result.name,
                result.micros,
                bounded(&result.content)
            )));
        }
    }
    text.trim_start_matches('\n').trim_end().to_owned()
}

/// What the runner's turns on a run add up to, for `switchyard status`: read from the same
/// recorded turns as the transcript, so they count every drive of the run, by any process.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunnerMetrics {
    pub turns: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// In US dollars, when every turn had a price.
    pub cost_usd: Option<f64>,
    pub tool_calls: u32,
    /// Tool calls refused, failed or blocked (a `complete_step` its checks blocked included).
    pub tool_calls_refused: u32,
    /// Time in tools, in milliseconds.
    pub tool_call_ms: u64,
    /// Time waiting for the model, in milliseconds.
    pub model_ms: u64,
    /// `complete_step` calls the run accepted.
    pub steps_completed: u32,
}

/// `switchyard status --json`: the run record, with `runner` when a runner drove the run.
#[derive(Debug, Serialize)]
pub struct StatusWithRunner<'a> {
    #[serde(flatten)]
    pub run: &'a switchyard_store::RunRecord,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner: Option<RunnerMetrics>,
    /// With `--why`: the decisions that brought the run to its tip, oldest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<Vec<switchyard_runtime::Decision>>,
}

/// The metrics of a run's turns; `None` when no runner drove it.
pub fn metrics(turns: &[RecordedTurn]) -> Option<RunnerMetrics> {
    if turns.is_empty() {
        return None;
    }
    let results = || turns.iter().flat_map(|recorded| &recorded.turn.tool_results);
    let count = |iterator: &mut dyn Iterator<Item = _>| u32::try_from(iterator.count()).unwrap_or(u32::MAX);
    Some(RunnerMetrics {
        turns: u32::try_from(turns.len()).unwrap_or(u32::MAX),
        prompt_tokens: turns.iter().map(|recorded| recorded.turn.usage.prompt_tokens).sum(),
        completion_tokens: turns.iter().map(|recorded| recorded.turn.usage.completion_tokens).sum(),
        cost_usd: turns.iter().map(|recorded| recorded.turn.cost_usd).sum(),
        tool_calls: count(&mut results()),
        tool_calls_refused: count(&mut results().filter(|result| !result.ok)),
        tool_call_ms: results().map(|result| result.micros).sum::<u64>() / 1000,
        model_ms: turns.iter().map(|recorded| recorded.turn.latency_ms).sum(),
        steps_completed: count(&mut results().filter(|result| result.ok && result.name == "complete_step")),
    })
}

impl RunnerMetrics {
    /// The metrics in a line, as `switchyard status` shows them.
    pub fn line(&self) -> String {
        let cost = self.cost_usd.map(|cost| format!(" · {}", crate::run_display::dollars(cost))).unwrap_or_default();
        format!(
            "{} turns · {} tokens{cost} · {} tool calls ({} refused, {} in tools) · {} waiting for the model · {} steps completed",
            self.turns,
            crate::run_display::tokens(self.prompt_tokens + self.completion_tokens),
            self.tool_calls,
            self.tool_calls_refused,
            crate::run_display::elapsed(self.tool_call_ms),
            crate::run_display::elapsed(self.model_ms),
            self.steps_completed,
        )
    }
}

/// A system prompt in a line: its first line and how long it is (`--json` has it whole).
fn system_summary(prompt: &str) -> String {
    let first = prompt.lines().next().unwrap_or_default();
    format!("{first} [{} lines, {} bytes]", prompt.lines().count(), prompt.len())
}

fn bounded(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(SHOWN_CHARACTERS) {
        Some((at, _)) => format!("{}… [{} more bytes]", &text[..at], text.len() - at),
        None => text.to_owned(),
    }
}

/// A block under a turn: four spaces before its first line, six before the others.
fn indented(block: &str) -> String {
    let mut lines = block.lines();
    let mut text = format!("    {}\n", lines.next().unwrap_or_default());
    for line in lines {
        text.push_str(format!("      {line}").trim_end());
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_system_prompt_shows_as_its_first_line_and_size() {
        assert_eq!(system_summary("You drive a step.\nMore.\n"), "You drive a step. [2 lines, 24 bytes]");
    }

    #[test]
    fn long_texts_are_cut_with_what_was_left_out() {
        let long = "x".repeat(SHOWN_CHARACTERS + 10);
        assert_eq!(bounded(&long), format!("{}… [10 more bytes]", "x".repeat(SHOWN_CHARACTERS)));
        assert_eq!(indented("a\nb"), "    a\n      b\n");
    }
}
