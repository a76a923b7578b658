//! A BMad Method workflow installed in a project (`{project-root}/bmad/…`) compiles with the
//! module configs and invoked workflows it names under `{project-root}`: the catalog adds them
//! to the bundle it hands the compiler, never following a path out of the project.

use std::path::{Path, PathBuf};

use switchyard_catalog::Catalog;
use switchyard_compiler::{Compiled, ReferenceRole};
use switchyard_test_support::{copy_folder, corpora};

fn alpha7() -> PathBuf {
    corpora().join("bmad/6.0.0-alpha.7")
}

const CONFIG: &str = "user_name: Ada\ncommunication_language: English\ndocument_output_language: English\n\
                      user_skill_level: expert\noutput_folder: \"{project-root}/docs\"\n";

/// A project with the brainstorm-project workflow installed under `bmad/bmm/workflows/`, the
/// core brainstorming workflow it invokes under `bmad/core/workflows/`, and the module configs
/// both read. Returns the installed brainstorm-project folder.
fn project(root: &Path) -> PathBuf {
    let installed = root.join("bmad/bmm/workflows/1-analysis/brainstorm-project");
    copy_folder(&alpha7().join("src/modules/bmm/workflows/1-analysis/brainstorm-project"), &installed);
    copy_folder(&alpha7().join("src/core/workflows/brainstorming"), &root.join("bmad/core/workflows/brainstorming"));
    for module in ["bmm", "cis"] {
        std::fs::create_dir_all(root.join("bmad").join(module)).unwrap();
        std::fs::write(root.join("bmad").join(module).join("config.yaml"), CONFIG).unwrap();
    }
    installed
}

fn compile(path: &Path) -> Compiled {
    let mut found = Catalog::bundle(path).unwrap();
    assert_eq!(found.len(), 1);
    let compiled = found.remove(0).compiled;
    let errors: Vec<String> = compiled.errors().map(ToString::to_string).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    compiled
}

fn warnings(compiled: &Compiled, code: &str) -> Vec<String> {
    compiled.warnings().filter(|warning| warning.code == code).map(|warning| warning.message.clone()).collect()
}

fn reference(compiled: &Compiled, role: ReferenceRole, path: &str) -> Option<bool> {
    compiled
        .references
        .iter()
        .find(|reference| reference.role == role && reference.path == path)
        .map(|reference| reference.missing)
}

#[test]
fn a_workflow_in_a_project_gets_its_config_and_invoked_workflow_from_the_project_root() {
    let dir = tempfile::tempdir().unwrap();
    let installed = project(dir.path());
    let compiled = compile(&installed);
    assert!(warnings(&compiled, "method-config-source").is_empty(), "{:#?}", compiled.diagnostics);
    assert!(warnings(&compiled, "method-invoke").is_empty(), "{:#?}", compiled.diagnostics);
    assert_eq!(reference(&compiled, ReferenceRole::Config, "bmad/bmm/config.yaml"), Some(false), "{compiled:#?}");
    assert_eq!(
        reference(&compiled, ReferenceRole::InvokedWorkflow, "bmad/core/workflows/brainstorming/workflow.yaml"),
        Some(false),
        "{compiled:#?}"
    );
    let workflow = compiled.workflow.as_ref().unwrap();
    let user_name = workflow.variable("user_name").and_then(|variable| variable.default.clone());
    assert_eq!(user_name, Some(serde_json::json!("Ada")));
    // The brainstorming workflow's steps run inside the caller's.
    assert!(workflow.steps.iter().any(|step| step.id.to_string().starts_with("3.brainstorming.")), "{workflow:#?}");

    // Validation finds the same, through `Catalog::sources`.
    let sources = Catalog::sources(&installed);
    let [(_, Ok(switchyard_catalog::Sourced::Workflows(found)))] = sources.as_slice() else {
        panic!("{sources:#?}");
    };
    assert_eq!(found[0].compiled.workflow.as_ref().map(|workflow| workflow.hash()), Some(workflow.hash()));
}

#[test]
fn the_same_workflow_outside_a_project_leaves_config_and_invoked_workflow_to_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path());
    let alone = dir.path().join("elsewhere/brainstorm-project");
    copy_folder(&alpha7().join("src/modules/bmm/workflows/1-analysis/brainstorm-project"), &alone);
    let compiled = compile(&alone);
    assert_eq!(warnings(&compiled, "method-config-source").len(), 1, "{:#?}", compiled.diagnostics);
    assert_eq!(warnings(&compiled, "method-invoke").len(), 1, "{:#?}", compiled.diagnostics);
    assert_eq!(
        reference(&compiled, ReferenceRole::Config, "{project-root}/bmad/bmm/config.yaml"),
        Some(true),
        "{compiled:#?}"
    );
}

#[test]
fn paths_that_climb_out_of_the_project_or_symlink_out_of_it_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    let installed = project(&root);
    // A config beside the project, reached by `..` and by a symlink inside the project.
    std::fs::create_dir_all(dir.path().join("secret/bmm")).unwrap();
    std::fs::write(dir.path().join("secret/bmm/config.yaml"), "user_name: Mallory\n").unwrap();
    std::fs::create_dir_all(root.join("bmad/linked")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret/bmm/config.yaml"), root.join("bmad/linked/config.yaml"))
        .unwrap();
    for config_source in ["{project-root}/../secret/bmm/config.yaml", "{project-root}/bmad/linked/config.yaml"] {
        let definition = std::fs::read_to_string(installed.join("workflow.yaml")).unwrap();
        let definition = definition.replace("{project-root}/bmad/bmm/config.yaml", config_source);
        std::fs::write(installed.join("workflow.yaml"), &definition).unwrap();
        let compiled = compile(&installed);
        let found = warnings(&compiled, "method-config-source");
        assert_eq!(found.len(), 1, "{config_source}: {:#?}", compiled.diagnostics);
        assert!(found[0].contains(config_source), "{found:?}");
        let workflow = compiled.workflow.as_ref().unwrap();
        assert!(workflow.variable("user_name").is_none_or(|variable| variable.default != Some("Mallory".into())));
        // Restore for the next case.
        std::fs::write(
            installed.join("workflow.yaml"),
            definition.replace(config_source, "{project-root}/bmad/bmm/config.yaml"),
        )
        .unwrap();
    }
}
