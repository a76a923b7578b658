//! The one API every switchyard door uses.
//!
//! [`Runtime`] finds workflows, starts runs, turns tokens into (run, node, attempt), asks the
//! engine for the transition, appends it to the store in one batch, and shapes the answer.
//! It decides no engine rule itself: `switchyard_engine::transition` does.
//!
//! # Using switchyard from another Rust program
//!
//! Resolve a [`Config`] (a home for the key file and the SQLite store), [`Runtime::open`] it,
//! [`Runtime::start`] a run, hand the pending step to whoever does the work, and
//! [`Runtime::advance`] with the continue token and a report. Every door of switchyard (the CLI,
//! the MCP server, the file tools) goes through these same calls, so a run started here can be
//! continued with `switchyard continue` and shows in `switchyard sessions`.
//!
//! ```
//! use switchyard_runtime::{AdvanceInput, Config, Overrides, ResponseKind, Runtime, StartRequest};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let home = tempfile::tempdir()?;
//! let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?;
//! let runtime = Runtime::open(&config).await?;
//!
//! let request = StartRequest { workflow: Some("dev-cycle".into()), goal: "Add a --verbose flag".into(), ..StartRequest::default() };
//! let started = runtime.start(request).await?;
//! let step = started.step.as_ref().expect("a new run has a pending step");
//! assert_eq!(step.step.as_str(), "plan");
//!
//! let token = started.tokens.continue_token.as_deref().expect("the agent may advance");
//! let report = AdvanceInput { notes: Some("Plan: add the flag and a test.".into()), ..AdvanceInput::default() };
//! let advanced = runtime.advance(token, Some(started.run), report).await?;
//! // `plan` is gated: the run waits for a human, who approves it with `Runtime::approve`.
//! assert_eq!(advanced.kind, ResponseKind::WaitingGate);
//! # Ok(())
//! # }
//! ```
//!
//! `crates/runtime/examples/embed.rs` is the same walk as a program, and `docs/library.md` says
//! more.

pub mod atomic_file;
pub mod attached;
pub mod catalog;
mod checkpoints;
pub mod clock;
pub mod config;
pub mod error;
pub mod health;
mod human;
pub mod keys;
pub mod observe;
pub mod report_template;
pub mod response;
mod resume;
pub mod run_folder;
mod state_writer;
pub mod store;
pub mod tool_schema;
pub mod transcript;
pub mod turn_metrics;
pub mod validate;
pub mod workspace;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Map, Value};
use switchyard_core::event::{EventKind, NodeCause, WorkflowFile};
use switchyard_core::hash::{canonical_json, sha256_hex};
use switchyard_core::limits::MAX_GOAL_BYTES;
use switchyard_core::state::{DecisionOption, Phase, ReportPolicy};
use switchyard_core::token::{Keyring, TokenError, TokenKind};
use switchyard_core::workflow::EdgeTarget;
use switchyard_core::{AttemptId, Control, NodeId, NodeState, RunId, RunStatus, SessionId, Workflow, WorkflowHash};
use switchyard_engine::{Command, Fresh, LoadedWorkflow, RunView, Transition};
use switchyard_store::{Appended, Batch, Claim, NewEvent, RunGuard, RunRecord, SessionRecord, Store, TokenRecord};

pub use crate::catalog::{Catalog, Found, Location, Origin};
use crate::clock::{Clock, IdSource, RandomIds, SystemClock};
pub use crate::config::{Config, ExecutionConfig, Overrides};
pub use crate::error::{Error, ErrorClass, ReplayedCall};
pub use crate::human::HumanAnswer;
use crate::observe::{Metrics, Observed};
pub use crate::report_template::{FillIn, ReportTemplate};
pub use crate::response::{
    CheckpointResponse, DecisionView, FailureView, GateView, Progress, ReportWarnings, ResponseKind, StepResponse,
    Tokens, WorkflowRef,
};
// What doors name or show of the compiler's output as it is (diagnostics, source formats, a
// bundle's files), the native format's schema and its writers (native YAML, Mermaid, DOT): doors
// depend on the runtime only.
pub use switchyard_compiler::{
    Bundle, Diagnostic, Format, MAX_BUNDLE_BYTES, native_schema, to_dot, to_mermaid, to_native_yaml,
};

pub use switchyard_engine::{AllowedEdge, PendingStep};
pub use switchyard_store::{CHANGE_BACKLOG, Change, Changes, Feed, RecvError};
// A run's nodes as `Runtime::run_nodes` lists them, for doors that draw or list them.
pub use switchyard_store::NodeRecord;

pub use crate::transcript::RecordedTurn;

pub use crate::resume::{Confidence, MAX_RESUME_CANDIDATES, RECAP_BUDGET_BYTES, Recap, ResumeCandidate, ResumeRequest};

/// What to start: a workflow by name (or a file), the goal, and the run's starting context.
///
/// ```
/// let request = switchyard_runtime::StartRequest {
///     workflow: Some("code-review".into()),
///     goal: "Review PR 9".into(),
///     ..Default::default()
/// };
/// assert!(request.file.is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct StartRequest {
    /// A workflow name, found through discovery: the project's `.switchyard/workflows/`, then the
    /// home's `workflows/`, then attached folders, then the built-ins (`dev-cycle`,
    /// `bug-investigation`, `code-review`).
    pub workflow: Option<String>,
    /// A workflow file, used instead of discovery.
    pub file: Option<PathBuf>,
    /// What the run is for, in the words of whoever asked; prompts quote it.
    pub goal: String,
    /// The run's starting context: the variables conditions and prompts read.
    pub context: Map<String, Value>,
    /// The workspace the run is about (its git branch and HEAD are recorded).
    pub workspace: Option<PathBuf>,
    /// Check every status report of the run strictly (every field required), whatever the
    /// workflow says.
    pub strict_status: bool,
}

/// An agent's report on a step: what [`Runtime::advance`] checks against the step's rules.
///
/// ```
/// use serde_json::json;
///
/// let report = switchyard_runtime::AdvanceInput {
///     notes: Some("Scoped the review to the parser.".into()),
///     artifacts: Some(json!({ "files": ["src/parser.rs"] })),
///     ..Default::default()
/// };
/// assert!(report.choice.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AdvanceInput {
    /// What was done, decided and why, in Markdown; most steps require it.
    pub notes: Option<String>,
    /// Structured results, checked against the step's output schema when it has one.
    pub artifacts: Option<Value>,
    /// A context delta: a `null` value deletes the key.
    pub context: Option<Map<String, Value>>,
    /// The label of the edge to take, where the agent decides.
    pub choice: Option<String>,
}

/// How a door names a point in a run: parse a run, session or node id, or a token, from text.
///
/// ```
/// use switchyard_runtime::Target;
///
/// assert!(matches!("run_aaaaaaaaaaaaaaaaaaaaaaaaaa".parse::<Target>(), Ok(Target::Run(_))));
/// assert!(matches!("st_AaIMVrGuvFybOmpV7e9NEbeo".parse::<Target>(), Ok(Target::Token(_))));
/// assert!("PR-9".parse::<Target>().is_err());
/// ```
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
    /// `[execution]`: the limits a run gets when its workflow does not declare them.
    execution: ExecutionConfig,
    /// `[audit] audit_min_confidence`, recorded with each run that has status reports when it
    /// starts; the run keeps its own afterwards.
    audit_min_confidence: f64,
    /// Counters, gauges and the commit histogram, shared with the runtimes `for_workspace` derives.
    metrics: Metrics,
    /// The store's file, when the runtime opened one (`store_size_bytes`).
    store_path: Option<PathBuf>,
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
    /// Opens the store (the SQLite file, or the PostgreSQL database of `[store] url`; see
    /// [`store`]) and the key file named by `config`, creating them on first use.
    ///
    /// Several processes may open the same home at once (the CLI beside `switchyard serve`):
    /// the store serialises their writes and the key file is created once.
    ///
    /// ```
    /// use switchyard_runtime::{Config, Overrides, Runtime};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), switchyard_runtime::Error> {
    /// # let home = tempfile::tempdir().unwrap();
    /// let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?;
    /// let runtime = Runtime::open(&config).await?;
    /// assert!(config.store_path.is_file());
    /// # drop(runtime);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn open(config: &Config) -> Result<Self, Error> {
        std::fs::create_dir_all(&config.home).map_err(|error| {
            Error::environment(format!("cannot create switchyard home {}: {error}", config.home.display()))
        })?;
        let ids: Arc<dyn IdSource> = Arc::new(RandomIds);
        let keys = keys::load_or_create(&config.home, ids.as_ref())?;
        let opened = store::open(config).await?;
        let runtime = Self::from_parts(Parts {
            store: opened.store,
            store_label: opened.label,
            keys,
            catalog: Catalog::new(config.project_root.as_deref(), &config.home),
            clock: Arc::new(SystemClock),
            ids,
        })
        .with_output_root(config.output_root.clone())
        .with_execution(config.execution)
        .with_audit_min_confidence(config.audit.min_confidence);
        Ok(match opened.path {
            Some(path) => runtime.with_store_path(path),
            None => runtime,
        })
    }

    /// Gives runs started from now on `execution`'s limits wherever their workflow declares none.
    #[must_use]
    pub fn with_execution(mut self, execution: ExecutionConfig) -> Self {
        self.execution = execution;
        self
    }

    /// The audit threshold runs started from now on record (`[audit] audit_min_confidence`).
    #[must_use]
    pub fn with_audit_min_confidence(mut self, min_confidence: f64) -> Self {
        self.audit_min_confidence = min_confidence;
        self
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
            execution: ExecutionConfig::default(),
            audit_min_confidence: ReportPolicy::DEFAULT_MIN_CONFIDENCE,
            metrics: Metrics::default(),
            store_path: None,
        }
    }

    fn with_store_path(mut self, path: PathBuf) -> Self {
        self.store_path = Some(path);
        self
    }

    /// The runtime's metrics, for a door that serves them (`switchyard serve`'s `/metrics`).
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The bytes the store's file and its write-ahead log take on disk now; `None` for a runtime
    /// built from parts without a file. One `stat` per file: cheap enough for every scrape.
    pub fn store_size_bytes(&self) -> Option<u64> {
        let path = self.store_path.as_ref()?;
        let main = std::fs::metadata(path).ok()?.len();
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        Some(main + std::fs::metadata(PathBuf::from(wal)).map_or(0, |metadata| metadata.len()))
    }

    /// How many runs wait at a gate now, read from the store; sets the `gates_waiting` gauge,
    /// which commands keep current from then on. A server calls it once when it starts, so the
    /// gauge never costs a query per scrape.
    pub async fn count_waiting_gates(&self) -> Result<i64, Error> {
        let mut count: i64 = 0;
        let mut before = None;
        loop {
            let query = switchyard_store::SessionQuery {
                status: Some(RunStatus::WaitingGate),
                limit: switchyard_store::MAX_PAGE,
                before,
                ..switchyard_store::SessionQuery::default()
            };
            let page = self.store.list_sessions(query).await?;
            count += i64::try_from(page.len()).unwrap_or(i64::MAX);
            match page.last() {
                Some(last) if page.len() == switchyard_store::MAX_PAGE as usize => {
                    before = Some((last.updated_at_ms, last.id));
                }
                _ => break,
            }
        }
        self.metrics.gates_waiting.set(count);
        Ok(count)
    }

    /// Appends a batch, timing the commit for the metrics.
    async fn commit(&self, batch: Batch) -> Result<Appended, Error> {
        let started = Instant::now();
        let appended = self.store.append(batch).await;
        self.metrics.committed_in(started.elapsed());
        Ok(appended?)
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

    /// Changes committed to the store from now on, by this process and, where the backend is
    /// shared, by others: what live views wait on instead of polling (see [`Change`]).
    pub async fn subscribe(&self) -> Changes {
        self.store.subscribe().await
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

    /// Starts a run of a workflow and returns its first pending step, with the tokens to act on
    /// it. The workflow is compiled and pinned by hash: editing its file later never changes
    /// this run.
    ///
    /// Errors: an unknown name (`WORKFLOW_NOT_FOUND`, with the closest names), a workflow that
    /// does not compile (every diagnostic), a goal that is empty or over the size limit.
    ///
    /// ```
    /// # use switchyard_runtime::{Config, Overrides, Runtime, StartRequest, ResponseKind};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), switchyard_runtime::Error> {
    /// # let home = tempfile::tempdir().unwrap();
    /// # let runtime = Runtime::open(&Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?).await?;
    /// let started = runtime
    ///     .start(StartRequest { workflow: Some("bug-investigation".into()), goal: "Crash on empty input".into(), ..Default::default() })
    ///     .await?;
    /// assert_eq!(started.kind, ResponseKind::Ok);
    /// assert!(started.step.is_some() && started.tokens.continue_token.is_some());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn start(&self, request: StartRequest) -> Result<StepResponse, Error> {
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
        let found = self.find_workflow(request.workflow.as_deref(), request.file.as_deref())?;
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
        workflow.limits = self.execution.limits_for(found.compiled.declared_limits, workflow.limits);
        let loaded = self.load(workflow)?;
        let (session, run, node) = (self.ids.session(), self.ids.run(), self.ids.node());
        let started = switchyard_engine::start(&loaded, &request.goal, request.context, Fresh { node })?;
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
                references: workflow_files(&found),
                report_policy,
            },
        ];
        events.extend(started.events);
        let observed = Observed::of(session, run, &loaded.workflow.id, &events, None, None);
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
            workflow: loaded,
        };
        let response =
            self.respond(&context, node_id, &state, Control::Running, tokens.minted(&self.keys), Flags::default());
        if matches!(appended, Appended::Committed { .. }) {
            observed.committed(&self.metrics, response.status);
        }
        if let (Appended::Committed { last_seq, .. }, true) = (appended, self.output_root.is_some()) {
            let node = self.node_record(node_id).await?;
            self.open_run_folder(&context, &node, last_seq, response.step.as_ref());
        }
        Ok(response)
    }

    // ---------------------------------------------------------------- advancing

    /// Advances the step a continue token names. With `expected_run`, a token of another run is
    /// refused (`TOKEN_WRONG_RUN`): a guard against a token pasted from another conversation.
    ///
    /// A report that fails the step's checks is not an error: the answer's `kind` is
    /// [`ResponseKind::Blocked`], `validation` says what is wrong, and a fresh continue token
    /// retries. Sending the same token and report again replays the recorded answer
    /// (`replayed`); the same token with another report is refused (`REPLAY_MISMATCH`).
    ///
    /// ```
    /// # use switchyard_runtime::{AdvanceInput, Config, Overrides, Runtime, StartRequest, ResponseKind};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), switchyard_runtime::Error> {
    /// # let home = tempfile::tempdir().unwrap();
    /// # let runtime = Runtime::open(&Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?).await?;
    /// # let started = runtime.start(StartRequest { workflow: Some("dev-cycle".into()), goal: "g".into(), ..Default::default() }).await?;
    /// let token = started.tokens.continue_token.clone().unwrap();
    /// // No notes where the step requires them: blocked, with what to fix and a retry token.
    /// let blocked = runtime.advance(&token, Some(started.run), AdvanceInput::default()).await?;
    /// assert_eq!(blocked.kind, ResponseKind::Blocked);
    ///
    /// let retry = blocked.tokens.continue_token.unwrap();
    /// let report = AdvanceInput { notes: Some("The plan.".into()), ..Default::default() };
    /// let advanced = runtime.advance(&retry, Some(started.run), report).await?;
    /// assert_eq!(advanced.kind, ResponseKind::WaitingGate);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn advance(
        &self,
        continue_token: &str,
        expected_run: Option<RunId>,
        input: AdvanceInput,
    ) -> Result<StepResponse, Error> {
        refuse_placeholders(&input)?;
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
        refuse_placeholders(&input)?;
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
        let key = advance_key(record.node, attempt);
        // A plain advance keeps the payload it always had, so recorded calls still match.
        let payload = match &to {
            None => sha256_hex(&canonical_json(&input)),
            Some(to) => sha256_hex(&canonical_json(&serde_json::json!({ "input": input, "to": to }))),
        };
        let mut parts = serde_json::to_value(&input).unwrap_or(Value::Null);
        if let (Some(to), Value::Object(parts)) = (&to, &mut parts) {
            parts.insert("to".to_owned(), serde_json::json!(to));
        }
        let call = OnceCall { key, payload, fields: field_hashes(&parts), session: record.session, run: record.run };
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
        // The claim is not read first, as the other commands read theirs: nearly every advance is
        // sent once, and the read cost each one a lookup. An advance sent again finds its claim
        // in the append, which then writes nothing, and replays; one the engine or the store
        // refuses (the run has moved on since) looks for its claim before it answers with the
        // refusal, so it replays all the same.
        match self.execute(&context, &node, command, Some(&call)).await {
            Err(error) => match self.store.recorded(call.session, &call.key).await? {
                Some(recorded) => self.replay(&recorded, &call).await,
                None => Err(error),
            },
            answer => answer,
        }
    }

    /// Approves the result a gate waits on.
    pub async fn approve(&self, run: RunId, note: Option<String>) -> Result<StepResponse, Error> {
        self.act_on_tip(run, None, "gate", Command::Approve { note }).await
    }

    /// Rejects the result a gate waits on; the step is handed back with `reason`.
    pub async fn reject(&self, run: RunId, reason: String) -> Result<StepResponse, Error> {
        self.act_on_tip(run, None, "gate", Command::Reject { reason }).await
    }

    /// Picks one of the options a run waiting for a human decision offers.
    pub async fn decide(
        &self,
        run: RunId,
        option: DecisionOption,
        note: Option<String>,
    ) -> Result<StepResponse, Error> {
        self.act_on_tip(run, None, "decide", Command::Decide { option, note }).await
    }

    /// Answers a run waiting for a person at node `at`, the node the person was shown. Where
    /// [`Runtime::approve`] acts on whatever the run waits on now, this is refused with
    /// `RUN_MOVED_ON` when the run has moved past `at` (another person, another terminal), so an
    /// answer never lands on a step its author did not see. The same answer sent twice replays.
    pub async fn answer(&self, run: RunId, at: NodeId, answer: HumanAnswer) -> Result<StepResponse, Error> {
        let (key_kind, command) = match answer {
            HumanAnswer::Approve { note } => ("gate", Command::Approve { note }),
            HumanAnswer::Reject { reason } => ("gate", Command::Reject { reason }),
            HumanAnswer::Decide { option, note } => ("decide", Command::Decide { option, note }),
        };
        self.act_on_tip(run, Some(at), key_kind, command).await
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
        let call = OnceCall {
            key: format!("checkpoint:{}:{attempt}", record.node),
            payload: sha256_hex(&canonical_json(&notes)),
            fields: field_hashes(&serde_json::json!({ "notes": notes })),
            session: record.session,
            run: record.run,
        };
        let response =
            |replayed| CheckpointResponse { session: record.session, run: record.run, node: record.node, replayed };
        if let Some(recorded) = self.store.recorded(call.session, &call.key).await? {
            check_payload(&recorded, &call)?;
            return Ok(response(true));
        }
        let transition = switchyard_engine::transition(
            &context.workflow,
            self.view(&context, &node, ReportPolicy::default()),
            Command::Checkpoint { attempt: Some(attempt), notes },
            Fresh { node: self.ids.node() },
        )?;
        let claim = Claim {
            key: call.key.clone(),
            payload_sha256: call.payload.clone(),
            outcome: serde_json::json!({ "node": record.node, "fields": call.fields }),
        };
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
                check_payload(&recorded, &call)?;
                Ok(response(true))
            }
        }
    }

    // ---------------------------------------------------------------- looking

    /// The pending step at a point of a run, with tokens to act on it. On a node that was
    /// already acted on, the continue token is a fresh attempt: advancing it forks the run.
    ///
    /// ```
    /// # use switchyard_runtime::{Config, Overrides, Runtime, StartRequest, Target};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), switchyard_runtime::Error> {
    /// # let home = tempfile::tempdir().unwrap();
    /// # let runtime = Runtime::open(&Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?).await?;
    /// # let started = runtime.start(StartRequest { workflow: Some("dev-cycle".into()), goal: "g".into(), ..Default::default() }).await?;
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
        let node = self.node_record(node).await?;
        let attempt = match attempt {
            Some(attempt) if !self.advanced_on(context.run.session, node.id, attempt).await? => attempt,
            _ => self.open_attempt(context.run.session, node.id).await?,
        };
        let tokens = self.tokens_for(&context, node.id, &node.state, attempt).await?;
        Ok(self.respond(&context, node.id, &node.state, context.run.control, tokens, Flags::default()))
    }

    /// The step a node is about, its prompt rendered with the context the node holds, read
    /// without registering a token: what a page shows of a node, where [`Runtime::show`] would
    /// hand out tokens (a write). `None` on a node that ended the run.
    pub async fn pending_at(&self, node: NodeId) -> Result<Option<PendingStep>, Error> {
        let node = self.node_record(node).await?;
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
        let node = self.node_record(node).await?;
        let context = self.run_context(node.run).await?;
        let tokens = self.tokens_for(&context, node.id, &node.state, AttemptId::first_for(node.id)).await?;
        Ok(tokens.continue_token)
    }

    /// The run a target names, as the store keeps it: its workflow, status, control, tip and
    /// times.
    ///
    /// ```
    /// # use switchyard_runtime::{Config, Overrides, Runtime, StartRequest, Target};
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), switchyard_runtime::Error> {
    /// # let home = tempfile::tempdir().unwrap();
    /// # let runtime = Runtime::open(&Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?).await?;
    /// # let started = runtime.start(StartRequest { workflow: Some("dev-cycle".into()), goal: "g".into(), ..Default::default() }).await?;
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
        let found = if catalog::is_bundle_path(path) {
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
                        workflow.limits = execution.limits_for(found.compiled.declared_limits, workflow.limits);
                    }
                    workflow.hash() == record.workflow_hash
                })
            })
            .map(workflow_files)
            .unwrap_or_default())
    }

    /// The workflow a run is pinned to, as stored when it started.
    pub async fn pinned_workflow(&self, hash: WorkflowHash) -> Result<Arc<LoadedWorkflow>, Error> {
        self.loaded_by_hash(hash).await
    }

    // ---------------------------------------------------------------- internals

    /// Runs a person's answer at the run's tip, or at `expected` when the caller names the node it
    /// answers. The claim of the node's key is read first, so an answer sent again replays even
    /// after the run moved on; an answer meant for a node the run has left is refused. The tip
    /// cannot move between this read and the commit without a claim at this node, which the
    /// claim's uniqueness settles.
    async fn act_on_tip(
        &self,
        run: RunId,
        expected: Option<NodeId>,
        key_kind: &str,
        command: Command,
    ) -> Result<StepResponse, Error> {
        self.deciding_again(|| async {
            let context = self.run_context(run).await?;
            let at = expected.unwrap_or(context.run.tip);
            let call = OnceCall {
                key: format!("{key_kind}:{at}"),
                payload: sha256_hex(&canonical_json(&command_payload(&command))),
                fields: field_hashes(&command_fields(&command)),
                session: context.run.session,
                run,
            };
            if let Some(recorded) = self.store.recorded(call.session, &call.key).await? {
                return self.replay(&recorded, &call).await;
            }
            if at != context.run.tip {
                return Err(Error::MovedOn {
                    run: run.to_string(),
                    expected: at.to_string(),
                    tip: context.run.tip.to_string(),
                });
            }
            let node = self.node_record(at).await?;
            self.execute(&context, &node, command.clone(), Some(&call)).await
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
        call: Option<&OnceCall>,
    ) -> Result<StepResponse, Error> {
        let fresh = Fresh { node: self.ids.node() };
        let advancing = matches!(command, Command::Advance(_) | Command::AdvanceTo { .. });
        let reports = if advancing && has_reports(&context.workflow.workflow) {
            self.report_policy(&context.run).await?
        } else {
            ReportPolicy::default()
        };
        let Transition { events, node: created, control } =
            switchyard_engine::transition(&context.workflow, self.view(context, node, reports), command, fresh)?;
        let report = events.iter().find_map(|event| match event {
            EventKind::ReportWarned { warnings, downgraded, .. } => {
                Some(ReportWarnings { warnings: warnings.clone(), downgraded: downgraded.clone() })
            }
            _ => None,
        });
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
        let claim = call.map(|call| Claim {
            key: call.key.clone(),
            payload_sha256: call.payload.clone(),
            outcome: serde_json::json!({ "node": target_id, "fields": call.fields }),
        });
        let projected = self.output_root.is_some().then(|| events.clone());
        let observed = Observed::of(
            context.run.session,
            context.run.id,
            &context.workflow.workflow.id,
            &events,
            Some((node.id, &node.state.step)),
            Some(context.run.status),
        );
        match self.append(context, events, claim, tokens.records.clone()).await? {
            Appended::Committed { last_seq, .. } => {
                let minted = if tokens.records.is_empty() {
                    self.tokens_for(context, target_id, &target_state, AttemptId::first_for(target_id)).await?
                } else {
                    tokens.minted(&self.keys)
                };
                let mut response =
                    self.respond(context, target_id, &target_state, control, minted, Flags { forked, replayed: false });
                response.report_warnings = report;
                observed.committed(&self.metrics, response.status);
                if let Some(events) = projected {
                    if response.report_warnings.as_ref().is_some_and(|report| !report.downgraded.is_empty()) {
                        self.append_downgraded_findings(context, &events);
                    }
                    let created = created.as_ref().map(|(id, state)| (*id, state));
                    self.project_event(context, node, created, control, last_seq, &events, response.step.as_ref())
                        .await;
                }
                Ok(response)
            }
            Appended::AlreadyRecorded(recorded) => match call {
                Some(call) => self.replay(&recorded, call).await,
                None => Err(Error::environment(format!("`{}` was recorded by a call that claims none", recorded.key))),
            },
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
        self.commit(batch).await
    }

    /// Answers a call that was already made, from what was recorded; advances nothing.
    async fn replay(&self, recorded: &switchyard_store::Recorded, call: &OnceCall) -> Result<StepResponse, Error> {
        check_payload(recorded, call)?;
        let node: NodeId =
            recorded.outcome.get("node").and_then(Value::as_str).and_then(|text| text.parse().ok()).ok_or_else(
                || Error::environment(format!("the recorded outcome of `{}` is unreadable", recorded.key)),
            )?;
        let node = self.node_record(node).await?;
        let context = self.run_context(node.run).await?;
        let tokens = self.tokens_for(&context, node.id, &node.state, AttemptId::first_for(node.id)).await?;
        let forked = node.cause == NodeCause::Fork;
        let mut response =
            self.respond(&context, node.id, &node.state, context.run.control, tokens, Flags { forked, replayed: true });
        if has_reports(&context.workflow.workflow) {
            response.report_warnings = self.recorded_report(&node).await?;
        }
        Ok(response)
    }

    /// The report warnings recorded with the advance that created `node`: its `ReportWarned`
    /// follows the node's `NodeCreated` and `AdvanceRecorded`, so a replay answers with them too.
    async fn recorded_report(&self, node: &NodeRecord) -> Result<Option<ReportWarnings>, Error> {
        let events = self.store.events(node.session, node.created_seq, 3).await?;
        Ok(events.into_iter().find_map(|event| match event.kind {
            EventKind::ReportWarned { node: warned, warnings, downgraded, .. } if warned == node.id => {
                Some(ReportWarnings { warnings, downgraded })
            }
            _ => None,
        }))
    }

    fn view<'a>(&self, context: &'a RunContext, node: &'a NodeRecord, reports: ReportPolicy) -> RunView<'a> {
        RunView {
            control: context.run.control,
            node: node.id,
            state: &node.state,
            has_children: node.child_count > 0,
            goal: &context.goal,
            reports,
        }
    }

    /// The report policy a run recorded when it started; the defaults for a run that recorded
    /// none (started before policies were recorded).
    async fn report_policy(&self, run: &RunRecord) -> Result<ReportPolicy, Error> {
        Ok(match self.run_started(run).await? {
            Some(EventKind::RunStarted { report_policy, .. }) => report_policy.unwrap_or_default(),
            _ => ReportPolicy::default(),
        })
    }

    /// The `RunStarted` event of `run`, read from its session's first events (its creation and
    /// its run's start): one bounded read, never a scan of the log.
    async fn run_started(&self, run: &RunRecord) -> Result<Option<EventKind>, Error> {
        let events = self.store.events(run.session, 0, 8).await?;
        Ok(events
            .into_iter()
            .filter(|event| event.run == Some(run.id))
            .map(|event| event.kind)
            .find(|kind| matches!(kind, EventKind::RunStarted { .. })))
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
    async fn open_attempt(&self, session: SessionId, node: NodeId) -> Result<AttemptId, Error> {
        let first = AttemptId::first_for(node);
        if self.advanced_on(session, node, first).await? { Ok(self.ids.attempt()) } else { Ok(first) }
    }

    /// Whether an advance from `node` on `attempt` is recorded (in `session`, the node's).
    async fn advanced_on(&self, session: SessionId, node: NodeId, attempt: AttemptId) -> Result<bool, Error> {
        Ok(self.store.recorded(session, &advance_key(node, attempt)).await?.is_some())
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
                refuse_id_as_token(text, TokenKind::Continue)?;
                let token: switchyard_core::token::Token = text.parse()?;
                let record = self.token_record(text, token.kind, None).await?;
                Ok((record.run, record.node, record.attempt.filter(|_| token.kind == TokenKind::Continue)))
            }
        }
    }

    /// Verifies a token of `kind`. A run, session or node id given instead is told apart from a
    /// malformed token, and a token of another kind from a wrong one: the caller is told what it
    /// gave and where the right token comes from. A token whose signature does not verify, or
    /// that is no token at all, is logged as a security refusal (never the token itself).
    async fn verify_token(
        &self,
        text: &str,
        kind: TokenKind,
        expected_run: Option<RunId>,
    ) -> Result<switchyard_core::token::Token, Error> {
        refuse_id_as_token(text, kind)?;
        match self.keys.verify(text, kind) {
            Ok(token) => Ok(token),
            Err(TokenError::WrongKind { .. }) => {
                // Signed here, so the store knows its run, whose current tokens `show` prints.
                let given: switchyard_core::token::Token = text.parse()?;
                let run = self.store.token(given.nonce).await?.map(|record| record.run.to_string());
                Err(Error::TokenOfOtherKind { expected: kind, given: given.kind, run })
            }
            Err(refused) => {
                observe::token_refused(&refused, kind, expected_run);
                Err(refused.into())
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
        let token = self.verify_token(text, kind, expected_run).await?;
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
        let token = self.verify_token(text, kind, expected_run).await?;
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

    async fn loaded_by_hash(&self, hash: WorkflowHash) -> Result<Arc<LoadedWorkflow>, Error> {
        if let Some(loaded) = self.loaded.lock().expect("workflow cache lock").get(&hash) {
            return Ok(Arc::clone(loaded));
        }
        let workflow =
            self.store.workflow(hash).await?.ok_or_else(|| self.not_found("pinned workflow", hash.to_string()))?;
        // The store refuses a pinned workflow that does not hash to `hash`, so it is not hashed again.
        self.load_as(hash, workflow)
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
            report: step.as_ref().map(ReportTemplate::for_step),
            step,
            tokens,
            forked: flags.forked,
            replayed: flags.replayed,
            validation,
            gate,
            decision,
            failure,
            report_warnings: None,
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

/// Refuses a run, session or node id given where a token of `kind` is expected, saying what it is
/// and where its token comes from, rather than calling it a malformed token.
fn refuse_id_as_token(text: &str, kind: TokenKind) -> Result<(), Error> {
    let id = text.trim();
    let what = [(RunId::PREFIX, "run"), (SessionId::PREFIX, "session"), (NodeId::PREFIX, "node")]
        .into_iter()
        .find_map(|(prefix, what)| id.starts_with(prefix).then_some(what));
    match what {
        Some(what) => Err(Error::IdNotToken { what, id: id.to_owned(), expected: kind.name() }),
        None => Ok(()),
    }
}

/// Refuses a report that still holds a placeholder of its [`ReportTemplate`]: sent as is, a
/// template copied from a response must neither advance the run nor use up an attempt.
fn refuse_placeholders(input: &AdvanceInput) -> Result<(), Error> {
    let paths = report_template::unfilled(input);
    if paths.is_empty() { Ok(()) } else { Err(Error::ReportNotFilledIn { paths }) }
}

/// A call that takes effect once: repeated with the same payload it replays the recorded answer;
/// with another payload it is refused, naming the fields that differ.
#[derive(Debug, Clone)]
struct OnceCall {
    key: String,
    /// The SHA-256 of the payload, as recorded.
    payload: String,
    /// The SHA-256 of each field of the payload, recorded in the claim's outcome so a mismatch
    /// can say which fields differ.
    fields: Map<String, Value>,
    /// The session the claim is recorded in: the run's.
    session: SessionId,
    /// The run the call acts on, for the way to a fresh token.
    run: RunId,
}

/// The claim key of an advance from `node` on `attempt`.
fn advance_key(node: NodeId, attempt: AttemptId) -> String {
    format!("advance:{node}:{attempt}")
}

/// The SHA-256 of each top-level field of a payload object.
fn field_hashes(payload: &Value) -> Map<String, Value> {
    payload
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| (name.clone(), Value::String(sha256_hex(&canonical_json(value)))))
        .collect()
}

fn check_payload(recorded: &switchyard_store::Recorded, call: &OnceCall) -> Result<(), Error> {
    if recorded.payload_sha256 == call.payload {
        return Ok(());
    }
    // Calls recorded before their fields were kept say only that something differs.
    let differs = match recorded.outcome.get("fields").and_then(Value::as_object) {
        Some(fields) => {
            let mut names: Vec<String> = fields
                .keys()
                .chain(call.fields.keys())
                .filter(|name| fields.get(*name) != call.fields.get(*name))
                .cloned()
                .collect();
            names.sort();
            names.dedup();
            names
        }
        None => Vec::new(),
    };
    let kind = recorded.key.split(':').next().unwrap_or_default();
    Err(Error::ReplayMismatch {
        call: ReplayedCall::from_key_kind(kind),
        run: call.run.to_string(),
        differs,
        recorded_sha256: recorded.payload_sha256.clone(),
        sent_sha256: call.payload.clone(),
    })
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

/// The fields of a human command, named as a mismatch names them (not its payload, which keeps
/// the shape it always had so recorded calls still match).
fn command_fields(command: &Command) -> Value {
    match command {
        Command::Approve { note } => serde_json::json!({ "decision": "approve", "note": note }),
        Command::Reject { reason } => serde_json::json!({ "decision": "reject", "reason": reason }),
        Command::Decide { option, note } => serde_json::json!({ "option": option.as_str(), "note": note }),
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

/// Whether any step of the workflow checks a status report (audits included).
fn has_reports(workflow: &Workflow) -> bool {
    workflow.rules.values().any(|rules| rules.status_report.is_some() || rules.audit)
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
