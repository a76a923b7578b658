//! Bundles: every BMad Method sample in the corpora's `bmad/` and every CrewAgent example in
//! `testdata/crewagent` compiles; each graph's steps and edges are snapshotted; broken packages
//! get diagnostics in CrewAgent's own terms.

use std::collections::BTreeMap;
use std::path::Path;

use switchyard_compiler::{Bundle, Format, ReferenceRole, compile_bundle, compile_bundle_as, detect_bundle};
use switchyard_core::workflow::{EdgeTarget, Workflow};
use switchyard_test_support::{corpora, method_bundles, testdata, text_files};

fn read_bundle(folder: &Path) -> Bundle {
    Bundle { name: folder.display().to_string(), files: text_files(folder) }
}

fn shape(workflow: &Workflow) -> String {
    let mut text = String::new();
    for step in &workflow.steps {
        let edges: Vec<String> = step
            .edges
            .iter()
            .map(|edge| {
                let target = match &edge.target {
                    EdgeTarget::Step(step) => step.to_string(),
                    EdgeTarget::Complete => "(end)".to_owned(),
                };
                let bound = edge.max_traversals.map(|max| format!(" max={max}")).unwrap_or_default();
                let default = if edge.default { " default" } else { "" };
                let when = if edge.condition.is_some() { " if" } else { "" };
                format!("{}->{target}{bound}{default}{when}", edge.label)
            })
            .collect();
        let rules = workflow.rules(&step.id);
        let run = if rules.run_when.is_some() { " [when]" } else { "" };
        let gate = match (step.gate, rules.gate_when.is_some()) {
            (true, _) => " [gate]",
            (false, true) => " [gate when]",
            (false, false) => "",
        };
        text.push_str(&format!("  {}{run}{gate}: {}\n", step.id, edges.join(", ")));
    }
    text
}

#[test]
fn every_method_bundle_loads_with_its_steps_edges_and_referenced_files() {
    let mut shapes = String::new();
    for folder in method_bundles() {
        let name = folder.strip_prefix(corpora()).unwrap().display().to_string();
        let bundle = read_bundle(&folder);
        let format = detect_bundle(&bundle).unwrap_or_else(|| panic!("{name}: not detected"));
        let mut formats = vec![format];
        // A folder holding both formats loads either way.
        if format == Format::MethodSteps && bundle.files.contains_key("workflow.yaml") {
            formats.push(Format::MethodClassic);
        }
        for format in formats {
            let compiled = compile_bundle_as(&bundle, Some(format));
            assert_eq!(compiled.len(), 1);
            let result = &compiled[0].compiled;
            let errors: Vec<String> = result.errors().map(ToString::to_string).collect();
            assert!(errors.is_empty(), "{name}: {errors:#?}");
            let workflow = result.workflow.as_ref().unwrap();
            assert!(result.references.iter().any(|reference| reference.role == ReferenceRole::Workflow));
            let missing: Vec<&str> = result
                .references
                .iter()
                .filter(|reference| reference.missing)
                .map(|reference| reference.path.as_str())
                .collect();
            shapes.push_str(&format!(
                "# {name} ({format:?}, {} steps; missing files: {missing:?})\n",
                workflow.steps.len()
            ));
            shapes.push_str(&shape(workflow));
        }
    }
    insta::assert_snapshot!("method_bundles", shapes);
}

#[test]
fn crewagent_examples_compile_one_workflow_per_graph() {
    let mut shapes = String::new();
    for example in ["hello-branch", "release-train"] {
        let bundle = read_bundle(&testdata().join("crewagent").join(example));
        assert_eq!(detect_bundle(&bundle), Some(Format::CrewAgent));
        for found in compile_bundle(&bundle) {
            let errors: Vec<String> = found.compiled.errors().map(ToString::to_string).collect();
            assert!(errors.is_empty(), "{example}: {errors:#?}");
            let workflow = found.compiled.workflow.as_ref().unwrap();
            shapes.push_str(&format!("# {} ({})\n", found.name, workflow.id));
            shapes.push_str(&shape(workflow));
        }
    }
    insta::assert_snapshot!("crewagent_examples", shapes);
}

#[test]
fn a_broken_crewagent_package_gets_diagnostics_in_its_own_terms() {
    let mut bundle = read_bundle(&testdata().join("crewagent").join("hello-branch"));
    let graph = bundle.files.get_mut("workflow.graph.json").unwrap();
    *graph = graph
        .replace("\"isDefault\": true, ", "")
        .replace("\"entryNodeId\": \"step-01\"", "\"entryNodeId\": \"step-1\"");
    bundle.files.remove("steps/merge-04.md");
    let manifest = bundle.files.get_mut("bmad.json").unwrap();
    *manifest = manifest.replace("\"version\": \"1.0.0\"", "\"version\": \"one\"");
    let compiled = compile_bundle(&bundle);
    let messages: Vec<String> = compiled[0].compiled.diagnostics.iter().map(ToString::to_string).collect();
    let all = messages.join("\n");
    assert!(compiled[0].compiled.workflow.is_none());
    for expected in ["`bmad.json` at `/version`", "entryNodeId", "decision node `decide-02`", "steps/merge-04.md"] {
        assert!(all.contains(expected), "missing {expected:?} in:\n{all}");
    }
}

#[test]
fn a_folder_that_is_no_bundle_is_named_as_such() {
    let bundle = Bundle { name: "empty".to_owned(), files: BTreeMap::from([("notes.md".to_owned(), "hi".to_owned())]) };
    let compiled = compile_bundle(&bundle);
    assert_eq!(compiled[0].compiled.diagnostics[0].code, "unknown-bundle");
}

#[test]
fn crewagent_node_ids_with_colons_become_valid_step_ids() {
    let mut bundle = read_bundle(&testdata().join("crewagent").join("hello-branch"));
    for text in bundle.files.values_mut() {
        *text = text.replace("\"decide-02\"", "\"decide:02\"").replace("nodeId: decide-02", "nodeId: decide:02");
    }
    let compiled = compile_bundle(&bundle);
    let workflow = compiled[0].compiled.workflow.as_ref().expect("compiles");
    assert!(workflow.steps.iter().any(|step| step.id.as_str() == "decide-02"));
}

#[test]
fn crewagent_node_inputs_and_outputs_are_artifact_paths_not_missing_package_files() {
    let mut bundle = read_bundle(&testdata().join("crewagent").join("hello-branch"));
    let graph = bundle.files.get_mut("workflow.graph.json").unwrap();
    *graph = graph.replace(
        "\"outputs\": [\"artifacts/intake.md\"]",
        "\"inputs\": [\"artifacts/brief.md\", \"steps/end-99.md\"], \"outputs\": [\"artifacts/intake.md\"]",
    );
    let compiled = compile_bundle(&bundle);
    let references = &compiled[0].compiled.references;
    assert!(compiled[0].compiled.workflow.is_some());
    assert!(references.iter().all(|reference| !reference.missing), "{references:#?}");
    assert!(references.iter().all(|reference| !reference.path.starts_with("artifacts/")), "{references:#?}");
    assert!(
        references.iter().any(|reference| reference.path == "steps/end-99.md" && reference.role == ReferenceRole::Data),
        "an input the package holds stays a reference: {references:#?}"
    );
}
