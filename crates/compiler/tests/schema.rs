//! The published JSON Schema of the native format: pinned by a snapshot, valid, and accepting
//! every native built-in and every complete example in `docs/workflow-format.md`, which must
//! also compile without a diagnostic.

use switchyard_compiler::{Format, Source, builtins, codes, compile, native_schema};

const DOCS: &str = include_str!("../../../docs/workflow-format.md");

/// The fenced code blocks of the docs with their language.
fn docs_examples() -> Vec<(String, String)> {
    let mut examples = Vec::new();
    let mut current: Option<(String, String)> = None;
    for line in DOCS.lines() {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(language)) => current = Some((language.to_owned(), String::new())),
            (Some(_), Some(_)) => examples.extend(current.take()),
            (Some((_, body)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    examples
}

fn validate(name: &str, document: &serde_json::Value) {
    let validator = jsonschema::validator_for(&native_schema()).expect("the schema compiles");
    let errors: Vec<String> =
        validator.iter_errors(document).map(|error| format!("{error} at {}", error.instance_path())).collect();
    assert!(errors.is_empty(), "{name} does not match the schema:\n{}", errors.join("\n"));
}

fn as_json(text: &str) -> serde_json::Value {
    serde_saphyr::from_str::<serde_json::Value>(text).expect("example parses")
}

#[test]
fn native_schema_is_pinned() {
    insta::assert_json_snapshot!("native_schema", native_schema());
}

#[test]
fn native_schema_is_a_valid_draft_2020_12_schema() {
    let schema = native_schema();
    assert_eq!(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    jsonschema::draft202012::meta::validate(&schema).expect("valid meta-schema");
}

#[test]
fn every_native_builtin_matches_the_schema() {
    let mut checked = 0;
    for builtin in builtins() {
        if compile(&builtin.source).format == Format::Native {
            validate(builtin.name, &as_json(&builtin.source.text));
            checked += 1;
        }
    }
    assert!(checked >= 2);
}

#[test]
fn every_docs_example_compiles_cleanly_and_native_ones_match_the_schema() {
    let examples = docs_examples();
    assert!(examples.len() >= 3);
    let mut native = 0;
    for (index, (language, body)) in examples.iter().enumerate() {
        if language != "yaml" && language != "json" {
            continue;
        }
        let name = format!("docs example {index} ({language})");
        let compiled = compile(&Source::new(name.clone(), body.clone()));
        let rendered: Vec<String> = compiled.diagnostics.iter().map(ToString::to_string).collect();
        assert!(rendered.is_empty(), "{name}:\n{}", rendered.join("\n"));
        if compiled.format == Format::Native {
            validate(&name, &as_json(body));
            native += 1;
        }
    }
    assert!(native >= 2, "the docs show a YAML and a JSON native example");
}

#[test]
fn every_diagnostic_code_is_documented() {
    for (code, _) in codes::ALL {
        assert!(DOCS.contains(&format!("| `{code}` |")), "`{code}` is missing from docs/workflow-format.md");
    }
}

#[test]
fn schema_rejects_unknown_fields() {
    let validator = jsonschema::validator_for(&native_schema()).unwrap();
    let document = serde_json::json!({"id": "x", "steps": [{"id": "a", "prompt": "p", "promt": "q"}]});
    assert!(!validator.is_valid(&document));
}
