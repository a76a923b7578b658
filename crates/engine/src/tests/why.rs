//! The why through the engine: each decision records what it evaluated, what that read and the
//! rule that chose, and only when there was something to decide.

use serde_json::json;
use switchyard_core::event::EventKind;
use switchyard_core::why::{Change, Evaluated, MAX_EVALUATED, Nearest, Rule, Subject, Verdict, Why};
use switchyard_core::workflow::StepId;

use crate::fixture::{Run, advance, choose, names, node_id, object, plain};
use crate::{Advance, Command, Fresh, Transition};

fn recorded(transition: &Transition) -> Option<&Why> {
    transition.events.iter().find_map(|event| match event {
        EventKind::DecisionRecorded { why, .. } => Some(why),
        _ => None,
    })
}

fn with_context(context: serde_json::Value) -> Command {
    Command::Advance(Advance { context: Some(object(context)), ..advance() })
}

const REVIEW: &str = "
var stable boolean false
var count integer 0
step review
edge ship -> complete if stable == true && count >= 3
edge again -> review loop if !stable
edge hold -> review default
edge park -> complete
";

#[test]
fn an_edge_taken_on_a_condition_records_each_condition_its_reads_and_the_nearest_change() {
    let mut run = Run::start(REVIEW);
    let moved = run.apply(with_context(json!({"count": 1})));
    assert_eq!(names(&moved), ["node_created", "advance_recorded", "decision_recorded"]);
    let why = recorded(&moved).unwrap();
    assert_eq!(why.rule, Rule::Condition { label: "again".to_owned() });
    let step = StepId::new("review");
    assert_eq!(
        why.evaluated,
        [
            Evaluated {
                step: step.clone(),
                subject: Subject::Edge { label: "ship".to_owned() },
                text: "stable == true && count >= 3".to_owned(),
                read: [("count".to_owned(), json!(1)), ("stable".to_owned(), json!(false))].into(),
                result: Verdict::NotHeld,
                nearest: Some(Nearest::Set {
                    changes: vec![
                        Change { name: "stable".to_owned(), operator: "==".to_owned(), value: json!(true) },
                        Change { name: "count".to_owned(), operator: ">=".to_owned(), value: json!(3) },
                    ]
                }),
            },
            Evaluated {
                step,
                subject: Subject::Edge { label: "again".to_owned() },
                text: "!stable".to_owned(),
                read: [("stable".to_owned(), json!(false))].into(),
                result: Verdict::Held,
                nearest: None,
            },
        ]
    );
    assert_eq!(why.sentence(), "took `again` because `!stable` held; not `ship`");
    assert_eq!(
        why.evaluated[0].line(),
        "SKIP  edge `ship`: `stable == true && count >= 3` (count = 1, stable = false); \
         set stable to true and count to 3 or more would take it"
    );
}

#[test]
fn a_default_edge_is_recorded_with_the_conditions_that_did_not_hold() {
    let mut run = Run::start(REVIEW);
    let moved = run.apply(with_context(json!({"stable": true})));
    let why = recorded(&moved).unwrap();
    assert_eq!(why.rule, Rule::Default { label: "hold".to_owned() });
    let results: Vec<&Verdict> = why.evaluated.iter().map(|evaluated| &evaluated.result).collect();
    assert_eq!(results, [&Verdict::NotHeld, &Verdict::NotHeld]);
    assert_eq!(
        why.evaluated[1].nearest,
        Some(Nearest::Set {
            changes: vec![Change { name: "stable".to_owned(), operator: "==".to_owned(), value: json!(false) }]
        })
    );

    // The agent's choice among unconditional edges: the advance itself says it all.
    let mut run = Run::start("step a\nedge left -> complete\nedge right -> complete");
    assert!(recorded(&run.apply(choose("right"))).is_none());
}

#[test]
fn a_step_with_one_way_on_and_no_condition_records_no_why() {
    let mut run = Run::start("step a\nedge next -> b\nstep b\nedge done -> complete");
    assert_eq!(names(&run.apply(plain())), ["node_created", "advance_recorded"]);
    assert_eq!(names(&run.apply(plain())), ["node_created", "advance_recorded", "run_completed"]);
}

#[test]
fn skipped_steps_record_their_when_and_the_edges_they_left_by() {
    let text = "
var n integer 1
step a
edge next -> b
step b
runs n > 1
edge next -> c
step c
edge done -> complete
";
    let mut run = Run::start(text);
    let moved = run.apply(plain());
    let why = recorded(&moved).unwrap();
    assert_eq!(why.rule, Rule::Only { label: "next".to_owned() });
    assert_eq!(why.evaluated.len(), 1);
    assert_eq!((&why.evaluated[0].subject, &why.evaluated[0].result), (&Subject::RunWhen, &Verdict::NotHeld));
    assert_eq!(why.evaluated[0].step, StepId::new("b"));
    assert_eq!(why.sentence(), "took `next`, the only way on; skipped `b`");

    // At start, the steps skipped on the way in.
    let skipped_entry = "var n integer 1\nstep a\nruns n > 1\nedge next -> b\nstep b\nedge done -> complete";
    let loaded = crate::fixture::load(skipped_entry);
    let started =
        crate::start(&loaded, "goal", object(json!({})), &Default::default(), Fresh::node(node_id(1))).unwrap();
    let why = recorded(&started).unwrap();
    assert_eq!(why.rule, Rule::Entry);
    assert_eq!(why.sentence(), "started the run; skipped `a`");
}

#[test]
fn a_gate_and_the_output_checks_of_a_refused_report_are_recorded() {
    let text = r#"
step a
gate_when context.risky == true
check {"kind":"contains","value":"DONE"}
check {"kind":"condition","condition":"artifacts.ok == true"}
edge end -> complete
"#;
    let mut run = Run::start(text);
    let blocked = run.apply(Command::Advance(Advance {
        notes: Some("DONE".to_owned()),
        artifacts: Some(json!({"ok": false})),
        ..advance()
    }));
    let why = recorded(&blocked).unwrap();
    assert_eq!(why.rule, Rule::Blocked);
    let lines: Vec<String> = why.evaluated.iter().map(Evaluated::line).collect();
    assert_eq!(
        lines,
        [
            "PASS  `a` check 1: `the notes contain \"DONE\"`",
            "SKIP  `a` check 2: `artifacts.ok == true` (artifacts.ok = false)",
            // A key the context does not have is an evaluation error, which counts as false.
            "ERROR  `a` gate_when: `context.risky == true` (context.risky = null): No such key: risky",
        ]
    );
    let gated = run.apply(Command::Advance(Advance {
        notes: Some("DONE".to_owned()),
        artifacts: Some(json!({"ok": true})),
        context: Some(object(json!({"risky": true}))),
        ..advance()
    }));
    let why = recorded(&gated).unwrap();
    assert_eq!((why.rule.clone(), why.sentence()), (Rule::Gate, "waits for a person".to_owned()));
    assert!(why.evaluated.iter().all(|evaluated| evaluated.result.held()), "{why:?}");
}

#[test]
fn an_edge_used_up_is_recorded_as_such_and_not_evaluated() {
    let text = "
var again boolean true
step a
edge retry -> a max=1 if again
edge on -> complete default
";
    let mut run = Run::start(text);
    run.apply(plain());
    let moved = run.apply(plain());
    let why = recorded(&moved).unwrap();
    assert_eq!(why.rule, Rule::Only { label: "on".to_owned() });
    assert_eq!(why.evaluated[0].result, Verdict::UsedUp { max: 1 });
    assert!(why.evaluated[0].line().ends_with(": used up (1 of 1)"), "{}", why.evaluated[0].line());
}

#[test]
fn a_long_chain_of_skipped_steps_keeps_a_bounded_record_and_counts_the_rest() {
    let mut text = String::from("var n integer 0\nstep start\nedge next -> s0\n");
    for index in 0..100 {
        text.push_str(&format!("step s{index}\nruns n > 0\nedge next -> s{}\n", index + 1));
    }
    text.push_str("step s100\nedge done -> complete\n");
    let mut run = Run::start(&text);
    let moved = run.apply(plain());
    assert_eq!(run.step(), "s100");
    let why = recorded(&moved).unwrap();
    assert_eq!(why.evaluated.len(), MAX_EVALUATED);
    assert_eq!(why.more, 100 - MAX_EVALUATED as u32);
}

#[test]
fn a_step_running_a_project_command_the_run_lacks_is_skipped_and_says_so() {
    use switchyard_core::evidence::{CommandLine, ProjectCommand, ProjectCommands};
    let text = r#"
step implement
edge next -> tests
step tests
run {"run": {"project": "test_command"}}
edge on_failure -> implement loop if exit_code != 0
edge next -> review default
step review
edge done -> complete
"#;
    let loaded = crate::fixture::load(text);
    let advance_from = |project: &ProjectCommands| {
        let started = crate::start(&loaded, "goal", object(json!({})), project, Fresh::node(node_id(1))).unwrap();
        let (node, state) = started.node.unwrap();
        let view = crate::RunView {
            control: switchyard_core::state::Control::Running,
            node,
            state: &state,
            has_children: false,
            goal: "goal",
            reports: Default::default(),
            project,
        };
        crate::transition(&loaded, view, plain(), Fresh::node(node_id(2))).unwrap()
    };
    let unset = advance_from(&ProjectCommands::new());
    let (_, state) = unset.node.clone().unwrap();
    assert_eq!((state.step.as_str(), &state.counters.skipped), ("review", &vec![StepId::new("tests")]));
    let why = recorded(&unset).unwrap();
    assert_eq!(why.sentence(), "took `next`, the only way on; skipped `tests`");
    assert_eq!(why.evaluated[0].line(), "SKIP  `tests` when: `[project] test_command is set in switchyard.toml`");

    let set = ProjectCommands::from([(ProjectCommand::TestCommand, CommandLine::Shell("make test".to_owned()))]);
    let (_, state) = advance_from(&set).node.unwrap();
    assert_eq!(state.step.as_str(), "tests", "a run with the command runs the step");
}
