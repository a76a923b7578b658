//! The WorkRail front-end: a WorkRail workflow (JSON, schema v0.3.0) compiled to a draft.
//!
//! Validation first checks the file against WorkRail's format (`checks`), so almost-right files
//! get WorkRail's terms (the field, the line, the fix). Then each top-level step becomes one or more IR steps joined
//! in authored order:
//! - a standard step becomes a step; `runCondition` its run condition, `requireConfirmation` a
//!   gate (or a conditional gate), `validationCriteria` output checks, `outputContract` and
//!   `assessmentRefs` an output schema over the artifacts (a JSON list of `{kind, ...}` objects);
//! - a loop becomes two router steps that never run (`run_when: false`): `<loop>` enters the body
//!   or leaves, `<loop>.next` repeats or leaves, on bounded edges whose assignments keep the
//!   iteration, index and item variables in the context;
//! - a parallel step becomes one step that asks the agent to delegate, then `<id>__synthesis`;
//! - a `templateCall` is replaced by the routine's steps (from the routines handed in), ids
//!   prefixed with the caller's id.
//!
//! Conditions become CEL calls of the engine's `loose` function, which implements WorkRail's
//! lenient comparison rules exactly (see `engine::functions`); prompt fragments become template
//! `{% if %}` blocks calling the same function.

use std::collections::BTreeMap;

use serde_json::{Value as Json, json};
use switchyard_core::workflow::{EdgeKind, Limits, NotesPolicy, OutputCheck};

use crate::diagnostic::{Loc, Report, codes};
use crate::draft::{DraftEdge, DraftRules, DraftStep, DraftTarget, DraftWorkflow};
use crate::fields::Located;
use crate::tree::Node;

mod checks;

/// Steps of WorkRail routines, by template id (`wr.templates.routine.<name>`).
pub type Routines = BTreeMap<String, Json>;

/// The template id a routine workflow registers under: `wr.templates.routine.<name>`, with
/// `wr.routine-` or `routine-` stripped from its id.
pub fn routine_template_id(routine_id: &str) -> String {
    let name =
        routine_id.strip_prefix("wr.routine-").or_else(|| routine_id.strip_prefix("routine-")).unwrap_or(routine_id);
    format!("wr.templates.routine.{name}")
}

pub(crate) fn read(root: &Node, report: &mut Report, routines: &Routines) -> Option<DraftWorkflow> {
    let document = root.to_json(report);
    let locations = root.pointer_locations();
    let locate = |pointer: &str| -> Loc {
        let mut best = Loc::START;
        let mut best_length = 0;
        for (candidate, at) in &locations {
            let prefix = pointer == candidate
                || (pointer.starts_with(candidate.as_str()) && pointer[candidate.len()..].starts_with('/'));
            if prefix && (candidate.len() >= best_length) {
                best = *at;
                best_length = candidate.len();
            }
        }
        best
    };
    checks::check(&document, &locate, report);
    let assessments = document["assessments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|assessment| Some((assessment["id"].as_str()?.to_owned(), assessment.clone())))
        .collect();
    let mut reader = Reader { report, routines, assessments, locate: &locate, steps: Vec::new() };
    let id = document["id"].as_str().unwrap_or_default().to_owned();
    let items = document["steps"].as_array().cloned().unwrap_or_default();
    if items.is_empty() {
        reader.report.error(
            locate("/steps"),
            codes::NO_STEPS,
            "a WorkRail workflow needs at least one step in `steps`",
            Some("add a step: {\"id\": \"first-step\", \"title\": \"...\", \"prompt\": \"...\"}".into()),
        );
    }
    let items = reader.expand_templates(&items);
    let preamble = workflow_preamble(&document, reader.report, &locate);
    let body_refs: Vec<String> =
        items.iter().filter_map(|(_, item)| item["body"].as_str().map(str::to_owned)).collect();
    let top: Vec<(String, Json)> = items
        .iter()
        .filter(|&(_, item)| !body_refs.iter().any(|id| item["id"].as_str() == Some(id)))
        .cloned()
        .collect();
    let library: BTreeMap<String, (String, Json)> = reader_library(&items);
    let mut next = DraftTarget::Complete;
    let mut groups = Vec::new();
    for (pointer, item) in top.iter().rev() {
        reader.steps = Vec::new();
        let entry = reader.item(pointer, item, &next, &library, false);
        groups.push(std::mem::take(&mut reader.steps));
        if let Some(entry) = entry {
            next = DraftTarget::Step(Located::new(entry, locate(pointer)));
        }
    }
    let mut steps: Vec<DraftStep> = groups.into_iter().rev().flatten().collect();
    if !preamble.is_empty() {
        let first_plain = steps.iter().position(|step| step.rules.run_when.is_none()).unwrap_or(0);
        if let Some(step) = steps.get_mut(first_plain) {
            step.prompt.value = format!("{preamble}\n\n{}", step.prompt.value);
        }
    }
    for ignored in ["metricsProfile", "features", "extensionPoints", "recommendedPreferences", "modelTier"] {
        if document.get(ignored).is_some() {
            reader.report.warning(
                locate(&format!("/{ignored}")),
                codes::WORKRAIL_UNSUPPORTED,
                format!(
                    "`{ignored}` is WorkRail-specific text or behaviour that switchyard does not have; it is left out"
                ),
                Some(unsupported_help(ignored).into()),
            );
        }
    }
    let at = locate("/id");
    Some(DraftWorkflow {
        id: Located::new(id, at),
        version: document["version"].as_str().unwrap_or("1").to_owned(),
        title: document["name"].as_str().unwrap_or_default().to_owned(),
        description: document["description"].as_str().unwrap_or_default().to_owned(),
        tags: Vec::new(),
        start: None,
        steps,
        variables: Vec::new(),
        limits: Limits::default(),
    })
}

fn unsupported_help(field: &str) -> &'static str {
    match field {
        "metricsProfile" => "switchyard derives run metrics from its own event log; report metrics in notes if needed",
        "features" => "WorkRail features inject WorkRail's own prompt text; write the guidance you need into the steps",
        "extensionPoints" => "bindings are resolved per project in WorkRail; inline the chosen value into the prompt",
        _ => "the workflow runs without it",
    }
}

fn reader_library(top: &[(String, Json)]) -> BTreeMap<String, (String, Json)> {
    top.iter()
        .filter_map(|(pointer, item)| Some((item["id"].as_str()?.to_owned(), (pointer.clone(), item.clone()))))
        .collect()
}

/// Text every run should see once: rules, preconditions, questions, references, functions.
fn workflow_preamble(document: &Json, report: &mut Report, locate: &dyn Fn(&str) -> Loc) -> String {
    let mut sections = Vec::new();
    let list = |key: &str| -> Vec<String> {
        document[key].as_array().into_iter().flatten().filter_map(|item| item.as_str().map(str::to_owned)).collect()
    };
    let rules = list("metaGuidance");
    if !rules.is_empty() {
        sections.push(format!("## Rules for this workflow\n{}", bullets(&rules)));
    }
    let preconditions = list("preconditions");
    if !preconditions.is_empty() {
        sections.push(format!("## Before you start, make sure\n{}", bullets(&preconditions)));
    }
    let questions = list("clarificationPrompts");
    if !questions.is_empty() {
        sections.push(format!("## Clarify with the user if unclear\n{}", bullets(&questions)));
    }
    if let Some(references) = document["references"].as_array() {
        let lines: Vec<String> = references
            .iter()
            .map(|reference| {
                format!(
                    "{} (`{}`): {}{}",
                    reference["title"].as_str().unwrap_or_default(),
                    reference["source"].as_str().unwrap_or_default(),
                    reference["purpose"].as_str().unwrap_or_default(),
                    if reference["authoritative"].as_bool() == Some(true) { " (authoritative)" } else { "" }
                )
            })
            .collect();
        sections.push(format!("## References\n{}", bullets(&lines)));
    }
    if let Some(functions) = document["functionDefinitions"].as_array() {
        sections.push(functions_section(functions));
    }
    let _ = (report, locate);
    escape(&sections.join("\n\n"))
}

fn bullets(items: &[String]) -> String {
    items.iter().map(|item| format!("- {item}")).collect::<Vec<_>>().join("\n")
}

fn functions_section(functions: &[Json]) -> String {
    let mut text = String::from("## Functions");
    for function in functions {
        let parameters: Vec<&str> = function["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|parameter| parameter["name"].as_str())
            .collect();
        text.push_str(&format!(
            "\n### {}({})\n{}",
            function["name"].as_str().unwrap_or_default(),
            parameters.join(", "),
            function["definition"].as_str().unwrap_or_default()
        ));
    }
    text
}

struct Reader<'a> {
    report: &'a mut Report,
    routines: &'a Routines,
    /// The workflow's `assessments`, by id.
    assessments: BTreeMap<String, Json>,
    locate: &'a dyn Fn(&str) -> Loc,
    /// Steps of the item being read, in authored order.
    steps: Vec<DraftStep>,
}

impl Reader<'_> {
    /// Replaces steps with a `templateCall` by the routine's steps; each keeps its JSON pointer.
    fn expand_templates(&mut self, items: &[Json]) -> Vec<(String, Json)> {
        let mut expanded = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let pointer = format!("/steps/{index}");
            let Some(call) = item.get("templateCall") else {
                expanded.push((pointer, item.clone()));
                continue;
            };
            let template = call["templateId"].as_str().unwrap_or_default();
            let caller = item["id"].as_str().unwrap_or_default();
            let Some(routine) = self.routines.get(template) else {
                self.report.warning(
                    (self.locate)(&format!("{pointer}/templateCall")),
                    codes::WORKRAIL_UNSUPPORTED,
                    format!("template `{template}` is not among the routines found next to this workflow; step `{caller}` asks the agent to follow it instead"),
                    Some("put the routine's JSON file in a `routines/` folder beside the workflow".into()),
                );
                let mut stand_in = item.clone();
                if let Some(object) = stand_in.as_object_mut() {
                    object.remove("templateCall");
                    if object.get("prompt").is_none() && object.get("promptBlocks").is_none() {
                        object.insert(
                            "prompt".into(),
                            Json::String(format!(
                                "Follow the routine `{template}` with these arguments: {}",
                                call["args"]
                            )),
                        );
                    }
                }
                expanded.push((pointer, stand_in));
                continue;
            };
            let args = call["args"].as_object().cloned().unwrap_or_default();
            for step in routine["steps"].as_array().into_iter().flatten() {
                let mut step = substitute(step, &args, &mut |missing| {
                    self.report.error(
                        (self.locate)(&format!("{pointer}/templateCall/args")),
                        codes::WORKRAIL_TEMPLATE,
                        format!("template `{template}` needs argument `{missing}`, which `args` does not give"),
                        Some(format!("add `\"{missing}\": \"...\"` to `templateCall.args`")),
                    );
                });
                if let Some(object) = step.as_object_mut() {
                    let id = object.get("id").and_then(Json::as_str).unwrap_or_default();
                    let id = format!("{caller}.{id}");
                    object.insert("id".into(), Json::String(id));
                    if let Some(condition) = item.get("runCondition") {
                        let own = object.remove("runCondition");
                        let combined = match own {
                            Some(own) => json!({"and": [condition, own]}),
                            None => condition.clone(),
                        };
                        object.insert("runCondition".into(), combined);
                    }
                }
                expanded.push((pointer.clone(), step));
            }
        }
        expanded
    }

    /// Reads one top-level item leading to `next`; returns the id the run enters it by.
    fn item(
        &mut self,
        pointer: &str,
        item: &Json,
        next: &DraftTarget,
        library: &BTreeMap<String, (String, Json)>,
        in_loop: bool,
    ) -> Option<String> {
        match item["type"].as_str() {
            Some("loop") => {
                if in_loop {
                    self.report.error(
                        (self.locate)(pointer),
                        codes::WORKRAIL_LOOP,
                        "WorkRail does not allow a loop inside a loop's body",
                        Some("move the inner loop out, or flatten it into the body's steps".into()),
                    );
                    return None;
                }
                self.looped(pointer, item, next, library)
            }
            Some("parallel") => Some(self.parallel(pointer, item, next)),
            _ => Some(self.standard(pointer, item, next, None)),
        }
    }

    fn standard(&mut self, pointer: &str, item: &Json, next: &DraftTarget, loop_decision: Option<&str>) -> String {
        let at = (self.locate)(pointer);
        let id = item["id"].as_str().unwrap_or_default().to_owned();
        let mut prompt = match (&item["prompt"], &item["promptBlocks"]) {
            (Json::String(prompt), Json::Null) => escape(prompt),
            (Json::Null, blocks @ Json::Object(_)) => self.prompt_blocks(pointer, blocks),
            (Json::Null, Json::Null) => String::new(),
            _ => {
                self.report.error(
                    at,
                    codes::WORKRAIL_PROMPT,
                    format!("step `{id}` sets both `prompt` and `promptBlocks` (WorkRail: PROMPT_AND_BLOCKS_BOTH_SET)"),
                    Some("keep one of them".into()),
                );
                String::new()
            }
        };
        let mut sections = Vec::new();
        let strings = |key: &str| -> Vec<String> {
            item[key].as_array().into_iter().flatten().filter_map(|value| value.as_str().map(str::to_owned)).collect()
        };
        let guidance = strings("guidance");
        if !guidance.is_empty() {
            sections.push(escape(&format!("## Guidance\n{}", bullets(&guidance))));
        }
        if let Some(functions) = item["functionDefinitions"].as_array() {
            sections.push(escape(&functions_section(functions)));
        }
        if item["askForFiles"].as_bool() == Some(true) {
            sections.push("Ask the user for any files you need before you start.".to_owned());
        }
        let mut schemas = Vec::new();
        if let Some(contract) = item.get("outputContract") {
            let reference = contract["contractRef"].as_str().unwrap_or_default();
            if contract["required"].as_bool() != Some(false) {
                schemas.push(contract_schema(reference));
            }
            sections.push(contract_guidance(reference));
        }
        let mut consequence_checks = Vec::new();
        if let Some(references) = item["assessmentRefs"].as_array() {
            schemas.push(artifact_kind_schema("wr.assessment"));
            let references: Vec<String> = references.iter().filter_map(Json::as_str).map(str::to_owned).collect();
            sections.push(escape(&assessment_guidance(&references, &self.assessments)));
            consequence_checks.extend(dimension_checks(&references, &self.assessments));
            for consequence in item["assessmentConsequences"].as_array().into_iter().flatten() {
                consequence_checks.push(consequence_check(consequence, &references));
            }
        }
        // `audit` and `verification` become the steps WorkRail's compiler injects after this one.
        let virtual_steps = virtual_steps(&id, item);
        let own_next = match virtual_steps.first() {
            Some(first) => DraftTarget::Step(Located::new(first["id"].as_str().unwrap_or_default().to_owned(), at)),
            None => next.clone(),
        };
        for fragment in item["promptFragments"].as_array().into_iter().flatten() {
            let text = escape(fragment["text"].as_str().unwrap_or_default());
            match fragment.get("when") {
                None => sections.push(text),
                Some(condition) => match translate(condition, Dialect::Template) {
                    Ok(condition) => sections.push(format!("{{% if {condition} %}}{text}{{% endif %}}")),
                    Err(message) => self.report.error(
                        (self.locate)(&format!("{pointer}/promptFragments")),
                        codes::WORKRAIL_CONDITION,
                        message,
                        None,
                    ),
                },
            }
        }
        for section in sections {
            if !prompt.is_empty() {
                prompt.push_str("\n\n");
            }
            prompt.push_str(&section);
        }
        let mut rules = DraftRules::default();
        if let Some(condition) = item.get("runCondition") {
            rules.run_when = self.condition(&format!("{pointer}/runCondition"), condition);
        }
        let mut gate = false;
        match item.get("requireConfirmation") {
            None | Some(Json::Bool(false)) => {}
            Some(Json::Bool(true)) => gate = true,
            Some(Json::Object(object)) if object.contains_key("kind") => match object.get("condition") {
                Some(condition) => {
                    rules.gate_when = self.condition(&format!("{pointer}/requireConfirmation/condition"), condition);
                }
                None => gate = true,
            },
            Some(condition) => {
                rules.gate_when = self.condition(&format!("{pointer}/requireConfirmation"), condition);
                let _ = condition;
            }
        }
        if let Some(criteria) = item.get("validationCriteria") {
            let located = (self.locate)(&format!("{pointer}/validationCriteria"));
            match self.criteria(criteria) {
                Ok(check) => {
                    rules.checks = match check {
                        OutputCheck::All { checks, when: None } => checks,
                        other => vec![other],
                    };
                    rules.checks_at = Some(located);
                }
                Err(message) => self.report.error(located, codes::WORKRAIL_VALIDATION, message, None),
            }
        }
        if !consequence_checks.is_empty() {
            rules.checks.extend(consequence_checks);
            rules.checks_at.get_or_insert_with(|| (self.locate)(&format!("{pointer}/assessmentConsequences")));
        }
        let output = match schemas.len() {
            0 => None,
            1 => schemas.pop(),
            _ => Some(json!({"allOf": schemas})),
        };
        let mut edge = edge_to(&own_next, "next", at);
        if let (Some(edge), Some(variable)) = (edge.as_mut(), loop_decision) {
            edge.set.push((
                Located::new(variable.to_owned(), at),
                Located::new(
                    "value_of(of_kind(artifacts, \"wr.loop_control\"), \"decision\") == \"stop\" ? \"stop\" : \"continue\"".to_owned(),
                    at,
                ),
            ));
        }
        self.steps.push(DraftStep {
            role: item["agentRole"].as_str().map(str::to_owned),
            model: item["modelTier"].as_str().map(str::to_owned),
            notes: if item["notesOptional"].as_bool() == Some(true) {
                NotesPolicy::Optional
            } else {
                NotesPolicy::Required
            },
            output: output.map(|output| Located::new(output, at)),
            gate,
            edges: edge.into_iter().collect(),
            rules,
            ..DraftStep::new(
                Located::new(id.clone(), at),
                item["title"].as_str().unwrap_or_default().to_owned(),
                Located::new(prompt, at),
            )
        });
        let targets: Vec<DraftTarget> = virtual_steps
            .iter()
            .skip(1)
            .map(|step| DraftTarget::Step(Located::new(step["id"].as_str().unwrap_or_default().to_owned(), at)))
            .chain(std::iter::once(next.clone()))
            .collect();
        for (step, after) in virtual_steps.iter().zip(&targets) {
            self.standard(pointer, step, after, None);
        }
        id
    }

    fn condition(&mut self, pointer: &str, condition: &Json) -> Option<Located<String>> {
        match translate(condition, Dialect::Cel) {
            Ok(cel) => Some(Located::new(cel, (self.locate)(pointer))),
            Err(message) => {
                self.report.error(
                    (self.locate)(pointer),
                    codes::WORKRAIL_CONDITION,
                    message,
                    Some("use `{\"var\": \"name\", \"equals\": value}` with one of equals, not_equals, gt, gte, lt, lte, contains, startsWith, endsWith, matches, in; or and/or/not".into()),
                );
                None
            }
        }
    }

    fn criteria(&mut self, criteria: &Json) -> Result<OutputCheck, String> {
        let message = |rule: &Json| rule["message"].as_str().map(str::to_owned);
        let when = |rule: &Json| rule.get("condition").map(|condition| translate(condition, Dialect::Cel)).transpose();
        match criteria {
            Json::Array(rules) => Ok(OutputCheck::All {
                checks: rules.iter().map(|rule| self.criteria(rule)).collect::<Result<_, _>>()?,
                when: None,
            }),
            Json::Object(object) if object.contains_key("and") || object.contains_key("or") => {
                let (key, all) = if object.contains_key("and") { ("and", true) } else { ("or", false) };
                let checks = object[key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|rule| self.criteria(rule))
                    .collect::<Result<Vec<_>, _>>()?;
                let when = when(criteria)?;
                Ok(if all { OutputCheck::All { checks, when } } else { OutputCheck::Any { checks, when } })
            }
            Json::Object(object) if object.contains_key("not") => {
                Ok(OutputCheck::Not { check: Box::new(self.criteria(&object["not"])?), when: when(criteria)? })
            }
            Json::Object(object) => match object.get("type").and_then(Json::as_str) {
                Some("contains") => Ok(OutputCheck::Contains {
                    value: object.get("value").and_then(Json::as_str).unwrap_or_default().to_owned(),
                    message: message(criteria),
                    when: when(criteria)?,
                }),
                Some("regex") => Ok(OutputCheck::Regex {
                    pattern: object.get("pattern").and_then(Json::as_str).unwrap_or_default().to_owned(),
                    flags: object.get("flags").and_then(Json::as_str).map(str::to_owned),
                    message: message(criteria),
                    when: when(criteria)?,
                }),
                Some("length") => Ok(OutputCheck::Length {
                    min: object.get("min").and_then(Json::as_f64).map(|min| min.max(0.0).ceil() as u64),
                    max: object.get("max").and_then(Json::as_f64).map(|max| max.max(0.0).floor() as u64),
                    message: message(criteria),
                    when: when(criteria)?,
                }),
                Some("schema") => Ok(OutputCheck::Schema {
                    schema: object.get("schema").cloned().unwrap_or(json!({})),
                    message: message(criteria),
                    when: when(criteria)?,
                }),
                other => Err(format!(
                    "validation rule type {} is not one of contains, regex, length, schema",
                    other.map_or_else(|| "(missing)".to_owned(), |other| format!("`{other}`"))
                )),
            },
            other => Err(format!("a validation rule must be an object or a list, found {other}")),
        }
    }

    fn prompt_blocks(&mut self, pointer: &str, blocks: &Json) -> String {
        let mut sections = Vec::new();
        let part = |value: &Json, reader: &mut Self| -> String {
            match value {
                Json::String(text) => text.clone(),
                Json::Array(parts) => {
                    parts.iter().map(|part| reader.prompt_part(pointer, part)).collect::<Vec<_>>().join("")
                }
                other => other.to_string(),
            }
        };
        if let Some(goal) = blocks.get("goal") {
            sections.push(format!("## Goal\n{}", part(goal, self)));
        }
        for (key, title, numbered) in
            [("constraints", "Constraints", false), ("procedure", "Procedure", true), ("verify", "Verify", false)]
        {
            if let Some(items) = blocks.get(key).and_then(Json::as_array) {
                let lines: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        let text = part(item, self);
                        if numbered { format!("{}. {text}", index + 1) } else { format!("- {text}") }
                    })
                    .collect();
                sections.push(format!("## {title}\n{}", lines.join("\n")));
            }
        }
        if let Some(output) = blocks.get("outputRequired").and_then(Json::as_object) {
            let lines: Vec<String> =
                output.iter().map(|(key, value)| format!("- {key}: {}", part(value, self))).collect();
            sections.push(format!("## Output required\n{}", lines.join("\n")));
        }
        escape(&sections.join("\n\n"))
    }

    fn prompt_part(&mut self, pointer: &str, part: &Json) -> String {
        match part["kind"].as_str() {
            Some("text") => part["text"].as_str().unwrap_or_default().to_owned(),
            Some("ref") => {
                let reference = part["refId"].as_str().unwrap_or_default();
                self.report.warning(
                    (self.locate)(&format!("{pointer}/promptBlocks")),
                    codes::WORKRAIL_UNSUPPORTED,
                    format!("`{reference}` is text inside WorkRail's code; switchyard shows its own short equivalent"),
                    None,
                );
                reference_text(reference).to_owned()
            }
            _ => part.as_str().map_or_else(|| part.to_string(), str::to_owned),
        }
    }

    fn parallel(&mut self, pointer: &str, item: &Json, next: &DraftTarget) -> String {
        let at = (self.locate)(pointer);
        let id = item["id"].as_str().unwrap_or_default().to_owned();
        let mut text = format!(
            "## {}\nDelegate these tasks to subagents in parallel, then collect their results:",
            item["title"].as_str().unwrap_or_default()
        );
        for (index, delegation) in item["parallelDelegations"].as_array().into_iter().flatten().enumerate() {
            text.push_str(&format!(
                "\n{}. workflow `{}`{}{}",
                index + 1,
                delegation["workflowId"].as_str().unwrap_or_default(),
                delegation["goal"].as_str().map(|goal| format!(", goal: {goal}")).unwrap_or_default(),
                delegation.get("args").map(|args| format!(", args: {args}")).unwrap_or_default()
            ));
            if let Some(condition) = delegation.get("runCondition") {
                text.push_str(&format!(" (only when {condition})"));
            }
        }
        let synthesis = item.get("synthesis");
        let synthesis_id = format!("{id}__synthesis");
        let after = match synthesis {
            Some(_) => DraftTarget::Step(Located::new(synthesis_id.clone(), at)),
            None => next.clone(),
        };
        let mut standard = item.clone();
        if let Some(object) = standard.as_object_mut() {
            object.remove("type");
            object.remove("parallelDelegations");
            object.remove("synthesis");
            object.insert("prompt".into(), Json::String(text));
        }
        self.standard(pointer, &standard, &after, None);
        if let Some(synthesis) = synthesis {
            let mut step = json!({
                "id": synthesis_id,
                "title": format!("{}: synthesis", item["title"].as_str().unwrap_or_default()),
                "prompt": synthesis["prompt"].as_str().unwrap_or("Synthesize the subagents' results."),
            });
            if let Some(contract) = synthesis.get("outputContract") {
                step["outputContract"] = contract.clone();
            }
            self.standard(pointer, &step, next, None);
        }
        id
    }

    fn looped(
        &mut self,
        pointer: &str,
        item: &Json,
        next: &DraftTarget,
        library: &BTreeMap<String, (String, Json)>,
    ) -> Option<String> {
        let at = (self.locate)(pointer);
        let id = item["id"].as_str().unwrap_or_default().to_owned();
        let config = &item["loop"];
        let kind = config["type"].as_str().unwrap_or_default();
        let max = config["maxIterations"].as_u64().unwrap_or(1).clamp(1, 1000);
        let iteration = config["iterationVar"].as_str().unwrap_or("_iteration").to_owned();
        let index = config["indexVar"].as_str().unwrap_or("_index").to_owned();
        let item_var = config["itemVar"].as_str().unwrap_or("_item").to_owned();
        let decision = format!("_loop_{}", id.replace(|c: char| !c.is_ascii_alphanumeric(), "_"));
        let body: Vec<(String, Json)> = match &item["body"] {
            Json::String(reference) => match library.get(reference) {
                Some((body_pointer, step)) => vec![(body_pointer.clone(), step.clone())],
                None => {
                    self.report.error(
                        (self.locate)(&format!("{pointer}/body")),
                        codes::WORKRAIL_LOOP,
                        format!("loop `{id}` names body step `{reference}`, which is not a step of this workflow"),
                        Some("add a top-level step with that id, or write the body inline as a list".into()),
                    );
                    return None;
                }
            },
            Json::Array(steps) => steps
                .iter()
                .enumerate()
                .map(|(position, step)| (format!("{pointer}/body/{position}"), step.clone()))
                .collect(),
            _ => {
                self.report.error(at, codes::WORKRAIL_LOOP, format!("loop `{id}` has no `body`"), None);
                return None;
            }
        };
        let artifact_driven = match config.get("conditionSource") {
            Some(source) => source["kind"].as_str() == Some("artifact_contract"),
            None => {
                config.get("condition").is_none()
                    && body.iter().any(|(_, step)| {
                        step["outputContract"]["contractRef"].as_str() == Some("wr.contracts.loop_control")
                    })
            }
        };
        let condition = config.get("condition").or_else(|| config["conditionSource"].get("condition"));
        let condition = match condition {
            Some(condition) => match translate(condition, Dialect::Cel) {
                Ok(cel) => Some(cel),
                Err(message) => {
                    self.report.error(
                        (self.locate)(&format!("{pointer}/loop")),
                        codes::WORKRAIL_CONDITION,
                        message,
                        None,
                    );
                    None
                }
            },
            None => None,
        };
        let value = |name: &str| format!("value_of(context, \"{name}\")");
        let it = value(&iteration);
        let idx = value(&index);
        let under_max = format!("{it} < {max}");
        let (enter, repeat) = match kind {
            "while" | "until" if artifact_driven => {
                ("true".to_owned(), format!("{under_max} && {} != \"stop\"", value(&decision)))
            }
            "while" => {
                let condition = condition.unwrap_or_else(|| "false".to_owned());
                (condition.clone(), format!("{under_max} && ({condition})"))
            }
            "until" => {
                let condition = condition.unwrap_or_else(|| "true".to_owned());
                ("true".to_owned(), format!("{under_max} && !({condition})"))
            }
            "for" => {
                let count = match &config["count"] {
                    Json::Number(number) => number.to_string(),
                    Json::String(name) => format!("int({})", value(name)),
                    _ => "0".to_owned(),
                };
                (format!("{count} > 0"), format!("{under_max} && {it} < {count}"))
            }
            "forEach" => {
                let items = value(config["items"].as_str().unwrap_or_default());
                (format!("size({items}) > 0"), format!("{under_max} && {idx} + 1 < size({items})"))
            }
            other => {
                self.report.error(
                    (self.locate)(&format!("{pointer}/loop/type")),
                    codes::WORKRAIL_LOOP,
                    format!("loop type `{other}` is not one of while, until, for, forEach"),
                    None,
                );
                return None;
            }
        };
        let enter = match item.get("runCondition").map(|condition| translate(condition, Dialect::Cel)) {
            Some(Ok(run)) => format!("({run}) && ({enter})"),
            Some(Err(message)) => {
                self.report.error(
                    (self.locate)(&format!("{pointer}/runCondition")),
                    codes::WORKRAIL_CONDITION,
                    message,
                    None,
                );
                enter
            }
            None => enter,
        };
        let continue_id = format!("{id}.next");
        let after_body = DraftTarget::Step(Located::new(continue_id.clone(), at));
        let outer = std::mem::take(&mut self.steps);
        let mut body_next = after_body;
        let mut groups = Vec::new();
        let mut body_entry = None;
        for (body_pointer, step) in body.iter().rev() {
            let decision_var = (artifact_driven
                && step["outputContract"]["contractRef"].as_str() == Some("wr.contracts.loop_control"))
            .then_some(decision.as_str());
            let entry = if step["type"].as_str() == Some("loop") {
                self.item(body_pointer, step, &body_next, library, true)
            } else if step["type"].as_str() == Some("parallel") {
                Some(self.parallel(body_pointer, step, &body_next))
            } else {
                Some(self.standard(body_pointer, step, &body_next, decision_var))
            };
            groups.push(std::mem::take(&mut self.steps));
            if let Some(entry) = entry {
                body_entry = Some(entry.clone());
                body_next = DraftTarget::Step(Located::new(entry, at));
            }
        }
        let body_steps: Vec<DraftStep> = groups.into_iter().rev().flatten().collect();
        let body_entry = body_entry?;
        let mut first = vec![(iteration.clone(), "1".to_owned())];
        let mut again = vec![(iteration, format!("{it} + 1"))];
        if kind == "forEach" || kind == "for" {
            first.push((index.clone(), "0".to_owned()));
            again.push((index, format!("{idx} + 1")));
        }
        if kind == "forEach" {
            let items = value(config["items"].as_str().unwrap_or_default());
            first.push((item_var.clone(), format!("{items}[0]")));
            again.push((item_var, format!("{items}[{idx} + 1]")));
        }
        if artifact_driven {
            first.push((decision.clone(), "null".to_owned()));
            again.push((decision, "null".to_owned()));
        }
        let title = item["title"].as_str().unwrap_or_default().to_owned();
        let located = |text: String| Located::new(text, at);
        let to_body = DraftTarget::Step(located(body_entry));
        let set = |pairs: Vec<(String, String)>| -> Vec<(Located<String>, Located<String>)> {
            pairs.into_iter().map(|(name, expression)| (located(name), located(expression))).collect()
        };
        let mut head_edges = vec![DraftEdge {
            at,
            target: to_body.clone(),
            label: located("enter".to_owned()),
            default: false,
            condition: Some(located(enter)),
            condition_text: Some(format!("the {kind} loop `{id}` runs its first iteration")),
            max_traversals: None,
            kind: EdgeKind::Normal,
            set: set(first),
        }];
        head_edges.extend(edge_to(next, "exit", at).map(|mut edge| {
            edge.default = true;
            edge
        }));
        let mut continue_edges = Vec::new();
        if max > 1 {
            continue_edges.push(DraftEdge {
                at,
                target: to_body,
                label: located("repeat".to_owned()),
                default: false,
                condition: Some(located(repeat)),
                condition_text: Some(format!("the {kind} loop `{id}` runs another iteration (at most {max})")),
                max_traversals: Some(u32::try_from(max - 1).unwrap_or(u32::MAX)),
                kind: EdgeKind::Normal,
                set: set(again),
            });
        }
        continue_edges.extend(edge_to(next, "exit", at).map(|mut edge| {
            edge.default = true;
            edge
        }));
        let router = |router_id: String, edges: Vec<DraftEdge>, what: &str| DraftStep {
            notes: NotesPolicy::Optional,
            edges,
            rules: DraftRules { run_when: Some(located("false".to_owned())), ..DraftRules::default() },
            ..DraftStep::new(
                located(router_id),
                title.clone(),
                located(format!("(switchyard routes the loop `{id}` here: {what}; this step is never handed out)")),
            )
        };
        self.steps = outer;
        self.steps.push(router(id.clone(), head_edges, "enter or skip"));
        self.steps.extend(body_steps);
        self.steps.push(router(continue_id, continue_edges, "repeat or leave"));
        if item.get("requireConfirmation").is_some_and(|value| value != &Json::Bool(false)) {
            self.report.warning(
                (self.locate)(&format!("{pointer}/requireConfirmation")),
                codes::WORKRAIL_UNSUPPORTED,
                format!("`requireConfirmation` on loop `{id}` has no step to stop at; confirm inside the body instead"),
                None,
            );
        }
        Some(id)
    }
}

/// The edge to `next` (none when the run completes there, making the step an end step).
fn edge_to(next: &DraftTarget, label: &str, at: Loc) -> Option<DraftEdge> {
    Some(DraftEdge {
        at,
        target: match next {
            DraftTarget::Step(step) => DraftTarget::Step(step.clone()),
            DraftTarget::Complete if label == "exit" => DraftTarget::Complete,
            DraftTarget::Complete => return None,
        },
        label: Located::new(label.to_owned(), at),
        default: false,
        condition: None,
        condition_text: None,
        max_traversals: None,
        kind: EdgeKind::Normal,
        set: Vec::new(),
    })
}

/// Replaces `{name}` placeholders in every string of a routine step; `{{x}}` stays for runtime.
fn substitute(value: &Json, args: &serde_json::Map<String, Json>, missing: &mut dyn FnMut(&str)) -> Json {
    match value {
        Json::String(text) => {
            let mut out = String::with_capacity(text.len());
            let mut rest = text.as_str();
            while let Some(start) = rest.find('{') {
                out.push_str(&rest[..start]);
                let after = &rest[start..];
                if after.starts_with("{{") {
                    let end = after.find("}}").map_or(after.len(), |end| end + 2);
                    out.push_str(&after[..end]);
                    rest = &after[end..];
                    continue;
                }
                match after[1..].find('}') {
                    Some(end)
                        if after[1..=end].chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                            && end > 0 =>
                    {
                        let name = &after[1..=end];
                        match args.get(name) {
                            Some(Json::String(value)) => out.push_str(value),
                            Some(other) => out.push_str(&other.to_string()),
                            None => {
                                missing(name);
                                out.push_str(&after[..end + 2]);
                            }
                        }
                        rest = &after[end + 2..];
                    }
                    _ => {
                        out.push('{');
                        rest = &after[1..];
                    }
                }
            }
            out.push_str(rest);
            Json::String(out)
        }
        Json::Array(items) => Json::Array(items.iter().map(|item| substitute(item, args, missing)).collect()),
        Json::Object(object) => {
            Json::Object(object.iter().map(|(key, value)| (key.clone(), substitute(value, args, missing))).collect())
        }
        other => other.clone(),
    }
}

/// The steps WorkRail injects after a step with `audit` (`<id>__audit`: review the step's
/// deliverables against the rubric) and `verification` (`<id>__verification`: run the command),
/// in that order. They run when the step does: they share its run condition.
fn virtual_steps(id: &str, item: &Json) -> Vec<Json> {
    let title = item["title"].as_str().unwrap_or_default();
    let mut steps = Vec::new();
    if let Some(audit) = item.get("audit") {
        let mut prompt = format!(
            "Audit the deliverables of step `{id}` ({title}) before the workflow moves on.\n\n{}",
            audit["prompt"]
                .as_str()
                .unwrap_or("Check them for gaps, errors and unsupported claims, and fix what you find.")
        );
        let rubric: Vec<String> =
            audit["rubric"].as_array().into_iter().flatten().filter_map(Json::as_str).map(str::to_owned).collect();
        if !rubric.is_empty() {
            prompt.push_str(&format!("\n\n## Rubric\n{}", bullets(&rubric)));
        }
        steps.push(json!({"id": format!("{id}__audit"), "title": format!("{title}: audit"), "prompt": prompt}));
    }
    if let Some(verification) = item.get("verification") {
        let mut prompt = format!("Verify the deliverables of step `{id}` ({title}).");
        if let Some(command) = verification["command"].as_str() {
            prompt.push_str(&format!("\n\nRun `{command}` and report its result; fix what fails before you advance."));
        }
        if let Some(text) = verification["prompt"].as_str() {
            prompt.push_str(&format!("\n\n{text}"));
        }
        steps.push(json!({
            "id": format!("{id}__verification"),
            "title": format!("{title}: verification"),
            "prompt": prompt,
        }));
    }
    if let Some(condition) = item.get("runCondition") {
        for step in &mut steps {
            step["runCondition"] = condition.clone();
        }
    }
    steps
}

/// What the agent reads about a step's assessments: how to send them, and each referenced
/// assessment's dimensions and levels as the workflow defines them.
fn assessment_guidance(references: &[String], assessments: &BTreeMap<String, Json>) -> String {
    let names: Vec<String> = references.iter().map(|id| format!("`{id}`")).collect();
    let mut text = format!(
        "## Assessment\nRate this step with {} and send each as an artifact: `{{\"kind\": \"wr.assessment\", \"assessmentId\": \"<id>\", \"dimensions\": {{\"<dimension>\": \"<level>\"}}, \"summary\": \"...\"}}`.",
        names.join(", ")
    );
    for reference in references {
        let Some(assessment) = assessments.get(reference) else { continue };
        for dimension in assessment["dimensions"].as_array().into_iter().flatten() {
            let levels: Vec<String> = dimension["levels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Json::as_str)
                .map(|level| format!("`{level}`"))
                .collect();
            text.push_str(&format!(
                "\n- `{reference}` / `{}` ({}): {}",
                dimension["id"].as_str().unwrap_or_default(),
                levels.join(" | "),
                dimension["purpose"].as_str().unwrap_or_default()
            ));
        }
    }
    text
}

/// The checks WorkRail's engine makes on a submitted assessment before any consequence: for
/// each referenced assessment the workflow defines, every dimension (unless `required: false`)
/// is rated with one of its declared levels, and a rated dimension never has a level the
/// assessment does not declare. Without them an agent could dodge a consequence by leaving a
/// dimension out or inventing a level. Levels compare trimmed and case-insensitively, as
/// WorkRail normalises them, which JSON Schema cannot say; hence `condition` checks, one per
/// dimension, so the message names the dimension and its levels.
fn dimension_checks(references: &[String], assessments: &BTreeMap<String, Json>) -> Vec<OutputCheck> {
    let mut checks = Vec::new();
    for reference in references {
        let Some(assessment) = assessments.get(reference) else { continue };
        let assessment_literal = literal(&Json::String(reference.clone()), Dialect::Cel);
        // An artifact without `assessmentId` is the step's assessment when it has only one.
        let belongs = if references.len() == 1 {
            format!("(value_of(a, \"assessmentId\") == null || value_of(a, \"assessmentId\") == {assessment_literal})")
        } else {
            format!("value_of(a, \"assessmentId\") == {assessment_literal}")
        };
        let artifact = format!("type(a) == map && value_of(a, \"kind\") == \"wr.assessment\" && {belongs}");
        for dimension in assessment["dimensions"].as_array().into_iter().flatten() {
            let Some(dimension_id) = dimension["id"].as_str() else { continue };
            let levels: Vec<Json> = dimension["levels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|level| level.is_string())
                .cloned()
                .collect();
            let levels_literal = literal(&Json::Array(levels.clone()), Dialect::Cel);
            let value = format!(
                "value_of(value_of(a, \"dimensions\"), {})",
                literal(&Json::String(dimension_id.to_owned()), Dialect::Cel)
            );
            let level = format!("value_of({value}, \"level\")");
            let declared = format!(
                "((type({value}) == string && loose({value}, \"in\", {levels_literal})) \
                 || (type({value}) == map && type({level}) == string && loose({level}, \"in\", {levels_literal})))"
            );
            let no_unknown_level = format!(
                "!(type(artifacts) == list && artifacts.exists(a, {artifact} && {value} != null && !{declared}))"
            );
            let required = dimension["required"].as_bool() != Some(false);
            let condition = if required {
                format!(
                    "type(artifacts) == list && artifacts.exists(a, {artifact} && {declared}) && {no_unknown_level}"
                )
            } else {
                no_unknown_level
            };
            let names: Vec<String> = levels.iter().filter_map(Json::as_str).map(|level| format!("`{level}`")).collect();
            let needs = if required { "needs" } else { "may have" };
            let identified =
                if references.len() == 1 { String::new() } else { format!("\"assessmentId\": \"{reference}\", ") };
            checks.push(OutputCheck::Condition {
                condition,
                message: Some(format!(
                    "Assessment `{reference}` {needs} dimension `{dimension_id}` at one of its levels: {} \
                     (a level, or `{{\"level\": \"<level>\", \"rationale\": \"...\"}}`); no other level is accepted. \
                     Send `{{\"kind\": \"wr.assessment\", {identified}\"dimensions\": {{\"{dimension_id}\": \"<level>\", ...}}}}` in `artifacts`.",
                    names.join(" | ")
                )),
                when: None,
            });
        }
    }
    checks
}

/// An assessment consequence as WorkRail's engine applies it: when a submitted `wr.assessment`
/// (of the consequence's `forAssessment`, if set) has any dimension at the trigger level, the
/// advance is refused with the guidance and the step stays pending for a follow-up. Levels
/// compare trimmed and case-insensitively, as WorkRail normalises them; a dimension is a level
/// or `{level, rationale}`.
fn consequence_check(consequence: &Json, references: &[String]) -> OutputCheck {
    let level = consequence["when"]["anyEqualsLevel"].as_str().unwrap_or_default();
    let scope = consequence["when"]["forAssessment"].as_str();
    let guidance = consequence["effect"]["guidance"].as_str().unwrap_or_default();
    let level_literal = literal(&Json::String(level.to_owned()), Dialect::Cel);
    let scope_test = match scope {
        Some(assessment) => {
            let assessment_literal = literal(&Json::String(assessment.to_owned()), Dialect::Cel);
            let unnamed_is_it = references.len() == 1 && references[0] == assessment;
            if unnamed_is_it {
                format!(
                    " && (value_of(a, \"assessmentId\") == null || value_of(a, \"assessmentId\") == {assessment_literal})"
                )
            } else {
                format!(" && value_of(a, \"assessmentId\") == {assessment_literal}")
            }
        }
        None => String::new(),
    };
    let condition = format!(
        "!(type(artifacts) == list && artifacts.exists(a, type(a) == map && value_of(a, \"kind\") == \"wr.assessment\"{scope_test} \
         && type(value_of(a, \"dimensions\")) == map && value_of(a, \"dimensions\").exists(d, \
         loose(value_of(a, \"dimensions\")[d], \"equals\", {level_literal}) \
         || loose(value_of(value_of(a, \"dimensions\")[d], \"level\"), \"equals\", {level_literal}))))"
    );
    let which = scope.map_or_else(|| "an assessment".to_owned(), |assessment| format!("assessment `{assessment}`"));
    OutputCheck::Condition {
        condition,
        message: Some(format!(
            "Assessment follow-up required: {which} has a dimension at `{level}`. {guidance} \
             The step stays pending until a new `wr.assessment` has no dimension at `{level}`."
        )),
        when: None,
    }
}

/// The output schema for a WorkRail contract: the artifacts list holds one of its kind.
fn contract_schema(reference: &str) -> Json {
    if reference == "wr.contracts.loop_control" {
        return json!({
            "type": "array",
            "contains": {
                "type": "object",
                "required": ["kind", "decision"],
                "properties": {"kind": {"const": "wr.loop_control"}, "decision": {"enum": ["continue", "stop"]}}
            }
        });
    }
    artifact_kind_schema(&contract_kind(reference))
}

fn contract_kind(reference: &str) -> String {
    format!("wr.{}", reference.strip_prefix("wr.contracts.").unwrap_or(reference))
}

fn artifact_kind_schema(kind: &str) -> Json {
    json!({
        "type": "array",
        "contains": {"type": "object", "required": ["kind"], "properties": {"kind": {"const": kind}}}
    })
}

fn contract_guidance(reference: &str) -> String {
    if reference == "wr.contracts.loop_control" {
        return "## Required artifact\nSend `artifacts` as a JSON list holding `{\"kind\": \"wr.loop_control\", \"decision\": \"continue\"}` to run the loop again, or `\"decision\": \"stop\"` to leave it.".to_owned();
    }
    format!(
        "## Required artifact\nSend `artifacts` as a JSON list holding an object with `\"kind\": \"{}\"` and the fields the contract `{reference}` asks for.",
        contract_kind(reference)
    )
}

/// switchyard's own short wording for WorkRail's built-in prompt references.
fn reference_text(reference: &str) -> &'static str {
    match reference {
        "wr.refs.memory_usage" | "wr.refs.memory_store" | "wr.refs.memory_query" => {
            "Keep durable findings in your notes so later steps and resumed sessions can read them."
        }
        "wr.refs.notes_first_durability" => {
            "Write your notes first: they are the durable record of this step; chat text is not kept."
        }
        "wr.refs.synthesis_under_disagreement" => {
            "When sources disagree, name the disagreement, weigh the evidence, and say which view you adopt and why."
        }
        "wr.refs.parallelize_cognition_serialize_synthesis" => {
            "Explore independent questions in parallel, then combine the results in one careful, sequential synthesis."
        }
        "wr.refs.adversarial_challenge_rules" => {
            "Challenge the current answer honestly: look for the strongest counter-argument and evidence against it."
        }
        _ => "(a WorkRail built-in reference that switchyard does not know)",
    }
}

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
    let (and, or, not, truth) = match dialect {
        Dialect::Cel => (" && ", " || ", "!", "true"),
        Dialect::Template => (" and ", " or ", "not ", "true"),
    };
    let object = match condition {
        Json::Null => return Ok(truth.to_owned()),
        Json::Object(object) => object,
        other => return Err(format!("a WorkRail condition must be an object, found {other}")),
    };
    if object.is_empty() {
        return Ok(truth.to_owned());
    }
    if let Some(parts) = object.get("and").or_else(|| object.get("or")) {
        let joiner = if object.contains_key("and") { and } else { or };
        let parts = parts.as_array().ok_or("`and`/`or` takes a list of conditions")?;
        let translated = parts.iter().map(|part| translate(part, dialect)).collect::<Result<Vec<_>, _>>()?;
        if translated.is_empty() {
            return Ok(truth.to_owned());
        }
        return Ok(format!("({})", translated.join(joiner)));
    }
    if let Some(inner) = object.get("not") {
        return Ok(format!("{not}({})", translate(inner, dialect)?));
    }
    let variable = object.get("var").and_then(Json::as_str).ok_or_else(|| {
        format!("a WorkRail condition needs `var` (or and/or/not); found keys {:?}", object.keys().collect::<Vec<_>>())
    })?;
    let value = format!("value_of(context, {})", literal(&Json::String(variable.to_owned()), dialect));
    let mut tests = Vec::new();
    for (key, operand) in object {
        if key == "var" {
            continue;
        }
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

fn literal(value: &Json, dialect: Dialect) -> String {
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
    fn prompt_variables_read_the_context_and_other_braces_stay_literal() {
        assert_eq!(
            escape("Fix #{{_iteration}} of {{item.name}}"),
            "Fix #{{ context._iteration }} of {{ context.item.name }}"
        );
        assert_eq!(escape("{{#if x}}a{{/if}}"), "{% raw %}{{#if x}}a{{/if}}{% endraw %}");
        assert_eq!(escape("use {% tags %}"), "{% raw %}use {% tags %}{% endraw %}");
    }
}
