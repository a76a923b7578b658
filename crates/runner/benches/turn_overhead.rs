//! Benchmark: the runner's own work per turn (everything but waiting for the model), driving
//! runs in process on a real SQLite store file against the fake model server answering at once.
//!
//! A turn is timed at the server: from one request's arrival to the next one's, which holds the
//! server answering, the client reading the answer, the runner running the tool calls and
//! recording the turn, and the next request being built and sent. The same server's own share
//! is measured in the same process as bare `Client::complete` round trips of the very request
//! bodies the runner sent (same sizes, same replies), so the runner's overhead of a turn is its
//! interval minus the bare round trip of its request.
//!
//! The workflow is one step looping on itself; each pass of it takes `TURNS_PER_STEP` turns: a
//! `checkpoint`, then `read_file` of a short file the first turn saved, then `complete_step`
//! choosing `again` (or `done` on the last pass). The conversation carries over from pass to
//! pass, as it does between steps without a context reset.
//!
//! - criterion's `turn_overhead/run_of_50_turns`: one run of 5 passes (50 turns) per iteration;
//!   `turn_overhead/bare_round_trip`: one bare round trip of turn 25's request per iteration.
//! - Printed after them: per-turn medians and p95s over every run criterion drove (by tool
//!   called), the bare round trips, the overhead; then one run of 1,000 turns in one
//!   conversation (with and without a context window to trim to), turns 11–110 against turns
//!   901–1,000; an fsync probe on the store's disk; the load average before and after each part.
//!
//! Stuck detection is off (`read_file` of the same file eight times in a row would trip it).

// A benchmark's report is its output.
#![allow(clippy::print_stdout)]

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_files::{FileHost, HostConfig};
use switchyard_llm::{ApiKey, ChatRequest, Client, Endpoint};
use switchyard_run_folder::RunFolders;
use switchyard_runner::{ModelSpec, Models, Outcome, Price, RunOptions, Runner, Target};
use switchyard_runtime::{Runtime, StartRequest};
use switchyard_test_support::fake_llm::FakeLlm;
use tokio_util::sync::CancellationToken;

use crate::common::{LOOP_WORKFLOW, TURNS_PER_STEP, call_at, cpu_ms, load, reply_to, turn_of};

struct Bench {
    // Fields drop in order: the runtime (whose store threads finish) before its folder goes.
    runtime: Arc<Runtime>,
    files: Arc<FileHost>,
    server: FakeLlm,
    workflow: PathBuf,
    /// Request bodies kept for the bare replay, by turn.
    kept: Arc<Mutex<BTreeMap<usize, String>>>,
    /// The process's CPU time (ms) when the requests of chosen turns arrived.
    cpu_marks: Arc<Mutex<BTreeMap<usize, f64>>>,
    home: tempfile::TempDir,
}

impl Bench {
    async fn new() -> Self {
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"));
        std::fs::create_dir_all(root).expect("create the bench root");
        let home =
            tempfile::Builder::new().prefix("switchyard-runner-bench-").tempdir_in(root).expect("create a bench home");
        let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })
            .expect("resolve the bench config");
        let folders = Arc::new(RunFolders::new(config.output_root.clone()));
        let runtime = Arc::new(
            Runtime::open(&config).await.expect("open the bench runtime").with_follower(Arc::clone(&folders) as _),
        );
        let files = Arc::new(FileHost::new(Arc::clone(&runtime), folders, HostConfig::from_config(&config)));
        let workflow = home.path().join("loop.yaml");
        std::fs::write(&workflow, LOOP_WORKFLOW).expect("write the bench workflow");
        let server = FakeLlm::start();
        server.forget_bodies();
        Self { runtime, files, server, workflow, kept: Arc::default(), cpu_marks: Arc::default(), home }
    }

    fn model(&self, context_window_tokens: Option<u64>) -> ModelSpec {
        ModelSpec {
            model_id: "bench-model".to_owned(),
            endpoint: Endpoint {
                base_url: self.server.base_url(),
                api_key: Some(ApiKey::new("sk-bench-0123456789")),
                timeout: Duration::from_secs(60),
            },
            temperature: None,
            max_tokens: None,
            context_window_tokens,
            price: Some(Price { prompt_usd_per_token: 3e-6, completion_usd_per_token: 15e-6 }),
            stream: false,
            send_reasoning: None,
        }
    }

    /// The server answers runs of `total` turns from now on, keeping the bodies of the turns
    /// `keep` selects.
    fn answer_runs_of(&self, total: usize, keep: impl Fn(usize) -> bool + Send + Sync + 'static) {
        self.answer_and_mark(total, keep, |_| false);
    }

    /// As [`Bench::answer_runs_of`], also noting the process's CPU time at the turns `mark`
    /// selects (the same reading happens in a bare replay of those turns).
    fn answer_and_mark(
        &self,
        total: usize,
        keep: impl Fn(usize) -> bool + Send + Sync + 'static,
        mark: impl Fn(usize) -> bool + Send + Sync + 'static,
    ) {
        let kept = Arc::clone(&self.kept);
        let marks = Arc::clone(&self.cpu_marks);
        self.server.otherwise(move |request| {
            let turn = turn_of(request);
            if mark(turn) {
                marks.lock().expect("the CPU marks").insert(turn, cpu_ms());
            }
            if keep(turn) {
                kept.lock().expect("the kept bodies").insert(turn, request.body_text.clone());
            }
            reply_to(request, total)
        });
    }

    /// Drives one run of `total` turns and returns the arrival time of each of its requests.
    async fn drive(&self, total: usize, context_window_tokens: Option<u64>) -> Vec<Instant> {
        let before = self.server.requests().len();
        let options = RunOptions { stuck_repeats: u32::MAX, stuck_turns: u32::MAX, ..RunOptions::default() };
        let models = Models::single("bench", self.model(context_window_tokens));
        let runner =
            Runner::new(Arc::clone(&self.runtime), Catalog::builtins_only(), Arc::clone(&self.files), models, options);
        let request = StartRequest {
            file: Some(self.workflow.clone()),
            goal: "benchmark the runner".to_owned(),
            ..StartRequest::default()
        };
        let (events, mut watcher) = tokio::sync::mpsc::unbounded_channel();
        // A watcher drains the events, as the CLI's display does.
        let watching = tokio::spawn(async move { while watcher.recv().await.is_some() {} });
        let outcome = runner.drive(Target::Start(request), events, CancellationToken::new()).await.expect("a drive");
        watching.await.expect("the watcher");
        assert!(matches!(outcome, Outcome::Finished { .. }), "the bench run did not finish: {outcome:?}");
        let arrivals: Vec<Instant> = self.server.requests()[before..].iter().map(|request| request.arrived).collect();
        assert_eq!(arrivals.len(), total, "one request per turn");
        arrivals
    }

    /// A bare round trip of a kept request body, timed around `Client::complete`.
    fn bare_request(&self, body: &str) -> ChatRequest<'static> {
        let body: Value = serde_json::from_str(body).expect("a kept body is JSON");
        ChatRequest {
            model: body["model"].as_str().unwrap_or_default().to_owned(),
            messages: serde_json::from_value::<Vec<_>>(body["messages"].clone()).expect("the kept messages").into(),
            tools: serde_json::from_value::<Vec<_>>(body["tools"].clone()).expect("the kept tools").into(),
            temperature: None,
            max_tokens: None,
            stream: false,
        }
    }

    fn client(&self) -> Client {
        Client::new(self.model(None).endpoint).expect("a client")
    }
}

async fn bare_round_trip(client: &Client, request: &ChatRequest<'_>) -> Duration {
    let began = Instant::now();
    client.complete(request).await.expect("a bare round trip");
    began.elapsed()
}

/// Each kept turn's bare round trip, the median of `repeats` (the first sets up the connection).
/// Also the process's CPU time per bare round trip of the turns in each of `ranges`.
async fn bare_round_trips(
    bench: &Bench,
    total: usize,
    repeats: usize,
    ranges: &[std::ops::Range<usize>],
) -> (BTreeMap<usize, Duration>, Vec<f64>) {
    let kept = std::mem::take(&mut *bench.kept.lock().expect("the kept bodies"));
    // The replay gets the same replies, and nothing more is kept.
    bench.answer_runs_of(total, |_| false);
    let client = bench.client();
    let mut bare = BTreeMap::new();
    bare_round_trip(&client, &bench.bare_request(kept.values().next().expect("kept bodies"))).await;
    let mut cpu_per_call = Vec::with_capacity(ranges.len());
    for range in ranges {
        let requests: Vec<(usize, ChatRequest<'static>)> =
            kept.range(range.clone()).map(|(turn, body)| (*turn, bench.bare_request(body))).collect();
        let began = cpu_ms();
        let mut calls = 0;
        for (turn, request) in requests {
            let mut times = Vec::with_capacity(repeats);
            for _ in 0..repeats {
                times.push(bare_round_trip(&client, &request).await);
                calls += 1u32;
            }
            times.sort();
            bare.insert(turn, times[times.len() / 2]);
        }
        cpu_per_call.push((cpu_ms() - began) / f64::from(calls.max(1)));
    }
    (bare, cpu_per_call)
}

/// The intervals between arrivals: interval `i` is turn `i`'s, from its request to the next.
fn intervals(arrivals: &[Instant]) -> Vec<(usize, Duration)> {
    arrivals.windows(2).enumerate().map(|(turn, pair)| (turn, pair[1] - pair[0])).collect()
}

fn percentile(sorted: &[f64], fraction: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() - 1) as f64 * fraction).round() as usize;
    sorted[index]
}

/// `n, p50, p95` of microsecond figures.
fn summary(mut figures: Vec<f64>) -> String {
    figures.sort_by(f64::total_cmp);
    format!(
        "n {:>5}  p50 {:>9.1} µs  p95 {:>9.1} µs",
        figures.len(),
        percentile(&figures, 0.5),
        percentile(&figures, 0.95)
    )
}

fn micros(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e6
}

/// The turn intervals of `selected` turns, the bare round trips of their requests, and the
/// overhead of each turn (its interval minus its request's bare round trip).
fn report_turns(label: &str, turns: &[(usize, Duration)], bare: &BTreeMap<usize, Duration>) {
    let per_turn: Vec<f64> = turns.iter().map(|(_, interval)| micros(*interval)).collect();
    let bare_of: Vec<f64> = turns.iter().filter_map(|(turn, _)| bare.get(turn)).map(|time| micros(*time)).collect();
    let overhead: Vec<f64> = turns
        .iter()
        .filter_map(|(turn, interval)| bare.get(turn).map(|time| micros(*interval) - micros(*time)))
        .collect();
    println!("  {label}");
    println!("    per turn          {}", summary(per_turn));
    println!("    bare round trip   {}", summary(bare_of));
    println!("    runner overhead   {}", summary(overhead));
}

/// A 4 KiB page overwritten and synced (`fdatasync`) in the store's folder: what one durable
/// commit costs on this disk at this hour.
fn fsync_probe(folder: &Path) -> String {
    let path = folder.join("fsync-probe");
    let mut file = std::fs::File::create(&path).expect("create the fsync probe");
    let page = [7u8; 4096];
    let mut times = Vec::with_capacity(200);
    for _ in 0..200 {
        use std::io::Seek;
        file.seek(std::io::SeekFrom::Start(0)).expect("seek the probe");
        let began = Instant::now();
        file.write_all(&page).expect("write the probe");
        file.sync_data().expect("sync the probe");
        times.push(micros(began.elapsed()));
    }
    let _ = std::fs::remove_file(&path);
    summary(times)
}

fn turn_overhead(c: &mut Criterion) {
    let tokio = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("the tokio runtime");
    let bench = tokio.block_on(Bench::new());
    let total = 5 * TURNS_PER_STEP;
    println!("load before: {}", load());
    println!(
        "fsync probe (4 KiB overwrite + fdatasync, {}): {}",
        bench.home.path().display(),
        fsync_probe(bench.home.path())
    );

    let mut group = c.benchmark_group("turn_overhead");
    group.sample_size(20).measurement_time(Duration::from_secs(20)).warm_up_time(Duration::from_secs(3));
    bench.answer_runs_of(total, |_| true);
    let mut runs: Vec<Vec<Instant>> = Vec::new();
    let cpu_before_runs = cpu_ms();
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("run_of_50_turns", |b| {
        b.iter_custom(|iters| {
            let mut elapsed = Duration::ZERO;
            for _ in 0..iters {
                let began = Instant::now();
                let arrivals = tokio.block_on(bench.drive(total, None));
                elapsed += began.elapsed();
                runs.push(arrivals);
            }
            elapsed
        });
    });
    let cpu_per_turn = (cpu_ms() - cpu_before_runs) / (runs.len() * total) as f64;
    let load_after_runs = load();
    let (bare, _) = tokio.block_on(bare_round_trips(&bench, total, 5, std::slice::from_ref(&(0..total))));
    let client = bench.client();
    let middle = bench.bare_request(&{
        // Turn 25's body, as the runner sent it (kept again for criterion's own bare row).
        bench.answer_runs_of(total, |turn| turn == 25);
        tokio.block_on(bench.drive(total, None));
        bench.kept.lock().expect("the kept bodies").remove(&25).expect("turn 25's body")
    });
    bench.answer_runs_of(total, |_| false);
    let mut bare_calls = 0u32;
    let cpu_before_bare = cpu_ms();
    group.throughput(Throughput::Elements(1));
    group.bench_function("bare_round_trip", |b| {
        b.iter(|| {
            bare_calls += 1;
            tokio.block_on(client.complete(&middle)).expect("a bare round trip")
        });
    });
    let cpu_per_bare = (cpu_ms() - cpu_before_bare) / f64::from(bare_calls.max(1));
    group.finish();

    println!();
    println!(
        "runs of {total} turns ({} runs driven by criterion, warm-up included; load after them {load_after_runs}); bare round trips of turn k's body: median of 5",
        runs.len()
    );
    let all: Vec<(usize, Duration)> = runs.iter().flat_map(|arrivals| intervals(arrivals)).collect();
    report_turns("every turn", &all, &bare);
    println!(
        "  CPU of the process (runner, store, fake server), mean: per turn {:.3} ms, per bare round trip of turn 25 {:.3} ms ({bare_calls} calls), runner's own {:.3} ms per turn",
        cpu_per_turn,
        cpu_per_bare,
        cpu_per_turn - cpu_per_bare
    );
    for tool in ["read_file", "checkpoint", "complete_step"] {
        let of_tool: Vec<(usize, Duration)> =
            all.iter().copied().filter(|(turn, _)| call_at(*turn, total).0 == tool).collect();
        report_turns(&format!("turns calling {tool}"), &of_tool, &bare);
    }
    println!("load after: {}", load());

    run_length(&tokio, &bench);
}

/// One conversation of 1,000 turns: its turns 11–110 against its turns 901–1,000.
fn run_length(tokio: &tokio::runtime::Runtime, bench: &Bench) {
    let total = 1000;
    let early = 10..110;
    let late = 900..999;
    for window in [None, Some(8_000)] {
        println!();
        println!("one run of {total} turns, context window {window:?} tokens; load before {}", load());
        let (early_keep, late_keep) = (early.clone(), late.clone());
        let marked = [early.start, early.end, late.start, late.end];
        bench.answer_and_mark(
            total,
            move |turn| early_keep.contains(&turn) || late_keep.contains(&turn),
            move |turn| marked.contains(&turn),
        );
        let began = Instant::now();
        let arrivals = tokio.block_on(bench.drive(total, window));
        println!("  whole run {:.2} s", began.elapsed().as_secs_f64());
        let marks = std::mem::take(&mut *bench.cpu_marks.lock().expect("the CPU marks"));
        let ranges = [early.clone(), late.clone()];
        let (bare, bare_cpu) = tokio.block_on(bare_round_trips(bench, total, 3, &ranges));
        let all = intervals(&arrivals);
        for ((label, range), bare_cpu) in [("turns 11–110", &early), ("turns 901–999", &late)].into_iter().zip(bare_cpu)
        {
            let turns: Vec<(usize, Duration)> = all.iter().copied().filter(|(turn, _)| range.contains(turn)).collect();
            report_turns(label, &turns, &bare);
            let cpu = (marks[&range.end] - marks[&range.start]) / range.len() as f64;
            println!(
                "    CPU, mean: per turn {cpu:.3} ms, per bare round trip {bare_cpu:.3} ms, runner's own {:.3} ms per turn",
                cpu - bare_cpu
            );
        }
        println!("  load after {}", load());
    }
}

criterion_group!(benches, turn_overhead);
criterion_main!(benches);
