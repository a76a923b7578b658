//! The one API every switchyard door uses.
//!
//! [`Runtime`] finds workflows, starts runs, turns tokens into (run, node, attempt), asks the
//! engine for the transition, appends it to the store in one batch, and shapes the answer.
//! It decides no engine rule itself: `switchyard_engine::transition` does.

pub mod atomic_file;
pub mod attached;
pub mod catalog;
pub mod clock;
pub mod config;
pub mod error;
pub mod health;
pub mod keys;
pub mod response;
mod resume;
pub mod run_folder;
mod state_writer;
pub mod tool_schema;
pub mod workspace;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use switchyard_core::event::{EventKind, NodeCause, WorkflowFile};
use switchyard_core::hash::{canonical_json, sha256_hex};
use switchyard_core::limits::MAX_GOAL_BYTES;
use switchyard_core::state::{DecisionOption, Phase};
use switchyard_core::token::{Keyring, TokenError, TokenKind};
use switchyard_core::workflow::EdgeTarget;
use switchyard_core::{AttemptId, Control, NodeId, NodeState, RunId, RunStatus, SessionId, Workflow, WorkflowHash};
use switchyard_engine::{Command, Fresh, LoadedWorkflow, RunView, Transition};
use switchyard_store::{
    Appended, Batch, Claim, NewEvent, NodeRecord, RunGuard, RunRecord, SessionRecord, Store, TokenRecord,
};
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};

pub use crate::catalog::{Catalog, Found, Location, Origin};
use crate::clock::{Clock, IdSource, RandomIds, SystemClock};
pub use crate::config::{Config, Overrides};
pub use crate::error::{Error, ErrorClass};
pub use crate::response::{
    CheckpointResponse, DecisionView, FailureView, GateView, Progress, ResponseKind, StepResponse, Tokens, WorkflowRef,
};
// What doors name or show of the compiler's output as it is (diagnostics, source formats, a
// bundle's files), the native format's schema and its writer: doors depend on the runtime only.
pub use switchyard_compiler::{Bundle, Diagnostic, Format, MAX_BUNDLE_BYTES, native_schema, to_native_yaml};

pub use crate::resume::{Confidence, MAX_RESUME_CANDIDATES, RECAP_BUDGET_BYTES, Recap, ResumeCandidate, ResumeRequest};

/// What to start.
#[derive(Debug, Clone, Default)]
pub struct StartRequest {
    /// A workflow name, found through discovery.
    pub workflow: Option<String>,
    /// A workflow file, used instead of discovery.
    pub file: Option<PathBuf>,
    pub goal: String,
    pub context: Map<String, Value>,
    /// The workspace the run is about (its git branch and HEAD are recorded).
    pub workspace: Option<PathBuf>,
}

/// An agent's report on a step.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AdvanceInput {
    pub notes: Option<String>,
    pub artifacts: Option<Value>,
    /// A context delta: a `null` value deletes the key.
    pub context: Option<Map<String, Value>>,
    /// The label of the edge to take, where the agent decides.
    pub choice: Option<String>,
}

/// How a door names a point in a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Session(SessionId),
    Run(RunId),
    Node(NodeId),
    /// A `ct_`, `st_` or `ck_` token.
    Token(String),
}

impl std::str::FromStr for Target {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let text = text.trim();
        if text.starts_with(SessionId::PREFIX) {
            text.parse().map(Self::Session).map_err(|error| Error::invalid_input(error.to_string()))
        } else if text.starts_with(RunId::PREFIX) {
            text.parse().map(Self::Run).map_err(|error| Error::invalid_input(error.to_string()))
        } else if text.starts_with(NodeId::PREFIX) {
            text.parse().map(Self::Node).map_err(|error| Error::invalid_input(error.to_string()))
        } else if TokenKind::ALL.iter().any(|kind| text.starts_with(kind.prefix())) {
            Ok(Self::Token(text.to_owned()))
        } else {
            Err(Error::invalid_input(format!(
                "`{text}` names nothing switchyard knows: pass a run id (`run_…`), a session id (`sess_…`), a node id (`node_…`) or a token (`ct_…`, `st_…`, `ck_…`)"
            )))
        }
    }
}

/// How many times a command is decided when its batches keep going stale (a human pausing and
/// resuming the run in the same instant, over and over).
const MAX_DECISIONS: usize = 3;

/// A run with what every command on it needs.
struct RunContext {
    run: RunRecord,
    goal: String,
    workflow: Arc<LoadedWorkflow>,
}

/// The switchyard runtime.
#[derive(Debug)]
pub struct Runtime {
    store: Arc<dyn Store>,
    store_label: String,
    keys: Keyring,
    catalog: Catalog,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    /// Loaded workflows by hash, shared with the runtimes `for_workspace` derives.
    loaded: Arc<Mutex<HashMap<WorkflowHash, Arc<LoadedWorkflow>>>>,
    /// Where run output folders go; `None`: no run folders (see `run_folder`).
    output_root: Option<PathBuf>,
    /// Writes state documents off the request path; present with `output_root`, shared with the
    /// runtimes `for_workspace` derives.
    state_writer: Option<Arc<state_writer::StateWriter>>,
}

/// The parts a runtime is built from; tests and benchmarks pass their own.
#[derive(Debug)]
pub struct Parts {
    pub store: Arc<dyn Store>,
    pub store_label: String,
    pub keys: Keyring,
    pub catalog: Catalog,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdSource>,
}

impl Runtime {
    /// Opens the embedded SQLite store and the key file named by `config`, creating them on
    /// first use.
    pub async fn open(config: &Config) -> Result<Self, Error> {
        std::fs::create_dir_all(&config.home).map_err(|error| {
            Error::environment(format!("cannot create switchyard home {}: {error}", config.home.display()))
        })?;
        let ids: Arc<dyn IdSource> = Arc::new(RandomIds);
        let keys = keys::load_or_create(&config.home, ids.as_ref())?;
        let store = SqliteStore::open(&config.store_path, SqliteOptions::default())?;
        Ok(Self::from_parts(Parts {
            store: Arc::new(store),
            store_label: config.store_path.display().to_string(),
            keys,
            catalog: Catalog::new(config.project_root.as_deref(), &config.home),
            clock: Arc::new(SystemClock),
            ids,
        })
        .with_output_root(config.output_root.clone()))
    }

    pub fn from_parts(parts: Parts) -> Self {
        Self {
            store: parts.store,
            store_label: parts.store_label,
            keys: parts.keys,
            catalog: parts.catalog,
            clock: parts.clock,
            ids: parts.ids,
            loaded: Arc::default(),
            output_root: None,
            state_writer: None,
        }
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Attaches a workflow folder for this user: discovery searches it after the user's own
    /// folder, in every workspace. Idempotent; the folder must exist and is kept canonical.
    ///
    /// An agent may call this (MCP `manage_workflow_source`), so a folder it can write (the
    /// project, the run output folders) or switchyard's home is refused: attaching must never make
    /// what an agent wrote a workflow that later runs load.
    pub fn attach_workflow_source(&self, path: &Path) -> Result<attached::SourceChange, Error> {
        let project_root = self.catalog.project_dir.as_deref().and_then(Path::parent).and_then(Path::parent);
        let off_limits = attached::OffLimits {
            writable: project_root.into_iter().chain(self.output_root.as_deref()).map(Path::to_owned).collect(),
            home: self.catalog.attached_file.parent().map(Path::to_owned),
        };
        attached::attach(&self.catalog.attached_file, path, &off_limits)
    }

    /// Detaches a workflow folder attached before; detaching one that is not attached changes
    /// nothing.
    pub fn detach_workflow_source(&self, path: &Path) -> Result<attached::SourceChange, Error> {
        attached::detach(&self.catalog.attached_file, path)
    }

    pub fn store(&self) -> &dyn Store {
        self.store.as_ref()
    }

    /// Milliseconds since the Unix epoch by the runtime's clock: the one clock of switchyard, so
    /// times a door records (manifest entries) agree with the events' and follow a test's clock.
    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    /// Finds a workflow by name or file and compiles it.
    pub fn find_workflow(&self, name: Option<&str>, file: Option<&Path>) -> Result<Found, Error> {
        match (name, file) {
            (_, Some(file)) => Catalog::file(file),
            (Some(name), None) => self.catalog.find(name),
            (None, None) => Err(Error::invalid_input("name a workflow, or pass --file")),
        }
    }

    // ---------------------------------------------------------------- starting

    /// Starts a run of a workflow and returns its first pending step.
    pub async fn start(&self, request: StartRequest) -> Result<StepResponse, Error> {
        if request.goal.len() > MAX_GOAL_BYTES {
            return Err(Error::invalid_input(format!(
                "the goal is {} bytes; the limit is {MAX_GOAL_BYTES}: put long material in a file and refer to it",
                request.goal.len()
            )));
        }
        let found = self.find_workflow(request.workflow.as_deref(), request.file.as_deref())?;
        let Some(workflow) = found.compiled.workflow.clone() else {
            return Err(Error::InvalidWorkflow {
                name: found.name,
                source_path: found.location.path,
                diagnostics: found.compiled.diagnostics,
            });
        };
        let loaded = self.load(workflow)?;
        let (session, run, node) = (self.ids.session(), self.ids.run(), self.ids.node());
        let started = switchyard_engine::start(&loaded, &request.goal, request.context, Fresh { node })?;
        let (git_branch, git_head) = match &request.workspace {
            Some(dir) => workspace::git_facts(dir).await,
            None => (None, None),
        };
        let mut events = vec![
            EventKind::SessionCreated {
                goal: request.goal.clone(),
                title: title_of(&request.goal, &loaded.workflow),
                workspace: request.workspace.as_ref().map(|dir| dir.display().to_string()),
                git_branch,
                git_head,
            },
            EventKind::RunStarted {
                workflow_id: loaded.workflow.id.clone(),
                workflow_hash: loaded.hash,
                source: found.location.describe(),
                references: workflow_files(&found),
            },
        ];
        events.extend(started.events);
        let (node_id, state) =
            started.node.ok_or_else(|| Error::environment("the engine started a run without a node"))?;
        let tokens = self.fresh_tokens(session, run, node_id, Offered::at(&state, Control::Running));
        let events = self.stamp(run, events);
        let started_at_ms = events.first().map_or(0, |event| event.at_ms);
        let batch = Batch {
            session,
            events,
            claim: None,
            tokens: tokens.records.clone(),
            pin: Some(loaded.workflow.clone()),
            guard: None,
        };
        let appended = self.store.append(batch).await?;
        let context = RunContext {
            run: RunRecord {
                id: run,
                session,
                workflow_id: loaded.workflow.id.clone(),
                workflow_hash: loaded.hash,
                source: found.location.describe(),
                control: Control::Running,
                tip: node_id,
                status: state.status(),
                node_count: 1,
                created_at_ms: started_at_ms,
                updated_at_ms: started_at_ms,
            },
            goal: request.goal,
            workflow: loaded,
        };
        let response =
            self.respond(&context, node_id, &state, Control::Running, tokens.minted(&self.keys), Flags::default());
        if let (Appended::Committed { last_seq, .. }, true) = (appended, self.output_root.is_some()) {
            let node = self.node_record(node_id).await?;
            self.open_run_folder(&context, &node, last_seq, response.step.as_ref());
        }
        Ok(response)
    }

    // ---------------------------------------------------------------- advancing

    /// Advances the step a continue token names. With `expected_run`, a token of another run is
    /// refused (`TOKEN_WRONG_RUN`): a guard against a token pasted from another conversation.
    pub async fn advance(
        &self,
        continue_token: &str,
        expected_run: Option<RunId>,
        input: AdvanceInput,
    ) -> Result<StepResponse, Error> {
        self.deciding_again(|| self.advance_once(continue_token, expected_run, input.clone(), None)).await
    }

    /// Advances the step a continue token names to the step `to` (or the end of the run): the
    /// engine takes the edge that leads there, exactly as if its label were `input.choice`,
    /// and refuses with `NO_EDGE_TO_STEP`, naming the allowed next steps, when none does. For
    /// doors that name where to go rather than how (the state document's `currentNodeId`).
    pub async fn advance_to(
        &self,
        continue_token: &str,
        expected_run: Option<RunId>,
        input: AdvanceInput,
        to: EdgeTarget,
    ) -> Result<StepResponse, Error> {
        self.deciding_again(|| self.advance_once(continue_token, expected_run, input.clone(), Some(to.clone()))).await
    }

    async fn advance_once(
        &self,
        continue_token: &str,
        expected_run: Option<RunId>,
        input: AdvanceInput,
        to: Option<EdgeTarget>,
    ) -> Result<StepResponse, Error> {
        let (record, context, node) = self.token_scope(continue_token, TokenKind::Continue, expected_run).await?;
        let attempt =
            record.attempt.ok_or_else(|| Error::environment("a continue token was stored without an attempt"))?;
        let key = format!("advance:{}:{attempt}", record.node);
        // A plain advance keeps the payload it always had, so recorded calls still match.
        let payload = match &to {
            None => sha256_hex(&canonical_json(&input)),
            Some(to) => sha256_hex(&canonical_json(&serde_json::json!({ "input": input, "to": to }))),
        };
        if let Some(recorded) = self.store.recorded(&key).await? {
            return self.replay(&recorded, &payload).await;
        }
        let advance = switchyard_engine::Advance {
            attempt,
            notes: input.notes,
            artifacts: input.artifacts,
            context: input.context,
            choice: input.choice,
        };
        let command = match to {
            Some(to) => Command::AdvanceTo { advance, to },
            None => Command::Advance(advance),
        };
        self.execute(&context, &node, command, Some((key, payload))).await
    }

    /// Approves the result a gate waits on.
    pub async fn approve(&self, run: RunId, note: Option<String>) -> Result<StepResponse, Error> {
        self.act_on_tip(run, "gate", Command::Approve { note }).await
    }

    /// Rejects the result a gate waits on; the step is handed back with `reason`.
    pub async fn reject(&self, run: RunId, reason: String) -> Result<StepResponse, Error> {
        self.act_on_tip(run, "gate", Command::Reject { reason }).await
    }

    /// Picks one of the options a run waiting for a human decision offers.
    pub async fn decide(
        &self,
        run: RunId,
        option: DecisionOption,
        note: Option<String>,
    ) -> Result<StepResponse, Error> {
        self.act_on_tip(run, "decide", Command::Decide { option, note }).await
    }

    pub async fn pause(&self, run: RunId, reason: Option<String>) -> Result<StepResponse, Error> {
        self.control(run, Command::Pause { reason }).await
    }

    pub async fn resume(&self, run: RunId) -> Result<StepResponse, Error> {
        self.control(run, Command::Resume).await
    }

    pub async fn stop(&self, run: RunId, reason: Option<String>) -> Result<StepResponse, Error> {
        self.control(run, Command::Stop { reason }).await
    }

    /// Records notes on a node without advancing.
    pub async fn checkpoint(
        &self,
        checkpoint_token: &str,
        expected_run: Option<RunId>,
        notes: Option<String>,
    ) -> Result<CheckpointResponse, Error> {
        self.deciding_again(|| self.checkpoint_once(checkpoint_token, expected_run, notes.clone())).await
    }

    async fn checkpoint_once(
        &self,
        checkpoint_token: &str,
        expected_run: Option<RunId>,
        notes: Option<String>,
    ) -> Result<CheckpointResponse, Error> {
        let (record, context, node) = self.token_scope(checkpoint_token, TokenKind::Checkpoint, expected_run).await?;
        let attempt = record.attempt.unwrap_or_else(|| AttemptId::first_for(record.node));
        let key = format!("checkpoint:{}:{attempt}", record.node);
        let payload = sha256_hex(&canonical_json(&notes));
        let response =
            |replayed| CheckpointResponse { session: record.session, run: record.run, node: record.node, replayed };
        if let Some(recorded) = self.store.recorded(&key).await? {
            check_payload(&recorded.payload_sha256, &payload)?;
            return Ok(response(true));
        }
        let transition = switchyard_engine::transition(
            &context.workflow,
            self.view(&context, &node),
            Command::Checkpoint { attempt: Some(attempt), notes },
            Fresh { node: self.ids.node() },
        )?;
        let claim = Claim { key, payload_sha256: payload.clone(), outcome: serde_json::json!({ "node": record.node }) };
        let projected = self.output_root.is_some().then(|| transition.events.clone());
        match self.append(&context, transition.events, Some(claim), Vec::new()).await? {
            Appended::Committed { last_seq, .. } => {
                if let Some(events) = projected {
                    let pending = self.pending_of(&context, &node.state);
                    self.project_event(&context, &node, None, context.run.control, last_seq, &events, pending.as_ref())
                        .await;
                }
                Ok(response(false))
            }
            Appended::AlreadyRecorded(recorded) => {
                check_payload(&recorded.payload_sha256, &payload)?;
                Ok(response(true))
            }
        }
    }

    // ---------------------------------------------------------------- looking

    /// The pending step at a point of a run, with tokens to act on it. On a node that was
    /// already acted on, the continue token is a fresh attempt: advancing it forks the run.
    pub async fn show(&self, target: &Target) -> Result<StepResponse, Error> {
        let (run, node, attempt) = self.resolve(target).await?;
        let context = self.run_context(run).await?;
        let node = self.node_record(node).await?;
        let attempt = match attempt {
            Some(attempt) if self.store.recorded(&format!("advance:{}:{attempt}", node.id)).await?.is_none() => attempt,
            _ => self.open_attempt(node.id).await?,
        };
        let tokens = self.tokens_for(&context, node.id, &node.state, attempt).await?;
        Ok(self.respond(&context, node.id, &node.state, context.run.control, tokens, Flags::default()))
    }

    /// The continue token of a node's first attempt, used or not (`None` where the node takes no
    /// advance). A door that moves "the current step" without naming an attempt advances with
    /// it: if another caller moved the node first, the advance replays (same report) or is
    /// refused with `REPLAY_MISMATCH`, where a token from [`Runtime::show`] would fork the run.
    pub async fn first_attempt_token(&self, node: NodeId) -> Result<Option<String>, Error> {
        let node = self.node_record(node).await?;
        let context = self.run_context(node.run).await?;
        let tokens = self.tokens_for(&context, node.id, &node.state, AttemptId::first_for(node.id)).await?;
        Ok(tokens.continue_token)
    }

    pub async fn run(&self, target: &Target) -> Result<RunRecord, Error> {
        let (run, _, _) = self.resolve(target).await?;
        self.store.run(run).await?.ok_or_else(|| self.not_found("run", run.to_string()))
    }

    pub async fn session(&self, id: SessionId) -> Result<SessionRecord, Error> {
        self.store.session(id).await?.ok_or_else(|| self.not_found("session", id.to_string()))
    }

    pub async fn sessions(&self, query: switchyard_store::SessionQuery) -> Result<Vec<SessionRecord>, Error> {
        Ok(self.store.list_sessions(query).await?)
    }

    pub async fn run_nodes(&self, run: RunId) -> Result<Vec<NodeRecord>, Error> {
        Ok(self.store.run_nodes(run).await?)
    }

    pub async fn events(
        &self,
        session: SessionId,
        after_seq: u64,
        limit: u32,
    ) -> Result<Vec<switchyard_store::StoredEvent>, Error> {
        Ok(self.store.events(session, after_seq, limit).await?)
    }

    pub async fn verify(&self) -> Result<switchyard_store::VerifyReport, Error> {
        Ok(self.store.verify().await?)
    }

    /// The files the run's workflow refers to, as its source listed them when the run started
    /// (the workflow file itself, then the compiler's `Compiled::references`): what the source
    /// on disk says now does not change them. Empty for built-in workflows.
    ///
    /// Runs started before the list was recorded get it from their source as it is now, but only
    /// while it still compiles to the pinned workflow: an edited source no longer says what the
    /// run started from.
    pub async fn workflow_files(&self, run: RunId) -> Result<Vec<WorkflowFile>, Error> {
        let record = self.store.run(run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
        // A session's first events are its creation and its run's start.
        let events = self.store.events(record.session, 0, 8).await?;
        let recorded = events
            .into_iter()
            .filter(|event| event.run == Some(run))
            .find_map(|event| match event.kind {
                EventKind::RunStarted { references, .. } => Some(references),
                _ => None,
            })
            .unwrap_or_default();
        if !recorded.is_empty() {
            return Ok(recorded);
        }
        let Some((_, path)) = record.source.split_once(':').filter(|(origin, _)| *origin != "builtin") else {
            return Ok(Vec::new());
        };
        let path = Path::new(path);
        let found = if catalog::is_bundle_path(path) {
            Catalog::bundle(path)
        } else {
            Catalog::file(path).map(|found| vec![found])
        };
        Ok(found
            .unwrap_or_default()
            .iter()
            .find(|found| {
                found.compiled.workflow.as_ref().is_some_and(|workflow| workflow.hash() == record.workflow_hash)
            })
            .map(workflow_files)
            .unwrap_or_default())
    }

    /// The workflow a run is pinned to, as stored when it started.
    pub async fn pinned_workflow(&self, hash: WorkflowHash) -> Result<Arc<LoadedWorkflow>, Error> {
        self.loaded_by_hash(hash).await
    }

    // ---------------------------------------------------------------- internals

    async fn act_on_tip(&self, run: RunId, key_kind: &str, command: Command) -> Result<StepResponse, Error> {
        self.deciding_again(|| async {
            let context = self.run_context(run).await?;
            let node = self.node_record(context.run.tip).await?;
            let key = format!("{key_kind}:{}", node.id);
            let payload = sha256_hex(&canonical_json(&command_payload(&command)));
            if let Some(recorded) = self.store.recorded(&key).await? {
                return self.replay(&recorded, &payload).await;
            }
            self.execute(&context, &node, command.clone(), Some((key, payload))).await
        })
        .await
    }

    async fn control(&self, run: RunId, command: Command) -> Result<StepResponse, Error> {
        self.deciding_again(|| async {
            let context = self.run_context(run).await?;
            let node = self.node_record(context.run.tip).await?;
            self.execute(&context, &node, command.clone(), None).await
        })
        .await
    }

    /// Runs a command again when its batch went stale: the run was paused, resumed or stopped
    /// between the transition and the commit (`STORE_STALE`, nothing written). The next attempt
    /// reads the run again, so the engine decides on what it is now.
    async fn deciding_again<T, Attempt>(&self, mut attempt: impl FnMut() -> Attempt) -> Result<T, Error>
    where
        Attempt: Future<Output = Result<T, Error>>,
    {
        for _ in 1..MAX_DECISIONS {
            match attempt().await {
                Err(Error::Store(switchyard_store::Error::Stale { .. })) => {}
                result => return result,
            }
        }
        attempt().await
    }

    /// Asks the engine for the transition, appends it, and answers.
    async fn execute(
        &self,
        context: &RunContext,
        node: &NodeRecord,
        command: Command,
        claim: Option<(String, String)>,
    ) -> Result<StepResponse, Error> {
        let fresh = Fresh { node: self.ids.node() };
        let Transition { events, node: created, control } =
            switchyard_engine::transition(&context.workflow, self.view(context, node), command, fresh)?;
        let forked = events.iter().any(|event| matches!(event, EventKind::NodeCreated { cause: NodeCause::Fork, .. }));
        let (target_id, target_state) = match &created {
            Some((id, state)) => (*id, state.clone()),
            None => (node.id, node.state.clone()),
        };
        let tokens = match &created {
            Some((id, state)) => {
                self.fresh_tokens(context.run.session, context.run.id, *id, Offered::at(state, control))
            }
            None => NewTokens::default(),
        };
        let payload = claim.as_ref().map(|(_, payload)| payload.clone());
        let claim = claim.map(|(key, payload_sha256)| Claim {
            key,
            payload_sha256,
            outcome: serde_json::json!({ "node": target_id }),
        });
        let projected = self.output_root.is_some().then(|| events.clone());
        match self.append(context, events, claim, tokens.records.clone()).await? {
            Appended::Committed { last_seq, .. } => {
                let minted = if tokens.records.is_empty() {
                    self.tokens_for(context, target_id, &target_state, AttemptId::first_for(target_id)).await?
                } else {
                    tokens.minted(&self.keys)
                };
                let response =
                    self.respond(context, target_id, &target_state, control, minted, Flags { forked, replayed: false });
                if let Some(events) = projected {
                    let created = created.as_ref().map(|(id, state)| (*id, state));
                    self.project_event(context, node, created, control, last_seq, &events, response.step.as_ref())
                        .await;
                }
                Ok(response)
            }
            Appended::AlreadyRecorded(recorded) => self.replay(&recorded, payload.as_deref().unwrap_or_default()).await,
        }
    }

    async fn append(
        &self,
        context: &RunContext,
        events: Vec<EventKind>,
        claim: Option<Claim>,
        tokens: Vec<TokenRecord>,
    ) -> Result<Appended, Error> {
        let batch = Batch {
            session: context.run.session,
            events: self.stamp(context.run.id, events),
            claim,
            tokens,
            pin: None,
            guard: Some(RunGuard { run: context.run.id, control: context.run.control }),
        };
        Ok(self.store.append(batch).await?)
    }

    /// Answers a call that was already made, from what was recorded; advances nothing.
    async fn replay(&self, recorded: &switchyard_store::Recorded, payload: &str) -> Result<StepResponse, Error> {
        check_payload(&recorded.payload_sha256, payload)?;
        let node: NodeId =
            recorded.outcome.get("node").and_then(Value::as_str).and_then(|text| text.parse().ok()).ok_or_else(
                || Error::environment(format!("the recorded outcome of `{}` is unreadable", recorded.key)),
            )?;
        let node = self.node_record(node).await?;
        let context = self.run_context(node.run).await?;
        let tokens = self.tokens_for(&context, node.id, &node.state, AttemptId::first_for(node.id)).await?;
        let forked = node.cause == NodeCause::Fork;
        Ok(self.respond(&context, node.id, &node.state, context.run.control, tokens, Flags { forked, replayed: true }))
    }

    fn view<'a>(&self, context: &'a RunContext, node: &'a NodeRecord) -> RunView<'a> {
        RunView {
            control: context.run.control,
            node: node.id,
            state: &node.state,
            has_children: node.child_count > 0,
            goal: &context.goal,
        }
    }

    fn stamp(&self, run: RunId, events: Vec<EventKind>) -> Vec<NewEvent> {
        let at_ms = self.clock.now_ms();
        events.into_iter().map(|kind| NewEvent { id: self.ids.event(), run: Some(run), at_ms, kind }).collect()
    }

    /// Token records for a node created by this command; nothing can hold its positions yet.
    fn fresh_tokens(&self, session: SessionId, run: RunId, node: NodeId, offered: Offered) -> NewTokens {
        let attempt = Some(AttemptId::first_for(node));
        let record = |kind, attempt| TokenRecord { nonce: self.ids.nonce(), kind, session, run, node, attempt };
        let mut records = vec![record(TokenKind::State, None)];
        if offered.checkpoint {
            records.push(record(TokenKind::Checkpoint, attempt));
        }
        if offered.advance {
            records.push(record(TokenKind::Continue, attempt));
        }
        NewTokens { records }
    }

    /// The tokens of an existing node, re-minted identically when they were minted before.
    async fn tokens_for(
        &self,
        context: &RunContext,
        node: NodeId,
        state: &NodeState,
        attempt: AttemptId,
    ) -> Result<Tokens, Error> {
        let claim = |kind, attempt| {
            let record = TokenRecord {
                nonce: self.ids.nonce(),
                kind,
                session: context.run.session,
                run: context.run.id,
                node,
                attempt,
            };
            async move { self.store.claim_token(record).await.map(|nonce| self.keys.mint(kind, nonce).to_string()) }
        };
        let offered = Offered::at(state, context.run.control);
        Ok(Tokens {
            continue_token: if offered.advance { Some(claim(TokenKind::Continue, Some(attempt)).await?) } else { None },
            checkpoint_token: if offered.checkpoint {
                Some(claim(TokenKind::Checkpoint, Some(AttemptId::first_for(node))).await?)
            } else {
                None
            },
            state_token: claim(TokenKind::State, None).await?,
        })
    }

    /// An attempt on `node` that has not been used yet: the first one, or a fresh one.
    async fn open_attempt(&self, node: NodeId) -> Result<AttemptId, Error> {
        let first = AttemptId::first_for(node);
        if self.store.recorded(&format!("advance:{node}:{first}")).await?.is_none() {
            Ok(first)
        } else {
            Ok(self.ids.attempt())
        }
    }

    async fn resolve(&self, target: &Target) -> Result<(RunId, NodeId, Option<AttemptId>), Error> {
        match target {
            Target::Run(run) => {
                let record = self.store.run(*run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
                Ok((record.id, record.tip, None))
            }
            Target::Session(session) => {
                let record = self.session(*session).await?;
                let run = record.run.ok_or_else(|| self.not_found("run of session", session.to_string()))?;
                Box::pin(self.resolve(&Target::Run(run))).await
            }
            Target::Node(node) => {
                let record = self.node_record(*node).await?;
                Ok((record.run, record.id, None))
            }
            Target::Token(text) => {
                let token: switchyard_core::token::Token = text.parse()?;
                let record = self.token_record(text, token.kind, None).await?;
                Ok((record.run, record.node, record.attempt.filter(|_| token.kind == TokenKind::Continue)))
            }
        }
    }

    /// Verifies a token of `kind` and looks up what it stands for.
    async fn token_record(
        &self,
        text: &str,
        kind: TokenKind,
        expected_run: Option<RunId>,
    ) -> Result<TokenRecord, Error> {
        let token = self.keys.verify(text, kind)?;
        let record = self.store.token(token.nonce).await?.ok_or(Error::Token(TokenError::Unknown))?;
        check_run(&record, expected_run)?;
        Ok(record)
    }

    /// A verified token with its run's context and its node, read in one store round trip.
    async fn token_scope(
        &self,
        text: &str,
        kind: TokenKind,
        expected_run: Option<RunId>,
    ) -> Result<(TokenRecord, RunContext, NodeRecord), Error> {
        let token = self.keys.verify(text, kind)?;
        let scope = self.store.token_scope(token.nonce).await?.ok_or(Error::Token(TokenError::Unknown))?;
        let record = scope.token;
        check_run(&record, expected_run)?;
        let run = scope.run.ok_or_else(|| self.not_found("run", record.run.to_string()))?;
        let session = scope.session.ok_or_else(|| self.not_found("session", record.session.to_string()))?;
        let node = scope.node.ok_or_else(|| self.not_found("node", record.node.to_string()))?;
        let workflow = self.loaded_by_hash(run.workflow_hash).await?;
        Ok((record, RunContext { run, goal: session.goal, workflow }, node))
    }

    async fn node_record(&self, node: NodeId) -> Result<NodeRecord, Error> {
        self.store.node(node).await?.ok_or_else(|| self.not_found("node", node.to_string()))
    }

    async fn run_context(&self, run: RunId) -> Result<RunContext, Error> {
        let record = self.store.run(run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
        let session = self.session(record.session).await?;
        let workflow = self.loaded_by_hash(record.workflow_hash).await?;
        Ok(RunContext { run: record, goal: session.goal, workflow })
    }

    fn load(&self, workflow: Workflow) -> Result<Arc<LoadedWorkflow>, Error> {
        let hash = workflow.hash();
        if let Some(loaded) = self.loaded.lock().expect("workflow cache lock").get(&hash) {
            return Ok(Arc::clone(loaded));
        }
        let loaded = Arc::new(LoadedWorkflow::new(workflow)?);
        self.loaded.lock().expect("workflow cache lock").insert(hash, Arc::clone(&loaded));
        Ok(loaded)
    }

    async fn loaded_by_hash(&self, hash: WorkflowHash) -> Result<Arc<LoadedWorkflow>, Error> {
        if let Some(loaded) = self.loaded.lock().expect("workflow cache lock").get(&hash) {
            return Ok(Arc::clone(loaded));
        }
        let workflow =
            self.store.workflow(hash).await?.ok_or_else(|| self.not_found("pinned workflow", hash.to_string()))?;
        self.load(workflow)
    }

    fn not_found(&self, what: &'static str, id: String) -> Error {
        Error::NotFound { what, id, store: self.store_label.clone() }
    }

    fn respond(
        &self,
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
        let step = matches!(state.phase, Phase::Pending | Phase::Blocked { .. })
            .then(|| switchyard_engine::pending(workflow, state, &context.goal));
        let title = workflow.workflow.step(&state.step).map(|step| step.title.clone()).unwrap_or_default();
        let (validation, gate, decision, failure) = match &state.phase {
            // A stopped run waits for nobody: offering its open gate or decision would read as if
            // a human still had to act (or, after `decide … stop`, as if that happened again).
            Phase::WaitingGate { .. } | Phase::WaitingForHumanDecision { .. } if status == RunStatus::Stopped => {
                (None, None, None, None)
            }
            Phase::Pending | Phase::Completed => (None, None, None, None),
            Phase::Blocked { validation } => (Some(validation.clone()), None, None, None),
            Phase::WaitingGate { submission } => (
                None,
                Some(GateView { step: state.step.clone(), title, choice: submission.choice.clone() }),
                None,
                None,
            ),
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
            step,
            tokens,
            forked: flags.forked,
            replayed: flags.replayed,
            validation,
            gate,
            decision,
            failure,
            progress: Progress {
                steps_completed: state.counters.steps_completed,
                cycle: state.counters.cycles,
                attempts: state.counters.attempts,
                revisions: state.counters.revisions,
                replans: state.counters.replans,
            },
        }
    }
}

#[derive(Debug, Default, Clone, Copy)]
struct Flags {
    forked: bool,
    replayed: bool,
}

/// Which tokens a node offers: an agent may advance only where a step waits for it, and nothing
/// may be recorded on a finished run.
#[derive(Debug, Clone, Copy)]
struct Offered {
    advance: bool,
    checkpoint: bool,
}

impl Offered {
    fn at(state: &NodeState, control: Control) -> Self {
        let finished = state.status().is_terminal() || control == Control::Stopped;
        Self {
            advance: !finished && matches!(state.phase, Phase::Pending | Phase::Blocked { .. }),
            checkpoint: !finished,
        }
    }
}

#[derive(Debug, Default)]
struct NewTokens {
    records: Vec<TokenRecord>,
}

impl NewTokens {
    fn minted(&self, keys: &Keyring) -> Tokens {
        let find = |kind| {
            self.records
                .iter()
                .find(|record| record.kind == kind)
                .map(|record| keys.mint(kind, record.nonce).to_string())
        };
        Tokens {
            continue_token: find(TokenKind::Continue),
            checkpoint_token: find(TokenKind::Checkpoint),
            state_token: find(TokenKind::State).unwrap_or_default(),
        }
    }
}

/// Refuses a token of another run than the one the caller named.
fn check_run(record: &TokenRecord, expected_run: Option<RunId>) -> Result<(), Error> {
    match expected_run {
        Some(run) if run != record.run => Err(Error::Token(TokenError::WrongRun {
            token_run: record.run.to_string(),
            requested_run: run.to_string(),
        })),
        _ => Ok(()),
    }
}

fn check_payload(recorded: &str, sent: &str) -> Result<(), Error> {
    if recorded == sent {
        Ok(())
    } else {
        Err(Error::ReplayMismatch { recorded_sha256: recorded.to_owned(), sent_sha256: sent.to_owned() })
    }
}

/// The part of a human command that decides whether a repeat is the same call.
fn command_payload(command: &Command) -> Value {
    match command {
        Command::Approve { note } => serde_json::json!({ "approve": note }),
        Command::Reject { reason } => serde_json::json!({ "reject": reason }),
        Command::Decide { option, note } => serde_json::json!({ "decide": option.as_str(), "note": note }),
        _ => Value::Null,
    }
}

/// The files a found workflow refers to: a single file itself (a bundle's own definition is
/// among the compiler's references), then `Compiled::references`, each once.
fn workflow_files(found: &Found) -> Vec<WorkflowFile> {
    if found.location.origin == Origin::Builtin {
        return Vec::new();
    }
    let path = Path::new(&found.location.path);
    let mut files = Vec::new();
    if let Some(name) = path.file_name().filter(|_| path.is_file() && !catalog::is_bundle_path(path)) {
        files.push(WorkflowFile { path: name.to_string_lossy().into_owned(), conditional: false });
    }
    for reference in &found.compiled.references {
        if !files.iter().any(|known: &WorkflowFile| known.path == reference.path) {
            files.push(WorkflowFile { path: reference.path.clone(), conditional: reference.conditional });
        }
    }
    files
}

/// A session title: the goal's first line, shortened.
fn title_of(goal: &str, workflow: &Workflow) -> String {
    let first_line = goal.lines().find(|line| !line.trim().is_empty()).unwrap_or("").trim();
    if first_line.is_empty() {
        return workflow.title.clone();
    }
    let mut title: String = first_line.chars().take(80).collect();
    if first_line.chars().count() > 80 {
        title.push('…');
    }
    title
}
