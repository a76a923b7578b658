//! A run with what every command on it needs: its record, the goal it was started for and its
//! pinned workflow, loaded.

use std::path::PathBuf;
use std::sync::Arc;

use switchyard_core::evidence::ProjectCommands;
use switchyard_core::state::Phase;
use switchyard_core::{NodeState, Workflow};
use switchyard_engine::{LoadedWorkflow, PendingStep};
use switchyard_store::RunRecord;

/// A run with what every command on it needs.
#[derive(Debug, Clone)]
pub struct RunContext {
    pub run: RunRecord,
    pub goal: String,
    /// The folder the run's session works in, if it named one: where evidence is looked for.
    pub workspace: Option<PathBuf>,
    pub workflow: Arc<LoadedWorkflow>,
    /// The project commands the run was started with (read only for a workflow that runs some).
    pub project: ProjectCommands,
}

impl RunContext {
    /// The step a node of this run hands out, rendered with the context the node holds; `None`
    /// where it hands out none (a gate, a decision, the end).
    pub fn pending(&self, state: &NodeState) -> Option<PendingStep> {
        matches!(state.phase, Phase::Pending | Phase::Blocked { .. })
            .then(|| switchyard_engine::pending(&self.workflow, state, &self.goal))
    }
}

/// Whether any step of the workflow checks a status report (audits included).
pub(crate) fn has_reports(workflow: &Workflow) -> bool {
    workflow.rules.values().any(|rules| rules.status_report.is_some() || rules.audit)
}
