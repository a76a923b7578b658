//! The switchyard state machine: a pure transducer from (run view, command) to domain events and
//! at most one new node.
//!
//! `start` creates a run's first node, `transition` handles every later command, and `pending` shows
//! the agent what to do at a node. What each command does in each status is declared once, in
//! [`table::TRANSITIONS`]. Nothing here does IO, reads a clock or draws randomness: the ids a
//! command may need come in through [`Fresh`].

mod conditions;
mod edges;
mod error;
mod evidence;
mod explain;
mod functions;
mod loaded;
mod machine;
mod output_checks;
mod pending;
pub mod status_report;
pub mod table;

#[cfg(test)]
mod fixture;
#[cfg(test)]
mod tests;

use switchyard_core::event::EventKind;
use switchyard_core::evidence::{Observation, ProjectCommands, Snapshot};
use switchyard_core::id::{AttemptId, NodeId};
use switchyard_core::state::{Control, DecisionOption, NodeState, ReportPolicy};
use switchyard_core::workflow::EdgeTarget;

pub use crate::error::Error;
pub use crate::functions::loose_json;
pub use crate::loaded::LoadedWorkflow;
pub use crate::machine::{start, transition};
pub use crate::pending::{AllowedEdge, PendingStep, pending};
pub use crate::table::CommandKind;

/// What `transition` needs to know about the run and the node acted on.
#[derive(Debug, Clone, Copy)]
pub struct RunView<'a> {
    /// The run-level control (pause and stop apply to every branch).
    pub control: Control,
    /// The node the command acts on.
    pub node: NodeId,
    pub state: &'a NodeState,
    /// The node already has a child: a new node starts a new branch (a fork).
    pub has_children: bool,
    pub goal: &'a str,
    /// How the run checks status reports and gates audits, as recorded when it started.
    pub reports: ReportPolicy,
    /// The project commands the run was started with: a step that runs one the run lacks is
    /// skipped.
    pub project: &'a ProjectCommands,
}

/// A command from an agent or a human.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Advance(Advance),
    /// An advance that names where the run should go instead of the edge: the engine finds the
    /// edge of the pending step that leads there and takes it exactly as if the agent had sent
    /// its label as the choice. Refused (`NO_EDGE_TO_STEP`) when no edge leads there.
    AdvanceTo {
        advance: Advance,
        to: EdgeTarget,
    },
    Approve {
        note: Option<String>,
    },
    Reject {
        reason: String,
    },
    Decide {
        option: DecisionOption,
        note: Option<String>,
    },
    Pause {
        reason: Option<String>,
    },
    Resume,
    Stop {
        reason: Option<String>,
    },
    Checkpoint {
        attempt: Option<AttemptId>,
        notes: Option<String>,
    },
}

impl Command {
    pub fn kind(&self) -> CommandKind {
        match self {
            Self::Advance(_) => CommandKind::Advance,
            Self::AdvanceTo { .. } => CommandKind::AdvanceTo,
            Self::Approve { .. } => CommandKind::Approve,
            Self::Reject { .. } => CommandKind::Reject,
            Self::Decide { .. } => CommandKind::Decide,
            Self::Pause { .. } => CommandKind::Pause,
            Self::Resume => CommandKind::Resume,
            Self::Stop { .. } => CommandKind::Stop,
            Self::Checkpoint { .. } => CommandKind::Checkpoint,
        }
    }
}

/// The agent's report on its step.
#[derive(Debug, Clone, PartialEq)]
pub struct Advance {
    pub attempt: AttemptId,
    pub notes: Option<String>,
    pub artifacts: Option<serde_json::Value>,
    /// Changes to the run context; a `null` value deletes the key.
    pub context: Option<serde_json::Map<String, serde_json::Value>>,
    /// The label of the edge the agent picks, where conditions do not decide.
    pub choice: Option<String>,
    /// What the runtime observed for each of the step's evidence checks, in their order; empty
    /// for a step without evidence.
    pub evidence: Vec<Observation>,
}

/// What the runtime hands in for whatever the command creates: ids, and what it observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fresh {
    /// The id to use if the command creates a node.
    pub node: NodeId,
    /// The workspace as it is now, for a node that hands out a step whose evidence compares with
    /// it ([`switchyard_core::Workflow::needs_snapshot`]); ignored for any other node. The runtime
    /// takes one only when a transition without it lands on such a step, then asks again.
    pub snapshot: Option<Snapshot>,
}

impl Fresh {
    /// Fresh ids, and no snapshot.
    pub fn node(node: NodeId) -> Self {
        Self { node, snapshot: None }
    }
}

/// What a command produced: its events, the node it created (if any) and the run's control after.
#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    pub events: Vec<EventKind>,
    pub node: Option<(NodeId, NodeState)>,
    pub control: Control,
}
