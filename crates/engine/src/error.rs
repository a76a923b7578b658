//! `engine::Error`: why the engine refused a command. Nothing is recorded for any of these.
//!
//! Every variant has a stable code (`Error::code`) that doors and agents react to, and a message
//! that names what was wrong and what to do instead.

use switchyard_core::state::{DecisionOption, RunStatus, ValidationIssue};

/// A command the engine refused, or a workflow it cannot load.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("the run is stopped: nothing more can happen in it; start a new run to continue the work")]
    RunStopped,
    #[error("the run is paused: {command} is not accepted until a human resumes it (`switchyard resume`)")]
    RunPaused { command: &'static str },
    #[error("the run is already paused: resume it first if you want to pause it again with a new reason")]
    AlreadyPaused,
    #[error("the run is {status}: it cannot change any more; start a new run or act on another branch")]
    RunFinished { status: RunStatus },
    #[error(
        "the step's result waits for a human at a gate: wait until it is approved or rejected, then continue with the token you get"
    )]
    AwaitingGate,
    #[error("the run waits for a human decision ({options}): a human must decide before the agent can continue")]
    AwaitingHumanDecision { options: String },
    #[error("the run is {status}, not waiting at a gate: there is nothing to approve or reject")]
    NotAtGate { status: RunStatus },
    #[error("the run is {status}, not waiting for a human decision: there is nothing to decide")]
    NoDecisionPending { status: RunStatus },
    #[error("option `{option}` is not offered here: choose one of {offered}")]
    OptionNotOffered { option: &'static str, offered: String },
    #[error("the run is not paused: there is nothing to resume")]
    NotPaused,
    #[error("{what} is {size} {unit}, over the limit {limit} = {max} {unit}: send less and retry")]
    InputTooLarge { what: &'static str, limit: &'static str, unit: &'static str, size: usize, max: usize },
    #[error("the initial context does not fit the workflow's variables: {}", summarize(issues))]
    InvalidContext { issues: Vec<ValidationIssue> },
    #[error("workflow `{workflow}` cannot be loaded: {message}; fix the workflow and compile it again")]
    InvalidWorkflow { workflow: String, message: String },
    #[error(
        "the node is at step `{step}`, which workflow `{workflow}` does not have: the run's history does not fit its pinned workflow"
    )]
    UnknownStep { workflow: String, step: String },
    #[error("cannot advance from step `{step}` to {target}: {reason}; allowed next: {allowed}")]
    NoEdgeToStep { step: String, target: String, reason: String, allowed: String },
    #[error(
        "step `{step}` declares {checks} evidence check(s) but the advance brought {observed} observation(s): evidence is gathered by the runtime, so advance through it"
    )]
    EvidenceNotGathered { step: String, checks: usize, observed: usize },
    #[error(
        "step `{step}` is run by switchyard itself: its report is its command's, so send nothing with its token (notes, artifacts, context or a choice); switchyard runs the command and moves on"
    )]
    RunStepReported { step: String },
}

impl Error {
    /// The stable code of the error, in SCREAMING_SNAKE_CASE.
    pub fn code(&self) -> &'static str {
        match self {
            Self::RunStopped => "RUN_STOPPED",
            Self::RunPaused { .. } => "RUN_PAUSED",
            Self::AlreadyPaused => "ALREADY_PAUSED",
            Self::RunFinished { .. } => "RUN_FINISHED",
            Self::AwaitingGate => "AWAITING_GATE",
            Self::AwaitingHumanDecision { .. } => "AWAITING_HUMAN_DECISION",
            Self::NotAtGate { .. } => "NOT_AT_GATE",
            Self::NoDecisionPending { .. } => "NO_DECISION_PENDING",
            Self::OptionNotOffered { .. } => "OPTION_NOT_OFFERED",
            Self::NotPaused => "NOT_PAUSED",
            Self::InputTooLarge { .. } => "INPUT_TOO_LARGE",
            Self::InvalidContext { .. } => "INVALID_CONTEXT",
            Self::InvalidWorkflow { .. } => "INVALID_WORKFLOW",
            Self::UnknownStep { .. } => "UNKNOWN_STEP",
            Self::NoEdgeToStep { .. } => "NO_EDGE_TO_STEP",
            Self::EvidenceNotGathered { .. } => "EVIDENCE_NOT_GATHERED",
            Self::RunStepReported { .. } => "RUN_STEP_REPORTED",
        }
    }

    /// Whether the same command may succeed later without changing it (a human may act first).
    pub fn retryable(&self) -> bool {
        matches!(self, Self::AwaitingGate | Self::AwaitingHumanDecision { .. } | Self::RunPaused { .. })
    }
}

pub(crate) fn list_options(options: &[DecisionOption]) -> String {
    let names: Vec<String> = options.iter().map(|option| format!("`{}`", option.as_str())).collect();
    names.join(", ")
}

fn summarize(issues: &[ValidationIssue]) -> String {
    let parts: Vec<String> =
        issues.iter().map(|issue| format!("{} at {}: {}", issue.code, issue.path, issue.message)).collect();
    parts.join("; ")
}
