//! What operators see of the runtime: one structured log line per lifecycle event, and the
//! runtime's metrics, both fed here once a command's batch is committed, whichever door sent the
//! command (CLI, MCP, file door, an embedding program).
//!
//! The log lines are `tracing` events at info with the target `switchyard::lifecycle` and stable
//! field names (`event`, `run`, `session`, `workflow`, `step`, `node`, and a few per event;
//! `docs/operations.md` lists them). They carry ids and names only: never a token, a key, notes,
//! artifacts, a goal or a reason a human typed. Security refusals ([`SECURITY_REFUSED`]) share the
//! target and the `event` field, at warn.
//!
//! The metrics are prometheus-client values (atomics behind `Arc`s), cheap to update on the
//! command path; a door that serves them registers them with [`Metrics::register`].

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The Prometheus client the metrics are made of, for a program that registers them with a
/// registry of its own ([`Metrics::register`]) without naming the crate's version twice.
pub use prometheus_client;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};
use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::state::{FailureCode, Phase};
use switchyard_core::token::{TokenError, TokenKind};
use switchyard_core::workflow::StepId;
use switchyard_core::{NodeId, RunId, RunStatus, SessionId};

pub use crate::turn_metrics::Outcome;
use crate::turn_metrics::TurnMetrics;

/// The `tracing` target of the lifecycle log lines, for filters
/// (`SWITCHYARD_LOG=switchyard::lifecycle=info`).
pub const LIFECYCLE_TARGET: &str = "switchyard::lifecycle";

/// The `event` of the line a door logs at warn, with the target [`LIFECYCLE_TARGET`], when it
/// refuses a request for security: a token whose signature does not verify, a request the HTTP
/// guard turns away, a wrong console login, a file tool call outside its sandbox. The line says
/// what was refused and why, with the ids it knows, and never the secret that was sent.
pub const SECURITY_REFUSED: &str = "security_refused";

/// The most [`SECURITY_REFUSED`] lines a process logs in one second, across every door: whoever
/// sends refused requests (a peer knocking on `serve`, an agent trying paths or tokens) must not
/// be able to fill the disk with the log. The refusals themselves are never limited here.
pub const REFUSAL_LINES_PER_SECOND: u32 = 10;

/// Whether a [`SECURITY_REFUSED`] line may be logged now: `Some(suppressed)`, the refusals left
/// out of the log since the last line (which the line carries as its `suppressed` field, so the
/// lines still count every refusal), or `None` when this second's lines are spent.
pub fn refusal_line() -> Option<u64> {
    static LIMIT: Mutex<RefusalLimit> = Mutex::new(RefusalLimit { second: None, logged: 0, suppressed: 0 });
    LIMIT.lock().unwrap_or_else(PoisonError::into_inner).admit(Instant::now())
}

/// [`refusal_line`]'s count: the lines of the current second and the refusals left out.
#[derive(Debug)]
struct RefusalLimit {
    /// When the current second began; `None` before the first refusal.
    second: Option<Instant>,
    logged: u32,
    suppressed: u64,
}

impl RefusalLimit {
    fn admit(&mut self, now: Instant) -> Option<u64> {
        if self.second.is_none_or(|began| now.saturating_duration_since(began) >= Duration::from_secs(1)) {
            self.second = Some(now);
            self.logged = 0;
        }
        if self.logged < REFUSAL_LINES_PER_SECOND {
            self.logged += 1;
            Some(std::mem::take(&mut self.suppressed))
        } else {
            self.suppressed += 1;
            None
        }
    }
}

/// The runtime's metrics: counters and a gauge kept current as commands commit, and the commit
/// latency measured around the store's append.
#[derive(Debug, Clone)]
pub struct Metrics {
    /// Runs started.
    pub runs_started: Counter,
    /// Runs that reached an end, by outcome.
    pub runs_finished: Family<Outcome, Counter>,
    /// Advances recorded, blocked ones included.
    pub advances: Counter,
    /// Advances that failed their checks (each one uses an attempt).
    pub blocked_attempts: Counter,
    /// Runs whose tip waits at a gate for a human, as this process saw them change (see
    /// [`crate::Runtime::count_waiting_gates`] for the starting value).
    pub gates_waiting: Gauge,
    /// Seconds one command's batch took to commit (the store's append, from call to answer).
    pub commit_seconds: Histogram,
    /// The agent runner's turns, fed by [`crate::Runtime::follow_turns`] where a server starts it.
    pub runner: TurnMetrics,
}

/// Every outcome `run_finished` reports, each series there from the start so a rate over it
/// reads 0 rather than nothing.
const OUTCOMES: [&str; 3] = ["completed", "failed", "stopped"];

impl Default for Metrics {
    fn default() -> Self {
        let runs_finished = Family::<Outcome, Counter>::default();
        for outcome in OUTCOMES {
            drop(runs_finished.get_or_create(&Outcome { outcome }));
        }
        Self {
            runs_started: Counter::default(),
            runs_finished,
            advances: Counter::default(),
            blocked_attempts: Counter::default(),
            gates_waiting: Gauge::default(),
            // 100 µs to about 1.6 s: a grouped SQLite commit with `synchronous=FULL` on a fast disk
            // lands in the bottom buckets, and a slow disk or a long writer queue in the top ones.
            commit_seconds: Histogram::new(exponential_buckets(0.0001, 2.0, 15)),
            runner: TurnMetrics::default(),
        }
    }
}

impl Metrics {
    /// Registers every metric under `switchyard_…` names (`docs/operations.md`).
    ///
    /// ```
    /// use switchyard_runtime::observe::{Metrics, prometheus_client};
    ///
    /// let metrics = Metrics::default();
    /// let mut registry = prometheus_client::registry::Registry::default();
    /// metrics.register(&mut registry);
    /// metrics.advances.inc();
    /// let mut text = String::new();
    /// prometheus_client::encoding::text::encode(&mut text, &registry).unwrap();
    /// assert!(text.contains("switchyard_advances_total 1"));
    /// ```
    pub fn register(&self, registry: &mut Registry) {
        registry.register("switchyard_runs_started", "Runs started", self.runs_started.clone());
        registry.register(
            "switchyard_runs_finished",
            "Runs that reached an end, by outcome",
            self.runs_finished.clone(),
        );
        registry.register("switchyard_advances", "Advances recorded, blocked ones included", self.advances.clone());
        registry.register(
            "switchyard_blocked_attempts",
            "Advances that failed their checks",
            self.blocked_attempts.clone(),
        );
        registry.register(
            "switchyard_gates_waiting",
            "Runs whose current step waits at a gate for a human",
            self.gates_waiting.clone(),
        );
        registry.register_with_unit(
            "switchyard_commit",
            "Time one command's batch took to commit to the store",
            Unit::Seconds,
            self.commit_seconds.clone(),
        );
        self.runner.register(registry);
    }

    pub(crate) fn committed_in(&self, elapsed: Duration) {
        self.commit_seconds.observe(elapsed.as_secs_f64());
    }
}

/// The lifecycle events, each one `event` value of the log lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lifecycle {
    RunStarted,
    StepCompleted,
    AdvanceBlocked,
    GateWaiting,
    GateDecided,
    DecisionMade,
    RunFinished,
}

impl Lifecycle {
    /// The `event` field, stable: operators filter on it.
    fn name(self) -> &'static str {
        match self {
            Self::RunStarted => "run_started",
            Self::StepCompleted => "step_completed",
            Self::AdvanceBlocked => "advance_blocked",
            Self::GateWaiting => "gate_waiting",
            Self::GateDecided => "gate_decided",
            Self::DecisionMade => "decision_made",
            Self::RunFinished => "run_finished",
        }
    }

    /// The line's message, for people reading the text format.
    fn message(self) -> &'static str {
        match self {
            Self::RunStarted => "run started",
            Self::StepCompleted => "step completed",
            Self::AdvanceBlocked => "advance blocked by the step's checks",
            Self::GateWaiting => "gate waits for a human",
            Self::GateDecided => "gate decided",
            Self::DecisionMade => "a human decided how the run goes on",
            Self::RunFinished => "run finished",
        }
    }
}

/// One lifecycle event a committed batch contains, with the fields its line carries besides the
/// run's (a field left `None` is left out of the line).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Fact {
    kind: Lifecycle,
    step: Option<StepId>,
    node: Option<NodeId>,
    next_node: Option<NodeId>,
    approved: Option<bool>,
    outcome: Option<&'static str>,
    code: Option<String>,
    /// The option a human picked (`decision_made`).
    option: Option<&'static str>,
}

impl Fact {
    fn new(kind: Lifecycle, node: Option<NodeId>, step: Option<StepId>) -> Self {
        Self { kind, step, node, next_node: None, approved: None, outcome: None, code: None, option: None }
    }

    fn finished(node: Option<NodeId>, outcome: &'static str, code: Option<String>) -> Self {
        Self { outcome: Some(outcome), code, ..Self::new(Lifecycle::RunFinished, node, None) }
    }
}

/// What a command's batch will say once committed: read from its events before they go to the
/// store, so nothing of the notes or artifacts is kept, and told with [`Observed::committed`].
#[derive(Debug)]
pub(crate) struct Observed {
    session: SessionId,
    run: RunId,
    workflow: String,
    facts: Vec<Fact>,
    /// Advances recorded, blocked ones included.
    advances: u64,
    /// The run's status before the command (`None` for a run being started).
    before: Option<RunStatus>,
}

impl Observed {
    /// Reads the facts of `events`; `acted_on` is the node the command acted on and its step.
    pub(crate) fn of(
        session: SessionId,
        run: RunId,
        workflow: &str,
        events: &[EventKind],
        acted_on: Option<(NodeId, &StepId)>,
        before: Option<RunStatus>,
    ) -> Self {
        let created = |wanted: NodeId| {
            events.iter().find_map(|event| match event {
                EventKind::NodeCreated { node, state, .. } if *node == wanted => Some(state),
                _ => None,
            })
        };
        let acted_step = acted_on.map(|(_, step)| step.clone());
        let mut facts = Vec::new();
        let mut advances = 0;
        for event in events {
            match event {
                EventKind::NodeCreated { node, cause: NodeCause::Start, step, .. } => {
                    facts.push(Fact::new(Lifecycle::RunStarted, Some(*node), Some(step.clone())));
                }
                EventKind::AdvanceRecorded { from, to, .. } => {
                    advances += 1;
                    let step = acted_step.clone();
                    match created(*to).map(|state| (&state.phase, &state.step)) {
                        // The last attempt failing its checks fails the run: still a blocked
                        // attempt, and `run_finished` follows from the `RunFailed` event.
                        Some((
                            Phase::Blocked { .. } | Phase::Failed { code: FailureCode::AttemptsExhausted, .. },
                            _,
                        )) => facts.push(Fact::new(Lifecycle::AdvanceBlocked, Some(*from), step)),
                        Some((Phase::WaitingGate { .. }, gated)) => {
                            facts.push(Fact::new(Lifecycle::GateWaiting, Some(*to), Some(gated.clone())));
                        }
                        Some((Phase::Pending | Phase::Completed, _)) => {
                            let next_node = Some(*to);
                            facts.push(Fact { next_node, ..Fact::new(Lifecycle::StepCompleted, Some(*from), step) });
                        }
                        // Accepted but held for a human's decision (a limit reached), or failed
                        // for want of an edge: the step is not done; `run_finished` says a failure.
                        Some((Phase::WaitingForHumanDecision { .. } | Phase::Failed { .. }, _)) | None => {}
                    }
                }
                EventKind::GateDecided { node, to, approved, .. } => {
                    let decided = Fact::new(Lifecycle::GateDecided, Some(*node), acted_step.clone());
                    facts.push(Fact { approved: Some(*approved), ..decided });
                    // An approved gate moves the run on: the gated step is done.
                    if *approved {
                        let completed = Fact::new(Lifecycle::StepCompleted, Some(*node), acted_step.clone());
                        facts.push(Fact { next_node: Some(*to), ..completed });
                    }
                }
                EventKind::HumanDecided { node, to, option, .. } => {
                    let decided = Fact::new(Lifecycle::DecisionMade, Some(*node), acted_step.clone());
                    facts.push(Fact { next_node: Some(*to), option: Some(option.as_str()), ..decided });
                }
                EventKind::RunCompleted { node } => {
                    facts.push(Fact::finished(Some(*node), "completed", None));
                }
                EventKind::RunFailed { node, code, .. } => {
                    facts.push(Fact::finished(Some(*node), "failed", Some(code.clone())));
                }
                EventKind::RunStopped { .. } => {
                    facts.push(Fact::finished(acted_on.map(|(node, _)| node), "stopped", None));
                }
                _ => {}
            }
        }
        Self { session, run, workflow: workflow.to_owned(), facts, advances, before }
    }

    /// Logs each fact and updates the metrics; `after` is the run's status once committed.
    pub(crate) fn committed(self, metrics: &Metrics, after: RunStatus) {
        let waiting = |status: Option<RunStatus>| i64::from(status == Some(RunStatus::WaitingGate));
        let change = waiting(Some(after)) - waiting(self.before);
        if change != 0 {
            metrics.gates_waiting.inc_by(change);
        }
        metrics.advances.inc_by(self.advances);
        for fact in self.facts {
            match fact.kind {
                Lifecycle::RunStarted => {
                    metrics.runs_started.inc();
                }
                Lifecycle::AdvanceBlocked => {
                    metrics.blocked_attempts.inc();
                }
                Lifecycle::RunFinished => {
                    metrics.runs_finished.get_or_create(&Outcome { outcome: fact.outcome.unwrap_or_default() }).inc();
                }
                Lifecycle::StepCompleted
                | Lifecycle::GateWaiting
                | Lifecycle::GateDecided
                | Lifecycle::DecisionMade => {}
            }
            tracing::info!(
                target: LIFECYCLE_TARGET,
                event = fact.kind.name(),
                // Values are only formatted when the line is enabled: off, a commit pays nothing.
                run = %self.run,
                session = %self.session,
                workflow = self.workflow.as_str(),
                step = fact.step.as_ref().map(StepId::as_str),
                node = fact.node.map(|node| node.to_string()),
                next_node = fact.next_node.map(|node| node.to_string()),
                approved = fact.approved,
                outcome = fact.outcome,
                code = fact.code,
                option = fact.option,
                "{}",
                fact.kind.message()
            );
        }
    }
}

/// Logs a token refused for what it is, as a [`SECURITY_REFUSED`] line: one whose signature does
/// not verify (altered, forged, or signed by another switchyard home) at warn, and one that is no
/// token at all at info, since that is most often a copy cut short. `expected` is the kind the
/// call takes, `run` the run the caller named. The token itself is never logged.
pub(crate) fn token_refused(refused: &TokenError, expected: TokenKind, run: Option<RunId>) {
    if !matches!(refused, TokenError::BadSignature | TokenError::Malformed { .. }) {
        return;
    }
    let Some(suppressed) = refusal_line() else { return };
    let run = run.map(|run| run.to_string());
    match refused {
        TokenError::BadSignature => tracing::warn!(
            target: LIFECYCLE_TARGET,
            event = SECURITY_REFUSED,
            token_kind = expected.name(),
            code = refused.code(),
            run,
            suppressed,
            "security: a token whose signature does not verify was refused"
        ),
        TokenError::Malformed { reason } => tracing::info!(
            target: LIFECYCLE_TARGET,
            event = SECURITY_REFUSED,
            token_kind = expected.name(),
            code = refused.code(),
            reason = reason.as_str(),
            run,
            suppressed,
            "security: a malformed token was refused"
        ),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusal_lines_are_limited_per_second_and_the_next_line_counts_those_left_out() {
        let mut limit = RefusalLimit { second: None, logged: 0, suppressed: 0 };
        let start = Instant::now();
        for _ in 0..REFUSAL_LINES_PER_SECOND {
            assert_eq!(limit.admit(start), Some(0));
        }
        let later = start + Duration::from_millis(999);
        assert_eq!((limit.admit(later), limit.admit(later), limit.admit(later)), (None, None, None));
        let next_second = start + Duration::from_secs(1);
        assert_eq!(limit.admit(next_second), Some(3), "the first line of the next second counts the three");
        assert_eq!(limit.admit(next_second), Some(0));
    }
}
