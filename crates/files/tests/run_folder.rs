//! Run output folders and the state document as a projection: created at start, regenerated
//! after events from any door, rebuilt when stale or after a fork; and preload.

mod common;

use std::sync::Arc;

use serde_json::{Value, json};
use switchyard_catalog::Catalog;
use switchyard_files::preload::Reference;
use switchyard_files::{HostConfig, codes};
use switchyard_runtime::clock::FixedClock;
use switchyard_runtime::{AdvanceInput, StartRequest, Target};
use switchyard_test_support::{copy_folder, testdata, zip_folder, zip_folder_under};

/// The frontmatter of the state document at `path`, once the runtime has written what it queued.
async fn frontmatter(world: &common::World, path: &std::path::Path) -> Value {
    world.folders.flush().await;
    let text = std::fs::read_to_string(path).unwrap();
    let yaml = text.strip_prefix("---\n").unwrap().split("\n---\n").next().unwrap().to_owned();
    serde_saphyr::from_str(&yaml).unwrap()
}

fn scoped() -> AdvanceInput {
    AdvanceInput {
        notes: Some("scoped".into()),
        artifacts: Some(json!({ "intent": "fix", "files": [] })),
        ..AdvanceInput::default()
    }
}

#[tokio::test]
async fn a_run_folder_holds_a_manifest_and_two_runs_never_share_one() {
    let world = common::World::new().await;
    let (one, two) = tokio::join!(world.start("code-review"), world.start("code-review"));
    assert_ne!(world.folder(&one), world.folder(&two));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(world.folder(&one).join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["workflowId"], "code-review");
    assert_eq!(manifest["workflowHash"], one.workflow.hash.to_string());
    assert_eq!(manifest["runId"], one.run.to_string());
    assert_eq!(manifest["sessionId"], one.session.to_string());
    assert!(manifest["startedAt"].as_str().unwrap().ends_with('Z'));
    assert_eq!(manifest["files"], json!([]));
    let host = world.host(HostConfig::default());
    host.call("save_output", json!({ "path": "report/summary.md", "content": "done\n" }), Some(one.run)).await.unwrap();
    host.call("save_output", json!({ "path": "report/summary.md", "content": "done again\n" }), Some(one.run))
        .await
        .unwrap();
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(world.folder(&one).join("manifest.json")).unwrap()).unwrap();
    let files = manifest["files"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{manifest}");
    assert_eq!(files[0]["path"], "report/summary.md");
    assert_eq!(files[0]["bytes"], 11);
    assert_eq!(files[0]["sha256"], switchyard_files::sha256_hex(b"done again\n"));
    assert!(!world.folder(&two).join("report").exists());
    let document = frontmatter(&world, &world.folder(&one).join("state/workflow.md")).await;
    assert_eq!(document["artifacts"][0]["path"], "report/summary.md", "{document}");
}

#[tokio::test]
async fn events_from_another_door_regenerate_the_document() {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let path = world.folder(&started).join("state/workflow.md");
    let token = started.tokens.continue_token.clone().unwrap();
    world.runtime.advance(&token, Some(started.run), scoped()).await.unwrap();
    let document = frontmatter(&world, &path).await;
    assert_eq!(document["currentNodeId"], "assess");
    assert_eq!(document["stepsCompleted"], json!(["scope"]));
    assert_eq!(document["decisionLog"][0]["notes"], "scoped");
    world.runtime.pause(started.run, Some("lunch".into())).await.unwrap();
    assert_eq!(frontmatter(&world, &path).await["status"], "paused");
    let host = world.host(HostConfig::default());
    let refused = host
        .call(
            "update_frontmatter",
            json!({ "path": "state/workflow.md", "operations": [{ "op": "set", "key": "currentNodeId", "value": "decide" }] }),
            Some(started.run),
        )
        .await
        .unwrap_err();
    // The move is legal; the engine's pause rule refuses it, as through any door.
    assert_eq!(refused.code, codes::RUNTIME, "{refused}");
    assert!(refused.message.contains("RUN_PAUSED"), "{refused}");
    assert_eq!(frontmatter(&world, &path).await["currentNodeId"], "assess");
    world.runtime.resume(started.run).await.unwrap();
    assert_eq!(frontmatter(&world, &path).await["status"], "active");
}

#[tokio::test]
async fn a_missing_or_stale_document_is_rebuilt_from_the_log() {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let folder = world.folder(&started);
    let token = started.tokens.continue_token.clone().unwrap();
    world.runtime.advance(&token, Some(started.run), scoped()).await.unwrap();
    let path = folder.join("state/workflow.md");
    let expected = frontmatter(&world, &path).await;
    let host = world.host(HostConfig::default());
    let current = std::fs::read_to_string(&path).unwrap();
    let stale = current
        .replace(&format!("eventSeq: {}", expected["eventSeq"]), "eventSeq: 1")
        .replace("stepsCompleted:\n- scope\n", "stepsCompleted: []\n");
    assert_ne!(stale, current);
    // A crash between a commit and the projection's rename leaves no document, or an old one.
    for damaged in [None, Some(stale), Some("not a state document".to_owned())] {
        match damaged {
            None => std::fs::remove_file(&path).unwrap(),
            Some(text) => std::fs::write(&path, text).unwrap(),
        }
        let text = host.call("read_file", json!({ "path": "state/workflow.md" }), Some(started.run)).await.unwrap();
        assert!(text.contains("currentNodeId: assess"), "{text}");
        let rebuilt = frontmatter(&world, &path).await;
        for key in ["currentNodeId", "stepsCompleted", "nodeId", "eventSeq", "variables"] {
            assert_eq!(rebuilt[key], expected[key], "{key}");
        }
        assert_eq!(rebuilt["decisionLog"][0]["notes"], "scoped");
    }
}

/// The start writes the first document itself and hands its projection to the state writer, so
/// the first advance extends that projection instead of reading the file back on the request
/// path. A planted entry in the file therefore does not reach the next document.
#[tokio::test]
async fn the_first_advance_extends_the_start_document_without_reading_it_back() {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let path = world.folder(&started).join("state/workflow.md");
    world.folders.flush().await;
    let written = std::fs::read_to_string(&path).unwrap();
    let planted = written.replace("stepsCompleted: []\n", "stepsCompleted:\n- planted\n");
    assert_ne!(planted, written, "the start document lists no completed step");
    std::fs::write(&path, planted).unwrap();
    let token = started.tokens.continue_token.clone().unwrap();
    world.runtime.advance(&token, Some(started.run), scoped()).await.unwrap();
    assert_eq!(frontmatter(&world, &path).await["stepsCompleted"], json!(["scope"]));
}

#[tokio::test]
async fn a_fork_projects_its_own_branch() {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let folder = world.folder(&started);
    let token = started.tokens.continue_token.clone().unwrap();
    let assess = world.runtime.advance(&token, Some(started.run), scoped()).await.unwrap();
    let findings = AdvanceInput {
        notes: Some("none".into()),
        artifacts: Some(json!({ "findings": [] })),
        ..AdvanceInput::default()
    };
    world.runtime.advance(&assess.tokens.continue_token.clone().unwrap(), Some(started.run), findings).await.unwrap();
    assert_eq!(
        frontmatter(&world, &folder.join("state/workflow.md")).await["stepsCompleted"],
        json!(["scope", "assess"])
    );
    let back = world.runtime.show(&Target::Node(assess.node)).await.unwrap();
    let again = AdvanceInput {
        notes: Some("again".into()),
        artifacts: Some(json!({ "findings": [] })),
        ..AdvanceInput::default()
    };
    let forked = world.runtime.advance(&back.tokens.continue_token.unwrap(), Some(started.run), again).await.unwrap();
    assert!(forked.forked);
    let document = frontmatter(&world, &folder.join("state/workflow.md")).await;
    assert_eq!(document["nodeId"], forked.node.to_string());
    assert_eq!(document["stepsCompleted"], json!(["scope", "assess"]));
    let log = document["decisionLog"].as_array().unwrap();
    assert_eq!(log.len(), 2, "{document}");
    assert_eq!(log[1]["notes"], "again");
}

#[tokio::test]
async fn preload_reads_the_workflow_file_and_reports_missing_references() {
    let world = common::World::new().await;
    let bundle = tempfile::tempdir().unwrap();
    let source = include_str!("../../compiler/builtins/code-review.yaml").replace("id: code-review", "id: my-review");
    std::fs::write(bundle.path().join("my-review.yaml"), &source).unwrap();
    let started = world
        .runtime
        .start(
            &Catalog::builtins_only(),
            StartRequest {
                file: Some(bundle.path().join("my-review.yaml")),
                goal: "Review".into(),
                ..StartRequest::default()
            },
        )
        .await
        .unwrap();
    let host = world.host(HostConfig::default());
    let preload: Value =
        serde_json::from_str(&host.call("preload_workflow", json!({}), Some(started.run)).await.unwrap()).unwrap();
    assert_eq!(preload["files"][0]["path"], "{bundle-root}/my-review.yaml");
    assert_eq!(preload["files"][0]["content"], source);
    assert_eq!(preload["missing"], json!([]));
    let refused = host
        .call("write_file", json!({ "path": "{bundle-root}/my-review.yaml", "content": "x" }), Some(started.run))
        .await
        .unwrap_err();
    assert_eq!(refused.code, codes::READ_ONLY);

    let mut references: Vec<Reference> = (0..50)
        .map(|index| {
            std::fs::write(bundle.path().join(format!("step-{index:02}.md")), format!("step {index}\n")).unwrap();
            Reference { path: format!("{{bundle-root}}/step-{index:02}.md"), conditional: index >= 45 }
        })
        .collect();
    references.push(Reference { path: "{bundle-root}/tasks/elicit.md".into(), conditional: true });
    references.push(Reference { path: "{bundle-root}/../escape.md".into(), conditional: false });
    let mounts = host.mounts(started.run).await.unwrap();
    let preload: Value = serde_json::from_str(&host.preload(mounts, &references).await.unwrap()).unwrap();
    assert_eq!(preload["files"].as_array().unwrap().len(), 50);
    assert_eq!(preload["files"][49]["content"], "step 49\n");
    assert_eq!(preload["files"][49]["conditional"], true);
    let missing: Vec<&str> =
        preload["missing"].as_array().unwrap().iter().map(|item| item["code"].as_str().unwrap()).collect();
    assert_eq!(missing, vec![codes::NOT_FOUND, codes::TRAVERSAL]);

    let small = world.host(HostConfig { max_preload_bytes: 100, ..HostConfig::default() });
    let mounts = small.mounts(started.run).await.unwrap();
    let error = small.preload(mounts, &references).await.unwrap_err();
    assert_eq!(error.code, codes::TOO_LARGE);
    assert!(error.message.contains("preload limit"), "{error}");
}

async fn start_file(world: &common::World, file: &std::path::Path) -> switchyard_runtime::StepResponse {
    world
        .runtime
        .start(
            &Catalog::builtins_only(),
            StartRequest { file: Some(file.to_owned()), goal: "Greet".into(), ..StartRequest::default() },
        )
        .await
        .unwrap()
}

fn paths(list: &Value) -> Vec<String> {
    let mut paths: Vec<String> =
        list.as_array().unwrap().iter().map(|item| item["path"].as_str().unwrap().to_owned()).collect();
    paths.sort();
    paths
}

#[tokio::test]
async fn preload_reads_a_zip_bundle_from_the_archive_as_it_reads_a_folder_bundle() {
    let world = common::World::new().await;
    let host = world.host(HostConfig::default());
    let folder = testdata().join("crewagent/hello-branch");
    let from_folder = start_file(&world, &folder).await;
    let expected: Value =
        serde_json::from_str(&host.call("preload_workflow", json!({}), Some(from_folder.run)).await.unwrap()).unwrap();

    // The archive lies beside files named like its entries; they must not be what is read.
    // Every entry sits under `hello-branch/`, read as the bundle's root.
    let beside = tempfile::tempdir().unwrap();
    let archive = beside.path().join("hello-branch.zip");
    zip_folder_under(&folder, &archive, "hello-branch/");
    std::fs::create_dir(beside.path().join("steps")).unwrap();
    std::fs::write(beside.path().join("steps/step-01.md"), "not the bundle's file\n").unwrap();
    let from_zip = start_file(&world, &archive).await;
    let preload: Value =
        serde_json::from_str(&host.call("preload_workflow", json!({}), Some(from_zip.run)).await.unwrap()).unwrap();

    let files = paths(&preload["files"]);
    assert_eq!(files, paths(&expected["files"]), "{preload:#}");
    assert!(files.contains(&"{bundle-root}/steps/step-01.md".to_owned()), "{files:?}");
    assert!(files.len() >= 8, "the graph, the instructions and six step files: {files:?}");
    for file in preload["files"].as_array().unwrap() {
        let relative = file["path"].as_str().unwrap().strip_prefix("{bundle-root}/").unwrap();
        let on_disk = std::fs::read_to_string(folder.join(relative)).unwrap();
        assert_eq!(file["content"], on_disk, "{relative}");
        assert_eq!(file["bytes"], on_disk.len(), "{relative}");
    }
    // The same missing references: none, since the step's declared output is an artifact the
    // agent will write, not a file of the package.
    let reported = |preload: &Value| -> Vec<(String, String)> {
        let missing = preload["missing"].as_array().unwrap().iter();
        missing.map(|item| (item["path"].to_string(), item["code"].to_string())).collect()
    };
    assert_eq!(reported(&preload), reported(&expected));
    assert_eq!(paths(&preload["missing"]), Vec::<String>::new());
    assert_eq!(preload["total_bytes"].as_u64(), expected["total_bytes"].as_u64());

    // `{bundle-root}` is the archive for the other tools too.
    let read = |path: &str| host.call("read_file", json!({ "path": path }), Some(from_zip.run));
    assert_eq!(
        read("{bundle-root}/steps/step-01.md").await.unwrap(),
        std::fs::read_to_string(folder.join("steps/step-01.md")).unwrap()
    );
    let missing = read("{bundle-root}/steps/step-1.md").await.unwrap_err();
    assert_eq!(missing.code, codes::NOT_FOUND);
    assert_eq!(missing.details.as_ref().unwrap()["nearby"][0], "steps/step-01.md", "{missing}");
    assert_eq!(read("{bundle-root}/../hello-branch.zip").await.unwrap_err().code, codes::TRAVERSAL);
    assert_eq!(read("{bundle-root}/steps").await.unwrap_err().code, codes::IS_DIRECTORY);
    let listed =
        host.call("list_files", json!({ "path": "{bundle-root}/steps", "glob": "step-*" }), Some(from_zip.run)).await;
    assert_eq!(listed.unwrap().lines().count(), 3, "step-01, step-03a, step-03b");
    let refused = host
        .call("write_file", json!({ "path": "{bundle-root}/steps/step-01.md", "content": "x" }), Some(from_zip.run))
        .await
        .unwrap_err();
    assert_eq!(refused.code, codes::READ_ONLY, "{refused}");
    assert_eq!(std::fs::read_to_string(beside.path().join("steps/step-01.md")).unwrap(), "not the bundle's file\n");

    // The bounds hold for the archive as for a folder: per file, and in all.
    let small = world.host(HostConfig { max_read_bytes: 40, ..HostConfig::default() });
    let bounded: Value =
        serde_json::from_str(&small.call("preload_workflow", json!({}), Some(from_zip.run)).await.unwrap()).unwrap();
    let too_large: Vec<&Value> =
        bounded["missing"].as_array().unwrap().iter().filter(|item| item["code"] == codes::TOO_LARGE).collect();
    assert!(!too_large.is_empty(), "{bounded:#}");
    let tight = world.host(HostConfig { max_preload_bytes: 100, ..HostConfig::default() });
    let error = tight.call("preload_workflow", json!({}), Some(from_zip.run)).await.unwrap_err();
    assert_eq!(error.code, codes::TOO_LARGE);
    assert!(error.message.contains("preload limit"), "{error}");
}

#[tokio::test]
async fn preload_of_a_multi_workflow_package_returns_the_files_of_the_workflow_that_runs() {
    let world = common::World::new().await;
    let package = testdata().join("crewagent/release-train");
    copy_folder(&package, &world.home.path().join("workflows/release-train"));
    let beside = tempfile::tempdir().unwrap();
    let archive = beside.path().join("release-train.zip");
    zip_folder(&package, &archive);
    let host = world.host(HostConfig::default());
    let ship = world.start("release-train.ship").await;
    let plan = world.start("release-train.plan").await;
    // A package named as a file runs its first workflow.
    let first = start_file(&world, &archive).await;
    for (started, own, other) in [
        (ship, "workflows/ship/", "workflows/plan/"),
        (plan, "workflows/plan/", "workflows/ship/"),
        (first, "workflows/plan/", "workflows/ship/"),
    ] {
        let preload: Value =
            serde_json::from_str(&host.call("preload_workflow", json!({}), Some(started.run)).await.unwrap()).unwrap();
        let files = paths(&preload["files"]);
        assert!(files.iter().any(|path| path.contains(own)), "{own}: {files:?}");
        assert!(!files.iter().any(|path| path.contains(other)), "{own}: {files:?}");
        assert_eq!(preload["missing"], json!([]), "{own}");
    }
}

#[tokio::test]
async fn a_blocked_attempt_is_no_move_in_the_decision_log() {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let path = world.folder(&started).join("state/workflow.md");
    let token = started.tokens.continue_token.clone().unwrap();
    let blocked = world.runtime.advance(&token, Some(started.run), AdvanceInput::default()).await.unwrap();
    assert_eq!(blocked.status.as_str(), "blocked", "scope requires notes and artifacts");
    let document = frontmatter(&world, &path).await;
    assert_eq!(document["decisionLog"], json!([]), "{document}");
    let retry = blocked.tokens.continue_token.clone().unwrap();
    world.runtime.advance(&retry, Some(started.run), scoped()).await.unwrap();
    let document = frontmatter(&world, &path).await;
    let log = document["decisionLog"].as_array().unwrap();
    assert_eq!(log.len(), 1, "{document}");
    assert_eq!((log[0]["step"].as_str(), log[0]["to"].as_str()), (Some("scope"), Some("assess")));
}

#[tokio::test]
async fn preload_lists_the_files_the_run_started_from_even_when_the_source_changes_on_disk() {
    let world = common::World::new().await;
    let host = world.host(HostConfig::default());
    let folder = tempfile::tempdir().unwrap();
    copy_folder(&testdata().join("crewagent/hello-branch"), folder.path());
    let started = start_file(&world, folder.path()).await;
    let preload = || async {
        let text = host.call("preload_workflow", json!({}), Some(started.run)).await.unwrap();
        serde_json::from_str::<Value>(&text).unwrap()
    };
    let before = preload().await;
    assert!(paths(&before["files"]).contains(&"{bundle-root}/steps/end-99.md".to_owned()), "{before:#}");

    // The last step now names another file: a new run would read it, this run does not.
    let graph = folder.path().join("workflow.graph.json");
    let edited = std::fs::read_to_string(&graph).unwrap().replace("steps/end-99.md", "steps/extra.md");
    std::fs::write(&graph, edited).unwrap();
    std::fs::write(folder.path().join("steps/extra.md"), "# Extra\n").unwrap();
    let after = preload().await;
    assert_eq!(paths(&after["files"]), paths(&before["files"]), "{after:#}");
    assert_eq!(paths(&after["missing"]), paths(&before["missing"]));
}

#[tokio::test]
async fn manifest_times_come_from_the_runtime_clock() {
    const FIXED_MS: i64 = 1_767_434_400_000;
    let world = common::World::with_clock(Arc::new(FixedClock(FIXED_MS))).await;
    let started = world.start("code-review").await;
    let host = world.host(HostConfig::default());
    host.call("save_output", json!({ "path": "report.md", "content": "done\n" }), Some(started.run)).await.unwrap();
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(world.folder(&started).join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["startedAt"], "2026-01-03T10:00:00.000Z");
    assert_eq!(manifest["files"][0]["writtenAt"], "2026-01-03T10:00:00.000Z", "{manifest:#}");
}
