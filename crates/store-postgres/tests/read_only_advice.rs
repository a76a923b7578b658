//! A read-only database is refused with a database's fix (the primary server, the read-only
//! setting), never the advice for a SQLite file (remounting a file system, file permissions):
//! a database set read-only, and a real hot standby streaming from the test server
//! (`SWITCHYARD_TEST_POSTGRES_STANDBY_URL`, which `.ci/postgres-standby` starts and prints).

mod common;

use std::time::{Duration, Instant};

use common::TestDatabase;
use switchyard_store_postgres::{PostgresOptions, PostgresStore};

const STANDBY_URL_VARIABLE: &str = "SWITCHYARD_TEST_POSTGRES_STANDBY_URL";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_only_database_gets_advice_for_a_database_not_for_a_file() {
    let database = TestDatabase::create().await;
    let alter = format!("ALTER DATABASE {} SET default_transaction_read_only = on", database.name);
    database.client().await.batch_execute(&alter).await.unwrap();
    let error = PostgresStore::open(&database.url, PostgresOptions::default()).await.unwrap_err();
    let message = error.to_string();
    assert_eq!(error.code(), "STORE_READ_ONLY", "{message}");
    assert!(message.contains("primary server"), "says to point at the primary: {message}");
    for advice in ["remount", "file system", "writable copy"] {
        assert!(!message.contains(advice), "no SQLite advice (`{advice}`) for a database: {message}");
    }
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hot_standby_is_refused_at_open_and_the_primary_named_as_the_fix() {
    let standby = std::env::var(STANDBY_URL_VARIABLE).ok().filter(|url| !url.is_empty()).unwrap_or_else(|| {
        panic!("{STANDBY_URL_VARIABLE} names no standby: run `export {STANDBY_URL_VARIABLE}=\"$(bash .ci/postgres-standby)\"` (a test fails, never skips)")
    });
    let database = TestDatabase::create().await;
    // A store made on the primary, so the standby holds a switchyard database once it has replayed it.
    drop(PostgresStore::open(&database.url, PostgresOptions::default()).await.unwrap());
    let (server, _) = standby.rsplit_once('/').expect("a URL with a database");
    let replica = format!("{server}/{}", database.name);
    let until = Instant::now() + Duration::from_secs(30);
    let error = loop {
        let error = PostgresStore::open(&replica, PostgresOptions::default()).await.unwrap_err();
        // The standby has not replayed the database's creation yet.
        if error.code() == "STORE_READ_ONLY" || Instant::now() > until {
            break error;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let message = error.to_string();
    assert_eq!(error.code(), "STORE_READ_ONLY", "{message}");
    assert!(message.contains("standby in recovery"), "says what the server is: {message}");
    assert!(message.contains("primary server"), "says to point at the primary: {message}");
    assert!(!message.contains("test-only-secret"), "never shows the password: {message}");
    database.drop_now().await;
}
