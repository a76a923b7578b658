//! `pending`: what the agent sees at a node. The prompt rendered over the run context, the step's
//! contract, and the edges it may take next.

use serde::Serialize;
use switchyard_core::evidence::{CommandCheck, EvidenceCheck};
use switchyard_core::state::{NodeState, Phase, Validation};
use switchyard_core::workflow::{EdgeKind, EdgeTarget, NotesPolicy, OutputCheck, StepId};

use crate::conditions::{Conditions, Scope};
use crate::edges;
use crate::loaded::LoadedWorkflow;

/// The step an agent should do now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct PendingStep {
    pub step: StepId,
    pub title: String,
    /// The prompt rendered with the run context.
    pub prompt: String,
    pub role: Option<String>,
    pub model: Option<String>,
    pub phase: Option<String>,
    pub context_reset: bool,
    pub gate: bool,
    pub notes: NotesPolicy,
    pub output_schema: Option<serde_json::Value>,
    /// Checks the notes must pass (`OUTPUT_CHECK` otherwise); absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<OutputCheck>,
    /// What switchyard itself will check of the work when the step is reported done (a command
    /// it runs, files that must exist, ...); absent when nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<EvidenceCheck>,
    /// The command of a step switchyard runs itself, for people: no agent does this step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// Edges that can still be taken, in evaluation order.
    pub allowed_next: Vec<AllowedEdge>,
    /// The agent must send a `choice`: several edges are open and none is the default.
    pub needs_choice: bool,
    /// Why a human sent the step back, if one did.
    pub rejection: Option<String>,
    /// What was wrong with the last advance, if it was blocked.
    pub validation: Option<Validation>,
    pub attempts_left: u32,
    pub cycle: u32,
}

/// An edge the agent may take.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub struct AllowedEdge {
    pub label: String,
    /// `None`: taking the edge completes the run.
    pub to: Option<StepId>,
    pub default: bool,
    pub condition_text: Option<String>,
    pub kind: EdgeKind,
    /// Traversals left on a bounded edge.
    pub remaining: Option<u32>,
}

/// The pending step of `state`. Never fails: a prompt that cannot be rendered is shown raw with
/// a note, and a step missing from the workflow is described as such.
pub fn pending(loaded: &LoadedWorkflow, state: &NodeState, goal: &str) -> PendingStep {
    let counters = &state.counters;
    let validation = match &state.phase {
        Phase::Blocked { validation } => Some(validation.clone()),
        _ => None,
    };
    let Ok(step) = loaded.step(&state.step) else {
        return PendingStep {
            step: state.step.clone(),
            title: state.step.to_string(),
            prompt: format!(
                "Step `{}` is not in workflow `{}`: this run does not fit its pinned workflow.",
                state.step, loaded.workflow.id
            ),
            role: None,
            model: None,
            phase: None,
            context_reset: false,
            gate: false,
            notes: NotesPolicy::Optional,
            output_schema: None,
            checks: Vec::new(),
            evidence: Vec::new(),
            run: None,
            allowed_next: Vec::new(),
            needs_choice: false,
            rejection: state.rejection.clone(),
            validation,
            attempts_left: 0,
            cycle: counters.cycles,
        };
    };
    let scope = Scope {
        context: &state.context,
        artifacts: None,
        goal,
        cycle: counters.cycles,
        attempt: counters.attempts.saturating_add(1),
        run_step: false,
    };
    let mut bindings = scope.bindings(&loaded.workflow);
    bindings.remove("artifacts");
    bindings.insert("rejection".to_owned(), state.rejection.clone().map_or(serde_json::Value::Null, Into::into));
    bindings.insert("step".to_owned(), serde_json::Value::String(step.id.0.clone()));
    let rendered = loaded
        .templates()
        .get_template(step.id.as_str())
        .and_then(|template| template.render(minijinja::Value::from(minijinja::value::Serde(&bindings))));
    let prompt = match rendered {
        Ok(prompt) => prompt,
        Err(error) => {
            format!("{}\n\n(switchyard: this prompt could not be rendered, shown as written: {error})", step.prompt)
        }
    };
    let allowed_next = step
        .edges
        .iter()
        .filter(|edge| !edges::exhausted(step, edge, counters))
        .map(|edge| AllowedEdge {
            label: edge.label.clone(),
            to: match &edge.target {
                EdgeTarget::Step(target) => Some(target.clone()),
                EdgeTarget::Complete => None,
            },
            default: edge.default,
            condition_text: edge.condition_text.clone().or_else(|| edge.condition.clone()),
            kind: edge.kind,
            remaining: edges::remaining(step, edge, counters),
        })
        .collect();
    PendingStep {
        step: step.id.clone(),
        title: step.title.clone(),
        prompt,
        role: step.role.clone(),
        model: step.model.clone(),
        phase: step.phase.clone(),
        context_reset: step.context_reset,
        gate: step.gate || loaded.is_gate(step, &Conditions::new(&loaded.workflow, &scope)),
        notes: step.notes,
        output_schema: step.output_schema.clone(),
        checks: loaded.workflow.rules(&step.id).checks.clone(),
        evidence: loaded.workflow.rules(&step.id).evidence.clone(),
        run: loaded.workflow.run_of(&step.id).map(CommandCheck::display),
        allowed_next,
        needs_choice: edges::needs_choice(step, counters),
        rejection: state.rejection.clone(),
        validation,
        attempts_left: step.max_attempts.saturating_sub(counters.attempts),
        cycle: counters.cycles,
    }
}
