//! `switchyard import`: a WorkRail workflow, a CrewAgent package and a BMad Method bundle become
//! native YAML that compiles to the same workflow hash; lossy spots are reported on stderr.

mod support;

use std::path::PathBuf;

use support::Sandbox;
use switchyard_test_support::corpora;

/// A file of the repository's fixtures (`crewagent/…`) or of the shared corpora (`workrail/…`, `bmad/…`).
fn testdata(path: &str) -> PathBuf {
    let root = if path.starts_with("crewagent/") { switchyard_test_support::testdata() } else { corpora() };
    root.join(path)
}

#[test]
fn imported_workflows_compile_to_the_same_hash_and_report_what_they_lose() {
    let sandbox = Sandbox::new();
    for source in [
        "workrail/workflows/wr.shaping.json",
        "workrail/workflows/examples/loops/simple-batch.json",
        "crewagent/hello-branch",
        "bmad/6.0.0-alpha.7/src/modules/bmm/workflows/4-implementation/dev-story",
    ] {
        let path = testdata(source);
        let imported = sandbox.run(&["import", path.to_str().unwrap()]).ok();
        let original_hash = imported["hash"].as_str().unwrap().to_owned();
        let output = sandbox.project.path().join("imported.yaml");
        let written = sandbox.run_text(&["import", path.to_str().unwrap(), "--output", output.to_str().unwrap()]);
        assert_eq!(written.code, 0, "{}", written.stderr);
        let validated = sandbox.run(&["validate", output.to_str().unwrap()]).ok();
        assert_eq!(validated["files"][0]["format"], "native", "{source}");
        assert_eq!(validated["files"][0]["hash"], original_hash.as_str(), "{source}");
    }
    let lossy = sandbox
        .run_text(&["import", testdata("workrail/workflows/coding-task-workflow-agentic.json").to_str().unwrap()]);
    assert_eq!(lossy.code, 0);
    assert!(lossy.stderr.contains("lossy:") && lossy.stderr.contains("metricsProfile"), "{}", lossy.stderr);
    assert!(lossy.stdout.starts_with("id: wr.coding-task"));
}

#[test]
fn importing_a_broken_workrail_file_shows_located_diagnostics() {
    let sandbox = Sandbox::new();
    let ran = sandbox.run_text(&["import", testdata("workrail/spec/examples/invalid-workflow.json").to_str().unwrap()]);
    assert_eq!(ran.code, 1);
    assert!(ran.stderr.contains("invalid-workflow.json:2:9: error[workrail-schema]"), "{}", ran.stderr);
    let ran = sandbox.run_text(&["import", "x.json", "--to", "workrail"]);
    assert_eq!(ran.code, 2);
}

#[test]
fn importing_a_native_file_with_unsorted_variables_writes_the_same_hash_and_prints_it() {
    let sandbox = Sandbox::new();
    let source = sandbox.project.path().join("unsorted.yaml");
    std::fs::write(
        &source,
        "id: unsorted\nvariables:\n  zeta: {type: string}\n  alpha: {type: integer, default: 1}\nsteps:\n  - id: a\n    prompt: Do it.\n",
    )
    .unwrap();
    let source_hash = sandbox.run(&["validate", source.to_str().unwrap()]).ok()["files"][0]["hash"].clone();
    let output = sandbox.project.path().join("written.yaml");
    let imported = sandbox.run(&["import", source.to_str().unwrap(), "--output", output.to_str().unwrap()]).ok();
    let written_hash = sandbox.run(&["validate", output.to_str().unwrap()]).ok()["files"][0]["hash"].clone();
    assert_eq!(written_hash, source_hash, "the round trip keeps the hash");
    assert_eq!(imported["hash"], written_hash, "the printed hash is the written file's");
}

#[test]
fn importing_a_package_of_several_workflows_converts_each_and_says_so() {
    let sandbox = Sandbox::new();
    let package = testdata("crewagent/release-train");
    let printed = sandbox.run_text(&["import", package.to_str().unwrap()]);
    assert_eq!(printed.code, 0, "{}", printed.stderr);
    assert!(printed.stderr.contains("holds 2 workflows"), "{}", printed.stderr);
    assert!(printed.stdout.contains("id: release-train.plan") && printed.stdout.contains("id: release-train.ship"));

    let folder = sandbox.project.path().join("converted");
    let written = sandbox.run(&["import", package.to_str().unwrap(), "--output", folder.to_str().unwrap()]).ok();
    let written = written.as_array().expect("one entry per workflow");
    assert_eq!(written.len(), 2, "{written:?}");
    for entry in written {
        let file = folder.join(format!("{}.yaml", entry["name"].as_str().unwrap()));
        let validated = sandbox.run(&["validate", file.to_str().unwrap()]).ok();
        assert_eq!(validated["files"][0]["hash"], entry["hash"], "{}", file.display());
    }
}
