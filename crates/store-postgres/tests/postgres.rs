//! The Postgres store beyond the shared contract, against a real server: changes committed by
//! another store (another server) reach subscribers, and a listener cut off says so when back; several stores racing one session keep the
//! chain whole and advance a claim once; schema migrations; and the bad conditions (server down,
//! read-only server, pool exhausted, connection lost mid-batch).

mod common;

use std::sync::Arc;
use std::time::Duration;

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::id::EventId;
use switchyard_core::state::RunStatus;
use switchyard_store::conformance::{
    self,
    fixture::{SessionScript, node_id, workflow},
};
use switchyard_store::{Appended, Batch, Change, Changes, NewEvent, RecvError, SearchQuery, Store};
use switchyard_store_postgres::{PostgresOptions, PostgresStore, SCHEMA_VERSION, schema_v1};

use common::TestDatabase;

async fn open(database: &TestDatabase) -> PostgresStore {
    PostgresStore::open(&database.url, PostgresOptions::default()).await.expect("opening the store")
}

/// A checkpoint on the script's run with an event id no other writer uses.
fn checkpoint(script: &SessionScript, writer: u64, index: u64) -> NewEvent {
    let mut id = [7u8; 16];
    id[..8].copy_from_slice(&writer.to_be_bytes());
    id[8..].copy_from_slice(&index.to_be_bytes());
    NewEvent {
        id: EventId::from_bytes(id),
        run: Some(script.run),
        at_ms: 1_700_000_100_000,
        kind: EventKind::CheckpointRecorded {
            node: node_id(101),
            attempt: None,
            notes: Some(format!("writer {writer} checkpoint {index}")),
            automatic: false,
            phase: None,
        },
    }
}

async fn event_count(database: &TestDatabase) -> i64 {
    database.client().await.query_one("SELECT count(*) FROM events", &[]).await.unwrap().get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_through_one_server_reaches_the_subscribers_of_another() {
    let database = TestDatabase::create().await;
    let (server_a, server_b) = (open(&database).await, open(&database).await);
    let mut changes = server_a.subscribe().await;
    server_a.listening().await;
    let mut script = SessionScript::new(1);
    server_b.append(script.start(node_id(101))).await.expect("append through server B");
    let change = tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("server A hears server B's commit within 10 s")
        .expect("the feed is open");
    assert_eq!(change, Change { session: script.session, last_seq: 3 });
    drop((server_a, server_b));
    database.drop_now().await;
}

/// What a subscriber hears next, within 10 s.
async fn heard(changes: &mut Changes) -> Result<Change, RecvError> {
    tokio::time::timeout(Duration::from_secs(10), changes.recv()).await.expect("the subscriber hears within 10 s")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listener_that_lost_its_connection_tells_subscribers_to_read_everything_again() {
    let database = TestDatabase::create().await;
    let (server_a, server_b) = (open(&database).await, open(&database).await);
    let mut changes = server_a.subscribe().await;
    server_a.listening().await;
    // Server A's listener is cut off; what commits before it listens again is never notified to it.
    let admin = database.client().await;
    let cut: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE datname = current_database() AND query LIKE 'LISTEN %'",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(cut, 1, "one listener: server A's");
    let mut script = SessionScript::new(1);
    server_b.append(script.start(node_id(101))).await.expect("append through server B");
    // Either the commit landed before the cut reached the listener, or it fell in the gap; the gap
    // is told to the subscriber as a lag once the listener is back, whatever happened.
    let mut first = heard(&mut changes).await;
    if first == Ok(Change { session: script.session, last_seq: 3 }) {
        first = heard(&mut changes).await;
    }
    assert_eq!(first, Err(RecvError::Lagged(0)), "the reconnected listener reports its gap");
    // And it hears again. A listener back before the first commit landed also heard that commit,
    // after the gap it reported.
    let advance = vec![script.node(node_id(102), Some(node_id(101)), NodeCause::Advance, RunStatus::Active)];
    server_b.append(Batch::events(script.session, advance)).await.expect("advance through server B");
    let mut next = heard(&mut changes).await;
    if next == Ok(Change { session: script.session, last_seq: 3 }) {
        next = heard(&mut changes).await;
    }
    assert_eq!(next, Ok(Change { session: script.session, last_seq: 4 }));
    drop((server_a, server_b, admin));
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_racing_one_session_keep_the_chain_whole_and_advance_a_claim_once() {
    const SERVERS: usize = 3;
    const WRITERS_PER_SERVER: u64 = 6;
    const BATCHES: u64 = 5;
    let database = TestDatabase::create().await;
    let mut servers = Vec::new();
    for _ in 0..SERVERS {
        servers.push(Arc::new(open(&database).await));
    }
    let mut script = SessionScript::new(1);
    servers[0].append(script.start(node_id(101))).await.expect("starting the session");
    let raced = {
        let mut racer = script.clone();
        let advance = vec![racer.node(node_id(102), Some(node_id(101)), NodeCause::Advance, RunStatus::Active)];
        racer.claimed(advance, "advance:raced", "sha", serde_json::json!("first"))
    };
    let writers = SERVERS as u64 * WRITERS_PER_SERVER;
    let barrier = Arc::new(tokio::sync::Barrier::new(writers as usize));
    let mut tasks = Vec::new();
    for writer in 0..writers {
        let server = Arc::clone(&servers[(writer as usize) % SERVERS]);
        let (script, raced, barrier) = (script.clone(), raced.clone(), Arc::clone(&barrier));
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            let claim = server.append(raced).await.expect("racing the claim");
            for index in 0..BATCHES {
                let batch = Batch::events(script.session, vec![checkpoint(&script, writer, index)]);
                server.append(batch).await.expect("appending a checkpoint");
            }
            matches!(claim, Appended::Committed { .. })
        }));
    }
    let mut committed = 0;
    for task in tasks {
        committed += usize::from(task.await.expect("a writer"));
    }
    assert_eq!(committed, 1, "exactly one of {writers} racing appends of one claim commits");
    let events = servers[1].events(script.session, 0, u32::MAX).await.expect("events");
    let expected = 3 + 1 + writers * BATCHES;
    assert_eq!(events.len() as u64, expected, "every committed batch is stored once");
    for (index, event) in events.iter().enumerate() {
        assert_eq!(event.seq, index as u64 + 1, "sequence numbers are gap-free");
    }
    for server in &servers {
        let report = server.verify().await.expect("verify");
        assert!(report.is_clean(), "the chain and projections verify: {:?}", report.problems);
    }
    drop(servers);
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_made_by_schema_version_1_is_migrated_on_open() {
    let database = TestDatabase::create().await;
    let client = database.client().await;
    client.batch_execute(schema_v1()).await.expect("the version 1 tables");
    client
        .batch_execute(
            "CREATE TABLE switchyard_schema (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), version BIGINT NOT NULL);
             INSERT INTO switchyard_schema VALUES (1, 1);",
        )
        .await
        .unwrap();
    let store = open(&database).await;
    let version: i64 = client.query_one("SELECT version FROM switchyard_schema", &[]).await.unwrap().get(0);
    assert_eq!(version, SCHEMA_VERSION);
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.expect("appending after the migration");
    drop(store);

    // A version 1 store that holds sessions: its text index is filled from the stored events.
    client
        .batch_execute(
            "DROP TABLE text_words; DROP TABLE texts; DROP TEXT SEARCH CONFIGURATION switchyard_search;
             DROP TEXT SEARCH DICTIONARY switchyard_stem; UPDATE switchyard_schema SET version = 1;",
        )
        .await
        .unwrap();
    let store = open(&database).await;
    let query = SearchQuery { text: "goal".to_owned(), limit: 5, workspace: None };
    let hits = store.search_sessions(query).await.expect("search after the migration");
    assert_eq!(hits.iter().map(|hit| hit.session).collect::<Vec<_>>(), vec![script.session]);
    assert!(store.verify().await.unwrap().is_clean());
    drop((store, client));
    database.drop_now().await;
}

/// Version 3 keyed claims by key alone, with an index by session: migrated to version 4, each
/// claim is found under its session, copies and replays, the key is (session, key), and the index
/// is gone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_3_store_keeps_its_claims_under_their_sessions() {
    let database = TestDatabase::create().await;
    let store = open(&database).await;
    let mut scripts = conformance::sessions_with_claims(&store, 3).await;
    drop(store);
    // As a server of version 3 leaves it.
    let client = database.client().await;
    client
        .batch_execute(
            "ALTER TABLE claims DROP CONSTRAINT claims_key;
             ALTER TABLE claims ADD CONSTRAINT claims_key PRIMARY KEY (key);
             CREATE INDEX claims_by_session ON claims (session);
             UPDATE switchyard_schema SET version = 3;",
        )
        .await
        .unwrap();

    let store = open(&database).await;
    let version: i64 = client.query_one("SELECT version FROM switchyard_schema", &[]).await.unwrap().get(0);
    assert_eq!(version, SCHEMA_VERSION);
    conformance::claims_are_kept(&store, &mut scripts).await;
    let key: Vec<String> = client
        .query(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
             WHERE i.indrelid = 'claims'::regclass AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect();
    assert_eq!(key, ["session", "key"]);
    let index: Option<String> =
        client.query_one("SELECT to_regclass('claims_by_session')::text", &[]).await.unwrap().get(0);
    assert_eq!(index, None, "the index by session is dropped");
    drop((store, client));
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_schema_newer_than_the_build_is_refused() {
    let database = TestDatabase::create().await;
    drop(open(&database).await);
    database.client().await.batch_execute("UPDATE switchyard_schema SET version = 99").await.unwrap();
    let error = PostgresStore::open(&database.url, PostgresOptions::default()).await.unwrap_err();
    assert_eq!(error.code(), "STORE_SCHEMA_TOO_NEW", "{error}");
    assert!(error.to_string().contains("99"), "{error}");
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_is_down_is_a_clear_retryable_error_without_the_password() {
    // Nothing listens on port 1 of the loopback address.
    let url = "postgres://switchyard:s3cret-word@127.0.0.1:1/teamstore";
    let options = PostgresOptions { connect_timeout: Duration::from_secs(5), ..PostgresOptions::default() };
    let error = PostgresStore::open(url, options).await.unwrap_err();
    let message = error.to_string();
    assert_eq!(error.code(), "STORE_UNAVAILABLE", "{message}");
    assert!(error.is_retryable());
    assert!(message.contains("switchyard@127.0.0.1:1/teamstore"), "names user, host, port and database: {message}");
    assert!(!message.contains("s3cret-word"), "never the password: {message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_server_is_refused_at_open() {
    let database = TestDatabase::create().await;
    let alter = format!("ALTER DATABASE {} SET default_transaction_read_only = on", database.name);
    database.client().await.batch_execute(&alter).await.unwrap();
    let error = PostgresStore::open(&database.url, PostgresOptions::default()).await.unwrap_err();
    assert_eq!(error.code(), "STORE_READ_ONLY", "{error}");
    assert!(error.to_string().contains("default_transaction_read_only"), "{error}");
    assert!(error.to_string().contains(&database.name), "{error}");
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exhausted_pool_waits_a_bounded_time_then_answers_busy() {
    let database = TestDatabase::create().await;
    let options =
        PostgresOptions { pool_size: 1, wait_timeout: Duration::from_millis(200), ..PostgresOptions::default() };
    let store = PostgresStore::open(&database.url, options).await.unwrap();
    let mut script = SessionScript::new(1);
    // Polled once, the append takes the pool's only connection and waits on the server.
    let mut holding = Box::pin(store.append(script.start(node_id(101))));
    let pending =
        std::future::poll_fn(|context| std::task::Poll::Ready(holding.as_mut().poll(context).is_pending())).await;
    assert!(pending, "the append is under way on the only connection");
    let error = store.session(script.session).await.unwrap_err();
    assert_eq!(error.code(), "STORE_BUSY", "{error}");
    assert!(error.is_retryable());
    assert!(error.to_string().contains("200 ms"), "{error}");
    assert!(matches!(holding.await.expect("the held append finishes"), Appended::Committed { .. }));
    assert!(store.session(script.session).await.unwrap().is_some(), "the connection is free again");
    drop(store);
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_lost_mid_batch_writes_nothing_and_the_retry_commits_once() {
    let database = TestDatabase::create().await;
    let store = open(&database).await;
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.unwrap();
    // The server terminates the appending backend in the middle of the batch: after its events,
    // projections and texts are written, when its claim is inserted.
    let admin = database.client().await;
    admin
        .batch_execute(
            "CREATE FUNCTION terminate_on_claim() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NEW; END $$;
             CREATE TRIGGER terminate_on_claim BEFORE INSERT ON claims FOR EACH ROW EXECUTE FUNCTION terminate_on_claim();",
        )
        .await
        .unwrap();
    let advance = vec![script.node(node_id(102), Some(node_id(101)), NodeCause::Advance, RunStatus::Active)];
    let batch = script.claimed(advance, "advance:lost", "sha", serde_json::json!(1));
    let error = store.append(batch.clone()).await.unwrap_err();
    assert_eq!(error.code(), "STORE_UNAVAILABLE", "{error}");
    assert!(error.is_retryable(), "{error}");
    assert_eq!(event_count(&database).await, 3, "nothing of the cut batch is stored");
    assert!(store.recorded(script.session, "advance:lost").await.unwrap().is_none());
    assert!(store.verify().await.unwrap().is_clean());

    admin.batch_execute("DROP TRIGGER terminate_on_claim ON claims").await.unwrap();
    assert_eq!(store.append(batch.clone()).await.unwrap(), Appended::Committed { first_seq: 4, last_seq: 4 });
    assert!(matches!(store.append(batch).await.unwrap(), Appended::AlreadyRecorded(_)), "a second retry replays");
    assert!(store.verify().await.unwrap().is_clean());
    drop((store, admin));
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_finds_an_altered_event_and_a_head_out_of_step_and_a_rebuild_mends_the_head() {
    let database = TestDatabase::create().await;
    let store = open(&database).await;
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.unwrap();
    let admin = database.client().await;
    admin.batch_execute("UPDATE heads SET seq = 2").await.unwrap();
    let report = store.verify().await.unwrap();
    let codes: Vec<&str> = report.problems.iter().map(|problem| problem.code.as_str()).collect();
    assert_eq!(codes, ["PROJECTION_DIFFERS"], "{:?}", report.problems);
    assert!(report.problems[0].message.contains("heads row"), "{}", report.problems[0]);
    store.rebuild_projections().await.unwrap();
    assert!(store.verify().await.unwrap().is_clean(), "the rebuild rewrote the head from the events");

    admin.batch_execute("UPDATE events SET body = replace(body, 'goal of', 'gaol of') WHERE seq = 1").await.unwrap();
    let report = store.verify().await.unwrap();
    assert!(
        report.problems.iter().any(|problem| problem.code == "EVENT_HASH_MISMATCH" && problem.seq == Some(1)),
        "{:?}",
        report.problems
    );
    drop((store, admin));
    database.drop_now().await;
}

/// A pinned workflow whose stored IR was changed is refused, not run: the runtime keeps a loaded
/// workflow under the hash it asked the store for, and does not hash it again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pinned_workflow_whose_ir_was_changed_is_refused() {
    let database = TestDatabase::create().await;
    let store = open(&database).await;
    store.append(SessionScript::new(1).start(node_id(101))).await.unwrap();
    let mut changed = workflow();
    changed.title = "Changed behind the store's back".to_owned();
    let admin = database.client().await;
    admin.execute("UPDATE workflows SET ir = $1", &[&serde_json::to_string(&changed).unwrap()]).await.unwrap();

    let error = store.workflow(workflow().hash()).await.unwrap_err();
    assert_eq!(error.code(), "STORE_CORRUPT");
    assert!(error.to_string().contains(&format!("the stored IR hashes to {}", changed.hash())), "{error}");
    drop((store, admin));
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn backends_terminated_by_another_connection_leave_whole_batches_and_retries_apply_once() {
    const ADVANCES: u64 = 30;
    const TERMINATIONS: usize = 10;
    let database = TestDatabase::create().await;
    let store = Arc::new(open(&database).await);
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.unwrap();
    let (progress, mut committed) = tokio::sync::mpsc::unbounded_channel();
    let writer = {
        let (store, script) = (Arc::clone(&store), script.clone());
        tokio::spawn(async move {
            let mut refused = Vec::new();
            for index in 0..ADVANCES {
                let events = vec![checkpoint(&script, 1, index)];
                let batch = script.claimed(events, &format!("advance:{index}"), "sha", serde_json::json!(index));
                // A command cut off is retried as a client would, with the same claim.
                loop {
                    match store.append(batch.clone()).await {
                        Ok(_) => break,
                        Err(error) => refused.push(error),
                    }
                }
                let _ = progress.send(index);
            }
            refused
        })
    };
    // Another connection terminates every backend of the store's database, then waits for one
    // more command to get through before the next round.
    let admin = common::connect(&switchyard_test_support::server_url()).await;
    for _ in 0..TERMINATIONS {
        admin
            .query(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                &[&database.name],
            )
            .await
            .unwrap();
        if committed.recv().await.is_none() {
            break;
        }
    }
    let refused = writer.await.unwrap();
    for error in &refused {
        assert!(error.is_retryable(), "a command cut off is answered with a retryable error: {error}");
    }
    let events = store.events(script.session, 0, u32::MAX).await.unwrap();
    assert_eq!(events.len() as u64, 3 + ADVANCES, "each advance is stored once, whatever was cut off");
    for index in 0..ADVANCES {
        assert!(store.recorded(script.session, &format!("advance:{index}")).await.unwrap().is_some());
    }
    assert!(store.verify().await.unwrap().is_clean());
    drop(store);
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_url_without_a_password_takes_it_from_the_password_file_and_never_shows_it() {
    use std::os::unix::fs::PermissionsExt;
    let database = TestDatabase::create().await;
    let server: tokio_postgres::Config = switchyard_test_support::server_url().parse().unwrap();
    let password = String::from_utf8(server.get_password().expect("the test URL has a password").to_vec()).unwrap();
    let user = server.get_user().unwrap();
    let url = database.url.replacen(&format!("{user}:{password}@"), &format!("{user}@"), 1);
    assert!(!url.contains(&password), "the URL has no password: {url}");
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("pgpass");
    std::fs::write(&file, format!("*:*:{}:{user}:{password}\n", database.name)).unwrap();

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let options = PostgresOptions { password_file: Some(file.clone()), ..PostgresOptions::default() };
    let error = PostgresStore::open(&url, options.clone()).await.unwrap_err();
    assert_eq!(error.code(), "STORE_IO", "a file others may read is ignored, as PostgreSQL does: {error}");
    assert!(error.to_string().contains("password"), "{error}");

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let store = PostgresStore::open(&url, options).await.expect("the password comes from the file");
    let shown = format!("{store:?} {}", store.target());
    assert!(!shown.contains(&password), "the password is never shown: {shown}");
    drop(store);
    database.drop_now().await;
}
