//! Steps of every kind: standard, loop (with its `loopConfig`), parallel (with its delegations),
//! and what a step may carry besides its prompt and rules: a `templateCall`, an audit, a verification.

use serde_json::Value as Json;

use super::{Checker, FUNCTION_REFERENCE, IDENTIFIER, List, MODEL_TIERS, Problem, STEP_ID, TOOL_NAME, Text};

impl Checker<'_> {
    /// A step of `steps` (`top`, any kind) or of a loop's body (standard or parallel).
    pub(super) fn step(&mut self, pointer: &str, value: &Json, top: bool) {
        match value.get("type").and_then(Json::as_str) {
            Some("loop") if top => self.loop_step(pointer, value),
            Some("parallel") => self.parallel_step(pointer, value),
            _ => self.standard_step(pointer, value),
        }
    }

    pub(super) fn step_id(&mut self, pointer: &str, value: &Json) {
        self.text(pointer, value, Text::between(3, 64).matching(STEP_ID));
    }

    pub(super) fn title(&mut self, pointer: &str, value: &Json) {
        self.text(pointer, value, Text::between(1, 128));
    }

    pub(super) fn standard_step(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn loop_step(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn loop_config(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn template_call(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn audit(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn verification(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn parallel_step(&mut self, pointer: &str, value: &Json) {
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

    pub(super) fn delegation(&mut self, pointer: &str, value: &Json) {
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
