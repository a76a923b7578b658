//! What the runtime's integration tests share: a runtime over a fresh store in a test home, on
//! the backend the run chose (`SWITCHYARD_TEST_BACKEND`, see `switchyard_test_support::TestHome`).

// Each test target compiles this module and uses a different part of it.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use switchyard_core::token::{Keyring, SigningKey};
use switchyard_runtime::clock::{IdSource, RandomIds, SystemClock};
use switchyard_runtime::{Parts, Runtime};
use switchyard_store::Store;
use switchyard_store_postgres::{PostgresOptions, PostgresStore};
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};
pub use switchyard_test_support::TestHome;

/// A runtime over the home's store, with a fresh signing key and the home as its home.
pub async fn runtime(home: &TestHome) -> Runtime {
    runtime_on(store(home).await)
}

/// The home's store, for tests that hold it beside the runtimes over it.
pub async fn store(home: &TestHome) -> Arc<dyn Store> {
    match home.store_url() {
        Some(url) => Arc::new(PostgresStore::open(url, PostgresOptions::default()).await.unwrap()),
        None => sqlite_store(home.path()),
    }
}

/// A new SQLite store in `dir`, for tests of what only its writer does (holding its writes).
pub fn sqlite_store(dir: &Path) -> Arc<SqliteStore> {
    Arc::new(SqliteStore::open(&dir.join("switchyard.db"), SqliteOptions::default()).unwrap())
}

/// A runtime over `store`, with a fresh signing key.
pub fn runtime_on(store: Arc<dyn Store>) -> Runtime {
    let ids = Arc::new(RandomIds);
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(&ids.bytes16());
    key[16..].copy_from_slice(&ids.bytes16());
    Runtime::from_parts(Parts {
        store,
        store_label: "test".to_owned(),
        keys: Keyring { current: SigningKey::new(key), previous: None },
        clock: Arc::new(SystemClock),
        ids,
    })
}
