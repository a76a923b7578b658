//! Run output folders and the state document as a projection: created at start, regenerated
//! after events from any door, rebuilt when stale or after a fork; and preload.

mod common;

use std::sync::Arc;

use serde_json::{Value, json};
use switchyard_files::preload::Reference;
use switchyard_files::{FileHost, HostConfig, codes};
use switchyard_runtime::{AdvanceInput, StartRequest, Target};

fn frontmatter(path: &std::path::Path) -> Value {
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
    let host = FileHost::new(Arc::clone(&world.runtime), HostConfig::default());
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
    let document = frontmatter(&world.folder(&one).join("state/workflow.md"));
    assert_eq!(document["artifacts"][0]["path"], "report/summary.md", "{document}");
}

#[tokio::test]
async fn events_from_another_door_regenerate_the_document() {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let path = world.folder(&started).join("state/workflow.md");
    let token = started.tokens.continue_token.clone().unwrap();
    world.runtime.advance(&token, Some(started.run), scoped()).await.unwrap();
    let document = frontmatter(&path);
    assert_eq!(document["currentNodeId"], "assess");
    assert_eq!(document["stepsCompleted"], json!(["scope"]));
    assert_eq!(document["decisionLog"][0]["notes"], "scoped");
    world.runtime.pause(started.run, Some("lunch".into())).await.unwrap();
    assert_eq!(frontmatter(&path)["status"], "paused");
    let host = FileHost::new(Arc::clone(&world.runtime), HostConfig::default());
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
    assert_eq!(frontmatter(&path)["currentNodeId"], "assess");
    world.runtime.resume(started.run).await.unwrap();
    assert_eq!(frontmatter(&path)["status"], "active");
}

#[tokio::test]
async fn a_missing_or_stale_document_is_rebuilt_from_the_log() {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let folder = world.folder(&started);
    let token = started.tokens.continue_token.clone().unwrap();
    world.runtime.advance(&token, Some(started.run), scoped()).await.unwrap();
    let path = folder.join("state/workflow.md");
    let expected = frontmatter(&path);
    let host = FileHost::new(Arc::clone(&world.runtime), HostConfig::default());
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
        let rebuilt = frontmatter(&path);
        for key in ["currentNodeId", "stepsCompleted", "nodeId", "eventSeq", "variables"] {
            assert_eq!(rebuilt[key], expected[key], "{key}");
        }
        assert_eq!(rebuilt["decisionLog"][0]["notes"], "scoped");
    }
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
    assert_eq!(frontmatter(&folder.join("state/workflow.md"))["stepsCompleted"], json!(["scope", "assess"]));
    let back = world.runtime.show(&Target::Node(assess.node)).await.unwrap();
    let again = AdvanceInput {
        notes: Some("again".into()),
        artifacts: Some(json!({ "findings": [] })),
        ..AdvanceInput::default()
    };
    let forked = world.runtime.advance(&back.tokens.continue_token.unwrap(), Some(started.run), again).await.unwrap();
    assert!(forked.forked);
    let document = frontmatter(&folder.join("state/workflow.md"));
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
        .start(StartRequest {
            file: Some(bundle.path().join("my-review.yaml")),
            goal: "Review".into(),
            ..StartRequest::default()
        })
        .await
        .unwrap();
    let host = FileHost::new(Arc::clone(&world.runtime), HostConfig::default());
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

    let small =
        FileHost::new(Arc::clone(&world.runtime), HostConfig { max_preload_bytes: 100, ..HostConfig::default() });
    let mounts = small.mounts(started.run).await.unwrap();
    let error = small.preload(mounts, &references).await.unwrap_err();
    assert_eq!(error.code, codes::TOO_LARGE);
    assert!(error.message.contains("preload limit"), "{error}");
}
