//! The WorkRail front-end over the shared WorkRail corpus (`workrail/` of the corpora): every workflow WorkRail
//! accepts compiles, the invalid example is rejected with located diagnostics, and each
//! compiled graph's shape is snapshotted.

use std::path::{Path, PathBuf};

use switchyard_compiler::{Format, Routines, Source, compile_with, routines_from};
use switchyard_test_support::corpora;

fn corpus() -> PathBuf {
    corpora().join("workrail")
}

fn files(under: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![under.to_path_buf()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "json")
                && !path.ends_with("workflow.schema.json")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn routines() -> Routines {
    let texts: Vec<String> =
        files(&corpus().join("workflows/routines")).iter().map(|path| std::fs::read_to_string(path).unwrap()).collect();
    routines_from(texts.iter().map(String::as_str))
}

fn name(path: &Path) -> String {
    path.strip_prefix(corpus()).unwrap().display().to_string()
}

#[test]
fn every_accepted_workrail_file_compiles_and_the_invalid_example_is_rejected() {
    let routines = routines();
    let mut failures = Vec::new();
    for path in files(&corpus()) {
        let text = std::fs::read_to_string(&path).unwrap();
        let compiled = compile_with(&Source::new(name(&path), text), &routines);
        assert_eq!(compiled.format, Format::Workrail, "{}", name(&path));
        let errors: Vec<String> = compiled.errors().map(ToString::to_string).collect();
        if name(&path).ends_with("invalid-workflow.json") {
            assert!(compiled.workflow.is_none());
            assert!(compiled.diagnostics.iter().any(|diagnostic| diagnostic.message.contains("extraField")));
            assert!(errors.iter().any(|error| error.contains("INVALID_ID_WITH_CAPS")), "{errors:#?}");
            insta::assert_yaml_snapshot!("invalid_workflow_diagnostics", compiled.diagnostics);
        } else if !errors.is_empty() {
            failures.push(format!("{}:\n  {}", name(&path), errors.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn compiled_workrail_graphs_keep_their_shape() {
    let routines = routines();
    let mut shapes = String::new();
    for path in files(&corpus()) {
        let text = std::fs::read_to_string(&path).unwrap();
        let compiled = compile_with(&Source::new(name(&path), text), &routines);
        let Some(workflow) = compiled.workflow else { continue };
        shapes.push_str(&format!("# {} ({})\n", name(&path), workflow.id));
        for step in &workflow.steps {
            let rules = workflow.rules(&step.id);
            let edges: Vec<String> = step
                .edges
                .iter()
                .map(|edge| {
                    let target = match &edge.target {
                        switchyard_core::workflow::EdgeTarget::Step(step) => step.to_string(),
                        switchyard_core::workflow::EdgeTarget::Complete => "(end)".to_owned(),
                    };
                    let bound = edge.max_traversals.map(|max| format!(" max={max}")).unwrap_or_default();
                    let when = if edge.condition.is_some() { " if" } else { "" };
                    format!("{}->{target}{bound}{when}", edge.label)
                })
                .collect();
            let mut flags = Vec::new();
            if step.gate {
                flags.push("gate");
            }
            if rules.gate_when.is_some() {
                flags.push("gate_when");
            }
            if rules.run_when.is_some() {
                flags.push("when");
            }
            if !rules.checks.is_empty() {
                flags.push("checks");
            }
            if step.output_schema.is_some() {
                flags.push("output");
            }
            shapes.push_str(&format!("{} [{}] {}\n", step.id, flags.join(","), edges.join(" ")));
        }
    }
    insta::assert_snapshot!("workrail_graphs", shapes);
}

#[test]
fn imported_workrail_files_round_trip_through_native_yaml_with_the_same_hash() {
    let routines = routines();
    for path in files(&corpus()) {
        let text = std::fs::read_to_string(&path).unwrap();
        let compiled = compile_with(&Source::new(name(&path), text), &routines);
        let Some(workflow) = compiled.workflow else { continue };
        let yaml = switchyard_compiler::to_native_yaml(&workflow).unwrap();
        let again = switchyard_compiler::compile(&Source::new(format!("{}.yaml", name(&path)), yaml.clone()));
        let errors: Vec<String> = again.errors().map(ToString::to_string).collect();
        assert!(errors.is_empty(), "{}:\n{}", name(&path), errors.join("\n"));
        assert_eq!(again.format, Format::Native);
        let round = again.workflow.unwrap();
        assert_eq!(round, workflow, "{}", name(&path));
        assert_eq!(round.hash(), workflow.hash());
    }
}

#[test]
fn assessment_consequences_compile_to_condition_checks_without_a_warning() {
    let text = r#"{
      "id": "demo.assessed", "name": "Assessed", "description": "d", "version": "0.1.0",
      "assessments": [{"id": "gate", "purpose": "p",
        "dimensions": [{"id": "confidence", "purpose": "p", "levels": ["low", "high"]}]}],
      "steps": [{"id": "diagnose", "title": "Diagnose", "prompt": "Diagnose.",
        "assessmentRefs": ["gate"],
        "assessmentConsequences": [{"when": {"anyEqualsLevel": "low", "forAssessment": "gate"},
          "effect": {"kind": "require_followup", "guidance": "Gather more context."}}]}]
    }"#;
    let compiled = compile_with(&Source::new("assessed.json", text), &Routines::new());
    let warnings: Vec<String> = compiled.diagnostics.iter().map(|diagnostic| diagnostic.message.clone()).collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
    let workflow = compiled.workflow.expect("compiles");
    let checks = &workflow.rules(&switchyard_core::workflow::StepId::new("diagnose")).checks;
    // The dimension check comes first, then the consequence.
    let [_, switchyard_core::workflow::OutputCheck::Condition { condition, message: Some(message), when: None }] =
        checks.as_slice()
    else {
        panic!("a dimension check and a consequence check expected: {checks:#?}");
    };
    assert!(condition.contains(r#""wr.assessment""#) && condition.contains(r#""low""#), "{condition}");
    assert!(condition.contains(r#"value_of(a, "assessmentId") == "gate""#), "scoped: {condition}");
    assert!(message.contains("Gather more context.") && message.contains("`low`"), "{message}");
}

#[test]
fn audit_and_verification_become_the_steps_workrail_injects_after_their_step() {
    let text = r#"{
      "id": "demo.audited", "name": "Audited", "description": "d", "version": "0.1.0",
      "steps": [
        {"id": "build", "title": "Build", "prompt": "Build it.", "runCondition": {"var": "mode", "equals": "full"},
         "audit": {"prompt": "Look for shortcuts.", "rubric": ["tests cover the change"]},
         "verification": {"command": "cargo test"}},
        {"id": "ship", "title": "Ship", "prompt": "Ship it."}
      ]
    }"#;
    let compiled = compile_with(&Source::new("audited.json", text), &Routines::new());
    let messages: Vec<String> = compiled.diagnostics.iter().map(|diagnostic| diagnostic.message.clone()).collect();
    assert!(messages.is_empty(), "{messages:#?}");
    let workflow = compiled.workflow.expect("compiles");
    let chain: Vec<String> = workflow
        .steps
        .iter()
        .map(|step| {
            let next: Vec<String> = step
                .edges
                .iter()
                .map(|edge| match &edge.target {
                    switchyard_core::workflow::EdgeTarget::Step(target) => target.to_string(),
                    switchyard_core::workflow::EdgeTarget::Complete => "(end)".to_owned(),
                })
                .collect();
            let when = if workflow.rules(&step.id).run_when.is_some() { " when" } else { "" };
            format!("{}{when} -> {}", step.id, next.join(","))
        })
        .collect();
    assert_eq!(
        chain,
        [
            "build when -> build__audit",
            "build__audit when -> build__verification",
            "build__verification when -> ship",
            "ship -> "
        ]
    );
    let audit = &workflow.steps[1].prompt;
    assert!(audit.contains("Look for shortcuts.") && audit.contains("- tests cover the change"), "{audit}");
    assert!(workflow.steps[2].prompt.contains("Run `cargo test`"), "{}", workflow.steps[2].prompt);
}

#[test]
fn workrail_format_problems_are_reported_at_their_field_in_workrail_terms() {
    let text = r#"{
      "id": "demo.shapes", "name": "Shapes", "description": "d", "version": "0.1.0",
      "modelTier": "huge",
      "steps": [
        {"id": "Bad_Id", "title": "One", "prompt": "p", "askForFiles": "yes"},
        {"id": "loop-one", "type": "loop", "title": "Loop",
         "loop": {"type": "for", "maxIterations": 5000},
         "body": [{"id": "inner", "title": "Inner", "prompt": "p", "colour": "red"}]}
      ]
    }"#;
    let compiled = compile_with(&Source::new("shapes.json", text), &Routines::new());
    let found: Vec<String> = compiled
        .diagnostics
        .iter()
        .filter(|diagnostic| diagnostic.code == "workrail-schema")
        .map(|diagnostic| {
            format!("{}:{} {:?} {}", diagnostic.line, diagnostic.column, diagnostic.severity, diagnostic.message)
        })
        .collect();
    assert_eq!(
        found,
        [
            "3:20 Error WorkRail schema: `/modelTier`: \"huge\" is not one of \"lightweight\", \"mid\" or \"heavy\"",
            "5:16 Error WorkRail schema: `/steps/0/id`: \"Bad_Id\" does not match \"^[a-z0-9-]+$\"",
            "5:72 Error WorkRail schema: `/steps/0/askForFiles`: \"yes\" is not of type \"boolean\"",
            "7:18 Error WorkRail schema: `/steps/1/loop`: \"count\" is a required property",
            "7:51 Error WorkRail schema: `/steps/1/loop/maxIterations`: 5000 is greater than the maximum of 1000",
            "8:19 Warning WorkRail schema: `/steps/1/body/0`: Additional properties are not allowed ('colour' was unexpected); ignored",
        ]
    );
}
