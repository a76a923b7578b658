//! Every built-in workflow compiles cleanly, and the stages built-in compiles to the documented graph.

use switchyard_compiler::{Format, builtins, compile};
use switchyard_core::workflow::{EdgeKind, EdgeTarget, StepId};

#[test]
fn every_builtin_compiles_without_any_diagnostic() {
    let mut names = Vec::new();
    for builtin in builtins() {
        let compiled = compile(&builtin.source);
        let rendered: Vec<String> = compiled.diagnostics.iter().map(ToString::to_string).collect();
        assert!(rendered.is_empty(), "{}:\n{}", builtin.name, rendered.join("\n"));
        let workflow = compiled.workflow.expect("a clean compile yields a workflow");
        assert_eq!(workflow.id, builtin.name);
        names.push(builtin.name);
    }
    assert!(names.len() >= 3);
    assert!(names.contains(&"dev-cycle") && names.contains(&"bug-investigation") && names.contains(&"code-review"));
}

#[test]
fn dev_cycle_is_a_gated_stage_loop_that_closes_by_default() {
    let builtin = builtins().find(|builtin| builtin.name == "dev-cycle").unwrap();
    let compiled = compile(&builtin.source);
    assert_eq!(compiled.format, Format::Stages);
    let workflow = compiled.workflow.unwrap();
    let ids: Vec<&str> = workflow.steps.iter().map(|step| step.id.as_str()).collect();
    assert_eq!(ids, ["plan", "implement", "review"]);
    assert_eq!(workflow.entry, StepId::new("plan"));
    assert_eq!(workflow.limits.max_cycles, 10);
    let gates: Vec<bool> = workflow.steps.iter().map(|step| step.gate).collect();
    assert_eq!(gates, [true, false, true]);
    assert!(workflow.steps[1].context_reset);
    assert_eq!(workflow.steps[0].role.as_deref(), Some("planner"));
    assert_eq!(workflow.steps[1].model.as_deref(), Some("codex-1"));
    assert_eq!(workflow.steps[0].edges[0].target, EdgeTarget::Step(StepId::new("implement")));
    let review = &workflow.steps[2];
    assert_eq!(review.edges.len(), 2);
    assert_eq!(
        (review.edges[0].label.as_str(), review.edges[0].kind, review.edges[0].default),
        ("loop", EdgeKind::Loop, false)
    );
    assert_eq!(review.edges[0].target, EdgeTarget::Step(StepId::new("plan")));
    assert_eq!((review.edges[1].label.as_str(), review.edges[1].default), ("close", true));
    assert_eq!(review.edges[1].target, EdgeTarget::Complete);
    assert!(workflow.steps.iter().all(|step| step.prompt.contains("{{ goal }}")));
}

#[test]
fn bug_investigation_bounds_its_back_edge_and_requires_a_fix_contract() {
    let builtin = builtins().find(|builtin| builtin.name == "bug-investigation").unwrap();
    let workflow = compile(&builtin.source).workflow.unwrap();
    let verify = workflow.step(&StepId::new("verify")).unwrap();
    let back = verify.edges.iter().find(|edge| edge.target == EdgeTarget::Step(StepId::new("hypothesize"))).unwrap();
    assert_eq!(back.max_traversals, Some(3));
    let fix = workflow.step(&StepId::new("fix")).unwrap();
    let required = &fix.output_schema.as_ref().unwrap()["required"];
    assert!(required.as_array().unwrap().iter().any(|name| name == "files_changed"));
    assert!(workflow.step(&StepId::new("review")).unwrap().gate);
}
