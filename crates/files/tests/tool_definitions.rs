//! The file tools' definitions as `tools/list` and `switchyard tool list` show them, pinned: a
//! change to a tool's name, description or input schema shows here as a snapshot diff to review.
//! And each tool's schema lists exactly the fields its argument struct takes, at every depth.

mod common;

use std::collections::BTreeSet;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use switchyard_files::arguments::{
    ApplyPatchArguments, ExpectedSha256, FilePath, ListFilesArguments, PreloadArguments, ReadFileArguments, RunName,
    SaveOutputArguments, UpdateFrontmatterArguments, WriteFileArguments,
};
use switchyard_files::frontmatter::Operation;
use switchyard_files::patch::Replacement;
use switchyard_files::{HostConfig, codes, tool_definitions};

#[test]
fn tool_definitions_are_pinned() {
    insta::assert_json_snapshot!(tool_definitions());
}

/// `arguments` as a call sends them, after checking that its struct reads them back.
fn sent<Arguments: Serialize + DeserializeOwned>(arguments: Arguments) -> Value {
    let value = serde_json::to_value(arguments).unwrap();
    serde_json::from_value::<Arguments>(value.clone()).expect("a struct reads back what it writes");
    value
}

/// A call of each tool with every field its struct has filled in: a field added to a struct must
/// be added here for this to compile.
fn every_field_of_each_tool() -> Vec<(&'static str, Value)> {
    let run = || Some(RunName("run_0123456789abcdef0123456789".into()));
    let path = || FilePath("{output-root}/notes.md".into());
    let if_match = || Some(ExpectedSha256("ab".repeat(32)));
    vec![
        ("read_file", sent(ReadFileArguments { run: run(), path: path(), start_line: Some(1), end_line: Some(2) })),
        (
            "list_files",
            sent(ListFilesArguments { run: run(), path: Some(path()), glob: Some("**/*.md".into()), limit: Some(3) }),
        ),
        ("save_output", sent(SaveOutputArguments { run: run(), path: path(), content: "text".into() })),
        (
            "write_file",
            sent(WriteFileArguments { run: run(), path: path(), content: "text".into(), if_match_sha256: if_match() }),
        ),
        (
            "apply_patch",
            sent(ApplyPatchArguments {
                run: run(),
                path: path(),
                if_match_sha256: if_match(),
                diff: Some("--- a\n+++ b\n".into()),
                hunks: Some(vec![Replacement { search: "old".into(), replace: "new".into() }]),
            }),
        ),
        (
            "update_frontmatter",
            sent(UpdateFrontmatterArguments {
                run: run(),
                path: path(),
                if_match_sha256: if_match(),
                operations: vec![Operation::set("variables.focus", json!("tests"))],
            }),
        ),
        ("preload_workflow", sent(PreloadArguments { run: run() })),
    ]
}

/// Every object in `instance` has exactly the fields its part of `schema` lists.
fn same_fields(at: &str, instance: &Value, schema: &Value) {
    match instance {
        Value::Object(fields) => {
            let properties =
                schema["properties"].as_object().unwrap_or_else(|| panic!("{at}: the schema lists no fields"));
            let taken: BTreeSet<&String> = fields.keys().collect();
            let listed: BTreeSet<&String> = properties.keys().collect();
            assert_eq!(taken, listed, "{at}: the fields the struct takes (left) and the schema lists (right)");
            for (name, value) in fields {
                same_fields(&format!("{at}/{name}"), value, &properties[name]);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                same_fields(&format!("{at}/{index}"), item, &schema["items"]);
            }
        }
        _ => {}
    }
}

#[test]
fn each_schema_lists_exactly_the_fields_its_struct_takes() {
    let definitions = tool_definitions();
    let calls = every_field_of_each_tool();
    let names: Vec<&str> = calls.iter().map(|(name, _)| *name).collect();
    let defined: Vec<&str> = definitions.iter().map(|definition| definition.name).collect();
    assert_eq!(names, defined, "one full call per tool, in the listed order");
    for ((name, call), definition) in calls.iter().zip(&definitions) {
        same_fields(name, call, &definition.input_schema);
        let validator = jsonschema::validator_for(&definition.input_schema).unwrap();
        let problems: Vec<String> = validator.iter_errors(call).map(|error| error.to_string()).collect();
        assert!(problems.is_empty(), "{name}: its schema refuses a call its struct takes: {problems:?}");
    }
}

#[tokio::test]
async fn an_unknown_argument_is_named_with_the_closest_one_the_tool_takes() {
    let world = common::World::new().await;
    let host = world.host(HostConfig::default());
    let error = host.call("read_file", json!({ "pathh": "notes.md", "startLine": 1 }), None).await.unwrap_err();
    assert_eq!(error.code, codes::INVALID_ARGUMENTS);
    assert!(error.message.contains("`read_file` does not take `pathh` (did you mean `path`?)"), "{}", error.message);
    for field in ["`run`", "`path`", "`startLine`", "`endLine`"] {
        assert!(error.message.contains(field), "{}", error.message);
    }
    assert!(!error.message.contains("`content`"), "only read_file's own fields: {}", error.message);
}

#[tokio::test]
async fn frontmatter_operations_are_refused_with_what_is_wrong() {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let host = world.host(HostConfig::default());
    let update = |operation: Value| {
        host.call("update_frontmatter", json!({ "path": "notes.md", "operations": [operation] }), Some(started.run))
    };
    // `notes.md` does not exist yet: these are refused for their arguments, before anything is read.
    let refused = update(json!({ "op": "sett", "key": "a", "value": 1 })).await.unwrap_err();
    assert_eq!(refused.code, codes::INVALID_ARGUMENTS);
    assert!(refused.message.contains("unknown variant `sett`, expected one of `set`, `append`, `remove`"), "{refused}");
    let refused = update(json!({ "op": "set", "key": "a" })).await.unwrap_err();
    assert_eq!(
        (refused.code, refused.message.as_str()),
        (codes::INVALID_ARGUMENTS, "operation 0: `set` needs `value`")
    );
    let refused = update(json!({ "op": "remove", "key": "a", "value": 1 })).await.unwrap_err();
    assert_eq!(
        (refused.code, refused.message.as_str()),
        (codes::INVALID_ARGUMENTS, "operation 0: `remove` takes no `value`")
    );
    host.call("save_output", json!({ "path": "notes.md", "content": "notes\n" }), Some(started.run)).await.unwrap();
    let written = update(json!({ "op": "set", "key": "a", "value": null })).await.unwrap();
    assert!(written.starts_with("wrote {output-root}/notes.md"), "{written}");
    let text = std::fs::read_to_string(world.folder(&started).join("notes.md")).unwrap();
    assert_eq!(text, "---\na: null\n---\nnotes\n");
}
