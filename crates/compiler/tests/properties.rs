//! Properties of `compile` over arbitrary input: it never panics, it is deterministic, and the
//! workflow hash depends on meaning, not on formatting or source syntax.

use proptest::prelude::*;
use switchyard_compiler::{Source, builtins, compile, to_native_yaml};

fn hash_of(name: &str, text: &str) -> String {
    let compiled = compile(&Source::new(name, text));
    let rendered: Vec<String> = compiled.diagnostics.iter().map(ToString::to_string).collect();
    compiled.workflow.unwrap_or_else(|| panic!("{name} does not compile:\n{}", rendered.join("\n"))).hash().to_string()
}

/// Fragments that steer random text towards the interesting parts of the grammar.
fn workflowish() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("id: x\n".to_owned()),
        Just("steps:\n".to_owned()),
        Just("stages:\n".to_owned()),
        Just("  - id: a\n".to_owned()),
        Just("    prompt: '{{ goal }}'\n".to_owned()),
        Just("    next: [a, {end: true}]\n".to_owned()),
        Just("    next:\n      - {to: a, when: 'x >', max_traversals: 0}\n".to_owned()),
        Just("variables: {x: {type: integer, default: 1.5}}\n".to_owned()),
        Just("    output: {type: object, pattern: '('}\n".to_owned()),
        Just("&a [*a]\n".to_owned()),
        Just("{\"id\": [\n".to_owned()),
        "[ -~\n]{0,12}",
    ];
    proptest::collection::vec(fragment, 0..12).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_text_never_panics_and_compiles_deterministically(text in any::<String>()) {
        let source = Source::new("fuzz.yaml", text);
        let first = compile(&source);
        let second = compile(&source);
        prop_assert_eq!(&first, &second);
        prop_assert_eq!(first.workflow.is_some(), first.errors().next().is_none());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        compile(&Source::new("fuzz.yaml", text));
    }

    #[test]
    fn workflow_like_text_never_panics_and_hashes_deterministically(text in workflowish()) {
        let source = Source::new("fuzz.yaml", text);
        let first = compile(&source);
        let second = compile(&source);
        prop_assert_eq!(first.workflow.as_ref().map(|w| w.hash()), second.workflow.as_ref().map(|w| w.hash()));
        prop_assert_eq!(&first.diagnostics, &second.diagnostics);
        for diagnostic in &first.diagnostics {
            prop_assert!(diagnostic.line >= 1 && diagnostic.column >= 1);
        }
    }

    #[test]
    fn exported_native_yaml_hashes_as_its_source_in_every_variable_order(
        order in Just(vec!["zeta", "alpha", "mid", "beta", "omega"]).prop_shuffle()
    ) {
        let declarations: String =
            order.iter().map(|name| format!("  {name}: {{type: string, default: {name}}}\n")).collect();
        let source = format!("id: ordered\nvariables:\n{declarations}steps:\n  - id: a\n    prompt: Do it.\n");
        let compiled = compile(&Source::new("ordered.yaml", source));
        let workflow = compiled.workflow.expect("the source compiles");
        let exported = to_native_yaml(&workflow).expect("the workflow exports");
        prop_assert_eq!(hash_of("exported.yaml", &exported), workflow.hash().to_string(), "exported:\n{}", exported);
    }
}

const ORIGINAL: &str = r#"
id: ordering
title: Ordering
variables:
  ready: {type: boolean, default: false}
steps:
  - id: a
    prompt: "Work on {{ goal }}."
    output: {type: object, required: [x], properties: {x: {type: integer}}}
    next:
      - {to: b, when: ready, label: go}
      - {end: true, default: true}
  - id: b
    prompt: Finish.
"#;

const REORDERED: &str = r#"
# Same workflow: keys in another order, other quoting and layout.
steps:
  - prompt: 'Work on {{ goal }}.'
    next:
      - label: go
        when: ready
        to: b
      - default: true
        end: true
    output:
      properties:
        x:
          type: integer
      required: [x]
      type: object
    id: a
  - {prompt: "Finish.", id: b}
variables:
  ready:
    default: false
    type: boolean
title: Ordering
id: ordering
"#;

const AS_JSON: &str = r#"{
	"id": "ordering",
	"title": "Ordering",
	"variables": {"ready": {"type": "boolean", "default": false}},
	"steps": [
		{
			"id": "a",
			"prompt": "Work on {{ goal }}.",
			"output": {"type": "object", "required": ["x"], "properties": {"x": {"type": "integer"}}},
			"next": [{"to": "b", "when": "ready", "label": "go"}, {"end": true, "default": true}]
		},
		{"id": "b", "prompt": "Finish."}
	]
}"#;

#[test]
fn hash_is_stable_under_key_order_and_formatting() {
    assert_eq!(hash_of("original.yaml", ORIGINAL), hash_of("reordered.yaml", REORDERED));
}

#[test]
fn json_and_yaml_of_the_same_workflow_hash_the_same() {
    assert_eq!(hash_of("original.yaml", ORIGINAL), hash_of("same.json", AS_JSON));
}

#[test]
fn hash_changes_when_a_prompt_changes() {
    let changed = ORIGINAL.replace("Finish.", "Finish carefully.");
    assert_ne!(hash_of("original.yaml", ORIGINAL), hash_of("changed.yaml", &changed));
}

#[test]
fn builtin_hashes_are_deterministic() {
    for builtin in builtins() {
        assert_eq!(hash_of(builtin.name, &builtin.source.text), hash_of(builtin.name, &builtin.source.text));
    }
}

#[test]
fn deep_nesting_is_reported_not_a_stack_overflow() {
    let depth = 100_000;
    let nested = format!("id: deep\nsteps: {}{}\n", "[".repeat(depth), "]".repeat(depth));
    let compiled = compile(&Source::new("deep.yaml", nested));
    assert!(compiled.workflow.is_none());
    let condition = format!(
        "id: deep\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {{end: true, when: '{}1{}'}}\n",
        "(".repeat(5_000),
        ")".repeat(5_000)
    );
    let compiled = compile(&Source::new("deep.yaml", condition));
    assert_eq!(compiled.diagnostics[0].code, "condition-syntax");
    let readable =
        "id: deep\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {end: true, when: '((((((((1 == 1))))))))'}\n";
    assert!(compile(&Source::new("deep.yaml", readable)).diagnostics.is_empty());
    let template =
        format!("id: deep\nsteps:\n  - id: a\n    prompt: '{{{{ {}1{} }}}}'\n", "(".repeat(5_000), ")".repeat(5_000));
    let compiled = compile(&Source::new("deep.yaml", template));
    assert!(compiled.workflow.is_none());
}
