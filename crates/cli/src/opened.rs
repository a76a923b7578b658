//! What a command that touches runs works on: the runtime opened from the configuration, the run
//! output folders following its commits, and the workflow catalog of the project. Built once per
//! process; the one place the CLI opens a runtime, and the one way it resolves its configuration.

use std::sync::Arc;

use switchyard_catalog::Catalog;
use switchyard_config::{Config, Environment, Overrides};
use switchyard_files::{FileHost, HostConfig};
use switchyard_run_folder::RunFolders;
use switchyard_runtime::Runtime;
use switchyard_runtime::evidence::EvidencePolicy;

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
        Self::open_with(config, None).await
    }

    /// [`Opened::open`] for `switchyard serve`, whose clients may be anyone its token reaches:
    /// evidence commands run only in `[evidence] trusted_workspaces`.
    pub async fn serving(config: &Config) -> Result<Self, Failure> {
        Self::open_with(config, Some(EvidencePolicy::of(config).served(config))).await
    }

    /// `evidence` in place of the policy `Runtime::open` reads from `config`, if given.
    async fn open_with(config: &Config, evidence: Option<EvidencePolicy>) -> Result<Self, Failure> {
        let folders = Arc::new(RunFolders::new(config.output_root.clone()));
        let mut runtime = Runtime::open(config).await?;
        if let Some(evidence) = evidence {
            runtime = runtime.with_evidence(evidence);
        }
        let runtime = runtime.with_follower(Arc::clone(&folders) as _);
        Ok(Self { runtime: Arc::new(runtime), folders, catalog: Catalog::configured(config) })
    }

    /// The file door's tool host on this runtime, with the sandbox `config` describes.
    pub fn file_host(&self, config: &Config) -> FileHost {
        FileHost::new(Arc::clone(&self.runtime), Arc::clone(&self.folders), HostConfig::from_config(config))
    }
}

/// The configuration of the flags, the process's `SWITCHYARD_*` variables and the files, with
/// its store URL checked as the Postgres store reads it: every command stops on a broken one, not
/// only those that open the store.
pub fn resolve(overrides: Overrides) -> Result<Config, Failure> {
    let config = Config::resolve_with(overrides, &Environment::of_process())?;
    switchyard_runtime::store::check_config(&config)?;
    Ok(config)
}

/// A configuration failure names the command it stopped (printed as ``switchyard: `start` stopped: …``), since
/// only the CLI knows the command; other failures pass unchanged.
pub fn naming_the_command(mut failure: Failure, command: &str) -> Failure {
    if failure.code == "CONFIG_INVALID" {
        failure.message = format!("`{command}` stopped: {}", failure.message);
    }
    failure
}
