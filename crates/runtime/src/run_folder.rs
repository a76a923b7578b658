//! Run output folders: `{output-root}/<session>/`, its `manifest.json`, the state document
//! `state/workflow.md`, a projection of the run's log regenerated after every event, and
//! `_iteration_state.json`, the tip's revision and replan counters, written with every state
//! document (and stale or missing like it, then rebuilt with it).
//!
//! The state document is rebuilt from the event that just committed plus its own previous
//! frontmatter, which holds the bounded lists (`stepsCompleted`, `decisionLog`) of the node it
//! reflects (`nodeId`, `eventSeq`), so no event of the hot path reads the whole log. After a
//! commit it is rendered and written by the state writer's thread (`state_writer.rs`), off the
//! request path, with a temporary file and a rename but without fsync: it is a projection, and a
//! stale or missing one (a crash between commit and write) is detected by its `eventSeq` and
//! rebuilt on the next read. Reads through [`Runtime::state_document`] first wait for the writes
//! queued before them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
pub use switchyard_compiler::split_frontmatter;
use switchyard_core::event::EventKind;
use switchyard_core::state::Phase;
use switchyard_core::{Control, NodeId, NodeState, RunId, RunStatus, SessionId};
use switchyard_engine::{LoadedWorkflow, PendingStep};
use switchyard_store::{NodeRecord, RunRecord};

use crate::atomic_file::{Durability, Readers, create_atomically, write_atomically};
use crate::state_writer::{Document, StateWriter};
use crate::{Error, RunContext, Runtime};

/// The manifest's file name inside a run folder.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The lock file beside the manifest: whoever changes the manifest holds an exclusive advisory
/// lock (`flock`) on it, so writers in different processes never lose each other's entries.
/// Empty, never listed in the manifest, and never writable through the file tools.
pub const MANIFEST_LOCK_FILE: &str = ".manifest.lock";
/// The state document, relative to the run folder.
pub const STATE_DOCUMENT: &str = "state/workflow.md";
/// The tip's iteration counters, relative to the run folder ([`IterationState`]).
pub const ITERATION_STATE_FILE: &str = "_iteration_state.json";
/// The version of the state document's frontmatter.
pub const STATE_SCHEMA_VERSION: u64 = 1;
/// The most recent decisions the state document lists; older ones are counted in
/// `decisionLogOmitted`.
pub const MAX_DECISION_LOG: usize = 20;
/// The most entries `stepsCompleted` lists; older ones are counted in `stepsCompletedOmitted`.
pub const MAX_STEPS_COMPLETED: usize = 200;
/// The most nodes a rebuild walks up the branch from the tip.
const MAX_BRANCH_WALK: usize = 64;
/// The most recent events a rebuild reads for decision notes.
const MAX_REBUILD_EVENTS: u32 = 256;
/// The most artifacts the state document lists (the manifest has them all).
const MAX_ARTIFACTS: usize = 100;
/// How many times a state document read takes the run's tip and last event again while the run
/// keeps moving.
const MAX_CONSISTENT_READS: usize = 3;
/// The run folder's handoff notes, where downgraded audit findings are appended.
pub const HANDOFF_FILE: &str = "_handoff.md";
/// The section of [`HANDOFF_FILE`] that lists downgraded audit findings.
pub const DOWNGRADED_FINDINGS_HEADING: &str = "## Downgraded Findings";
/// What `allowedNext[].to` says for an edge that completes the run.
pub const COMPLETE_TARGET: &str = "$complete";

/// `manifest.json`: what a run folder holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub workflow_id: String,
    pub workflow_hash: String,
    pub run_id: String,
    pub session_id: String,
    pub started_at: String,
    /// Every file written through the file tools, sorted by path.
    pub files: Vec<ManifestFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestFile {
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
    pub written_at: String,
}

/// `_iteration_state.json`: the counters of the run's tip that its limits bound, a projection
/// like the state document it is written with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IterationState {
    /// Gate rejections of the current step since it was last approved (`max_revision_attempts`).
    pub revision_count: u32,
    /// Replan edges taken in this branch (`max_replan_attempts`).
    pub replan_count: u32,
    /// RFC 3339, when the projection was made.
    pub last_updated: String,
}

/// Writes `_iteration_state.json` into `folder`; a failure is logged: the file is rewritten with
/// the next state document, and rebuilt when a read finds it missing.
pub(crate) fn write_iteration_state(folder: &Path, state: &IterationState) {
    let path = folder.join(ITERATION_STATE_FILE);
    let written = serde_json::to_vec_pretty(state)
        .map_err(std::io::Error::other)
        .and_then(|bytes| write_atomically(&path, &bytes, Durability::Cached, Readers::Anyone));
    if let Err(error) = written {
        tracing::warn!(path = %path.display(), %error, "iteration state not written; it is rewritten with the next state document");
    }
}

/// One entry of `decisionLog`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecisionEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// One entry of `artifacts`: a file of the run folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactEntry {
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// The frontmatter of `state/workflow.md`; `switchyard schema state` publishes its JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateFrontmatter {
    pub schema_version: u64,
    /// The workflow id.
    pub workflow_type: String,
    pub run_id: String,
    /// The node this document reflects: a write naming another node is stale.
    pub node_id: String,
    /// The last event of the session this document reflects.
    pub event_seq: u64,
    pub status: String,
    /// The current step; empty means the entry step.
    pub current_node_id: String,
    pub steps_completed: Vec<String>,
    #[serde(default)]
    pub steps_completed_omitted: u64,
    pub variables: Map<String, Value>,
    pub decision_log: Vec<DecisionEntry>,
    #[serde(default)]
    pub decision_log_omitted: u64,
    pub artifacts: Vec<ArtifactEntry>,
    pub updated_at: String,
}

/// The bounded lists the state document is regenerated from, for the node `node`.
///
/// Every event extends a copy of the previous projection, which the state writer keeps for the
/// next one and a queued document may still hold; the entries are shared, so a copy costs a
/// pointer per entry and never the text of a step's notes or artifacts.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Projection {
    node: String,
    pub(crate) seq: u64,
    steps_completed: Vec<Arc<str>>,
    steps_completed_omitted: u64,
    decision_log: Vec<Arc<DecisionEntry>>,
    decision_log_omitted: u64,
}

/// A run's state document as it is now, with what a door needs to check a write to it.
#[derive(Debug, Clone)]
pub struct StateDocument {
    pub folder: PathBuf,
    pub text: String,
    pub frontmatter: StateFrontmatter,
    pub run: RunId,
    /// The run's tip: the node the document reflects.
    pub node: NodeRecord,
    pub control: Control,
    pub workflow: Arc<LoadedWorkflow>,
    /// The step the agent may act on, when it may.
    pub pending: Option<PendingStep>,
}

/// The JSON Schema (draft 2020-12) of the state document's frontmatter.
pub fn state_schema() -> Value {
    let entry = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "step": {"type": "string"},
            "to": {"type": "string"},
            "choice": {"type": "string", "description": "The label of the edge to take."},
            "notes": {"type": "string", "description": "Notes recorded with the move."},
            "artifacts": {"description": "Artifacts recorded with the move (checked against the step's output contract)."},
            "at": {"type": "string"}
        }
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://switchyard.dev/schema/state-document.json",
        "title": "switchyard state document frontmatter (state/workflow.md)",
        "type": "object",
        "additionalProperties": false,
        "required": ["schemaVersion", "workflowType", "runId", "currentNodeId", "stepsCompleted", "variables", "decisionLog", "artifacts", "updatedAt"],
        "properties": {
            "schemaVersion": {"const": STATE_SCHEMA_VERSION},
            "workflowType": {"type": "string", "minLength": 1},
            "runId": {"type": "string", "pattern": "^run_[a-z0-9]{26}$"},
            "nodeId": {"type": "string", "pattern": "^node_[a-z0-9]{26}$", "description": "The node this document reflects; a write naming an older node is refused as stale."},
            "eventSeq": {"type": "integer", "minimum": 0},
            "status": {"type": "string"},
            "currentNodeId": {"type": "string", "description": "The current step id; empty means the entry step. Change it along an edge to move the run."},
            "stepsCompleted": {"type": "array", "items": {"type": "string", "minLength": 1}, "description": "Only grows."},
            "stepsCompletedOmitted": {"type": "integer", "minimum": 0},
            "variables": {"type": "object"},
            "decisionLog": {"type": "array", "items": entry},
            "decisionLogOmitted": {"type": "integer", "minimum": 0},
            "artifacts": {"type": "array", "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["path", "bytes", "sha256"],
                "properties": {"path": {"type": "string"}, "bytes": {"type": "integer", "minimum": 0}, "sha256": {"type": "string"}}
            }},
            "updatedAt": {"type": "string"}
        }
    })
}

/// Formats milliseconds since the epoch as RFC 3339 UTC with milliseconds
/// (`2026-01-03T10:00:00.000Z`); an instant outside what `jiff` represents (years -9999 to 9999)
/// is clamped to its bounds.
pub fn rfc3339(ms: i64) -> String {
    let instant = Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 { Timestamp::MIN } else { Timestamp::MAX });
    instant.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

impl Runtime {
    /// Where run output folders are created, when this runtime creates them.
    pub fn output_root(&self) -> Option<&Path> {
        self.output_root.as_deref()
    }

    /// Creates run output folders (and state documents) under `root` from now on.
    #[must_use]
    pub fn with_output_root(mut self, root: PathBuf) -> Self {
        self.output_root = Some(root);
        self.state_writer.get_or_insert_with(|| Arc::new(StateWriter::start()));
        self
    }

    /// Waits until every state document regenerated so far is on disk. Reads through
    /// [`Runtime::state_document`] do this themselves; it is for whoever reads the files directly.
    pub async fn flush_state_documents(&self) {
        if let Some(writer) = &self.state_writer {
            writer.flush().await;
        }
    }

    /// The output folder of a session's run, `{output-root}/<session>/`.
    pub fn run_folder(&self, session: SessionId) -> Option<PathBuf> {
        self.output_root.as_ref().map(|root| root.join(session.to_string()))
    }

    /// The run's state document, regenerated first when it is missing or stale; on disk as
    /// returned.
    pub async fn state_document(&self, run: RunId) -> Result<StateDocument, Error> {
        self.load_state_document(run, false).await
    }

    /// Regenerates the run's state document now (after a file of the run folder changed, so its
    /// `artifacts` list is current) and returns it.
    pub async fn refresh_state_document(&self, run: RunId) -> Result<StateDocument, Error> {
        self.load_state_document(run, true).await
    }

    async fn load_state_document(&self, run: RunId, force: bool) -> Result<StateDocument, Error> {
        self.flush_state_documents().await;
        let mut context = self.run_context(run).await?;
        let folder = self.run_folder(context.run.session).ok_or_else(|| {
            Error::environment("this runtime has no output root: run folders and state documents are off")
        })?;
        self.ensure_folder_files(&folder, &context)?;
        let mut session = self.session(context.run.session).await?;
        // The tip and the session's last event are two reads: when the run moved between them,
        // read both again, so a document never pairs an older tip with a newer event.
        for _ in 0..MAX_CONSISTENT_READS {
            let again = self.run_context(run).await?;
            if again.run.tip == context.run.tip {
                break;
            }
            context = again;
            session = self.session(context.run.session).await?;
        }
        let node = self.node_record(context.run.tip).await?;
        let existing = std::fs::read_to_string(folder.join(STATE_DOCUMENT)).ok();
        let parsed = existing.as_deref().and_then(parse_frontmatter);
        let fresh = parsed.as_ref().is_some_and(|frontmatter| {
            frontmatter.node_id == node.id.to_string() && frontmatter.event_seq == session.last_seq
        }) && folder.join(ITERATION_STATE_FILE).is_file();
        let pending = self.pending_of(&context, &node.state);
        let (text, frontmatter) = match (existing, parsed) {
            (Some(text), Some(frontmatter)) if fresh && !force => (text, frontmatter),
            (_, parsed) => {
                let projection = match parsed.filter(|_| fresh) {
                    Some(frontmatter) => projection_of(frontmatter),
                    None => self.rebuild_projection(&context, &node, session.last_seq).await?,
                };
                let render = self.state_render(
                    &folder,
                    &context,
                    node.clone(),
                    context.run.control,
                    projection,
                    pending.clone(),
                );
                let text = self.write_state(render)?;
                // Whoever asked reads the file next, by any means: it is on disk when this returns.
                self.flush_state_documents().await;
                let frontmatter = parse_frontmatter(&text).ok_or_else(|| {
                    Error::environment(format!("the state document in {} is unreadable", folder.display()))
                })?;
                (text, frontmatter)
            }
        };
        Ok(StateDocument {
            folder,
            text,
            frontmatter,
            run,
            node,
            control: context.run.control,
            workflow: context.workflow,
            pending,
        })
    }

    pub(crate) fn pending_of(&self, context: &RunContext, state: &NodeState) -> Option<PendingStep> {
        matches!(state.phase, Phase::Pending | Phase::Blocked { .. })
            .then(|| switchyard_engine::pending(&context.workflow, state, &context.goal))
    }

    /// Creates the run folder of a run that just started. Failures are logged, never returned:
    /// the run is already durable, and whoever needs the folder later re-creates it
    /// ([`Runtime::ensure_run_folder`]).
    pub(crate) fn open_run_folder(
        &self,
        context: &RunContext,
        node: &NodeRecord,
        seq: u64,
        pending: Option<&PendingStep>,
    ) {
        let Some(folder) = self.run_folder(context.run.session) else { return };
        let result = (|| -> Result<(), Error> {
            self.ensure_folder_files(&folder, context)?;
            // Written here, not queued: the document exists when the start is answered, and
            // writing a new file costs no writeback (only a rename over an old one does).
            let projection = Projection { node: node.id.to_string(), seq, ..Projection::default() };
            let render =
                self.state_render(&folder, context, node.clone(), Control::Running, projection, pending.cloned());
            write_atomically(
                &folder.join(STATE_DOCUMENT),
                render.render()?.as_bytes(),
                Durability::Cached,
                Readers::Anyone,
            )
            .map_err(|error| {
                Error::environment(format!("cannot write the state document in {}: {error}", folder.display()))
            })?;
            write_iteration_state(&folder, &render.iteration_state());
            if let Some(writer) = &self.state_writer {
                writer.written_elsewhere(&folder, render.projection);
            }
            Ok(())
        })();
        if let Err(error) = result {
            tracing::warn!(run = %context.run.id, %error, "run folder not created; it is re-created when next needed");
        }
    }

    /// The run's output folder with its `manifest.json` and state document, re-created from the
    /// store's facts when any of them is missing: a process killed (or a disk full) between a
    /// start's commit and its folder, or a folder someone deleted, never leaves the run without one.
    /// Outputs written before a folder was lost are not brought back; the manifest then lists none.
    pub async fn ensure_run_folder(&self, run: &RunRecord) -> Result<PathBuf, Error> {
        let folder = self.run_folder(run.session).ok_or_else(|| {
            Error::environment("this runtime has no output root: run folders and state documents are off")
        })?;
        let complete =
            [MANIFEST_FILE, STATE_DOCUMENT, ITERATION_STATE_FILE].iter().all(|file| folder.join(file).is_file());
        if !complete {
            // Reading the state document re-creates the folder and the manifest, then the document.
            self.state_document(run.id).await?;
            self.flush_state_documents().await;
        }
        Ok(folder)
    }

    /// Appends the audit findings a command's `ReportWarned` events downgraded to the run
    /// folder's `_handoff.md`, under `## Downgraded Findings` (the section is started when the
    /// file does not end in it). Called once per committed command, so a replay appends nothing;
    /// failures are logged: the findings stay in the event log (`switchyard log`).
    pub(crate) fn append_downgraded_findings(&self, context: &RunContext, events: &[EventKind]) {
        let Some(folder) = self.run_folder(context.run.session) else { return };
        let mut entries = String::new();
        for event in events {
            let EventKind::ReportWarned { node, step, downgraded, .. } = event else { continue };
            for finding in downgraded {
                let why = if finding.validated {
                    format!(
                        "confidence {} is below audit_min_confidence {}",
                        finding.confidence, finding.min_confidence
                    )
                } else {
                    format!("not validated (confidence {})", finding.confidence)
                };
                entries.push_str(&format!(
                    "- step `{step}`, node `{node}`, `{}`: {why}. {}\n",
                    finding.path,
                    finding.summary.replace('\n', " ")
                ));
            }
        }
        if entries.is_empty() {
            return;
        }
        let path = folder.join(HANDOFF_FILE);
        let result = (|| -> std::io::Result<()> {
            std::fs::create_dir_all(&folder)?;
            let existing = std::fs::read_to_string(&path).unwrap_or_default();
            let last_heading = existing.lines().rev().find(|line| line.starts_with("## "));
            let mut text = String::new();
            if last_heading != Some(DOWNGRADED_FINDINGS_HEADING) {
                if !existing.is_empty() {
                    text.push_str(if existing.ends_with('\n') { "\n" } else { "\n\n" });
                }
                text.push_str(DOWNGRADED_FINDINGS_HEADING);
                text.push_str("\n\n");
            }
            text.push_str(&entries);
            // One append of the whole text, so a concurrent reader never sees half an entry.
            let mut file = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
            std::io::Write::write_all(&mut file, text.as_bytes())
        })();
        if let Err(error) = result {
            tracing::warn!(run = %context.run.id, %error, path = %path.display(), "downgraded findings not appended to the handoff notes; they are in the event log");
        }
    }

    /// Creates whatever is missing of `folder`, `state/` and `manifest.json`, idempotently: several
    /// processes may do it at once. The manifest is written whole under a temporary name and linked
    /// into place only if there is none yet, so nobody ever sees a partial one and an existing one
    /// (with its files) is never replaced.
    fn ensure_folder_files(&self, folder: &Path, context: &RunContext) -> Result<(), Error> {
        let io =
            |what: &str, error: std::io::Error| Error::environment(format!("{what} {}: {error}", folder.display()));
        std::fs::create_dir_all(folder.join("state")).map_err(|error| io("cannot create the run folder", error))?;
        let manifest_path = folder.join(MANIFEST_FILE);
        if manifest_path.is_file() {
            return Ok(());
        }
        let manifest = Manifest {
            workflow_id: context.workflow.workflow.id.clone(),
            workflow_hash: context.workflow.hash.to_string(),
            run_id: context.run.id.to_string(),
            session_id: context.run.session.to_string(),
            started_at: rfc3339(context.run.created_at_ms),
            files: Vec::new(),
        };
        let bytes = serde_json::to_vec_pretty(&manifest).map_err(|error| Error::environment(error.to_string()))?;
        // The manifest's bytes are fsynced, since a manifest present but empty after a power cut
        // would refuse every later file write of the run. Its name is not: the run folder holding
        // it was just created and is not fsynced in its own parent, so a crash can lose the
        // folder either way, and a lost manifest is re-created from the store's facts (see
        // `ensure_run_folder`). That saves one fsync per `start_workflow`.
        create_atomically(&manifest_path, &bytes, Durability::Content)
            .map(|_created| ())
            .map_err(|error| io("cannot write the manifest of", error))
    }

    /// Regenerates the state document after a command committed. `acted_on` is the node the
    /// command acted on; `created` the node it created, if any. Failures are logged: a stale
    /// document is rebuilt on its next read.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn project_event(
        &self,
        context: &RunContext,
        acted_on: &NodeRecord,
        created: Option<(NodeId, &NodeState)>,
        control: Control,
        seq: u64,
        events: &[EventKind],
        pending: Option<&PendingStep>,
    ) {
        let Some(folder) = self.run_folder(context.run.session) else { return };
        let result = async {
            let previous = self.remembered_projection(&folder).or_else(|| read_projection(&folder));
            let at = rfc3339(self.clock.now_ms());
            let (tip, projection) = match created {
                Some((id, state)) => {
                    let record = NodeRecord {
                        id,
                        run: context.run.id,
                        session: context.run.session,
                        parent: Some(acted_on.id),
                        kind: acted_on.kind,
                        cause: acted_on.cause,
                        step: state.step.clone(),
                        status: state.status(),
                        state: state.clone(),
                        child_count: 0,
                        created_seq: seq,
                        created_at_ms: 0,
                    };
                    let projection = match previous {
                        Some(previous) if previous.node == acted_on.id.to_string() => {
                            extend(previous, acted_on, &record, events, &at, seq)
                        }
                        _ => self.rebuild_projection(context, &record, seq).await?,
                    };
                    (record, projection)
                }
                None => {
                    let projection = match previous {
                        Some(previous) if previous.node == acted_on.id.to_string() => Projection { seq, ..previous },
                        _ => self.rebuild_projection(context, acted_on, seq).await?,
                    };
                    (acted_on.clone(), projection)
                }
            };
            self.queue_state(self.state_render(&folder, context, tip, control, projection, pending.cloned()));
            Ok::<(), Error>(())
        };
        if let Err(error) = result.await {
            tracing::warn!(run = %context.run.id, %error, "state document not regenerated; it is rebuilt on its next read");
        }
    }

    /// The projection of `tip` from the store, bounded: at most [`MAX_BRANCH_WALK`] nodes up the
    /// branch and the last [`MAX_REBUILD_EVENTS`] events of the session.
    async fn rebuild_projection(&self, context: &RunContext, tip: &NodeRecord, seq: u64) -> Result<Projection, Error> {
        let mut branch = vec![tip.clone()];
        let mut walked_to_start = tip.parent.is_none();
        while branch.len() < MAX_BRANCH_WALK {
            let Some(parent) = branch.last().and_then(|node| node.parent) else {
                walked_to_start = true;
                break;
            };
            branch.push(self.node_record(parent).await?);
        }
        branch.reverse();
        let events = self
            .store
            .events(context.run.session, seq.saturating_sub(u64::from(MAX_REBUILD_EVENTS)), MAX_REBUILD_EVENTS)
            .await?;
        let mut projection = Projection { node: tip.id.to_string(), seq, ..Projection::default() };
        if !walked_to_start {
            projection.steps_completed_omitted = branch.first().map_or(0, |node| node.state.counters.steps_completed);
        }
        for pair in branch.windows(2) {
            let (parent, child) = (&pair[0], &pair[1]);
            let at = events.iter().find(|event| event_reaches(&event.kind, child.id)).map(|event| rfc3339(event.at_ms));
            let kinds: Vec<EventKind> = events
                .iter()
                .filter(|event| event_reaches(&event.kind, child.id))
                .map(|event| event.kind.clone())
                .collect();
            let extended = extend(projection, parent, child, &kinds, at.as_deref().unwrap_or(""), seq);
            projection = extended;
        }
        Ok(projection)
    }

    /// What the state document of `tip` with `projection`'s lists is rendered from.
    fn state_render(
        &self,
        folder: &Path,
        context: &RunContext,
        tip: NodeRecord,
        control: Control,
        projection: Projection,
        pending: Option<PendingStep>,
    ) -> StateRender {
        StateRender {
            folder: folder.to_owned(),
            workflow: Arc::clone(&context.workflow),
            goal: context.goal.clone(),
            run: context.run.id,
            tip,
            control,
            projection: Arc::new(projection),
            pending,
            updated_at: rfc3339(self.clock.now_ms()),
        }
    }

    /// Renders the state document now, queues it for the state writer, and returns its text.
    fn write_state(&self, render: StateRender) -> Result<String, Error> {
        let text = render.render()?;
        let iteration = render.iteration_state();
        match &self.state_writer {
            Some(writer) => writer.write(&render.folder, Document::Text(text.clone(), iteration), render.projection),
            None => {
                write_atomically(
                    &render.folder.join(STATE_DOCUMENT),
                    text.as_bytes(),
                    Durability::Cached,
                    Readers::Anyone,
                )
                .map_err(|error| {
                    Error::environment(format!(
                        "cannot write the state document in {}: {error}",
                        render.folder.display()
                    ))
                })?;
                write_iteration_state(&render.folder, &iteration);
            }
        }
        Ok(text)
    }

    /// Queues the state document to be rendered and written on the state writer's thread: nobody
    /// waits for its text, so the request that committed the event does not pay for it.
    fn queue_state(&self, render: StateRender) {
        match &self.state_writer {
            Some(writer) => {
                let (folder, projection) = (render.folder.clone(), Arc::clone(&render.projection));
                writer.write(&folder, Document::Render(Box::new(render)), projection);
            }
            None => {
                if let Err(error) = self.write_state(render) {
                    tracing::warn!(%error, "state document not regenerated; it is rebuilt on its next read");
                }
            }
        }
    }

    fn remembered_projection(&self, folder: &Path) -> Option<Projection> {
        self.state_writer.as_ref().and_then(|writer| writer.projection(folder))
    }
}

/// Everything a state document is rendered from, owned, so that rendering can happen on the
/// state writer's thread.
#[derive(Debug)]
pub(crate) struct StateRender {
    folder: PathBuf,
    workflow: Arc<LoadedWorkflow>,
    goal: String,
    run: RunId,
    tip: NodeRecord,
    control: Control,
    /// Shared with the state writer, which remembers it for the next event.
    projection: Arc<Projection>,
    pending: Option<PendingStep>,
    updated_at: String,
}

impl StateRender {
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
fn event_reaches(event: &EventKind, node: NodeId) -> bool {
    match event {
        EventKind::AdvanceRecorded { to, .. }
        | EventKind::GateDecided { to, .. }
        | EventKind::HumanDecided { to, .. } => *to == node,
        _ => false,
    }
}

/// The projection of `child`, from the projection of its parent and the events that made it.
fn extend(
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

fn parse_frontmatter(text: &str) -> Option<StateFrontmatter> {
    let (yaml, _) = split_frontmatter(text)?;
    serde_saphyr::from_str(yaml).ok()
}

/// The projection the current state document reflects, read back from its frontmatter.
fn read_projection(folder: &Path) -> Option<Projection> {
    let text = std::fs::read_to_string(folder.join(STATE_DOCUMENT)).ok()?;
    parse_frontmatter(&text).map(projection_of)
}

fn projection_of(frontmatter: StateFrontmatter) -> Projection {
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
        .map_err(|error| Error::environment(format!("cannot render the state document: {error}")))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_767_434_400_123), "2026-01-03T10:00:00.123Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999Z");
    }
}
