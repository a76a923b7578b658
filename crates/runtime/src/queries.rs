//! What doors read: a point of a run with its tokens, runs, sessions, nodes, events, the pinned
//! workflows (loaded once per process), and `verify`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use switchyard_catalog::Catalog;
use switchyard_config::ExecutionConfig;
use switchyard_core::event::{EventKind, WorkflowFile};
use switchyard_core::evidence::ProjectCommands;
use switchyard_core::state::Phase;
use switchyard_core::{AttemptId, NodeId, RunId, SessionId, Workflow, WorkflowHash};
use switchyard_engine::{LoadedWorkflow, PendingStep};
use switchyard_store::{NodeRecord, RunRecord, SessionRecord};

use crate::context::RunContext;
use crate::response::{Flags, respond};
use crate::start::{found_files, limits_for};
use crate::{Error, Runtime, StepResponse, Target};

impl Runtime {
    /// The pending step at a point of a run, with tokens to act on it. On a node that was
    /// already acted on, the continue token is a fresh attempt: advancing it forks the run.
    ///
    /// ```
    /// # use switchyard_catalog::Catalog;
    /// # use switchyard_config::{Config, Overrides};
    /// # use switchyard_runtime::{Runtime, StartRequest, Target};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), switchyard_runtime::Error> {
    /// # let home = tempfile::tempdir().unwrap();
    /// # let runtime = Runtime::open(&Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?).await?;
    /// # let started = runtime.start(&Catalog::builtins_only(), StartRequest { workflow: Some("dev-cycle".into()), goal: "g".into(), ..Default::default() }).await?;
    /// // Later, perhaps in another process: where does the run stand?
    /// let shown = runtime.show(&Target::Run(started.run)).await?;
    /// assert_eq!(shown.node, started.node);
    /// assert_eq!(shown.step.map(|step| step.step), started.step.map(|step| step.step));
    /// # Ok(())
    /// # }
    /// ```
    pub async fn show(&self, target: &Target) -> Result<StepResponse, Error> {
        let (run, node, attempt) = self.resolve(target).await?;
        let context = self.run_context(run).await?;
        let node = self.node(node).await?;
        let attempt = match attempt {
            Some(attempt) if !self.advanced_on(context.run.session, node.id, attempt).await? => attempt,
            _ => self.open_attempt(context.run.session, node.id).await?,
        };
        let tokens = self.tokens_for(&context, node.id, &node.state, attempt).await?;
        Ok(respond(&context, node.id, &node.state, context.run.control, tokens, Flags::default()))
    }

    /// The step a node is about, its prompt rendered with the context the node holds, read
    /// without registering a token: what a page shows of a node, where [`Runtime::show`] would
    /// hand out tokens (a write). `None` on a node that ended the run.
    pub async fn pending_at(&self, node: NodeId) -> Result<Option<PendingStep>, Error> {
        let node = self.node(node).await?;
        if matches!(node.state.phase, Phase::Completed | Phase::Failed { .. }) {
            return Ok(None);
        }
        let context = self.run_context(node.run).await?;
        Ok(Some(switchyard_engine::pending(&context.workflow, &node.state, &context.goal)))
    }

    /// The continue token of a node's first attempt, used or not (`None` where the node takes no
    /// advance). A door that moves "the current step" without naming an attempt advances with
    /// it: if another caller moved the node first, the advance replays (same report) or is
    /// refused with `REPLAY_MISMATCH`, where a token from [`Runtime::show`] would fork the run.
    pub async fn first_attempt_token(&self, node: NodeId) -> Result<Option<String>, Error> {
        let node = self.node(node).await?;
        let context = self.run_context(node.run).await?;
        let tokens = self.tokens_for(&context, node.id, &node.state, AttemptId::first_for(node.id)).await?;
        Ok(tokens.continue_token)
    }

    /// The run a target names, as the store keeps it: its workflow, status, control, tip and
    /// times.
    ///
    /// ```
    /// # use switchyard_catalog::Catalog;
    /// # use switchyard_config::{Config, Overrides};
    /// # use switchyard_runtime::{Runtime, StartRequest, Target};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), switchyard_runtime::Error> {
    /// # let home = tempfile::tempdir().unwrap();
    /// # let runtime = Runtime::open(&Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?).await?;
    /// # let started = runtime.start(&Catalog::builtins_only(), StartRequest { workflow: Some("dev-cycle".into()), goal: "g".into(), ..Default::default() }).await?;
    /// let run = runtime.run(&Target::Session(started.session)).await?;
    /// assert_eq!((run.id, run.workflow_id.as_str(), run.tip), (started.run, "dev-cycle", started.node));
    /// # Ok(())
    /// # }
    /// ```
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
        let recorded = match self.run_started(&record).await? {
            Some(EventKind::RunStarted { references, .. }) => references,
            _ => Vec::new(),
        };
        if !recorded.is_empty() {
            return Ok(recorded);
        }
        let Some((_, path)) = record.source.split_once(':').filter(|(origin, _)| *origin != "builtin") else {
            return Ok(Vec::new());
        };
        let path = Path::new(path);
        let found = if switchyard_catalog::is_bundle_path(path) {
            Catalog::bundle(path)
        } else {
            Catalog::file(path).map(|found| vec![found])
        };
        // The run's copy has the limits it started under where its source declares none.
        let pinned = self.loaded_by_hash(record.workflow_hash).await.ok().map(|loaded| loaded.workflow.limits);
        let started_with = pinned.map(|limits| ExecutionConfig {
            max_revision_attempts: limits.max_revision_attempts,
            max_replan_attempts: limits.max_replan_attempts,
        });
        Ok(found
            .unwrap_or_default()
            .iter()
            .find(|found| {
                found.compiled.workflow.as_ref().is_some_and(|workflow| {
                    let mut workflow = workflow.clone();
                    if let Some(execution) = started_with {
                        workflow.limits = limits_for(&execution, found.compiled.declared_limits, workflow.limits);
                    }
                    workflow.hash() == record.workflow_hash
                })
            })
            .map(found_files)
            .unwrap_or_default())
    }

    /// The workflow a run is pinned to, as stored when it started.
    pub async fn pinned_workflow(&self, hash: WorkflowHash) -> Result<Arc<LoadedWorkflow>, Error> {
        self.loaded_by_hash(hash).await
    }

    /// A node of a run, as the store keeps it.
    pub async fn node(&self, node: NodeId) -> Result<NodeRecord, Error> {
        self.store.node(node).await?.ok_or_else(|| self.not_found("node", node.to_string()))
    }

    /// A run with what every command on it needs: its record, the goal and its pinned workflow.
    pub async fn run_context(&self, run: RunId) -> Result<RunContext, Error> {
        let record = self.store.run(run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
        let session = self.session(record.session).await?;
        let workflow = self.loaded_by_hash(record.workflow_hash).await?;
        let project = self.project_commands_of(&record, &workflow).await?;
        let workspace = session.workspace.map(PathBuf::from);
        Ok(RunContext { run: record, goal: session.goal, workspace, workflow, project })
    }

    /// The project commands `run` was started with, read from its `run_started` event (one
    /// bounded read) only when its workflow runs some.
    pub(crate) async fn project_commands_of(
        &self,
        run: &RunRecord,
        workflow: &LoadedWorkflow,
    ) -> Result<ProjectCommands, Error> {
        if !workflow.runs_project_commands() {
            return Ok(ProjectCommands::new());
        }
        Ok(match self.run_started(run).await? {
            Some(EventKind::RunStarted { project_commands, .. }) => project_commands,
            _ => ProjectCommands::new(),
        })
    }

    pub(crate) fn load(&self, workflow: Workflow) -> Result<Arc<LoadedWorkflow>, Error> {
        self.load_as(workflow.hash(), workflow)
    }

    /// `workflow`, loaded once per process and kept under `hash`, which is its hash.
    fn load_as(&self, hash: WorkflowHash, workflow: Workflow) -> Result<Arc<LoadedWorkflow>, Error> {
        if let Some(loaded) = self.loaded.lock().expect("workflow cache lock").get(&hash) {
            return Ok(Arc::clone(loaded));
        }
        let loaded = Arc::new(LoadedWorkflow::new(workflow)?);
        self.loaded.lock().expect("workflow cache lock").insert(hash, Arc::clone(&loaded));
        Ok(loaded)
    }

    pub(crate) async fn loaded_by_hash(&self, hash: WorkflowHash) -> Result<Arc<LoadedWorkflow>, Error> {
        if let Some(loaded) = self.loaded.lock().expect("workflow cache lock").get(&hash) {
            return Ok(Arc::clone(loaded));
        }
        let workflow =
            self.store.workflow(hash).await?.ok_or_else(|| self.not_found("pinned workflow", hash.to_string()))?;
        // The store refuses a pinned workflow that does not hash to `hash`, so it is not hashed again.
        self.load_as(hash, workflow)
    }
}
