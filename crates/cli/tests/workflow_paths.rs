//! `start` and `inspect` given a workflow file's path where a name goes: an existing file is
//! taken as `--file` takes it; a path to nothing is refused with what to use instead.

mod support;

use support::{Sandbox, string};

const WORKFLOW: &str = "id: by-path\ntitle: By path\nsteps:\n  - id: only\n    title: Only\n    prompt: Do it.\n";

#[test]
fn a_workflow_file_named_by_its_path_is_taken_as_with_file() {
    let sandbox = Sandbox::new();
    std::fs::create_dir(sandbox.project.path().join("flows")).unwrap();
    std::fs::write(sandbox.project.path().join("flows/wf.yaml"), WORKFLOW).unwrap();
    std::fs::write(
        sandbox.project.path().join("wf.json"),
        r#"{"id": "by-path-json", "title": "T", "steps": [{"id": "only", "title": "Only", "prompt": "Do it."}]}"#,
    )
    .unwrap();
    for (name, id) in [("./flows/wf.yaml", "by-path"), ("flows/wf.yaml", "by-path"), ("wf.json", "by-path-json")] {
        let started = sandbox.run(&["start", name, "--goal", "from a path"]).ok();
        assert_eq!(started["workflow"]["id"], id, "start {name}");
        let inspected = sandbox.run(&["inspect", name]).ok();
        assert_eq!(inspected["workflow"]["id"], id, "inspect {name}");
        let by_file = sandbox.run(&["inspect", "--file", name]).ok();
        assert_eq!(inspected["hash"], by_file["hash"], "the same as --file {name}");
    }
}

#[test]
fn a_path_to_no_file_is_refused_with_what_to_use_instead() {
    let sandbox = Sandbox::new();
    for name in ["./missing.yaml", "dir/wf.json", "missing.yml"] {
        for command in [&["start", name, "--goal", "x"][..], &["inspect", name]] {
            let error = &sandbox.run(command).expect(2)["error"];
            assert_eq!(error["code"], "INVALID_NAME", "{command:?}: {error}");
            let message = string(&error["message"]);
            assert!(message.contains("looks like a file path"), "{command:?}: {message}");
            assert!(message.contains("--file") && message.contains("switchyard list"), "{command:?}: {message}");
        }
    }
    assert_eq!(sandbox.run(&["sessions"]).ok(), serde_json::json!([]), "nothing was started");
}

#[test]
fn a_folder_or_a_workflow_name_with_its_extension_is_refused_with_what_to_pass() {
    let sandbox = Sandbox::new();
    sandbox.run(&["init"]).ok();
    std::fs::create_dir(sandbox.project.path().join("flows")).unwrap();
    let message = |args: &[&str]| {
        let error = &sandbox.run(args).expect(2)["error"];
        assert_eq!(error["code"], "INVALID_NAME", "{args:?}: {error}");
        string(&error["message"])
    };
    for command in [
        &["inspect", "./flows"][..],
        &["start", "flows/", "--goal", "x"],
        &["run", "flows/", "--goal", "x", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"],
    ] {
        let said = message(command);
        let what_to_give = "give the path of one workflow file in it (in place of the name, or with `--file`";
        assert!(said.contains("is a folder, not a workflow") && said.contains(what_to_give), "{command:?}: {said}");
        assert!(!said.contains("no such file"), "{said}");
    }
    // A bundle folder is a workflow: `--file` takes it, and so does the place of a name (where
    // `run`, which has no `--file`, takes it).
    let bundle = switchyard_test_support::testdata().join("crewagent/hello-branch").display().to_string();
    sandbox.run(&["inspect", "--file", &bundle]).ok();
    assert_eq!(sandbox.run(&["inspect", &bundle]).ok(), sandbox.run(&["inspect", "--file", &bundle]).ok());

    // The name of a workflow with its file's extension: the workflow it means is named.
    let said = message(&["start", "small-change.yaml", "--goal", "x"]);
    assert!(said.contains("did you mean the workflow `small-change`?"), "{said}");
    sandbox.run(&["start", "small-change", "--goal", "x"]).ok();
    // Not when no workflow has that name.
    assert!(!message(&["start", "other-change.yaml", "--goal", "x"]).contains("did you mean"));
}
