//! Benchmark: listing sessions (the first page and a page 5,000 rows deep, 50 rows each) and
//! opening one run, in a store holding 10,000 sessions.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use switchyard_runtime::Target;
use switchyard_store::SessionQuery;

const SESSIONS: usize = 10_000;
const STARTERS: usize = 32;
const PAGE: u32 = 50;

fn sessions(c: &mut Criterion) {
    let tokio = common::tokio_runtime();
    let fixture = common::Fixture::new();
    let runtime = &fixture.runtime;

    let began = Instant::now();
    let started = tokio.block_on(fixture.start_many(SESSIONS, STARTERS));
    common::report(&format!("set-up: {SESSIONS} sessions started by {STARTERS} tasks in {:.1?}", began.elapsed()));
    let middle = &started[SESSIONS / 2];
    let events = tokio.block_on(runtime.events(middle.session, 0, 1000)).expect("events").len();
    common::report(&format!("each session holds {events} events after its start"));

    // The cursor of the 100th page: 5,000 rows deep.
    let cursor = tokio.block_on(async {
        let mut before = None;
        for _ in 0..100 {
            let page = runtime
                .sessions(SessionQuery { limit: PAGE, before, ..SessionQuery::default() })
                .await
                .expect("list sessions");
            let last = page.last().expect("a full page");
            before = Some((last.updated_at_ms, last.id));
        }
        before
    });
    let first =
        tokio.block_on(runtime.sessions(SessionQuery { limit: PAGE, ..SessionQuery::default() })).expect("list");
    assert_eq!(first.len(), PAGE as usize);
    let deep = tokio
        .block_on(runtime.sessions(SessionQuery { limit: PAGE, before: cursor, ..SessionQuery::default() }))
        .expect("list");
    assert_eq!(deep.len(), PAGE as usize);

    let mut group = c.benchmark_group("sessions");
    group.sample_size(30).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    group.bench_function(BenchmarkId::new("list_first_page", SESSIONS), |b| {
        b.iter_custom(|iters| {
            tokio.block_on(async {
                let began = Instant::now();
                for _ in 0..iters {
                    let query = SessionQuery { limit: PAGE, ..SessionQuery::default() };
                    black_box(runtime.sessions(query).await.expect("list"));
                }
                began.elapsed()
            })
        });
    });
    group.bench_function(BenchmarkId::new("list_page_after_5000", SESSIONS), |b| {
        b.iter_custom(|iters| {
            tokio.block_on(async {
                let began = Instant::now();
                for _ in 0..iters {
                    let query = SessionQuery { limit: PAGE, before: cursor, ..SessionQuery::default() };
                    black_box(runtime.sessions(query).await.expect("list"));
                }
                began.elapsed()
            })
        });
    });
    let target = Target::Run(middle.run);
    group.bench_function(BenchmarkId::new("show_run", SESSIONS), |b| {
        b.iter_custom(|iters| {
            tokio.block_on(async {
                let began = Instant::now();
                for _ in 0..iters {
                    black_box(runtime.show(&target).await.expect("show"));
                }
                began.elapsed()
            })
        });
    });
    group.bench_function(BenchmarkId::new("run_record", SESSIONS), |b| {
        b.iter_custom(|iters| {
            tokio.block_on(async {
                let began = Instant::now();
                for _ in 0..iters {
                    black_box(runtime.run(&target).await.expect("run"));
                }
                began.elapsed()
            })
        });
    });
    group.finish();
}

criterion_group!(benches, sessions);
criterion_main!(benches);
