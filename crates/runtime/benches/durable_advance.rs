//! Benchmark: durable advances through the runtime API, in process, on a real SQLite store file,
//! with 1, 8 and 32 tokio tasks each advancing its own run at the same time (the store groups
//! concurrent commits).
//!
//! One criterion iteration is one round: every writer advances its run once. The reported time is
//! therefore the per-advance latency each writer sees, and the throughput (elements/s) is the
//! total advances per second. Writers are not synchronised between rounds.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn durable_advance(c: &mut Criterion) {
    let tokio = common::tokio_runtime();
    let mut group = c.benchmark_group("durable_advance");
    group.sample_size(20).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(2));
    for writers in [1usize, 8, 32] {
        let fixture = common::Fixture::new();
        let mut tokens: Vec<String> =
            tokio.block_on(fixture.start_many(writers, writers)).iter().map(common::continue_token).collect();
        let mut latencies: Vec<Duration> = Vec::new();
        let before = fixture.store.write_stats();
        group.throughput(Throughput::Elements(writers as u64));
        group.bench_function(BenchmarkId::from_parameter(format!("writers={writers}")), |b| {
            b.iter_custom(|iters| {
                let runtime = Arc::clone(&fixture.runtime);
                let batch = std::mem::take(&mut tokens);
                let (elapsed, results) = tokio.block_on(async move {
                    let began = Instant::now();
                    let tasks: Vec<_> = batch
                        .into_iter()
                        .map(|token| {
                            let runtime = Arc::clone(&runtime);
                            tokio::spawn(async move {
                                let mut token = token;
                                let mut seen = Vec::with_capacity(usize::try_from(iters).unwrap_or(0));
                                for _ in 0..iters {
                                    let one = Instant::now();
                                    token = common::advance_again(&runtime, &token).await;
                                    seen.push(one.elapsed());
                                }
                                (token, seen)
                            })
                        })
                        .collect();
                    let mut results = Vec::with_capacity(tasks.len());
                    for task in tasks {
                        results.push(task.await.expect("a writer task panicked"));
                    }
                    (began.elapsed(), results)
                });
                for (token, seen) in results {
                    tokens.push(token);
                    latencies.extend(seen);
                }
                elapsed
            });
        });
        let after = fixture.store.write_stats();
        let requests = after.requests - before.requests;
        let commits = after.commits - before.commits;
        let checkpoints = after.background_checkpoints - before.background_checkpoints;
        common::report(&format!(
            "writers={writers}: {} advances timed (warm-up included); writer requests {requests}, transactions {commits}, {:.1} requests per transaction; background checkpoints {checkpoints}",
            latencies.len(),
            requests as f64 / commits.max(1) as f64
        ));
        if let Some((p50, p90, p99)) = common::percentiles(&mut latencies) {
            common::report(&format!("writers={writers}: single-advance latency p50 {p50:?}, p90 {p90:?}, p99 {p99:?}"));
        }
    }
    group.finish();
}

criterion_group!(benches, durable_advance);
criterion_main!(benches);
