//! What the runtime answers: the views every door renders in its own wire format.

use serde::Serialize;
use switchyard_core::evidence::EvidenceResult;
use switchyard_core::state::Phase;
use switchyard_core::state::{DecisionOption, DecisionReason, DowngradedFinding, Validation, ValidationIssue};
use switchyard_core::why::Why;
use switchyard_core::workflow::StepId;
use switchyard_core::{Control, NodeId, NodeState, RunId, RunStatus, SessionId, WorkflowHash};
use switchyard_engine::PendingStep;

use crate::context::RunContext;
use crate::report_template::ReportTemplate;

/// What the caller should do next, in one word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseKind {
    /// A step is pending: do it and advance with the continue token.
    Ok,
    /// The last advance failed its checks: fix what `validation` says and retry with the token.
    Blocked,
    /// A human must approve or reject the step's result.
    WaitingGate,
    /// A limit was reached: a human must pick one of `decision.options`.
    WaitingForHumanDecision,
    Complete,
    Failed,
    Paused,
    Stopped,
}

impl ResponseKind {
    pub fn from_status(status: RunStatus) -> Self {
        match status {
            RunStatus::Active => Self::Ok,
            RunStatus::Blocked => Self::Blocked,
            RunStatus::WaitingGate => Self::WaitingGate,
            RunStatus::WaitingForHumanDecision => Self::WaitingForHumanDecision,
            RunStatus::Completed => Self::Complete,
            RunStatus::Failed => Self::Failed,
            RunStatus::Paused => Self::Paused,
            RunStatus::Stopped => Self::Stopped,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkflowRef {
    pub id: String,
    pub hash: WorkflowHash,
}

/// Tokens for acting on the node the response is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Tokens {
    /// `ct_…`: advance (or retry) this step. Present while the agent has work.
    pub continue_token: Option<String>,
    /// `ck_…`: record a checkpoint here without advancing.
    pub checkpoint_token: Option<String>,
    /// `st_…`: look at or resume from this node later.
    pub state_token: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateView {
    pub step: StepId,
    pub title: String,
    /// The edge the agent chose, applied on approval.
    pub choice: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DecisionView {
    pub reason: DecisionReason,
    pub options: Vec<DecisionOption>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FailureView {
    pub code: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Progress {
    pub steps_completed: u64,
    pub cycle: u32,
    pub attempts: u32,
    pub revisions: u32,
    pub replans: u32,
}

/// The answer to every command that acts on a run (`start`, `advance`, `show`, the gates and
/// controls): where the run stands, what to do next, and the tokens to do it with.
///
/// Read `kind` first: [`ResponseKind::Ok`] and [`ResponseKind::Blocked`] come with a `step` and
/// a continue token; [`ResponseKind::WaitingGate`] with `gate`, for a human's
/// `Runtime::approve` or `Runtime::reject`; a finished run with neither.
/// The `--json` output of the CLI is this type serialised.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepResponse {
    /// What the caller should do next.
    pub kind: ResponseKind,
    /// The run's status as the store records it.
    pub status: RunStatus,
    pub session: SessionId,
    pub run: RunId,
    /// The node this answer is about: the run's new tip after a command that moved it.
    pub node: NodeId,
    /// The workflow the run is pinned to, by id and hash.
    pub workflow: WorkflowRef,
    /// The step the agent should do now (active or blocked runs).
    pub step: Option<PendingStep>,
    /// The report on `step` to send with the continue token, with `<fill in: …>` placeholders:
    /// the next call a door shows is one that succeeds once they are filled in.
    pub report: Option<ReportTemplate>,
    pub tokens: Tokens,
    /// This call started a new branch: the node acted on already had a child.
    pub forked: bool,
    /// This call had already been made: the recorded result is returned and nothing advanced.
    pub replayed: bool,
    /// What was wrong with the last advance, when it was blocked.
    pub validation: Option<Validation>,
    /// The step whose result waits for a human, when one does.
    pub gate: Option<GateView>,
    /// The options a human must choose from, when a limit was reached.
    pub decision: Option<DecisionView>,
    /// Why the run failed, when it did.
    pub failure: Option<FailureView>,
    /// Counters: steps completed, cycles, attempts, revisions, replans.
    pub progress: Progress,
    /// What this advance's status report did not block on; absent when nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_warnings: Option<ReportWarnings>,
    /// What switchyard observed in this call, check by check, with each verdict: the reported
    /// step's `evidence`, or the command of the last step switchyard ran itself; absent when
    /// there was none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<EvidenceResult>,
    /// Why the run went where it went in this call: the conditions and checks evaluated and the
    /// rule that decided; absent when there was nothing to decide.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why: Option<Why>,
}

/// An advance's status report warnings (missing extended fields) and its audit findings
/// downgraded below the run's threshold, as recorded in the `report_warned` event.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportWarnings {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<ValidationIssue>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub downgraded: Vec<DowngradedFinding>,
}

/// The answer to a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckpointResponse {
    pub session: SessionId,
    pub run: RunId,
    pub node: NodeId,
    pub replayed: bool,
}

/// The answer to a command at `node` of `context`'s run, in the state `state`, with `tokens`.
pub(crate) fn respond(
    context: &RunContext,
    node: NodeId,
    state: &NodeState,
    control: Control,
    tokens: Tokens,
    flags: Flags,
) -> StepResponse {
    let status = match control {
        Control::Stopped if !state.status().is_terminal() => RunStatus::Stopped,
        Control::Paused if !state.status().is_terminal() => RunStatus::Paused,
        _ => state.status(),
    };
    let workflow = &context.workflow;
    let step = context.pending(state);
    let title = workflow.workflow.step(&state.step).map(|step| step.title.clone()).unwrap_or_default();
    let (validation, gate, decision, failure) = match &state.phase {
        // A stopped run waits for nobody: offering its open gate or decision would read as if
        // a human still had to act (or, after `decide … stop`, as if that happened again).
        Phase::WaitingGate { .. } | Phase::WaitingForHumanDecision { .. } if status == RunStatus::Stopped => {
            (None, None, None, None)
        }
        Phase::Pending | Phase::Completed => (None, None, None, None),
        Phase::Blocked { validation } => (Some(validation.clone()), None, None, None),
        Phase::WaitingGate { submission } => {
            (None, Some(GateView { step: state.step.clone(), title, choice: submission.choice.clone() }), None, None)
        }
        Phase::WaitingForHumanDecision { reason, options, .. } => {
            (None, None, Some(DecisionView { reason: *reason, options: options.clone() }), None)
        }
        Phase::Failed { code, message } => {
            (None, None, None, Some(FailureView { code: code.as_str().to_owned(), message: message.clone() }))
        }
    };
    StepResponse {
        kind: ResponseKind::from_status(status),
        status,
        session: context.run.session,
        run: context.run.id,
        node,
        workflow: WorkflowRef { id: workflow.workflow.id.clone(), hash: workflow.hash },
        report: step.as_ref().map(ReportTemplate::for_step),
        step,
        tokens,
        forked: flags.forked,
        replayed: flags.replayed,
        validation,
        gate,
        decision,
        failure,
        report_warnings: None,
        evidence: Vec::new(),
        why: None,
        progress: Progress {
            steps_completed: state.counters.steps_completed,
            cycle: state.counters.cycles,
            attempts: state.counters.attempts,
            revisions: state.counters.revisions,
            replans: state.counters.replans,
        },
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Flags {
    pub(crate) forked: bool,
    pub(crate) replayed: bool,
}
