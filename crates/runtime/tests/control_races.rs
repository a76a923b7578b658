//! Commands that race a pause or a stop: a command decided while the run was running must not
//! land after the pause or stop committed. The store's writes are held so the two commands queue
//! in a known order, then released to commit in one group: holding its writes is a thing of
//! SQLite's writer thread, so these run on a SQLite store whichever backend the run chose.

mod common;

use std::sync::Arc;

use switchyard_catalog::Catalog;
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse, Target};
use switchyard_store::Store;
use switchyard_store_sqlite::SqliteStore;

const LOOP: &str = "id: loop
title: Loop
steps:
  - id: work
    prompt: Work on {{ goal }}.
    notes: optional
    next:
      - {to: work, label: again, kind: loop}
      - {end: true, label: done}
limits:
  max_cycles: 100
";

struct World {
    runtime: Arc<Runtime>,
    store: Arc<SqliteStore>,
    started: StepResponse,
    _dir: tempfile::TempDir,
}

async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = common::sqlite_store(dir.path());
    let runtime = Arc::new(common::runtime_on(Arc::clone(&store) as Arc<dyn Store>));
    let file = dir.path().join("loop.yaml");
    std::fs::write(&file, LOOP).unwrap();
    let request = StartRequest { file: Some(file), goal: "race".to_owned(), ..StartRequest::default() };
    let started = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    World { runtime, store, started, _dir: dir }
}

fn again() -> AdvanceInput {
    AdvanceInput { choice: Some("again".to_owned()), ..AdvanceInput::default() }
}

/// Waits, without sleeping, until the writer has been handed `count` more requests.
async fn queued(store: &SqliteStore, before: u64, count: u64) {
    while store.write_stats().requests < before + count {
        tokio::task::yield_now().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_advance_decided_before_a_stop_commits_after_it_is_refused_and_writes_nothing() {
    let world = world().await;
    let token = world.started.tokens.continue_token.clone().unwrap();
    let run = world.started.run;
    let pause = world.store.pause_writes().await;
    let before = world.store.write_stats().requests;
    let stop = tokio::spawn({
        let runtime = Arc::clone(&world.runtime);
        async move { runtime.stop(run, Some("enough".to_owned())).await }
    });
    queued(&world.store, before, 1).await;
    let advance = tokio::spawn({
        let runtime = Arc::clone(&world.runtime);
        async move { runtime.advance(&token, Some(run), again()).await }
    });
    queued(&world.store, before, 2).await;
    drop(pause);
    stop.await.unwrap().expect("the stop commits");
    let refused = advance.await.unwrap().expect_err("the advance was decided on a running run");
    assert_eq!(refused.code(), "RUN_STOPPED", "decided again on the stopped run: {refused}");
    let nodes = world.runtime.run_nodes(run).await.unwrap();
    assert_eq!(nodes.len(), 1, "no node was created after the stop: {nodes:?}");
    let events = world.runtime.events(world.started.session, 0, 100).await.unwrap();
    let kinds: Vec<&str> = events.iter().map(|event| event.kind.name()).collect();
    assert_eq!(kinds.last(), Some(&"run_stopped"), "{kinds:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pause_decided_before_a_stop_commits_after_it_does_not_reopen_the_run() {
    let world = world().await;
    let run = world.started.run;
    let pause_writes = world.store.pause_writes().await;
    let before = world.store.write_stats().requests;
    let stop = tokio::spawn({
        let runtime = Arc::clone(&world.runtime);
        async move { runtime.stop(run, None).await }
    });
    queued(&world.store, before, 1).await;
    let pause = tokio::spawn({
        let runtime = Arc::clone(&world.runtime);
        async move { runtime.pause(run, None).await }
    });
    queued(&world.store, before, 2).await;
    drop(pause_writes);
    stop.await.unwrap().expect("the stop commits");
    let refused = pause.await.unwrap().expect_err("a stopped run cannot be paused");
    assert_eq!(refused.code(), "RUN_STOPPED", "{refused}");
    let record = world.runtime.run(&Target::Run(run)).await.unwrap();
    assert_eq!(record.control.as_str(), "stopped");
}

/// The other order is legal: an advance that commits before the stop stands.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_advance_that_commits_before_a_stop_stands() {
    let world = world().await;
    let token = world.started.tokens.continue_token.clone().unwrap();
    let run = world.started.run;
    let pause = world.store.pause_writes().await;
    let before = world.store.write_stats().requests;
    let advance = tokio::spawn({
        let runtime = Arc::clone(&world.runtime);
        async move { runtime.advance(&token, Some(run), again()).await }
    });
    queued(&world.store, before, 1).await;
    let stop = tokio::spawn({
        let runtime = Arc::clone(&world.runtime);
        async move { runtime.stop(run, None).await }
    });
    queued(&world.store, before, 2).await;
    drop(pause);
    advance.await.unwrap().expect("the advance commits first");
    stop.await.unwrap().expect("then the stop");
    assert_eq!(world.runtime.run_nodes(run).await.unwrap().len(), 2);
}
