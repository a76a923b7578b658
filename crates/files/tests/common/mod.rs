//! A runtime over a real SQLite file in a temporary folder, with run folders on.

use std::sync::Arc;

use switchyard_runtime::catalog::Catalog;
use switchyard_runtime::clock::{Clock, RandomIds, SystemClock};
use switchyard_runtime::{Parts, Runtime, StartRequest, StepResponse};

#[allow(dead_code)]
pub struct World {
    pub home: tempfile::TempDir,
    pub runtime: Arc<Runtime>,
    pub output_root: std::path::PathBuf,
}

#[allow(dead_code)]
impl World {
    pub async fn new() -> Self {
        Self::build(true, Arc::new(SystemClock))
    }

    /// A runtime that creates no run folders, as `Runtime::from_parts` does by default.
    pub async fn without_run_folders() -> Self {
        Self::build(false, Arc::new(SystemClock))
    }

    /// A runtime whose every time comes from `clock`.
    pub async fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self::build(true, clock)
    }

    fn build(run_folders: bool, clock: Arc<dyn Clock>) -> Self {
        let home = tempfile::tempdir().unwrap();
        let store = switchyard_store_sqlite::SqliteStore::open(
            &home.path().join("store.sqlite3"),
            switchyard_store_sqlite::SqliteOptions::default(),
        )
        .unwrap();
        let ids = RandomIds;
        let keys = switchyard_runtime::keys::load_or_create(home.path(), &ids).unwrap();
        let output_root = home.path().join("runs");
        let runtime = Runtime::from_parts(Parts {
            store: Arc::new(store),
            store_label: "test".into(),
            keys,
            catalog: Catalog::new(None, home.path()),
            clock,
            ids: Arc::new(RandomIds),
        });
        let runtime = if run_folders { runtime.with_output_root(output_root.clone()) } else { runtime };
        Self { home, runtime: Arc::new(runtime), output_root }
    }

    pub async fn start(&self, workflow: &str) -> StepResponse {
        self.runtime
            .start(StartRequest {
                workflow: Some(workflow.into()),
                goal: "Review PR 42".into(),
                ..StartRequest::default()
            })
            .await
            .unwrap()
    }

    pub fn folder(&self, response: &StepResponse) -> std::path::PathBuf {
        self.output_root.join(response.session.to_string())
    }
}
