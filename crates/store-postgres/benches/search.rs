//! Benchmark: the SPEC's scale row on PostgreSQL, a store of 10,000 sessions and 1,010,000
//! events. Measures listing sessions (the first page and a page 5,000 rows deep, 50 rows each)
//! and the full-text search behind `resume_session` (a rare word, a middling one, the commonest
//! one, a sentence, the 32 commonest words). Target: each under 50 ms.
//!
//! Each session holds a start and 49 advances whose notes are 12 words drawn from a 5,000-word
//! vocabulary with Zipf-like frequencies (a word's rank is log-uniform), so some words are in
//! nearly every note and most in few; each goal names a ticket of its own, the rare word.
//! The store is written through the store contract, a session's advances in one batch, into the
//! database `switchyard_bench_search_v1` of the server `SWITCHYARD_TEST_POSTGRES_URL` names (a
//! role that may create databases; `.ci/postgres` prints one). Building takes minutes, so the
//! database is kept and `target/tmp/postgres-search-v1` records that it is complete; later runs
//! measure it as it is (delete that file to rebuild).
//!
//! Run: `cargo bench -p switchyard-store-postgres --bench search`.

// A benchmark's report is its output.
#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use tokio_postgres::NoTls;

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::state::RunStatus;
use switchyard_store::conformance::fixture::{SessionScript, attempt_id, node_id};
use switchyard_store::{Batch, SearchQuery, SessionQuery, Store};
use switchyard_store_postgres::{PostgresOptions, PostgresStore};

const SESSIONS: u64 = 10_000;
const ADVANCES_PER_SESSION: u64 = 49;
const WORDS_PER_NOTE: usize = 12;
const VOCABULARY: usize = 5_000;
const WRITERS: u64 = 16;
const PAGE: u32 = 50;
const SAMPLES: usize = 30;
/// Bump when the generated store changes shape, so an old kept database is not measured.
const FIXTURE: &str = "postgres-search-v1";
const DATABASE: &str = "switchyard_bench_search_v1";

/// The commonest words, most frequent first (stop words included: the index keeps them);
/// synthetic words follow them.
#[rustfmt::skip]
const COMMON_WORDS: &[&str] = &[
    "the", "to", "and", "of", "a", "in", "for", "is", "with", "on", "tests", "parser", "now", "step",
    "fixed", "added", "error", "module", "function", "update", "config", "build", "review", "change",
    "handler", "cache", "schema", "query", "index", "token", "session", "retry",
];

fn word(rank: usize) -> String {
    COMMON_WORDS.get(rank).map_or_else(|| format!("term{rank}"), |word| (*word).to_owned())
}

/// A rank whose logarithm is uniform: rank r comes about 1/r as often as the first.
fn draw(random: &mut StdRng) -> usize {
    let rank = (VOCABULARY as f64).powf(random.random::<f64>()) as usize;
    rank.saturating_sub(1).min(VOCABULARY - 1)
}

fn ticket(session: u64) -> String {
    format!("ticket{session:05}")
}

/// The server's admin URL with `database` in place of its database.
fn url_of(database: &str) -> String {
    let server = std::env::var("SWITCHYARD_TEST_POSTGRES_URL")
        .expect("set SWITCHYARD_TEST_POSTGRES_URL to a role that may create databases: `export SWITCHYARD_TEST_POSTGRES_URL=\"$(bash .ci/postgres)\"`");
    let base = server.rsplit_once('/').map_or(server.as_str(), |(base, _)| base);
    format!("{base}/{database}")
}

async fn on_server(sql: &str) {
    let server = std::env::var("SWITCHYARD_TEST_POSTGRES_URL").unwrap_or_default();
    let (client, connection) = tokio_postgres::connect(&server, NoTls).await.expect("connect to the server");
    let driver = tokio::spawn(connection);
    client.batch_execute(sql).await.unwrap_or_else(|error| panic!("{sql}: {error}"));
    drop(client);
    let _ = driver.await;
}

/// Writes session `n`: its start, then its advances in one batch.
async fn write_session(store: &PostgresStore, n: u64, random: &mut StdRng) {
    let mut script = SessionScript::new(n);
    script.at_ms = 1_700_000_000_000 + i64::try_from(n).unwrap() * 1_000;
    let node = |k: u64| node_id(n * 100 + k);
    let mut start = script.start(node(0));
    if let EventKind::SessionCreated { goal, .. } = &mut start.events[0].kind {
        *goal = format!("pick up {} in the {} work", ticket(n), word(11));
    }
    store.append(start).await.expect("append a session's start");
    let mut events = Vec::new();
    for k in 0..ADVANCES_PER_SESSION {
        let notes: Vec<String> = (0..WORDS_PER_NOTE).map(|_| word(draw(random))).collect();
        events.push(script.advanced(node(k), attempt_id(n * 100 + k), node(k + 1), notes.join(" ")));
        events.push(script.node(node(k + 1), Some(node(k)), NodeCause::Advance, RunStatus::Active));
    }
    store.append(Batch::events(script.session, events)).await.expect("append a session's advances");
}

async fn build(store: Arc<PostgresStore>) {
    let began = Instant::now();
    let mut writers = tokio::task::JoinSet::new();
    for writer in 0..WRITERS {
        let store = Arc::clone(&store);
        writers.spawn(async move {
            let mut random = StdRng::seed_from_u64(writer);
            let mut n = writer;
            while n < SESSIONS {
                write_session(&store, n, &mut random).await;
                n += WRITERS;
            }
        });
    }
    while let Some(done) = writers.join_next().await {
        done.expect("a writer");
    }
    println!("built {SESSIONS} sessions in {:.1?}", began.elapsed());
}

/// The median and the slowest of `SAMPLES` calls.
async fn measure<F, Fut, T>(name: &str, mut call: F) -> Duration
where
    F: FnMut() -> Fut,
    Fut: Future<Output = T>,
{
    call().await;
    let mut samples = Vec::with_capacity(SAMPLES);
    for _ in 0..SAMPLES {
        let started = Instant::now();
        std::hint::black_box(call().await);
        samples.push(started.elapsed());
    }
    samples.sort();
    let median = samples[SAMPLES / 2];
    let verdict = if median < Duration::from_millis(50) { "met" } else { "NOT met" };
    println!(
        "| {name} | {:.2} ms | {:.2} ms | {verdict} |",
        median.as_secs_f64() * 1e3,
        samples[SAMPLES - 1].as_secs_f64() * 1e3
    );
    median
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let tokio = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a tokio runtime");
    tokio.block_on(async {
        let marker = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(FIXTURE);
        let url = url_of(DATABASE);
        if !marker.exists() {
            on_server(&format!("DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")).await;
            on_server(&format!("CREATE DATABASE {DATABASE}")).await;
        }
        let store = Arc::new(PostgresStore::open(&url, PostgresOptions::default()).await.expect("open the store"));
        if marker.exists() {
            println!("measuring the kept database {DATABASE} ({} records it)", marker.display());
        } else {
            build(Arc::clone(&store)).await;
            std::fs::create_dir_all(marker.parent().unwrap()).expect("create target/tmp");
            std::fs::write(&marker, DATABASE).expect("mark the database complete");
        }
        let (client, connection) = tokio_postgres::connect(&url, NoTls).await.expect("connect");
        tokio::spawn(connection);
        let count: i64 = client.query_one("SELECT count(*) FROM events", &[]).await.expect("count").get(0);
        println!("{count} events in {SESSIONS} sessions\n");

        let mut before = None;
        for _ in 0..100 {
            let page = store.list_sessions(SessionQuery { limit: PAGE, before, ..SessionQuery::default() }).await;
            let last = page.expect("list sessions").last().cloned().expect("a full page");
            before = Some((last.updated_at_ms, last.id));
        }
        let rare = ticket(SESSIONS / 2);
        let searches = [
            ("search: a rare word", rare.clone()),
            ("search: a middling word", word(200)),
            ("search: the commonest word", word(0)),
            ("search: a sentence", format!("pick up the parser work from {rare}")),
            ("search: the 32 commonest words", COMMON_WORDS[..32].join(" ")),
        ];
        for (name, text) in &searches {
            let hits = store.search_sessions(SearchQuery { text: text.clone(), limit: 20, workspace: None }).await;
            println!("{name} ({text:?}): {} sessions", hits.expect("search").len());
        }
        println!("\n| Postgres, 10,000 sessions | median | slowest of {SAMPLES} | under 50 ms |\n|---|---|---|---|");
        measure("list sessions, first page of 50", || {
            store.list_sessions(SessionQuery { limit: PAGE, ..SessionQuery::default() })
        })
        .await;
        measure("list sessions, a page 5,000 rows deep", || {
            store.list_sessions(SessionQuery { limit: PAGE, before, ..SessionQuery::default() })
        })
        .await;
        for (name, text) in &searches {
            measure(name, || store.search_sessions(SearchQuery { text: text.clone(), limit: 20, workspace: None }))
                .await;
        }
    });
}
