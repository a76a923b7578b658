//! The text a WorkRail workflow gives the agent beside its steps' prompts: the preamble every
//! run sees once (rules, preconditions, questions, references, functions) and `promptBlocks`.

use serde_json::Value as Json;

use super::Reader;
use super::conditions::escape;
use super::format::{FunctionDefinition, KindedPart, PartKind, PromptBlocks, PromptPart, PromptText, Workflow};
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
    pub(super) fn prompt_blocks(&mut self, pointer: &str, blocks: &PromptBlocks) -> String {
        let mut sections = Vec::new();
        if let Some(goal) = &blocks.goal {
            sections.push(format!("## Goal\n{}", self.prompt_text(pointer, goal)));
        }
        for (items, title, numbered) in [
            (&blocks.constraints, "Constraints", false),
            (&blocks.procedure, "Procedure", true),
            (&blocks.verify, "Verify", false),
        ] {
            if let Some(items) = items {
                let lines: Vec<String> = items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| {
                        let text = self.prompt_text(pointer, item);
                        if numbered { format!("{}. {text}", index + 1) } else { format!("- {text}") }
                    })
                    .collect();
                sections.push(format!("## {title}\n{}", lines.join("\n")));
            }
        }
        if let Some(output) = &blocks.output_required {
            let lines: Vec<String> =
                output.iter().map(|(key, value)| format!("- {key}: {}", self.prompt_text(pointer, value))).collect();
            sections.push(format!("## Output required\n{}", lines.join("\n")));
        }
        escape(&sections.join("\n\n"))
    }

    fn prompt_text(&mut self, pointer: &str, text: &PromptText) -> String {
        match text {
            PromptText::Plain(text) => text.clone(),
            PromptText::Parts(parts) => parts.iter().map(|part| self.prompt_part(pointer, part)).collect(),
            PromptText::Other(other) => other.to_string(),
        }
    }

    fn prompt_part(&mut self, pointer: &str, part: &PromptPart) -> String {
        match part {
            PromptPart::Kinded(KindedPart { kind: PartKind::Text, text, .. }) => text.clone().unwrap_or_default(),
            PromptPart::Kinded(KindedPart { kind: PartKind::Ref, ref_id, .. }) => {
                let reference = ref_id.as_deref().unwrap_or_default();
                self.report.warning(
                    (self.locate)(&format!("{pointer}/promptBlocks")),
                    codes::WORKRAIL_UNSUPPORTED,
                    format!("`{reference}` is text inside WorkRail's code; switchyard shows its own short equivalent"),
                    None,
                );
                reference_text(reference).to_owned()
            }
            PromptPart::List(items) => Json::Array(items.clone()).to_string(),
            PromptPart::Other(other) => other.as_str().map_or_else(|| other.to_string(), str::to_owned),
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
