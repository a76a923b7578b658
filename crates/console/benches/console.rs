//! Benchmark: the console at the SPEC's scale, over real HTTP on loopback.
//! - Time to first byte (the answer's headers; maud renders the whole page first) and to the last
//!   byte of the sessions page over a store of 10,000 sessions, and of the page of a session whose
//!   run has 1,000 nodes. Target: under 50 ms.
//! - Fifty open `/events` streams, one change: the time from the commit (a run advanced through
//!   the serving runtime, or through a second runtime on the same file, as a CLI in another
//!   process would) until every stream has its `change` event. Target: under 1 s to all.
//!
//! The store takes a minute to build, so it is kept in `target/tmp/console-scale-v1/`; later runs
//! open it as it is (delete the folder to rebuild).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tokio::sync::mpsc;

use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};

use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};

const SESSIONS: usize = 10_000;
const NODES: usize = 1_000;
const OPEN_PAGES: usize = 50;
const STARTERS: usize = 16;
/// Bump when the generated store changes shape, so an old kept store is not measured.
const FIXTURE: &str = "console-scale-v1";

/// One step whose `again` edge leads back to itself: each advance adds one node (the MCP benches'
/// workflow).
const LOOP_WORKFLOW: &str = include_str!("../../mcp/benches/bench-loop.yaml");

async fn open(home: &Path) -> Runtime {
    let config = Config::resolve(Overrides { home: Some(home.to_owned()), ..Overrides::default() }).expect("config");
    Runtime::open(&config).await.expect("open the runtime")
}

async fn start(runtime: &Runtime, workflow: &Path, goal: String) -> StepResponse {
    runtime
        .start(
            &Catalog::builtins_only(),
            StartRequest { file: Some(workflow.to_owned()), goal, ..StartRequest::default() },
        )
        .await
        .expect("start a run")
}

async fn advance(runtime: &Runtime, token: &str) -> String {
    let input = AdvanceInput { choice: Some("again".to_owned()), ..AdvanceInput::default() };
    let response = runtime.advance(token, None, input).await.expect("advance the loop step");
    response.tokens.continue_token.expect("the loop step offers a continue token")
}

#[expect(clippy::print_stderr, reason = "benchmarks report extra figures next to criterion's output")]
fn report(line: &str) {
    eprintln!("  {line}");
}

/// Builds the kept store; returns the session with the long run.
async fn build(runtime: Arc<Runtime>, folder: &Path, workflow: &Path) -> String {
    let began = Instant::now();
    let mut starters = tokio::task::JoinSet::new();
    for worker in 0..STARTERS {
        let runtime = Arc::clone(&runtime);
        let workflow = workflow.to_owned();
        starters.spawn(async move {
            for index in (worker..SESSIONS - 1).step_by(STARTERS) {
                start(&runtime, &workflow, format!("Bench session {index:05}: tidy the parser module")).await;
            }
        });
    }
    while starters.join_next().await.is_some() {}
    let big = start(&runtime, workflow, "The long run: a thousand steps".to_owned()).await;
    let mut token = big.tokens.continue_token.clone().expect("a continue token");
    for _ in 1..NODES {
        token = advance(&runtime, &token).await;
    }
    std::fs::write(folder.join("big-session"), big.session.to_string()).unwrap();
    report(&format!("built {SESSIONS} sessions and a {NODES}-node run in {:.1?}", began.elapsed()));
    big.session.to_string()
}

fn console(c: &mut Criterion) {
    let tokio = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join(FIXTURE);
    let complete = folder.join("complete");
    if !complete.exists() && folder.exists() {
        std::fs::remove_dir_all(&folder).expect("remove a store whose build did not finish");
    }
    std::fs::create_dir_all(&folder).unwrap();
    let workflow = folder.join("bench-loop.yaml");
    std::fs::write(&workflow, LOOP_WORKFLOW).unwrap();
    let runtime = Arc::new(tokio.block_on(open(&folder)));
    let big_session = if complete.exists() {
        std::fs::read_to_string(folder.join("big-session")).unwrap()
    } else {
        let big_session = tokio.block_on(build(Arc::clone(&runtime), &folder, &workflow));
        std::fs::write(&complete, "").unwrap();
        big_session
    };

    let listener = tokio.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let address = listener.local_addr().unwrap();
    let app = switchyard_console::router(Arc::clone(&runtime), Catalog::builtins_only());
    tokio.spawn(axum::serve(listener, app).into_future());
    let client = reqwest::Client::new();

    let mut pages = c.benchmark_group("console_page");
    pages.sample_size(30).measurement_time(Duration::from_secs(10));
    for (name, path) in [("sessions_10000", "/".to_owned()), ("session_1000_nodes", format!("/sessions/{big_session}"))]
    {
        let url = format!("http://{address}{path}");
        let check = tokio.block_on(client.get(&url).send()).unwrap();
        assert_eq!(check.status(), 200, "GET {path}");
        pages.bench_function(format!("{name}/first_byte"), |bencher| {
            bencher.iter_custom(|iterations| {
                tokio.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iterations {
                        let began = Instant::now();
                        let response = client.get(&url).send().await.unwrap();
                        total += began.elapsed();
                        response.bytes().await.unwrap();
                    }
                    total
                })
            });
        });
        pages.bench_function(format!("{name}/last_byte"), |bencher| {
            bencher.iter(|| tokio.block_on(async { client.get(&url).send().await.unwrap().bytes().await.unwrap() }));
        });
    }
    pages.finish();

    // Fifty open pages, each reading its own stream and reporting every change event it sees.
    let (seen, mut sightings) = mpsc::unbounded_channel::<()>();
    let (opened, mut openings) = mpsc::unbounded_channel::<()>();
    for _ in 0..OPEN_PAGES {
        let (client, seen, opened) = (client.clone(), seen.clone(), opened.clone());
        let url = format!("http://{address}/events");
        tokio.spawn(async move {
            let mut response = client.get(&url).send().await.unwrap();
            // The stream's first frame comes once the page's subscription exists.
            let _ = response.chunk().await;
            let _ = opened.send(());
            while let Ok(Some(chunk)) = response.chunk().await {
                let text = String::from_utf8_lossy(&chunk);
                for _ in 0..text.matches("event: change").count() {
                    let _ = seen.send(());
                }
            }
        });
    }
    tokio.block_on(async {
        for _ in 0..OPEN_PAGES {
            openings.recv().await.unwrap();
        }
    });
    let other = Arc::new(tokio.block_on(open(&folder)));
    // A run of its own for the changes (a kept token may have been used by an interrupted run).
    let token = tokio.block_on(async {
        let moving = start(&runtime, &workflow, "The run the change benchmark advances".to_owned()).await;
        let token = moving.tokens.continue_token.expect("a continue token");
        for _ in 0..OPEN_PAGES {
            sightings.recv().await.unwrap();
        }
        token
    });
    let mut token = token;
    let mut events = c.benchmark_group("console_events");
    events.sample_size(20).measurement_time(Duration::from_secs(10));
    for (name, committing) in [("50_pages_change_in_process", &runtime), ("50_pages_change_by_another_runtime", &other)]
    {
        events.bench_function(name, |bencher| {
            bencher.iter_custom(|iterations| {
                tokio.block_on(async {
                    let mut total = Duration::ZERO;
                    for _ in 0..iterations {
                        let began = Instant::now();
                        token = advance(committing, &token).await;
                        for _ in 0..OPEN_PAGES {
                            sightings.recv().await.unwrap();
                        }
                        total += began.elapsed();
                    }
                    total
                })
            });
        });
    }
    events.finish();
}

criterion_group!(benches, console);
criterion_main!(benches);
