//! Benchmark: one advance decided by the engine in memory (`switchyard_engine::transition` on a
//! loaded workflow), with no store, no tokens and no IO; and rendering the pending step. And an
//! advance whose edges have conditions, which the engine evaluates and writes down (the why).

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Map;
use switchyard_compiler::{Source, compile};
use switchyard_core::{AttemptId, Control, NodeId};
use switchyard_engine::{Advance, Command, Fresh, LoadedWorkflow, RunView, pending, start, transition};

fn engine_advance(c: &mut Criterion) {
    let compiled = compile(&Source::new("bench-loop.yaml", common::LOOP_WORKFLOW));
    let workflow = compiled.workflow.expect("the loop workflow compiles");
    let loaded = LoadedWorkflow::new(workflow).expect("the loop workflow loads");
    let goal = "benchmark the engine";
    let first = NodeId::from_bytes([1; 16]);
    let started = start(&loaded, goal, Map::new(), &Default::default(), Fresh::node(first)).expect("start");
    let (node, state) = started.node.expect("start creates a node");
    let next = NodeId::from_bytes([2; 16]);
    let command = || {
        Command::Advance(Advance {
            attempt: AttemptId::first_for(node),
            notes: None,
            artifacts: None,
            context: None,
            choice: Some("again".to_owned()),
            evidence: Vec::new(),
        })
    };
    let view = RunView {
        control: Control::Running,
        node,
        state: &state,
        has_children: false,
        goal,
        reports: Default::default(),
        project: &Default::default(),
    };
    let decided = transition(&loaded, view, command(), Fresh::node(next)).expect("the advance is accepted");
    assert!(decided.node.is_some(), "the advance creates a node");

    let mut group = c.benchmark_group("engine_advance");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    group.bench_function("transition", |b| {
        b.iter(|| transition(black_box(&loaded), black_box(view), command(), Fresh::node(next)));
    });
    group.bench_function("pending", |b| {
        b.iter(|| pending(black_box(&loaded), black_box(&state), goal));
    });

    // Three conditional edges over the context, the first two not holding: each is evaluated,
    // with what it read and the nearest change, and the record goes out as `decision_recorded`.
    let compiled = compile(&Source::new("bench-conditions.yaml", CONDITIONS_WORKFLOW));
    let workflow = compiled.workflow.expect("the conditions workflow compiles");
    let loaded = LoadedWorkflow::new(workflow).expect("the conditions workflow loads");
    let started = start(&loaded, goal, Map::new(), &Default::default(), Fresh::node(first)).expect("start");
    let (node, state) = started.node.expect("start creates a node");
    let view = RunView { node, state: &state, ..view };
    let command = || {
        let context = serde_json::json!({"score": 3, "stable": false, "level": "low"});
        let serde_json::Value::Object(context) = context else { unreachable!() };
        Command::Advance(Advance {
            attempt: AttemptId::first_for(node),
            notes: None,
            artifacts: None,
            context: Some(context),
            choice: None,
            evidence: Vec::new(),
        })
    };
    let decided = transition(&loaded, view, command(), Fresh::node(next)).expect("the advance is accepted");
    assert!(
        decided.events.iter().any(|event| event.name() == "decision_recorded"),
        "the conditions are written down: {:?}",
        decided.events
    );
    group.bench_function("transition_with_conditions", |b| {
        b.iter(|| transition(black_box(&loaded), black_box(view), command(), Fresh::node(next)));
    });
    group.finish();
}

const CONDITIONS_WORKFLOW: &str = r#"
id: bench-conditions
variables:
  score: integer
  stable: boolean
  level: string
steps:
  - id: review
    prompt: Review it.
    notes: optional
    next:
      - {to: review, label: ship, when: "stable == true && score >= 8", kind: loop, max_traversals: 1000000}
      - {to: review, label: raise, when: "level == 'high' || score > 9", kind: loop, max_traversals: 1000000}
      - {to: review, label: again, when: "!stable", kind: loop, max_traversals: 1000000}
      - {end: true, label: done, default: true}
"#;

criterion_group!(benches, engine_advance);
criterion_main!(benches);
