//! SQLite-specific behaviour: tamper detection, corrupt rows, grouped commits, reopening,
//! schema versions and the busy error.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::Connection;
use switchyard_core::event::NodeCause;
use switchyard_core::state::RunStatus;
use switchyard_core::token::TokenKind;
use switchyard_store::conformance::fixture::{SessionScript, attempt_id, node_id, nonce, run_id, session_id, workflow};
use switchyard_store::conformance::{projections, write_varied_sessions};
use switchyard_store::event::chain_hash;
use switchyard_store::record::problem;
use switchyard_store::{Appended, Batch, Problem, SessionQuery, Store, VerifyReport};
use switchyard_store_sqlite::{INDEX_BATCH, SqliteOptions, SqliteStore};

fn open(path: &Path) -> SqliteStore {
    SqliteStore::open(path, SqliteOptions::default()).expect("the store opens")
}

fn raw(path: &Path) -> Connection {
    Connection::open(path).expect("a raw connection")
}

fn codes(report: &VerifyReport) -> Vec<&str> {
    report.problems.iter().map(|problem| problem.code.as_str()).collect()
}

fn find<'a>(report: &'a VerifyReport, code: &str) -> &'a Problem {
    report
        .problems
        .iter()
        .find(|problem| problem.code == code)
        .unwrap_or_else(|| panic!("no {code} in {:#?}", report.problems))
}

#[tokio::test]
async fn verify_names_the_session_and_seq_of_a_tampered_event() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = open(&path);
    write_varied_sessions(&store).await;
    let session = session_id(2).to_string();
    let changed = raw(&path)
        .execute(
            "UPDATE events SET body = replace(body, 'goal of session 2', 'a forged goal') WHERE session = ?1 AND seq = 1",
            [&session],
        )
        .unwrap();
    assert_eq!(changed, 1);

    let report = store.verify().await.unwrap();
    let altered = find(&report, problem::EVENT_HASH_MISMATCH);
    assert_eq!((altered.session, altered.seq), (Some(session_id(2)), Some(1)), "{altered}");
    let projection = find(&report, problem::PROJECTION_DIFFERS);
    assert_eq!(projection.session, Some(session_id(2)));
    assert!(projection.message.contains("sessions row") && projection.message.contains("`goal`"), "{projection}");
    assert!(report.problems.iter().all(|problem| problem.session == Some(session_id(2))), "{:#?}", report.problems);
    assert_eq!(codes(&report).len(), 2, "{:#?}", report.problems);
}

#[tokio::test]
async fn verify_reports_a_rehashed_event_as_a_broken_chain_and_a_deleted_one_as_a_gap() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = open(&path);
    write_varied_sessions(&store).await;
    let connection = raw(&path);
    // Forge seq 1 of session 1 and recompute its own hash: seq 2 no longer links to it.
    let (prev_hash, body): (String, String) = connection
        .query_row(
            "SELECT prev_hash, body FROM events WHERE session = ?1 AND seq = 1",
            [session_id(1).to_string()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap();
    let forged = body.replace("goal of session 1", "forged");
    connection
        .execute(
            "UPDATE events SET body = ?1, hash = ?2 WHERE session = ?3 AND seq = 1",
            (&forged, chain_hash(&prev_hash, forged.as_bytes()), session_id(1).to_string()),
        )
        .unwrap();
    connection.execute("DELETE FROM events WHERE session = ?1 AND seq = 3", [session_id(3).to_string()]).unwrap();

    let report = store.verify().await.unwrap();
    let broken = find(&report, problem::EVENT_CHAIN_BROKEN);
    assert_eq!((broken.session, broken.seq), (Some(session_id(1)), Some(2)), "{broken}");
    let gap = find(&report, problem::EVENT_SEQ_GAP);
    assert_eq!((gap.session, gap.seq), (Some(session_id(3)), Some(4)), "{gap}");
    assert!(!codes(&report).contains(&problem::EVENT_HASH_MISMATCH), "{:#?}", report.problems);
}

#[tokio::test]
async fn verify_names_the_table_row_and_field_of_a_tampered_projection_and_rebuild_repairs_it() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = open(&path);
    write_varied_sessions(&store).await;
    let before = projections(&store).await;
    raw(&path).execute("UPDATE runs SET status = 'failed' WHERE id = ?1", [run_id(1).to_string()]).unwrap();

    let report = store.verify().await.unwrap();
    let differs = find(&report, problem::PROJECTION_DIFFERS);
    assert_eq!(differs.session, Some(session_id(1)));
    let expected =
        format!("runs row {} field `status` is \"failed\" in the store, the events give \"paused\"", run_id(1));
    assert_eq!(differs.message, expected);
    assert_eq!(report.problems.len(), 1, "{:#?}", report.problems);

    store.rebuild_projections().await.unwrap();
    assert!(store.verify().await.unwrap().is_clean());
    assert_eq!(projections(&store).await, before, "rebuild restores the projections");
}

#[tokio::test]
async fn corrupt_rows_are_errors_and_problems_never_panics() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = open(&path);
    write_varied_sessions(&store).await;
    let connection = raw(&path);
    connection.execute("UPDATE nodes SET state = '{not json' WHERE id = ?1", [node_id(101).to_string()]).unwrap();
    connection.execute("UPDATE runs SET control = 'sideways' WHERE id = ?1", [run_id(2).to_string()]).unwrap();

    let error = store.node(node_id(101)).await.unwrap_err();
    assert_eq!(error.code(), "STORE_CORRUPT");
    assert!(error.to_string().contains(&format!("nodes row {} column `state`", node_id(101))), "{error}");
    assert_eq!(store.run_nodes(run_id(1)).await.unwrap_err().code(), "STORE_CORRUPT");
    let error = store.run(run_id(2)).await.unwrap_err();
    assert!(error.to_string().contains("unknown value `sideways`"), "{error}");

    let report = store.verify().await.unwrap();
    let unreadable: Vec<_> =
        report.problems.iter().filter(|problem| problem.code == problem::PROJECTION_UNREADABLE).collect();
    assert_eq!(unreadable.len(), 2, "{:#?}", report.problems);
    assert_eq!(report.problems.len(), 2, "an unreadable row is not also reported missing: {:#?}", report.problems);

    store.rebuild_projections().await.unwrap();
    assert!(store.verify().await.unwrap().is_clean());

    // A corrupt event body: reads and rebuild refuse it; rebuild leaves the projections alone.
    connection
        .execute("UPDATE events SET body = '[]' WHERE session = ?1 AND seq = 2", [session_id(1).to_string()])
        .unwrap();
    assert_eq!(store.events(session_id(1), 0, 100).await.unwrap_err().code(), "STORE_CORRUPT");
    let error = store.rebuild_projections().await.unwrap_err();
    assert_eq!(error.code(), "STORE_CORRUPT", "{error}");
    assert!(store.node(node_id(101)).await.unwrap().is_some(), "a failed rebuild rolls back");
    let report = store.verify().await.unwrap();
    let unreadable = find(&report, problem::EVENT_UNREADABLE);
    assert_eq!((unreadable.session, unreadable.seq), (Some(session_id(1)), Some(2)));
}

/// A pinned workflow whose stored IR was changed is refused, not run: the runtime keeps a loaded
/// workflow under the hash it asked the store for, and does not hash it again.
#[tokio::test]
async fn a_pinned_workflow_whose_ir_was_changed_is_refused() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = open(&path);
    store.append(SessionScript::new(1).start(node_id(101))).await.unwrap();
    let mut changed = workflow();
    changed.title = "Changed behind the store's back".to_owned();
    raw(&path).execute("UPDATE workflows SET ir = ?1", [serde_json::to_string(&changed).unwrap()]).unwrap();

    let error = store.workflow(workflow().hash()).await.unwrap_err();
    assert_eq!(error.code(), "STORE_CORRUPT");
    assert!(error.to_string().contains(&format!("the stored IR hashes to {}", changed.hash())), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_appends_are_grouped_into_fewer_commits() {
    const BATCHES: u64 = 32;
    let folder = tempfile::tempdir().unwrap();
    let store = Arc::new(open(&folder.path().join("store.db")));
    let before = store.write_stats();
    let pause = store.pause_writes().await;
    let mut tasks = tokio::task::JoinSet::new();
    for n in 1..=BATCHES {
        let store = Arc::clone(&store);
        tasks.spawn(async move {
            let mut script = SessionScript::new(n);
            store.append(script.start(node_id(n * 100 + 1))).await
        });
    }
    // Wait (without sleeping) until every request is queued behind the pause.
    while store.write_stats().requests < before.requests + BATCHES {
        tokio::task::yield_now().await;
    }
    drop(pause);
    while let Some(joined) = tasks.join_next().await {
        assert_eq!(joined.unwrap().unwrap(), Appended::Committed { first_seq: 1, last_seq: 3 });
    }
    let commits = store.write_stats().commits - before.commits;
    assert!(commits < BATCHES, "{BATCHES} queued appends took {commits} commits");
    assert_eq!(commits, 1, "everything queued goes into one transaction");
    assert_eq!(projections(&*store).await.sessions.len(), BATCHES as usize);
}

/// A request that finds the writer idle commits on its caller's thread, whatever runs it: a
/// current-thread runtime (stdio, the CLI), a task of a multi-threaded one (`serve`), the future
/// its `block_on` polls, a blocking thread. Requests that arrive while writes are paused wait for
/// the writer thread and commit there together. Then callers of every kind at once on one store:
/// each request commits whole, and the chains verify.
#[test]
fn a_request_commits_on_its_callers_thread_when_the_writer_is_idle() {
    const EACH: u64 = 20;
    async fn start(store: &SqliteStore, n: u64) -> Result<Appended, switchyard_store::Error> {
        let mut script = SessionScript::new(n);
        store.append(script.start(node_id(n * 100 + 1))).await
    }
    async fn one_after_another(store: &SqliteStore, sessions: std::ops::Range<u64>) {
        for n in sessions {
            assert!(matches!(start(store, n).await.unwrap(), Appended::Committed { first_seq: 1, last_seq: 3 }));
        }
    }
    let folder = tempfile::tempdir().unwrap();
    let store = Arc::new(open(&folder.path().join("store.db")));
    let current = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let multi = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let sessions = |round: u64| round * EACH..(round + 1) * EACH;
    let on_caller = |store: &SqliteStore| {
        let stats = store.write_stats();
        assert_eq!(stats.requests, stats.commits, "{stats:?}");
        stats.on_caller_thread
    };

    current.block_on(one_after_another(&store, sessions(0)));
    assert_eq!(on_caller(&store), EACH, "on a current-thread runtime");
    multi.block_on(async {
        let task = tokio::spawn({
            let store = Arc::clone(&store);
            async move { one_after_another(&store, sessions(1)).await }
        });
        task.await.unwrap();
    });
    assert_eq!(on_caller(&store), 2 * EACH, "in a task of a multi-threaded runtime");
    multi.block_on(one_after_another(&store, sessions(2)));
    assert_eq!(on_caller(&store), 3 * EACH, "in a multi-threaded runtime's `block_on`");
    multi.block_on(async {
        let store = Arc::clone(&store);
        let runtime = tokio::runtime::Handle::current();
        tokio::task::spawn_blocking(move || runtime.block_on(one_after_another(&store, sessions(3)))).await.unwrap();
    });
    assert_eq!(on_caller(&store), 4 * EACH, "on a blocking thread");

    let before = store.write_stats();
    multi.block_on(async {
        let pause = store.pause_writes().await;
        let mut tasks = tokio::task::JoinSet::new();
        for n in sessions(4) {
            let store = Arc::clone(&store);
            tasks.spawn(async move { start(&store, n).await });
        }
        while store.write_stats().requests < before.requests + EACH {
            tokio::task::yield_now().await;
        }
        drop(pause);
        while let Some(joined) = tasks.join_next().await {
            assert!(matches!(joined.unwrap().unwrap(), Appended::Committed { first_seq: 1, last_seq: 3 }));
        }
    });
    let after = store.write_stats();
    assert_eq!(after.on_caller_thread, before.on_caller_thread, "paused writes wait for the writer thread");
    assert_eq!(after.commits - before.commits, 1, "and commit there together");

    multi.block_on(async {
        let mut tasks = tokio::task::JoinSet::new();
        for n in sessions(5) {
            let store = Arc::clone(&store);
            tasks.spawn(async move { start(&store, n).await });
        }
        one_after_another(&store, sessions(6)).await;
        while let Some(joined) = tasks.join_next().await {
            assert!(matches!(joined.unwrap().unwrap(), Appended::Committed { first_seq: 1, last_seq: 3 }));
        }
    });
    assert_eq!(store.write_stats().requests, 7 * EACH);
    current.block_on(async {
        assert_eq!(projections(&*store).await.sessions.len(), 7 * EACH as usize);
        assert!(store.verify().await.unwrap().is_clean());
    });
}

/// A group first runs straight into its transaction; when a request fails there, part of its rows
/// may be written, and the group runs again, each request in a savepoint. Wherever the failing
/// request stands in the group, the others commit whole and it leaves no row behind.
#[tokio::test]
async fn one_failing_batch_in_a_group_does_not_undo_the_others() {
    for failing_at in 0..3 {
        let folder = tempfile::tempdir().unwrap();
        let store = Arc::new(open(&folder.path().join("store.db")));
        let pause = store.pause_writes().await;
        let mut tasks = Vec::new();
        let mut sessions = Vec::new();
        for position in 0..3 {
            let mut script = SessionScript::new(position + 1);
            let node = node_id((position + 1) * 100 + 1);
            // A node created with no session started: its event row goes in, then the
            // projection refuses it.
            let batch = if position == failing_at {
                Batch::events(script.session, vec![script.node(node, None, NodeCause::Start, RunStatus::Active)])
            } else {
                script.start(node)
            };
            sessions.push(script.session);
            tasks.push(tokio::spawn({
                let store = Arc::clone(&store);
                async move { store.append(batch).await }
            }));
            // Queued in this order, so the group runs them in this order.
            while store.write_stats().requests < position + 1 {
                tokio::task::yield_now().await;
            }
        }
        drop(pause);
        for (position, task) in tasks.into_iter().enumerate() {
            let answer = task.await.unwrap();
            let session = sessions[position];
            if position as u64 == failing_at {
                assert_eq!(answer.unwrap_err().code(), "STORE_INVALID_BATCH", "failing at {failing_at}");
                assert!(store.session(session).await.unwrap().is_none());
                assert!(store.events(session, 0, 10).await.unwrap().is_empty(), "failing at {failing_at}");
            } else {
                assert!(matches!(answer, Ok(Appended::Committed { .. })), "failing at {failing_at}: {answer:?}");
                assert!(store.session(session).await.unwrap().is_some());
                assert_eq!(store.events(session, 0, 10).await.unwrap().len(), 3);
            }
        }
        assert_eq!(store.write_stats().commits, 1, "the group committed in one transaction");
        assert!(store.verify().await.unwrap().is_clean());
    }
}

#[tokio::test]
async fn reopening_a_file_keeps_everything() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = open(&path);
    write_varied_sessions(&store).await;
    let mut script = SessionScript::new(9);
    let mut batch = script.start(node_id(901));
    batch.tokens.push(script.token(nonce(1), TokenKind::Continue, node_id(901), None));
    batch.claim = Some(switchyard_store::Claim {
        key: "start:9".to_owned(),
        payload_sha256: "sha".to_owned(),
        outcome: serde_json::json!({"ok": true}),
    });
    store.append(batch).await.unwrap();
    let projections_before = projections(&store).await;
    let events_before = store.events(script.session, 0, 100).await.unwrap();
    drop(store);

    let store = open(&path);
    assert_eq!(projections(&store).await, projections_before);
    assert_eq!(store.events(script.session, 0, 100).await.unwrap(), events_before);
    assert_eq!(store.token(nonce(1)).await.unwrap().map(|token| token.node), Some(node_id(901)));
    assert_eq!(
        store.recorded(script.session, "start:9").await.unwrap().map(|claim| claim.outcome),
        Some(serde_json::json!({"ok": true}))
    );
    assert_eq!(store.workflow(workflow().hash()).await.unwrap(), Some(workflow()));
    assert!(store.verify().await.unwrap().is_clean());
    let next = script.node(node_id(902), Some(node_id(901)), NodeCause::Advance, RunStatus::Active);
    assert_eq!(
        store.append(Batch::events(script.session, vec![next])).await.unwrap(),
        Appended::Committed { first_seq: 4, last_seq: 4 },
        "the chain continues after reopening"
    );
    assert!(store.verify().await.unwrap().is_clean());
}

/// The names of the schema's tables and indexes that match `condition`, in order, read through a
/// connection of the test's own.
fn schema_names(path: &Path, condition: &str) -> Vec<String> {
    let connection = raw(path);
    let mut statement =
        connection.prepare(&format!("SELECT name FROM sqlite_master WHERE {condition} ORDER BY name")).unwrap();
    statement.query_map([], |row| row.get(0)).unwrap().map(Result::unwrap).collect()
}

/// A store file in `folder` holding one started session, closed again, so a test can change it
/// as an older build would have left it.
async fn closed_store_with_one_session(folder: &Path) -> (PathBuf, SessionScript) {
    let path = folder.join("store.db");
    let store = open(&path);
    let mut script = SessionScript::new(9);
    store.append(script.start(node_id(901))).await.unwrap();
    drop(store);
    (path, script)
}

/// How many recorded texts the store at `path` holds that its text index does not yet.
fn texts_waiting(path: &Path) -> i64 {
    raw(path)
        .query_row("SELECT (SELECT coalesce(max(id), 0) FROM texts) - upto FROM texts_indexed", [], |row| row.get(0))
        .unwrap()
}

/// The text index takes recorded texts in batches: an append records its text and leaves it
/// waiting until [`INDEX_BATCH`] wait, and that append indexes them all. A search still finds
/// every text, the newest included, and a writer that closes indexes what waits.
#[tokio::test]
async fn texts_wait_for_the_index_in_batches_and_every_search_finds_them() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = open(&path);
    // Each session's start records one text, its goal: "goal of session N".
    let start = |n: u64| {
        let mut script = SessionScript::new(n);
        let batch = script.start(node_id(1_000 + n));
        (script.session, batch)
    };
    for n in 1..INDEX_BATCH as u64 {
        store.append(start(n).1).await.unwrap();
    }
    assert_eq!(texts_waiting(&path), INDEX_BATCH - 1, "the texts wait for a batch");
    store.append(start(INDEX_BATCH as u64).1).await.unwrap();
    assert_eq!(texts_waiting(&path), 0, "the append that makes a batch indexes it");

    let (newest, batch) = start(INDEX_BATCH as u64 + 2);
    store.append(start(INDEX_BATCH as u64 + 1).1).await.unwrap();
    store.append(batch).await.unwrap();
    assert_eq!(texts_waiting(&path), 2);
    let search = |text: &str| switchyard_store::SearchQuery { text: text.to_owned(), limit: 5, workspace: None };
    let hits = store.search_sessions(search(&format!("{}", INDEX_BATCH + 2))).await.unwrap();
    assert_eq!(hits.iter().map(|hit| hit.session).collect::<Vec<_>>(), [newest], "the newest text is found: {hits:?}");
    assert_eq!(texts_waiting(&path), 0, "a search has the waiting texts indexed first");
    assert_eq!(store.search_sessions(search("goal")).await.unwrap().len(), 5, "every text is indexed once");

    store.append(start(INDEX_BATCH as u64 + 3).1).await.unwrap();
    assert_eq!(texts_waiting(&path), 1);
    drop(store);
    assert_eq!(texts_waiting(&path), 0, "a closing writer indexes the texts still waiting");
}

/// Another store on the same file (another process, as far as SQLite can tell) finds the texts
/// this one left waiting: the mark of what is indexed lives in the file, not in a process.
#[tokio::test]
async fn a_search_finds_texts_another_writer_left_waiting() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let (first, second) = (open(&path), open(&path));
    let mut script = SessionScript::new(7);
    first.append(script.start(node_id(701))).await.unwrap();
    assert_eq!(texts_waiting(&path), 1);
    let query = switchyard_store::SearchQuery { text: "goal".to_owned(), limit: 5, workspace: None };
    let hits = second.search_sessions(query).await.unwrap();
    assert_eq!(hits.iter().map(|hit| hit.session).collect::<Vec<_>>(), [script.session]);
    assert_eq!(texts_waiting(&path), 0);
}

/// Stores made before the text index stemmed words, or while it kept each text's size, get it
/// rebuilt from the texts on open, as this build makes it.
#[tokio::test]
async fn an_older_text_index_is_rebuilt_on_open() {
    for (older, tokenize) in
        [("before stemming", "unicode61 remove_diacritics 2"), ("with sizes", "porter unicode61 remove_diacritics 2")]
    {
        let folder = tempfile::tempdir().unwrap();
        let (path, script) = closed_store_with_one_session(folder.path()).await;
        raw(&path)
            .execute_batch(&format!(
                "DROP TABLE texts_search;
                CREATE VIRTUAL TABLE texts_search USING fts5 (
                    body, content = 'texts', content_rowid = 'id', tokenize = '{tokenize}'
                );
                INSERT INTO texts_search (texts_search) VALUES ('rebuild');"
            ))
            .unwrap();
        let tables = |path: &Path| schema_names(path, "name LIKE 'texts_search%'");
        assert!(tables(&path).contains(&"texts_search_docsize".to_owned()), "{older}: {:?}", tables(&path));

        let store = open(&path);
        let search = |text: &str| switchyard_store::SearchQuery { text: text.to_owned(), limit: 5, workspace: None };
        let hits = store.search_sessions(search("sessions")).await.unwrap();
        assert_eq!(
            hits.iter().map(|hit| hit.session).collect::<Vec<_>>(),
            [script.session],
            "{older}, stemmed: {hits:?}"
        );
        assert_eq!(
            store.search_sessions(search("goal")).await.unwrap().len(),
            1,
            "{older}: the texts are all indexed again"
        );
        assert!(hits[0].snippet.contains('['), "{older}: a snippet marks the words it matched: {hits:?}");
        assert!(!tables(&path).contains(&"texts_search_docsize".to_owned()), "{older}: {:?}", tables(&path));
        let sql: String = raw(&path)
            .query_row("SELECT sql FROM sqlite_master WHERE name = 'texts_search'", [], |row| row.get(0))
            .unwrap();
        assert!(sql.contains("porter") && sql.contains("columnsize = 0"), "{older}: {sql}");
    }
}

/// Stores made before the session lookup indexes get them on open, over the rows already there.
#[tokio::test]
async fn session_lookup_indexes_are_added_to_an_older_store_on_open() {
    let folder = tempfile::tempdir().unwrap();
    let (path, script) = closed_store_with_one_session(folder.path()).await;
    let indexes = |path: &Path| {
        schema_names(
            path,
            "type = 'index' AND name IN ('sessions_by_workspace', 'sessions_by_branch', 'sessions_by_head')",
        )
    };
    assert_eq!(indexes(&path).len(), 3, "a new store has them");
    raw(&path)
        .execute_batch("DROP INDEX sessions_by_workspace; DROP INDEX sessions_by_branch; DROP INDEX sessions_by_head;")
        .unwrap();

    let store = open(&path);
    assert_eq!(indexes(&path), ["sessions_by_branch", "sessions_by_head", "sessions_by_workspace"]);
    let query = SessionQuery { git_branch: Some("main".to_owned()), ..SessionQuery::default() };
    let found = store.list_sessions(query).await.unwrap();
    assert_eq!(found.iter().map(|record| record.id).collect::<Vec<_>>(), [script.session], "indexed over old rows");
}

/// Regression: read-only connections closed last left the WAL behind, so it grew with every
/// process and every open re-read all of it (open cost grew with the store's history).
#[tokio::test]
async fn closing_the_store_folds_the_wal_back_into_the_database() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let wal = folder.path().join("store.db-wal");
    for round in 0..3 {
        let store = open(&path);
        if round == 0 {
            write_varied_sessions(&store).await;
        } else {
            store.rebuild_projections().await.unwrap();
        }
        // Reads check out pooled connections, as every command does.
        let _ = store.list_sessions(SessionQuery::default()).await.unwrap();
        assert!(wal.exists(), "round {round}: the store runs in WAL mode");
        drop(store);
        let left = std::fs::metadata(&wal).map(|metadata| metadata.len()).unwrap_or(0);
        assert_eq!(left, 0, "round {round}: {left} bytes of WAL left after closing");
    }
    assert!(open(&path).verify().await.unwrap().is_clean());
}

#[tokio::test]
async fn a_newer_schema_is_refused_with_advice() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    drop(open(&path));
    raw(&path).execute("UPDATE schema_version SET version = 99", []).unwrap();
    let error = SqliteStore::open(&path, SqliteOptions::default()).unwrap_err();
    assert_eq!(error.code(), "STORE_SCHEMA_TOO_NEW");
    assert!(error.to_string().contains("upgrade switchyard"), "{error}");
}

#[tokio::test]
async fn a_held_write_lock_gives_store_busy_and_clears() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let options = SqliteOptions { busy_timeout: Duration::from_millis(50), ..SqliteOptions::default() };
    let store = SqliteStore::open(&path, options).unwrap();
    let other_process = raw(&path);
    other_process.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut script = SessionScript::new(1);
    let error = store.append(script.start(node_id(101))).await.unwrap_err();
    assert_eq!(error.code(), "STORE_BUSY");
    assert!(error.is_retryable() && error.to_string().contains("retry"), "{error}");
    other_process.execute_batch("COMMIT").unwrap();
    let mut script = SessionScript::new(1);
    assert!(matches!(store.append(script.start(node_id(101))).await.unwrap(), Appended::Committed { .. }));
}

/// The writer's connection has no automatic checkpoint: a background thread copies the bulk of a
/// long WAL, and the writer the few frames committed meanwhile, so the WAL starts over. Without
/// both, the WAL would hold every page ever written: about thirty per commit here, over forty
/// thousand frames in all. And each WAL is checkpointed about once: checkpointing after every
/// commit once the WAL is long, as the first version did, made one pass for every other commit,
/// each syncing both files.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn checkpoints_keep_the_wal_short_under_a_writer_that_never_pauses() {
    const SESSIONS: u64 = 1500;
    const FRAME_BYTES: u64 = 4096 + 24;
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = open(&path);
    for n in 1..=SESSIONS {
        let mut script = SessionScript::new(n);
        store.append(script.start(node_id(n * 100 + 1))).await.unwrap();
    }
    let frames_in_wal = std::fs::metadata(folder.path().join("store.db-wal")).unwrap().len() / FRAME_BYTES;
    assert!(frames_in_wal < 5000, "the WAL holds {frames_in_wal} frames after {SESSIONS} commits");
    let stats = store.write_stats();
    // The test's body is outside the runtime's tasks, so each commit ran on its thread: the
    // checkpoint cycle follows the connection to whichever thread commits.
    assert_eq!(stats.on_caller_thread, SESSIONS, "{stats:?}");
    assert!(stats.background_checkpoints > 0 && stats.inline_checkpoints > 0, "{stats:?}");
    let checkpoints = stats.background_checkpoints + stats.inline_checkpoints;
    assert!(checkpoints * 10 < stats.commits, "{checkpoints} checkpoints for {} commits: {stats:?}", stats.commits);
    assert!(store.verify().await.unwrap().is_clean());
}

/// An advance of `script`'s run from node `from` to node `to`: the advance and the new node.
fn advance(script: &mut SessionScript, from: u64, to: u64) -> Batch {
    let events = vec![
        script.advanced(node_id(from), attempt_id(from), node_id(to), format!("from {from} to {to}")),
        script.node(node_id(to), Some(node_id(from)), NodeCause::Advance, RunStatus::Active),
    ];
    Batch::events(script.session, events)
}

/// Two stores on one file (as two processes would be) advancing the same run in turns each chain
/// onto what the other wrote, with projections that match the log.
#[tokio::test]
async fn two_writers_on_one_file_each_build_on_what_the_other_wrote() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let (one, other) = (open(&path), open(&path));
    let mut script = SessionScript::new(1);
    one.append(script.start(node_id(101))).await.unwrap();
    for step in 0..6 {
        let (from, to) = (101 + step, 102 + step);
        let writer = if step % 2 == 0 { &one } else { &other };
        let appended = writer.append(advance(&mut script, from, to)).await.unwrap();
        assert!(matches!(appended, Appended::Committed { last_seq, .. } if last_seq == 5 + 2 * step), "{appended:?}");
    }
    for store in [&one, &other] {
        let run = store.run(script.run).await.unwrap().unwrap();
        assert_eq!((run.tip, run.node_count), (node_id(107), 7));
        assert_eq!(store.node(node_id(106)).await.unwrap().unwrap().child_count, 1);
        assert_eq!(store.session(script.session).await.unwrap().unwrap().last_seq, 15);
        assert!(store.verify().await.unwrap().is_clean());
    }
}

/// A request that fails after writing its rows leaves none of them remembered: the next append
/// to the same session chains onto the file's last event, not onto the rolled-back one.
#[tokio::test]
async fn a_failed_append_leaves_nothing_behind_for_the_next() {
    let folder = tempfile::tempdir().unwrap();
    let store = open(&folder.path().join("store.db"));
    let mut script = SessionScript::new(1);
    let mut start = script.start(node_id(101));
    start.tokens.push(script.token(nonce(1), TokenKind::Continue, node_id(101), Some(attempt_id(1))));
    store.append(start).await.unwrap();
    // Events and projections are written before the tokens; a nonce already taken fails it.
    let mut failing = advance(&mut script, 101, 102);
    failing.tokens.push(script.token(nonce(1), TokenKind::Continue, node_id(102), Some(attempt_id(2))));
    assert_eq!(store.append(failing).await.unwrap_err().code(), "STORE_CONFLICT");
    let appended = store.append(advance(&mut script, 101, 103)).await.unwrap();
    assert!(matches!(appended, Appended::Committed { first_seq: 4, last_seq: 5 }), "{appended:?}");
    let run = store.run(script.run).await.unwrap().unwrap();
    assert_eq!((run.tip, run.node_count), (node_id(103), 2));
    assert!(store.node(node_id(102)).await.unwrap().is_none());
    assert!(store.verify().await.unwrap().is_clean());
}

/// Openers racing on a store that does not exist yet all open it: the switch to WAL, which SQLite
/// refuses at once (without its busy handler) while another connection holds the file, waits its
/// turn instead of failing with `STORE_BUSY`.
#[test]
fn openers_racing_on_a_new_store_all_open_it() {
    for round in 0..20 {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("switchyard.sqlite3");
        let barrier = Arc::new(std::sync::Barrier::new(12));
        let openers: Vec<_> = (0..12)
            .map(|_| {
                let (path, barrier) = (path.clone(), Arc::clone(&barrier));
                std::thread::spawn(move || {
                    barrier.wait();
                    SqliteStore::open(&path, SqliteOptions::default()).map(drop)
                })
            })
            .collect();
        for opener in openers {
            let opened = opener.join().unwrap();
            assert!(opened.is_ok(), "round {round}: {:?}", opened.err());
        }
    }
}
