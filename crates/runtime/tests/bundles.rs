//! Bundles through the runtime: every BMad Method sample and every CrewAgent example (as a folder
//! and as a zip) is found, started and driven to completion by a scripted agent, with each run's
//! step sequence snapshotted; hostile bundles are refused with a clear error.

mod common;

use std::io::Write;
use std::path::Path;

use common::runtime;
use serde_json::{Map, Value, json};
use switchyard_core::state::RunStatus;
use switchyard_runtime::{AdvanceInput, Catalog, Runtime, StartRequest, StepResponse};
use switchyard_test_support::{corpora, method_bundles, testdata, zip_folder, zip_folder_under};
use zip::write::SimpleFileOptions;

/// Drives a run: notes on every step, the first offered label where a choice is needed,
/// approvals at gates.
async fn drive(runtime: &Runtime, file: &Path, workflow: Option<&str>, context: Map<String, Value>) -> String {
    let request = StartRequest {
        workflow: workflow.map(str::to_owned),
        file: workflow.is_none().then(|| file.to_owned()),
        goal: "scripted run".to_owned(),
        context,
        ..StartRequest::default()
    };
    let mut response: StepResponse = runtime.start(request).await.unwrap();
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
    let mut runs = String::new();
    for folder in method_bundles() {
        let name = folder.strip_prefix(corpora()).unwrap().display().to_string();
        let trace = drive(&runtime, &folder, None, Map::new()).await;
        runs.push_str(&format!("{name}: {trace}\n"));
    }
    // CrewAgent: the evaluated branch, the default branch, a package as a zip, and a
    // multi-workflow package found by name through discovery.
    let hello = testdata().join("crewagent/hello-branch");
    let greenfield = json!({"projectType": "greenfield"}).as_object().cloned().unwrap();
    runs.push_str(&format!("hello-branch greenfield: {}\n", drive(&runtime, &hello, None, greenfield).await));
    runs.push_str(&format!("hello-branch default: {}\n", drive(&runtime, &hello, None, Map::new()).await));
    let archive = dir.path().join("hello-branch.bmad");
    zip_folder(&hello, &archive);
    runs.push_str(&format!("hello-branch.bmad: {}\n", drive(&runtime, &archive, None, Map::new()).await));
    let workflows = dir.path().join("workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    zip_folder(&testdata().join("crewagent/release-train"), &workflows.join("release-train.zip"));
    // Each workflow of a multi-workflow package in an archive is found by name, as in a folder.
    let names = runtime.catalog().names();
    for name in ["release-train.plan", "release-train.ship"] {
        assert!(names.contains(&name.to_owned()), "{name} not in {names:?}");
        let found = runtime.catalog().find(name).unwrap();
        assert!(found.location.path.ends_with("release-train.zip"), "{name}: {:?}", found.location);
        assert_eq!(found.compiled.workflow.as_ref().map(|workflow| workflow.id.as_str()), Some(name));
    }
    assert!(!names.contains(&"release-train".to_owned()), "{names:?}");
    let low_score = json!({"score": 1}).as_object().cloned().unwrap();
    runs.push_str(&format!(
        "release-train (plan, score 1): {}\n",
        drive(&runtime, &testdata().join("crewagent/release-train"), None, low_score).await
    ));
    insta::assert_snapshot!("bundle_runs", runs);
}

#[test]
fn discovery_lists_bundles_with_their_format() {
    let dir = tempfile::tempdir().unwrap();
    let workflows = dir.path().join("workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    let copy = |from: &Path, to: &Path| {
        let mut pending = vec![from.to_path_buf()];
        while let Some(current) = pending.pop() {
            for entry in std::fs::read_dir(&current).unwrap() {
                let path = entry.unwrap().path();
                let target = to.join(path.strip_prefix(from).unwrap());
                if path.is_dir() {
                    std::fs::create_dir_all(&target).unwrap();
                    pending.push(path);
                } else {
                    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                    std::fs::copy(&path, &target).unwrap();
                }
            }
        }
    };
    copy(&testdata().join("crewagent/release-train"), &workflows.join("release-train"));
    copy(&corpora().join("bmad/6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev"), &workflows.join("quick-dev"));
    std::fs::copy(corpora().join("workrail/workflows/wr.shaping.json"), workflows.join("shaping.json")).unwrap();
    // Beside them, files and folders that are no workflow, and a file that almost is one.
    std::fs::copy(corpora().join("bmad/6.0.4/src/bmm/module.yaml"), workflows.join("module.yaml")).unwrap();
    std::fs::copy(corpora().join("bmad/6.0.0-alpha.7/bmad/core/config.yaml"), workflows.join("config.yaml")).unwrap();
    copy(&corpora().join("bmad/6.0.0-alpha.22/src/modules/bmb/docs/workflows/templates"), &workflows.join("templates"));
    std::fs::write(workflows.join("almost.yaml"), "id: almost\nsteps: {}\n").unwrap();
    // A package archived with its folder as the archive's single root.
    zip_folder_under(&testdata().join("crewagent/release-train"), &workflows.join("rooted.zip"), "release-train/");
    let catalog = Catalog::new(None, dir.path());
    let listed: Vec<String> = catalog
        .list()
        .iter()
        .map(|found| format!("{} {:?} {}", found.name, found.compiled.format, found.compiled.workflow.is_some()))
        .collect();
    for expected in [
        "release-train.plan CrewAgent true",
        "release-train.ship CrewAgent true",
        "rooted.plan CrewAgent true",
        "rooted.ship CrewAgent true",
        "quick-dev MethodSteps true",
        "shaping Workrail true",
        "almost Native false",
    ] {
        assert!(listed.iter().any(|line| line == expected), "{expected} not in {listed:#?}");
    }
    // Found by the archive's name, each is its own workflow of the package.
    for (name, id) in [("rooted.plan", "release-train.plan"), ("rooted.ship", "release-train.ship")] {
        let found = catalog.find(name).unwrap();
        assert_eq!(found.compiled.workflow.as_ref().map(|workflow| workflow.id.as_str()), Some(id), "{name}");
    }
    for stray in ["module", "config", "templates"] {
        assert!(!listed.iter().any(|line| line.starts_with(&format!("{stray} "))), "{stray} listed: {listed:#?}");
        assert!(catalog.find(stray).is_err(), "{stray} found by name");
    }
}

fn refused(path: &Path) -> String {
    match Catalog::file(path) {
        Ok(found) => panic!("{} was accepted: {:?}", path.display(), found.compiled.format),
        Err(error) => error.to_string(),
    }
}

#[test]
fn hostile_bundles_are_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    // An archive entry that climbs out.
    let climbing = dir.path().join("climb.zip");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&climbing).unwrap());
    writer.start_file("../../evil.md", SimpleFileOptions::default()).unwrap();
    writer.write_all(b"x").unwrap();
    writer.finish().unwrap();
    assert!(refused(&climbing).contains("climbs out"));
    // A zip bomb: 8 MiB of zeros.
    let bomb = dir.path().join("bomb.zip");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&bomb).unwrap());
    writer.start_file("workflow.yaml", SimpleFileOptions::default()).unwrap();
    writer.write_all(&vec![b'0'; 8 * 1024 * 1024]).unwrap();
    writer.finish().unwrap();
    assert!(refused(&bomb).contains("zip bomb"));
    // A symlink out of the folder.
    let linked = dir.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::write(linked.join("workflow.yaml"), "name: x\n").unwrap();
    std::os::unix::fs::symlink("/etc", linked.join("etc")).unwrap();
    assert!(refused(&linked).contains("points outside the folder"));
    // Folders nested too deep.
    let mut deep = dir.path().join("deep");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("workflow.yaml"), "name: x\n").unwrap();
    for level in 0..15 {
        deep = deep.join(format!("d{level}"));
    }
    std::fs::create_dir_all(&deep).unwrap();
    assert!(refused(&dir.path().join("deep")).contains("deeper than"));
}
