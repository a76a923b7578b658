//! A runtime over a real SQLite file in a temporary folder, its run folders following its commits.

use std::sync::Arc;

use switchyard_catalog::Catalog;
use switchyard_files::{FileHost, HostConfig};
use switchyard_run_folder::RunFolders;
use switchyard_runtime::clock::{Clock, RandomIds, SystemClock};
use switchyard_runtime::{Parts, Runtime, StartRequest, StepResponse};

#[allow(dead_code)]
pub struct World {
    pub home: tempfile::TempDir,
    pub runtime: Arc<Runtime>,
    pub folders: Arc<RunFolders>,
    pub output_root: std::path::PathBuf,
}

#[allow(dead_code)]
impl World {
    pub async fn new() -> Self {
        Self::build(true, Arc::new(SystemClock))
    }

    /// A runtime whose commits no run folder follows (the folders are made when a tool needs one).
    pub async fn without_run_folders() -> Self {
        Self::build(false, Arc::new(SystemClock))
    }

    /// A runtime whose every time comes from `clock`.
    pub async fn with_clock(clock: Arc<dyn Clock>) -> Self {
        Self::build(true, clock)
    }

    fn build(followed: bool, clock: Arc<dyn Clock>) -> Self {
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
            clock,
            ids: Arc::new(RandomIds),
        });
        let folders = Arc::new(RunFolders::new(output_root.clone()));
        let runtime = Arc::new(if followed { runtime.with_follower(Arc::clone(&folders) as _) } else { runtime });
        Self { home, runtime, folders, output_root }
    }

    /// A file host on this world's runtime and run folders.
    pub fn host(&self, config: HostConfig) -> FileHost {
        FileHost::new(Arc::clone(&self.runtime), Arc::clone(&self.folders), config)
    }

    pub async fn start(&self, workflow: &str) -> StepResponse {
        let request =
            StartRequest { workflow: Some(workflow.into()), goal: "Review PR 42".into(), ..StartRequest::default() };
        self.runtime.start(&Catalog::new(None, self.home.path()), request).await.unwrap()
    }

    pub fn folder(&self, response: &StepResponse) -> std::path::PathBuf {
        self.output_root.join(response.session.to_string())
    }
}
