//! Property test: random command sequences on random nodes (old nodes fork) over small
//! workflows, checking the engine's invariants after every command.

use proptest::prelude::*;
use serde_json::json;
use switchyard_core::event::EventKind;
use switchyard_core::id::{AttemptId, NodeId};
use switchyard_core::state::{Control, DecisionOption, NodeState};
use switchyard_core::workflow::{EdgeTarget, Step};

use crate::fixture::{load, node_id, object};
use crate::{Advance, Command, Fresh, LoadedWorkflow, RunView, pending, start, transition};

const WORKFLOWS: [&str; 6] = [
    // A gate, an output schema, conditions and a bounded back-edge.
    r#"
limits 3 0 1
var score integer 0
step draft notes phase=write attempts=3
schema {"type":"object","required":["title"],"properties":{"title":{"type":"string"}}}
edge review -> review default
step review gate phase=check
edge ship -> complete if score >= 5
edge again -> draft max=2
edge done -> complete default
"#,
    // A loop with max_cycles.
    "
limits 2 1 1
step plan phase=plan
edge go -> build
step build phase=build
edge loop -> plan loop if context.more == true
edge close -> complete default
",
    // A replan edge next to a plain one, so the agent must choose.
    "
limits 3 1 1
step plan
edge go -> check
step check attempts=2
edge replan -> plan replan
edge proceed -> done
step done
",
    // The same with no replan allowed, so a human decides at once.
    "
limits 3 1 0
step plan
edge go -> check
step check attempts=2
edge replan -> plan replan
edge proceed -> done default
step done
",
    // A bounded self-loop, a condition over an integer and a gated end.
    "
var n integer 0
step a
edge back -> a max=2
edge fwd -> b if n > 1
edge skip -> b default
step b gate
edge end -> complete
",
    // Run conditions (skipped steps), edge assignments, a conditional gate and output checks.
    r#"
var n integer 0
step a
edge go -> b
set n n + 1
step b
runs n > 1 || context.more == true
gate_when context.more == true
check {"kind":"regex","pattern":"did"}
edge back -> a max=3
set n n + 1
edge on -> c default
step c
runs context.more != true
edge end -> complete
"#,
];

#[derive(Debug, Clone)]
enum Action {
    Advance { notes: usize, artifacts: usize, delta: usize, choice: Option<prop::sample::Index> },
    Approve,
    Reject,
    Decide(usize),
    Pause,
    Resume,
    Stop,
    Checkpoint,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        16 => (0..6usize, 0..6usize, 0..7usize, proptest::option::weighted(0.5, any::<prop::sample::Index>()))
            .prop_map(|(notes, artifacts, delta, choice)| Action::Advance { notes, artifacts, delta, choice }),
        4 => Just(Action::Approve),
        3 => Just(Action::Reject),
        4 => (0..5usize).prop_map(Action::Decide),
        1 => Just(Action::Pause),
        2 => Just(Action::Resume),
        1 => Just(Action::Stop),
        1 => Just(Action::Checkpoint),
    ]
}

/// The command for `action` at a node of `step`; a choice picks one of the step's labels or a
/// label it does not have.
fn command(action: &Action, step: &Step) -> Command {
    match action {
        Action::Advance { notes, artifacts, delta, choice } => Command::Advance(Advance {
            attempt: AttemptId::from_bytes([7; 16]),
            notes: [None, Some(" ".to_owned())].get(*notes).cloned().unwrap_or(Some("did it".to_owned())),
            artifacts: [None, Some(json!({"title": 3})), Some(json!([1]))]
                .get(*artifacts)
                .cloned()
                .unwrap_or(Some(json!({"title": "t"}))),
            context: [
                None,
                Some(json!({"score": 7})),
                Some(json!({"score": "x"})),
                Some(json!({"n": 2})),
                Some(json!({"more": true})),
                Some(json!({"more": null})),
                Some(json!({"score": null, "n": null})),
            ][*delta]
                .clone()
                .map(object),
            choice: choice.as_ref().map(|index| {
                let labels: Vec<&str> = step.edges.iter().map(|edge| edge.label.as_str()).chain(["bogus"]).collect();
                labels[index.index(labels.len())].to_owned()
            }),
            evidence: Vec::new(),
        }),
        Action::Approve => Command::Approve { note: None },
        Action::Reject => Command::Reject { reason: "again".to_owned() },
        Action::Decide(option) => Command::Decide {
            option: [
                DecisionOption::Accept,
                DecisionOption::Revise,
                DecisionOption::Replan,
                DecisionOption::Proceed,
                DecisionOption::Stop,
            ][*option],
            note: None,
        },
        Action::Pause => Command::Pause { reason: None },
        Action::Resume => Command::Resume,
        Action::Stop => Command::Stop { reason: None },
        Action::Checkpoint => Command::Checkpoint { attempt: None, notes: Some("cp".to_owned()) },
    }
}

struct Node {
    id: NodeId,
    state: NodeState,
    children: usize,
}

/// The run moved along edges: from the old step through every skipped step to the new one.
fn follows_an_edge(loaded: &LoadedWorkflow, from: &NodeState, to: &NodeState) -> bool {
    let mut path = vec![&from.step];
    path.extend(&to.counters.skipped);
    path.push(&to.step);
    path.windows(2).all(|pair| {
        pair[0] == pair[1]
            || loaded
                .workflow
                .step(pair[0])
                .unwrap()
                .edges
                .iter()
                .any(|edge| edge.target == EdgeTarget::Step(pair[1].clone()))
    })
}

fn check_run(workflow: usize, steps: &[(Option<prop::sample::Index>, Action)]) -> Result<(), TestCaseError> {
    let loaded = load(WORKFLOWS[workflow]);
    let limits = loaded.workflow.limits;
    let started = start(&loaded, "goal", serde_json::Map::new(), Fresh::node(node_id(1))).unwrap();
    let (id, state) = started.node.unwrap();
    let mut nodes = vec![Node { id, state, children: 0 }];
    let mut control = Control::Running;
    for (index, (pick, action)) in steps.iter().enumerate() {
        let at = pick.as_ref().map_or(nodes.len() - 1, |pick| pick.index(nodes.len()));
        let parent = &nodes[at];
        let view = RunView {
            control,
            node: parent.id,
            state: &parent.state,
            has_children: parent.children > 0,
            goal: "goal",
            reports: Default::default(),
        };
        let fresh = Fresh::node(node_id(100 + index as u64));
        let step = loaded.workflow.step(&parent.state.step).unwrap();
        let result = transition(&loaded, view, command(action, step), fresh.clone());
        let replayed = transition(&loaded, view, command(action, step), fresh);
        prop_assert_eq!(&result, &replayed, "transition is not deterministic");
        let _ = pending(&loaded, &parent.state, "goal");
        let Ok(decision) = result else { continue };
        let created = decision.events.iter().filter(|event| matches!(event, EventKind::NodeCreated { .. })).count();
        prop_assert_eq!(created, usize::from(decision.node.is_some()));
        control = decision.control;
        let Some((id, state)) = decision.node else { continue };
        prop_assert!(!parent.state.status().is_terminal(), "terminal node {:?} got a child", parent.state.phase);
        prop_assert!(loaded.workflow.step(&state.step).is_some());
        prop_assert!(state.counters.steps_completed >= parent.state.counters.steps_completed);
        prop_assert!(follows_an_edge(&loaded, &parent.state, &state), "{} -> {}", parent.state.step, state.step);
        for skipped in &state.counters.skipped {
            prop_assert!(
                loaded.workflow.rules(skipped).run_when.is_some(),
                "`{}` skipped without a run condition",
                skipped
            );
        }
        prop_assert!(state.counters.cycles <= limits.max_cycles);
        for edge in &step.edges {
            if let Some(max) = edge.max_traversals {
                let used = state.counters.traversals.get(&format!("{}/{}", step.id, edge.label)).copied().unwrap_or(0);
                prop_assert!(used <= max);
            }
        }
        if let Some(EventKind::NodeCreated { node, parent: Some(from), state: recorded, .. }) = decision.events.first()
        {
            prop_assert_eq!(*node, id);
            prop_assert_eq!(*from, parent.id);
            prop_assert_eq!(recorded, &state);
        } else {
            prop_assert!(false, "the first event is not NodeCreated");
        }
        let _ = pending(&loaded, &state, "goal");
        nodes[at].children += 1;
        nodes.push(Node { id, state, children: 0 });
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn random_command_sequences_keep_the_engine_invariants(
        workflow in 0..WORKFLOWS.len(),
        steps in proptest::collection::vec((proptest::option::weighted(0.3, any::<prop::sample::Index>()), action()), 1..40),
    ) {
        check_run(workflow, &steps)?;
    }
}

#[test]
fn artifacts_that_are_not_objects_do_not_break_conditions() {
    let steps = vec![(None, Action::Advance { notes: 2, artifacts: 3, delta: 1, choice: None })];
    check_run(0, &steps).unwrap();
}
