//! The transition table: for every (run status, command) pair, whether the engine handles the
//! command or rejects it, and with which code. `transition` consults this table before anything else;
//! a test walks every pair and checks that `transition` does what the table says.

use serde::Serialize;
use switchyard_core::state::RunStatus;

/// The kind of a [`crate::Command`], without its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CommandKind {
    Advance,
    AdvanceTo,
    Approve,
    Reject,
    Decide,
    Pause,
    Resume,
    Stop,
    Checkpoint,
}

impl CommandKind {
    pub const ALL: [CommandKind; 9] = [
        Self::Advance,
        Self::AdvanceTo,
        Self::Approve,
        Self::Reject,
        Self::Decide,
        Self::Pause,
        Self::Resume,
        Self::Stop,
        Self::Checkpoint,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Advance => "advance",
            Self::AdvanceTo => "advance_to",
            Self::Approve => "approve",
            Self::Reject => "reject",
            Self::Decide => "decide",
            Self::Pause => "pause",
            Self::Resume => "resume",
            Self::Stop => "stop",
            Self::Checkpoint => "checkpoint",
        }
    }
}

/// Why a command is refused in a status. Each maps to one [`crate::Error`] code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Rejection {
    RunStopped,
    RunPaused,
    AlreadyPaused,
    RunFinished,
    AwaitingGate,
    AwaitingHumanDecision,
    NotAtGate,
    NoDecisionPending,
    NotPaused,
}

impl Rejection {
    /// The stable error code `transition` returns for this rejection.
    pub fn code(self) -> &'static str {
        match self {
            Self::RunStopped => "RUN_STOPPED",
            Self::RunPaused => "RUN_PAUSED",
            Self::AlreadyPaused => "ALREADY_PAUSED",
            Self::RunFinished => "RUN_FINISHED",
            Self::AwaitingGate => "AWAITING_GATE",
            Self::AwaitingHumanDecision => "AWAITING_HUMAN_DECISION",
            Self::NotAtGate => "NOT_AT_GATE",
            Self::NoDecisionPending => "NO_DECISION_PENDING",
            Self::NotPaused => "NOT_PAUSED",
        }
    }
}

/// What happens to a command in a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The command is handled; the text says what it does.
    Handled(&'static str),
    /// The command is refused with this rejection; nothing is recorded.
    Rejected(Rejection),
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Row {
    pub status: RunStatus,
    pub command: CommandKind,
    pub outcome: Outcome,
}

const fn row(status: RunStatus, command: CommandKind, outcome: Outcome) -> Row {
    Row { status, command, outcome }
}

use CommandKind as C;
use Outcome::{Handled, Rejected};
use Rejection as R;
use RunStatus as S;

const ADVANCE: Outcome =
    Handled("check the advance; move along an edge, wait at the gate, or record a blocked attempt");
const ADVANCE_TO: Outcome = Handled(
    "find the edge to the named step, then check the advance as one choosing that edge; refuse when no edge leads there",
);
const APPROVE: Outcome = Handled("approve the held result and move along an edge");
const REJECT: Outcome = Handled("send the step back for a revision, or ask a human past the revision limit");
const DECIDE: Outcome = Handled("apply the human's decision");
const PAUSE: Outcome = Handled("pause the run");
const RESUME: Outcome = Handled("resume the run");
const STOP: Outcome = Handled("stop the run");
const CHECKPOINT: Outcome = Handled("record a checkpoint on the node");

/// Every (status, command) pair, exactly once.
pub static TRANSITIONS: &[Row] = &[
    // A step is pending, or its last advance was blocked and may be retried.
    row(S::Active, C::Advance, ADVANCE),
    row(S::Active, C::AdvanceTo, ADVANCE_TO),
    row(S::Active, C::Approve, Rejected(R::NotAtGate)),
    row(S::Active, C::Reject, Rejected(R::NotAtGate)),
    row(S::Active, C::Decide, Rejected(R::NoDecisionPending)),
    row(S::Active, C::Pause, PAUSE),
    row(S::Active, C::Resume, Rejected(R::NotPaused)),
    row(S::Active, C::Stop, STOP),
    row(S::Active, C::Checkpoint, CHECKPOINT),
    row(S::Blocked, C::Advance, ADVANCE),
    row(S::Blocked, C::AdvanceTo, ADVANCE_TO),
    row(S::Blocked, C::Approve, Rejected(R::NotAtGate)),
    row(S::Blocked, C::Reject, Rejected(R::NotAtGate)),
    row(S::Blocked, C::Decide, Rejected(R::NoDecisionPending)),
    row(S::Blocked, C::Pause, PAUSE),
    row(S::Blocked, C::Resume, Rejected(R::NotPaused)),
    row(S::Blocked, C::Stop, STOP),
    row(S::Blocked, C::Checkpoint, CHECKPOINT),
    // A human must approve or reject.
    row(S::WaitingGate, C::Advance, Rejected(R::AwaitingGate)),
    row(S::WaitingGate, C::AdvanceTo, Rejected(R::AwaitingGate)),
    row(S::WaitingGate, C::Approve, APPROVE),
    row(S::WaitingGate, C::Reject, REJECT),
    row(S::WaitingGate, C::Decide, Rejected(R::NoDecisionPending)),
    row(S::WaitingGate, C::Pause, PAUSE),
    row(S::WaitingGate, C::Resume, Rejected(R::NotPaused)),
    row(S::WaitingGate, C::Stop, STOP),
    row(S::WaitingGate, C::Checkpoint, CHECKPOINT),
    // A human must pick one of the offered options.
    row(S::WaitingForHumanDecision, C::Advance, Rejected(R::AwaitingHumanDecision)),
    row(S::WaitingForHumanDecision, C::AdvanceTo, Rejected(R::AwaitingHumanDecision)),
    row(S::WaitingForHumanDecision, C::Approve, Rejected(R::NotAtGate)),
    row(S::WaitingForHumanDecision, C::Reject, Rejected(R::NotAtGate)),
    row(S::WaitingForHumanDecision, C::Decide, DECIDE),
    row(S::WaitingForHumanDecision, C::Pause, PAUSE),
    row(S::WaitingForHumanDecision, C::Resume, Rejected(R::NotPaused)),
    row(S::WaitingForHumanDecision, C::Stop, STOP),
    row(S::WaitingForHumanDecision, C::Checkpoint, CHECKPOINT),
    // Run-level pause: only resume, stop and checkpoints go through.
    row(S::Paused, C::Advance, Rejected(R::RunPaused)),
    row(S::Paused, C::AdvanceTo, Rejected(R::RunPaused)),
    row(S::Paused, C::Approve, Rejected(R::RunPaused)),
    row(S::Paused, C::Reject, Rejected(R::RunPaused)),
    row(S::Paused, C::Decide, Rejected(R::RunPaused)),
    row(S::Paused, C::Pause, Rejected(R::AlreadyPaused)),
    row(S::Paused, C::Resume, RESUME),
    row(S::Paused, C::Stop, STOP),
    row(S::Paused, C::Checkpoint, CHECKPOINT),
    // Terminal statuses refuse everything.
    row(S::Completed, C::Advance, Rejected(R::RunFinished)),
    row(S::Completed, C::AdvanceTo, Rejected(R::RunFinished)),
    row(S::Completed, C::Approve, Rejected(R::RunFinished)),
    row(S::Completed, C::Reject, Rejected(R::RunFinished)),
    row(S::Completed, C::Decide, Rejected(R::RunFinished)),
    row(S::Completed, C::Pause, Rejected(R::RunFinished)),
    row(S::Completed, C::Resume, Rejected(R::RunFinished)),
    row(S::Completed, C::Stop, Rejected(R::RunFinished)),
    row(S::Completed, C::Checkpoint, Rejected(R::RunFinished)),
    row(S::Failed, C::Advance, Rejected(R::RunFinished)),
    row(S::Failed, C::AdvanceTo, Rejected(R::RunFinished)),
    row(S::Failed, C::Approve, Rejected(R::RunFinished)),
    row(S::Failed, C::Reject, Rejected(R::RunFinished)),
    row(S::Failed, C::Decide, Rejected(R::RunFinished)),
    row(S::Failed, C::Pause, Rejected(R::RunFinished)),
    row(S::Failed, C::Resume, Rejected(R::RunFinished)),
    row(S::Failed, C::Stop, Rejected(R::RunFinished)),
    row(S::Failed, C::Checkpoint, Rejected(R::RunFinished)),
    row(S::Stopped, C::Advance, Rejected(R::RunStopped)),
    row(S::Stopped, C::AdvanceTo, Rejected(R::RunStopped)),
    row(S::Stopped, C::Approve, Rejected(R::RunStopped)),
    row(S::Stopped, C::Reject, Rejected(R::RunStopped)),
    row(S::Stopped, C::Decide, Rejected(R::RunStopped)),
    row(S::Stopped, C::Pause, Rejected(R::RunStopped)),
    row(S::Stopped, C::Resume, Rejected(R::RunStopped)),
    row(S::Stopped, C::Stop, Rejected(R::RunStopped)),
    row(S::Stopped, C::Checkpoint, Rejected(R::RunStopped)),
];

/// The outcome of `command` in `status`.
pub fn outcome(status: RunStatus, command: CommandKind) -> Outcome {
    TRANSITIONS
        .iter()
        .find(|transition| transition.status == status && transition.command == command)
        .map(|transition| transition.outcome)
        // The table test checks every pair is present; a missing row would be refused, never run.
        .unwrap_or(Rejected(R::RunFinished))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_appears_exactly_once() {
        for status in RunStatus::ALL {
            for command in CommandKind::ALL {
                let rows = TRANSITIONS.iter().filter(|t| t.status == status && t.command == command).count();
                assert_eq!(rows, 1, "({status}, {}) appears {rows} times", command.as_str());
            }
        }
        assert_eq!(TRANSITIONS.len(), RunStatus::ALL.len() * CommandKind::ALL.len());
    }

    #[test]
    fn terminal_statuses_handle_nothing() {
        for transition in TRANSITIONS.iter().filter(|t| t.status.is_terminal()) {
            assert!(matches!(transition.outcome, Rejected(_)), "{transition:?}");
        }
    }
}
