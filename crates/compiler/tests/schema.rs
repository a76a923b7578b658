//! The published JSON Schema of the native format: pinned by a snapshot, valid, accepting every
//! native built-in and every complete example in `docs/workflow-format.md` (which must also
//! compile without a diagnostic), and judging every native document the repository and the
//! corpora hold as the schema did before the format was defined once.

use std::path::{Path, PathBuf};

use switchyard_compiler::{
    Bundle, Format, Source, builtins, codes, compile, compile_bundle, detect_format, native_schema, to_native_yaml,
};
use switchyard_test_support::{corpora, method_bundles, testdata, text_files};

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

/// The schema `switchyard schema` printed while the reader and the schema were two models of
/// the format (before issue 48): the derived one must accept and refuse what it did.
const SCHEMA_BEFORE: &str = include_str!("fixtures/native-schema-before-issue-48.json");

/// Documents that break the format in one place each, for both schemas to refuse (or accept) alike.
const WRONG_DOCUMENTS: &[&str] = &[
    "{}",
    "[]",
    "id: x",
    "steps: [{id: a, prompt: p}]",
    "id: x\nsteps: []",
    "id: x\nsteps: 5",
    "id: 5\nsteps: [{id: a, prompt: p}]",
    "id: x\nsteps: [{id: a}]",
    "id: x\nsteps: [{prompt: p}]",
    "id: x\nsteps: [{id: a, prompt: p, promt: q}]",
    "id: x\nsteps: [{id: '-a', prompt: p}]",
    "id: x\nsteps: [{id: 'a b', prompt: p}]",
    "id: x\nsteps: [{id: a, prompt: 5}]",
    "id: x\nsteps: [{id: a, prompt: ~}]",
    "id: x\nsteps: [{id: a, prompt: p, title: ~}]",
    "id: x\nsteps: [{id: a, prompt: p, notes: sometimes}]",
    "id: x\nsteps: [{id: a, prompt: p, notes: optional}]",
    "id: x\nsteps: [{id: a, prompt: p, gate: yes}]",
    "id: x\nsteps: [{id: a, prompt: p, max_attempts: 0}]",
    "id: x\nsteps: [{id: a, prompt: p, max_attempts: 1.5}]",
    "id: x\nsteps: [{id: a, prompt: p, max_attempts: -1}]",
    "id: x\nsteps: [{id: a, prompt: p, max_attempts: 4294967296}]",
    "id: x\nsteps: [{id: a, prompt: p, status_report: strict}]",
    "id: x\nsteps: [{id: a, prompt: p, status_report: 'true'}]",
    "id: x\nsteps: [{id: a, prompt: p, status_report: lenient}]",
    "id: x\nsteps: [{id: a, prompt: p, next: 5}]",
    "id: x\nsteps: [{id: a, prompt: p, next: {to: b}}]",
    "id: x\nsteps: [{id: a, prompt: p, next: [b, 5]}]",
    "id: x\nsteps: [{id: a, prompt: p, next: [{to: b, end: true}]}]",
    "id: x\nsteps: [{id: a, prompt: p, next: [{}]}]",
    "id: x\nsteps: [{id: a, prompt: p, next: [{to: b, kind: lop}]}]",
    "id: x\nsteps: [{id: a, prompt: p, next: [{to: b, max_traversals: 0}]}]",
    "id: x\nsteps: [{id: a, prompt: p, next: [{to: b, set: {n: 1}}]}]",
    "id: x\nsteps: [{id: a, prompt: p, next: [{to: b, set: [n]}]}]",
    "id: x\nsteps: [{id: a, prompt: p, next: [{to: b, lable: c}]}]",
    "id: x\nsteps: [{id: a, prompt: p, checks: [{kind: contains}]}]",
    "id: x\nsteps: [{id: a, prompt: p, checks: [{kind: contains, value: v}]}]",
    "id: x\nsteps: [{id: a, prompt: p, checks: [{kind: nope}]}]",
    "id: x\nsteps: [{id: a, prompt: p, checks: {kind: contains, value: v}}]",
    "id: x\nsteps: [{id: a, prompt: p, output: 5}]",
    "id: x\nsteps: [{id: a, prompt: p, when: [a]}]",
    "id: x\nvariables: {n: strng}\nsteps: [{id: a, prompt: p}]",
    "id: x\nvariables: {n: string}\nsteps: [{id: a, prompt: p}]",
    "id: x\nvariables: {n: {type: number, default: 1, layer: useful}}\nsteps: [{id: a, prompt: p}]",
    "id: x\nvariables: {n: {type: number, layer: loud}}\nsteps: [{id: a, prompt: p}]",
    "id: x\nvariables: {n: {typ: number}}\nsteps: [{id: a, prompt: p}]",
    "id: x\nvariables: {n: 5}\nsteps: [{id: a, prompt: p}]",
    "id: x\nvariables: [n]\nsteps: [{id: a, prompt: p}]",
    "id: x\nlimits: {max_cycles: 0}\nsteps: [{id: a, prompt: p}]",
    "id: x\nlimits: {max_revision_attempts: 0, max_replan_attempts: 0}\nsteps: [{id: a, prompt: p}]",
    "id: x\nlimits: {max_loops: 1}\nsteps: [{id: a, prompt: p}]",
    "id: x\nlimits: 5\nsteps: [{id: a, prompt: p}]",
    "id: x\ntags: [a, '']\nsteps: [{id: a, prompt: p}]",
    "id: x\ntags: [a, 5]\nsteps: [{id: a, prompt: p}]",
    "id: x\ntags: a\nsteps: [{id: a, prompt: p}]",
    "id: x\nversion: 1.0\nsteps: [{id: a, prompt: p}]",
    "id: x\nstrict_status: 1\nsteps: [{id: a, prompt: p}]",
    "id: x\n$schema: 5\nsteps: [{id: a, prompt: p}]",
    "id: x\n$schema: https://example.com/schema.json\nstart: a\nsteps: [{id: a, prompt: p}]",
    "id: x\nstages: []\nsteps: [{id: a, prompt: p}]",
];

/// Every native document the repository and the corpora hold, as JSON: built-ins, docs
/// examples, the test fixtures of every crate, and what `switchyard import --to native` writes
/// for the WorkRail, BMad Method and CrewAgent corpora.
fn native_documents() -> Vec<(String, serde_json::Value)> {
    let mut texts: Vec<(String, String)> = Vec::new();
    for builtin in builtins() {
        texts.push((builtin.name.to_owned(), builtin.source.text.clone()));
    }
    for (index, (_, body)) in docs_examples().into_iter().enumerate() {
        texts.push((format!("docs example {index}"), body));
    }
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    for crate_folder in std::fs::read_dir(workspace.join("crates")).unwrap() {
        source_files(&crate_folder.unwrap().path().join("tests"), &mut files);
    }
    source_files(&testdata(), &mut files);
    for path in files {
        texts.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
    }
    let mut documents: Vec<(String, serde_json::Value)> = texts
        .into_iter()
        .filter(|(_, text)| detect_format(text) == Some(Format::Native))
        .filter_map(|(name, text)| Some((name, serde_saphyr::from_str(&text).ok()?)))
        .collect();
    let mut imported = Vec::new();
    let mut workrail = Vec::new();
    source_files(&corpora().join("workrail"), &mut workrail);
    for path in workrail {
        let compiled = compile(&Source::new(path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
        imported.extend(compiled.workflow.map(|workflow| (path, workflow)));
    }
    let crewagent = std::fs::read_dir(testdata().join("crewagent")).unwrap().map(|entry| entry.unwrap().path());
    for folder in method_bundles().into_iter().chain(crewagent.filter(|path| path.is_dir())) {
        let bundle = Bundle { name: folder.display().to_string(), files: text_files(&folder) };
        for compiled in compile_bundle(&bundle) {
            imported.extend(compiled.compiled.workflow.map(|workflow| (folder.clone(), workflow)));
        }
    }
    for (path, workflow) in imported {
        let yaml = to_native_yaml(&workflow).unwrap();
        documents.push((format!("{} as native", path.display()), serde_saphyr::from_str(&yaml).unwrap()));
    }
    documents
}

/// The YAML and JSON files below `folder`.
fn source_files(folder: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else { return };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, files);
        } else if path.extension().is_some_and(|extension| ["yaml", "yml", "json"].iter().any(|e| extension == *e)) {
            files.push(path);
        }
    }
}

#[test]
fn the_derived_schema_accepts_and_refuses_what_the_schema_before_did() {
    let before: serde_json::Value = serde_json::from_str(SCHEMA_BEFORE).unwrap();
    let before = jsonschema::validator_for(&before).unwrap();
    let derived = jsonschema::validator_for(&native_schema()).unwrap();
    let mut documents = native_documents();
    let (mut accepted, mut refused) = (0, 0);
    for (index, text) in WRONG_DOCUMENTS.iter().enumerate() {
        documents.push((format!("wrong document {index}: {text}"), serde_saphyr::from_str(text).unwrap()));
    }
    // Fields added since then are new words the schema before could not know.
    let added_since = |document: &serde_json::Value| {
        let steps = document.get("steps").and_then(serde_json::Value::as_array);
        let added = ["evidence", "run", "on_failure"];
        steps.is_some_and(|steps| steps.iter().any(|step| added.iter().any(|field| step.get(field).is_some())))
    };
    for (name, document) in documents.iter().filter(|(_, document)| !added_since(document)) {
        let verdict = before.is_valid(document);
        assert_eq!(derived.is_valid(document), verdict, "{name}: the schema before said valid = {verdict}");
        if verdict {
            accepted += 1;
        } else {
            refused += 1;
        }
    }
    assert!(accepted > 100 && refused > 40, "{accepted} accepted and {refused} refused: too few to prove much");
}
