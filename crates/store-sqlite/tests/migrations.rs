//! Schema migrations on open: a new file goes through every step of the migration list to the
//! current version in one transaction, and a store made by the first release (version 1, before
//! the indexes and the text index added since) or by version 2 (claims keyed by key alone) opens,
//! gains what was added since, and works.

use rusqlite::Connection;

use switchyard_core::token::TokenKind;
use switchyard_store::Store;
use switchyard_store::conformance::{
    self,
    fixture::{SessionScript, node_id, nonce},
};
use switchyard_store_sqlite::{SCHEMA_VERSION, SqliteOptions, SqliteStore, schema_v1};

fn version(path: &std::path::Path) -> i64 {
    let connection = Connection::open(path).unwrap();
    connection.query_row("SELECT version FROM schema_version", [], |row| row.get(0)).unwrap()
}

fn indexes(path: &std::path::Path) -> Vec<String> {
    let connection = Connection::open(path).unwrap();
    let mut statement =
        connection.prepare("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name").unwrap();
    statement.query_map([], |row| row.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

/// Every table and index with its statement, as SQLite keeps them (but the version table, which a
/// test may make in its own words).
fn schema(path: &std::path::Path) -> Vec<(String, String, Option<String>)> {
    let connection = Connection::open(path).unwrap();
    let sql = "SELECT type, name, sql FROM sqlite_master WHERE name <> 'schema_version' ORDER BY type, name";
    let mut statement = connection.prepare(sql).unwrap();
    statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

#[tokio::test]
async fn a_new_file_is_migrated_through_every_step_to_the_current_version() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.unwrap();
    drop(store);
    assert_eq!(version(&path), SCHEMA_VERSION);
    let reopened = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    assert!(reopened.verify().await.unwrap().is_clean(), "reopening migrates nothing twice");
}

#[tokio::test]
async fn a_store_made_by_schema_version_1_opens_and_gains_what_was_added_since() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let first_release = Connection::open(&path).unwrap();
    first_release.execute_batch(&schema_v1()).unwrap();
    first_release
        .execute_batch(
            "CREATE TABLE schema_version (singleton INTEGER PRIMARY KEY CHECK (singleton = 1), version INTEGER NOT NULL);
             INSERT INTO schema_version (singleton, version) VALUES (1, 1);",
        )
        .unwrap();
    drop(first_release);
    assert!(!indexes(&path).contains(&"claims_by_session".to_owned()), "the first release had no such index");

    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.unwrap();
    assert!(store.verify().await.unwrap().is_clean());
    let copy = store.export_session(script.session).await.unwrap().expect("the session exports");
    assert_eq!(copy.events.len(), 3, "created, run started, first node");
    drop(store);
    assert_eq!(version(&path), SCHEMA_VERSION);
    let found = indexes(&path);
    for index in ["sessions_by_workspace", "sessions_by_recency", "sessions_by_workflow_id"] {
        assert!(found.contains(&index.to_owned()), "{index} is created on open: {found:?}");
    }
    // Version 1's recency indexes and its index of nodes by parent are dropped; version 3 keys
    // claims by session, so none is indexed by session alone.
    for index in
        ["sessions_by_update", "sessions_by_status", "sessions_by_workflow", "nodes_by_parent", "claims_by_session"]
    {
        assert!(!found.contains(&index.to_owned()), "{index} is dropped on open: {found:?}");
    }
    let new_file = folder.path().join("new.db");
    drop(SqliteStore::open(&new_file, SqliteOptions::default()).unwrap());
    assert_eq!(schema(&path), schema(&new_file), "a migrated file has the schema of a new one");
}

/// A store of version 1 that has the text index indexed each text as it recorded it: migrated to
/// version 2, it marks them all indexed, and a search finds them.
#[tokio::test]
async fn a_version_1_text_index_is_marked_whole_on_migration() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    for n in 1..=3 {
        let mut script = SessionScript::new(n);
        store.append(script.start(node_id(100 + n))).await.unwrap();
    }
    drop(store);
    // As a build of version 1 leaves it: every text indexed, no mark.
    Connection::open(&path)
        .unwrap()
        .execute_batch("DROP TABLE texts_indexed; UPDATE schema_version SET version = 1;")
        .unwrap();

    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    assert_eq!(version(&path), SCHEMA_VERSION);
    let marked: (i64, i64) = Connection::open(&path)
        .unwrap()
        .query_row("SELECT upto, (SELECT max(id) FROM texts) FROM texts_indexed", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .unwrap();
    assert_eq!(marked, (3, 3), "(marked, newest text)");
    let query = switchyard_store::SearchQuery { text: "goal".to_owned(), limit: 5, workspace: None };
    assert_eq!(store.search_sessions(query).await.unwrap().len(), 3, "each text is found, once");
}

/// A store of version 2 keyed its claims by key alone, with an index by session: migrated to
/// version 3, each claim is found under its session, replays, and copies with it, and neither the
/// old table nor its index is left.
#[tokio::test]
async fn a_version_2_store_keeps_its_claims_under_their_sessions() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let mut scripts = conformance::sessions_with_claims(&store, 3).await;
    drop(store);
    // As a build of version 2 leaves it.
    Connection::open(&path)
        .unwrap()
        .execute_batch(
            "CREATE TABLE claims_v2 (key TEXT PRIMARY KEY, session TEXT NOT NULL, payload_sha256 TEXT NOT NULL,
                 outcome TEXT NOT NULL) WITHOUT ROWID;
             INSERT INTO claims_v2 SELECT key, session, payload_sha256, outcome FROM claims;
             DROP TABLE claims;
             ALTER TABLE claims_v2 RENAME TO claims;
             CREATE INDEX claims_by_session ON claims (session);
             UPDATE schema_version SET version = 2;",
        )
        .unwrap();

    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    assert_eq!(version(&path), SCHEMA_VERSION);
    conformance::claims_are_kept(&store, &mut scripts).await;
    drop(store);
    assert!(!indexes(&path).contains(&"claims_by_session".to_owned()));
    let tables: Vec<String> = {
        let connection = Connection::open(&path).unwrap();
        let mut statement = connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").unwrap();
        statement.query_map([], |row| row.get(0)).unwrap().collect::<Result<_, _>>().unwrap()
    };
    assert!(tables.contains(&"claims".to_owned()) && !tables.contains(&"claims_by_key".to_owned()), "{tables:?}");
}

#[tokio::test]
async fn an_index_a_build_dropped_is_dropped_again_when_an_older_build_made_it() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    let mut script = SessionScript::new(1);
    let mut start = script.start(node_id(101));
    start.tokens.push(script.token(nonce(1), TokenKind::Continue, node_id(101), None));
    store.append(start).await.unwrap();
    drop(store);
    assert!(!indexes(&path).contains(&"tokens_by_session".to_owned()), "a new store has no tokens_by_session");
    // An older build lists the index among its added ones and creates it when it opens the file.
    Connection::open(&path).unwrap().execute_batch("CREATE INDEX tokens_by_session ON tokens (session)").unwrap();

    let store = SqliteStore::open(&path, SqliteOptions::default()).unwrap();
    assert!(!indexes(&path).contains(&"tokens_by_session".to_owned()), "opening drops it");
    let copy = store.export_session(script.session).await.unwrap().expect("the session exports");
    assert_eq!(copy.tokens, vec![script.token(nonce(1), TokenKind::Continue, node_id(101), None)], "found without it");
}

#[tokio::test]
async fn a_recorded_version_that_never_existed_is_refused_as_corrupt() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("store.db");
    drop(SqliteStore::open(&path, SqliteOptions::default()).unwrap());
    Connection::open(&path).unwrap().execute("UPDATE schema_version SET version = 0", []).unwrap();
    let error = SqliteStore::open(&path, SqliteOptions::default()).unwrap_err();
    assert_eq!(error.code(), "STORE_CORRUPT", "{error}");
    assert!(error.to_string().contains("version 0"), "{error}");
}
