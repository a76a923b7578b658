//! Domain events: the facts a command produces. The store assigns sequence numbers and hashes
//! and keeps its own versioned wire form; these types are what the engine speaks.

use serde::{Deserialize, Serialize};

use crate::evidence::{EvidenceResult, ProjectCommands};
use crate::id::{AttemptId, NodeId, RunId};
use crate::state::{DecisionOption, DowngradedFinding, NodeKind, NodeState, ReportPolicy, RunStatus, ValidationIssue};
use crate::turn::ModelTurn;
use crate::why::Why;
use crate::workflow::{StepId, WorkflowHash};

/// One fact about a session, with the run and node it concerns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Event {
    pub run: Option<RunId>,
    pub kind: EventKind,
}

/// How a node came to be relative to its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeCause {
    /// The first node of a run.
    Start,
    /// The parent was the tip of its branch.
    Advance,
    /// The parent already had a child: this starts a new branch.
    Fork,
}

/// A file a run's workflow refers to (its own file, instructions, step files, templates,
/// invoked workflows, …): a path relative to the workflow's folder or bundle, or one starting
/// with a path variable (`{project-root}/…`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkflowFile {
    pub path: String,
    /// Used only on some branches (an invoked workflow, an elicitation task).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub conditional: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum EventKind {
    SessionCreated {
        goal: String,
        title: String,
        workspace: Option<String>,
        git_branch: Option<String>,
        git_head: Option<String>,
    },
    RunStarted {
        workflow_id: String,
        workflow_hash: WorkflowHash,
        /// Where the workflow was found (`builtin`, `project:<path>`, `user:<path>`, `file:<path>`).
        source: String,
        /// The files the workflow refers to, as its source listed them at start. Absent from
        /// runs started before it was recorded, and when there are none.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        references: Vec<WorkflowFile>,
        /// How the run checks status reports and gates audits. Recorded only for workflows
        /// with a status report or an audit step (or a run started with strict status reports);
        /// absent, the defaults of [`ReportPolicy`] apply.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        report_policy: Option<ReportPolicy>,
        /// The project commands the workflow runs (`run: {project: test_command}`) as
        /// `switchyard.toml` set them when the run started; absent when none was set.
        #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        project_commands: ProjectCommands,
    },
    NodeCreated {
        node: NodeId,
        parent: Option<NodeId>,
        kind: NodeKind,
        cause: NodeCause,
        status: RunStatus,
        step: StepId,
        state: NodeState,
    },
    /// The agent's report on a node: what it sent, whichever way it went.
    AdvanceRecorded {
        from: NodeId,
        attempt: AttemptId,
        to: NodeId,
        notes: Option<String>,
        artifacts: Option<serde_json::Value>,
        context_delta: Option<serde_json::Map<String, serde_json::Value>>,
        choice: Option<String>,
        /// The edge taken, if the advance moved the run on.
        edge_label: Option<String>,
    },
    /// What an advance's status report did not block on: missing extended fields and audit
    /// findings downgraded below the run's threshold. Follows the `AdvanceRecorded` it is about.
    ReportWarned {
        /// The node the advance created.
        node: NodeId,
        step: StepId,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<ValidationIssue>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        downgraded: Vec<DowngradedFinding>,
    },
    /// What switchyard observed of a step's work and its verdict, check by check: the evidence
    /// of an advance, passed or not. Follows the `AdvanceRecorded` it is about.
    EvidenceRecorded {
        /// The node the advance created.
        node: NodeId,
        step: StepId,
        results: Vec<EvidenceResult>,
    },
    /// Why the run went where it went: the conditions and checks the engine evaluated and the rule
    /// that decided. Follows the command's own event (and its evidence); written only when there
    /// was something to decide.
    DecisionRecorded {
        /// The node the command created, or the node it acted on when it created none.
        node: NodeId,
        /// The step decided on.
        step: StepId,
        why: Why,
    },
    GateDecided {
        node: NodeId,
        to: NodeId,
        approved: bool,
        reason: Option<String>,
    },
    HumanDecided {
        node: NodeId,
        to: NodeId,
        option: DecisionOption,
        note: Option<String>,
    },
    CheckpointRecorded {
        node: NodeId,
        attempt: Option<AttemptId>,
        notes: Option<String>,
        /// Written by the engine when a phase ends, rather than by the agent.
        automatic: bool,
        phase: Option<String>,
    },
    RunPaused {
        reason: Option<String>,
    },
    RunResumed,
    RunStopped {
        reason: Option<String>,
    },
    RunCompleted {
        node: NodeId,
    },
    RunFailed {
        node: NodeId,
        code: String,
        message: String,
    },
    /// One request of the agent runner to a model and what came of it, in its own batch. It
    /// changes no projection but the run's time: the engine never reads it.
    ModelTurn(Box<ModelTurn>),
}

impl EventKind {
    /// The stable name of the event kind, as stored.
    pub fn name(&self) -> &'static str {
        match self {
            Self::SessionCreated { .. } => "session_created",
            Self::RunStarted { .. } => "run_started",
            Self::NodeCreated { .. } => "node_created",
            Self::AdvanceRecorded { .. } => "advance_recorded",
            Self::ReportWarned { .. } => "report_warned",
            Self::EvidenceRecorded { .. } => "evidence_recorded",
            Self::DecisionRecorded { .. } => "decision_recorded",
            Self::GateDecided { .. } => "gate_decided",
            Self::HumanDecided { .. } => "human_decided",
            Self::CheckpointRecorded { .. } => "checkpoint_recorded",
            Self::RunPaused { .. } => "run_paused",
            Self::RunResumed => "run_resumed",
            Self::RunStopped { .. } => "run_stopped",
            Self::RunCompleted { .. } => "run_completed",
            Self::RunFailed { .. } => "run_failed",
            Self::ModelTurn(_) => "model_turn",
        }
    }
}
