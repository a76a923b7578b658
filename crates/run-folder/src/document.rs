//! Rendering a state document: its frontmatter from the tip and the projection's bounded lists,
//! the instructions for the agent below it, and how a projection grows by one event.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use switchyard_compiler::split_frontmatter;
use switchyard_core::event::EventKind;
use switchyard_core::state::Phase;
use switchyard_core::{Control, NodeId, RunId, RunStatus};
use switchyard_runtime::clock::rfc3339;
use switchyard_runtime::{LoadedWorkflow, NodeRecord, PendingStep, RunContext};

use crate::Error;
use crate::format::{
    ArtifactEntry, COMPLETE_TARGET, DecisionEntry, IterationState, MANIFEST_FILE, MAX_ARTIFACTS, MAX_DECISION_LOG,
    MAX_STEPS_COMPLETED, Manifest, STATE_DOCUMENT, STATE_SCHEMA_VERSION, StateFrontmatter,
};

/// The bounded lists the state document is regenerated from, for the node `node`.
///
/// Every event extends a copy of the previous projection, which the state writer keeps for the
/// next one and a queued document may still hold; the entries are shared, so a copy costs a
/// pointer per entry and never the text of a step's notes or artifacts.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Projection {
    pub(crate) node: String,
    pub(crate) seq: u64,
    pub(crate) steps_completed: Vec<Arc<str>>,
    pub(crate) steps_completed_omitted: u64,
    pub(crate) decision_log: Vec<Arc<DecisionEntry>>,
    pub(crate) decision_log_omitted: u64,
}

/// Everything a state document is rendered from, owned, so that rendering can happen on the
/// state writer's thread.
#[derive(Debug)]
pub(crate) struct StateRender {
    pub(crate) folder: PathBuf,
    workflow: Arc<LoadedWorkflow>,
    goal: String,
    run: RunId,
    tip: NodeRecord,
    control: Control,
    /// Shared with the state writer, which remembers it for the next event.
    pub(crate) projection: Arc<Projection>,
    pending: Option<PendingStep>,
    updated_at: String,
}

impl StateRender {
    /// What the state document of `tip` with `projection`'s lists is rendered from, at `now_ms`.
    pub(crate) fn new(
        folder: &Path,
        context: &RunContext,
        tip: NodeRecord,
        control: Control,
        projection: Projection,
        pending: Option<PendingStep>,
        now_ms: i64,
    ) -> Self {
        Self {
            folder: folder.to_owned(),
            workflow: Arc::clone(&context.workflow),
            goal: context.goal.clone(),
            run: context.run.id,
            tip,
            control,
            projection: Arc::new(projection),
            pending,
            updated_at: rfc3339(now_ms),
        }
    }

    /// `_iteration_state.json` of the same tip and time as the document.
    pub(crate) fn iteration_state(&self) -> IterationState {
        let counters = &self.tip.state.counters;
        IterationState {
            revision_count: counters.revisions,
            replan_count: counters.replans,
            last_updated: self.updated_at.clone(),
        }
    }

    /// The document's text: the frontmatter (with the artifacts the manifest lists now) and the
    /// instructions for the agent.
    pub(crate) fn render(&self) -> Result<String, Error> {
        let tip = &self.tip;
        let status = match self.control {
            Control::Stopped if !tip.state.status().is_terminal() => RunStatus::Stopped,
            Control::Paused if !tip.state.status().is_terminal() => RunStatus::Paused,
            _ => tip.state.status(),
        };
        let projection = &self.projection;
        let frontmatter = StateFrontmatter {
            schema_version: STATE_SCHEMA_VERSION,
            workflow_type: self.workflow.workflow.id.clone(),
            run_id: self.run.to_string(),
            node_id: tip.id.to_string(),
            event_seq: projection.seq,
            status: status.to_string(),
            current_node_id: tip.state.step.to_string(),
            steps_completed: projection.steps_completed.iter().map(|step| step.to_string()).collect(),
            steps_completed_omitted: projection.steps_completed_omitted,
            variables: tip.state.context.clone(),
            decision_log: projection.decision_log.iter().map(|entry| DecisionEntry::clone(entry)).collect(),
            decision_log_omitted: projection.decision_log_omitted,
            artifacts: read_artifacts(&self.folder),
            updated_at: self.updated_at.clone(),
        };
        render(&frontmatter, &self.workflow, &self.goal, tip, status, self.pending.as_ref())
    }
}

/// Whether `event` is the one that created node `node` from its parent.
pub(crate) fn event_reaches(event: &EventKind, node: NodeId) -> bool {
    match event {
        EventKind::AdvanceRecorded { to, .. }
        | EventKind::GateDecided { to, .. }
        | EventKind::HumanDecided { to, .. } => *to == node,
        _ => false,
    }
}

/// The projection of `child`, from the projection of its parent and the events that made it.
pub(crate) fn extend(
    mut projection: Projection,
    parent: &NodeRecord,
    child: &NodeRecord,
    events: &[EventKind],
    at: &str,
    seq: u64,
) -> Projection {
    if child.state.counters.steps_completed > parent.state.counters.steps_completed {
        projection.steps_completed.push(Arc::from(parent.state.step.as_str()));
        if projection.steps_completed.len() > MAX_STEPS_COMPLETED {
            projection.steps_completed.remove(0);
            projection.steps_completed_omitted += 1;
        }
    }
    let mut entry = DecisionEntry {
        step: Some(parent.state.step.to_string()),
        to: Some(child.state.step.to_string()),
        at: (!at.is_empty()).then(|| at.to_owned()),
        ..DecisionEntry::default()
    };
    for event in events {
        match event {
            EventKind::AdvanceRecorded { notes, artifacts, edge_label, choice, .. } => {
                entry.notes.clone_from(notes);
                entry.artifacts.clone_from(artifacts);
                entry.choice = edge_label.clone().or_else(|| choice.clone());
            }
            EventKind::GateDecided { approved, reason, .. } => {
                entry.choice = Some(if *approved { "gate:approved" } else { "gate:rejected" }.to_owned());
                entry.notes.clone_from(reason);
            }
            EventKind::HumanDecided { option, note, .. } => {
                entry.choice = Some(format!("human:{}", option.as_str()));
                entry.notes.clone_from(note);
            }
            _ => {}
        }
    }
    if matches!(child.state.phase, Phase::Completed) {
        entry.to = Some(COMPLETE_TARGET.to_owned());
    }
    // A blocked attempt moved nowhere: the run stays at the step, so it is no entry of the log.
    if !matches!(child.state.phase, Phase::Blocked { .. }) {
        projection.decision_log.push(Arc::new(entry));
        if projection.decision_log.len() > MAX_DECISION_LOG {
            projection.decision_log.remove(0);
            projection.decision_log_omitted += 1;
        }
    }
    projection.node = child.id.to_string();
    projection.seq = seq;
    projection
}

pub(crate) fn parse_frontmatter(text: &str) -> Option<StateFrontmatter> {
    let (yaml, _) = split_frontmatter(text)?;
    serde_saphyr::from_str(yaml).ok()
}

/// The projection the current state document reflects, read back from its frontmatter.
pub(crate) fn read_projection(folder: &Path) -> Option<Projection> {
    let text = std::fs::read_to_string(folder.join(STATE_DOCUMENT)).ok()?;
    parse_frontmatter(&text).map(projection_of)
}

pub(crate) fn projection_of(frontmatter: StateFrontmatter) -> Projection {
    Projection {
        node: frontmatter.node_id,
        seq: frontmatter.event_seq,
        steps_completed: frontmatter.steps_completed.into_iter().map(Arc::from).collect(),
        steps_completed_omitted: frontmatter.steps_completed_omitted,
        decision_log: frontmatter.decision_log.into_iter().map(Arc::new).collect(),
        decision_log_omitted: frontmatter.decision_log_omitted,
    }
}

fn read_artifacts(folder: &Path) -> Vec<ArtifactEntry> {
    let Some(manifest) = std::fs::read(folder.join(MANIFEST_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Manifest>(&bytes).ok())
    else {
        return Vec::new();
    };
    let skip = manifest.files.len().saturating_sub(MAX_ARTIFACTS);
    manifest
        .files
        .into_iter()
        .skip(skip)
        .map(|file| ArtifactEntry { path: file.path, bytes: file.bytes, sha256: file.sha256 })
        .collect()
}

fn render(
    frontmatter: &StateFrontmatter,
    workflow: &LoadedWorkflow,
    goal: &str,
    tip: &NodeRecord,
    status: RunStatus,
    pending: Option<&PendingStep>,
) -> Result<String, Error> {
    let yaml = serde_saphyr::to_string(frontmatter)
        .map_err(|error| Error::io("cannot render the state document", std::io::Error::other(error)))?;
    let workflow = &workflow.workflow;
    let mut text =
        format!("---\n{}{}---\n# {}\n\n", yaml, if yaml.ends_with('\n') { "" } else { "\n" }, workflow.title);
    text.push_str("## Goal\n\n");
    text.push_str(goal.trim());
    text.push_str("\n\n## How to proceed\n\n");
    let current = &tip.state.step;
    match pending {
        Some(pending) if status == RunStatus::Active || status == RunStatus::Blocked => {
            text.push_str(&format!(
                "You are at step `{current}` ({}). Do it, then move the run by editing this file's frontmatter:\n\
                 - set `currentNodeId` to one of the next steps below (the edge is recorded);\n\
                 - to finish a step that completes the run, keep `currentNodeId` and add it to `stepsCompleted`;\n\
                 - append `{{notes: ..., artifacts: ..., choice: <label>}}` to `decisionLog` to record notes, artifacts or the edge label;\n\
                 - change `variables` in the same write to update the run context.\n\
                 Never remove entries from `stepsCompleted`. A refused write leaves this file unchanged and says why.\n\n",
                pending.title
            ));
            text.push_str("Allowed next:\n");
            if pending.allowed_next.is_empty() {
                text.push_str(&format!("- `{COMPLETE_TARGET}`: this is the last step; finishing it completes the run\n"));
            }
            for edge in &pending.allowed_next {
                let to = edge.to.as_ref().map_or(COMPLETE_TARGET.to_owned(), ToString::to_string);
                text.push_str(&format!("- `{to}` (label `{}`{})", edge.label, if edge.default { ", default" } else { "" }));
                if let Some(condition) = &edge.condition_text {
                    text.push_str(&format!(": {condition}"));
                }
                text.push('\n');
            }
            if let Some(validation) = &pending.validation {
                text.push_str("\nThe last move was blocked:\n");
                for issue in &validation.issues {
                    text.push_str(&format!("- {} at `{}`: {}\n", issue.code, issue.path, issue.message));
                }
            }
            text.push_str(&format!("\n## Current step: {}\n\n{}\n", pending.title, pending.prompt.trim()));
        }
        _ => text.push_str(&format!(
            "The run is {status} at step `{current}`: there is nothing to move. Use the CLI or console for gates, decisions and resumes.\n"
        )),
    }
    text.push_str("\n## Steps\n\n");
    for step in &workflow.steps {
        let mark = if &step.id == current {
            ">"
        } else if frontmatter.steps_completed.iter().any(|done| done == step.id.as_str()) {
            "x"
        } else {
            " "
        };
        text.push_str(&format!("- [{mark}] `{}`: {}\n", step.id, step.title));
    }
    Ok(text)
}
