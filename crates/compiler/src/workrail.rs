//! The WorkRail front-end: a WorkRail workflow (JSON, schema v0.3.0) compiled to a draft.
//!
//! Validation first checks the file against WorkRail's format (`checks`), so almost-right files
//! get WorkRail's terms (the field, the line, the fix). Then each top-level step becomes one or
//! more IR steps joined in authored order:
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
//!
//! One module per job: `checks` (the format), `templates` (`templateCall`), `steps` (standard
//! and parallel steps), `loops`, `criteria` (`validationCriteria`), `contracts` (output contracts
//! and assessments), `prompts` (preamble and `promptBlocks`), `conditions` (translation to CEL).

use std::collections::BTreeMap;

use serde_json::Value as Json;
use switchyard_core::workflow::Limits;

use crate::diagnostic::{Loc, Report, codes};
use crate::draft::{DraftEdge, DraftStep, DraftTarget, DraftWorkflow};
use crate::located::Located;
use crate::tree::Node;

mod checks;
mod conditions;
mod contracts;
mod criteria;
mod format;
mod loops;
mod prompts;
mod steps;
mod templates;

pub(crate) use conditions::escape;
use prompts::workflow_preamble;

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
    let mut workflow = format::Workflow::read(&document);
    let assessments = std::mem::take(&mut workflow.assessments)
        .into_iter()
        .filter_map(|assessment| Some((assessment.id.clone()?, assessment)))
        .collect();
    let mut reader = Reader { report, routines, assessments, locate: &locate, steps: Vec::new() };
    let items = workflow.steps.clone().unwrap_or_default();
    if items.is_empty() {
        reader.report.error(
            locate("/steps"),
            codes::NO_STEPS,
            "a WorkRail workflow needs at least one step in `steps`",
            Some("add a step: {\"id\": \"first-step\", \"title\": \"...\", \"prompt\": \"...\"}".into()),
        );
    }
    let items = reader.expand_templates(&items);
    let preamble = workflow_preamble(&workflow);
    let body_refs: Vec<String> = items
        .iter()
        .filter_map(|(_, item)| match format::Item::read(item).body {
            Some(format::LoopBody::Reference(id)) => Some(id),
            _ => None,
        })
        .collect();
    let top: Vec<(String, Json)> = items
        .iter()
        .filter(|&(_, item)| {
            let item_id = format::Item::read(item).id;
            !body_refs.iter().any(|id| item_id.as_ref() == Some(id))
        })
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
    let unsupported = [
        ("metricsProfile", workflow.metrics_profile.is_some()),
        ("features", workflow.features.is_some()),
        ("extensionPoints", workflow.extension_points.is_some()),
        ("recommendedPreferences", workflow.recommended_preferences.is_some()),
        ("modelTier", workflow.model_tier.is_some()),
    ];
    for (ignored, set) in unsupported {
        if set {
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
        id: Located::new(workflow.id.unwrap_or_default(), at),
        version: workflow.version.unwrap_or_else(|| "1".to_owned()),
        title: workflow.name.unwrap_or_default(),
        description: workflow.description.unwrap_or_default(),
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
        .filter_map(|(pointer, item)| Some((format::Item::read(item).id?, (pointer.clone(), item.clone()))))
        .collect()
}

struct Reader<'a> {
    report: &'a mut Report,
    routines: &'a Routines,
    /// The workflow's `assessments`, by id.
    assessments: BTreeMap<String, format::Assessment>,
    locate: &'a dyn Fn(&str) -> Loc,
    /// Steps of the item being read, in authored order.
    steps: Vec<DraftStep>,
}

impl Reader<'_> {
    /// Reads one top-level item leading to `next`; returns the id the run enters it by.
    fn item(
        &mut self,
        pointer: &str,
        item: &Json,
        next: &DraftTarget,
        library: &BTreeMap<String, (String, Json)>,
        in_loop: bool,
    ) -> Option<String> {
        match format::Item::read(item).kind.as_deref() {
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
}

/// The edge to `next` (none when the run completes there, making the step an end step).
fn edge_to(next: &DraftTarget, label: &str, at: Loc) -> Option<DraftEdge> {
    let target = match next {
        DraftTarget::Step(step) => DraftTarget::Step(step.clone()),
        DraftTarget::Complete if label == "exit" => DraftTarget::Complete,
        DraftTarget::Complete => return None,
    };
    Some(DraftEdge::new(at, target, Located::new(label.to_owned(), at)))
}
