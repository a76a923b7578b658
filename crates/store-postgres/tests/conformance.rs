//! The store conformance suite, unchanged, against a real PostgreSQL server: each check gets a
//! database of its own.

mod common;

use std::sync::Mutex;

use switchyard_store::conformance;
use switchyard_store_postgres::{PostgresOptions, PostgresStore};

use common::TestDatabase;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn postgres_store_passes_the_conformance_suite() {
    let databases = Mutex::new(Vec::new());
    conformance::run_all(|| async {
        let database = TestDatabase::create().await;
        let store = PostgresStore::open(&database.url, PostgresOptions::default()).await.expect("open");
        databases.lock().expect("databases").push(database);
        store
    })
    .await;
    let databases = std::mem::take(&mut *databases.lock().expect("databases"));
    for database in databases {
        database.drop_now().await;
    }
}
