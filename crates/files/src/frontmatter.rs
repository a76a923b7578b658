//! `update_frontmatter`: structured edits (set, append, remove) of a markdown file's YAML
//! frontmatter, addressed by dotted keys.

use serde::Deserialize;
use serde_json::{Map, Value};
use switchyard_runtime::run_folder::split_frontmatter;

use crate::error::{ToolError, codes};

/// One structured edit.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case", deny_unknown_fields)]
pub enum Operation {
    /// Sets `key` (dotted: `variables.focus`) to `value`, creating objects on the way.
    Set { key: String, value: Value },
    /// Appends `value` to the list at `key` (created when missing).
    Append { key: String, value: Value },
    /// Removes `key`.
    Remove { key: String },
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

/// Applies every operation or none.
pub fn apply(frontmatter: &mut Map<String, Value>, operations: &[Operation]) -> Result<(), ToolError> {
    for (index, operation) in operations.iter().enumerate() {
        let fail = |message: String| ToolError::new(codes::FRONTMATTER, format!("operation {index}: {message}"));
        let key = match operation {
            Operation::Set { key, .. } | Operation::Append { key, .. } | Operation::Remove { key } => key,
        };
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
        match operation {
            Operation::Set { value, .. } => {
                object.insert((*last).to_owned(), value.clone());
            }
            Operation::Append { value, .. } => {
                let list = object.entry((*last).to_owned()).or_insert_with(|| Value::Array(Vec::new()));
                list.as_array_mut().ok_or_else(|| fail(format!("`{key}` is not a list")))?.push(value.clone());
            }
            Operation::Remove { .. } => {
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
            &[
                Operation::Set { key: "b.c".into(), value: json!(true) },
                Operation::Append { key: "list".into(), value: json!("y") },
                Operation::Remove { key: "a".into() },
            ],
        )
        .unwrap();
        assert_eq!(Value::Object(map.clone()), json!({"b": {"c": true}, "list": ["x", "y"]}));
        let text = render(&map, &body).unwrap();
        assert_eq!(parse(&text).unwrap().0, map);
    }

    #[test]
    fn appending_to_a_scalar_fails_and_names_the_operation() {
        let (mut map, _) = parse("---\na: 1\n---\n").unwrap();
        let error = apply(&mut map, &[Operation::Append { key: "a".into(), value: json!(2) }]).unwrap_err();
        assert!(error.message.starts_with("operation 0"), "{error}");
    }
}
