//! What the run folder's tests share: a runtime over a fresh store in a test home, with the home's
//! run output folders following its commits, as the doors open them.

// Each test target compiles this module and uses a different part of it.
#![allow(dead_code)]

use std::sync::Arc;

use switchyard_config::{Config, Overrides};
use switchyard_run_folder::RunFolders;
use switchyard_runtime::Runtime;
pub use switchyard_test_support::TestHome;

/// The home's runtime and its run folders.
pub async fn open(home: &TestHome) -> (Runtime, Arc<RunFolders>) {
    let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() }).unwrap();
    let folders = Arc::new(RunFolders::new(config.output_root.clone()));
    let runtime = Runtime::open(&config).await.unwrap().with_follower(Arc::clone(&folders) as _);
    (runtime, folders)
}
