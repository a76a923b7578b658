//! Run state: the immutable engine state a node holds, and the statuses doors show.
//!
//! A run is a graph of nodes. Every node is one engine state, created by one command and never
//! changed afterwards; acting on a node creates a child. Acting on a node that already has a
//! child forks the run. Pause and stop are run-level [`Control`], not node state, so they apply
//! to every branch.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::evidence::Snapshot;
use crate::workflow::StepId;

/// The status a door shows for a run (or for one node).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    /// A step is pending; the agent should do it and advance.
    Active,
    /// The step's result waits for a human to approve or reject it.
    WaitingGate,
    /// The last advance failed its checks; the agent may retry with the retry token.
    Blocked,
    Paused,
    /// A limit was reached; a human must pick one of the offered options.
    WaitingForHumanDecision,
    Completed,
    Stopped,
    Failed,
}

impl RunStatus {
    pub const ALL: [RunStatus; 8] = [
        Self::Active,
        Self::WaitingGate,
        Self::Blocked,
        Self::Paused,
        Self::WaitingForHumanDecision,
        Self::Completed,
        Self::Stopped,
        Self::Failed,
    ];

    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Stopped | Self::Failed)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Active => "active",
            Self::WaitingGate => "waiting_gate",
            Self::Blocked => "blocked",
            Self::Paused => "paused",
            Self::WaitingForHumanDecision => "waiting_for_human_decision",
            Self::Completed => "completed",
            Self::Stopped => "stopped",
            Self::Failed => "failed",
        }
    }
}

impl std::fmt::Display for RunStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for RunStatus {
    type Err = String;

    fn from_str(input: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|status| status.as_str() == input).ok_or_else(|| format!("unknown status `{input}`"))
    }
}

/// Run-level control, set by humans and applying to every branch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Control {
    #[default]
    Running,
    Paused,
    Stopped,
}

impl Control {
    /// The serde name: `running`, `paused`, `stopped`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Paused => "paused",
            Self::Stopped => "stopped",
        }
    }
}

/// What created a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// The run's first node.
    Start,
    /// An accepted advance moved to a new step (or completed the run).
    Step,
    /// An advance failed its checks.
    BlockedAttempt,
    /// An advance of a gated step, now waiting for a human.
    Gate,
    /// A human approved, rejected or decided.
    Decision,
}

/// One immutable engine state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct NodeState {
    /// The step this node is about: the pending step, the gated step, or the step a run ended on.
    pub step: StepId,
    pub phase: Phase,
    /// Run context of this branch.
    pub context: serde_json::Map<String, serde_json::Value>,
    pub counters: Counters,
    /// The reason of the gate rejection that sent the run back to this step, shown to the agent.
    pub rejection: Option<String>,
    /// The workspace as it was when the step was first handed out, for a step whose evidence
    /// compares with it; carried unchanged to the nodes of its retries and rejections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<Snapshot>,
}

impl NodeState {
    pub fn status(&self) -> RunStatus {
        match self.phase {
            Phase::Pending => RunStatus::Active,
            Phase::Blocked { .. } => RunStatus::Blocked,
            Phase::WaitingGate { .. } => RunStatus::WaitingGate,
            Phase::WaitingForHumanDecision { .. } => RunStatus::WaitingForHumanDecision,
            Phase::Completed => RunStatus::Completed,
            Phase::Failed { .. } => RunStatus::Failed,
        }
    }
}

/// What a node waits for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Phase {
    /// The step is pending.
    Pending,
    /// The last advance of the step failed its checks and may be retried.
    Blocked {
        validation: Validation,
    },
    /// The step's accepted result waits for a human.
    WaitingGate {
        submission: Submission,
    },
    /// A limit was reached; one of `options` must be chosen by a human.
    WaitingForHumanDecision {
        reason: DecisionReason,
        options: Vec<DecisionOption>,
        submission: Submission,
    },
    Completed,
    Failed {
        code: FailureCode,
        message: String,
    },
}

/// A result the agent submitted that is held until a human acts on it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Submission {
    pub choice: Option<String>,
    /// The artifacts sent with the result, kept so conditions see them when a human acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<serde_json::Value>,
}

/// The outcome of checking an advance against the step's contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Validation {
    pub issues: Vec<ValidationIssue>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct ValidationIssue {
    /// Stable code, e.g. `NOTES_REQUIRED`, `OUTPUT_SCHEMA`, `UNKNOWN_CHOICE`, `CONTEXT_TYPE`.
    pub code: String,
    /// JSON pointer into what was sent (`/artifacts/score`), or the argument name.
    pub path: String,
    pub message: String,
}

/// How a run checks status reports and gates audits, fixed when the run starts (the runtime
/// records it in `RunStarted`), so a later change of configuration never changes a running
/// run's decisions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct ReportPolicy {
    /// A blocked audit finding blocks the advance only at this confidence or above (and when
    /// validated); below, it is downgraded to a warning.
    pub audit_min_confidence: f64,
    /// Every status report of the run is checked strictly, whatever its step says.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub strict_status: bool,
}

impl ReportPolicy {
    /// The threshold of `[audit] audit_min_confidence` when nothing sets it.
    pub const DEFAULT_MIN_CONFIDENCE: f64 = 0.8;
}

impl Default for ReportPolicy {
    fn default() -> Self {
        Self { audit_min_confidence: Self::DEFAULT_MIN_CONFIDENCE, strict_status: false }
    }
}

/// A blocked audit finding that did not block: it was below the run's threshold or not
/// validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct DowngradedFinding {
    /// JSON pointer of the finding in what was sent (`/artifacts`, `/artifacts/findings/2`).
    pub path: String,
    pub summary: String,
    pub confidence: f64,
    pub validated: bool,
    /// The run's threshold the finding was measured against.
    pub min_confidence: f64,
}

/// Why a run waits for a human decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionReason {
    /// The step's gate was rejected more than `max_revision_attempts` times.
    RevisionLimit,
    /// Replan edges were taken more than `max_replan_attempts` times.
    ReplanLimit,
}

/// An option offered to the human at a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DecisionOption {
    /// Accept the step's result as it is and move on.
    Accept,
    /// Allow one more revision of the step.
    Revise,
    /// Allow one more replan: take the replan edge.
    Replan,
    /// Move on without replanning: take the step's default (or only non-replan) edge.
    Proceed,
    /// Stop the run.
    Stop,
}

impl DecisionOption {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Revise => "revise",
            Self::Replan => "replan",
            Self::Proceed => "proceed",
            Self::Stop => "stop",
        }
    }
}

/// Stable codes for a failed run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum FailureCode {
    /// A loop edge was taken more than `max_cycles` times.
    MaxCyclesExceeded,
    /// The step failed its checks `max_attempts` times.
    AttemptsExhausted,
    /// No edge could be taken: every candidate was exhausted or no condition matched.
    NoEligibleEdge,
    /// A condition could not be evaluated.
    ConditionError,
}

impl FailureCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::MaxCyclesExceeded => "MAX_CYCLES_EXCEEDED",
            Self::AttemptsExhausted => "ATTEMPTS_EXHAUSTED",
            Self::NoEligibleEdge => "NO_ELIGIBLE_EDGE",
            Self::ConditionError => "CONDITION_ERROR",
        }
    }
}

/// Counters of one branch. All of them only grow along a branch, except the per-step ones
/// (`attempts`, `revisions`), which restart when the run moves to another step.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Counters {
    /// Steps accepted so far in this branch (progress; never decreases).
    pub steps_completed: u64,
    /// Failed attempts at the current step.
    pub attempts: u32,
    /// Gate rejections of the current step since it was last approved.
    pub revisions: u32,
    /// Replan edges taken in this branch.
    pub replans: u32,
    /// Loop edges taken in this branch.
    pub cycles: u32,
    /// Traversals of bounded edges, keyed `"<from step>/<label>"`.
    pub traversals: BTreeMap<String, u32>,
    /// Steps skipped (their run condition was false) on the way into the current step, in
    /// order; empty when none was, and then absent from the encoding.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<StepId>,
}
