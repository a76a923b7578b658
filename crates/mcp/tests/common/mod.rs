//! The MCP server in process, on a fresh home (of the backend the test run chose) and workspace.

#![allow(dead_code)]

use std::sync::Arc;

use switchyard_mcp::{ServerOptions, SwitchyardServer};
use switchyard_runtime::{Config, Overrides, Runtime};
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
    let runtime = Runtime::open(&Config::resolve(overrides).unwrap()).await.unwrap();
    Fixture { home, workspace, server: SwitchyardServer::new(Arc::new(runtime), &ServerOptions::default()) }
}
