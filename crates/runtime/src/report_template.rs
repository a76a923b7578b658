//! The report a pending step asks for, as a template with placeholders to fill in: derived from
//! the step's contract (its notes policy, its output schema, whether it needs a choice), so the
//! next call every door shows can succeed once filled in. A report sent with a placeholder still
//! in it is recognised and refused before anything is recorded, so a call copied verbatim never
//! advances a run with a placeholder and never uses up an attempt.

use serde::Serialize;
use serde_json::{Map, Value};
use switchyard_core::workflow::NotesPolicy;
use switchyard_engine::PendingStep;

use crate::AdvanceInput;

/// How every placeholder starts; it ends with `>`.
pub const PLACEHOLDER_START: &str = "<fill in";

/// How deep the artifacts skeleton follows nested objects and arrays; deeper values are one
/// placeholder, so a recursive or huge schema still gives a skeleton of bounded size.
pub const MAX_SKELETON_DEPTH: usize = 6;

/// The most properties the skeleton of one object lists.
const MAX_SKELETON_PROPERTIES: usize = 64;

/// What to send when reporting on a pending step, with `<fill in: …>` placeholders.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReportTemplate {
    /// Placeholder notes (Markdown).
    pub notes: String,
    /// A skeleton of the artifacts the output schema requires: every required property, with a
    /// placeholder by type (enums list their values), nested objects and arrays of objects
    /// followed to [`MAX_SKELETON_DEPTH`]. `None` when the step asks for no artifacts.
    pub artifacts: Option<Value>,
    /// A placeholder naming the labels, where the step needs a choice.
    pub choice: Option<String>,
    /// Every placeholder: where it is and what goes there.
    pub fill_in: Vec<FillIn>,
}

/// One placeholder of a [`ReportTemplate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FillIn {
    /// `notes`, `choice`, or a JSON pointer into the report (`/artifacts/findings/0/severity`).
    pub path: String,
    /// What goes there: a type, the values of an enum, and the schema's description if it has one.
    pub what: String,
}

impl ReportTemplate {
    /// The template of the report on `step`.
    pub fn for_step(step: &PendingStep) -> Self {
        let mut fill_in = Vec::new();
        let notes_what = match step.notes {
            NotesPolicy::Required => "your notes on the step, in Markdown (required)",
            NotesPolicy::Optional => "your notes on the step, in Markdown (optional)",
        };
        let notes = placeholder(notes_what);
        fill_in.push(FillIn { path: "notes".to_owned(), what: notes_what.to_owned() });
        let artifacts = step.output_schema.as_ref().and_then(|schema| artifacts_skeleton(schema, &mut fill_in));
        let choice = step.needs_choice.then(|| {
            let labels: Vec<&str> = step.allowed_next.iter().map(|edge| edge.label.as_str()).collect();
            let what = format!("one of {}", labels.join(", "));
            fill_in.push(FillIn { path: "choice".to_owned(), what: what.clone() });
            placeholder(&what)
        });
        Self { notes, artifacts, choice, fill_in }
    }
}

/// The skeleton of the artifacts `schema` requires, its placeholders added to `fill_in`; `None`
/// when an empty object already satisfies the schema's shape (no required property).
pub fn artifacts_skeleton(schema: &Value, fill_in: &mut Vec<FillIn>) -> Option<Value> {
    let mut found = Vec::new();
    let skeleton = skeleton(schema, "/artifacts", 0, &mut found);
    if skeleton.as_object().is_some_and(Map::is_empty) || matches!(schema, Value::Bool(_)) {
        return None;
    }
    fill_in.extend(found);
    Some(skeleton)
}

/// Where a report still holds a placeholder: `notes`, `choice`, or JSON pointers into the
/// artifacts and the context. Empty when everything was filled in.
pub fn unfilled(input: &AdvanceInput) -> Vec<String> {
    let mut paths = Vec::new();
    if input.notes.as_deref().is_some_and(is_placeholder) {
        paths.push("notes".to_owned());
    }
    if let Some(artifacts) = &input.artifacts {
        placeholders_in(artifacts, "/artifacts".to_owned(), &mut paths);
    }
    if let Some(context) = &input.context {
        for (key, value) in context {
            placeholders_in(value, format!("/context/{}", pointer_token(key)), &mut paths);
        }
    }
    if input.choice.as_deref().is_some_and(is_placeholder) {
        paths.push("choice".to_owned());
    }
    paths
}

fn is_placeholder(text: &str) -> bool {
    let text = text.trim();
    text.starts_with(PLACEHOLDER_START) && text.ends_with('>')
}

fn placeholders_in(value: &Value, path: String, paths: &mut Vec<String>) {
    match value {
        Value::String(text) if is_placeholder(text) => paths.push(path),
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                placeholders_in(item, format!("{path}/{index}"), paths);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                placeholders_in(item, format!("{path}/{}", pointer_token(key)), paths);
            }
        }
        _ => {}
    }
}

fn placeholder(what: &str) -> String {
    format!("{PLACEHOLDER_START}: {what}>")
}

/// A property name as a JSON pointer segment (RFC 6901).
fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn skeleton(schema: &Value, path: &str, depth: usize, fill_in: &mut Vec<FillIn>) -> Value {
    let Value::Object(schema) = schema else {
        return filled(path, "any JSON value".to_owned(), None, fill_in);
    };
    let description = schema.get("description").and_then(Value::as_str);
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        let listed: Vec<String> =
            values.iter().map(|value| value.as_str().map_or_else(|| value.to_string(), str::to_owned)).collect();
        return filled(path, format!("one of {}", listed.join(", ")), description, fill_in);
    }
    let kind = kind_of(schema);
    if kind.is_none() {
        // No shape of its own: follow the first alternative that has one.
        let first = ["allOf", "anyOf", "oneOf"]
            .iter()
            .find_map(|key| schema.get(*key).and_then(Value::as_array).and_then(|list| list.first()));
        if let Some(first) = first
            && depth < MAX_SKELETON_DEPTH
        {
            return skeleton(first, path, depth + 1, fill_in);
        }
    }
    match kind {
        Some("object") if depth < MAX_SKELETON_DEPTH => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let mut object = Map::new();
            let required = schema.get("required").and_then(Value::as_array).into_iter().flatten();
            for name in required.filter_map(Value::as_str).take(MAX_SKELETON_PROPERTIES) {
                let property = properties.and_then(|properties| properties.get(name)).unwrap_or(&Value::Bool(true));
                let value = skeleton(property, &format!("{path}/{}", pointer_token(name)), depth + 1, fill_in);
                object.insert(name.to_owned(), value);
            }
            Value::Object(object)
        }
        Some("array") if depth < MAX_SKELETON_DEPTH => {
            let items = schema.get("items").unwrap_or(&Value::Bool(true));
            Value::Array(vec![skeleton(items, &format!("{path}/0"), depth + 1, fill_in)])
        }
        Some("null") => Value::Null,
        Some("boolean") => filled(path, "true or false".to_owned(), description, fill_in),
        Some(kind) => {
            let what = match schema.get("format").and_then(Value::as_str) {
                Some(format) if kind == "string" => format!("string ({format})"),
                _ => kind.to_owned(),
            };
            filled(path, what, description, fill_in)
        }
        None => filled(path, "any JSON value".to_owned(), description, fill_in),
    }
}

/// The JSON type a schema asks for: its `type` (the first besides `null` in a list), or what its
/// keywords imply.
fn kind_of(schema: &Map<String, Value>) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(Value::Array(kinds)) => {
            let kinds: Vec<&str> = kinds.iter().filter_map(Value::as_str).collect();
            kinds.iter().find(|kind| **kind != "null").or(kinds.first()).copied()
        }
        _ if schema.contains_key("properties") || schema.contains_key("required") => Some("object"),
        _ if schema.contains_key("items") => Some("array"),
        _ => None,
    }
}

/// A placeholder at `path`, recorded in `fill_in` with the schema's description.
fn filled(path: &str, what: String, description: Option<&str>, fill_in: &mut Vec<FillIn>) -> Value {
    let text = placeholder(&what);
    let what = match description.map(str::trim).filter(|description| !description.is_empty()) {
        Some(description) => format!("{what}: {}", description.chars().take(200).collect::<String>()),
        None => what,
    };
    fill_in.push(FillIn { path: path.to_owned(), what });
    Value::String(text)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(schema: &Value, expected: Value, expected_paths: &[&str]) {
        let mut fill_in = Vec::new();
        let skeleton = artifacts_skeleton(schema, &mut fill_in);
        assert_eq!(skeleton, (!expected.is_null()).then_some(expected));
        let paths: Vec<&str> = fill_in.iter().map(|fill| fill.path.as_str()).collect();
        assert_eq!(paths, expected_paths);
        if let Some(skeleton) = skeleton {
            let input = AdvanceInput { artifacts: Some(skeleton), ..AdvanceInput::default() };
            let mut recognised = unfilled(&input);
            let mut expected_paths = expected_paths.to_vec();
            recognised.sort();
            expected_paths.sort_unstable();
            assert_eq!(recognised, expected_paths, "every placeholder is recognised again");
        }
    }

    #[test]
    fn required_properties_get_placeholders_by_type_and_enums_list_their_values() {
        check(
            &json!({"type": "object", "required": ["findings"], "properties": {"findings": {"type": "array", "items": {
                "type": "object", "required": ["severity", "line"], "properties": {
                    "severity": {"enum": ["blocker", "major"]}, "line": {"type": "integer"}, "note": {"type": "string"}}}}}}),
            json!({"findings": [{"severity": "<fill in: one of blocker, major>", "line": "<fill in: integer>"}]}),
            &["/artifacts/findings/0/severity", "/artifacts/findings/0/line"],
        );
        check(
            &json!({"required": ["ok", "at", "tags", "nothing", "fixed"], "properties": {
                "ok": {"type": "boolean"}, "at": {"type": ["null", "string"], "format": "date-time"},
                "tags": {"items": {"type": "string"}}, "nothing": {"type": "null"}, "fixed": {"const": 3}}}),
            json!({"ok": "<fill in: true or false>", "at": "<fill in: string (date-time)>",
                "tags": ["<fill in: string>"], "nothing": null, "fixed": 3}),
            &["/artifacts/ok", "/artifacts/at", "/artifacts/tags/0"],
        );
    }

    #[test]
    fn a_schema_without_required_properties_asks_for_no_artifacts() {
        check(&json!({"type": "object", "properties": {"a": {"type": "string"}}}), Value::Null, &[]);
        check(&json!(true), Value::Null, &[]);
    }

    #[test]
    fn a_recursive_schema_gives_a_bounded_skeleton() {
        let mut schema = json!({"type": "string"});
        for _ in 0..50 {
            schema = json!({"type": "object", "required": ["child"], "properties": {"child": schema}});
        }
        let mut fill_in = Vec::new();
        let skeleton = artifacts_skeleton(&schema, &mut fill_in).unwrap();
        let deepest = format!("/artifacts{}", "/child".repeat(MAX_SKELETON_DEPTH));
        assert_eq!(fill_in.iter().map(|fill| fill.path.as_str()).collect::<Vec<_>>(), [deepest.as_str()]);
        assert!(skeleton.to_string().len() < 200, "{skeleton}");
    }

    #[test]
    fn filled_in_values_are_no_placeholders() {
        let input = AdvanceInput {
            notes: Some("<fill in: your notes>".to_owned()),
            artifacts: Some(json!({"html": "<b>bold</b>", "a/b": ["<fill in: string>"]})),
            context: Some(Map::from_iter([("k".to_owned(), json!("<fill in: x>"))])),
            choice: Some("approve".to_owned()),
        };
        assert_eq!(unfilled(&input), ["notes", "/artifacts/a~1b/0", "/context/k"]);
    }
}
