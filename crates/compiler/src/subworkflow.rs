//! Sub-workflows run as steps of the calling workflow: a BMad Method `<invoke-workflow>` and a
//! CrewAgent `subworkflow` node are compiled by splicing the called workflow's steps in after
//! the calling step. The IR has no call stack, so a call is a sequence of steps entered by an
//! edge and returning along the calling step's own edges.
//!
//! The called steps get ids `<calling step>.<called workflow id>.<step id>`, so they stay unique
//! beside decimal step ids such as `1.5`. A called workflow must compile on its own before it is
//! spliced in, so a broken one leaves the calling step as it was (with a warning) rather than
//! breaking the caller. Calls nest at most [`MAX_DEPTH`] deep and a workflow that is already
//! being called is never spliced in again, so a workflow invoking itself terminates.

use std::collections::BTreeSet;

use switchyard_core::workflow::EdgeKind;

use crate::diagnostic::{Loc, Report};
use crate::draft::{DraftEdge, DraftTarget, DraftWorkflow};
use crate::located::Located;

/// How deep calls may nest: a workflow calling a workflow calling a workflow, and so on.
pub(crate) const MAX_DEPTH: usize = 4;

/// The workflows being compiled, outermost first, by the bundle path that names each (its
/// `workflow.yaml`, `workflow.md` or `workflow.graph.json`).
#[derive(Debug, Clone, Default)]
pub(crate) struct CallStack(Vec<String>);

/// Why a call cannot be spliced in.
pub(crate) enum Refusal {
    /// The called workflow is already being compiled further out: it calls itself.
    Recursive,
    /// Calls already nest [`MAX_DEPTH`] deep.
    TooDeep,
}

impl CallStack {
    /// The stack with `path` pushed, or why `path` cannot be called from here.
    pub(crate) fn enter(&self, path: &str) -> Result<CallStack, Refusal> {
        if self.0.iter().any(|called| called == path) {
            return Err(Refusal::Recursive);
        }
        if self.0.len() > MAX_DEPTH {
            return Err(Refusal::TooDeep);
        }
        let mut inner = self.0.clone();
        inner.push(path.to_owned());
        Ok(CallStack(inner))
    }

    /// The stack holding only the outermost workflow.
    pub(crate) fn root(path: &str) -> CallStack {
        CallStack(vec![path.to_owned()])
    }
}

/// Checks a called workflow on its own; `Err` holds its first error, for the caller's warning.
pub(crate) fn compiles_alone(child: &DraftWorkflow, file: &str) -> Result<(), String> {
    let mut scratch = Report::new(file);
    crate::checks::check(child, &mut scratch);
    match scratch.diagnostics.iter().find(|diagnostic| diagnostic.is_error()) {
        Some(error) => Err(error.message.clone()),
        None => Ok(()),
    }
}

/// Splices `child` into `parent` after the step `calling`.
///
/// Unconditional call: the calling step's edges are replaced by one default edge
/// `invoke-<child>` into the child's entry step. Conditional call (`condition_text` set): that
/// edge is added before the calling step's own edges, not as the default, so the agent takes it
/// when the condition holds. Either way the child's end steps take over the calling step's own
/// edges (the return), and a child edge that would complete the run follows the calling step's
/// default edge instead. Returns the id of the first spliced step, or `None` when the calling
/// step does not exist or the child has no steps.
pub(crate) fn splice(
    parent: &mut DraftWorkflow,
    calling: &str,
    child: DraftWorkflow,
    condition_text: Option<&str>,
) -> Option<String> {
    let position = parent.steps.iter().position(|step| step.id.value == calling)?;
    let child_entry = child
        .start
        .as_ref()
        .map(|start| start.value.clone())
        .or_else(|| child.steps.first().map(|s| s.id.value.clone()))?;
    let taken: BTreeSet<String> = parent.steps.iter().map(|step| step.id.value.clone()).collect();
    let mut prefix = format!("{calling}.{}", child.id.value);
    let mut counter = 2;
    while taken.iter().any(|id| id.starts_with(&format!("{prefix}."))) {
        prefix = format!("{calling}.{}-{counter}", child.id.value);
        counter += 1;
    }
    let rename = |id: &str| format!("{prefix}.{id}");
    let original = std::mem::take(&mut parent.steps[position].edges);
    let return_edge = original.iter().find(|edge| edge.default).or(original.last()).cloned();
    let mut steps = child.steps;
    for step in &mut steps {
        step.id = located(rename(&step.id.value));
        step.end = None;
        if step.edges.is_empty() {
            step.edges = original.clone();
            continue;
        }
        for edge in &mut step.edges {
            match &edge.target {
                DraftTarget::Step(target) => edge.target = DraftTarget::Step(located(rename(&target.value))),
                DraftTarget::Complete => {
                    if let Some(back) = &return_edge {
                        edge.target = back.target.clone();
                        edge.max_traversals = edge.max_traversals.or(back.max_traversals);
                    }
                }
            }
        }
    }
    let label = format!("invoke-{}", prefix.rsplit_once('.').map_or(prefix.as_str(), |(_, last)| last));
    let invoke = DraftEdge {
        at: Loc::START,
        target: DraftTarget::Step(located(rename(&child_entry))),
        label: located(label),
        default: condition_text.is_none(),
        condition: None,
        condition_text: Some(match condition_text {
            Some(condition) => format!("if {condition}: run the invoked workflow `{}`", child.title),
            None => format!("run the invoked workflow `{}`", child.title),
        }),
        max_traversals: None,
        kind: EdgeKind::Normal,
        set: Vec::new(),
    };
    parent.steps[position].edges = match condition_text {
        Some(_) => std::iter::once(invoke).chain(original).collect(),
        None => vec![invoke],
    };
    for variable in child.variables {
        if !parent.variables.iter().any(|declared| declared.name.value == variable.name.value) {
            parent.variables.push(variable);
        }
    }
    let first = steps.first().map(|step| step.id.value.clone());
    parent.steps.splice(position + 1..position + 1, steps);
    first
}

fn located<T>(value: T) -> Located<T> {
    Located::new(value, Loc::START)
}
