//! What the runner tells whoever watches a run it drives: the CLI's live display, its plain lines
//! and its `--json` stream are all drawn from these. Serialised, they are the `--json` stream
//! (one object per line, `{"event": "<name>", ...}`), a stable interface.
//!
//! No event carries a token, an API key or a request body.

use serde::Serialize;

/// One thing that happened while driving a run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RunnerEvent {
    /// The runner holds the run: started now, or picked up at its tip.
    RunStarted { run: String, session: String, workflow: String, resumed: bool },
    /// A step begins: its place in the workflow (`index` of `total` when the workflow is a line,
    /// `None` in a graph), its role and the model that works it.
    StepStarted {
        step: String,
        title: String,
        index: Option<u32>,
        total: Option<u32>,
        role: Option<String>,
        model: String,
    },
    /// One request to the model came back.
    Turn {
        step: String,
        turn: u32,
        prompt_tokens: u64,
        completion_tokens: u64,
        /// The server reported no token counts: they are the runner's estimate.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        tokens_estimated: bool,
        latency_ms: u64,
        /// Cost so far for the whole run, in US dollars, when the model has prices.
        cost_usd: Option<f64>,
    },
    /// The model called a tool; `ok` is false when the call was refused or failed.
    ToolCalled { step: String, tool: String, ok: bool, summary: String },
    /// The model's `complete_step` was blocked by the step's checks; it may try again.
    StepBlocked { step: String, attempt: u32, reason: String },
    /// The step was accepted and the run moved on.
    StepCompleted { step: String, next: Option<String> },
    /// A request failed and will be sent again after `delay_ms`.
    Retrying { attempt: u32, delay_ms: u64, reason: String },
    /// The run waits for a person; `how` says what to type, from any terminal.
    WaitingForHuman { step: String, kind: String, how: String },
    /// A person (or `--auto-approve`) decided; the runner goes on.
    HumanDecided { step: String, decision: String, by: String },
    /// The runner stopped driving; the run is paused and resumes with `switchyard run --resume`.
    Paused { reason: PauseReason, message: String, resume: String },
    /// What this drive of the run did, told once just before `finished` or `paused`.
    Summary(RunSummary),
    /// The run reached its end.
    Finished { status: String, turns: u32, prompt_tokens: u64, completion_tokens: u64, cost_usd: Option<f64> },
}

/// Why the runner stopped before the run's end.
///
/// A run that needs a person is no reason to stop: at a gate, or past a revision or replan limit
/// (a decision), the runner waits for the person on the store's change feed and goes on
/// (`waiting_for_human`, `human_decided`); a step whose attempts run out fails the run by the
/// engine's rule, which ends the drive as `finished`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PauseReason {
    /// Ctrl-C.
    Interrupted,
    /// The server refused the key (401/403) or does not know the model.
    ModelRefused,
    /// Retries of a failing server ran out.
    ModelUnavailable,
    /// The server refused the request for a reason other than the key or the model (its tool
    /// calling is off, a message it will not take): the message names its words and a fix.
    RequestRejected,
    /// The server refused the request as longer than the model's context window, and trimming
    /// the conversation left nothing more to take out.
    ContextFull,
    /// Turn, token or time limit of the run or the step.
    LimitReached,
    /// The same call repeated, or turns without progress.
    Stuck,
    /// Too many malformed or unknown tool calls, or text instead of a tool call.
    ToolErrors,
    /// Someone paused the run from elsewhere (`switchyard pause`, another door) while it was
    /// driven.
    PausedElsewhere,
}

impl PauseReason {
    /// The reason's name, as the `--json` stream and the run's pause reason write it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Interrupted => "interrupted",
            Self::ModelRefused => "model_refused",
            Self::ModelUnavailable => "model_unavailable",
            Self::RequestRejected => "request_rejected",
            Self::ContextFull => "context_full",
            Self::LimitReached => "limit_reached",
            Self::Stuck => "stuck",
            Self::ToolErrors => "tool_errors",
            Self::PausedElsewhere => "paused_elsewhere",
        }
    }
}

/// The metrics of one drive of a run: what it asked, what the model did, what it cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunSummary {
    pub turns: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Some turns' token counts are estimates: their server reported none.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub tokens_estimated: bool,
    /// In US dollars, when every model used has prices.
    pub cost_usd: Option<f64>,
    pub tool_calls: u32,
    /// Calls refused as malformed or unknown, and answers without a tool call.
    pub tool_errors: u32,
    /// Calls the file door refused as security violations.
    pub violations: u32,
    /// `complete_step` calls the step's checks blocked.
    pub blocked_attempts: u32,
    pub steps_completed: u32,
    /// Time spent on tool calls, in milliseconds.
    pub tool_call_ms: u64,
    /// From the start of the drive, waiting for people included.
    pub elapsed_ms: u64,
}
