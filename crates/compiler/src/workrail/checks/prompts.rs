//! Prompt text: `promptBlocks`, prompt values (a string or a list of parts) and fragments.

use serde_json::Value as Json;

use super::{Checker, LOWER_NAME, List, Problem, Text};

impl Checker<'_> {
    pub(super) fn prompt_blocks(&mut self, pointer: &str, value: &Json) {
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
    pub(super) fn prompt_value(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn prompt_fragment(&mut self, pointer: &str, value: &Json) {
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
}
