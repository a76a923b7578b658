//! WorkRail's standard and parallel steps as IR steps: the prompt and its sections, the run
//! condition, confirmation gates, output schemas and checks, and the steps WorkRail injects
//! after a step (`audit`, `verification`, a parallel step's synthesis).

use serde_json::{Value as Json, json};
use switchyard_core::workflow::{NotesPolicy, OutputCheck};

use super::conditions::{Dialect, escape, translate};
use super::contracts::{
    artifact_kind_schema, assessment_guidance, consequence_check, contract_guidance, contract_schema, dimension_checks,
};
use super::format::{Confirmation, ParallelStep, PromptBlocks, StandardStep};
use super::prompts::{bullets, functions_section};
use super::{Reader, edge_to};
use crate::diagnostic::codes;
use crate::draft::{DraftRules, DraftStep, DraftTarget};
use crate::located::Located;

impl Reader<'_> {
    pub(super) fn standard(
        &mut self,
        pointer: &str,
        item: &Json,
        next: &DraftTarget,
        loop_decision: Option<&str>,
    ) -> String {
        let at = (self.locate)(pointer);
        let step = StandardStep::read(item);
        let id = step.id.clone().unwrap_or_default();
        let mut prompt = match (&step.prompt, &step.prompt_blocks) {
            (Json::String(prompt), Json::Null) => escape(prompt),
            (Json::Null, blocks @ Json::Object(_)) => self.prompt_blocks(pointer, &PromptBlocks::read(blocks)),
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
        if !step.guidance.is_empty() {
            sections.push(escape(&format!("## Guidance\n{}", bullets(&step.guidance))));
        }
        if let Some(functions) = &step.function_definitions {
            sections.push(escape(&functions_section(functions)));
        }
        if step.ask_for_files == Some(true) {
            sections.push("Ask the user for any files you need before you start.".to_owned());
        }
        let mut schemas = Vec::new();
        if let Some(contract) = &step.output_contract {
            let reference = contract.contract_ref.as_deref().unwrap_or_default();
            if contract.required != Some(false) {
                schemas.push(contract_schema(reference));
            }
            sections.push(contract_guidance(reference));
        }
        let mut consequence_checks = Vec::new();
        if let Some(references) = &step.assessment_refs {
            schemas.push(artifact_kind_schema("wr.assessment"));
            sections.push(escape(&assessment_guidance(references, &self.assessments)));
            consequence_checks.extend(dimension_checks(references, &self.assessments));
            for consequence in &step.assessment_consequences {
                consequence_checks.push(consequence_check(consequence, references));
            }
        }
        // `audit` and `verification` become the steps WorkRail's compiler injects after this one.
        let virtual_steps = virtual_steps(&id, &step);
        let own_next = match virtual_steps.first() {
            Some((first, _)) => DraftTarget::Step(Located::new(first.clone(), at)),
            None => next.clone(),
        };
        for fragment in &step.prompt_fragments {
            let text = escape(fragment.text.as_deref().unwrap_or_default());
            match &fragment.when {
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
        if let Some(condition) = &step.run_condition {
            rules.run_when = self.condition(&format!("{pointer}/runCondition"), condition);
        }
        let mut gate = false;
        match &step.require_confirmation {
            None | Some(Confirmation::Flag(false)) => {}
            Some(Confirmation::Flag(true)) => gate = true,
            Some(Confirmation::Gate { condition, .. }) => match condition {
                Some(condition) => {
                    rules.gate_when = self.condition(&format!("{pointer}/requireConfirmation/condition"), condition);
                }
                None => gate = true,
            },
            Some(Confirmation::Condition(condition)) => {
                rules.gate_when = self.condition(&format!("{pointer}/requireConfirmation"), condition);
            }
            Some(Confirmation::List(items)) => {
                let condition = Json::Array(items.clone());
                rules.gate_when = self.condition(&format!("{pointer}/requireConfirmation"), &condition);
            }
        }
        if let Some(criteria) = &step.validation_criteria {
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
            role: step.agent_role,
            model: step.model_tier,
            notes: if step.notes_optional == Some(true) { NotesPolicy::Optional } else { NotesPolicy::Required },
            output: output.map(|output| Located::new(output, at)),
            gate,
            edges: edge.into_iter().collect(),
            rules,
            ..DraftStep::new(Located::new(id.clone(), at), step.title.unwrap_or_default(), Located::new(prompt, at))
        });
        let targets: Vec<DraftTarget> = virtual_steps
            .iter()
            .skip(1)
            .map(|(step_id, _)| DraftTarget::Step(Located::new(step_id.clone(), at)))
            .chain(std::iter::once(next.clone()))
            .collect();
        for ((_, step), after) in virtual_steps.iter().zip(&targets) {
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

    pub(super) fn parallel(&mut self, pointer: &str, item: &Json, next: &DraftTarget) -> String {
        let at = (self.locate)(pointer);
        let parallel = ParallelStep::read(item);
        let id = parallel.id.unwrap_or_default();
        let title = parallel.title.unwrap_or_default();
        let mut text =
            format!("## {title}\nDelegate these tasks to subagents in parallel, then collect their results:");
        for (index, delegation) in parallel.parallel_delegations.iter().enumerate() {
            text.push_str(&format!(
                "\n{}. workflow `{}`{}{}",
                index + 1,
                delegation.workflow_id.as_deref().unwrap_or_default(),
                delegation.goal.as_ref().map(|goal| format!(", goal: {goal}")).unwrap_or_default(),
                delegation.args.as_ref().map(|args| format!(", args: {args}")).unwrap_or_default()
            ));
            if let Some(condition) = &delegation.run_condition {
                text.push_str(&format!(" (only when {condition})"));
            }
        }
        let synthesis = parallel.synthesis;
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
                "title": format!("{title}: synthesis"),
                "prompt": synthesis.prompt.as_deref().unwrap_or("Synthesize the subagents' results."),
            });
            if let Some(contract) = synthesis.output_contract {
                step["outputContract"] = contract;
            }
            self.standard(pointer, &step, next, None);
        }
        id
    }
}

/// The steps WorkRail injects after a step with `audit` (`<id>__audit`: review the step's
/// deliverables against the rubric) and `verification` (`<id>__verification`: run the command),
/// in that order. They run when the step does: they share its run condition.
fn virtual_steps(id: &str, step: &StandardStep) -> Vec<(String, Json)> {
    let title = step.title.as_deref().unwrap_or_default();
    let mut steps = Vec::new();
    if let Some(audit) = &step.audit {
        let mut prompt = format!(
            "Audit the deliverables of step `{id}` ({title}) before the workflow moves on.\n\n{}",
            audit
                .prompt
                .as_deref()
                .unwrap_or("Check them for gaps, errors and unsupported claims, and fix what you find.")
        );
        if !audit.rubric.is_empty() {
            prompt.push_str(&format!("\n\n## Rubric\n{}", bullets(&audit.rubric)));
        }
        let audit_id = format!("{id}__audit");
        steps.push((audit_id.clone(), json!({"id": audit_id, "title": format!("{title}: audit"), "prompt": prompt})));
    }
    if let Some(verification) = &step.verification {
        let mut prompt = format!("Verify the deliverables of step `{id}` ({title}).");
        if let Some(command) = &verification.command {
            prompt.push_str(&format!("\n\nRun `{command}` and report its result; fix what fails before you advance."));
        }
        if let Some(text) = &verification.prompt {
            prompt.push_str(&format!("\n\n{text}"));
        }
        let verification_id = format!("{id}__verification");
        steps.push((
            verification_id.clone(),
            json!({"id": verification_id, "title": format!("{title}: verification"), "prompt": prompt}),
        ));
    }
    if let Some(condition) = &step.run_condition {
        for (_, step) in &mut steps {
            step["runCondition"] = condition.clone();
        }
    }
    steps
}
