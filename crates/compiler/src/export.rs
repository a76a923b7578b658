//! IR to native YAML: what `switchyard import` writes. Every IR field is written explicitly,
//! so compiling the output gives the same IR, and so the same workflow hash. `export/diagram.rs`
//! writes the same IR as Mermaid and Graphviz DOT, for people who read workflows as pictures.

mod diagram;

use switchyard_core::workflow::{EdgeKind, EdgeTarget, Workflow};

pub use self::diagram::{to_dot, to_mermaid};
use crate::located::{Count, Items, JsonValue, Required, Scalar};
use crate::native::format::{
    Assignment, Assignments, Listed, NativeEdge, NativeEdgeItem, NativeLimits, NativeNext, NativeStep, NativeVariable,
    NativeWorkflow, VariableDeclaration, VariableEntry, Variables,
};

/// Why a workflow could not be written in the native format.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    #[error("the workflow cannot be written as YAML: {0}")]
    Yaml(String),
}

/// The workflow as a native document.
pub(crate) fn to_native(workflow: &Workflow) -> NativeWorkflow {
    let mut steps = Vec::with_capacity(workflow.steps.len());
    for step in &workflow.steps {
        let rules = workflow.rules(&step.id);
        let edges = step
            .edges
            .iter()
            .map(|edge| {
                let (to, end) = match &edge.target {
                    EdgeTarget::Step(target) => (Some(target.to_string().into()), None),
                    EdgeTarget::Complete => (None, Some(true)),
                };
                let set = rules.assign.get(&edge.label).filter(|set| !set.is_empty()).map(|set| {
                    let assignments = set
                        .iter()
                        .map(|(name, expression)| Assignment::Set {
                            name: name.clone().into(),
                            expression: expression.clone().into(),
                        })
                        .collect();
                    Assignments::Written(assignments).into()
                });
                NativeEdgeItem::Edge(
                    NativeEdge {
                        to,
                        end,
                        label: Some(edge.label.clone().into()),
                        default: edge.default.then_some(true),
                        when: edge.condition.clone().map(Into::into),
                        when_text: edge.condition_text.clone(),
                        max_traversals: edge.max_traversals.map(Count),
                        kind: (edge.kind != EdgeKind::Normal).then(|| edge.kind.into()),
                        set,
                    }
                    .into(),
                )
            })
            .collect::<Vec<_>>();
        let step = NativeStep {
            id: step.id.to_string().into(),
            title: Some(step.title.clone()),
            prompt: Required::Given(step.prompt.clone().into()),
            role: step.role.clone(),
            model: step.model.clone(),
            notes: Some(step.notes.into()),
            output: step.output_schema.clone().map(|schema| JsonValue(schema).into()),
            gate: step.gate.then_some(true),
            context_reset: step.context_reset.then_some(true),
            phase: step.phase.clone(),
            max_attempts: Some(Count(step.max_attempts)),
            end: None,
            next: (!edges.is_empty()).then_some(NativeNext::Edges(Items(edges))),
            when: rules.run_when.clone().map(Into::into),
            gate_when: rules.gate_when.clone().map(Into::into),
            checks: (!rules.checks.is_empty()).then(|| Listed::Read(rules.checks.clone()).into()),
            status_report: rules.status_report.map(Into::into),
            audit: rules.audit.then_some(true),
            evidence: (!rules.evidence.is_empty()).then(|| Listed::Read(rules.evidence.clone()).into()),
            run: rules.run.as_ref().map(|command| command.run.clone().into()),
            shell: rules.run.as_ref().and_then(|command| command.shell.then_some(true)),
            timeout: rules.run.as_ref().and_then(|command| command.timeout.clone()).map(Into::into),
            // `on_failure` was lowered to the first edge, which is written as it is.
            on_failure: None,
        };
        steps.push(step.into());
    }
    // In declaration order, which the workflow hash keeps.
    let variables: Vec<VariableEntry> = workflow
        .variables
        .iter()
        .map(|variable| VariableEntry::Declared {
            name: variable.name.clone().into(),
            declaration: VariableDeclaration::Full(NativeVariable {
                value_type: Some(variable.value_type.into()),
                default: variable.default.clone().map(|default| JsonValue(default).into()),
                layer: Some(variable.layer.into()),
                description: variable.description.clone(),
            }),
        })
        .collect();
    let first = workflow.steps.first().map(|step| &step.id);
    NativeWorkflow {
        schema: None,
        id: Required::Given(workflow.id.clone().into()),
        version: Some(workflow.version.clone()),
        title: Some(workflow.title.clone()),
        description: (!workflow.description.is_empty()).then(|| workflow.description.clone()),
        tags: (!workflow.tags.is_empty())
            .then(|| workflow.tags.iter().map(|tag| Scalar::String(tag.clone()).into()).collect()),
        variables: (!variables.is_empty()).then(|| Variables::Declared(variables).into()),
        limits: Some(NativeLimits {
            max_cycles: Some(Count(workflow.limits.max_cycles)),
            max_revision_attempts: Some(Count(workflow.limits.max_revision_attempts)),
            max_replan_attempts: Some(Count(workflow.limits.max_replan_attempts)),
        }),
        start: (first != Some(&workflow.entry)).then(|| workflow.entry.to_string().into()),
        strict_status: None,
        steps: Required::Given(Items(steps)),
    }
}

/// The workflow as native YAML text.
pub fn to_native_yaml(workflow: &Workflow) -> Result<String, ExportError> {
    let document = to_native(workflow);
    serde_saphyr::to_string(&document).map_err(|error| ExportError::Yaml(error.to_string()))
}
