//! The shape of a WorkRail workflow, checked by the project's own rules before it is read.
//!
//! WorkRail publishes its format as a JSON Schema; these checks state the same facts in code
//! (which fields each object allows and needs, their types, lengths, patterns and word lists) so
//! that an almost-right file gets located diagnostics in WorkRail's terms: the field, the line,
//! the fix.
//! WorkRail's loader reads files its schema is stricter about (unknown fields, a missing
//! `version`, non-string `examples`); those are warnings, and the field is ignored.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value as Json};

use crate::diagnostic::{Loc, Report, codes};

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

    fn workflow(&mut self, document: &Json) {
        let known = [
            "id",
            "name",
            "description",
            "version",
            "modelTier",
            "preconditions",
            "clarificationPrompts",
            "steps",
            "metaGuidance",
            "functionDefinitions",
            "recommendedPreferences",
            "features",
            "assessments",
            "extensionPoints",
            "references",
            "validatedAgainstSpecVersion",
            "about",
            "examples",
            "metricsProfile",
        ];
        let required = ["id", "name", "description", "version", "steps"];
        let Some(object) = self.object("", document, &known, &required) else { return };
        let short_texts = |checker: &mut Self, at: &str, value: &Json| {
            checker.texts(at, value, List::UNIQUE, Text::between(1, 256));
        };
        self.fields(
            "",
            object,
            &[
                ("id", &|checker, at, value| checker.text(at, value, Text::between(3, 64).matching(WORKFLOW_ID))),
                ("name", &|checker, at, value| checker.text(at, value, Text::between(1, 128))),
                ("description", &|checker, at, value| checker.text(at, value, Text::between(1, 512))),
                ("version", &|checker, at, value| checker.text(at, value, Text::ANY.matching(VERSION))),
                ("modelTier", &|checker, at, value| checker.word(at, value, MODEL_TIERS)),
                ("preconditions", &short_texts),
                ("clarificationPrompts", &short_texts),
                ("steps", &|checker, at, value| {
                    checker.list(at, value, List::at_least(1), |checker, at, step| checker.step(at, step, true));
                }),
                ("metaGuidance", &short_texts),
                ("functionDefinitions", &|checker, at, value| {
                    checker.list(at, value, List::UNIQUE, Self::function_definition);
                }),
                ("recommendedPreferences", &|checker, at, value| checker.preferences(at, value)),
                ("features", &|checker, at, value| checker.texts(at, value, List::UNIQUE, Text::between(1, 128))),
                ("assessments", &|checker, at, value| checker.list(at, value, List::UNIQUE, Self::assessment)),
                ("extensionPoints", &|checker, at, value| checker.list(at, value, List::UNIQUE, Self::extension_point)),
                ("references", &|checker, at, value| checker.list(at, value, List::UNIQUE, Self::reference)),
                ("validatedAgainstSpecVersion", &|checker, at, value| checker.spec_version(at, value)),
                ("about", &|checker, at, value| checker.text(at, value, Text::between(1, 4096))),
                ("examples", &|checker, at, value| {
                    let list = List { min: 1, max: Some(6), unique: true };
                    checker.texts(at, value, list, Text::between(10, 120));
                }),
                ("metricsProfile", &|checker, at, value| {
                    checker.word(at, value, &["coding", "review", "research", "design", "ticket", "none"]);
                }),
            ],
        );
    }

    fn spec_version(&mut self, pointer: &str, value: &Json) {
        match value.as_i64() {
            Some(version) if version < 1 => {
                self.problem(pointer, Problem::Shape, format!("{value} is less than the minimum of 1"));
            }
            Some(_) => {}
            None => self.wrong_type(pointer, value, "integer"),
        }
    }

    fn preferences(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["recommendedAutonomy", "recommendedRiskPolicy"], &[]) else {
            return;
        };
        self.fields(
            pointer,
            object,
            &[
                ("recommendedAutonomy", &|checker, at, value| {
                    checker.word(at, value, &["guided", "full_auto_stop_on_user_deps", "full_auto_never_stop"]);
                }),
                ("recommendedRiskPolicy", &|checker, at, value| {
                    checker.word(at, value, &["conservative", "balanced", "aggressive"]);
                }),
            ],
        );
    }

    fn extension_point(&mut self, pointer: &str, value: &Json) {
        let known = ["slotId", "purpose", "default", "acceptedKinds"];
        let Some(object) = self.object(pointer, value, &known, &["slotId", "purpose", "default"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("slotId", &|checker, at, value| checker.text(at, value, Text::between(2, 64).matching(SLOT_ID))),
                ("purpose", &|checker, at, value| checker.text(at, value, Text::between(1, 256))),
                ("default", &|checker, at, value| checker.text(at, value, Text::between(1, 128))),
                ("acceptedKinds", &|checker, at, value| {
                    checker.list(at, value, List::UNIQUE, |checker, at, kind| {
                        checker.word(at, kind, &["routine", "workflow"]);
                    });
                }),
            ],
        );
    }

    fn reference(&mut self, pointer: &str, value: &Json) {
        let known = ["id", "title", "source", "purpose", "authoritative", "resolveFrom"];
        let required = ["id", "title", "source", "purpose", "authoritative"];
        let Some(object) = self.object(pointer, value, &known, &required) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("id", &|checker, at, value| checker.text(at, value, Text::between(2, 64).matching(LOWER_NAME))),
                ("title", &|checker, at, value| checker.text(at, value, Text::between(1, 128))),
                ("source", &|checker, at, value| checker.text(at, value, Text::between(1, 512))),
                ("purpose", &|checker, at, value| checker.text(at, value, Text::between(1, 512))),
                ("authoritative", &Self::boolean),
                ("resolveFrom", &|checker, at, value| checker.word(at, value, &["workspace", "package"])),
            ],
        );
    }

    fn function_definition(&mut self, pointer: &str, value: &Json) {
        let known = ["name", "definition", "parameters", "scope"];
        let Some(object) = self.object(pointer, value, &known, &["name", "definition"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("name", &|checker, at, value| checker.text(at, value, Text::ANY.matching(IDENTIFIER))),
                ("definition", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("parameters", &|checker, at, value| checker.list(at, value, List::ANY, Self::function_parameter)),
                ("scope", &|checker, at, value| checker.word(at, value, &["workflow", "loop", "step"])),
            ],
        );
    }

    fn function_parameter(&mut self, pointer: &str, value: &Json) {
        let known = ["name", "type", "required", "description", "enum", "default"];
        let Some(object) = self.object(pointer, value, &known, &["name", "type"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("name", &|checker, at, value| checker.text(at, value, Text::ANY.matching(IDENTIFIER))),
                ("type", &|checker, at, value| {
                    checker.word(at, value, &["string", "number", "boolean", "array", "object"]);
                }),
                ("required", &Self::boolean),
                ("description", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("enum", &|checker, at, value| {
                    checker.list(at, value, List::at_least(1), |checker, at, option| {
                        if !(option.is_string() || option.is_number() || option.is_boolean()) {
                            let text = format!("{option} is not of types \"string\", \"number\", \"boolean\"");
                            checker.problem(at, Problem::Shape, text);
                        }
                    });
                }),
            ],
        );
    }

    fn function_call(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["name", "args"], &["name", "args"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("name", &|checker, at, value| checker.text(at, value, Text::ANY.matching(IDENTIFIER))),
                ("args", &Self::any_object),
            ],
        );
    }

    fn assessment(&mut self, pointer: &str, value: &Json) {
        let known = ["id", "purpose", "dimensions"];
        let Some(object) = self.object(pointer, value, &known, &known) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("id", &|checker, at, value| checker.text(at, value, Text::between(1, 64))),
                ("purpose", &|checker, at, value| checker.text(at, value, Text::between(1, 256))),
                ("dimensions", &|checker, at, value| checker.list(at, value, List::at_least(1), Self::dimension)),
            ],
        );
    }

    fn dimension(&mut self, pointer: &str, value: &Json) {
        let known = ["id", "purpose", "levels", "required"];
        let Some(object) = self.object(pointer, value, &known, &["id", "purpose", "levels"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("id", &|checker, at, value| checker.text(at, value, Text::between(1, 64))),
                ("purpose", &|checker, at, value| checker.text(at, value, Text::between(1, 256))),
                ("levels", &|checker, at, value| {
                    checker.texts(at, value, List { min: 2, max: None, unique: true }, Text::between(1, 64));
                }),
                ("required", &Self::boolean),
            ],
        );
    }

    /// A step of `steps` (`top`, any kind) or of a loop's body (standard or parallel).
    fn step(&mut self, pointer: &str, value: &Json, top: bool) {
        match value.get("type").and_then(Json::as_str) {
            Some("loop") if top => self.loop_step(pointer, value),
            Some("parallel") => self.parallel_step(pointer, value),
            _ => self.standard_step(pointer, value),
        }
    }

    fn step_id(&mut self, pointer: &str, value: &Json) {
        self.text(pointer, value, Text::between(3, 64).matching(STEP_ID));
    }

    fn title(&mut self, pointer: &str, value: &Json) {
        self.text(pointer, value, Text::between(1, 128));
    }

    fn standard_step(&mut self, pointer: &str, value: &Json) {
        let known = [
            "id",
            "title",
            "prompt",
            "promptBlocks",
            "agentRole",
            "modelTier",
            "guidance",
            "askForFiles",
            "hasValidation",
            "requireConfirmation",
            "runCondition",
            "validationCriteria",
            "outputContract",
            "assessmentRefs",
            "assessmentConsequences",
            "notesOptional",
            "functionDefinitions",
            "functionCalls",
            "functionReferences",
            "templateCall",
            "promptFragments",
            "audit",
            "verification",
        ];
        let Some(object) = self.object(pointer, value, &known, &["id", "title"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("id", &Self::step_id),
                ("title", &Self::title),
                ("prompt", &|checker, at, value| checker.text(at, value, Text::between(1, 8192))),
                ("promptBlocks", &Self::prompt_blocks),
                ("agentRole", &|checker, at, value| checker.text(at, value, Text::between(10, 1024))),
                ("modelTier", &|checker, at, value| checker.word(at, value, MODEL_TIERS)),
                ("guidance", &|checker, at, value| checker.texts(at, value, List::ANY, Text::ANY)),
                ("askForFiles", &Self::boolean),
                ("hasValidation", &Self::boolean),
                ("requireConfirmation", &Self::confirmation),
                ("runCondition", &|checker, at, value| checker.condition(at, value, true)),
                ("validationCriteria", &|checker, at, value| match value {
                    Json::Array(_) => checker.list(at, value, List::ANY, Self::validation_rule),
                    _ => checker.validation_composition(at, value),
                }),
                ("outputContract", &Self::output_contract),
                ("assessmentRefs", &|checker, at, value| {
                    checker.texts(at, value, List { min: 1, max: None, unique: true }, Text::between(1, 64));
                }),
                ("assessmentConsequences", &|checker, at, value| {
                    let list = List { min: 1, max: Some(10), unique: false };
                    checker.list(at, value, list, Self::assessment_consequence);
                }),
                ("notesOptional", &Self::boolean),
                ("functionDefinitions", &|checker, at, value| {
                    checker.list(at, value, List::ANY, Self::function_definition);
                }),
                ("functionCalls", &|checker, at, value| checker.list(at, value, List::ANY, Self::function_call)),
                ("functionReferences", &|checker, at, value| {
                    checker.texts(at, value, List::ANY, Text::ANY.matching(FUNCTION_REFERENCE));
                }),
                ("templateCall", &Self::template_call),
                ("promptFragments", &|checker, at, value| {
                    checker.list(at, value, List::at_least(1), Self::prompt_fragment);
                }),
                ("audit", &Self::audit),
                ("verification", &Self::verification),
            ],
        );
    }

    fn loop_step(&mut self, pointer: &str, value: &Json) {
        let known = [
            "id",
            "type",
            "title",
            "loop",
            "body",
            "functionDefinitions",
            "requireConfirmation",
            "runCondition",
            "notesOptional",
        ];
        let required = ["id", "type", "title", "loop", "body"];
        let Some(object) = self.object(pointer, value, &known, &required) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("id", &Self::step_id),
                ("type", &|checker, at, value| checker.constant(at, value, "loop")),
                ("title", &Self::title),
                ("loop", &Self::loop_config),
                ("body", &|checker, at, value| match value {
                    Json::String(_) => {}
                    Json::Array(_) => {
                        checker.list(at, value, List::at_least(1), |checker, at, step| checker.step(at, step, false));
                    }
                    other => {
                        checker.problem(at, Problem::Shape, format!("{other} is not of types \"string\", \"array\""))
                    }
                }),
                ("functionDefinitions", &|checker, at, value| {
                    checker.list(at, value, List::ANY, Self::function_definition);
                }),
                ("requireConfirmation", &Self::confirmation),
                ("runCondition", &|checker, at, value| checker.condition(at, value, true)),
                ("notesOptional", &Self::boolean),
            ],
        );
    }

    fn loop_config(&mut self, pointer: &str, value: &Json) {
        let known = [
            "type",
            "condition",
            "items",
            "count",
            "maxIterations",
            "iterationVar",
            "itemVar",
            "indexVar",
            "conditionSource",
        ];
        let Some(object) = self.object(pointer, value, &known, &["type", "maxIterations"]) else { return };
        let name = |checker: &mut Self, at: &str, value: &Json| checker.text(at, value, Text::ANY.matching(IDENTIFIER));
        self.fields(
            pointer,
            object,
            &[
                ("type", &|checker, at, value| checker.word(at, value, &["while", "until", "for", "forEach"])),
                ("condition", &|checker, at, value| checker.condition(at, value, true)),
                ("items", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("count", &|checker, at, value| match value {
                    Json::String(_) => {}
                    Json::Number(_) => checker.number(at, value, Some((0, 1000))),
                    other => {
                        checker.problem(at, Problem::Shape, format!("{other} is not of types \"number\", \"string\""))
                    }
                }),
                ("maxIterations", &|checker, at, value| checker.number(at, value, Some((1, 1000)))),
                ("iterationVar", &name),
                ("itemVar", &name),
                ("indexVar", &name),
                ("conditionSource", &Self::condition_source),
            ],
        );
        // Each loop type needs what it iterates on.
        let needs: &[&str] = match object.get("type").and_then(Json::as_str) {
            Some("while" | "until") => &["condition", "conditionSource"],
            Some("for") => &["count"],
            Some("forEach") => &["items"],
            _ => &[],
        };
        if !needs.is_empty() && !needs.iter().any(|field| object.contains_key(*field)) {
            let fields: Vec<String> = needs.iter().map(|field| format!("\"{field}\"")).collect();
            self.problem(pointer, Problem::Missing, format!("{} is a required property", fields.join(" or ")));
        }
    }

    fn condition_source(&mut self, pointer: &str, value: &Json) {
        match value.get("kind").and_then(Json::as_str) {
            Some("artifact_contract") => {
                let known = ["kind", "contractRef", "loopId"];
                let Some(object) = self.object(pointer, value, &known, &["kind", "contractRef"]) else { return };
                self.fields(
                    pointer,
                    object,
                    &[
                        ("contractRef", &|checker, at, value| checker.text(at, value, Text::at_least(1))),
                        ("loopId", &|checker, at, value| checker.text(at, value, Text::at_least(1))),
                    ],
                );
            }
            Some("context_variable") => {
                let known = ["kind", "condition"];
                let Some(object) = self.object(pointer, value, &known, &known) else { return };
                self.fields(
                    pointer,
                    object,
                    &[("condition", &|checker, at, value| {
                        checker.condition(at, value, true);
                    })],
                );
            }
            _ => {
                let text = format!(
                    "{value} is not a condition source: `kind` is \"artifact_contract\" or \"context_variable\""
                );
                self.problem(pointer, Problem::Shape, text);
            }
        }
    }

    /// A condition; `deep` checks the conditions nested in `and`, `or` and `not` too (a
    /// validation rule's own condition is only checked at its top).
    fn condition(&mut self, pointer: &str, value: &Json, deep: bool) {
        let mut known = vec!["var", "equals", "not_equals", "gt", "gte", "lt", "lte", "and", "or", "not"];
        if deep {
            known.extend(["in", "contains"]);
        }
        let Some(object) = self.object(pointer, value, &known, &[]) else { return };
        let nested = |checker: &mut Self, at: &str, value: &Json| {
            if deep { checker.condition(at, value, true) } else { checker.any_object(at, value) }
        };
        self.fields(
            pointer,
            object,
            &[
                ("var", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("gt", &|checker, at, value| checker.number(at, value, None)),
                ("gte", &|checker, at, value| checker.number(at, value, None)),
                ("lt", &|checker, at, value| checker.number(at, value, None)),
                ("lte", &|checker, at, value| checker.number(at, value, None)),
                ("and", &|checker, at, value| checker.list(at, value, List::ANY, nested)),
                ("or", &|checker, at, value| checker.list(at, value, List::ANY, nested)),
                ("not", &nested),
                ("in", &|checker, at, value| checker.list(at, value, List::ANY, |_, _, _| {})),
                ("contains", &|checker, at, value| checker.text(at, value, Text::ANY)),
            ],
        );
    }

    fn confirmation(&mut self, pointer: &str, value: &Json) {
        match value {
            Json::Bool(_) => {}
            Json::Object(object) if object.contains_key("kind") => {
                let Some(object) = self.object(pointer, value, &["kind", "condition"], &["kind"]) else { return };
                self.fields(
                    pointer,
                    object,
                    &[
                        ("kind", &|checker, at, value| {
                            checker.word(at, value, &["coordinator_eval", "human_approval"])
                        }),
                        ("condition", &|checker, at, value| checker.condition(at, value, true)),
                    ],
                );
            }
            Json::Object(_) => self.condition(pointer, value, true),
            other => self.problem(pointer, Problem::Shape, format!("{other} is not of types \"boolean\", \"object\"")),
        }
    }

    fn validation_rule(&mut self, pointer: &str, value: &Json) {
        let known = ["type", "value", "pattern", "flags", "min", "max", "message", "schema", "condition"];
        let Some(object) = self.object(pointer, value, &known, &["type", "message"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("type", &|checker, at, value| checker.word(at, value, &["contains", "regex", "length", "schema"])),
                ("value", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("pattern", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("flags", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("min", &|checker, at, value| checker.number(at, value, None)),
                ("max", &|checker, at, value| checker.number(at, value, None)),
                ("message", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("schema", &Self::any_object),
                ("condition", &|checker, at, value| checker.condition(at, value, false)),
            ],
        );
    }

    /// Validation criteria inside a composition: a rule, or a composition again.
    fn validation_criteria(&mut self, pointer: &str, value: &Json) {
        let composed = ["and", "or", "not"].iter().any(|key| value.get(*key).is_some());
        if composed { self.validation_composition(pointer, value) } else { self.validation_rule(pointer, value) }
    }

    fn validation_composition(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["and", "or", "not"], &[]) else { return };
        let operators = object.len();
        if operators != 1 {
            let text = format!("{value} needs exactly one of \"and\", \"or\", \"not\"");
            self.problem(pointer, Problem::Shape, text);
        }
        let each = |checker: &mut Self, at: &str, value: &Json| {
            checker.list(at, value, List::at_least(1), Self::validation_criteria);
        };
        self.fields(pointer, object, &[("and", &each), ("or", &each), ("not", &Self::validation_criteria)]);
    }

    fn output_contract(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["contractRef", "required"], &["contractRef"]) else {
            return;
        };
        self.fields(
            pointer,
            object,
            &[
                ("contractRef", &|checker, at, value| checker.text(at, value, Text::at_least(1))),
                ("required", &Self::boolean),
            ],
        );
    }

    fn assessment_consequence(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["when", "effect"], &["when", "effect"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("when", &|checker, at, value| {
                    let known = ["anyEqualsLevel", "forAssessment"];
                    let Some(object) = checker.object(at, value, &known, &["anyEqualsLevel"]) else { return };
                    checker.fields(
                        at,
                        object,
                        &[
                            ("anyEqualsLevel", &|checker, at, value| checker.text(at, value, Text::between(1, 64))),
                            ("forAssessment", &|checker, at, value| checker.text(at, value, Text::between(1, 128))),
                        ],
                    );
                }),
                ("effect", &|checker, at, value| {
                    let known = ["kind", "guidance"];
                    let Some(object) = checker.object(at, value, &known, &known) else { return };
                    checker.fields(
                        at,
                        object,
                        &[
                            ("kind", &|checker, at, value| checker.constant(at, value, "require_followup")),
                            ("guidance", &|checker, at, value| checker.text(at, value, Text::between(1, 512))),
                        ],
                    );
                }),
            ],
        );
    }

    fn prompt_blocks(&mut self, pointer: &str, value: &Json) {
        let known = ["goal", "constraints", "procedure", "outputRequired", "verify"];
        let Some(object) = self.object(pointer, value, &known, &[]) else { return };
        let values =
            |checker: &mut Self, at: &str, value: &Json| checker.list(at, value, List::ANY, Self::prompt_value);
        self.fields(
            pointer,
            object,
            &[
                ("goal", &Self::prompt_value),
                ("constraints", &values),
                ("procedure", &values),
                ("outputRequired", &Self::string_map),
                ("verify", &values),
            ],
        );
    }

    /// Prompt text: a string, or a list of parts (text, or a reference to WorkRail's own text).
    fn prompt_value(&mut self, pointer: &str, value: &Json) {
        match value {
            Json::String(_) => {}
            Json::Array(_) => self.list(pointer, value, List::ANY, |checker, at, part| match part.get("kind") {
                Some(kind) if kind == "ref" => {
                    let Some(object) = checker.object(at, part, &["kind", "refId"], &["kind", "refId"]) else {
                        return;
                    };
                    checker.fields(
                        at,
                        object,
                        &[("refId", &|checker, at, value| {
                            checker.text(at, value, Text::at_least(1));
                        })],
                    );
                }
                _ => {
                    let Some(object) = checker.object(at, part, &["kind", "text"], &["kind", "text"]) else { return };
                    checker.fields(
                        at,
                        object,
                        &[
                            ("kind", &|checker, at, value| checker.constant(at, value, "text")),
                            ("text", &|checker, at, value| checker.text(at, value, Text::ANY)),
                        ],
                    );
                }
            }),
            other => self.problem(pointer, Problem::Shape, format!("{other} is not of types \"string\", \"array\"")),
        }
    }

    fn template_call(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["templateId", "args"], &["templateId"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("templateId", &|checker, at, value| checker.text(at, value, Text::between(1, 128))),
                ("args", &Self::any_object),
            ],
        );
    }

    fn prompt_fragment(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["id", "when", "text"], &["id", "text"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("id", &|checker, at, value| checker.text(at, value, Text::between(1, 64).matching(LOWER_NAME))),
                ("when", &|checker, at, value| checker.condition(at, value, true)),
                ("text", &|checker, at, value| checker.text(at, value, Text::between(1, 4096))),
            ],
        );
    }

    fn audit(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["prompt", "rubric"], &[]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("prompt", &|checker, at, value| checker.text(at, value, Text::between(1, 4096))),
                ("rubric", &|checker, at, value| checker.texts(at, value, List::at_least(1), Text::ANY)),
            ],
        );
    }

    fn verification(&mut self, pointer: &str, value: &Json) {
        let Some(object) = self.object(pointer, value, &["command", "prompt"], &[]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("command", &|checker, at, value| checker.text(at, value, Text::between(1, 1024))),
                ("prompt", &|checker, at, value| checker.text(at, value, Text::between(1, 4096))),
            ],
        );
    }

    fn parallel_step(&mut self, pointer: &str, value: &Json) {
        let known = [
            "id",
            "type",
            "title",
            "parallelDelegations",
            "requireConfirmation",
            "runCondition",
            "notesOptional",
            "synthesis",
        ];
        let required = ["id", "type", "title", "parallelDelegations"];
        let Some(object) = self.object(pointer, value, &known, &required) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("id", &Self::step_id),
                ("type", &|checker, at, value| checker.constant(at, value, "parallel")),
                ("title", &Self::title),
                ("parallelDelegations", &|checker, at, value| {
                    let list = List { min: 1, max: None, unique: true };
                    checker.list(at, value, list, Self::delegation);
                }),
                ("requireConfirmation", &Self::confirmation),
                ("runCondition", &|checker, at, value| checker.condition(at, value, true)),
                ("notesOptional", &Self::boolean),
                ("synthesis", &|checker, at, value| {
                    let Some(object) = checker.object(at, value, &["prompt", "outputContract"], &[]) else { return };
                    checker.fields(
                        at,
                        object,
                        &[
                            ("prompt", &|checker, at, value| checker.text(at, value, Text::between(1, 4096))),
                            ("outputContract", &Self::output_contract),
                        ],
                    );
                }),
            ],
        );
    }

    fn delegation(&mut self, pointer: &str, value: &Json) {
        let known = ["workflowId", "goal", "runCondition", "contextMapping", "args", "modelTier", "allowedTools"];
        let Some(object) = self.object(pointer, value, &known, &["workflowId"]) else { return };
        self.fields(
            pointer,
            object,
            &[
                ("workflowId", &|checker, at, value| checker.text(at, value, Text::between(1, 128))),
                ("goal", &|checker, at, value| checker.text(at, value, Text::ANY)),
                ("runCondition", &|checker, at, value| checker.condition(at, value, true)),
                ("contextMapping", &Self::string_map),
                ("args", &Self::string_map),
                ("modelTier", &|checker, at, value| checker.word(at, value, MODEL_TIERS)),
                ("allowedTools", &|checker, at, value| {
                    checker.texts(at, value, List::at_least(1), Text::ANY.matching(TOOL_NAME));
                }),
            ],
        );
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
