//! `switchyard validate` on bundles: folders and archives of every bundle format and WorkRail
//! files with their routines are compiled as discovery compiles them, each workflow reported
//! with its diagnostics; a refused bundle is reported without hiding the others.

mod support;

use std::io::Write;
use std::path::Path;

use serde_json::Value;
use support::Sandbox;
use switchyard_test_support::{corpora, testdata};
use zip::write::SimpleFileOptions;

fn reported(report: &Value) -> Vec<String> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            let path = file["path"].as_str().unwrap();
            let shown = [testdata(), corpora()]
                .iter()
                .find_map(|root| path.strip_prefix(&root.display().to_string()))
                .unwrap_or(path);
            format!(
                "{} {} {} {}",
                shown,
                file["workflow"].as_str().unwrap_or("-"),
                file["format"].as_str().unwrap_or("-"),
                file["valid"]
            )
        })
        .collect()
}

#[test]
fn validate_compiles_bundle_folders_of_every_format() {
    let sandbox = Sandbox::new();
    let crewagent = testdata().join("crewagent");
    let quick_dev = corpora().join("bmad/6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev");
    let prd = corpora().join("bmad/6.0.0-alpha.7/src/modules/bmm/workflows/2-plan-workflows/prd");
    let report = sandbox
        .run(&[
            "validate",
            &crewagent.display().to_string(),
            &quick_dev.display().to_string(),
            &prd.display().to_string(),
        ])
        .ok();
    let lines = reported(&report);
    for expected in [
        "/crewagent/hello-branch hello-branch crewagent true",
        "/crewagent/release-train release-train.plan crewagent true",
        "/crewagent/release-train release-train.ship crewagent true",
        "/bmad/6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev quick-dev method_steps true",
        "/bmad/6.0.0-alpha.7/src/modules/bmm/workflows/2-plan-workflows/prd prd method_classic true",
        // A child workflow in its parent's folder is a bundle of its own.
        "/bmad/6.0.0-alpha.7/src/modules/bmm/workflows/2-plan-workflows/prd/create-epics-and-stories create-epics-and-stories method_classic true",
    ] {
        assert!(lines.iter().any(|line| line == expected), "{expected} not in {lines:#?}");
    }
    // The files inside a bundle are not validated as workflows of their own.
    assert!(!lines.iter().any(|line| line.ends_with("workflow.graph.json - native false")), "{lines:#?}");
    // Warnings of a bundle are reported with it.
    assert!(
        violations(&report, |violation| violation["workflow"] == "prd")
            .iter()
            .any(|violation| violation["code"] == "method-config-source"),
        "{report:#}"
    );
}

#[test]
fn validate_reads_archives_and_workrail_routines_and_reports_refused_bundles() {
    let sandbox = Sandbox::new();
    let folder = tempfile::tempdir().unwrap();
    // A CrewAgent package as an archive.
    let archive = folder.path().join("hello.bmad");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
    let hello = testdata().join("crewagent/hello-branch");
    for relative in ["bmad.json", "agents.json", "workflow.graph.json", "workflow.md"] {
        writer.start_file(relative, SimpleFileOptions::default()).unwrap();
        writer.write_all(&std::fs::read(hello.join(relative)).unwrap()).unwrap();
    }
    for entry in std::fs::read_dir(hello.join("steps")).unwrap() {
        let path = entry.unwrap().path();
        let name = format!("steps/{}", path.file_name().unwrap().to_string_lossy());
        writer.start_file(name, SimpleFileOptions::default()).unwrap();
        writer.write_all(&std::fs::read(&path).unwrap()).unwrap();
    }
    writer.finish().unwrap();
    // A WorkRail workflow calling a routine, with the routines in `routines/` beside it.
    let caller = corpora().join("workrail/workflows/examples/routine-injection-example.json");
    std::fs::copy(&caller, folder.path().join("caller.json")).unwrap();
    std::fs::create_dir_all(folder.path().join("routines")).unwrap();
    for entry in std::fs::read_dir(corpora().join("workrail/workflows/routines")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, folder.path().join("routines").join(path.file_name().unwrap())).unwrap();
    }
    // A bundle refused by the reader: an archive entry that climbs out.
    let climbing = folder.path().join("climb.zip");
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&climbing).unwrap());
    writer.start_file("../evil.md", SimpleFileOptions::default()).unwrap();
    writer.write_all(b"x").unwrap();
    writer.finish().unwrap();

    let report = sandbox.run(&["validate", &folder.path().display().to_string()]).expect(1);
    let files = report["files"].as_array().unwrap();
    let entry = |suffix: &str| {
        files
            .iter()
            .find(|file| file["path"].as_str().unwrap().ends_with(suffix))
            .unwrap_or_else(|| panic!("{suffix} not in {report:#}"))
    };
    assert_eq!(entry("hello.bmad")["valid"], true, "{report:#}");
    assert_eq!(entry("hello.bmad")["format"], "crewagent");
    let refused = entry("climb.zip");
    assert_eq!(refused["valid"], false);
    assert!(refused["error"].as_str().unwrap().contains("climbs out"), "{refused:#}");
    let called = entry("caller.json");
    assert_eq!(called["valid"], true, "{called:#}");
    let not_found = |report: &Value| {
        violations(report, |violation| violation["file"].as_str().unwrap().ends_with("caller.json"))
            .iter()
            .any(|violation| violation["message"].as_str().unwrap_or_default().contains("is not among the routines"))
    };
    assert!(!not_found(&report), "{report:#}");
    // The same file without its routines names the missing template.
    let alone = tempfile::tempdir().unwrap();
    std::fs::copy(&caller, alone.path().join("caller.json")).unwrap();
    let without = sandbox.run(&["validate", &alone.path().join("caller.json").display().to_string()]).ok();
    assert!(not_found(&without), "{without:#}");
    assert_eq!(report["errors"], 1, "{report:#}");
}

/// The report's violations that `keep` keeps (a file's, a bundle workflow's).
fn violations(report: &Value, keep: impl Fn(&Value) -> bool) -> Vec<Value> {
    report["violations"].as_array().unwrap().iter().filter(|violation| keep(violation)).cloned().collect()
}

/// The paths a report lists as no workflow, relative to `root`.
fn not_workflows(report: &Value, root: &Path) -> Vec<String> {
    report["not_workflows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|skipped| {
            let path = skipped["path"].as_str().unwrap();
            path.strip_prefix(&root.display().to_string()).unwrap_or(path).to_owned()
        })
        .collect()
}

#[test]
fn validate_skips_the_configs_agents_and_manifests_of_a_method_tree_as_no_workflows() {
    let sandbox = Sandbox::new();
    for (version, stray) in [
        ("6.0.4", &["/src/bmm/agents/sm.agent.yaml", "/src/bmm/module.yaml", "/src/core/module.yaml"][..]),
        (
            "6.0.0-alpha.7",
            &[
                "/bmad/_cfg/manifest.yaml",
                "/bmad/bmb/config.yaml",
                "/bmad/core/config.yaml",
                "/src/core/agents/bmad-master.agent.yaml",
                "/src/modules/bmm/_module-installer/install-config.yaml",
                "/src/modules/bmm/workflows/1-analysis/research/claude-code/injections.yaml",
            ][..],
        ),
        // Templates for writing step-file workflows: a `workflow.md` with no step files in a subfolder.
        ("6.0.0-alpha.22", &["/src/modules/bmb/docs/workflows/templates"][..]),
    ] {
        let root = corpora().join("bmad").join(version);
        let report = sandbox.run(&["validate", &root.display().to_string()]).ok();
        assert_eq!(not_workflows(&report, &root), stray, "{version}: {report:#}");
        assert_eq!(report["errors"], 0, "{version}: {report:#}");
        let files = report["files"].as_array().unwrap();
        assert!(!files.is_empty(), "{version}: the tree's workflows are still validated");
        for file in files {
            let path = file["path"].as_str().unwrap();
            assert!(!stray.iter().any(|stray| path.ends_with(stray)), "{path} is listed among the workflows");
            assert_eq!(file["valid"], true, "{file:#}");
        }
    }
    // The text report lists them apart and does not count them among the workflows.
    let root = corpora().join("bmad/6.0.4");
    let text = sandbox.run_text(&["validate", &root.display().to_string()]);
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert!(text.stdout.contains("module.yaml: not a workflow: no top-level `steps` or `stages`"), "{}", text.stdout);
    assert!(
        text.stdout.contains("3 workflow(s): 0 error(s), 1 warning(s); 3 skipped as not a workflow"),
        "{}",
        text.stdout
    );
}

#[test]
fn validate_still_reports_files_that_are_almost_a_workflow() {
    let sandbox = Sandbox::new();
    let folder = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| std::fs::write(folder.path().join(name), text).unwrap();
    write("config.yaml", "user_name: Ada\noutput_folder: '{project-root}/docs'\n");
    write("schema.json", r#"{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}"#);
    write("list.yaml", "- one\n- two\n");
    // Almost workflows: `steps` of the wrong shape, a misspelt `step`, a stage list gone wrong,
    // a WorkRail file with a bad step, and text that does not parse.
    write("wrong-steps.yaml", "id: wrong-steps\nsteps: {a: 1}\n");
    write("misspelt.yaml", "id: misspelt\nstep:\n  - id: a\n    prompt: Do it.\n");
    write("stages.yaml", "stages: 3\n");
    write(
        "workrail.json",
        r#"{"id": "wr-bad", "name": "Bad", "description": "d", "version": "1.0.0", "steps": [{"id": "a"}]}"#,
    );
    write("broken.yaml", "id: [unclosed\n");
    let report = sandbox.run(&["validate", &folder.path().display().to_string()]).expect(1);
    let mut skipped = not_workflows(&report, folder.path());
    skipped.sort();
    assert_eq!(skipped, ["/config.yaml", "/list.yaml", "/schema.json"], "{report:#}");
    let files = report["files"].as_array().unwrap();
    for name in ["wrong-steps.yaml", "misspelt.yaml", "stages.yaml", "workrail.json", "broken.yaml"] {
        let file = files
            .iter()
            .find(|file| file["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} not validated: {report:#}"));
        assert_eq!(file["valid"], false, "{file:#}");
        let errors = violations(&report, |violation| violation["file"].as_str().unwrap().ends_with(name))
            .iter()
            .filter(|violation| violation["severity"] == "error")
            .count();
        assert!(errors > 0, "{name} has no error diagnostics: {file:#}");
    }
    assert_eq!(files.len(), 5, "{report:#}");
}

#[test]
fn validate_on_a_bundle_entry_file_validates_its_bundle_and_on_only_stray_files_says_so() {
    let sandbox = Sandbox::new();
    let prd = corpora().join("bmad/6.0.0-alpha.7/src/modules/bmm/workflows/2-plan-workflows/prd");
    let report = sandbox.run(&["validate", &prd.join("workflow.yaml").display().to_string()]).ok();
    let lines = reported(&report);
    assert_eq!(
        lines,
        ["/bmad/6.0.0-alpha.7/src/modules/bmm/workflows/2-plan-workflows/prd prd method_classic true"],
        "{report:#}"
    );
    let module = corpora().join("bmad/6.0.4/src/bmm/module.yaml");
    let refused = sandbox.run(&["validate", &module.display().to_string()]);
    assert_eq!(refused.code, 2, "{}{}", refused.stdout, refused.stderr);
    assert!(refused.stderr.contains("not workflows:") && refused.stderr.contains("module.yaml"), "{}", refused.stderr);
}
