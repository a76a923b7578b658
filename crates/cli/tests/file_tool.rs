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
