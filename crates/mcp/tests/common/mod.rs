//! The MCP server in process, on a fresh home (of the backend the test run chose) and workspace.

#![allow(dead_code)]

use std::sync::Arc;

use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_mcp::{ServerOptions, SwitchyardServer};
use switchyard_runtime::Runtime;
use switchyard_test_support::TestHome;

pub struct Fixture {
    pub home: TestHome,
    pub workspace: tempfile::TempDir,
    pub server: SwitchyardServer,
}

pub async fn fixture() -> Fixture {
    let home = TestHome::new();
    let workspace = tempfile::tempdir().unwrap();
    let overrides =
        Overrides { home: Some(home.path().to_owned()), store: None, project_root: Some(workspace.path().to_owned()) };
    Fixture { home, workspace, server: server(&Config::resolve(overrides).unwrap()).await }
}

/// A server on the runtime `config` names, finding workflows as the configuration says.
pub async fn server(config: &Config) -> SwitchyardServer {
    let runtime = Runtime::open(config).await.unwrap();
    SwitchyardServer::new(Arc::new(runtime), Catalog::configured(config), &ServerOptions::default())
}
