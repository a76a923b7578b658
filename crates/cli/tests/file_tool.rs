//! `switchyard tool` and `switchyard schema state` through the real binary: the file door from
//! the command line, refusals as JSON errors with exit code 1.

mod support;

use serde_json::json;
use support::{Sandbox, string};

#[test]
fn the_tool_command_reads_moves_and_refuses_like_the_other_doors() {
    let sandbox = Sandbox::new();
    let started = sandbox.run(&["start", "code-review", "--goal", "Review PR 9"]).ok();
    let run = string(&started["run"]);
    let folder = sandbox.home.path().join("runs").join(string(&started["session"]));
    assert!(folder.join("manifest.json").is_file() && folder.join("state/workflow.md").is_file());

    let read =
        sandbox.run(&["tool", "read_file", r#"{"path": "{output-root}/state/workflow.md"}"#, "--run", &run]).ok();
    assert!(string(&read["content"]).contains("currentNodeId: scope"), "{read}");

    let before = std::fs::read(folder.join("state/workflow.md")).unwrap();
    let skip = json!({ "path": "state/workflow.md", "operations": [{ "op": "set", "key": "currentNodeId", "value": "decide" }] });
    let refused = sandbox.run(&["tool", "update_frontmatter", &skip.to_string(), "--run", &run]).expect(1);
    assert_eq!(refused["error"]["code"], "E_INVALID_TRANSITION");
    assert_eq!(refused["error"]["details"]["allowedNext"][0]["to"], "assess");
    assert_eq!(std::fs::read(folder.join("state/workflow.md")).unwrap(), before);

    let escape =
        sandbox.run(&["tool", "save_output", r#"{"path": "../../evil.md", "content": "x"}"#, "--run", &run]).expect(1);
    assert_eq!(escape["error"]["code"], "E_PATH_TRAVERSAL");

    let step = json!({ "path": "state/workflow.md", "operations": [
        { "op": "set", "key": "currentNodeId", "value": "assess" },
        { "op": "append", "key": "decisionLog", "value": { "notes": "scoped", "artifacts": { "intent": "x", "files": [] } } }
    ] });
    let moved = sandbox.run(&["tool", "update_frontmatter", &step.to_string(), "--run", &run]).ok();
    assert!(string(&moved["content"]).contains("assess"), "{moved}");
    assert_eq!(sandbox.count_events(&run, "advance_recorded"), 1);
    let shown = sandbox.run(&["show", &run]).ok();
    assert_eq!(shown["step"]["step"], "assess");
}

#[test]
fn tool_list_and_the_state_schema_are_published() {
    let sandbox = Sandbox::new();
    let tools = sandbox.run(&["tool", "list"]).ok();
    let names: Vec<&str> = tools.as_array().unwrap().iter().map(|tool| tool["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "list_files",
            "save_output",
            "write_file",
            "apply_patch",
            "update_frontmatter",
            "preload_workflow"
        ]
    );
    let schema = sandbox.run(&["schema", "state"]).ok();
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert!(schema["required"].as_array().unwrap().contains(&json!("currentNodeId")));
}

/// Regression: the manifest's read-modify-write was serialised only within one process, so two
/// processes writing outputs to the same run at once could drop each other's entries.
#[test]
fn writers_in_separate_processes_never_lose_each_others_manifest_entries() {
    const FILES_PER_WRITER: usize = 12;
    let sandbox = Sandbox::new();
    let started = sandbox.run(&["start", "code-review", "--goal", "Review PR 9"]).ok();
    let run = string(&started["run"]);
    let folder = sandbox.home.path().join("runs").join(string(&started["session"]));
    let content = |writer: &str, index: usize| format!("{writer} wrote file {index}\n{}", "x".repeat(index * 7));
    // Every write is its own process, and all of them are started before any is awaited, so the
    // two writers' manifest updates overlap.
    let mut children = Vec::new();
    for index in 0..FILES_PER_WRITER {
        for writer in ["first", "second"] {
            let arguments = json!({ "path": format!("{writer}/{index:02}.md"), "content": content(writer, index) });
            let child = sandbox.spawn(&["tool", "save_output", &arguments.to_string(), "--run", &run]);
            children.push((format!("{writer}/{index:02}.md"), child));
        }
    }
    for (path, child) in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{path}: {}", String::from_utf8_lossy(&output.stderr));
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("manifest.json")).unwrap()).unwrap();
    let listed: Vec<(String, u64, String)> = manifest["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| (string(&file["path"]), file["bytes"].as_u64().unwrap(), string(&file["sha256"])))
        .collect();
    let mut expected = Vec::new();
    for writer in ["first", "second"] {
        for index in 0..FILES_PER_WRITER {
            let text = content(writer, index);
            let path = format!("{writer}/{index:02}.md");
            assert_eq!(std::fs::read_to_string(folder.join(&path)).unwrap(), text);
            expected.push((path, text.len() as u64, switchyard_files::sha256_hex(text.as_bytes())));
        }
    }
    assert_eq!(listed, expected, "the manifest lists every file written, once, sorted by path");
    assert!(folder.join(".manifest.lock").is_file(), "the lock lives in the run folder");
    assert!(!listed.iter().any(|(path, _, _)| path.contains("lock")));
    let refused =
        sandbox.run(&["tool", "write_file", r#"{"path": ".manifest.lock", "content": "x"}"#, "--run", &run]).expect(1);
    assert_eq!(refused["error"]["code"], "E_READ_ONLY");
}
