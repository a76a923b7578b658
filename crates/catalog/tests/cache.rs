//! The compile cache behind discovery: a listed file compiles once per process until its text
//! changes, a broken file keeps its diagnostics, and the catalogs of every workspace share it.
//! Compiles are observed through `catalog::compiles_of`, never through timing.

use std::fs;
use std::path::Path;

use switchyard_catalog::compiles_of;
use switchyard_catalog::{Catalog, Found};

/// A native workflow file with one step.
fn workflow_text(id: &str, title: &str) -> String {
    format!(
        "id: {id}\nversion: \"1\"\ntitle: {title}\nsteps:\n  - id: only\n    title: The only step\n    prompt: Do the \
         work.\n"
    )
}

fn write_workflow(folder: &Path, id: &str, title: &str) -> String {
    fs::create_dir_all(folder).unwrap();
    let path = folder.join(format!("{id}.yaml"));
    fs::write(&path, workflow_text(id, title)).unwrap();
    path.display().to_string()
}

fn listed<'a>(found: &'a [Found], name: &str) -> &'a Found {
    found.iter().find(|found| found.name == name).unwrap_or_else(|| panic!("{name} is not listed"))
}

fn title_of(found: &Found) -> String {
    found.compiled.workflow.as_ref().expect("the workflow compiles").title.clone()
}

#[test]
fn listing_twice_compiles_each_file_once() {
    let home = tempfile::tempdir().unwrap();
    let path = write_workflow(&home.path().join("workflows"), "cached-once", "Cached once");
    let catalog = Catalog::new(None, home.path());

    let first = catalog.list();
    let second = catalog.list();
    catalog.find("cached-once").unwrap();

    assert_eq!(compiles_of(&path), 1);
    assert_eq!(listed(&first, "cached-once").compiled, listed(&second, "cached-once").compiled);
    assert_eq!(title_of(listed(&second, "cached-once")), "Cached once");
    // The built-ins are listed from the cache as well, compiled as before.
    assert!(listed(&second, "code-review").compiled.workflow.is_some());
}

#[test]
fn a_rewritten_file_is_recompiled_on_the_next_list() {
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join("workflows");
    let path = write_workflow(&folder, "rewritten", "First title");
    let catalog = Catalog::new(None, home.path());
    assert_eq!(title_of(listed(&catalog.list(), "rewritten")), "First title");

    // Same path, same length, written at once: a stamp of length and modification time could
    // miss this rewrite; the text cannot.
    write_workflow(&folder, "rewritten", "Other title");

    assert_eq!(title_of(listed(&catalog.list(), "rewritten")), "Other title");
    assert_eq!(compiles_of(&path), 2);
}

#[test]
fn a_broken_file_keeps_its_diagnostics_when_cached() {
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join("workflows");
    fs::create_dir_all(&folder).unwrap();
    let path = folder.join("broken.yaml");
    fs::write(&path, "id: broken\nversion: \"1\"\ntitle: Broken\nsteps:\n  - id: only\n").unwrap();
    let catalog = Catalog::new(None, home.path());

    let first = catalog.list();
    let second = catalog.list();

    let (first, second) = (listed(&first, "broken"), listed(&second, "broken"));
    assert!(first.compiled.workflow.is_none());
    assert!(first.compiled.errors().next().is_some());
    assert_eq!(first.compiled.diagnostics, second.compiled.diagnostics);
    assert_eq!(compiles_of(&path.display().to_string()), 1);
}

#[test]
fn the_catalogs_of_every_workspace_share_the_cache() {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let user = write_workflow(&home.path().join("workflows"), "shared-user", "Shared user");
    let project =
        write_workflow(&workspace.path().join(".switchyard").join("workflows"), "shared-project", "Shared project");
    let catalog = Catalog::new(None, home.path());

    catalog.list();
    let found = catalog.for_project(Some(workspace.path())).list();
    catalog.for_project(Some(workspace.path())).find("shared-project").unwrap();

    assert_eq!(title_of(listed(&found, "shared-project")), "Shared project");
    assert_eq!(compiles_of(&user), 1);
    assert_eq!(compiles_of(&project), 1);
}

#[test]
fn a_workrail_file_is_recompiled_when_its_routines_change() {
    let home = tempfile::tempdir().unwrap();
    let folder = home.path().join("workflows");
    fs::create_dir_all(&folder).unwrap();
    let path = folder.join("calls-routine.json");
    let workflow = r#"{"id": "calls-routine", "name": "Calls a routine", "version": "1.0.0",
        "description": "Calls the tiny routine.",
        "steps": [{"id": "design", "title": "Design",
                   "templateCall": {"templateId": "wr.templates.routine.tiny", "args": {}}}]}"#;
    fs::write(&path, workflow).unwrap();
    let catalog = Catalog::new(None, home.path());
    let step_ids = |found: &[Found]| -> Vec<String> {
        let workflow = listed(found, "calls-routine").compiled.workflow.as_ref().expect("the workflow compiles");
        workflow.steps.iter().map(|step| step.id.to_string()).collect()
    };
    assert_eq!(step_ids(&catalog.list()), ["design"]);

    // The workflow file is untouched; only the routine it calls appears beside it.
    fs::create_dir_all(folder.join("routines")).unwrap();
    let routine = r#"{"id": "routine-tiny", "name": "Tiny", "version": "1.0.0", "description": "One step.",
        "steps": [{"id": "only", "title": "The only step", "prompt": "Do the work."}]}"#;
    fs::write(folder.join("routines").join("tiny.json"), routine).unwrap();

    assert_eq!(step_ids(&catalog.list()), ["design.only"]);
    assert_eq!(compiles_of(&path.display().to_string()), 2);
}
