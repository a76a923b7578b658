//! A read-only database is refused with a database's fix (the primary server, the read-only
//! setting), never the advice for a SQLite file (remounting a file system, file permissions).

mod common;

use common::TestDatabase;
use switchyard_store_postgres::{PostgresOptions, PostgresStore};

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
