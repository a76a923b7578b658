//! The text a WorkRail workflow gives the agent beside its steps' prompts: the preamble every
//! run sees once (rules, preconditions, questions, references, functions) and `promptBlocks`.

use serde_json::Value as Json;

use super::Reader;
use super::conditions::escape;
use super::format::{FunctionDefinition, Workflow};
use crate::diagnostic::codes;

/// Text every run should see once: rules, preconditions, questions, references, functions.
pub(super) fn workflow_preamble(workflow: &Workflow) -> String {
    let mut sections = Vec::new();
    if !workflow.meta_guidance.is_empty() {
        sections.push(format!("## Rules for this workflow\n{}", bullets(&workflow.meta_guidance)));
    }
    if !workflow.preconditions.is_empty() {
        sections.push(format!("## Before you start, make sure\n{}", bullets(&workflow.preconditions)));
    }
    if !workflow.clarification_prompts.is_empty() {
        sections.push(format!("## Clarify with the user if unclear\n{}", bullets(&workflow.clarification_prompts)));
    }
    if let Some(references) = &workflow.references {
        let lines: Vec<String> = references
            .iter()
            .map(|reference| {
                format!(
                    "{} (`{}`): {}{}",
                    reference.title.as_deref().unwrap_or_default(),
                    reference.source.as_deref().unwrap_or_default(),
                    reference.purpose.as_deref().unwrap_or_default(),
                    if reference.authoritative == Some(true) { " (authoritative)" } else { "" }
                )
            })
            .collect();
        sections.push(format!("## References\n{}", bullets(&lines)));
    }
    if let Some(functions) = &workflow.function_definitions {
        sections.push(functions_section(functions));
    }
    escape(&sections.join("\n\n"))
}

pub(super) fn bullets(items: &[String]) -> String {
    items.iter().map(|item| format!("- {item}")).collect::<Vec<_>>().join("\n")
}

pub(super) fn functions_section(functions: &[FunctionDefinition]) -> String {
    let mut text = String::from("## Functions");
    for function in functions {
        let parameters: Vec<&str> =
            function.parameters.iter().flatten().filter_map(|parameter| parameter.name.as_deref()).collect();
        text.push_str(&format!(
            "\n### {}({})\n{}",
            function.name.as_deref().unwrap_or_default(),
            parameters.join(", "),
            function.definition.as_deref().unwrap_or_default()
        ));
    }
    text
}

impl Reader<'_> {
    pub(super) fn prompt_blocks(&mut self, pointer: &str, blocks: &Json) -> String {
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

    pub(super) fn prompt_part(&mut self, pointer: &str, part: &Json) -> String {
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
