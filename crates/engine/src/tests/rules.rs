//! One test per engine rule, on small text-fixture workflows.

use serde_json::json;
use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::limits::{MAX_CONTEXT_BYTES, MAX_JSON_DEPTH, MAX_NOTES_BYTES};
use switchyard_core::state::{
    Control, DecisionOption, DecisionReason, FailureCode, NodeKind, Phase, RunStatus, ValidationIssue,
};
use switchyard_core::workflow::{EdgeTarget, StepId};

use crate::fixture::{Run, advance, choose, load, names, node_id, object, plain, toward};
use crate::{Advance, Command, Fresh, RunView, start, transition};

fn issue_codes(run: &Run) -> Vec<String> {
    match &run.state.phase {
        Phase::Blocked { validation } => validation.issues.iter().map(|issue| issue.code.clone()).collect(),
        other => panic!("not blocked: {other:?}"),
    }
}

fn issues(run: &Run) -> Vec<ValidationIssue> {
    match &run.state.phase {
        Phase::Blocked { validation } => validation.issues.clone(),
        other => panic!("not blocked: {other:?}"),
    }
}

fn with(edit: impl FnOnce(&mut Advance)) -> Command {
    let mut advance = advance();
    edit(&mut advance);
    Command::Advance(advance)
}

const LINEAR: &str = "
var count integer 1
var title string
step a phase=one
edge next -> b
step b phase=one
edge next -> c
step c phase=two
";

#[test]
fn start_creates_the_entry_node_with_variable_defaults() {
    let loaded = load(LINEAR);
    let decision =
        start(&loaded, "goal", object(json!({"title": "x"})), &Default::default(), Fresh::node(node_id(1))).unwrap();
    let (node, state) = decision.node.clone().unwrap();
    assert_eq!(node, node_id(1));
    assert_eq!(state.step.as_str(), "a");
    assert_eq!(state.context, object(json!({"title": "x", "count": 1})));
    assert!(matches!(
        &decision.events[..],
        [EventKind::NodeCreated { kind: NodeKind::Start, cause: NodeCause::Start, parent: None, .. }]
    ));
}

#[test]
fn start_rejects_mistyped_or_oversized_context() {
    let loaded = load(LINEAR);
    let error = start(&loaded, "goal", object(json!({"count": "three"})), &Default::default(), Fresh::node(node_id(1)))
        .unwrap_err();
    assert_eq!(error.code(), "INVALID_CONTEXT");
    assert!(error.to_string().contains("/context/count"), "{error}");
    let mut deep = json!(1);
    for _ in 0..=MAX_JSON_DEPTH {
        deep = json!([deep]);
    }
    let error = start(&loaded, "goal", object(json!({"deep": deep})), &Default::default(), Fresh::node(node_id(1)))
        .unwrap_err();
    assert_eq!(error.code(), "INPUT_TOO_LARGE");
    let error =
        start(&loaded, &"g".repeat(20_000), serde_json::Map::new(), &Default::default(), Fresh::node(node_id(1)))
            .unwrap_err();
    assert!(error.to_string().contains("MAX_GOAL_BYTES"), "{error}");
}

#[test]
fn an_accepted_advance_moves_along_the_edge_and_counts_progress() {
    let mut run = Run::start(LINEAR);
    let decision = run.apply(with(|a| a.context = Some(object(json!({"title": "t", "count": null})))));
    assert_eq!(names(&decision), ["node_created", "advance_recorded"]);
    assert!(
        matches!(&decision.events[1], EventKind::AdvanceRecorded { edge_label: Some(label), .. } if label == "next")
    );
    assert_eq!(run.step(), "b");
    assert_eq!(run.state.counters.steps_completed, 1);
    assert_eq!(run.state.context, object(json!({"title": "t"})), "null deletes a key");
}

#[test]
fn leaving_a_phase_records_an_automatic_checkpoint_and_an_end_step_completes() {
    let mut run = Run::start(LINEAR);
    assert_eq!(names(&run.apply(plain())), ["node_created", "advance_recorded"]);
    let decision = run.apply(plain());
    assert_eq!(names(&decision), ["node_created", "advance_recorded", "checkpoint_recorded"]);
    assert!(
        matches!(&decision.events[2], EventKind::CheckpointRecorded { automatic: true, phase: Some(p), .. } if p == "one")
    );
    let decision = run.apply(plain());
    assert_eq!(names(&decision), ["node_created", "advance_recorded", "checkpoint_recorded", "run_completed"]);
    assert_eq!(run.status(), RunStatus::Completed);
    assert_eq!(run.state.counters.steps_completed, 3);
    assert_eq!(run.try_apply(plain()).unwrap_err().code(), "RUN_FINISHED");
}

#[test]
fn every_failed_check_is_reported_at_once_and_the_context_is_kept() {
    let text = r#"
var count integer 0
step a notes attempts=3
schema {"type":"object","required":["title"],"properties":{"title":{"type":"string"},"n":{"type":"integer"}}}
edge x -> complete
edge y -> complete
"#;
    let mut run = Run::start(text);
    let decision = run.apply(with(|a| {
        a.notes = Some("  ".to_owned());
        a.artifacts = Some(json!({"n": "two"}));
        a.context = Some(object(json!({"count": "many"})));
    }));
    assert_eq!(names(&decision), ["node_created", "advance_recorded"]);
    assert!(matches!(&decision.events[0], EventKind::NodeCreated { kind: NodeKind::BlockedAttempt, .. }));
    let codes = issue_codes(&run);
    assert_eq!(codes, ["NOTES_REQUIRED", "OUTPUT_SCHEMA", "OUTPUT_SCHEMA", "CONTEXT_TYPE", "CHOICE_REQUIRED"]);
    let paths: Vec<String> = issues(&run).into_iter().map(|issue| issue.path).collect();
    assert!(paths.contains(&"/artifacts/n".to_owned()), "{paths:?}");
    assert!(paths.contains(&"/context/count".to_owned()), "{paths:?}");
    assert_eq!(run.state.context, object(json!({"count": 0})));
    assert_eq!(run.state.counters.attempts, 1);
}

#[test]
fn missing_artifacts_are_checked_as_an_empty_object() {
    let text = r#"
step a
schema {"type":"object","required":["title"]}
"#;
    let mut run = Run::start(text);
    run.apply(plain());
    assert_eq!(issue_codes(&run), ["OUTPUT_SCHEMA"]);
    run.apply(with(|a| a.artifacts = Some(json!({"title": "t"}))));
    assert_eq!(run.status(), RunStatus::Completed);
}

#[test]
fn blocked_attempts_fail_the_run_at_the_attempt_limit() {
    let mut run = Run::start("step a notes attempts=2\n");
    run.apply(plain());
    assert_eq!(run.status(), RunStatus::Blocked);
    let decision = run.apply(plain());
    assert_eq!(names(&decision), ["node_created", "advance_recorded", "run_failed"]);
    assert!(matches!(run.state.phase, Phase::Failed { code: FailureCode::AttemptsExhausted, .. }));
}

#[test]
fn a_blocked_step_can_be_retried() {
    let mut run = Run::start("step a notes\n");
    run.apply(plain());
    run.apply(with(|a| a.notes = Some("done".to_owned())));
    assert_eq!(run.status(), RunStatus::Completed);
}

#[test]
fn a_context_over_budget_is_a_validation_issue() {
    let mut run = Run::start_with("step a\n", object(json!({"big": "x".repeat(MAX_CONTEXT_BYTES - 100)})));
    run.apply(with(|a| a.context = Some(object(json!({"more": "y".repeat(200)})))));
    assert_eq!(issue_codes(&run), ["CONTEXT_BUDGET"]);
}

#[test]
fn oversized_inputs_are_refused_naming_the_limit() {
    let mut run = Run::start("step a\n");
    let error = run.try_apply(with(|a| a.notes = Some("n".repeat(MAX_NOTES_BYTES + 1)))).unwrap_err();
    assert_eq!(error.code(), "INPUT_TOO_LARGE");
    assert!(error.to_string().contains("MAX_NOTES_BYTES"), "{error}");
    let error = run.try_apply(Command::Reject { reason: "r".repeat(20_000) }).unwrap_err();
    assert_eq!(error.code(), "NOT_AT_GATE", "status is checked before sizes");
    assert_eq!(run.status(), RunStatus::Active);
}

const BRANCHES: &str = "
var score integer 0
step a
edge high -> hi if score + 1 > 5
edge low -> lo if artifacts.level == 'low'
edge left -> lo
edge right -> hi
step hi
step lo
";

#[test]
fn the_first_true_condition_wins_and_json_integers_are_cel_ints() {
    let mut run = Run::start(BRANCHES);
    run.apply(with(|a| a.context = Some(object(json!({"score": 7})))));
    assert_eq!(run.step(), "hi");
    let mut run = Run::start(BRANCHES);
    run.apply(with(|a| a.artifacts = Some(json!({"level": "low"}))));
    assert_eq!(run.step(), "lo");
}

#[test]
fn choices_are_checked_against_the_graph_and_the_conditions() {
    let mut run = Run::start(BRANCHES);
    run.apply(plain());
    assert_eq!(issue_codes(&run), ["CHOICE_REQUIRED"]);
    run.apply(choose("bogus"));
    assert_eq!(issue_codes(&run), ["UNKNOWN_CHOICE"]);
    assert!(issues(&run)[0].message.contains("`left`"));
    run = Run::start(BRANCHES);
    run.apply(choose("high"));
    assert_eq!(issue_codes(&run), ["CHOICE_NOT_ALLOWED"]);
    run = Run::start(BRANCHES);
    run.apply(with(|a| {
        a.choice = Some("left".to_owned());
        a.context = Some(object(json!({"score": 9})));
    }));
    assert_eq!(issue_codes(&run), ["CHOICE_NOT_ALLOWED"], "conditions chose `high`");
    run = Run::start(BRANCHES);
    run.apply(choose("left"));
    assert_eq!(run.step(), "lo");
}

#[test]
fn a_condition_that_cannot_be_evaluated_counts_as_false() {
    let text = "
step a
edge odd -> b if context.missing.deep == 1
edge fallback -> b default
step b
";
    let mut run = Run::start(text);
    let decision = run.apply(plain());
    assert!(matches!(&decision.events[1], EventKind::AdvanceRecorded { edge_label: Some(l), .. } if l == "fallback"));
}

#[test]
fn bounded_edges_are_exhausted_after_their_traversals() {
    let text = "
step a
edge back -> a max=1
edge on -> b
step b
";
    let mut run = Run::start(text);
    run.apply(choose("back"));
    assert_eq!(run.step(), "a");
    assert_eq!(run.state.counters.traversals.get("a/back"), Some(&1));
    assert_eq!(crate::pending(&run.loaded, &run.state, "g").allowed_next.len(), 1);
    run.apply(choose("back"));
    assert_eq!(issue_codes(&run), ["EDGE_EXHAUSTED"]);
    run.apply(plain());
    assert_eq!(run.step(), "b", "the only open edge is taken without a choice");
}

#[test]
fn a_step_whose_edges_are_all_used_up_fails_the_run() {
    let mut run = Run::start("step a\nedge back -> a max=1\n");
    run.apply(plain());
    let decision = run.apply(plain());
    assert_eq!(names(&decision), ["node_created", "advance_recorded", "run_failed"]);
    assert!(matches!(run.state.phase, Phase::Failed { code: FailureCode::NoEligibleEdge, .. }));
}

#[test]
fn loops_past_max_cycles_fail_the_run() {
    let text = "
limits 1 3 2
step a
edge again -> a loop default
";
    let mut run = Run::start(text);
    run.apply(plain());
    assert_eq!(run.state.counters.cycles, 1);
    let decision = run.apply(plain());
    assert!(matches!(&decision.events[2], EventKind::RunFailed { code, .. } if code == "MAX_CYCLES_EXCEEDED"));
    assert_eq!(run.state.counters.cycles, 1);
}

const REPLAN: &str = "
limits 10 3 1
step plan
edge go -> work
step work
edge replan -> plan replan
edge finish -> complete
";

#[test]
fn replans_past_the_limit_wait_for_a_human() {
    let mut run = Run::start(REPLAN);
    run.apply(plain());
    run.apply(choose("replan"));
    assert_eq!((run.step(), run.state.counters.replans), ("plan", 1));
    run.apply(plain());
    run.apply(choose("replan"));
    let Phase::WaitingForHumanDecision { reason, options, .. } = &run.state.phase else {
        panic!("{:?}", run.state.phase)
    };
    assert_eq!(*reason, DecisionReason::ReplanLimit);
    assert_eq!(options, &[DecisionOption::Replan, DecisionOption::Proceed, DecisionOption::Stop]);
    assert_eq!(run.state.counters.replans, 1);
    assert_eq!(run.try_apply(plain()).unwrap_err().code(), "AWAITING_HUMAN_DECISION");
    let error = run.try_apply(Command::Decide { option: DecisionOption::Accept, note: None }).unwrap_err();
    assert_eq!(error.code(), "OPTION_NOT_OFFERED");
    assert!(error.to_string().contains("`proceed`"), "{error}");

    let mut replanned = run.branch();
    let decision = replanned.apply(Command::Decide { option: DecisionOption::Replan, note: None });
    assert_eq!(names(&decision), ["node_created", "human_decided", "decision_recorded"]);
    assert_eq!((replanned.step(), replanned.state.counters.replans), ("plan", 2));

    let decision = run.apply(Command::Decide { option: DecisionOption::Proceed, note: None });
    assert_eq!(names(&decision), ["node_created", "human_decided", "decision_recorded", "run_completed"]);
}

#[test]
fn a_human_can_stop_the_run_at_a_decision() {
    let mut run = Run::start(REPLAN);
    for command in [plain(), choose("replan"), plain(), choose("replan")] {
        run.apply(command);
    }
    let decision = run.apply(Command::Decide { option: DecisionOption::Stop, note: Some("enough".to_owned()) });
    assert_eq!(names(&decision), ["human_decided", "run_stopped"]);
    assert_eq!((decision.node, decision.control), (None, Control::Stopped));
    assert_eq!(run.try_apply(plain()).unwrap_err().code(), "RUN_STOPPED");
}

const GATED: &str = "
limits 10 1 2
step write
prompt Write {{ title }} for {{ goal }}.{% if rejection %} Fix: {{ rejection }}{% endif %}
edge review -> review
step review gate phase=check
edge ship -> complete if artifacts.ok == true
edge redo -> write
edge done -> complete default
";

fn at_gate() -> Run {
    let mut run = Run::start(GATED);
    run.apply(plain());
    run
}

#[test]
fn a_gated_step_waits_for_approval_and_holds_the_submission() {
    let mut run = at_gate();
    let decision = run.apply(with(|a| a.artifacts = Some(json!({"ok": true}))));
    assert!(matches!(
        &decision.events[0],
        EventKind::NodeCreated { kind: NodeKind::Gate, status: RunStatus::WaitingGate, .. }
    ));
    assert_eq!(run.try_apply(plain()).unwrap_err().code(), "AWAITING_GATE");
    let decision = run.apply(Command::Approve { note: Some("fine".to_owned()) });
    assert_eq!(
        names(&decision),
        ["node_created", "gate_decided", "decision_recorded", "checkpoint_recorded", "run_completed"]
    );
    assert!(matches!(&decision.events[1], EventKind::GateDecided { approved: true, .. }));
}

#[test]
fn an_unknown_choice_is_caught_at_the_gated_advance() {
    let mut run = at_gate();
    run.apply(choose("nope"));
    assert_eq!(issue_codes(&run), ["UNKNOWN_CHOICE"]);
}

#[test]
fn approval_falls_back_to_the_default_edge_when_the_held_choice_is_unusable() {
    let mut run = at_gate();
    run.apply(choose("ship"));
    assert_eq!(run.status(), RunStatus::WaitingGate, "edge checks wait for the approval");
    let decision = run.apply(Command::Approve { note: None });
    assert!(decision.events.iter().any(|e| matches!(e, EventKind::RunCompleted { .. })));
    let mut run = at_gate();
    run.apply(choose("redo"));
    run.apply(Command::Approve { note: None });
    assert_eq!(run.step(), "write", "a usable held choice is honoured");
}

#[test]
fn rejections_send_the_step_back_with_the_reason_then_ask_a_human() {
    let mut run = at_gate();
    run.apply(plain());
    let decision = run.apply(Command::Reject { reason: "too short".to_owned() });
    assert!(matches!(&decision.events[1], EventKind::GateDecided { approved: false, .. }));
    assert_eq!((run.step(), run.status()), ("review", RunStatus::Active));
    assert_eq!(run.state.rejection.as_deref(), Some("too short"));
    run.apply(plain());
    run.apply(Command::Reject { reason: "still short".to_owned() });
    let Phase::WaitingForHumanDecision { reason, options, .. } = &run.state.phase else { panic!("{:?}", run.state) };
    assert_eq!(*reason, DecisionReason::RevisionLimit);
    assert_eq!(options, &[DecisionOption::Accept, DecisionOption::Revise, DecisionOption::Stop]);
    run.apply(Command::Decide { option: DecisionOption::Revise, note: None });
    assert_eq!((run.status(), run.state.counters.revisions), (RunStatus::Active, 0));
    assert_eq!(run.state.rejection.as_deref(), Some("still short"));
}

#[test]
fn accepting_at_a_revision_limit_moves_on() {
    let mut run = at_gate();
    run.apply(plain());
    run.apply(Command::Reject { reason: "a".to_owned() });
    run.apply(plain());
    run.apply(Command::Reject { reason: "b".to_owned() });
    let decision = run.apply(Command::Decide { option: DecisionOption::Accept, note: None });
    assert_eq!(
        names(&decision),
        ["node_created", "human_decided", "decision_recorded", "checkpoint_recorded", "run_completed"]
    );
}

#[test]
fn acting_on_a_node_with_children_forks() {
    let run = Run::start(LINEAR);
    let view = RunView {
        control: Control::Running,
        node: run.tip,
        state: &run.state,
        has_children: true,
        goal: "g",
        reports: Default::default(),
        project: &Default::default(),
    };
    let decision = transition(&run.loaded, view, plain(), Fresh::node(node_id(9))).unwrap();
    assert!(
        matches!(&decision.events[0], EventKind::NodeCreated { cause: NodeCause::Fork, parent: Some(p), .. } if *p == run.tip)
    );
}

#[test]
fn pause_resume_stop_and_checkpoints_are_run_level() {
    let mut run = Run::start(LINEAR);
    let decision = run.apply(Command::Checkpoint { attempt: None, notes: Some("half way".to_owned()) });
    assert_eq!(decision.node, None);
    assert!(
        matches!(&decision.events[..], [EventKind::CheckpointRecorded { automatic: false, phase: Some(p), .. }] if p == "one")
    );
    assert_eq!(run.apply(Command::Pause { reason: None }).control, Control::Paused);
    assert_eq!(run.try_apply(plain()).unwrap_err().code(), "RUN_PAUSED");
    assert_eq!(run.try_apply(Command::Pause { reason: None }).unwrap_err().code(), "ALREADY_PAUSED");
    assert_eq!(run.apply(Command::Resume).control, Control::Running);
    assert_eq!(run.try_apply(Command::Resume).unwrap_err().code(), "NOT_PAUSED");
    assert_eq!(names(&run.apply(Command::Stop { reason: None })), ["run_stopped"]);
    assert_eq!(run.try_apply(Command::Checkpoint { attempt: None, notes: None }).unwrap_err().code(), "RUN_STOPPED");
}

#[test]
fn invalid_workflows_are_refused_at_load() {
    for text in ["step a\nedge x -> nowhere\n", "step a\nedge x -> complete if (((\n", "step a\nprompt {{ oops\n"] {
        let error = crate::LoadedWorkflow::new(crate::fixture::workflow(text)).unwrap_err();
        assert_eq!(error.code(), "INVALID_WORKFLOW", "{text}");
    }
}

const SKIPPING: &str = r#"
var n integer 0
step a
edge go -> b
set n n + 1
step b
runs n > 1
edge next -> c
step c
edge done -> complete
"#;

#[test]
fn a_step_whose_run_condition_is_false_is_skipped_and_recorded() {
    let mut run = Run::start(SKIPPING);
    run.apply(plain());
    assert_eq!(run.step(), "c");
    assert_eq!(run.state.counters.skipped, vec![StepId::new("b")]);
    assert_eq!(run.state.context.get("n"), Some(&json!(1)));
}

#[test]
fn a_step_whose_run_condition_holds_is_handed_out() {
    let mut run = Run::start_with(SKIPPING, object(json!({"n": 5})));
    run.apply(plain());
    assert_eq!(run.step(), "b");
    assert!(run.state.counters.skipped.is_empty());
}

#[test]
fn a_skipped_entry_step_moves_the_start_node_on_and_skipping_every_step_completes_the_run() {
    let loaded = load("step a\nruns false\nedge on -> b\nstep b\nruns false");
    let decision = start(&loaded, "goal", object(json!({})), &Default::default(), Fresh::node(node_id(1))).unwrap();
    let (_, state) = decision.node.clone().unwrap();
    assert_eq!(state.phase, Phase::Completed);
    assert_eq!(names(&decision), ["node_created", "decision_recorded", "run_completed"]);
}

#[test]
fn edge_assignments_count_a_bounded_loop() {
    let text = r#"
step body
edge again -> body max=3
set i value_of(context, "i") == null ? 1 : context.i + 1
edge out -> complete default
"#;
    let mut run = Run::start(text);
    run.apply(choose("again"));
    run.apply(choose("again"));
    assert_eq!(run.state.context.get("i"), Some(&json!(2)));
}

#[test]
fn output_checks_block_the_advance_with_clear_issues() {
    let text = r#"
step a
check {"kind":"contains","value":"DONE","message":"say DONE"}
check {"kind":"not","check":{"kind":"length","max":3}}
edge end -> complete
"#;
    let mut run = Run::start(text);
    run.apply(with(|advance| advance.notes = Some("ok".to_owned())));
    assert_eq!(issue_codes(&run), ["OUTPUT_CHECK", "OUTPUT_CHECK"]);
    assert!(issues(&run)[0].message.contains("say DONE"));
    run.apply(with(|advance| advance.notes = Some("all DONE".to_owned())));
    assert_eq!(run.status(), RunStatus::Completed);
}

#[test]
fn condition_checks_read_the_artifacts_and_block_with_their_message_alone() {
    let text = r#"
step a
check {"kind":"condition","condition":"!(type(artifacts) == list && artifacts.exists(a, value_of(a, 'level') == 'low'))","message":"gather more evidence"}
check {"kind":"condition","condition":"context.ready","when":"has(context.ready)"}
edge end -> complete
"#;
    let mut run = Run::start(text);
    run.apply(with(|advance| advance.artifacts = Some(json!([{"level": "low"}]))));
    let blocked = issues(&run);
    assert_eq!(blocked.len(), 1, "{blocked:?}");
    assert_eq!(blocked[0].code, "OUTPUT_CHECK");
    assert_eq!(blocked[0].path, "output");
    assert!(blocked[0].message.starts_with("gather more evidence. Then advance again"), "{}", blocked[0].message);
    assert!(!blocked[0].message.contains("artifacts.exists"), "the source is not shown: {}", blocked[0].message);
    run.apply(with(|advance| {
        advance.artifacts = Some(json!([{"level": "high"}]));
        advance.context = Some(object(json!({"ready": false})));
    }));
    let blocked = issues(&run);
    assert!(blocked[0].message.contains("the condition `context.ready` does not hold"), "{blocked:?}");
    run.apply(with(|advance| {
        advance.artifacts = Some(json!([{"level": "high"}]));
        advance.context = Some(object(json!({"ready": true})));
    }));
    assert_eq!(run.status(), RunStatus::Completed);
}

#[test]
fn a_conditional_gate_waits_only_when_its_condition_holds() {
    let text = "step a\ngate_when context.risky == true\nedge end -> complete";
    let mut run = Run::start(text);
    run.apply(with(|advance| advance.context = Some(object(json!({"risky": true})))));
    assert_eq!(run.status(), RunStatus::WaitingGate);
    let mut run = Run::start(text);
    run.apply(plain());
    assert_eq!(run.status(), RunStatus::Completed);
}

#[test]
fn loose_comparisons_are_available_to_every_condition() {
    let text = r#"
step a
edge yes -> complete if loose(value_of(context, "answer"), "equals", "yes")
edge no -> complete default
"#;
    let mut run = Run::start(text);
    let decision = run.apply(with(|advance| advance.context = Some(object(json!({"answer": " YES "})))));
    assert!(
        decision
            .events
            .iter()
            .any(|event| matches!(event, EventKind::AdvanceRecorded { edge_label: Some(label), .. } if label == "yes"))
    );
}

const TOWARD: &str = "
limits 1 3 3
var n integer 0
step a
edge again -> a loop
edge low -> b if n > 0 && n < 5
edge high -> b if n >= 5
edge skip -> c max=1
step b
edge done -> complete
step c
";

#[test]
fn advancing_to_a_step_is_choosing_the_edge_that_leads_there() {
    for (to, label) in [("a", "again"), ("c", "skip")] {
        let (mut by_step, mut by_choice) = (Run::start(TOWARD), Run::start(TOWARD));
        let decision = by_step.apply(toward(to));
        assert_eq!(decision, by_choice.apply(choose(label)), "to `{to}`");
        assert!(
            matches!(&decision.events[1], EventKind::AdvanceRecorded { choice: Some(choice), edge_label: Some(taken), .. } if choice == label && taken == label)
        );
        assert_eq!(by_step.step(), to);
    }
}

#[test]
fn advancing_to_a_step_counts_the_edge_against_the_limits() {
    let mut run = Run::start(TOWARD);
    run.apply(toward("a"));
    assert_eq!(run.state.counters.cycles, 1);
    let decision = run.apply(toward("a"));
    assert_eq!(names(&decision), ["node_created", "advance_recorded", "decision_recorded", "run_failed"]);
    assert!(matches!(run.state.phase, Phase::Failed { code: FailureCode::MaxCyclesExceeded, .. }));
}

#[test]
fn advancing_to_a_step_takes_the_first_edge_there_whose_condition_holds() {
    let mut run = Run::start(TOWARD);
    let decision = run.apply(Command::AdvanceTo {
        advance: Advance { context: Some(object(json!({"n": 7}))), ..advance() },
        to: EdgeTarget::Step(StepId::new("b")),
    });
    assert!(
        matches!(&decision.events[1], EventKind::AdvanceRecorded { edge_label: Some(label), .. } if label == "high")
    );
    assert_eq!(run.step(), "b");
    run.apply(toward("complete"));
    assert_eq!(run.status(), RunStatus::Completed);
}

#[test]
fn advancing_to_a_step_the_conditions_rule_out_is_a_blocked_attempt() {
    let text = "
var n integer 0
step a
edge zero -> b if n == 0
edge more -> c default
step b
step c
";
    let mut run = Run::start(text);
    let decision = run.apply(toward("c"));
    assert!(matches!(&decision.events[0], EventKind::NodeCreated { kind: NodeKind::BlockedAttempt, .. }));
    assert_eq!(issue_codes(&run), ["CHOICE_NOT_ALLOWED"]);
    // A used-up edge is reported as a choice of it is, not refused.
    let mut run = Run::start("step a\nedge once -> a max=1\nedge on -> b default\nstep b\n");
    run.apply(toward("a"));
    run.apply(toward("a"));
    assert_eq!(issue_codes(&run), ["EDGE_EXHAUSTED"]);
}

#[test]
fn advancing_where_no_edge_leads_is_refused_with_the_allowed_steps() {
    let mut run = Run::start(TOWARD);
    for (to, reason) in
        [("nowhere", "`nowhere` is not a step of workflow `fixture`"), ("complete", "no edge of the step leads there")]
    {
        let error = run.try_apply(toward(to)).unwrap_err();
        assert_eq!(error.code(), "NO_EDGE_TO_STEP");
        let message = error.to_string();
        assert!(message.contains(reason), "{message}");
        assert!(
            message
                .contains("allowed next: `a` (edge `again`), `b` (edge `low`), `b` (edge `high`), `c` (edge `skip`)"),
            "{message}"
        );
    }
    let error = run
        .try_apply(Command::AdvanceTo {
            advance: Advance { choice: Some("low".to_owned()), ..advance() },
            to: EdgeTarget::Step(StepId::new("c")),
        })
        .unwrap_err();
    assert!(error.to_string().contains("edge `low` leads to `b`"), "{error}");
    run.apply(toward("c"));
    run.apply(toward("complete"));
    assert_eq!(run.status(), RunStatus::Completed);
    let mut run = Run::start("step a\n");
    let error = run.try_apply(toward("a")).unwrap_err();
    assert!(error.to_string().contains("end step"), "{error}");
    assert!(error.to_string().contains("allowed next: the end of the run"), "{error}");
    run.apply(toward("complete"));
    assert_eq!(run.status(), RunStatus::Completed);
}
