//! Benchmark: the latency of one durable advance on a run with 10 advances behind it and on a run
//! with 10,000 behind it, in the same store; the cost must not grow with the run's length.
//!
//! `behind=10` takes every timed advance on a fresh run that has exactly 10 advances behind it
//! (a pool of such runs is built outside the timed region); `behind=10000` keeps advancing one
//! run, so its length grows from 10,000 by the number of advances timed.

mod common;

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use switchyard_runtime::Target;

const SHORT: usize = 10;
const LONG: usize = 10_000;
const STARTERS: usize = 32;

/// Starts `count` runs (32 at a time) and advances each `SHORT` times; returns their tokens.
async fn short_runs(fixture: &common::Fixture, count: usize) -> Vec<String> {
    let started = fixture.start_many(count, STARTERS).await;
    let mut tokens: Vec<String> = started.iter().map(common::continue_token).collect();
    for _ in 0..SHORT {
        let tasks: Vec<_> = std::mem::take(&mut tokens)
            .into_iter()
            .map(|token| {
                let runtime = std::sync::Arc::clone(&fixture.runtime);
                tokio::spawn(async move { common::advance_again(&runtime, &token).await })
            })
            .collect();
        for task in tasks {
            tokens.push(task.await.expect("an advancing task panicked"));
        }
    }
    tokens
}

fn advance_latency(c: &mut Criterion) {
    let tokio = common::tokio_runtime();
    let fixture = common::Fixture::new();

    let began = Instant::now();
    let (long_run, mut long_token, mut pool) = tokio.block_on(async {
        let long = fixture.start("the long run").await;
        let (long_token, pool) = tokio::join!(
            common::advance_times(&fixture.runtime, common::continue_token(&long), LONG),
            short_runs(&fixture, 256),
        );
        (long.run, long_token, pool)
    });
    common::report(&format!(
        "set-up: one run advanced {LONG} times and 256 runs advanced {SHORT} times each in {:.1?}",
        began.elapsed()
    ));
    let node_count = |run| tokio.block_on(fixture.runtime.run(&Target::Run(run))).expect("the long run").node_count;
    let long_before = node_count(long_run);

    let mut group = c.benchmark_group("advance_latency");
    group.sample_size(20).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(2));

    let mut short_timed = 0usize;
    group.bench_function(BenchmarkId::from_parameter(format!("behind={SHORT}")), |b| {
        b.iter_custom(|iters| {
            let needed = usize::try_from(iters).expect("iteration count fits usize");
            tokio.block_on(async {
                if pool.len() < needed {
                    let more = short_runs(&fixture, (needed - pool.len()).max(256)).await;
                    pool.extend(more);
                }
                let mut total = Duration::ZERO;
                for _ in 0..needed {
                    let token = pool.pop().expect("the pool was filled");
                    let one = Instant::now();
                    let next = common::advance_again(&fixture.runtime, &token).await;
                    total += one.elapsed();
                    std::hint::black_box(next);
                }
                short_timed += needed;
                total
            })
        });
    });

    group.bench_function(BenchmarkId::from_parameter(format!("behind={LONG}")), |b| {
        b.iter_custom(|iters| {
            tokio.block_on(async {
                let began = Instant::now();
                for _ in 0..iters {
                    long_token = common::advance_again(&fixture.runtime, &long_token).await;
                }
                began.elapsed()
            })
        });
    });
    group.finish();

    let long_after = node_count(long_run);
    common::report(&format!(
        "behind={SHORT}: {short_timed} advances timed, each on its own run with {SHORT} advances behind it"
    ));
    common::report(&format!(
        "behind={LONG}: the long run had {long_before} nodes before timing and {long_after} after ({} advances timed, warm-up included)",
        long_after - long_before
    ));
}

criterion_group!(benches, advance_latency);
criterion_main!(benches);
