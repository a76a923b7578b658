//! Builders for conformance data: deterministic ids, a small workflow, node states and
//! [`SessionScript`], which writes one session's events in order.

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::id::{AttemptId, EventId, NodeId, RunId, SessionId};
use switchyard_core::state::{
    Counters, DecisionOption, DecisionReason, FailureCode, NodeKind, NodeState, Phase, RunStatus, Submission,
    Validation, ValidationIssue,
};
use switchyard_core::token::{Nonce, TokenKind};
use switchyard_core::workflow::{Edge, EdgeKind, EdgeTarget, Limits, NotesPolicy, Step, StepId, Workflow};

use crate::record::{Batch, Claim, NewEvent, TokenRecord};

fn id_bytes(tag: u8, high: u64, low: u64) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&high.to_be_bytes());
    bytes[8..].copy_from_slice(&low.to_be_bytes());
    bytes[0] = tag;
    bytes
}

pub fn session_id(n: u64) -> SessionId {
    SessionId::from_bytes(id_bytes(1, 0, n))
}

pub fn run_id(n: u64) -> RunId {
    RunId::from_bytes(id_bytes(2, 0, n))
}

pub fn node_id(n: u64) -> NodeId {
    NodeId::from_bytes(id_bytes(3, 0, n))
}

pub fn attempt_id(n: u64) -> AttemptId {
    AttemptId::from_bytes(id_bytes(4, 0, n))
}

pub fn nonce(n: u64) -> Nonce {
    let mut bytes = [0u8; 12];
    bytes[4..].copy_from_slice(&n.to_be_bytes());
    Nonce(bytes)
}

/// A small valid workflow: `draft` (gated) then `review`, an end step.
pub fn workflow() -> Workflow {
    let step = |id: &str, edges: Vec<Edge>| Step {
        id: StepId::new(id),
        title: format!("The {id} step"),
        prompt: format!("Do the {id} step for {{{{ goal }}}}."),
        role: None,
        model: None,
        notes: NotesPolicy::Optional,
        output_schema: None,
        gate: id == "draft",
        context_reset: false,
        phase: None,
        max_attempts: 3,
        edges,
    };
    Workflow {
        ir_version: 1,
        id: "conformance".to_owned(),
        version: "1.0.0".to_owned(),
        title: "Conformance workflow".to_owned(),
        description: "Two steps, used by the store conformance suite.".to_owned(),
        tags: vec!["conformance".to_owned()],
        entry: StepId::new("draft"),
        steps: vec![
            step(
                "draft",
                vec![Edge {
                    target: EdgeTarget::Step(StepId::new("review")),
                    label: "done".to_owned(),
                    default: true,
                    condition: None,
                    condition_text: None,
                    max_traversals: None,
                    kind: EdgeKind::Normal,
                }],
            ),
            step("review", Vec::new()),
        ],
        variables: Vec::new(),
        limits: Limits::default(),
        rules: Default::default(),
    }
}

/// A node state on `step` whose status is `status` (`Paused` and `Stopped` are run controls, not
/// node states, and map to a pending step).
pub fn node_state(step: &str, status: RunStatus) -> NodeState {
    let phase = match status {
        RunStatus::Active | RunStatus::Paused | RunStatus::Stopped => Phase::Pending,
        RunStatus::WaitingGate => {
            Phase::WaitingGate { submission: Submission { choice: Some("done".to_owned()), ..Submission::default() } }
        }
        RunStatus::Blocked => Phase::Blocked {
            validation: Validation {
                issues: vec![ValidationIssue {
                    code: "NOTES_REQUIRED".to_owned(),
                    path: "notes".to_owned(),
                    message: "notes are required".to_owned(),
                }],
            },
        },
        RunStatus::WaitingForHumanDecision => Phase::WaitingForHumanDecision {
            reason: DecisionReason::RevisionLimit,
            options: vec![DecisionOption::Accept, DecisionOption::Stop],
            submission: Submission::default(),
        },
        RunStatus::Completed => Phase::Completed,
        RunStatus::Failed => Phase::Failed { code: FailureCode::NoEligibleEdge, message: "no edge matched".to_owned() },
    };
    let mut context = serde_json::Map::new();
    context.insert("goal".to_owned(), serde_json::json!("ship it"));
    context.insert("score".to_owned(), serde_json::json!(0.75));
    NodeState {
        step: StepId::new(step),
        phase,
        context,
        counters: Counters { steps_completed: 1, ..Counters::default() },
        rejection: None,
        snapshot: None,
    }
}

/// Writes one session's events in order: session `n` with run `n`, event ids unique per session,
/// and a clock that moves one millisecond per event unless `at_ms` is set.
#[derive(Debug, Clone)]
pub struct SessionScript {
    pub n: u64,
    pub session: SessionId,
    pub run: RunId,
    /// The time of the next event.
    pub at_ms: i64,
    next_event: u64,
}

impl SessionScript {
    pub fn new(n: u64) -> Self {
        Self { n, session: session_id(n), run: run_id(n), at_ms: 1_700_000_000_000, next_event: 0 }
    }

    /// A fresh event of this session.
    pub fn event(&mut self, run: Option<RunId>, kind: EventKind) -> NewEvent {
        self.next_event += 1;
        let event =
            NewEvent { id: EventId::from_bytes(id_bytes(5, self.n, self.next_event)), run, at_ms: self.at_ms, kind };
        self.at_ms += 1;
        event
    }

    pub fn created(&mut self, goal: &str) -> NewEvent {
        self.event(
            None,
            EventKind::SessionCreated {
                goal: goal.to_owned(),
                title: format!("Session {}", self.n),
                workspace: Some("/work/project".to_owned()),
                git_branch: Some("main".to_owned()),
                git_head: None,
            },
        )
    }

    pub fn run_started(&mut self, workflow: &Workflow) -> NewEvent {
        let run = self.run;
        self.event(
            Some(run),
            EventKind::RunStarted {
                workflow_id: workflow.id.clone(),
                workflow_hash: workflow.hash(),
                source: "builtin".to_owned(),
                references: Vec::new(),
                report_policy: None,
                project_commands: Default::default(),
            },
        )
    }

    pub fn node(&mut self, node: NodeId, parent: Option<NodeId>, cause: NodeCause, status: RunStatus) -> NewEvent {
        let run = self.run;
        let kind = match cause {
            NodeCause::Start => NodeKind::Start,
            _ if status == RunStatus::Blocked => NodeKind::BlockedAttempt,
            _ => NodeKind::Step,
        };
        self.event(
            Some(run),
            EventKind::NodeCreated {
                node,
                parent,
                kind,
                cause,
                status,
                step: StepId::new("draft"),
                state: node_state("draft", status),
            },
        )
    }

    /// A run-level event (pause, resume, stop, completion, a checkpoint...).
    pub fn run_event(&mut self, kind: EventKind) -> NewEvent {
        let run = self.run;
        self.event(Some(run), kind)
    }

    /// An advance of this session's run from `from` to `to` (attempt `attempt`), recording
    /// `notes`, along the edge `again`.
    pub fn advanced(&mut self, from: NodeId, attempt: AttemptId, to: NodeId, notes: String) -> NewEvent {
        self.run_event(EventKind::AdvanceRecorded {
            from,
            attempt,
            to,
            notes: Some(notes),
            artifacts: None,
            context_delta: None,
            choice: Some("again".to_owned()),
            edge_label: Some("again".to_owned()),
        })
    }

    /// The batch that starts the session: created, run started, first node, workflow pinned.
    pub fn start(&mut self, first_node: NodeId) -> Batch {
        let workflow = workflow();
        let events = vec![
            self.created(&format!("goal of session {}", self.n)),
            self.run_started(&workflow),
            self.node(first_node, None, NodeCause::Start, RunStatus::Active),
        ];
        Batch { session: self.session, events, claim: None, tokens: Vec::new(), pin: Some(workflow), guard: None }
    }

    /// A batch of events with a claim.
    pub fn claimed(&self, events: Vec<NewEvent>, key: &str, payload_sha256: &str, outcome: serde_json::Value) -> Batch {
        Batch {
            session: self.session,
            events,
            claim: Some(Claim { key: key.to_owned(), payload_sha256: payload_sha256.to_owned(), outcome }),
            tokens: Vec::new(),
            pin: None,
            guard: None,
        }
    }

    /// A token record of this session's run.
    pub fn token(&self, nonce: Nonce, kind: TokenKind, node: NodeId, attempt: Option<AttemptId>) -> TokenRecord {
        TokenRecord { nonce, kind, session: self.session, run: self.run, node, attempt }
    }
}
