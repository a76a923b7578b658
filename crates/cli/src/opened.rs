//! What a command that touches runs works on: the runtime opened from the configuration, the run
//! output folders following its commits, and the workflow catalog of the project. Built once per
//! process; the one place the CLI opens a runtime.

use std::sync::Arc;

use switchyard_catalog::Catalog;
use switchyard_config::Config;
use switchyard_files::{FileHost, HostConfig};
use switchyard_run_folder::RunFolders;
use switchyard_runtime::Runtime;

use crate::output::Failure;

/// A runtime with its run folders and catalog.
#[derive(Debug)]
pub struct Opened {
    pub runtime: Arc<Runtime>,
    pub folders: Arc<RunFolders>,
    pub catalog: Catalog,
}

impl Opened {
    /// Opens the store and the key file `config` names, creating them on first use, with run
    /// output folders under `[runs] output_root`.
    pub async fn open(config: &Config) -> Result<Self, Failure> {
        let folders = Arc::new(RunFolders::new(config.output_root.clone()));
        let runtime = Runtime::open(config).await?.with_follower(Arc::clone(&folders) as _);
        Ok(Self { runtime: Arc::new(runtime), folders, catalog: Catalog::configured(config) })
    }

    /// The file door's tool host on this runtime, with the sandbox `config` describes.
    pub fn file_host(&self, config: &Config) -> FileHost {
        FileHost::new(Arc::clone(&self.runtime), Arc::clone(&self.folders), HostConfig::from_config(config))
    }
}
