//! What another store on the same file commits reaches this store's subscribers: two stores in one
//! process, and a real second process (this test binary run again as `an_appending_process`).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use switchyard_core::event::NodeCause;
use switchyard_core::state::RunStatus;
use switchyard_store::conformance::fixture::{SessionScript, node_id, session_id};
use switchyard_store::{Appended, Batch, Change, Changes, Store};
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};

const STORE_ENV: &str = "SWITCHYARD_APPENDING_STORE";

/// Generous: a change arrives in milliseconds; this only keeps a broken feed from hanging the run.
const PATIENCE: Duration = Duration::from_secs(10);

fn open(path: &Path) -> SqliteStore {
    SqliteStore::open(path, SqliteOptions::default()).expect("open the store")
}

async fn append(store: &SqliteStore, batch: Batch) -> Change {
    let session = batch.session;
    match store.append(batch).await.expect("append") {
        Appended::Committed { last_seq, .. } => Change { session, last_seq },
        other => panic!("expected a commit, got {other:?}"),
    }
}

async fn next(changes: &mut Changes) -> Change {
    tokio::time::timeout(PATIENCE, changes.recv())
        .await
        .expect("a change within the patience bound")
        .expect("a change, not a lag or a closed feed")
}

fn step(script: &mut SessionScript, node: u64, parent: u64) -> Batch {
    let event = script.node(node_id(node), Some(node_id(parent)), NodeCause::Advance, RunStatus::Active);
    script.claimed(vec![event], &format!("advance:{node}"), "sha", serde_json::json!({}))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_store_on_the_file_reaches_a_subscriber_that_writes_nothing() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("store.db");
    let watching = open(&path);
    let mut changes = watching.subscribe().await;
    assert!(watching.watches_other_processes());

    let other = open(&path);
    let committed = append(&other, SessionScript::new(1).start(node_id(101))).await;

    assert_eq!(next(&mut changes).await, committed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn own_commits_are_published_once_even_while_the_file_is_watched() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("store.db");
    let watching = open(&path);
    let mut changes = watching.subscribe().await;
    let other = open(&path);
    let mut own_script = SessionScript::new(1);
    let mut other_script = SessionScript::new(2);

    let own = append(&watching, own_script.start(node_id(101))).await;
    assert_eq!(next(&mut changes).await, own);
    // The other store's change comes next: the watcher, reading the file, left the own one out.
    let foreign = append(&other, other_script.start(node_id(201))).await;
    assert_eq!(next(&mut changes).await, foreign);

    let own = append(&watching, step(&mut own_script, 102, 101)).await;
    assert_eq!(next(&mut changes).await, own);
    let foreign = append(&other, step(&mut other_script, 202, 201)).await;
    assert_eq!(next(&mut changes).await, foreign);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_never_subscribes_watches_nothing() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let store = open(&folder.path().join("store.db"));
    append(&store, SessionScript::new(1).start(node_id(101))).await;
    assert!(!store.watches_other_processes());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_store_stops_its_watcher() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let store = open(&folder.path().join("store.db"));
    let mut changes = store.subscribe().await;
    drop(store);
    // The watcher holds a sender of the feed: a closed feed means its thread has ended.
    assert!(matches!(changes.try_recv(), Err(tokio::sync::broadcast::error::TryRecvError::Closed)));
}

#[test]
fn a_commit_in_another_process_reaches_a_subscriber() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("store.db");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let watching = open(&path);
        let mut changes = watching.subscribe().await;

        let exe = std::env::current_exe().expect("the test binary");
        let status = Command::new(exe)
            .args(["an_appending_process", "--exact", "--test-threads=1"])
            .env(STORE_ENV, &path)
            .status()
            .expect("starting the appending process");
        assert!(status.success(), "the appending process failed");

        let change = next(&mut changes).await;
        assert_eq!(change.session, session_id(7));
        assert_eq!(change.last_seq, 3, "the start batch holds three events");
    });
}

/// Run by `a_commit_in_another_process_reaches_a_subscriber` as the other process; alone, it
/// starts a session in a store of its own.
#[test]
fn an_appending_process() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = std::env::var_os(STORE_ENV).map_or_else(|| folder.path().join("store.db"), Into::into);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let change = runtime.block_on(append(&open(&path), SessionScript::new(7).start(node_id(701))));
    assert_eq!(change, Change { session: session_id(7), last_seq: 3 });
}
