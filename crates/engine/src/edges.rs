//! Edge selection, shared by advance, approve and human decisions: which outgoing edge of a step
//! the run takes, or why none can be taken.

use switchyard_core::state::{Counters, ValidationIssue};
use switchyard_core::why::{Evaluated, Rule, Subject, Verdict};
use switchyard_core::workflow::{Edge, EdgeTarget, Step};

use crate::conditions::Conditions;
use crate::error::Error;
use crate::loaded::LoadedWorkflow;

/// The outcome of choosing an edge.
#[derive(Debug)]
pub(crate) enum Selection<'w> {
    /// Take the edge; the rule says what chose it.
    Edge(&'w Edge, Rule),
    /// The step is an end step: leaving it completes the run.
    Complete,
    /// The agent can fix this by advancing again differently.
    Issue(ValidationIssue),
    /// Every edge is used up: nothing anyone sends can move the run on.
    NoEligibleEdge,
}

/// The counter key of a bounded edge: `"<from step>/<label>"`.
pub(crate) fn traversal_key(step: &Step, edge: &Edge) -> String {
    format!("{}/{}", step.id, edge.label)
}

/// Traversals left on a bounded edge; `None` when the edge is unbounded.
pub(crate) fn remaining(step: &Step, edge: &Edge, counters: &Counters) -> Option<u32> {
    edge.max_traversals.map(|max| {
        let used = counters.traversals.get(&traversal_key(step, edge)).copied().unwrap_or(0);
        max.saturating_sub(used)
    })
}

pub(crate) fn exhausted(step: &Step, edge: &Edge, counters: &Counters) -> bool {
    remaining(step, edge, counters) == Some(0)
}

fn labels(step: &Step) -> String {
    let labels: Vec<String> = step.edges.iter().map(|edge| format!("`{}`", edge.label)).collect();
    labels.join(", ")
}

fn issue(code: &str, message: String) -> ValidationIssue {
    ValidationIssue { code: code.to_owned(), path: "choice".to_owned(), message }
}

/// `UNKNOWN_CHOICE` when the choice names no edge of the step.
pub(crate) fn unknown_choice(step: &Step, choice: Option<&str>) -> Option<ValidationIssue> {
    let choice = choice?;
    if step.edges.iter().any(|edge| edge.label == choice) {
        return None;
    }
    let message = if step.is_end() {
        format!("step `{}` is an end step: advancing it completes the run; send no choice (got `{choice}`)", step.id)
    } else {
        format!("`{choice}` is not an edge of step `{}`: choose one of {}", step.id, labels(step))
    };
    Some(issue("UNKNOWN_CHOICE", message))
}

/// Picks the edge: the first true condition among non-exhausted conditional edges; else the
/// agent's choice among unconditional edges; else the default edge; else the only unconditional
/// edge. Condition errors count as false.
pub(crate) fn select<'w>(
    loaded: &LoadedWorkflow,
    step: &'w Step,
    counters: &'w Counters,
    conditions: &Conditions,
    choice: Option<&str>,
) -> Selection<'w> {
    if let Some(issue) = unknown_choice(step, choice) {
        return Selection::Issue(issue);
    }
    if step.is_end() {
        return Selection::Complete;
    }
    if step.edges.iter().all(|edge| exhausted(step, edge, counters)) {
        return Selection::NoEligibleEdge;
    }
    let programs = loaded.conditions(&step.id);
    let winner = step.edges.iter().zip(programs).find_map(|(edge, program)| {
        let program = program.as_ref()?;
        if exhausted(step, edge, counters) {
            conditions.note(|| Evaluated {
                step: step.id.clone(),
                subject: Subject::Edge { label: edge.label.clone() },
                text: cel_text(edge).to_owned(),
                read: conditions.read(program),
                result: Verdict::UsedUp { max: edge.max_traversals.unwrap_or(0) },
                nearest: None,
            });
            return None;
        }
        let subject = Subject::Edge { label: edge.label.clone() };
        conditions.decide(&step.id, subject, cel_text(edge), program).then_some(edge)
    });
    if let Some(winner) = winner {
        return match choice {
            Some(choice) if choice != winner.label => Selection::Issue(issue(
                "CHOICE_NOT_ALLOWED",
                format!(
                    "the conditions chose edge `{}`, so `{choice}` cannot be taken: send choice `{}` or no choice",
                    winner.label, winner.label
                ),
            )),
            _ => Selection::Edge(winner, Rule::Condition { label: winner.label.clone() }),
        };
    }
    if let Some(choice) = choice {
        let Some(edge) = step.edges.iter().find(|edge| edge.label == choice) else {
            return Selection::Issue(issue(
                "UNKNOWN_CHOICE",
                format!("`{choice}` is not an edge of step `{}`", step.id),
            ));
        };
        if exhausted(step, edge, counters) {
            return Selection::Issue(issue(
                "EDGE_EXHAUSTED",
                format!(
                    "edge `{choice}` was already taken its maximum of {} times in this branch: choose another of {}",
                    edge.max_traversals.unwrap_or(0),
                    labels(step)
                ),
            ));
        }
        if edge.condition.is_some() {
            return Selection::Issue(issue(
                "CHOICE_NOT_ALLOWED",
                format!(
                    "edge `{choice}` is only taken when {}, which does not hold: choose another edge",
                    condition_text(edge)
                ),
            ));
        }
        return Selection::Edge(edge, Rule::Choice { label: edge.label.clone() });
    }
    if let Some(edge) = fallback(step, counters) {
        let label = edge.label.clone();
        // One way left is the only way on, whether or not it is also the default.
        if unconditional_eligible(step, counters).count() == 1 {
            return Selection::Edge(edge, Rule::Only { label });
        }
        if edge.default {
            return Selection::Edge(edge, Rule::Default { label });
        }
    }
    let open: Vec<String> = unconditional_eligible(step, counters).map(|edge| format!("`{}`", edge.label)).collect();
    if open.is_empty() {
        return Selection::Issue(issue(
            "NO_CONDITION_MATCHED",
            format!(
                "no condition of step `{}` holds and every other edge is used up: change the context so one holds",
                step.id
            ),
        ));
    }
    Selection::Issue(issue(
        "CHOICE_REQUIRED",
        format!("step `{}` has several ways on: send `choice` with one of {}", step.id, open.join(", ")),
    ))
}

/// An edge's condition in the words shown to the agent, else its CEL.
fn condition_text(edge: &Edge) -> &str {
    edge.condition_text.as_deref().or(edge.condition.as_deref()).unwrap_or_default()
}

/// An edge's condition in CEL, as the why records it.
pub(crate) fn cel_text(edge: &Edge) -> &str {
    edge.condition.as_deref().unwrap_or_default()
}

/// The rule of an edge taken by falling back: the default edge, else the first open one.
pub(crate) fn fallback_rule(edge: &Edge) -> Rule {
    let label = edge.label.clone();
    if edge.default { Rule::Default { label } } else { Rule::First { label } }
}

fn unconditional_eligible<'w>(step: &'w Step, counters: &'w Counters) -> impl Iterator<Item = &'w Edge> {
    step.edges.iter().filter(move |edge| edge.condition.is_none() && !exhausted(step, edge, counters))
}

/// The edge a human's approval falls back to when the held choice cannot be used: the default
/// edge if it is unconditional and not used up, else the first such unconditional edge.
pub(crate) fn fallback<'w>(step: &'w Step, counters: &'w Counters) -> Option<&'w Edge> {
    unconditional_eligible(step, counters)
        .find(|edge| edge.default)
        .or_else(|| unconditional_eligible(step, counters).next())
}

/// Whether the agent must pick a label: several unconditional edges are open and none is the
/// default.
pub(crate) fn needs_choice(step: &Step, counters: &Counters) -> bool {
    let open: Vec<&Edge> = unconditional_eligible(step, counters).collect();
    open.len() > 1 && !open.iter().any(|edge| edge.default)
}

/// The choice that takes the run from `step` to `target` (`AdvanceTo`): the label of an edge
/// leading there, or no label when `target` completes the run from an end step. Among several
/// edges leading there, the first whose condition holds wins, then the default, then the first
/// unconditional one, each not used up; failing those, the first, so that taking it reports why
/// it cannot be taken (used up, or its condition does not hold) as any choice of it would.
/// With `choice`, only that edge may lead there. No edge leading there is `NO_EDGE_TO_STEP`.
pub(crate) fn choice_toward(
    loaded: &LoadedWorkflow,
    step: &Step,
    counters: &Counters,
    conditions: &Conditions,
    target: &EdgeTarget,
    choice: Option<&str>,
) -> Result<Option<String>, Error> {
    if step.is_end() && *target == EdgeTarget::Complete {
        return Ok(choice.map(str::to_owned));
    }
    let programs = loaded.conditions(&step.id);
    let leading: Vec<(&Edge, bool)> = step
        .edges
        .iter()
        .zip(programs)
        .filter(|(edge, _)| edge.target == *target && choice.is_none_or(|choice| edge.label == choice))
        .map(|(edge, program)| {
            let open = !exhausted(step, edge, counters);
            (edge, open && program.as_ref().is_some_and(|program| conditions.holds(program)))
        })
        .collect();
    let open_unconditional = || {
        leading
            .iter()
            .map(|(edge, _)| *edge)
            .filter(|edge| edge.condition.is_none() && !exhausted(step, edge, counters))
    };
    let chosen = leading
        .iter()
        .find_map(|(edge, holds)| holds.then_some(*edge))
        .or_else(|| open_unconditional().find(|edge| edge.default))
        .or_else(|| open_unconditional().next())
        .or_else(|| leading.first().map(|(edge, _)| *edge));
    if let Some(edge) = chosen {
        return Ok(Some(edge.label.clone()));
    }
    let shown = show_target(target);
    let reason = match (choice, target) {
        (Some(choice), _) => match step.edges.iter().find(|edge| edge.label == choice) {
            Some(edge) => format!("edge `{choice}` leads to {}", show_target(&edge.target)),
            None => format!("`{choice}` is not an edge of step `{}`", step.id),
        },
        (None, EdgeTarget::Step(id)) if loaded.workflow.step(id).is_none() => {
            format!("`{id}` is not a step of workflow `{}`", loaded.workflow.id)
        }
        (None, _) if step.is_end() => "the step is an end step: advancing it completes the run".to_owned(),
        (None, _) => "no edge of the step leads there".to_owned(),
    };
    let allowed: Vec<String> = if step.is_end() {
        vec![show_target(&EdgeTarget::Complete)]
    } else {
        step.edges
            .iter()
            .filter(|edge| !exhausted(step, edge, counters))
            .map(|edge| format!("{} (edge `{}`)", show_target(&edge.target), edge.label))
            .collect()
    };
    let allowed = if allowed.is_empty() { "none: every edge is used up".to_owned() } else { allowed.join(", ") };
    Err(Error::NoEdgeToStep { step: step.id.to_string(), target: shown, reason, allowed })
}

fn show_target(target: &EdgeTarget) -> String {
    match target {
        EdgeTarget::Step(id) => format!("`{id}`"),
        EdgeTarget::Complete => "the end of the run".to_owned(),
    }
}
