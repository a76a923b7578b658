//! Shared set-up for the durable benchmarks: a SQLite store in a temporary folder under the target
//! directory, a runtime over it, and a workflow whose one step loops on itself so a run can be
//! advanced as often as a benchmark needs.

// Each bench target compiles this module and uses a different part of it.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use switchyard_catalog::Catalog;
use switchyard_core::token::{Keyring, SigningKey};
use switchyard_runtime::clock::{IdSource, RandomIds, SystemClock};
use switchyard_runtime::{AdvanceInput, Parts, Runtime, StartRequest, StepResponse};
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};
use tempfile::TempDir;

/// One step, `work`, whose `again` edge leads back to itself: every advance with the choice
/// `again` creates one node and leaves the run pending at `work` again.
pub const LOOP_WORKFLOW: &str = r#"id: bench-loop
title: Benchmark loop
steps:
  - id: work
    prompt: Do one unit of work toward {{ goal }}.
    notes: optional
    next:
      - to: work
        label: again
        max_traversals: 1000000
      - end: true
        label: done
"#;

/// The folder the benchmark stores (and the fsync probe file) live in: `target/tmp`, which cargo
/// names in `CARGO_TARGET_TMPDIR` for bench targets.
pub fn bench_root() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
}

/// A fresh, empty folder under [`bench_root`], removed when dropped.
pub fn bench_dir() -> TempDir {
    std::fs::create_dir_all(bench_root()).expect("create the bench root");
    tempfile::Builder::new().prefix("switchyard-bench-").tempdir_in(bench_root()).expect("create a bench folder")
}

/// A multi-threaded tokio runtime, as a server would run.
pub fn tokio_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("build the tokio runtime")
}

/// A store file, a runtime over it and the loop workflow written to a file.
pub struct Fixture {
    // Fields drop in order: the runtime and the store (whose writer thread finishes) before a
    // temporary folder is removed.
    pub runtime: Arc<Runtime>,
    pub store: Arc<SqliteStore>,
    pub workflow_file: PathBuf,
    /// `None` when the fixture lives in a kept folder (see [`Fixture::kept`]).
    pub dir: Option<TempDir>,
}

impl Fixture {
    /// A fixture in a fresh folder, removed when dropped.
    pub fn new() -> Self {
        let dir = bench_dir();
        let mut fixture = Self::kept(dir.path());
        fixture.dir = Some(dir);
        fixture
    }

    /// A fixture in `folder`, created when missing and kept when dropped, so a costly store can
    /// be built once and measured by later runs. A store already there is opened as it is.
    pub fn kept(folder: &Path) -> Self {
        let home = folder.join("home");
        std::fs::create_dir_all(&home).expect("create the home folder");
        let workflow_file = folder.join("bench-loop.yaml");
        let mut file = std::fs::File::create(&workflow_file).expect("create the workflow file");
        file.write_all(LOOP_WORKFLOW.as_bytes()).expect("write the workflow file");
        let store_path = folder.join("switchyard.db");
        let store = Arc::new(SqliteStore::open(&store_path, SqliteOptions::default()).expect("open the store"));
        let ids = Arc::new(RandomIds);
        let mut key = [0u8; 32];
        key[..16].copy_from_slice(&ids.bytes16());
        key[16..].copy_from_slice(&ids.bytes16());
        let runtime = Runtime::from_parts(Parts {
            store: Arc::clone(&store) as Arc<dyn switchyard_store::Store>,
            store_label: store_path.display().to_string(),
            keys: Keyring { current: SigningKey::new(key), previous: None },
            clock: Arc::new(SystemClock),
            ids,
        });
        Self { runtime: Arc::new(runtime), store, workflow_file, dir: None }
    }

    /// Starts one run of the loop workflow.
    pub async fn start(&self, goal: &str) -> StepResponse {
        start(&self.runtime, &self.workflow_file, goal).await
    }

    /// Starts `count` runs with `concurrency` tasks starting runs side by side; returns the
    /// first response of each run.
    pub async fn start_many(&self, count: usize, concurrency: usize) -> Vec<StepResponse> {
        let mut tasks = Vec::with_capacity(concurrency);
        for worker in 0..concurrency {
            let runtime = Arc::clone(&self.runtime);
            let file = self.workflow_file.clone();
            tasks.push(tokio::spawn(async move {
                let mut started = Vec::new();
                let mut index = worker;
                while index < count {
                    started.push(start(&runtime, &file, &format!("benchmark session {index}")).await);
                    index += concurrency;
                }
                started
            }));
        }
        let mut all = Vec::with_capacity(count);
        for task in tasks {
            all.extend(task.await.expect("a starter task panicked"));
        }
        all
    }
}

async fn start(runtime: &Runtime, file: &Path, goal: &str) -> StepResponse {
    runtime
        .start(
            &Catalog::builtins_only(),
            StartRequest { file: Some(file.to_owned()), goal: goal.to_owned(), ..StartRequest::default() },
        )
        .await
        .expect("start a run")
}

/// The continue token of a response at the loop step.
pub fn continue_token(response: &StepResponse) -> String {
    response.tokens.continue_token.clone().expect("the loop step offers a continue token")
}

/// Advances a run at the loop step once, taking the `again` edge; returns the next continue token.
pub async fn advance_again(runtime: &Runtime, token: &str) -> String {
    let input = AdvanceInput { choice: Some("again".to_owned()), ..AdvanceInput::default() };
    let response = runtime.advance(token, None, input).await.expect("advance the loop step");
    continue_token(&response)
}

/// Advances a run `count` times; returns the last continue token.
pub async fn advance_times(runtime: &Runtime, mut token: String, count: usize) -> String {
    for _ in 0..count {
        token = advance_again(runtime, &token).await;
    }
    token
}

/// Median, 90th and 99th percentile of a set of latencies.
pub fn percentiles(latencies: &mut [Duration]) -> Option<(Duration, Duration, Duration)> {
    if latencies.is_empty() {
        return None;
    }
    latencies.sort_unstable();
    let at = |fraction: f64| {
        let index = ((latencies.len() - 1) as f64 * fraction).round() as usize;
        latencies[index]
    };
    Some((at(0.5), at(0.9), at(0.99)))
}

/// A line on stderr next to criterion's own report (set-up times, grouping, percentiles).
#[expect(clippy::print_stderr, reason = "benchmarks report extra figures next to criterion's output")]
pub fn report(line: &str) {
    eprintln!("  {line}");
}
