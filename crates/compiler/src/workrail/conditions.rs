//! WorkRail conditions as CEL or template expressions over the run context, calling the
//! engine's `loose` function (WorkRail's lenient comparisons); and WorkRail prompt text as a
//! switchyard template.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value as Json;

use super::format::{Condition, Conditions};

/// The condition language a WorkRail condition is translated into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Cel,
    Template,
}

const OPERATORS: &[&str] =
    &["equals", "not_equals", "gt", "gte", "lt", "lte", "contains", "startsWith", "endsWith", "matches", "in"];

/// Translates a WorkRail condition into a CEL (or template) expression over `context` using the
/// engine's `loose` and `value_of` functions. An empty condition is true.
pub(crate) fn translate(condition: &Json, dialect: Dialect) -> Result<String, String> {
    // Reading never fails: a shape no other variant takes is `Other`.
    let read = Condition::deserialize(condition).unwrap_or_else(|_| Condition::Other(condition.clone()));
    translate_read(&read, dialect)
}

/// A condition already read, translated.
fn translate_read(condition: &Condition, dialect: Dialect) -> Result<String, String> {
    let (and, or, not, truth) = match dialect {
        Dialect::Cel => (" && ", " || ", "!", "true"),
        Dialect::Template => (" and ", " or ", "not ", "true"),
    };
    let (parts, joiner) = match condition {
        Condition::All { and: parts } => (parts, and),
        Condition::Any { or: parts } => (parts, or),
        Condition::Not { not: inner } => return Ok(format!("{not}({})", translate_read(inner, dialect)?)),
        Condition::Test { var, operators } => return test(var, operators, dialect),
        Condition::Other(Json::Null) => return Ok(truth.to_owned()),
        Condition::Other(Json::Object(object)) if object.is_empty() => return Ok(truth.to_owned()),
        Condition::Other(Json::Object(object)) => {
            return Err(format!(
                "a WorkRail condition needs `var` (or and/or/not); found keys {:?}",
                object.keys().collect::<Vec<_>>()
            ));
        }
        Condition::List(items) => {
            return Err(format!("a WorkRail condition must be an object, found {}", Json::Array(items.clone())));
        }
        Condition::Other(other) => return Err(format!("a WorkRail condition must be an object, found {other}")),
    };
    let Conditions::List(parts) = parts else { return Err("`and`/`or` takes a list of conditions".to_owned()) };
    let translated = parts.iter().map(|part| translate_read(part, dialect)).collect::<Result<Vec<_>, _>>()?;
    if translated.is_empty() {
        return Ok(truth.to_owned());
    }
    Ok(format!("({})", translated.join(joiner)))
}

/// A test of one variable: each operator a `loose` call, all of them joined by `and`; a
/// variable alone tests that it is truthy.
fn test(variable: &str, operators: &BTreeMap<String, Json>, dialect: Dialect) -> Result<String, String> {
    let and = if dialect == Dialect::Cel { " && " } else { " and " };
    let value = format!("value_of(context, {})", literal(&Json::String(variable.to_owned()), dialect));
    let mut tests = Vec::new();
    for (key, operand) in operators {
        if !OPERATORS.contains(&key.as_str()) {
            return Err(format!("`{key}` is not a WorkRail condition operator"));
        }
        tests.push(format!("loose({value}, \"{key}\", {})", literal(operand, dialect)));
    }
    if tests.is_empty() {
        tests.push(format!("loose({value}, \"truthy\", {})", literal(&Json::Null, dialect)));
    }
    Ok(if tests.len() == 1 { tests.remove(0) } else { format!("({})", tests.join(and)) })
}

pub(super) fn literal(value: &Json, dialect: Dialect) -> String {
    match value {
        Json::Null => if dialect == Dialect::Cel { "null" } else { "none" }.to_owned(),
        Json::Bool(flag) => flag.to_string(),
        Json::Number(number) => number.to_string(),
        Json::String(text) => serde_json::to_string(text).unwrap_or_default(),
        Json::Array(items) => {
            format!("[{}]", items.iter().map(|item| literal(item, dialect)).collect::<Vec<_>>().join(", "))
        }
        Json::Object(object) => format!(
            "{{{}}}",
            object
                .iter()
                .map(|(key, value)| format!(
                    "{}: {}",
                    literal(&Json::String(key.clone()), dialect),
                    literal(value, dialect)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// WorkRail prompt text as a switchyard template: `{{name.path}}` reads `context.name.path`;
/// any other template syntax is kept literally.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut literal_run = String::new();
    let mut rest = text;
    let flush = |out: &mut String, literal_run: &mut String| {
        // A run ending in `{` would merge with a following `{{ ... }}` into `{{{`.
        if literal_run.contains("{{")
            || literal_run.contains("{%")
            || literal_run.contains("{#")
            || literal_run.ends_with('{')
        {
            out.push_str("{% raw %}");
            out.push_str(&literal_run.replace("{% endraw %}", "{% endraw %}{{ '{% endraw %}' }}{% raw %}"));
            out.push_str("{% endraw %}");
        } else {
            out.push_str(literal_run);
        }
        literal_run.clear();
    };
    while let Some(start) = rest.find("{{") {
        literal_run.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            literal_run.push_str(&rest[start..]);
            rest = "";
            break;
        };
        let name = after[..end].trim();
        let is_path = !name.is_empty()
            && name.split('.').all(|part| {
                let mut chars = part.chars();
                chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
            && !name.starts_with("wr.");
        if is_path {
            flush(&mut out, &mut literal_run);
            out.push_str(&format!("{{{{ context.{name} }}}}"));
        } else {
            literal_run.push_str(&rest[start..start + 2 + end + 2]);
        }
        rest = &after[end + 2..];
    }
    literal_run.push_str(rest);
    flush(&mut out, &mut literal_run);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{Dialect, escape, translate};

    #[test]
    fn conditions_become_loose_calls() {
        let condition = json!({"and": [{"var": "mode", "equals": "fast"}, {"not": {"var": "done"}}]});
        assert_eq!(
            translate(&condition, Dialect::Cel).unwrap(),
            "(loose(value_of(context, \"mode\"), \"equals\", \"fast\") && !(loose(value_of(context, \"done\"), \"truthy\", null)))"
        );
        assert!(translate(&json!({"var": "x", "sortOf": 1}), Dialect::Cel).is_err());
        assert_eq!(translate(&json!({}), Dialect::Template).unwrap(), "true");
    }

    #[test]
    fn conditions_of_other_shapes_are_reported_as_written_and_and_wins_over_or() {
        let error = |condition| translate(&condition, Dialect::Cel).unwrap_err();
        assert_eq!(error(json!(["a"])), "a WorkRail condition must be an object, found [\"a\"]");
        assert_eq!(error(json!("x")), "a WorkRail condition must be an object, found \"x\"");
        assert_eq!(error(json!({"and": null})), "`and`/`or` takes a list of conditions");
        assert_eq!(
            error(json!({"var": 1, "equals": 2})),
            "a WorkRail condition needs `var` (or and/or/not); found keys [\"equals\", \"var\"]"
        );
        assert_eq!(error(json!({"var": "x", "sortOf": 1})), "`sortOf` is not a WorkRail condition operator");
        let or = json!([{"var": "n", "gte": 1.5, "lt": -2}]);
        assert_eq!(translate(&json!({"or": or, "and": []}), Dialect::Cel).unwrap(), "true");
        assert_eq!(
            translate(&json!({"or": or}), Dialect::Cel).unwrap(),
            "((loose(value_of(context, \"n\"), \"gte\", 1.5) && loose(value_of(context, \"n\"), \"lt\", -2)))"
        );
    }

    #[test]
    fn prompt_variables_read_the_context_and_other_braces_stay_literal() {
        assert_eq!(
            escape("Fix #{{_iteration}} of {{item.name}}"),
            "Fix #{{ context._iteration }} of {{ context.item.name }}"
        );
        assert_eq!(escape("{{#if x}}a{{/if}}"), "{% raw %}{{#if x}}a{{/if}}{% endraw %}");
        assert_eq!(escape("use {% tags %}"), "{% raw %}use {% tags %}{% endraw %}");
    }
}
