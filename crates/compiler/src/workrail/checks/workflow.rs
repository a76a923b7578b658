//! The workflow's own fields: texts and ids, preferences, extension points, references,
//! function definitions and calls, and assessments.

use serde_json::Value as Json;

use super::{Checker, IDENTIFIER, LOWER_NAME, List, MODEL_TIERS, Problem, SLOT_ID, Text, VERSION, WORKFLOW_ID};

impl Checker<'_> {
    pub(super) fn workflow(&mut self, document: &Json) {
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

    pub(super) fn spec_version(&mut self, pointer: &str, value: &Json) {
        match value.as_i64() {
            Some(version) if version < 1 => {
                self.problem(pointer, Problem::Shape, format!("{value} is less than the minimum of 1"));
            }
            Some(_) => {}
            None => self.wrong_type(pointer, value, "integer"),
        }
    }

    pub(super) fn preferences(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn extension_point(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn reference(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn function_definition(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn function_parameter(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn function_call(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn assessment(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn dimension(&mut self, pointer: &str, value: &Json) {
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
}
