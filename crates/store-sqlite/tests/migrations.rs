//! Schema migrations on open: a new file goes through every step of the migration list to the
//! current version in one transaction, and a store made by the first release (version 1, before
//! the indexes and the text index added since) opens, gains them, and works.

use rusqlite::Connection;

use switchyard_core::token::TokenKind;
use switchyard_store::Store;
use switchyard_store::conformance::fixture::{SessionScript, node_id, nonce};
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
    for index in ["claims_by_session", "sessions_by_workspace", "sessions_by_recency", "sessions_by_workflow_id"] {
        assert!(found.contains(&index.to_owned()), "{index} is created on open: {found:?}");
    }
    // Version 1's recency indexes and its index of nodes by parent are dropped.
    for index in ["sessions_by_update", "sessions_by_status", "sessions_by_workflow", "nodes_by_parent"] {
        assert!(!found.contains(&index.to_owned()), "{index} is dropped on open: {found:?}");
    }
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
