//! What the runtime's integration tests share: a runtime over a fresh SQLite store in a folder.

// Each test target compiles this module and uses a different part of it.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use switchyard_core::token::{Keyring, SigningKey};
use switchyard_runtime::clock::{IdSource, RandomIds, SystemClock};
use switchyard_runtime::{Catalog, Parts, Runtime};
use switchyard_store::Store;
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};

/// A runtime over a new store in `dir`, with a fresh signing key and `dir` as its home.
pub fn runtime(dir: &Path) -> Runtime {
    runtime_on(store(dir), dir)
}

/// A new store in `dir`, for tests that also hold the store (to pause its writes).
pub fn store(dir: &Path) -> Arc<SqliteStore> {
    Arc::new(SqliteStore::open(&dir.join("switchyard.db"), SqliteOptions::default()).unwrap())
}

/// A runtime over `store`, with a fresh signing key and `dir` as its home.
pub fn runtime_on(store: Arc<SqliteStore>, dir: &Path) -> Runtime {
    let ids = Arc::new(RandomIds);
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(&ids.bytes16());
    key[16..].copy_from_slice(&ids.bytes16());
    Runtime::from_parts(Parts {
        store: store as Arc<dyn Store>,
        store_label: "test".to_owned(),
        keys: Keyring { current: SigningKey(key), previous: None },
        catalog: Catalog::new(None, dir),
        clock: Arc::new(SystemClock),
        ids,
    })
}
