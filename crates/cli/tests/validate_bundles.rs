//! `switchyard validate` on bundles: folders and archives of every bundle format and WorkRail
//! files with their routines are compiled as discovery compiles them, each workflow reported
//! with its diagnostics; a refused bundle is reported without hiding the others.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use support::Sandbox;
use zip::write::SimpleFileOptions;

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata")
}

fn reported(report: &Value) -> Vec<String> {
    report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|file| {
            let path = file["path"].as_str().unwrap();
            let shown = path.strip_prefix(&testdata().display().to_string()).unwrap_or(path);
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
    let quick_dev = testdata().join("bmad/6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev");
    let prd = testdata().join("bmad/6.0.0-alpha.7/src/modules/bmm/workflows/2-plan-workflows/prd");
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
    let prd_report = report["files"].as_array().unwrap().iter().find(|file| file["workflow"] == "prd").unwrap();
    assert!(
        prd_report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|diagnostic| diagnostic["code"] == "method-config-source"),
        "{prd_report:#}"
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
    let caller = testdata().join("workrail/workflows/examples/routine-injection-example.json");
    std::fs::copy(&caller, folder.path().join("caller.json")).unwrap();
    std::fs::create_dir_all(folder.path().join("routines")).unwrap();
    for entry in std::fs::read_dir(testdata().join("workrail/workflows/routines")).unwrap() {
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
    let not_found =
        |file: &Value| {
            file["diagnostics"].as_array().unwrap().iter().any(|diagnostic| {
                diagnostic["message"].as_str().unwrap_or_default().contains("is not among the routines")
            })
        };
    assert!(!not_found(called), "{called:#}");
    // The same file without its routines names the missing template.
    let alone = tempfile::tempdir().unwrap();
    std::fs::copy(&caller, alone.path().join("caller.json")).unwrap();
    let without = sandbox.run(&["validate", &alone.path().join("caller.json").display().to_string()]).ok();
    assert!(not_found(&without["files"][0]), "{without:#}");
    assert_eq!(report["errors"], 1, "{report:#}");
}
