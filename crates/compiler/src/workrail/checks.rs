//! The shape of a WorkRail workflow, checked by the project's own rules before it is read.
//!
//! WorkRail publishes its format as a JSON Schema; these checks state the same facts in code
//! (which fields each object allows and needs, their types, lengths, patterns and word lists) so
//! that an almost-right file gets located diagnostics in WorkRail's terms: the field, the line,
//! the fix.
//! WorkRail's loader reads files its schema is stricter about (unknown fields, a missing
//! `version`, non-string `examples`); those are warnings, and the field is ignored.
//!
//! This file holds the checker and the checks every field uses (types, lengths, patterns, word
//! lists, lists); one file per part of the format holds the rest: `workflow` (the workflow's own
//! fields), `steps`, `rules` (conditions, confirmations, validation, contracts, consequences) and
//! `prompts`.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value as Json};

use crate::diagnostic::{Loc, Report, codes};

mod prompts;
mod rules;
mod steps;
mod workflow;

/// Workflow ids: one lowercase word, or `namespace.name`.
const WORKFLOW_ID: &str = r"^([a-z0-9_-]+|[a-z][a-z0-9_-]+\.[a-z][a-z0-9_-]+)$";
/// Step ids: lowercase letters, digits and dashes.
const STEP_ID: &str = r"^[a-z0-9-]+$";
/// Semantic versions, `1.2.3` with an optional pre-release and build.
const VERSION: &str = r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$";
/// Function, parameter and variable names.
const IDENTIFIER: &str = r"^[a-zA-Z_][a-zA-Z0-9_]*$";
/// A function reference: a name followed by `()`.
const FUNCTION_REFERENCE: &str = r"^[a-zA-Z_][a-zA-Z0-9_]*\(\)$";
/// Reference, fragment ids: a lowercase letter, then lowercase letters, digits, `_` and `-`.
const LOWER_NAME: &str = r"^[a-z][a-z0-9_-]*$";
/// Extension slot ids.
const SLOT_ID: &str = r"^[a-z][a-z0-9_]*$";
/// Tool names a delegation may use.
const TOOL_NAME: &str = r"^[a-zA-Z][a-zA-Z0-9_:\-]*$";

const MODEL_TIERS: &[&str] = &["lightweight", "mid", "heavy"];

/// Checks `document` against WorkRail's format, reporting each problem at its field.
pub(super) fn check(document: &Json, locate: &dyn Fn(&str) -> Loc, report: &mut Report) {
    Checker { locate, report }.workflow(document);
}

/// What a problem is about, which picks the help shown with it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Problem {
    UnknownField,
    Missing,
    Pattern,
    Shape,
}

/// One string field's limits.
#[derive(Clone, Copy)]
struct Text {
    min: usize,
    max: Option<usize>,
    pattern: Option<&'static str>,
}

impl Text {
    const ANY: Text = Text { min: 0, max: None, pattern: None };

    const fn between(min: usize, max: usize) -> Text {
        Text { min, max: Some(max), pattern: None }
    }

    const fn at_least(min: usize) -> Text {
        Text { min, max: None, pattern: None }
    }

    const fn matching(self, pattern: &'static str) -> Text {
        Text { pattern: Some(pattern), ..self }
    }
}

/// One list field's limits.
#[derive(Clone, Copy, Default)]
struct List {
    min: usize,
    max: Option<usize>,
    unique: bool,
}

impl List {
    const ANY: List = List { min: 0, max: None, unique: false };
    const UNIQUE: List = List { min: 0, max: None, unique: true };

    const fn at_least(min: usize) -> List {
        List { min, max: None, unique: false }
    }
}

/// The check of one field's value, given its pointer.
type FieldCheck<'checker, 'check> = dyn Fn(&mut Checker<'checker>, &str, &Json) + 'check;

struct Checker<'a> {
    locate: &'a dyn Fn(&str) -> Loc,
    report: &'a mut Report,
}

impl<'a> Checker<'a> {
    fn problem(&mut self, pointer: &str, problem: Problem, text: impl AsRef<str>) {
        let text = text.as_ref();
        let field = if pointer.is_empty() { "the workflow".to_owned() } else { format!("`{pointer}`") };
        let message = format!("WorkRail schema: {field}: {text}");
        let help = Some(
            match problem {
                Problem::UnknownField => "remove the field or fix its spelling: WorkRail workflows allow only the fields of spec/workflow.schema.json",
                Problem::Pattern => "WorkRail ids are lowercase: workflow ids `[a-z0-9_-]+` or `namespace.name`, step ids `[a-z0-9-]+`",
                Problem::Missing => "add the missing field",
                Problem::Shape => "see WorkRail's spec/workflow.schema.json for the field's shape",
            }
            .into(),
        );
        let lenient = problem == Problem::UnknownField
            || (pointer.is_empty() && text == "\"version\" is a required property")
            || pointer.starts_with("/examples/");
        let at = (self.locate)(pointer);
        if lenient {
            self.report.warning(at, codes::WORKRAIL_SCHEMA, format!("{message}; ignored"), help);
        } else {
            self.report.error(at, codes::WORKRAIL_SCHEMA, message, help);
        }
    }

    fn wrong_type(&mut self, pointer: &str, value: &Json, expected: &str) {
        self.problem(pointer, Problem::Shape, format!("{value} is not of type \"{expected}\""));
    }

    /// An object with only the `known` fields (an unknown one is a warning) and every `required`
    /// one; `None` when `value` is not an object.
    fn object<'v>(
        &mut self,
        pointer: &str,
        value: &'v Json,
        known: &[&str],
        required: &[&str],
    ) -> Option<&'v Map<String, Json>> {
        let Json::Object(object) = value else {
            self.wrong_type(pointer, value, "object");
            return None;
        };
        let unknown: Vec<String> =
            object.keys().filter(|key| !known.contains(&key.as_str())).map(|key| format!("'{key}'")).collect();
        if !unknown.is_empty() {
            let verb = if unknown.len() == 1 { "was" } else { "were" };
            let text = format!("Additional properties are not allowed ({} {verb} unexpected)", unknown.join(", "));
            self.problem(pointer, Problem::UnknownField, text);
        }
        for field in required {
            if !object.contains_key(*field) {
                self.problem(pointer, Problem::Missing, format!("\"{field}\" is a required property"));
            }
        }
        Some(object)
    }

    fn text(&mut self, pointer: &str, value: &Json, limits: Text) {
        let Json::String(text) = value else { return self.wrong_type(pointer, value, "string") };
        let length = text.chars().count();
        let plural = |limit: usize| if limit == 1 { "" } else { "s" };
        if length < limits.min {
            let text = format!("{value} is shorter than {} character{}", limits.min, plural(limits.min));
            self.problem(pointer, Problem::Shape, text);
        }
        if let Some(max) = limits.max.filter(|max| length > *max) {
            self.problem(pointer, Problem::Shape, format!("{value} is longer than {max} character{}", plural(max)));
        }
        if let Some(pattern) = limits.pattern
            && !compiled(pattern).is_match(text)
        {
            self.problem(pointer, Problem::Pattern, format!("{value} does not match \"{pattern}\""));
        }
    }

    fn word(&mut self, pointer: &str, value: &Json, words: &[&str]) {
        let Json::String(word) = value else { return self.wrong_type(pointer, value, "string") };
        if !words.contains(&word.as_str()) {
            self.problem(pointer, Problem::Shape, format!("{value} is not one of {}", word_list(words)));
        }
    }

    fn constant(&mut self, pointer: &str, value: &Json, expected: &str) {
        if value.as_str() != Some(expected) {
            self.problem(pointer, Problem::Shape, format!("\"{expected}\" was expected"));
        }
    }

    fn boolean(&mut self, pointer: &str, value: &Json) {
        if !value.is_boolean() {
            self.wrong_type(pointer, value, "boolean");
        }
    }

    fn number(&mut self, pointer: &str, value: &Json, range: Option<(u64, u64)>) {
        let Some(number) = value.as_f64() else { return self.wrong_type(pointer, value, "number") };
        let Some((min, max)) = range else { return };
        if number < min as f64 {
            self.problem(pointer, Problem::Shape, format!("{value} is less than the minimum of {min}"));
        } else if number > max as f64 {
            self.problem(pointer, Problem::Shape, format!("{value} is greater than the maximum of {max}"));
        }
    }

    /// A list within `limits`; each item goes to `item` with its pointer.
    fn list(&mut self, pointer: &str, value: &Json, limits: List, mut item: impl FnMut(&mut Self, &str, &Json)) {
        let Json::Array(items) = value else { return self.wrong_type(pointer, value, "array") };
        let plural = |limit: usize| if limit == 1 { "" } else { "s" };
        if items.len() < limits.min {
            let text = format!("{value} has less than {} item{}", limits.min, plural(limits.min));
            self.problem(pointer, Problem::Shape, text);
        }
        if let Some(max) = limits.max.filter(|max| items.len() > *max) {
            self.problem(pointer, Problem::Shape, format!("{value} has more than {max} item{}", plural(max)));
        }
        if limits.unique && items.iter().enumerate().any(|(index, one)| items[..index].contains(one)) {
            self.problem(pointer, Problem::Shape, format!("{value} has non-unique elements"));
        }
        for (index, one) in items.iter().enumerate() {
            item(self, &format!("{pointer}/{index}"), one);
        }
    }

    fn texts(&mut self, pointer: &str, value: &Json, list: List, text: Text) {
        self.list(pointer, value, list, |checker, at, item| checker.text(at, item, text));
    }

    /// A map whose every value is a string.
    fn string_map(&mut self, pointer: &str, value: &Json) {
        let Json::Object(object) = value else { return self.wrong_type(pointer, value, "object") };
        for (key, item) in object {
            self.text(&format!("{pointer}/{key}"), item, Text::ANY);
        }
    }

    fn any_object(&mut self, pointer: &str, value: &Json) {
        if !value.is_object() {
            self.wrong_type(pointer, value, "object");
        }
    }

    /// Runs `check` on each field of `object` that is present, with its pointer.
    fn fields(&mut self, pointer: &str, object: &Map<String, Json>, checks: &[(&str, &FieldCheck<'a, '_>)]) {
        for (name, check) in checks {
            if let Some(value) = object.get(*name) {
                check(self, &format!("{pointer}/{name}"), value);
            }
        }
    }
}

/// `"a", "b" or "c"`; longer lists name their first two and count the rest.
fn word_list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|word| format!("\"{word}\"")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [first @ .., last] if quoted.len() <= 3 => format!("{} or {last}", first.join(", ")),
        [first, second, rest @ ..] => format!("{first}, {second} or {} other candidates", rest.len()),
    }
}

/// The checks' patterns, each compiled once per process.
fn compiled(pattern: &'static str) -> &'static Regex {
    static PATTERNS: LazyLock<BTreeMap<&'static str, Regex>> = LazyLock::new(|| {
        [WORKFLOW_ID, STEP_ID, VERSION, IDENTIFIER, FUNCTION_REFERENCE, LOWER_NAME, SLOT_ID, TOOL_NAME]
            .into_iter()
            .map(|pattern| (pattern, Regex::new(pattern).expect("the WorkRail patterns are valid")))
            .collect()
    });
    &PATTERNS[pattern]
}

#[cfg(test)]
mod tests {
    use super::word_list;

    #[test]
    fn word_lists_read_like_the_other_diagnostics() {
        assert_eq!(word_list(&["a"]), "\"a\"");
        assert_eq!(word_list(&["a", "b", "c"]), "\"a\", \"b\" or \"c\"");
        assert_eq!(word_list(&["a", "b", "c", "d"]), "\"a\", \"b\" or 2 other candidates");
    }
}
