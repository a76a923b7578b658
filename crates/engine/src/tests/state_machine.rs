//! Property test: random command sequences on random nodes (old nodes fork) over small
//! workflows, checking the engine's invariants after every command.

use proptest::prelude::*;
use serde_json::json;
use switchyard_core::event::EventKind;
use switchyard_core::evidence::{CommandRun, EvidenceCheck, Observation, Snapshot};
use switchyard_core::id::{AttemptId, NodeId};
use switchyard_core::state::{Control, DecisionOption, NodeState, Phase};
use switchyard_core::why::Rule;
use switchyard_core::workflow::{EdgeTarget, Step, StepRules};

use crate::fixture::{load, node_id, object};
use crate::{Advance, Command, Fresh, LoadedWorkflow, RunView, pending, start, transition};

const WORKFLOWS: [&str; 7] = [
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
    // Evidence (one check comparing with the snapshot), a gate on it, and a step switchyard runs
    // whose exit code sends the run back.
    r#"
limits 3 1 1
step build gate
evidence {"kind":"files","paths":["src/*"]}
evidence {"kind":"changed"}
evidence {"kind":"command","run":["make","test"]}
edge go -> tests default
step tests
run {"run":["make","test"]}
edge again -> build loop if exit_code != 0
edge done -> complete default
"#,
];

#[derive(Debug, Clone)]
enum Action {
    /// `passing` says, bit by bit, which of the step's evidence checks (or its command) pass.
    Advance {
        notes: usize,
        artifacts: usize,
        delta: usize,
        choice: Option<prop::sample::Index>,
        passing: u8,
    },
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
        16 => (0..6usize, 0..6usize, 0..7usize, proptest::option::weighted(0.5, any::<prop::sample::Index>()), any::<u8>())
            .prop_map(|(notes, artifacts, delta, choice, passing)| Action::Advance { notes, artifacts, delta, choice, passing }),
        4 => Just(Action::Approve),
        3 => Just(Action::Reject),
        4 => (0..5usize).prop_map(Action::Decide),
        1 => Just(Action::Pause),
        2 => Just(Action::Resume),
        1 => Just(Action::Stop),
        1 => Just(Action::Checkpoint),
    ]
}

/// What the runtime would observe for each of the step's checks (or its command), passing where
/// `passing` has the check's bit set.
fn observed(rules: &StepRules, passing: u8) -> Vec<Observation> {
    let passes = |index: usize| passing & (1 << index) != 0;
    let ran = |index: usize| {
        Observation::Command(CommandRun {
            exit_code: Some(if passes(index) { 0 } else { 2 }),
            signal: None,
            timed_out: false,
            duration_ms: 5,
            output_tail: String::new(),
            output_bytes: 0,
            stdout_sha256: String::new(),
            stderr_sha256: String::new(),
            confined: true,
        })
    };
    if rules.run.is_some() {
        return vec![ran(0)];
    }
    let fails = |index: usize| if passes(index) { Vec::new() } else { vec!["x".to_owned()] };
    rules
        .evidence
        .iter()
        .enumerate()
        .map(|(index, check)| match check {
            EvidenceCheck::Files { .. } => Observation::Files { unmatched: fails(index) },
            EvidenceCheck::Changed { .. } => {
                Observation::Changed { count: fails(index).len() as u64 ^ 1, changed: Vec::new() }
            }
            EvidenceCheck::Command(_) => ran(index),
            _ => Observation::Unavailable { reason: "not in this test".to_owned() },
        })
        .collect()
}

/// The command for `action` at a node of `step`; a choice picks one of the step's labels or a
/// label it does not have. A step switchyard runs itself is advanced as the runtime does.
fn command(action: &Action, step: &Step, rules: &StepRules) -> Command {
    match action {
        Action::Advance { passing, .. } if rules.run.is_some() => Command::Advance(Advance {
            attempt: AttemptId::from_bytes([7; 16]),
            notes: None,
            artifacts: None,
            context: None,
            choice: None,
            evidence: observed(rules, *passing),
        }),
        Action::Advance { notes, artifacts, delta, choice, passing } => Command::Advance(Advance {
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
            evidence: observed(rules, *passing),
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
    let first = Fresh { node: node_id(1), snapshot: Some(Snapshot::Git { tree: "f".repeat(40) }) };
    let started = start(&loaded, "goal", serde_json::Map::new(), &Default::default(), first).unwrap();
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
            project: &Default::default(),
        };
        // The runtime hands a snapshot in; the engine keeps it only where a step needs one.
        let snapshot = Snapshot::Git { tree: format!("{index:040}") };
        let fresh = Fresh { node: node_id(100 + index as u64), snapshot: Some(snapshot) };
        let step = loaded.workflow.step(&parent.state.step).unwrap();
        let rules = loaded.workflow.rules(&step.id);
        let result = transition(&loaded, view, command(action, step, rules), fresh.clone());
        let replayed = transition(&loaded, view, command(action, step, rules), fresh);
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
        // Evidence: recorded with every advance of a step that has some (or runs a command), one
        // verdict per check; a failed check keeps an agent's step where it was.
        let recorded = decision.events.iter().find_map(|event| match event {
            EventKind::EvidenceRecorded { results, .. } => Some(results),
            _ => None,
        });
        let advanced = matches!(action, Action::Advance { .. });
        let checked = !rules.evidence.is_empty() || rules.run.is_some();
        prop_assert_eq!(recorded.is_some(), advanced && checked);
        if let Some(results) = recorded {
            prop_assert_eq!(results.len(), rules.evidence.len().max(usize::from(rules.run.is_some())));
            if rules.run.is_none() && results.iter().any(|result| !result.passed) {
                prop_assert_eq!(&state.step, &parent.state.step, "a failed check moved the run on");
                let stayed = !matches!(state.phase, Phase::WaitingGate { .. } | Phase::Pending);
                prop_assert!(stayed, "a failed check left the step {:?}", state.phase);
            }
        }
        // The why: written where something was evaluated or a person decided; an edge taken names
        // the edge the advance went along, and a moved run's record says an edge was chosen.
        let why = decision.events.iter().find_map(|event| match event {
            EventKind::DecisionRecorded { why, .. } => Some(why),
            _ => None,
        });
        if let Some(why) = why {
            prop_assert!(
                !why.evaluated.is_empty() || matches!(why.rule, Rule::Person { .. } | Rule::First { .. }),
                "an empty why: {:?}",
                why
            );
            let went = decision.events.iter().find_map(|event| match event {
                EventKind::AdvanceRecorded { edge_label: Some(label), .. } => Some(label),
                _ => None,
            });
            if let (
                Some(went),
                Rule::Condition { label } | Rule::Choice { label } | Rule::Default { label } | Rule::Only { label },
            ) = (went, &why.rule)
            {
                prop_assert_eq!(went, label, "the why names another edge than the one taken");
            }
        }
        // The snapshot: held exactly by the nodes of a step that compares with one, and the same
        // through a step's retries.
        if matches!(state.phase, Phase::Pending | Phase::Blocked { .. }) {
            prop_assert_eq!(state.snapshot.is_some(), loaded.workflow.needs_snapshot(&state.step));
        }
        if state.step == parent.state.step && parent.state.snapshot.is_some() {
            prop_assert_eq!(&state.snapshot, &parent.state.snapshot, "a retry took a new snapshot");
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
    let steps = vec![(None, Action::Advance { notes: 2, artifacts: 3, delta: 1, choice: None, passing: 0 })];
    check_run(0, &steps).unwrap();
}
