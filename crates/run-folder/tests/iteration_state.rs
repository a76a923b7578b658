//! `_iteration_state.json` in a run folder: the tip's revision and replan counters, rewritten
//! with the state document after every event and rebuilt when it goes missing.

mod common;

use std::path::Path;

use serde_json::Value;
use switchyard_catalog::Catalog;
use switchyard_run_folder::{ITERATION_STATE_FILE, RunFolders};
use switchyard_runtime::{AdvanceInput, StartRequest};

const GATED: &str =
    "id: gated\nsteps:\n  - {id: draft, prompt: Draft it., gate: true, next: done}\n  - {id: done, prompt: Finish.}\n";

async fn iteration_state(folders: &RunFolders, folder: &Path) -> Value {
    folders.flush().await;
    let text = std::fs::read_to_string(folder.join(ITERATION_STATE_FILE)).unwrap();
    serde_json::from_str(&text).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_iteration_state_follows_the_tips_counters_and_comes_back_when_deleted() {
    let home = common::TestHome::new();
    let (runtime, folders) = common::open(&home).await;
    let file = home.path().join("gated.yaml");
    std::fs::write(&file, GATED).unwrap();
    let request = StartRequest { file: Some(file), goal: "count".to_owned(), ..StartRequest::default() };
    let started = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    let folder = folders.folder(started.session);
    let first = iteration_state(&folders, &folder).await;
    assert_eq!((first["revision_count"].as_u64(), first["replan_count"].as_u64()), (Some(0), Some(0)), "{first}");
    let last_updated = first["last_updated"].as_str().unwrap();
    assert!(last_updated.parse::<jiff::Timestamp>().is_ok(), "RFC 3339: {last_updated}");
    let token = started.tokens.continue_token.clone().unwrap();
    let input = AdvanceInput { notes: Some("a draft".to_owned()), ..AdvanceInput::default() };
    runtime.advance(&token, None, input).await.unwrap();
    runtime.reject(started.run, "again".to_owned()).await.unwrap();
    let rejected = iteration_state(&folders, &folder).await;
    assert_eq!(rejected["revision_count"].as_u64(), Some(1), "{rejected}");
    std::fs::remove_file(folder.join(ITERATION_STATE_FILE)).unwrap();
    let run = runtime.run(&switchyard_runtime::Target::Run(started.run)).await.unwrap();
    folders.ensure(&runtime, &run).await.unwrap();
    let rebuilt = iteration_state(&folders, &folder).await;
    assert_eq!(rebuilt["revision_count"].as_u64(), Some(1), "{rebuilt}");
}
