//! The agent runner's metrics on a server's `/metrics`: model turns, tokens, tool calls by tool
//! and outcome, the time tools took, and the runs a runner drove to an end.
//!
//! A runner runs in a process of its own, so a server learns of its turns from the store:
//! [`Runtime::follow_turns`] starts a follower on the change feed that reads each changed
//! session's events past the last one it read (a watermark per session, so a change costs a read
//! of what is new, never of the whole log) and adds the `model_turn` events into [`TurnMetrics`].
//! Like the server's other counters they start at zero when the follower starts: a scrape says
//! what runners did since then, never what the store holds from before.
//!
//! Labels are bounded: tool names outside [`RUNNER_TOOLS`] count as `other`, and no run or
//! session id is ever a label.

use std::collections::HashMap;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};
use switchyard_core::event::EventKind;
use switchyard_core::turn::{ModelTurn, Refusal};
use switchyard_core::{RunId, SessionId};
use switchyard_store::{MAX_PAGE, SessionQuery, Store, StoredEvent};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;

use crate::{Changes, Error, Runtime};

/// How a run ended, as the `run_finished` line and `switchyard_runs_finished_total` say it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EncodeLabelSet)]
pub struct Outcome {
    /// `completed`, `failed` or `stopped`.
    pub outcome: &'static str,
}

/// The tools a runner offers a model, each a label value of its own; any other name a model
/// calls (an unknown tool) counts as `other`.
pub const RUNNER_TOOLS: [&str; 10] = [
    "read_file",
    "list_files",
    "save_output",
    "write_file",
    "apply_patch",
    "update_frontmatter",
    "preload_workflow",
    "complete_step",
    "checkpoint",
    "run_command",
];

/// The label of a tool name outside [`RUNNER_TOOLS`].
const OTHER_TOOL: &str = "other";

/// Every outcome of a tool call, each series there from the start.
const TOOL_OUTCOMES: [&str; 4] = ["ok", "error", "blocked", "violation"];

/// Every way a run ends, as `switchyard_runs_finished_total` says it.
const RUN_OUTCOMES: [&str; 3] = ["completed", "failed", "stopped"];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EncodeLabelSet)]
struct TokenLabels {
    /// `prompt` or `completion`.
    kind: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ToolCallLabels {
    tool: &'static str,
    /// `ok`, `error`, `blocked` (a `complete_step` the step's checks blocked) or `violation` (a
    /// file tool call refused for security).
    outcome: &'static str,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, EncodeLabelSet)]
struct ToolLabels {
    tool: &'static str,
}

/// 100 µs to about 26 s: from a file read at the bottom, through a `complete_step`'s commit, to a
/// large patch or a slow disk in the top buckets.
fn tool_call_histogram() -> Histogram {
    Histogram::new(exponential_buckets(0.0001, 4.0, 10))
}

/// The runner's metrics, fed by the follower ([`Runtime::follow_turns`]).
#[derive(Debug, Clone)]
pub struct TurnMetrics {
    turns: Counter,
    tokens: Family<TokenLabels, Counter>,
    tool_calls: Family<ToolCallLabels, Counter>,
    tool_call_seconds: Family<ToolLabels, Histogram, fn() -> Histogram>,
    runs_finished: Family<Outcome, Counter>,
}

impl Default for TurnMetrics {
    fn default() -> Self {
        let metrics = Self {
            turns: Counter::default(),
            tokens: Family::default(),
            tool_calls: Family::default(),
            tool_call_seconds: Family::new_with_constructor(tool_call_histogram),
            runs_finished: Family::default(),
        };
        // Every series of the known label values is there from the start, so a rate over one
        // reads 0 rather than nothing.
        for kind in ["prompt", "completion"] {
            drop(metrics.tokens.get_or_create(&TokenLabels { kind }));
        }
        for tool in RUNNER_TOOLS.into_iter().chain([OTHER_TOOL]) {
            for outcome in TOOL_OUTCOMES {
                drop(metrics.tool_calls.get_or_create(&ToolCallLabels { tool, outcome }));
            }
        }
        for outcome in RUN_OUTCOMES {
            drop(metrics.runs_finished.get_or_create(&Outcome { outcome }));
        }
        metrics
    }
}

impl TurnMetrics {
    /// Registers every metric under `switchyard_runner_…` names (`docs/operations.md`).
    pub fn register(&self, registry: &mut Registry) {
        registry.register(
            "switchyard_runner_turns",
            "Model turns agent runners recorded since this server started",
            self.turns.clone(),
        );
        registry.register(
            "switchyard_runner_tokens",
            "Tokens agent runners' models counted since this server started, by kind (prompt, completion)",
            self.tokens.clone(),
        );
        registry.register(
            "switchyard_runner_tool_calls",
            "Tool calls of agent runners' models since this server started, by tool (unknown names as other) and outcome (ok, error, blocked, violation)",
            self.tool_calls.clone(),
        );
        registry.register_with_unit(
            "switchyard_runner_tool_call",
            "Time one tool call of an agent runner took, since this server started, by tool",
            Unit::Seconds,
            self.tool_call_seconds.clone(),
        );
        registry.register(
            "switchyard_runner_runs_finished",
            "Runs an agent runner drove that reached an end since this server started, by outcome",
            self.runs_finished.clone(),
        );
    }

    /// The value of one series, for tests and for a program that reads the metrics in process.
    pub fn turns(&self) -> u64 {
        self.turns.get()
    }

    /// Tool calls counted for `tool` (a [`RUNNER_TOOLS`] name or `other`) with `outcome`.
    pub fn tool_calls(&self, tool: &str, outcome: &str) -> u64 {
        let tool = if tool == OTHER_TOOL { Some(OTHER_TOOL) } else { label(tool) };
        let (Some(tool), Some(outcome)) = (tool, TOOL_OUTCOMES.into_iter().find(|known| *known == outcome)) else {
            return 0;
        };
        self.tool_calls.get_or_create(&ToolCallLabels { tool, outcome }).get()
    }

    /// Prompt and completion tokens counted.
    pub fn tokens(&self) -> (u64, u64) {
        let count = |kind| self.tokens.get_or_create(&TokenLabels { kind }).get();
        (count("prompt"), count("completion"))
    }

    /// Runner-driven runs counted as ended with `outcome` (`completed`, `failed`, `stopped`).
    pub fn runs_finished(&self, outcome: &str) -> u64 {
        RUN_OUTCOMES
            .into_iter()
            .find(|known| *known == outcome)
            .map_or(0, |outcome| self.runs_finished.get_or_create(&Outcome { outcome }).get())
    }

    fn count_turn(&self, turn: &ModelTurn) {
        self.turns.inc();
        self.tokens.get_or_create(&TokenLabels { kind: "prompt" }).inc_by(turn.usage.prompt_tokens);
        self.tokens.get_or_create(&TokenLabels { kind: "completion" }).inc_by(turn.usage.completion_tokens);
        for result in &turn.tool_results {
            let tool = label(&result.name).unwrap_or(OTHER_TOOL);
            let outcome = match (result.ok, result.refusal) {
                (true, _) => "ok",
                (false, Some(Refusal::Blocked)) => "blocked",
                (false, Some(Refusal::Violation)) => "violation",
                (false, None) => "error",
            };
            self.tool_calls.get_or_create(&ToolCallLabels { tool, outcome }).inc();
            // Microseconds to seconds: precision far beyond any bucket's width.
            #[allow(clippy::cast_precision_loss)]
            let seconds = result.micros as f64 / 1_000_000.0;
            self.tool_call_seconds.get_or_create(&ToolLabels { tool }).observe(seconds);
        }
    }
}

/// `name` as a label value when it is one of [`RUNNER_TOOLS`].
fn label(name: &str) -> Option<&'static str> {
    RUNNER_TOOLS.into_iter().find(|known| *known == name)
}

/// What the follower knows of one session.
#[derive(Debug, Default)]
struct Followed {
    /// The last event read.
    seen: u64,
    /// Runs of the session whose turns were counted and that have not ended.
    driven: Vec<RunId>,
    /// The run that ended last in the session, how, and whether it was counted: a runner records
    /// the turn whose `complete_step` ended a run after the run's end, so a run whose first turn
    /// seen is its last is counted when that turn comes.
    ended: Option<(RunId, &'static str, bool)>,
}

impl Followed {
    fn count(&mut self, event: &StoredEvent, metrics: &TurnMetrics) {
        let Some(run) = event.run else { return };
        let finished = |outcome: &'static str| metrics.runs_finished.get_or_create(&Outcome { outcome }).inc();
        match &event.kind {
            EventKind::ModelTurn(turn) => {
                metrics.count_turn(turn);
                match &mut self.ended {
                    Some((ended, outcome, counted)) if *ended == run && !*counted => {
                        finished(outcome);
                        *counted = true;
                    }
                    Some((ended, ..)) if *ended == run => {}
                    _ if !self.driven.contains(&run) => self.driven.push(run),
                    _ => {}
                }
            }
            EventKind::RunCompleted { .. } | EventKind::RunFailed { .. } | EventKind::RunStopped { .. } => {
                let outcome = match &event.kind {
                    EventKind::RunCompleted { .. } => "completed",
                    EventKind::RunFailed { .. } => "failed",
                    _ => "stopped",
                };
                let driven = self.driven.iter().position(|known| *known == run).map(|at| self.driven.swap_remove(at));
                if driven.is_some() {
                    finished(outcome);
                }
                self.ended = Some((run, outcome, driven.is_some()));
            }
            _ => {}
        }
    }
}

/// The follower's task: it stops when dropped (or when the store closes its feed).
#[derive(Debug)]
pub struct TurnFollower {
    task: tokio::task::JoinHandle<()>,
    progress: watch::Receiver<HashMap<SessionId, u64>>,
}

impl TurnFollower {
    /// Waits until the follower has read `session`'s log through `seq` (or the follower stopped).
    pub async fn reached(&mut self, session: SessionId, seq: u64) {
        // An error means the follower stopped: there is nothing more to wait for.
        let _ = self.progress.wait_for(|seen| seen.get(&session).is_some_and(|seen| *seen >= seq)).await;
    }
}

impl Drop for TurnFollower {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The follower's state, owned by its task.
struct Follower {
    store: std::sync::Arc<dyn Store>,
    metrics: TurnMetrics,
    sessions: HashMap<SessionId, Followed>,
    progress: watch::Sender<HashMap<SessionId, u64>>,
}

impl Follower {
    /// Marks where every session's log ends now, so what was there before is never counted.
    /// A session missing here is one created since: its log is read from its start.
    async fn mark_where_logs_end(&mut self) -> Result<(), Error> {
        for (session, last_seq) in where_logs_end(self.store.as_ref()).await? {
            self.sessions.entry(session).or_default().seen = last_seq;
        }
        Ok(())
    }

    /// Reads `session`'s events past the watermark through at least `last_seq`, a page at a time.
    async fn catch_up(&mut self, session: SessionId, last_seq: u64) -> Result<(), Error> {
        let followed = self.sessions.entry(session).or_default();
        while followed.seen < last_seq {
            let page = self.store.events(session, followed.seen, MAX_PAGE).await?;
            if page.is_empty() {
                break;
            }
            for event in page {
                followed.seen = event.seq;
                followed.count(&event, &self.metrics);
            }
        }
        let seen = followed.seen;
        self.progress.send_modify(|progress| {
            progress.insert(session, seen);
        });
        // Says how far the counters are, for an operator comparing them with a log (and for
        // tests that must know when another process's turns are counted).
        tracing::debug!(%session, seq = seen, "runner turns counted through this event");
        Ok(())
    }

    /// After the feed lagged: every session whose log grew past its watermark is read again.
    async fn catch_up_everywhere(&mut self) -> Result<(), Error> {
        for (session, last_seq) in where_logs_end(self.store.as_ref()).await? {
            self.catch_up(session, last_seq).await?;
        }
        Ok(())
    }

    async fn run(mut self, mut changes: Changes) {
        loop {
            let caught_up = match changes.recv().await {
                Ok(change) => self.catch_up(change.session, change.last_seq).await,
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(
                        missed,
                        "the runner metrics fell behind the change feed: reading every session again"
                    );
                    self.catch_up_everywhere().await
                }
                Err(RecvError::Closed) => return,
            };
            // The watermark stays where it was: the next change of the session reads it again.
            if let Err(error) = caught_up {
                tracing::warn!(%error, "cannot read the runner's turns for the metrics");
            }
        }
    }
}

/// Where every session's log ends now, read a page of sessions at a time.
async fn where_logs_end(store: &dyn Store) -> Result<Vec<(SessionId, u64)>, Error> {
    let mut ends = Vec::new();
    let mut before = None;
    loop {
        let page = store.list_sessions(SessionQuery { limit: MAX_PAGE, before, ..SessionQuery::default() }).await?;
        ends.extend(page.iter().map(|session| (session.id, session.last_seq)));
        match page.last() {
            Some(last) if page.len() == MAX_PAGE as usize => before = Some((last.updated_at_ms, last.id)),
            _ => return Ok(ends),
        }
    }
}

impl Runtime {
    /// Starts following the store for the agent runner's turns, which feed
    /// `self.metrics().runner` from now on; the follower runs until the handle is dropped.
    ///
    /// `switchyard serve` starts one, so `/metrics` counts the turns of runners in any process.
    pub async fn follow_turns(&self) -> Result<TurnFollower, Error> {
        // Subscribed before the logs' ends are marked: a commit in between is either before the
        // mark or reported by the feed.
        let changes = self.store.subscribe().await;
        let (progress, receiver) = watch::channel(HashMap::new());
        let mut follower = Follower {
            store: std::sync::Arc::clone(&self.store),
            metrics: self.metrics.runner.clone(),
            sessions: HashMap::new(),
            progress,
        };
        follower.mark_where_logs_end().await?;
        let task = tokio::spawn(follower.run(changes));
        Ok(TurnFollower { task, progress: receiver })
    }
}
