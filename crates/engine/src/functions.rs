//! Functions the engine adds to CEL, for every workflow whatever its source format:
//! `value_of(map, key)` (the value or null, never an error), `of_kind(list, kind)` (the first
//! object of the list whose `kind` field equals `kind`, or null) and `loose(value, op, operand)`
//! (lenient comparison, the rules imported formats such as WorkRail conditions rely on).
//!
//! The lenient rules, in full (also in `docs/workflow-format.md`):
//! - `equals`/`not_equals`: null equals null only; two strings compare trimmed and
//!   case-insensitively; a number and a numeric string compare as numbers; a boolean and one
//!   of `true/1/yes` or `false/0/no` compare as booleans; anything else compares as JSON.
//! - `gt`, `gte`, `lt`, `lte`: both sides must be numbers (or numeric strings), else false.
//! - `contains`, `startsWith`, `endsWith`: case-insensitive on the values as text.
//! - `matches`: case-insensitive regular expression on the value as text.
//! - `in`: the operand is a list holding an element loosely equal to the value.
//! - `truthy`: JavaScript truthiness (null, false, 0, NaN and "" are false).

use std::sync::Arc;

use cel::objects::Key;

/// Registers the engine's functions on a CEL context.
pub(crate) fn register(context: &mut cel::Context<'static, 'static>) {
    // Neither name is declared by CEL's standard library, so registration cannot conflict.
    let _ = context.add_function("value_of", value_of);
    let _ = context.add_function("loose", loose);
    let _ = context.add_function("of_kind", of_kind);
}

/// Registers the same functions on the prompt templates' environment.
pub(crate) fn register_templates(environment: &mut minijinja::Environment<'static>) {
    environment.add_function("value_of", |map: minijinja::Value, key: String| {
        map.get_attr(&key).ok().filter(|value| !value.is_undefined()).unwrap_or(minijinja::Value::from(()))
    });
    environment.add_function("of_kind", |list: minijinja::Value, kind: String| {
        list.try_iter()
            .ok()
            .and_then(|mut items| {
                items.find(|item| {
                    item.get_attr("kind")
                        .ok()
                        .and_then(|found| found.as_str().map(|found| found == kind))
                        .unwrap_or(false)
                })
            })
            .unwrap_or(minijinja::Value::from(()))
    });
    environment.add_function("loose", |value: minijinja::Value, operator: String, operand: minijinja::Value| {
        let value = serde_json::to_value(&value).unwrap_or(serde_json::Value::Null);
        let operand = serde_json::to_value(&operand).unwrap_or(serde_json::Value::Null);
        loose_json(&value, &operator, &operand)
    });
}

fn value_of(map: cel::Value, key: Arc<String>) -> cel::Value {
    match map {
        cel::Value::Map(map) => map.map.get(&Key::String(key)).cloned().unwrap_or(cel::Value::Null),
        _ => cel::Value::Null,
    }
}

#[allow(clippy::needless_pass_by_value, reason = "cel hands functions owned arguments")]
fn of_kind(list: cel::Value, kind: Arc<String>) -> cel::Value {
    let cel::Value::List(items) = list else { return cel::Value::Null };
    items
        .iter()
        .find(|item| matches!(value_of((*item).clone(), kind_key()), cel::Value::String(found) if found == kind))
        .cloned()
        .unwrap_or(cel::Value::Null)
}

fn kind_key() -> Arc<String> {
    Arc::new("kind".to_owned())
}

#[allow(clippy::needless_pass_by_value, reason = "cel hands functions owned arguments")]
fn loose(value: cel::Value, operator: Arc<String>, operand: cel::Value) -> bool {
    let value = cel_to_json(&value);
    let operand = cel_to_json(&operand);
    loose_json(&value, operator.as_str(), &operand)
}

/// The lenient comparison over JSON values; see the module documentation.
pub fn loose_json(value: &serde_json::Value, operator: &str, operand: &serde_json::Value) -> bool {
    match operator {
        "equals" => loose_equals(value, operand),
        "not_equals" => !loose_equals(value, operand),
        "gt" | "gte" | "lt" | "lte" => match (number(value), number(operand)) {
            (Some(left), Some(right)) => match operator {
                "gt" => left > right,
                "gte" => left >= right,
                "lt" => left < right,
                _ => left <= right,
            },
            _ => false,
        },
        "contains" => !value.is_null() && text(value).to_lowercase().contains(&text(operand).to_lowercase()),
        "startsWith" => !value.is_null() && text(value).to_lowercase().starts_with(&text(operand).to_lowercase()),
        "endsWith" => !value.is_null() && text(value).to_lowercase().ends_with(&text(operand).to_lowercase()),
        "matches" => regex::RegexBuilder::new(&text(operand))
            .case_insensitive(true)
            .size_limit(1 << 20)
            .build()
            .is_ok_and(|pattern| !value.is_null() && pattern.is_match(&text(value))),
        "in" => operand.as_array().is_some_and(|items| items.iter().any(|item| loose_equals(value, item))),
        "truthy" => truthy(value),
        _ => false,
    }
}

fn loose_equals(left: &serde_json::Value, right: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (left, right) {
        (Value::Null, Value::Null) => true,
        (Value::Null, _) | (_, Value::Null) => false,
        (Value::String(a), Value::String(b)) => a.trim().to_lowercase() == b.trim().to_lowercase(),
        (Value::Bool(flag), other) | (other, Value::Bool(flag)) => boolean(other) == Some(*flag),
        (Value::Number(_), _) | (_, Value::Number(_)) => match (number(left), number(right)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        },
        _ => left == right,
    }
}

fn number(value: &serde_json::Value) -> Option<f64> {
    match value {
        serde_json::Value::Number(number) => number.as_f64(),
        serde_json::Value::String(text) => text.trim().parse().ok(),
        _ => None,
    }
}

fn boolean(value: &serde_json::Value) -> Option<bool> {
    match value {
        serde_json::Value::Bool(flag) => Some(*flag),
        serde_json::Value::Number(number) => number.as_f64().map(|number| number != 0.0),
        serde_json::Value::String(text) => match text.trim().to_lowercase().as_str() {
            "true" | "1" | "yes" => Some(true),
            "false" | "0" | "no" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

fn text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn truthy(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Null => false,
        serde_json::Value::Bool(flag) => *flag,
        serde_json::Value::Number(number) => number.as_f64().is_some_and(|number| number != 0.0 && !number.is_nan()),
        serde_json::Value::String(text) => !text.is_empty(),
        _ => true,
    }
}

/// A CEL value as JSON; values JSON cannot hold become null.
pub(crate) fn cel_to_json(value: &cel::Value) -> serde_json::Value {
    value.json().unwrap_or(serde_json::Value::Null)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::loose_json;

    #[allow(clippy::needless_pass_by_value, reason = "the table reads better with owned json! values")]
    fn check(value: serde_json::Value, operator: &str, operand: serde_json::Value, expected: bool) {
        assert_eq!(loose_json(&value, operator, &operand), expected, "{value} {operator} {operand}");
    }

    #[test]
    fn loose_comparisons_follow_the_documented_rules() {
        check(json!(" Yes "), "equals", json!("yes"), true);
        check(json!("5"), "equals", json!(5), true);
        check(json!("true"), "equals", json!(true), true);
        check(json!("no"), "equals", json!(false), true);
        check(json!(null), "equals", json!(null), true);
        check(json!(null), "equals", json!("x"), false);
        check(json!("a"), "not_equals", json!("A"), false);
        check(json!(3), "gt", json!(2), true);
        check(json!("abc"), "gt", json!(2), false);
        check(json!("Hello World"), "contains", json!("world"), true);
        check(json!("Hello"), "startsWith", json!("he"), true);
        check(json!("Hello"), "endsWith", json!("LO"), true);
        check(json!("feature-123"), "matches", json!("^FEATURE-\\d+$"), true);
        check(json!("B"), "in", json!(["a", "b"]), true);
        check(json!(""), "truthy", json!(null), false);
        check(json!("x"), "truthy", json!(null), true);
        check(json!(0), "truthy", json!(null), false);
        check(json!(1), "nonsense", json!(1), false);
    }
}
