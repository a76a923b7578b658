//! What decides and judges a step: run conditions, confirmations, validation criteria, output
//! contracts and assessment consequences.

use serde_json::Value as Json;

use super::{Checker, List, Problem, Text};

impl Checker<'_> {
    pub(super) fn condition_source(&mut self, pointer: &str, value: &Json) {
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
    pub(super) fn condition(&mut self, pointer: &str, value: &Json, deep: bool) {
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

    pub(super) fn confirmation(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn validation_rule(&mut self, pointer: &str, value: &Json) {
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
    pub(super) fn validation_criteria(&mut self, pointer: &str, value: &Json) {
        let composed = ["and", "or", "not"].iter().any(|key| value.get(*key).is_some());
        if composed { self.validation_composition(pointer, value) } else { self.validation_rule(pointer, value) }
    }

    pub(super) fn validation_composition(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn output_contract(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn assessment_consequence(&mut self, pointer: &str, value: &Json) {
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
}
