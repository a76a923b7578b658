//! A run is pinned to the workflow it started with: editing the file changes new runs only.

mod support;

use support::{Sandbox, continue_token, string};

const VERSION_ONE: &str = "\
id: pinned
title: Pinned
steps:
  - id: first
    title: First
    prompt: Do the first thing.
    next: second
  - id: second
    title: Second
    prompt: Version one of the second step.
";

#[test]
fn editing_a_workflow_file_never_changes_a_running_run() {
    let sandbox = Sandbox::new();
    let path = sandbox.write_workflow("pinned.yaml", VERSION_ONE);
    let old = sandbox.run(&["start", "pinned", "--goal", "old"]).ok();

    let version_two = VERSION_ONE.replace("Version one of the second step.", "Version two.\n    next: third")
        + "  - id: third\n    title: Third\n    prompt: A step added later.\n";
    std::fs::write(&path, version_two).unwrap();
    let new = sandbox.run(&["start", "pinned", "--goal", "new"]).ok();
    assert_ne!(old["workflow"]["hash"], new["workflow"]["hash"]);

    let old_second = sandbox.run(&["continue", &continue_token(&old), "--notes", "done"]).ok();
    assert_eq!(old_second["step"]["prompt"], "Version one of the second step.");
    assert_eq!(old_second["step"]["allowed_next"], serde_json::json!([]), "the old run has no third step");
    let new_second = sandbox.run(&["continue", &continue_token(&new), "--notes", "done"]).ok();
    assert_eq!(new_second["step"]["prompt"], "Version two.");

    // Even with the file gone, the old run finishes on its pinned copy.
    std::fs::remove_file(&path).unwrap();
    let done = sandbox.run(&["continue", &continue_token(&old_second), "--notes", "done"]).ok();
    assert_eq!(done["kind"], "complete");
    let status = sandbox.run(&["status", &string(&old["run"])]).ok();
    assert_eq!(status["workflow_hash"], old["workflow"]["hash"]);
}
