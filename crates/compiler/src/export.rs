//! IR to native YAML: what `switchyard import` writes. Every IR field is written explicitly,
//! so compiling the output gives the same IR, and so the same workflow hash. `export/diagram.rs`
//! writes the same IR as Mermaid and Graphviz DOT, for people who read workflows as pictures.

mod diagram;

use switchyard_core::workflow::{EdgeKind, EdgeTarget, Layer, NotesPolicy, StatusReportMode, ValueType, Workflow};

pub use self::diagram::{to_dot, to_mermaid};
use crate::schema::{
    NativeEdge, NativeEdgeItem, NativeEdgeKind, NativeLayer, NativeLimits, NativeNext, NativeNotes, NativeStatusReport,
    NativeStep, NativeStrict, NativeValueType, NativeVariable, NativeWorkflow, VariableDeclaration,
};

/// Why a workflow could not be written in the native format.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ExportError {
    #[error("the workflow cannot be written as YAML: {0}")]
    Yaml(String),
}

/// The workflow as a native document.
pub fn to_native(workflow: &Workflow) -> NativeWorkflow {
    let mut steps = Vec::with_capacity(workflow.steps.len());
    for step in &workflow.steps {
        let rules = workflow.rules(&step.id);
        let edges = step
            .edges
            .iter()
            .map(|edge| {
                let (to, end) = match &edge.target {
                    EdgeTarget::Step(target) => (Some(target.to_string()), None),
                    EdgeTarget::Complete => (None, Some(true)),
                };
                let set = rules.assign.get(&edge.label).cloned().filter(|set| !set.is_empty());
                NativeEdgeItem::Edge(NativeEdge {
                    to,
                    end,
                    label: Some(edge.label.clone()),
                    default: edge.default.then_some(true),
                    when: edge.condition.clone(),
                    when_text: edge.condition_text.clone(),
                    max_traversals: edge.max_traversals,
                    kind: match edge.kind {
                        EdgeKind::Normal => None,
                        EdgeKind::Loop => Some(NativeEdgeKind::Loop),
                        EdgeKind::Replan => Some(NativeEdgeKind::Replan),
                    },
                    set,
                })
            })
            .collect::<Vec<_>>();
        steps.push(NativeStep {
            id: step.id.to_string(),
            title: Some(step.title.clone()),
            prompt: step.prompt.clone(),
            role: step.role.clone(),
            model: step.model.clone(),
            notes: Some(match step.notes {
                NotesPolicy::Required => NativeNotes::Required,
                NotesPolicy::Optional => NativeNotes::Optional,
            }),
            output: step.output_schema.clone(),
            gate: step.gate.then_some(true),
            context_reset: step.context_reset.then_some(true),
            phase: step.phase.clone(),
            max_attempts: Some(step.max_attempts),
            end: None,
            next: (!edges.is_empty()).then_some(NativeNext::Edges(edges)),
            when: rules.run_when.clone(),
            gate_when: rules.gate_when.clone(),
            checks: (!rules.checks.is_empty()).then(|| rules.checks.clone()),
            status_report: rules.status_report.map(|mode| match mode {
                StatusReportMode::Graduated => NativeStatusReport::Enabled(true),
                StatusReportMode::Strict => NativeStatusReport::Mode(NativeStrict::Strict),
            }),
            audit: rules.audit.then_some(true),
        });
    }
    // In declaration order, which the workflow hash keeps.
    let variables: Vec<(String, VariableDeclaration)> = workflow
        .variables
        .iter()
        .map(|variable| {
            let declaration = NativeVariable {
                value_type: Some(value_type(variable.value_type)),
                default: variable.default.clone(),
                layer: Some(layer(variable.layer)),
                description: variable.description.clone(),
            };
            (variable.name.clone(), VariableDeclaration::Full(declaration))
        })
        .collect();
    let first = workflow.steps.first().map(|step| &step.id);
    NativeWorkflow {
        schema: None,
        id: workflow.id.clone(),
        version: Some(workflow.version.clone()),
        title: Some(workflow.title.clone()),
        description: (!workflow.description.is_empty()).then(|| workflow.description.clone()),
        tags: (!workflow.tags.is_empty()).then(|| workflow.tags.clone()),
        variables: (!variables.is_empty()).then_some(variables),
        limits: Some(NativeLimits {
            max_cycles: Some(workflow.limits.max_cycles),
            max_revision_attempts: Some(workflow.limits.max_revision_attempts),
            max_replan_attempts: Some(workflow.limits.max_replan_attempts),
        }),
        start: (first != Some(&workflow.entry)).then(|| workflow.entry.to_string()),
        strict_status: None,
        steps,
    }
}

/// The workflow as native YAML text.
pub fn to_native_yaml(workflow: &Workflow) -> Result<String, ExportError> {
    let document = to_native(workflow);
    serde_saphyr::to_string(&document).map_err(|error| ExportError::Yaml(error.to_string()))
}

fn value_type(value_type: ValueType) -> NativeValueType {
    match value_type {
        ValueType::String => NativeValueType::String,
        ValueType::Integer => NativeValueType::Integer,
        ValueType::Number => NativeValueType::Number,
        ValueType::Boolean => NativeValueType::Boolean,
        ValueType::Array => NativeValueType::Array,
        ValueType::Object => NativeValueType::Object,
        ValueType::Any => NativeValueType::Any,
    }
}

fn layer(layer: Layer) -> NativeLayer {
    match layer {
        Layer::Critical => NativeLayer::Critical,
        Layer::Important => NativeLayer::Important,
        Layer::Useful => NativeLayer::Useful,
        Layer::Ephemeral => NativeLayer::Ephemeral,
    }
}
