//! Starting a run: the workflow found and compiled, its limits filled from the configuration,
//! pinned by hash, and its first step handed out.

use std::path::Path;

use switchyard_catalog::{Catalog, Found, Origin};
use switchyard_compiler::DeclaredLimits;
use switchyard_config::ExecutionConfig;
use switchyard_core::event::{EventKind, WorkflowFile};
use switchyard_core::limits::MAX_GOAL_BYTES;
use switchyard_core::state::ReportPolicy;
use switchyard_core::workflow::Limits;
use switchyard_core::{Control, Workflow};
use switchyard_engine::Fresh;
use switchyard_store::{Appended, Batch, RunRecord};

use crate::commands::what_the_advance_recorded;
use crate::context::{RunContext, has_reports};
use crate::observe::Observed;
use crate::response::{Flags, respond};
use crate::tokens::Offered;
use crate::{Committed, Error, Runtime, StartRequest, StepResponse, workspace};

impl Runtime {
    /// Starts a run of a workflow, found by name in `catalog` or read from a file, and returns its
    /// first pending step, with the tokens to act on it. The workflow is compiled and pinned by
    /// hash: editing its file later never changes this run.
    ///
    /// Errors: an unknown name (`WORKFLOW_NOT_FOUND`, with the closest names), a workflow that
    /// does not compile (every diagnostic), a goal that is empty or over the size limit.
    ///
    /// ```
    /// # use switchyard_catalog::Catalog;
    /// # use switchyard_config::{Config, Overrides};
    /// # use switchyard_runtime::{Runtime, StartRequest, ResponseKind};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// # let home = tempfile::tempdir().unwrap();
    /// # let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?;
    /// # let runtime = Runtime::open(&config).await?;
    /// let catalog = Catalog::new(None, &config.home);
    /// let request = StartRequest { workflow: Some("bug-investigation".into()), goal: "Crash on empty input".into(), ..Default::default() };
    /// let started = runtime.start(&catalog, request).await?;
    /// assert_eq!(started.kind, ResponseKind::Ok);
    /// assert!(started.step.is_some() && started.tokens.continue_token.is_some());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start(&self, catalog: &Catalog, request: StartRequest) -> Result<StepResponse, Error> {
        if request.goal.trim().is_empty() {
            return Err(Error::invalid_input(
                "the goal is empty: say in a few words what the run is for (it titles the session, and the steps' prompts quote it)",
            ));
        }
        if request.goal.len() > MAX_GOAL_BYTES {
            return Err(Error::invalid_input(format!(
                "the goal is {} bytes; the limit is {MAX_GOAL_BYTES}: put long material in a file and refer to it",
                request.goal.len()
            )));
        }
        let found = match (request.workflow.as_deref(), request.file.as_deref()) {
            (_, Some(file)) => Catalog::file(file)?,
            (Some(name), None) => catalog.find(name)?,
            (None, None) => return Err(Error::invalid_input("name a workflow, or pass --file")),
        };
        let Some(mut workflow) = found.compiled.workflow.clone() else {
            return Err(Error::InvalidWorkflow {
                name: found.name,
                source_path: found.location.path,
                diagnostics: found.compiled.diagnostics,
            });
        };
        // Filled here, on the run's own copy, never in the process-wide compile cache: the copy
        // is pinned with the limits it ran under, so changing the configuration later changes no
        // running run, and the default configuration changes no hash.
        workflow.limits = limits_for(&self.execution, found.compiled.declared_limits, workflow.limits);
        if let Some(reason) = self.evidence.refuses_workflow(&workflow, request.workspace.as_deref()) {
            return Err(Error::EvidenceCommandsOff(reason));
        }
        let loaded = self.load(workflow)?;
        let (session, run, node) = (self.ids.session(), self.ids.run(), self.ids.node());
        // Decided again with a snapshot when the first step compares with the workspace; the
        // context is kept for that only where a step can.
        let again = loaded.compares_workspace().then(|| request.context.clone());
        // The project commands the workflow runs, as configured now: the run keeps these.
        let project = self.evidence.project_commands_for(&loaded.workflow);
        let mut started =
            switchyard_engine::start(&loaded, &request.goal, request.context, &project, Fresh::node(node))?;
        if let Some(context) = again
            && let Some(snapshot) =
                self.snapshot_for(&loaded, started.node.as_ref(), request.workspace.as_deref()).await
        {
            let fresh = Fresh { node, snapshot: Some(snapshot) };
            started = switchyard_engine::start(&loaded, &request.goal, context, &project, fresh)?;
        }
        let (git_branch, git_head) = match &request.workspace {
            Some(dir) => workspace::git_facts(dir).await,
            None => (None, None),
        };
        // Recorded only where it can matter, so other runs' events stay as they were.
        let report_policy = (has_reports(&loaded.workflow) || request.strict_status).then_some(ReportPolicy {
            audit_min_confidence: self.audit_min_confidence,
            strict_status: request.strict_status,
        });
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
                references: found_files(&found),
                report_policy,
                project_commands: project.clone(),
            },
        ];
        // The steps skipped on the way in, if any, are why the run starts where it does.
        let why = what_the_advance_recorded(&started.events).why;
        events.extend(started.events);
        let observed = Observed::of(session, run, &loaded.workflow.id, &events, None, None);
        let (node_id, state) =
            started.node.ok_or_else(|| Error::internal("the engine started a run without a node"))?;
        let tokens = self.fresh_tokens(session, run, node_id, Offered::at(&state, Control::Running));
        let told = self.followed().then(|| events.clone());
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
        let appended = self.commit(batch).await?;
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
            workspace: request.workspace,
            workflow: loaded,
            project,
        };
        let mut response =
            respond(&context, node_id, &state, Control::Running, tokens.minted(&self.keys), Flags::default());
        response.why = why;
        if let Appended::Committed { last_seq, .. } = appended {
            observed.committed(&self.metrics, response.status);
            if let Some(events) = told {
                let node = self.node(node_id).await?;
                let commit = Committed {
                    context: &context,
                    acted_on: &node,
                    created: None,
                    control: Control::Running,
                    last_seq,
                    events: &events,
                    step: response.step.as_ref(),
                    started: true,
                };
                self.tell_followers(&commit).await;
            }
        }
        // A workflow may start with a step switchyard runs.
        self.then_run_steps(response).await
    }
}

/// `limits` with each limit the workflow did not declare taken from `execution`: the limits a run
/// of a workflow gets when it starts (`inspect` shows them).
pub fn limits_for(execution: &ExecutionConfig, declared: DeclaredLimits, limits: Limits) -> Limits {
    Limits {
        max_revision_attempts: if declared.max_revision_attempts {
            limits.max_revision_attempts
        } else {
            execution.max_revision_attempts
        },
        max_replan_attempts: if declared.max_replan_attempts {
            limits.max_replan_attempts
        } else {
            execution.max_replan_attempts
        },
        ..limits
    }
}

/// The files a found workflow refers to: a single file itself (a bundle's own definition is
/// among the compiler's references), then `Compiled::references`, each once.
pub(crate) fn found_files(found: &Found) -> Vec<WorkflowFile> {
    if found.location.origin == Origin::Builtin {
        return Vec::new();
    }
    let path = Path::new(&found.location.path);
    let mut files = Vec::new();
    if let Some(name) = path.file_name().filter(|_| path.is_file() && !switchyard_catalog::is_bundle_path(path)) {
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
pub(crate) fn title_of(goal: &str, workflow: &Workflow) -> String {
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
