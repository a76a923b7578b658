//! Golden snapshots of the stored JSON of one event of every `EventKind`, so a change to the
//! domain types cannot silently change stored data. A failing snapshot means stored events would
//! change: keep the old encoding readable (or bump the envelope version) before accepting it.

use serde_json::json;
use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::evidence::{
    CommandLine, CommandRun, EvidenceResult, Observation, ProjectCommand, Snapshot, TestReport,
};
use switchyard_core::id::{AttemptId, EventId, NodeId, RunId, SessionId};
use switchyard_core::state::{
    DecisionOption, DowngradedFinding, NodeKind, NodeState, Phase, ReportPolicy, RunStatus, ValidationIssue,
};
use switchyard_core::turn::{
    ModelTurn, Refusal, TurnMessage, TurnRequest, TurnResponse, TurnToolCall, TurnToolResult, TurnUsage,
};
use switchyard_core::why::{Change, Evaluated, Nearest, Rule, Subject, Verdict, Why};
use switchyard_core::workflow::{StepId, WorkflowHash};
use switchyard_store::event::GENESIS_HASH;
use switchyard_store::{NewEvent, StoredEvent};

fn one_of_every_kind() -> Vec<EventKind> {
    let node = NodeId::from_bytes([3; 16]);
    let next = NodeId::from_bytes([4; 16]);
    let attempt = AttemptId::from_bytes([5; 16]);
    let mut context = serde_json::Map::new();
    context.insert("goal".to_owned(), json!("ship it"));
    let state = NodeState {
        step: StepId::new("draft"),
        phase: Phase::Pending,
        context,
        counters: Default::default(),
        rejection: None,
        snapshot: None,
    };
    vec![
        EventKind::SessionCreated {
            goal: "Fix the login bug".to_owned(),
            title: "Login bug".to_owned(),
            workspace: Some("/work/app".to_owned()),
            git_branch: Some("main".to_owned()),
            git_head: Some("0123abcd".to_owned()),
        },
        EventKind::RunStarted {
            workflow_id: "bug-fix".to_owned(),
            workflow_hash: WorkflowHash([0xab; 32]),
            source: "builtin".to_owned(),
            references: Vec::new(),
            report_policy: None,
            project_commands: Default::default(),
        },
        EventKind::NodeCreated {
            node,
            parent: None,
            kind: NodeKind::Start,
            cause: NodeCause::Start,
            status: RunStatus::Active,
            step: StepId::new("draft"),
            state,
        },
        EventKind::AdvanceRecorded {
            from: node,
            attempt,
            to: next,
            notes: Some("done".to_owned()),
            artifacts: Some(json!({"score": 0.9})),
            context_delta: Some(serde_json::Map::from_iter([("fixed".to_owned(), json!(true))])),
            choice: Some("ok".to_owned()),
            edge_label: Some("ok".to_owned()),
        },
        EventKind::GateDecided { node: next, to: node, approved: false, reason: Some("needs tests".to_owned()) },
        EventKind::HumanDecided { node, to: next, option: DecisionOption::Revise, note: None },
        EventKind::CheckpointRecorded {
            node,
            attempt: Some(attempt),
            notes: Some("halfway".to_owned()),
            automatic: false,
            phase: Some("build".to_owned()),
        },
        EventKind::RunPaused { reason: Some("lunch".to_owned()) },
        EventKind::RunResumed,
        EventKind::RunStopped { reason: None },
        EventKind::RunCompleted { node: next },
        EventKind::RunFailed { node: next, code: "NO_ELIGIBLE_EDGE".to_owned(), message: "no edge matched".to_owned() },
        // Added later: appended so the first twelve keep their ids, times and snapshots.
        EventKind::ReportWarned {
            node: next,
            step: StepId::new("audit"),
            warnings: vec![ValidationIssue {
                code: "STATUS_REPORT".to_owned(),
                path: "/artifacts/skills_used".to_owned(),
                message: "`skills_used` is missing".to_owned(),
            }],
            downgraded: vec![DowngradedFinding {
                path: "/artifacts/findings/0".to_owned(),
                summary: "possible race".to_owned(),
                confidence: 0.65,
                validated: false,
                min_confidence: 0.8,
            }],
        },
        // A run of a workflow with status reports records its report policy.
        EventKind::RunStarted {
            workflow_id: "audited".to_owned(),
            workflow_hash: WorkflowHash([0xcd; 32]),
            source: "builtin".to_owned(),
            references: Vec::new(),
            report_policy: Some(ReportPolicy { audit_min_confidence: 0.75, strict_status: true }),
            project_commands: [(ProjectCommand::TestCommand, CommandLine::Shell("cargo test".to_owned()))].into(),
        },
        // The agent runner's record of one request to a model.
        EventKind::ModelTurn(Box::new(ModelTurn {
            node,
            step: StepId::new("draft"),
            turn: 3,
            model: "fast".to_owned(),
            request: TurnRequest {
                messages: 5,
                tools: 9,
                fresh: true,
                trimmed: 1,
                new_messages: vec![TurnMessage {
                    role: "system".to_owned(),
                    content: "You are the planner.".to_owned(),
                }],
            },
            response: TurnResponse {
                text: Some("Reading the plan first.".to_owned()),
                tool_calls: vec![
                    TurnToolCall {
                        id: "call_1".to_owned(),
                        name: "read_file".to_owned(),
                        arguments: "{\"path\":\"plan.md\"}".to_owned(),
                    },
                    TurnToolCall {
                        id: "call_2".to_owned(),
                        name: "complete_step".to_owned(),
                        arguments: "{}".to_owned(),
                    },
                ],
                finish_reason: Some("tool_calls".to_owned()),
            },
            tool_results: vec![
                TurnToolResult {
                    call_id: "call_1".to_owned(),
                    name: "read_file".to_owned(),
                    ok: true,
                    content: "# Plan".to_owned(),
                    micros: 120,
                    refusal: None,
                },
                // A report the step's checks blocked: counted apart by the runner metrics.
                TurnToolResult {
                    call_id: "call_2".to_owned(),
                    name: "complete_step".to_owned(),
                    ok: false,
                    content: "{\"status\":\"blocked\"}".to_owned(),
                    micros: 900,
                    refusal: Some(Refusal::Blocked),
                },
            ],
            usage: TurnUsage { prompt_tokens: 1200, completion_tokens: 40, estimated: false },
            latency_ms: 850,
            cost_usd: Some(0.0125),
        })),
        // A step's evidence: what switchyard observed of the work, check by check.
        EventKind::EvidenceRecorded {
            node: next,
            step: StepId::new("implement"),
            results: vec![
                EvidenceResult {
                    check: 0,
                    passed: true,
                    observation: Observation::Changed { changed: vec!["src/lib.rs".to_owned()], count: 1 },
                },
                EvidenceResult {
                    check: 1,
                    passed: false,
                    observation: Observation::Command(CommandRun {
                        exit_code: Some(101),
                        signal: None,
                        timed_out: false,
                        duration_ms: 2300,
                        output_tail: "test result: FAILED".to_owned(),
                        output_bytes: 2048,
                        stdout_sha256: "ab".repeat(32),
                        stderr_sha256: "cd".repeat(32),
                        confined: true,
                    }),
                },
                EvidenceResult {
                    check: 2,
                    passed: false,
                    observation: Observation::TestReport(TestReport {
                        tests: 0,
                        failures: 0,
                        errors: 0,
                        skipped: 0,
                        problem: Some("the command did not write `report.xml`".to_owned()),
                    }),
                },
            ],
        },
        // A node that hands out a step whose evidence compares with the workspace keeps its snapshot.
        EventKind::NodeCreated {
            node: next,
            parent: Some(node),
            kind: NodeKind::Step,
            cause: NodeCause::Advance,
            status: RunStatus::Active,
            step: StepId::new("implement"),
            state: NodeState {
                step: StepId::new("implement"),
                phase: Phase::Pending,
                context: serde_json::Map::new(),
                counters: Default::default(),
                rejection: None,
                snapshot: Some(Snapshot::Git { tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904".to_owned() }),
            },
        },
        // Why the run went where it went: a condition that did not hold with the change that would
        // have taken its edge, a skipped step, an output check, and the rule that chose.
        EventKind::DecisionRecorded {
            node: next,
            step: StepId::new("review"),
            why: Why {
                evaluated: vec![
                    Evaluated {
                        step: StepId::new("review"),
                        subject: Subject::Edge { label: "ship".to_owned() },
                        text: "stable == true && count >= 3".to_owned(),
                        read: [("count".to_owned(), json!(1)), ("stable".to_owned(), json!(false))].into(),
                        result: Verdict::NotHeld,
                        nearest: Some(Nearest::Set {
                            changes: vec![
                                Change { name: "stable".to_owned(), operator: "==".to_owned(), value: json!(true) },
                                Change { name: "count".to_owned(), operator: ">=".to_owned(), value: json!(3) },
                            ],
                        }),
                    },
                    Evaluated {
                        step: StepId::new("review"),
                        subject: Subject::Edge { label: "retry".to_owned() },
                        text: "attempt < 3".to_owned(),
                        read: [("attempt".to_owned(), json!(3))].into(),
                        result: Verdict::UsedUp { max: 2 },
                        nearest: None,
                    },
                    Evaluated {
                        step: StepId::new("review"),
                        subject: Subject::Check { index: 0 },
                        text: "the notes contain \"DONE\"".to_owned(),
                        read: Default::default(),
                        result: Verdict::Held,
                        nearest: None,
                    },
                    Evaluated {
                        step: StepId::new("docs"),
                        subject: Subject::RunWhen,
                        text: "context.docs".to_owned(),
                        read: [("context.docs".to_owned(), serde_json::Value::Null)].into(),
                        result: Verdict::Error { message: "No such key: docs".to_owned() },
                        nearest: None,
                    },
                ],
                more: 0,
                rule: Rule::Default { label: "hold".to_owned() },
            },
        },
    ]
}

/// Fails to compile when a kind is added, so the list above stays complete.
fn covered(kind: &EventKind) -> &'static str {
    match kind {
        EventKind::SessionCreated { .. }
        | EventKind::RunStarted { .. }
        | EventKind::NodeCreated { .. }
        | EventKind::AdvanceRecorded { .. }
        | EventKind::ReportWarned { .. }
        | EventKind::EvidenceRecorded { .. }
        | EventKind::DecisionRecorded { .. }
        | EventKind::GateDecided { .. }
        | EventKind::HumanDecided { .. }
        | EventKind::CheckpointRecorded { .. }
        | EventKind::RunPaused { .. }
        | EventKind::RunResumed
        | EventKind::RunStopped { .. }
        | EventKind::RunCompleted { .. }
        | EventKind::RunFailed { .. }
        | EventKind::ModelTurn(_) => kind.name(),
    }
}

#[test]
fn stored_json_of_every_event_kind_is_pinned() {
    let session = SessionId::from_bytes([1; 16]);
    let run = RunId::from_bytes([2; 16]);
    let kinds = one_of_every_kind();
    let mut names: Vec<_> = kinds.iter().map(covered).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 16, "one event of every kind (run_started and node_created twice)");
    let mut seen = std::collections::BTreeSet::new();
    for (index, kind) in kinds.into_iter().enumerate() {
        // The second event of a kind is pinned as `<kind>_2`.
        let name = if seen.insert(kind.name()) { kind.name().to_owned() } else { format!("{}_2", kind.name()) };
        let event = NewEvent {
            id: EventId::from_bytes([index as u8 + 10; 16]),
            run: (index > 0).then_some(run),
            at_ms: 1_760_000_000_000 + index as i64,
            kind,
        };
        // Each snapshot stands alone (genesis `prev_hash`), so a change shows in its kind only.
        let (stored, body) = StoredEvent::seal(session, index as u64 + 1, GENESIS_HASH, event);
        let round_trip = StoredEvent::from_body(&body, stored.hash.clone()).expect("the body decodes");
        assert_eq!(round_trip, stored, "{name} round-trips through its stored body");
        // The hash covers the exact stored bytes, so the snapshot pins them too.
        insta::assert_json_snapshot!(name, stored);
    }
}
