//! Run output folders: `{output-root}/<session>/`, its `manifest.json`, the state document
//! `state/workflow.md`, a projection of the run's log regenerated after every event,
//! `_iteration_state.json`, the tip's revision and replan counters, written with every state
//! document (and stale or missing like it, then rebuilt with it), and `_handoff.md`, where
//! downgraded audit findings are appended.
//!
//! [`RunFolders`] follows the runtime's commits ([`Follower`]): the runtime tells it of each command
//! once committed, in the process that committed it, and it brings the run's folder up to date.
//! The state document is rebuilt from the event that just committed plus its own previous
//! frontmatter, which holds the bounded lists (`stepsCompleted`, `decisionLog`) of the node it
//! reflects (`nodeId`, `eventSeq`), so no event of the hot path reads the whole log. It is
//! rendered and written by the state writer's thread (`state_writer.rs`), off the request path,
//! with a temporary file and a rename but without fsync: it is a projection, and a stale or
//! missing one (a crash between commit and write, a process that committed without following) is
//! detected by its `eventSeq` and rebuilt on the next read. Reads through
//! [`RunFolders::state_document`] first wait for the writes queued before them.

mod document;
mod error;
mod format;
mod state_writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use switchyard_compiler::split_frontmatter;
use switchyard_config::atomic_file::{Durability, Readers, create_atomically, write_atomically};
use switchyard_core::event::EventKind;
use switchyard_core::{Control, RunId, SessionId};
use switchyard_runtime::clock::rfc3339;
use switchyard_runtime::{
    Committed, Follower, LoadedWorkflow, NodeRecord, PendingStep, RunContext, RunRecord, Runtime,
};

use crate::document::{
    Projection, StateRender, event_reaches, extend, parse_frontmatter, projection_of, read_projection,
};
pub use crate::error::Error;
use crate::format::write_iteration_state;
pub use crate::format::{
    ArtifactEntry, COMPLETE_TARGET, DOWNGRADED_FINDINGS_HEADING, DecisionEntry, HANDOFF_FILE, ITERATION_STATE_FILE,
    IterationState, MANIFEST_FILE, MANIFEST_LOCK_FILE, MAX_DECISION_LOG, MAX_STEPS_COMPLETED, Manifest, ManifestFile,
    STATE_DOCUMENT, STATE_SCHEMA_VERSION, StateFrontmatter, state_schema,
};
use crate::state_writer::{Document, StateWriter};

/// The most nodes a rebuild walks up the branch from the tip.
const MAX_BRANCH_WALK: usize = 64;
/// The most recent events a rebuild reads for decision notes.
const MAX_REBUILD_EVENTS: u32 = 256;
/// How many times a state document read takes the run's tip and last event again while the run
/// keeps moving.
const MAX_CONSISTENT_READS: usize = 3;
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

/// The run output folders under one root, kept current as the runtime's commits are followed.
#[derive(Debug)]
pub struct RunFolders {
    root: PathBuf,
    writer: StateWriter,
}

#[async_trait::async_trait]
impl Follower for RunFolders {
    async fn committed(&self, runtime: &Runtime, commit: &Committed<'_>) {
        if commit.started {
            self.open(runtime, commit);
            return;
        }
        self.append_downgraded_findings(commit);
        self.project(runtime, commit).await;
    }
}

impl RunFolders {
    /// Run folders under `root`, with a thread of their own that writes state documents.
    pub fn new(root: PathBuf) -> Self {
        Self { root, writer: StateWriter::start() }
    }

    /// Where run output folders are created.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The output folder of a session's run, `{output-root}/<session>/`.
    pub fn folder(&self, session: SessionId) -> PathBuf {
        self.root.join(session.to_string())
    }

    /// Waits until every state document regenerated so far is on disk. Reads through
    /// [`RunFolders::state_document`] do this themselves; it is for whoever reads the files
    /// directly.
    pub async fn flush(&self) {
        self.writer.flush().await;
    }

    /// The run's state document, regenerated first when it is missing or stale; on disk as
    /// returned.
    pub async fn state_document(&self, runtime: &Runtime, run: RunId) -> Result<StateDocument, Error> {
        self.load_state_document(runtime, run, false).await
    }

    /// Regenerates the run's state document now (after a file of the run folder changed, so its
    /// `artifacts` list is current) and returns it.
    pub async fn refresh_state_document(&self, runtime: &Runtime, run: RunId) -> Result<StateDocument, Error> {
        self.load_state_document(runtime, run, true).await
    }

    async fn load_state_document(&self, runtime: &Runtime, run: RunId, force: bool) -> Result<StateDocument, Error> {
        self.flush().await;
        let mut context = runtime.run_context(run).await?;
        let folder = self.folder(context.run.session);
        ensure_folder_files(&folder, &context)?;
        let mut session = runtime.session(context.run.session).await?;
        // The tip and the session's last event are two reads: when the run moved between them,
        // read both again, so a document never pairs an older tip with a newer event.
        for _ in 0..MAX_CONSISTENT_READS {
            let again = runtime.run_context(run).await?;
            if again.run.tip == context.run.tip {
                break;
            }
            context = again;
            session = runtime.session(context.run.session).await?;
        }
        let node = runtime.node(context.run.tip).await?;
        let existing = std::fs::read_to_string(folder.join(STATE_DOCUMENT)).ok();
        let parsed = existing.as_deref().and_then(parse_frontmatter);
        let fresh = parsed.as_ref().is_some_and(|frontmatter| {
            frontmatter.node_id == node.id.to_string() && frontmatter.event_seq == session.last_seq
        }) && folder.join(ITERATION_STATE_FILE).is_file();
        let pending = context.pending(&node.state);
        let (text, frontmatter) = match (existing, parsed) {
            (Some(text), Some(frontmatter)) if fresh && !force => (text, frontmatter),
            (_, parsed) => {
                let projection = match parsed.filter(|_| fresh) {
                    Some(frontmatter) => projection_of(frontmatter),
                    None => rebuild_projection(runtime, &context, &node, session.last_seq).await?,
                };
                let render = StateRender::new(
                    &folder,
                    &context,
                    node.clone(),
                    context.run.control,
                    projection,
                    pending.clone(),
                    runtime.now_ms(),
                );
                let text = self.write_state(render)?;
                // Whoever asked reads the file next, by any means: it is on disk when this returns.
                self.flush().await;
                let frontmatter =
                    parse_frontmatter(&text).ok_or_else(|| Error::Unreadable { folder: folder.clone() })?;
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

    /// The run's output folder with its `manifest.json` and state document, re-created from the
    /// store's facts when any of them is missing: a process killed (or a disk full) between a
    /// start's commit and its folder, or a folder someone deleted, never leaves the run without
    /// one. Outputs written before a folder was lost are not brought back; the manifest then lists
    /// none.
    pub async fn ensure(&self, runtime: &Runtime, run: &RunRecord) -> Result<PathBuf, Error> {
        let folder = self.folder(run.session);
        let complete =
            [MANIFEST_FILE, STATE_DOCUMENT, ITERATION_STATE_FILE].iter().all(|file| folder.join(file).is_file());
        if !complete {
            // Reading the state document re-creates the folder and the manifest, then the document.
            self.state_document(runtime, run.id).await?;
        }
        Ok(folder)
    }

    /// Creates the run folder of a run that just started. Failures are logged, never returned:
    /// the run is already durable, and whoever needs the folder later re-creates it
    /// ([`RunFolders::ensure`]).
    fn open(&self, runtime: &Runtime, commit: &Committed<'_>) {
        let (context, node) = (commit.context, commit.acted_on);
        let folder = self.folder(context.run.session);
        let result = (|| -> Result<(), Error> {
            ensure_folder_files(&folder, context)?;
            // Written here, not queued: the document exists when the start is answered, and
            // writing a new file costs no writeback (only a rename over an old one does).
            let projection = Projection { node: node.id.to_string(), seq: commit.last_seq, ..Projection::default() };
            let render = StateRender::new(
                &folder,
                context,
                node.clone(),
                Control::Running,
                projection,
                commit.step.cloned(),
                runtime.now_ms(),
            );
            write_atomically(
                &folder.join(STATE_DOCUMENT),
                render.render()?.as_bytes(),
                Durability::Cached,
                Readers::Anyone,
            )
            .map_err(|source| Error::io(format!("cannot write the state document in {}", folder.display()), source))?;
            write_iteration_state(&folder, &render.iteration_state());
            self.writer.written_elsewhere(&folder, render.projection);
            Ok(())
        })();
        if let Err(error) = result {
            tracing::warn!(run = %context.run.id, %error, "run folder not created; it is re-created when next needed");
        }
    }

    /// Appends the audit findings a command's `ReportWarned` events downgraded to the run
    /// folder's `_handoff.md`, under `## Downgraded Findings` (the section is started when the
    /// file does not end in it). Called once per committed command, so a replay appends nothing;
    /// failures are logged: the findings stay in the event log (`switchyard log`).
    fn append_downgraded_findings(&self, commit: &Committed<'_>) {
        let mut entries = String::new();
        for event in commit.events {
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
        let folder = self.folder(commit.context.run.session);
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
            tracing::warn!(run = %commit.context.run.id, %error, path = %path.display(), "downgraded findings not appended to the handoff notes; they are in the event log");
        }
    }

    /// Regenerates the state document after a command committed. Failures are logged: a stale
    /// document is rebuilt on its next read.
    async fn project(&self, runtime: &Runtime, commit: &Committed<'_>) {
        let (context, acted_on) = (commit.context, commit.acted_on);
        let folder = self.folder(context.run.session);
        let seq = commit.last_seq;
        let result = async {
            let previous = self.writer.projection(&folder).or_else(|| read_projection(&folder));
            let at = rfc3339(runtime.now_ms());
            let (tip, projection) = match commit.created {
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
                            extend(previous, acted_on, &record, commit.events, &at, seq)
                        }
                        _ => rebuild_projection(runtime, context, &record, seq).await?,
                    };
                    (record, projection)
                }
                None => {
                    let projection = match previous {
                        Some(previous) if previous.node == acted_on.id.to_string() => Projection { seq, ..previous },
                        _ => rebuild_projection(runtime, context, acted_on, seq).await?,
                    };
                    (acted_on.clone(), projection)
                }
            };
            let render = StateRender::new(
                &folder,
                context,
                tip,
                commit.control,
                projection,
                commit.step.cloned(),
                runtime.now_ms(),
            );
            self.queue_state(render);
            Ok::<(), Error>(())
        };
        if let Err(error) = result.await {
            tracing::warn!(run = %context.run.id, %error, "state document not regenerated; it is rebuilt on its next read");
        }
    }

    /// Renders the state document now, queues it for the state writer, and returns its text.
    fn write_state(&self, render: StateRender) -> Result<String, Error> {
        let text = render.render()?;
        let iteration = render.iteration_state();
        self.writer.write(&render.folder, Document::Text(text.clone(), iteration), render.projection);
        Ok(text)
    }

    /// Queues the state document to be rendered and written on the state writer's thread: nobody
    /// waits for its text, so the request that committed the event does not pay for it.
    fn queue_state(&self, render: StateRender) {
        let (folder, projection) = (render.folder.clone(), Arc::clone(&render.projection));
        self.writer.write(&folder, Document::Render(Box::new(render)), projection);
    }
}

/// Creates whatever is missing of `folder`, `state/` and `manifest.json`, idempotently: several
/// processes may do it at once. The manifest is written whole under a temporary name and linked
/// into place only if there is none yet, so nobody ever sees a partial one and an existing one
/// (with its files) is never replaced.
fn ensure_folder_files(folder: &Path, context: &RunContext) -> Result<(), Error> {
    let io = |what: &str, source: std::io::Error| Error::io(format!("{what} {}", folder.display()), source);
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
    let bytes =
        serde_json::to_vec_pretty(&manifest).map_err(|error| io("cannot encode the manifest of", error.into()))?;
    // The manifest's bytes are fsynced, since a manifest present but empty after a power cut
    // would refuse every later file write of the run. Its name is not: the run folder holding
    // it was just created and is not fsynced in its own parent, so a crash can lose the folder
    // either way, and a lost manifest is re-created from the store's facts (see
    // `RunFolders::ensure`).
    create_atomically(&manifest_path, &bytes, Durability::Content)
        .map(|_created| ())
        .map_err(|error| io("cannot write the manifest of", error))
}

/// The projection of `tip` from the store, bounded: at most [`MAX_BRANCH_WALK`] nodes up the
/// branch and the last [`MAX_REBUILD_EVENTS`] events of the session.
async fn rebuild_projection(
    runtime: &Runtime,
    context: &RunContext,
    tip: &NodeRecord,
    seq: u64,
) -> Result<Projection, Error> {
    let mut branch = vec![tip.clone()];
    let mut walked_to_start = tip.parent.is_none();
    while branch.len() < MAX_BRANCH_WALK {
        let Some(parent) = branch.last().and_then(|node| node.parent) else {
            walked_to_start = true;
            break;
        };
        branch.push(runtime.node(parent).await?);
    }
    branch.reverse();
    let events = runtime
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
        projection = extend(projection, parent, child, &kinds, at.as_deref().unwrap_or(""), seq);
    }
    Ok(projection)
}
