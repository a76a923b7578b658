//! Properties of every workflow format over arbitrary, format-shaped input: WorkRail JSON and
//! CrewAgent packages (the native and stages formats are in `properties.rs`) compile to a workflow
//! or diagnostics, never a panic, and a workflow comes exactly when no error does.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Value, json};
use switchyard_compiler::{Bundle, Source, compile, compile_bundle};

/// JSON shaped like the formats: their keys, with values of any type.
fn json_value(keys: &'static [&'static str]) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        prop::sample::select(vec!["a", "b", "start", "end", "loop", "parallel", "{{x}}", "", "decision"])
            .prop_map(Value::from),
        ".{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 5, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(prop::sample::select(keys.to_vec()).prop_map(str::to_owned), inner, 0..6)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

const WORKRAIL_KEYS: &[&str] = &[
    "id",
    "name",
    "version",
    "description",
    "steps",
    "type",
    "prompt",
    "title",
    "body",
    "loop",
    "maxIterations",
    "condition",
    "runCondition",
    "var",
    "equals",
    "functionReferences",
    "assessments",
    "metaGuidance",
    "preconditions",
    "clarificationPrompts",
    "outputContract",
    "templateCall",
    "routineRef",
];

const CREWAGENT_KEYS: &[&str] = &[
    "schemaVersion",
    "id",
    "name",
    "version",
    "workflows",
    "entry",
    "graph",
    "nodes",
    "edges",
    "from",
    "to",
    "type",
    "label",
    "conditionExpr",
    "conditionText",
    "file",
    "agentId",
    "agents",
    "persona",
    "isDefault",
    "var",
    "==",
    "and",
    "or",
    "!",
    "steps",
    "path",
    "start",
    "end",
    "decision",
];

fn package() -> impl Strategy<Value = Bundle> {
    (json_value(CREWAGENT_KEYS), json_value(CREWAGENT_KEYS), json_value(CREWAGENT_KEYS), ".{0,40}").prop_map(
        |(manifest, graph, agents, step)| {
            let mut files = BTreeMap::new();
            files.insert("bmad.json".to_owned(), manifest.to_string());
            files.insert("workflow.graph.json".to_owned(), graph.to_string());
            files.insert("agents.json".to_owned(), agents.to_string());
            files.insert("workflow.md".to_owned(), format!("---\nname: x\n---\n{step}"));
            files.insert("steps/a.md".to_owned(), step);
            Bundle { name: "package".to_owned(), files }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    #[test]
    fn workrail_like_json_compiles_or_reports(document in json_value(WORKRAIL_KEYS)) {
        let mut document = document;
        if let Value::Object(map) = &mut document {
            // Marked as WorkRail often enough to reach its front-end.
            map.entry("steps").or_insert_with(|| json!([{ "id": "a", "title": "A", "prompt": "p" }]));
        }
        let compiled = compile(&Source::new("workflow.json", document.to_string()));
        prop_assert_eq!(compiled.workflow.is_some(), compiled.errors().next().is_none());
    }

    #[test]
    fn crewagent_like_packages_compile_or_report(bundle in package()) {
        for workflow in compile_bundle(&bundle) {
            prop_assert_eq!(workflow.compiled.workflow.is_some(), workflow.compiled.errors().next().is_none());
        }
    }
}
