//! Resume search on the Postgres store beyond the shared contract, against a real server: a
//! word's newest matches are read without touching its older matches or other texts, whatever
//! the word's frequency; hits ranked behind many texts of one session are found, each with its
//! own snippet; and a store made before the lexeme index gets it on open.

mod common;

use switchyard_core::event::NodeCause;
use switchyard_core::state::RunStatus;
use switchyard_store::conformance::fixture::{SessionScript, attempt_id, node_id};
use switchyard_store::{Batch, SearchQuery, Store};
use switchyard_store_postgres::{PostgresOptions, PostgresStore, newest_of_lexemes_sql};

use common::TestDatabase;

async fn open(database: &TestDatabase) -> PostgresStore {
    PostgresStore::open(&database.url, PostgresOptions::default()).await.expect("opening the store")
}

/// Writes session `n`: its start, then `advances` advances, the `k`-th recording `notes(k)`.
async fn write_session(store: &PostgresStore, n: u64, advances: u64, notes: impl Fn(u64) -> String) {
    let mut script = SessionScript::new(n);
    let node = |k: u64| node_id(n * 1_000 + k);
    store.append(script.start(node(0))).await.expect("append a session's start");
    let mut events = Vec::new();
    for k in 0..advances {
        events.push(script.advanced(node(k), attempt_id(n * 1_000 + k), node(k + 1), notes(k)));
        events.push(script.node(node(k + 1), Some(node(k)), NodeCause::Advance, RunStatus::Active));
    }
    store.append(Batch::events(script.session, events)).await.expect("append a session's advances");
}

/// The regression behind the SPEC's 50 ms: for a word in a few percent of texts, Postgres walked
/// the texts backwards and filtered, or fetched every match and sorted them, to find the newest
/// few. The statement a search runs per word must read its window of matches and nothing more.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_words_newest_matches_are_read_without_touching_other_texts() {
    let database = TestDatabase::create().await;
    let store = open(&database).await;
    for n in 0..20 {
        let notes = |k: u64| if (n * 60 + k).is_multiple_of(25) { "pick the thing" } else { "the filler" }.to_owned();
        write_session(&store, n, 60, notes).await;
    }
    let client = database.client().await;
    client.batch_execute("ANALYZE").await.unwrap();
    // Far fewer than the words' matches (48 for `pick`, over a thousand for `filler`), as a
    // search's window is for a common word at scale.
    let window: i64 = 5;
    let explain = format!("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) {}", newest_of_lexemes_sql());
    let lexemes = vec!["pick", "filler"];
    let plan: Vec<String> =
        client.query(&explain, &[&lexemes, &window]).await.unwrap().iter().map(|row| row.get(0)).collect();
    let plan = plan.join("\n");
    assert!(!plan.contains("Sort") && !plan.contains("Removed by Filter"), "nothing sorted or skipped: {plan}");
    let scanned = plan.lines().find(|line| line.contains("on text_words")).expect("a read of text_words");
    assert!(scanned.contains("Scan Backward using text_words_pkey"), "an ordered key read: {plan}");
    assert!(scanned.contains(&format!("rows={window} loops=2")), "reads exactly the window per word: {plan}");

    let hits = store.search_sessions(SearchQuery { text: "pick".to_owned(), limit: 50, workspace: None }).await;
    assert_eq!(hits.expect("search").len(), 20, "every session has a note with the word");
    drop((store, client));
    database.drop_now().await;
}

/// A search looks the ranked texts' sessions up a chunk at a time and fetches the snippets of all
/// its hits at once: a session whose best text ranks behind a busier session's many texts is
/// still found, and each hit's snippet marks the words of its own text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hits_ranked_behind_one_busy_sessions_texts_are_found_with_their_own_snippets() {
    let database = TestDatabase::create().await;
    let store = open(&database).await;
    write_session(&store, 1, 300, |_| "alpha and beta together".to_owned()).await;
    write_session(&store, 2, 1, |_| "only beta here".to_owned()).await;
    write_session(&store, 3, 1, |_| "only alpha here".to_owned()).await;

    let hits = store.search_sessions(SearchQuery { text: "alpha beta".to_owned(), limit: 10, workspace: None }).await;
    let hits = hits.expect("search");
    let found: Vec<(String, &str)> = hits.iter().map(|hit| (hit.session.to_string(), hit.snippet.as_str())).collect();
    assert_eq!(hits.len(), 3, "every session holding a word: {found:?}");
    assert_eq!(hits[0].session, SessionScript::new(1).session, "the texts holding both words first: {found:?}");
    assert!(hits[0].snippet.contains("[alpha]") && hits[0].snippet.contains("[beta]"), "{found:?}");
    for (n, word, other) in [(2, "[beta]", "[alpha]"), (3, "[alpha]", "[beta]")] {
        let hit = hits.iter().find(|hit| hit.session == SessionScript::new(n).session).expect("a hit per session");
        assert!(hit.snippet.contains(word) && !hit.snippet.contains(other), "session {n}: {found:?}");
    }
    drop(store);
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_made_by_schema_version_2_gets_its_lexemes_indexed_on_open() {
    let database = TestDatabase::create().await;
    let store = open(&database).await;
    write_session(&store, 1, 3, |_| "zeppelin the thing".to_owned()).await;
    drop(store);
    let client = database.client().await;
    client.batch_execute("DROP TABLE text_words; UPDATE switchyard_schema SET version = 2").await.unwrap();

    let store = open(&database).await;
    let hits = store.search_sessions(SearchQuery { text: "zeppelin".to_owned(), limit: 5, workspace: None }).await;
    assert_eq!(hits.expect("search after the migration").len(), 1);
    let lexemes: i64 = client.query_one("SELECT count(*) FROM text_words", &[]).await.unwrap().get(0);
    let expected: i64 = client
        .query_one("SELECT sum(length(words)) FROM texts", &[])
        .await
        .unwrap()
        .get::<_, Option<i64>>(0)
        .unwrap_or_default();
    assert_eq!(lexemes, expected, "one row per lexeme of every text");
    assert!(store.verify().await.unwrap().is_clean());
    drop((store, client));
    database.drop_now().await;
}
