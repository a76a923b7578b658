//! The runner's own cost per turn: a drive of 20 turns against the fake model server answering
//! at once, so what is measured is everything but the model (HTTP on loopback, JSON, the file
//! tool's call, the turn's durable record, the events). Reported per drive and per turn.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use switchyard_runner::{Limits, RunOptions, Target};
use switchyard_test_support::fake_llm::Reply;
use tokio_util::sync::CancellationToken;

#[path = "../tests/common/mod.rs"]
#[allow(dead_code)]
mod common;

/// Turns per drive: 19 file tool calls and the completion.
const TURNS: usize = 20;

fn turns(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let world = runtime.block_on(common::World::new());
    // Each request lists files with another limit (no repeated call), until the conversation is
    // long enough; then the step is completed.
    world.server.otherwise(|request| {
        let messages = request.messages().len();
        if messages > 2 * (TURNS - 1) {
            Reply::tool_call("complete_step", json!({ "notes": "Counted.", "artifacts": { "count": 1 } }))
        } else {
            Reply::tool_call("list_files", json!({ "path": "{output-root}", "limit": messages }))
        }
    });
    let options = RunOptions {
        stuck_turns: 1000,
        run_limits: Limits { max_turns: Some(1000), ..Limits::default() },
        ..RunOptions::default()
    };
    let runner = world.runner(options);
    let workflow = r#"id: counted
version: "1"
title: Counted
description: One step.
steps:
  - id: count
    title: Count
    prompt: Count the files.
"#;
    let request = world.workflow("counted", workflow);
    let mut group = c.benchmark_group("runner");
    group.sample_size(10).measurement_time(Duration::from_secs(20));
    group.bench_function("drive of 20 turns", |b| {
        b.iter_custom(|iterations| {
            let mut total = Duration::ZERO;
            for _ in 0..iterations {
                let (events, _receiver) = tokio::sync::mpsc::unbounded_channel();
                let started = Instant::now();
                let outcome = runtime
                    .block_on(runner.drive(Target::Start(request.clone()), events, CancellationToken::new()))
                    .unwrap();
                total += started.elapsed();
                assert!(matches!(outcome, switchyard_runner::Outcome::Finished { .. }), "{outcome:?}");
            }
            total
        });
    });
    group.finish();
}

criterion_group!(benches, turns);
criterion_main!(benches);
