//! CrewAgent `subworkflow` nodes: the called workflow of the same package runs as steps after
//! the node and returns along the node's edges; a missing target and a package calling itself
//! compile with a warning and leave the node to the agent.

use switchyard_compiler::{Bundle, BundleWorkflow, compile_bundle};
use switchyard_core::workflow::EdgeTarget;
use switchyard_test_support::{testdata, text_files};

fn release_train() -> Bundle {
    Bundle { name: "release-train".to_owned(), files: text_files(&testdata().join("crewagent/release-train")) }
}

/// `plan` with a `subworkflow` node `call-03` between its decision's `ready` branch and its end;
/// the node's step file carries `frontmatter` (after `nodeId` and `type`) and the node `file`.
fn plan_calling(file: &str, frontmatter: &str) -> Bundle {
    let mut bundle = release_train();
    let graph = bundle.files.get_mut("workflows/plan/workflow.graph.json").unwrap();
    *graph = graph
        .replace(
            r#"{"id": "end-99", "type": "end""#,
            &format!(
                r#"{{"id": "call-03", "type": "subworkflow", "file": "{file}", "title": "Ship"}},
    {{"id": "end-99", "type": "end""#
            ),
        )
        .replace(
            r#"{"from": "check-02", "to": "end-99", "label": "ready", "isDefault": true}"#,
            r#"{"from": "check-02", "to": "call-03", "label": "ready", "isDefault": true},
    {"from": "call-03", "to": "end-99", "label": "next"}"#,
        );
    bundle.files.insert(
        "workflows/plan/steps/call-03.md".to_owned(),
        format!(
            "---\nschemaVersion: \"1.1\"\nnodeId: call-03\ntype: subworkflow\n{frontmatter}---\nShip the release.\n"
        ),
    );
    bundle
}

fn plan(compiled: &[BundleWorkflow]) -> &BundleWorkflow {
    compiled.iter().find(|found| found.name == "release-train.plan").unwrap()
}

fn shape(found: &BundleWorkflow) -> Vec<String> {
    let errors: Vec<String> = found.compiled.errors().map(ToString::to_string).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let workflow = found.compiled.workflow.as_ref().unwrap();
    workflow
        .steps
        .iter()
        .map(|step| {
            let edges: Vec<String> = step
                .edges
                .iter()
                .map(|edge| match &edge.target {
                    EdgeTarget::Step(target) => format!("{}->{target}", edge.label),
                    EdgeTarget::Complete => format!("{}->(end)", edge.label),
                })
                .collect();
            format!("{}: {}", step.id, edges.join(", "))
        })
        .collect()
}

fn subworkflow_warnings(found: &BundleWorkflow) -> Vec<String> {
    found
        .compiled
        .warnings()
        .filter(|warning| warning.code == "crewagent-subworkflow")
        .map(|warning| warning.message.clone())
        .collect()
}

#[test]
fn a_subworkflow_node_runs_the_called_workflow_and_returns_along_its_edges() {
    let compiled = compile_bundle(&plan_calling("workflows/plan/steps/call-03.md", "subworkflowRef: ship\n"));
    let found = plan(&compiled);
    assert!(subworkflow_warnings(found).is_empty(), "{:?}", found.compiled.diagnostics);
    assert_eq!(
        shape(found),
        [
            "plan-01: next->check-02",
            "check-02: redo->plan-01, ready->call-03",
            "call-03: invoke-ship->call-03.ship.ship-01",
            "call-03.ship.ship-01: next->call-03.ship.check-02",
            "call-03.ship.check-02: redo->call-03.ship.ship-01, ready->call-03.ship.end-99",
            "call-03.ship.end-99: next->end-99",
            "end-99: ",
        ]
    );
    // The called workflow's steps keep their personas.
    let workflow = found.compiled.workflow.as_ref().unwrap();
    let ship = workflow.steps.iter().find(|step| step.id.as_str() == "call-03.ship.ship-01").unwrap();
    assert!(ship.role.is_some());
}

#[test]
fn a_subworkflow_node_may_name_the_called_workflow_by_its_file() {
    let compiled = compile_bundle(&plan_calling("workflows/ship/workflow.md", ""));
    let found = plan(&compiled);
    assert!(subworkflow_warnings(found).is_empty(), "{:?}", found.compiled.diagnostics);
    assert!(shape(found).contains(&"call-03: invoke-ship->call-03.ship.ship-01".to_owned()));
}

#[test]
fn a_subworkflow_naming_no_workflow_of_the_package_is_left_to_the_agent_with_a_warning() {
    let compiled = compile_bundle(&plan_calling("workflows/plan/steps/call-03.md", "subworkflowRef: deploy\n"));
    let found = plan(&compiled);
    let warnings = subworkflow_warnings(found);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("`call-03`") && warnings[0].contains("deploy"), "{warnings:?}");
    assert!(shape(found).contains(&"call-03: next->end-99".to_owned()));
}

#[test]
fn a_workflow_calling_itself_is_spliced_in_at_most_once_per_call_chain() {
    let compiled = compile_bundle(&plan_calling("workflows/plan/steps/call-03.md", "subworkflowRef: plan\n"));
    let found = plan(&compiled);
    let warnings = subworkflow_warnings(found);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("already running"), "{warnings:?}");
    let steps = shape(found);
    assert_eq!(steps.len(), 4, "{steps:#?}");
}
