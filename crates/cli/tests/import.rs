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
