//! The one API every switchyard door uses.
//!
//! [`Runtime`] starts runs of the workflows a catalog finds, turns tokens into (run, node,
//! attempt), asks the engine for the transition, appends it to the store in one batch, and shapes
//! the answer.
//! It decides no engine rule itself: `switchyard_engine::transition` does.
//!
//! # Using switchyard from another Rust program
//!
//! Resolve a `switchyard_config::Config` (a home for the key file and the SQLite store),
//! [`Runtime::open`] it, [`Runtime::start`] a run of a workflow a `switchyard_catalog::Catalog`
//! finds, hand the pending step to whoever does the work, and
//! [`Runtime::advance`] with the continue token and a report. Every door of switchyard (the CLI,
//! the MCP server, the file tools) goes through these same calls, so a run started here can be
//! continued with `switchyard continue` and shows in `switchyard sessions`.
//!
//! ```
//! use switchyard_catalog::Catalog;
//! use switchyard_config::{Config, Overrides};
//! use switchyard_runtime::{AdvanceInput, ResponseKind, Runtime, StartRequest};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let home = tempfile::tempdir()?;
//! let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?;
//! let runtime = Runtime::open(&config).await?;
//! // Where workflows are found: the project's, the user's, attached folders, the built-ins.
//! let catalog = Catalog::configured(&config);
//!
//! let request = StartRequest { workflow: Some("dev-cycle".into()), goal: "Add a --verbose flag".into(), ..StartRequest::default() };
//! let started = runtime.start(&catalog, request).await?;
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

mod checkpoints;
pub mod clock;
mod commands;
mod context;
pub mod error;
pub mod evidence;
mod follow;
pub mod health;
mod human;
pub mod keys;
pub mod observe;
mod queries;
mod replay;
pub mod report_template;
mod requests;
pub mod response;
mod resume;
mod run_steps;
mod start;
pub mod store;
mod tokens;
pub mod tool_schema;
pub mod transcript;
pub mod turn_metrics;
pub mod workspace;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use switchyard_config::{Config, ExecutionConfig};
use switchyard_core::WorkflowHash;
use switchyard_core::state::ReportPolicy;
use switchyard_core::token::Keyring;
use switchyard_core::{RunId, RunStatus};
use switchyard_store::{Appended, Batch, NewEvent, Store};

use crate::clock::{Clock, IdSource, RandomIds, SystemClock};
pub use crate::commands::Findings;
pub use crate::context::RunContext;
pub use crate::error::{Error, ErrorClass, ReplayedCall};
use crate::evidence::EvidencePolicy;
pub use crate::follow::{Committed, Follower};
pub use crate::human::HumanAnswer;
use crate::observe::Metrics;
pub use crate::replay::Decision;
pub use crate::report_template::{FillIn, ReportTemplate};
pub use crate::requests::{AdvanceInput, StartRequest, Target};
pub use crate::response::{
    CheckpointResponse, DecisionView, FailureView, GateView, Progress, ReportWarnings, ResponseKind, StepResponse,
    Tokens, WorkflowRef,
};
pub use crate::resume::{Confidence, MAX_RESUME_CANDIDATES, RECAP_BUDGET_BYTES, Recap, ResumeCandidate, ResumeRequest};
pub use crate::start::limits_for;
pub use crate::transcript::RecordedTurn;
pub use switchyard_engine::{AllowedEdge, LoadedWorkflow, PendingStep};
// A run's nodes and its record as the store keeps them, for doors that draw or list them.
pub use switchyard_store::{CHANGE_BACKLOG, Change, Changes, Feed, NodeRecord, RecvError, RunRecord};

/// The switchyard runtime.
#[derive(Debug)]
pub struct Runtime {
    store: Arc<dyn Store>,
    store_label: String,
    keys: Keyring,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
    /// Loaded workflows by hash: each pinned workflow is compiled once per process.
    loaded: Mutex<HashMap<WorkflowHash, Arc<LoadedWorkflow>>>,
    /// Who hears of each commit in this process (`Follower`), in the order they were added.
    followers: Vec<Arc<dyn Follower>>,
    /// `[execution]`: the limits a run gets when its workflow does not declare them.
    execution: ExecutionConfig,
    /// `[audit] audit_min_confidence`, recorded with each run that has status reports when it
    /// starts; the run keeps its own afterwards.
    audit_min_confidence: f64,
    /// Counters, gauges and the commit histogram.
    metrics: Metrics,
    /// The store's file, when the runtime opened one (`store_size_bytes`).
    store_path: Option<PathBuf>,
    /// Where and how the commands of evidence checks run.
    evidence: EvidencePolicy,
}

/// The parts a runtime is built from; tests and benchmarks pass their own.
#[derive(Debug)]
pub struct Parts {
    pub store: Arc<dyn Store>,
    pub store_label: String,
    pub keys: Keyring,
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
    /// use switchyard_config::{Config, Overrides};
    /// use switchyard_runtime::Runtime;
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
        std::fs::create_dir_all(&config.home).map_err(|source| Error::Home { path: config.home.clone(), source })?;
        let ids: Arc<dyn IdSource> = Arc::new(RandomIds);
        let keys = keys::load_or_create(&config.home, ids.as_ref())?;
        let location = store::Location::of(config);
        let runtime = Self::from_parts(Parts {
            store: location.open().await?,
            store_label: location.describe(),
            keys,
            clock: Arc::new(SystemClock),
            ids,
        })
        .with_execution(config.execution)
        .with_audit_min_confidence(config.audit.min_confidence)
        .with_evidence(EvidencePolicy::of(config));
        Ok(match location {
            store::Location::Sqlite(path) => runtime.with_store_path(path),
            store::Location::Postgres(_) => runtime,
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

    /// Where and how the commands of evidence checks run from now on; `switchyard serve` narrows
    /// them to the workspaces it was told to trust ([`EvidencePolicy::served`]).
    #[must_use]
    pub fn with_evidence(mut self, evidence: EvidencePolicy) -> Self {
        self.evidence = evidence;
        self
    }

    pub fn from_parts(parts: Parts) -> Self {
        Self {
            store: parts.store,
            store_label: parts.store_label,
            keys: parts.keys,
            clock: parts.clock,
            ids: parts.ids,
            loaded: Mutex::default(),
            followers: Vec::new(),
            execution: ExecutionConfig::default(),
            audit_min_confidence: ReportPolicy::DEFAULT_MIN_CONFIDENCE,
            metrics: Metrics::default(),
            store_path: None,
            evidence: EvidencePolicy::default(),
        }
    }

    /// Lets `follower` hear of every command this runtime commits from now on, after the commit
    /// and before the command answers (see [`Follower`]).
    #[must_use]
    pub fn with_follower(mut self, follower: Arc<dyn Follower>) -> Self {
        self.followers.push(follower);
        self
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

    fn stamp(&self, run: RunId, events: Vec<switchyard_core::event::EventKind>) -> Vec<NewEvent> {
        let at_ms = self.clock.now_ms();
        events.into_iter().map(|kind| NewEvent { id: self.ids.event(), run: Some(run), at_ms, kind }).collect()
    }

    fn not_found(&self, what: &'static str, id: String) -> Error {
        Error::NotFound { what, id, store: self.store_label.clone() }
    }
}
