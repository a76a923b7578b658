//! The projection rules: one [`Projector::apply`] turns events into session, run and node rows,
//! used by every backend both while appending and when rebuilding, and by `verify` in memory.
//!
//! A backend implements [`ProjectionStore`] over its own transaction; [`Projections`] is the
//! in-memory implementation `verify` rebuilds into and compares with [`differences`].

use std::collections::BTreeMap;
use std::convert::Infallible;

use serde::Serialize;

use switchyard_core::event::EventKind;
use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_core::state::{Control, RunStatus};
use switchyard_core::workflow::WorkflowHash;

use crate::record::{NodeRecord, Problem, RunRecord, SessionRecord, StoredEvent, problem};

/// Rows the projector reads and writes.
pub trait ProjectionStore {
    type Error;
    fn session(&mut self, id: SessionId) -> Result<Option<SessionRecord>, Self::Error>;
    fn run(&mut self, id: RunId) -> Result<Option<RunRecord>, Self::Error>;
    fn node(&mut self, id: NodeId) -> Result<Option<NodeRecord>, Self::Error>;
    /// Inserts or replaces the session row.
    fn put_session(&mut self, record: SessionRecord) -> Result<(), Self::Error>;
    /// Inserts or replaces the run row; its session row exists.
    fn put_run(&mut self, record: RunRecord) -> Result<(), Self::Error>;
    /// Inserts or replaces the node row; its run row (and parent row, if any) exist, or are put
    /// by the same [`Projector::apply`].
    fn put_node(&mut self, record: NodeRecord) -> Result<(), Self::Error>;
}

/// Why an event could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyError<E> {
    /// The event does not fit the rows before it (names a missing session, run or node, or
    /// creates one twice). The message says which.
    Inconsistent(String),
    /// The backend failed to read or write a row.
    Store(E),
}

impl<E> From<E> for ApplyError<E> {
    fn from(error: E) -> Self {
        Self::Store(error)
    }
}

/// A run whose `RunStarted` was applied but whose first node was not yet: the run row is written
/// with the node, so every stored run has a tip.
#[derive(Debug, Clone)]
struct PendingRun {
    session: SessionId,
    workflow_id: String,
    workflow_hash: WorkflowHash,
    source: String,
    created_at_ms: i64,
}

/// Applies events in order. Use one projector per batch (or per session when rebuilding) and call
/// [`Projector::finish`] at the end.
#[derive(Debug, Default)]
pub struct Projector {
    pending: BTreeMap<RunId, PendingRun>,
}

impl Projector {
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies one event to the projections.
    pub fn apply<T: ProjectionStore>(
        &mut self,
        target: &mut T,
        event: &StoredEvent,
    ) -> Result<(), ApplyError<T::Error>> {
        let what = Described(event);
        let mut session = match &event.kind {
            EventKind::SessionCreated { goal, title, workspace, git_branch, git_head } => {
                if target.session(event.session)?.is_some() {
                    return Err(inconsistent(format!("{what} creates session {} a second time", event.session)));
                }
                SessionRecord {
                    id: event.session,
                    goal: goal.clone(),
                    title: title.clone(),
                    workflow_id: None,
                    run: None,
                    status: None,
                    workspace: workspace.clone(),
                    git_branch: git_branch.clone(),
                    git_head: git_head.clone(),
                    created_at_ms: event.at_ms,
                    updated_at_ms: event.at_ms,
                    last_seq: event.seq,
                }
            }
            _ => target
                .session(event.session)?
                .ok_or_else(|| inconsistent(format!("{what} comes before session {} was created", event.session)))?,
        };

        let run = match &event.kind {
            EventKind::SessionCreated { .. } => None,
            EventKind::RunStarted { workflow_id, workflow_hash, source, .. } => {
                let run = event.run.ok_or_else(|| inconsistent(format!("{what} names no run")))?;
                if self.pending.contains_key(&run) || target.run(run)?.is_some() {
                    return Err(inconsistent(format!("{what} starts run {run} a second time")));
                }
                self.pending.insert(
                    run,
                    PendingRun {
                        session: event.session,
                        workflow_id: workflow_id.clone(),
                        workflow_hash: *workflow_hash,
                        source: source.clone(),
                        created_at_ms: event.at_ms,
                    },
                );
                session.workflow_id = Some(workflow_id.clone());
                session.run = Some(run);
                None
            }
            EventKind::NodeCreated { node, parent, kind, cause, status, step, state } => {
                let run_id = event.run.ok_or_else(|| inconsistent(format!("{what} names no run")))?;
                let mut run = match self.pending.remove(&run_id) {
                    Some(pending) => RunRecord {
                        id: run_id,
                        session: pending.session,
                        workflow_id: pending.workflow_id,
                        workflow_hash: pending.workflow_hash,
                        source: pending.source,
                        control: Control::Running,
                        tip: *node,
                        status: *status,
                        node_count: 0,
                        created_at_ms: pending.created_at_ms,
                        updated_at_ms: event.at_ms,
                    },
                    None => existing_run(target, run_id, event, &what)?,
                };
                if target.node(*node)?.is_some() {
                    return Err(inconsistent(format!("{what} creates node {node} a second time")));
                }
                let parent_record = match parent {
                    Some(parent) => {
                        let record = target.node(*parent)?.ok_or_else(|| {
                            inconsistent(format!("{what} names parent node {parent}, which does not exist"))
                        })?;
                        if record.run != run_id {
                            return Err(inconsistent(format!(
                                "{what} names parent node {parent} of run {}, not of run {run_id}",
                                record.run
                            )));
                        }
                        Some(record)
                    }
                    None => None,
                };
                run.tip = *node;
                run.node_count += 1;
                run.status = match run.control {
                    Control::Running => *status,
                    Control::Paused => RunStatus::Paused,
                    Control::Stopped => RunStatus::Stopped,
                };
                target.put_node(NodeRecord {
                    id: *node,
                    run: run_id,
                    session: event.session,
                    parent: *parent,
                    kind: *kind,
                    cause: *cause,
                    step: step.clone(),
                    status: *status,
                    state: state.clone(),
                    child_count: 0,
                    created_seq: event.seq,
                    created_at_ms: event.at_ms,
                })?;
                if let Some(mut parent) = parent_record {
                    parent.child_count += 1;
                    target.put_node(parent)?;
                }
                Some(run)
            }
            EventKind::RunPaused { .. } | EventKind::RunStopped { .. } => {
                let run_id = event.run.ok_or_else(|| inconsistent(format!("{what} names no run")))?;
                let mut run = existing_run(target, run_id, event, &what)?;
                (run.control, run.status) = match event.kind {
                    EventKind::RunPaused { .. } => (Control::Paused, RunStatus::Paused),
                    _ => (Control::Stopped, RunStatus::Stopped),
                };
                Some(run)
            }
            EventKind::RunResumed => {
                let run_id = event.run.ok_or_else(|| inconsistent(format!("{what} names no run")))?;
                let mut run = existing_run(target, run_id, event, &what)?;
                let tip = target.node(run.tip)?.ok_or_else(|| {
                    inconsistent(format!("{what}: the tip {} of run {run_id} does not exist", run.tip))
                })?;
                run.control = Control::Running;
                run.status = tip.status;
                Some(run)
            }
            EventKind::RunCompleted { .. } | EventKind::RunFailed { .. } => {
                let run_id = event.run.ok_or_else(|| inconsistent(format!("{what} names no run")))?;
                let mut run = existing_run(target, run_id, event, &what)?;
                run.status = match event.kind {
                    EventKind::RunCompleted { .. } => RunStatus::Completed,
                    _ => RunStatus::Failed,
                };
                Some(run)
            }
            EventKind::AdvanceRecorded { .. }
            | EventKind::ReportWarned { .. }
            | EventKind::EvidenceRecorded { .. }
            | EventKind::DecisionRecorded { .. }
            | EventKind::GateDecided { .. }
            | EventKind::HumanDecided { .. }
            | EventKind::CheckpointRecorded { .. }
            | EventKind::ModelTurn(_) => match event.run {
                Some(run_id) if !self.pending.contains_key(&run_id) => {
                    Some(existing_run(target, run_id, event, &what)?)
                }
                Some(run_id) => {
                    return Err(inconsistent(format!("{what} comes before the first node of run {run_id}")));
                }
                None => None,
            },
        };

        if let Some(mut run) = run {
            run.updated_at_ms = event.at_ms;
            if session.run == Some(run.id) {
                session.status = Some(run.status);
            }
            target.put_run(run)?;
        } else if let Some(current) = session.run.filter(|run| !self.pending.contains_key(run)) {
            session.status = target.run(current)?.map(|run| run.status);
        }
        session.updated_at_ms = event.at_ms;
        session.last_seq = event.seq;
        target.put_session(session)?;
        Ok(())
    }

    /// Ends a batch or a replay: every started run must have its first node.
    pub fn finish(self) -> Result<(), String> {
        match self.pending.keys().next() {
            Some(run) => Err(format!(
                "run {run} was started without its first node: a run_started event must be followed by the run's node_created in the same batch"
            )),
            None => Ok(()),
        }
    }
}

/// An event as an inconsistency names it, formatted only when one is reported.
struct Described<'a>(&'a StoredEvent);

impl std::fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Described(event) = self;
        write!(f, "event {} (seq {}, {})", event.id, event.seq, event.kind.name())
    }
}

fn inconsistent<E>(message: String) -> ApplyError<E> {
    ApplyError::Inconsistent(message)
}

fn existing_run<T: ProjectionStore>(
    target: &mut T,
    run_id: RunId,
    event: &StoredEvent,
    what: &Described<'_>,
) -> Result<RunRecord, ApplyError<T::Error>> {
    let run =
        target.run(run_id)?.ok_or_else(|| inconsistent(format!("{what} names run {run_id}, which does not exist")))?;
    if run.session != event.session {
        return Err(inconsistent(format!(
            "{what} in session {} names run {run_id} of session {}",
            event.session, run.session
        )));
    }
    Ok(run)
}

/// Projections held in memory.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Projections {
    pub sessions: BTreeMap<SessionId, SessionRecord>,
    pub runs: BTreeMap<RunId, RunRecord>,
    pub nodes: BTreeMap<NodeId, NodeRecord>,
}

impl ProjectionStore for Projections {
    type Error = Infallible;

    fn session(&mut self, id: SessionId) -> Result<Option<SessionRecord>, Infallible> {
        Ok(self.sessions.get(&id).cloned())
    }

    fn run(&mut self, id: RunId) -> Result<Option<RunRecord>, Infallible> {
        Ok(self.runs.get(&id).cloned())
    }

    fn node(&mut self, id: NodeId) -> Result<Option<NodeRecord>, Infallible> {
        Ok(self.nodes.get(&id).cloned())
    }

    fn put_session(&mut self, record: SessionRecord) -> Result<(), Infallible> {
        self.sessions.insert(record.id, record);
        Ok(())
    }

    fn put_run(&mut self, record: RunRecord) -> Result<(), Infallible> {
        self.runs.insert(record.id, record);
        Ok(())
    }

    fn put_node(&mut self, record: NodeRecord) -> Result<(), Infallible> {
        self.nodes.insert(record.id, record);
        Ok(())
    }
}

/// Every difference between the projections the events give (`expected`) and the stored ones,
/// naming the table, the row and the field.
pub fn differences(expected: &Projections, stored: &Projections) -> Vec<Problem> {
    let mut problems = Vec::new();
    compare_table("sessions", &expected.sessions, &stored.sessions, |row| (row.id, None), &mut problems);
    compare_table("runs", &expected.runs, &stored.runs, |row| (row.session, None), &mut problems);
    compare_table("nodes", &expected.nodes, &stored.nodes, |row| (row.session, Some(row.created_seq)), &mut problems);
    problems
}

fn compare_table<K: Ord + std::fmt::Display, V: Serialize + PartialEq>(
    table: &str,
    expected: &BTreeMap<K, V>,
    stored: &BTreeMap<K, V>,
    locate: impl Fn(&V) -> (SessionId, Option<u64>),
    problems: &mut Vec<Problem>,
) {
    for (key, want) in expected {
        let (session, seq) = locate(want);
        match stored.get(key) {
            None => problems.push(Problem {
                code: problem::PROJECTION_MISSING.to_owned(),
                session: Some(session),
                seq,
                message: format!("{table} row {key} is missing; the events create it"),
            }),
            Some(have) if have != want => {
                let want_json = serde_json::to_value(want).unwrap_or_default();
                let have_json = serde_json::to_value(have).unwrap_or_default();
                let empty = serde_json::Map::new();
                let want_fields = want_json.as_object().unwrap_or(&empty);
                let have_fields = have_json.as_object().unwrap_or(&empty);
                for (field, want_value) in want_fields {
                    let have_value = have_fields.get(field).unwrap_or(&serde_json::Value::Null);
                    if have_value != want_value {
                        problems.push(Problem {
                            code: problem::PROJECTION_DIFFERS.to_owned(),
                            session: Some(session),
                            seq,
                            message: format!(
                                "{table} row {key} field `{field}` is {have_value} in the store, the events give {want_value}"
                            ),
                        });
                    }
                }
            }
            Some(_) => {}
        }
    }
    for (key, have) in stored {
        if !expected.contains_key(key) {
            let (session, seq) = locate(have);
            problems.push(Problem {
                code: problem::PROJECTION_EXTRA.to_owned(),
                session: Some(session),
                seq,
                message: format!("{table} row {key} is stored but no event creates it"),
            });
        }
    }
}
