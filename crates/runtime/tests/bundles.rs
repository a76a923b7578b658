//! Bundles through the runtime: every BMad Method sample and every CrewAgent example (as a folder
//! and as a zip) is found, started and driven to completion by a scripted agent, with each run's
//! step sequence snapshotted (how discovery lists and refuses bundles is the catalog's test).

mod common;

use std::path::Path;

use common::runtime;
use serde_json::{Map, Value, json};
use switchyard_catalog::Catalog;
use switchyard_core::state::RunStatus;
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};
use switchyard_test_support::{corpora, method_bundles, testdata, zip_folder};

/// Drives a run: notes on every step, the first offered label where a choice is needed,
/// approvals at gates.
async fn drive(
    runtime: &Runtime,
    catalog: &Catalog,
    file: &Path,
    workflow: Option<&str>,
    context: Map<String, Value>,
) -> String {
    let request = StartRequest {
        workflow: workflow.map(str::to_owned),
        file: workflow.is_none().then(|| file.to_owned()),
        goal: "scripted run".to_owned(),
        context,
        ..StartRequest::default()
    };
    let mut response: StepResponse = runtime.start(catalog, request).await.unwrap();
    let mut trace = Vec::new();
    for _ in 0..200 {
        match response.status {
            RunStatus::Completed => {
                trace.push("(completed)".to_owned());
                return trace.join(" ");
            }
            RunStatus::WaitingGate => {
                trace.push("(approved)".to_owned());
                response = runtime.approve(response.run, None).await.unwrap();
            }
            RunStatus::Active => {
                let step = response.step.clone().unwrap();
                trace.push(step.step.to_string());
                // Take each bounded back-edge at most once, then move on.
                let choice = if step.needs_choice { Some(step.allowed_next[0].label.clone()) } else { None };
                let input = AdvanceInput { notes: Some("done".to_owned()), choice, ..AdvanceInput::default() };
                let token = response.tokens.continue_token.clone().unwrap();
                response = runtime.advance(&token, None, input).await.unwrap();
            }
            other => {
                panic!("{}: the run ended {other:?}: {:?} {:?}", file.display(), response.validation, response.failure)
            }
        }
    }
    panic!("{}: no completion in 200 commands: {}", file.display(), trace.join(" "));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scripted_agent_completes_every_method_sample_and_crewagent_example() {
    let dir = common::TestHome::new();
    let runtime = runtime(&dir).await;
    let catalog = Catalog::new(None, dir.path());
    let mut runs = String::new();
    for folder in method_bundles() {
        let name = folder.strip_prefix(corpora()).unwrap().display().to_string();
        let trace = drive(&runtime, &catalog, &folder, None, Map::new()).await;
        runs.push_str(&format!("{name}: {trace}\n"));
    }
    // CrewAgent: the evaluated branch, the default branch, a package as a zip, and a
    // multi-workflow package found by name through discovery.
    let hello = testdata().join("crewagent/hello-branch");
    let greenfield = json!({"projectType": "greenfield"}).as_object().cloned().unwrap();
    runs.push_str(&format!("hello-branch greenfield: {}\n", drive(&runtime, &catalog, &hello, None, greenfield).await));
    runs.push_str(&format!("hello-branch default: {}\n", drive(&runtime, &catalog, &hello, None, Map::new()).await));
    let archive = dir.path().join("hello-branch.bmad");
    zip_folder(&hello, &archive);
    runs.push_str(&format!("hello-branch.bmad: {}\n", drive(&runtime, &catalog, &archive, None, Map::new()).await));
    let workflows = dir.path().join("workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    zip_folder(&testdata().join("crewagent/release-train"), &workflows.join("release-train.zip"));
    // Each workflow of a multi-workflow package in an archive is found by name, as in a folder.
    let names = catalog.names();
    for name in ["release-train.plan", "release-train.ship"] {
        assert!(names.contains(&name.to_owned()), "{name} not in {names:?}");
        let found = catalog.find(name).unwrap();
        assert!(found.location.path.ends_with("release-train.zip"), "{name}: {:?}", found.location);
        assert_eq!(found.compiled.workflow.as_ref().map(|workflow| workflow.id.as_str()), Some(name));
    }
    assert!(!names.contains(&"release-train".to_owned()), "{names:?}");
    let low_score = json!({"score": 1}).as_object().cloned().unwrap();
    runs.push_str(&format!(
        "release-train (plan, score 1): {}\n",
        drive(&runtime, &catalog, &testdata().join("crewagent/release-train"), None, low_score).await
    ));
    insta::assert_snapshot!("bundle_runs", runs);
}
