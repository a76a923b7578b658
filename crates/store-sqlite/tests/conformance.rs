//! The store conformance suite against real SQLite files.

use std::sync::Mutex;

use switchyard_store::conformance;
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_store_passes_the_conformance_suite() {
    // Every store gets its own folder; the folders live until the suite ends.
    let folders = Mutex::new(Vec::new());
    conformance::run_all(|| {
        let folder = tempfile::tempdir().expect("a temporary folder");
        let store = SqliteStore::open(&folder.path().join("store.db"), SqliteOptions::default()).expect("open");
        folders.lock().expect("folders").push(folder);
        async move { store }
    })
    .await;
}
