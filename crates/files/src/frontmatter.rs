//! `update_frontmatter`: structured edits (set, append, remove) of a markdown file's YAML
//! frontmatter, addressed by dotted keys.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchyard_run_folder::split_frontmatter;

use crate::error::{ToolError, codes};

/// What an operation does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OperationKind {
    Set,
    Append,
    Remove,
}

impl OperationKind {
    /// The name an operation's `op` gives.
    pub fn name(self) -> &'static str {
        match self {
            Self::Set => "set",
            Self::Append => "append",
            Self::Remove => "remove",
        }
    }
}

/// One structured edit.
// Flat fields (`op` names what it does) rather than one shape per kind, so its schema is a plain
// object: some clients read no `oneOf`, and a wrong `op` is refused as not one of the three.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Operation {
    /// `set` the key to `value` (creating objects on the way), `append` `value` to the list at the key (created when missing), or `remove` the key.
    pub op: OperationKind,
    /// The dotted key: `variables.focus`.
    pub key: String,
    /// What `set` and `append` write (`null` included); `remove` takes none.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(transform = without_default)]
    pub value: Option<Value>,
}

impl Operation {
    pub fn set(key: &str, value: Value) -> Self {
        Self { op: OperationKind::Set, key: key.to_owned(), value: Some(value) }
    }

    pub fn append(key: &str, value: Value) -> Self {
        Self { op: OperationKind::Append, key: key.to_owned(), value: Some(value) }
    }

    pub fn remove(key: &str) -> Self {
        Self { op: OperationKind::Remove, key: key.to_owned(), value: None }
    }
}

/// An absent `value` is not `null`: `set` needs one, `remove` takes none.
fn without_default(schema: &mut schemars::Schema) {
    schema.remove("default");
}

/// A `value` that is there, even as `null`, is `Some`: `set` may write `null`.
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

/// Parses a document's frontmatter to JSON; a document without frontmatter has an empty one.
pub fn parse(text: &str) -> Result<(Map<String, Value>, String), ToolError> {
    let Some((yaml, body)) = split_frontmatter(text) else {
        return Ok((Map::new(), text.to_owned()));
    };
    if yaml.trim().is_empty() {
        return Ok((Map::new(), body.to_owned()));
    }
    let value: Value = serde_saphyr::from_str(yaml)
        .map_err(|error| ToolError::new(codes::FRONTMATTER, format!("the frontmatter is not valid YAML: {error}")))?;
    match value {
        Value::Object(map) => Ok((map, body.to_owned())),
        Value::Null => Ok((Map::new(), body.to_owned())),
        _ => Err(ToolError::new(codes::FRONTMATTER, "the frontmatter is not a YAML mapping")),
    }
}

/// Renders frontmatter and body back into a document.
pub fn render(frontmatter: &Map<String, Value>, body: &str) -> Result<String, ToolError> {
    let yaml = serde_saphyr::to_string(frontmatter)
        .map_err(|error| ToolError::new(codes::FRONTMATTER, format!("cannot write the frontmatter: {error}")))?;
    let newline = if yaml.ends_with('\n') { "" } else { "\n" };
    Ok(format!("---\n{yaml}{newline}---\n{body}"))
}

/// Refuses an operation whose `value` does not fit its `op` (`set` and `append` need one, `remove`
/// takes none), before anything is read or written.
pub fn check(operations: &[Operation]) -> Result<(), ToolError> {
    for (index, operation) in operations.iter().enumerate() {
        let problem = match (operation.op, &operation.value) {
            (OperationKind::Remove, Some(_)) => "`remove` takes no `value`".to_owned(),
            (OperationKind::Set | OperationKind::Append, None) => format!("`{}` needs `value`", operation.op.name()),
            _ => continue,
        };
        return Err(ToolError::new(codes::INVALID_ARGUMENTS, format!("operation {index}: {problem}")));
    }
    Ok(())
}

/// Applies every operation or none.
pub fn apply(frontmatter: &mut Map<String, Value>, operations: &[Operation]) -> Result<(), ToolError> {
    check(operations)?;
    for (index, operation) in operations.iter().enumerate() {
        let fail = |message: String| ToolError::new(codes::FRONTMATTER, format!("operation {index}: {message}"));
        let key = &operation.key;
        let value = operation.value.clone().unwrap_or_default();
        let parts: Vec<&str> = key.split('.').collect();
        if parts.iter().any(|part| part.is_empty()) {
            return Err(fail(format!("`{key}` is not a dotted key")));
        }
        let (last, parents) = parts.split_last().expect("split yields one part");
        let mut object = &mut *frontmatter;
        for part in parents {
            let entry = object.entry((*part).to_owned()).or_insert_with(|| Value::Object(Map::new()));
            object = entry.as_object_mut().ok_or_else(|| fail(format!("`{part}` in `{key}` is not a mapping")))?;
        }
        match operation.op {
            OperationKind::Set => {
                object.insert((*last).to_owned(), value);
            }
            OperationKind::Append => {
                let list = object.entry((*last).to_owned()).or_insert_with(|| Value::Array(Vec::new()));
                list.as_array_mut().ok_or_else(|| fail(format!("`{key}` is not a list")))?.push(value);
            }
            OperationKind::Remove => {
                object.remove(*last);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn set_append_and_remove_edit_nested_keys() {
        let (mut map, body) = parse("---\na: 1\nlist: [x]\n---\nbody\n").unwrap();
        apply(
            &mut map,
            &[Operation::set("b.c", json!(true)), Operation::append("list", json!("y")), Operation::remove("a")],
        )
        .unwrap();
        assert_eq!(Value::Object(map.clone()), json!({"b": {"c": true}, "list": ["x", "y"]}));
        let text = render(&map, &body).unwrap();
        assert_eq!(parse(&text).unwrap().0, map);
    }

    #[test]
    fn appending_to_a_scalar_fails_and_names_the_operation() {
        let (mut map, _) = parse("---\na: 1\n---\n").unwrap();
        let error = apply(&mut map, &[Operation::append("a", json!(2))]).unwrap_err();
        assert!(error.message.starts_with("operation 0"), "{error}");
    }
}
