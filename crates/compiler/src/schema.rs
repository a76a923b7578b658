//! The native format as serde types, for its published JSON Schema (`switchyard schema`).
//! The compiler reads sources through the located tree (see `native`), not through these types;
//! a test keeps the two in step and validates every built-in and documented example.
//! Output checks are the IR's own `OutputCheck` (the reader deserializes them as such), whose
//! schema core derives behind its `schemars` feature.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use switchyard_core::workflow::OutputCheck;

/// A switchyard workflow in the native format (YAML or JSON).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "switchyard workflow")]
pub struct NativeWorkflow {
    /// Optional URL of this schema, for editors.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Stable name of the workflow: 1-64 characters of `a-z 0-9 . _ -`, starting with a letter or digit.
    pub id: String,
    /// Version of the workflow, free text. Default `1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Human title. Default: the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the workflow is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Labels for finding the workflow (`list_workflows` filters on them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// Declared context variables, by name. Conditions and prompts may name only these and the
    /// reserved names (`goal`, `context`, `artifacts`, `rejection`, `cycle`, `attempt`, `step`).
    // Kept in declaration order: the order is part of the workflow hash, so the exporter must
    // write them as they were declared. (A comment, not a doc line: doc lines are the schema's.)
    #[serde(default, skip_serializing_if = "Option::is_none", with = "declaration_order")]
    #[schemars(with = "Option<BTreeMap<String, VariableDeclaration>>")]
    pub variables: Option<Vec<(String, VariableDeclaration)>>,
    /// Workflow-wide limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<NativeLimits>,
    /// Id of the step a run starts at. Default: the first step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start: Option<String>,
    /// Every status report and audit report of the workflow is checked strictly: the extended fields (`skills_used`, `skills_missing`, `model_override_reason`) are required, not warned about. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict_status: Option<bool>,
    /// The steps, in order.
    #[schemars(length(min = 1))]
    pub steps: Vec<NativeStep>,
}

/// A variable declaration: a type name alone, or a full declaration.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum VariableDeclaration {
    /// Shorthand: only the type.
    Type(NativeValueType),
    Full(NativeVariable),
}

/// A declared context variable.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NativeVariable {
    /// The value's type. Default `any`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub value_type: Option<NativeValueType>,
    /// The value a run starts with; must match `type`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Value>,
    /// What a recap may drop first when it must fit a budget. Default `important`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<NativeLayer>,
    /// What the variable holds, shown to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The type of a context variable.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NativeValueType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
    Any,
}

/// Context layer: critical is never dropped, ephemeral goes first.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NativeLayer {
    Critical,
    Important,
    Useful,
    Ephemeral,
}

/// Workflow-wide limits; each defaults to the engine's default.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NativeLimits {
    /// How many `kind: loop` edges a branch may take before the run fails with `MAX_CYCLES_EXCEEDED`. Default 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_cycles: Option<u32>,
    /// How many gate rejections a step may take before a human must decide. Default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_revision_attempts: Option<u32>,
    /// How many `kind: replan` edges a branch may take before a human must decide. Default 2.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_replan_attempts: Option<u32>,
}

/// One step: a unit of work handed to the agent.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NativeStep {
    /// Unique step id: `[A-Za-z0-9][A-Za-z0-9_.-]*`.
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"))]
    pub id: String,
    /// Human title. Default: the id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the agent must do: a minijinja template over `goal`, `context`, `rejection`, `cycle`, `attempt`, `step` and the declared variables.
    pub prompt: String,
    /// The role the agent plays (planner, implementer, reviewer, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The model the step is meant for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether notes are required when advancing. Default `required`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<NativeNotes>,
    /// Output contract: a JSON Schema (draft 2020-12) the step's artifacts object must satisfy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<serde_json::Value>,
    /// A human must approve the step's result before the run moves on. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<bool>,
    /// The agent should start this step in a fresh conversation. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_reset: Option<bool>,
    /// Name of the phase the step belongs to; the engine checkpoints when a phase ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Failed attempts (blocked advances) allowed before the block is terminal. Default 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_attempts: Option<u32>,
    /// Asserts the step is an end step (it must have no `next`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<bool>,
    /// Where the run goes next: a step id (one default edge) or a list of edges. No `next`: the step ends the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<NativeNext>,
    /// Run condition (CEL): when it is false as the run arrives, the step is skipped and the run moves on along its edges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// Conditional gate (CEL): the step waits for a human only when this holds at advance time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_when: Option<String>,
    /// Checks on the notes (the step's written output) or, with `kind: condition`, on the artifacts and context; a failing check blocks the advance with `OUTPUT_CHECK`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<OutputCheck>>,
    /// The step's artifacts are a status report: `status` (`pass` or `blocked`) and a non-empty `summary` are required; `skills_used`, `skills_missing` and `model_override_reason` are warned about when missing (`true`) or required (`strict`). Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_report: Option<NativeStatusReport>,
    /// The step is an audit: its artifacts are the audit-extended status report (with `confidence` 0.0-1.0 and `validated`, optionally `findings`); a blocked finding blocks the advance only when validated and at least as confident as `[audit] audit_min_confidence`, and is otherwise recorded as a downgraded warning. Default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<bool>,
}

/// `status_report`: `true`, `false` or `strict`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum NativeStatusReport {
    /// `true`: checked graduated (missing extended fields are warnings); `false`: no status report.
    Enabled(bool),
    /// `strict`: every field is required.
    Mode(NativeStrict),
}

/// The word `strict`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NativeStrict {
    Strict,
}

/// Notes policy of a step.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NativeNotes {
    Required,
    Optional,
}

/// `next`: a single step id, or a list of edges.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum NativeNext {
    /// One default edge to this step.
    Step(String),
    /// Edges in evaluation order.
    Edges(Vec<NativeEdgeItem>),
}

/// An item of a `next` list: a step id (an edge chosen by its label) or a full edge.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum NativeEdgeItem {
    /// An edge to this step, labelled with its id.
    Step(String),
    Edge(NativeEdge),
}

/// An outgoing edge. Exactly one of `to` and `end: true`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NativeEdge {
    /// The step the edge leads to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    /// Taking the edge completes the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<bool>,
    /// What the agent passes as `choice` to take the edge; unique per step. Default: the target id, or `complete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Taken when no condition matches and the agent made no choice. At most one per step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// A CEL condition over `context`, `artifacts`, `goal`, `cycle`, `attempt` and the declared variables.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    /// The condition in words, shown to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when_text: Option<String>,
    /// How often the edge may be taken in one branch of a run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub max_traversals: Option<u32>,
    /// How taking the edge is counted: `normal`, `loop` (against `max_cycles`) or `replan` (against `max_replan_attempts`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<NativeEdgeKind>,
    /// Context assignments made when the edge is taken: variable name to CEL expression, all evaluated over the scope the edge was chosen in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub set: Option<BTreeMap<String, String>>,
}

/// Edge kind.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NativeEdgeKind {
    Normal,
    Loop,
    Replan,
}

/// The JSON Schema (draft 2020-12) of the native workflow format.
pub fn native_schema() -> serde_json::Value {
    schemars::schema_for!(NativeWorkflow).to_value()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::native_schema;
    use crate::native;

    fn properties(schema: &serde_json::Value, definition: Option<&str>) -> BTreeSet<String> {
        let object = match definition {
            None => schema,
            Some(name) => &schema["$defs"][name],
        };
        object["properties"].as_object().unwrap().keys().cloned().collect()
    }

    fn set(fields: &[&str]) -> BTreeSet<String> {
        fields.iter().map(|field| (*field).to_owned()).collect()
    }

    #[test]
    fn schema_and_reader_know_the_same_fields() {
        let schema = native_schema();
        assert_eq!(properties(&schema, None), set(native::WORKFLOW_FIELDS));
        assert_eq!(properties(&schema, Some("NativeStep")), set(native::STEP_FIELDS));
        assert_eq!(properties(&schema, Some("NativeEdge")), set(native::EDGE_FIELDS));
        assert_eq!(properties(&schema, Some("NativeVariable")), set(native::VARIABLE_FIELDS));
        assert_eq!(properties(&schema, Some("NativeLimits")), set(native::LIMITS_FIELDS));
    }
}

/// Variables as a YAML or JSON mapping whose entries keep their order (a `BTreeMap` would sort
/// them, and a sorted export would hash differently from its source).
mod declaration_order {
    use std::fmt;

    use serde::de::{MapAccess, Visitor};
    use serde::ser::SerializeMap;
    use serde::{Deserializer, Serializer};

    use super::VariableDeclaration;

    type Declared = Vec<(String, VariableDeclaration)>;

    pub(super) fn serialize<S: Serializer>(variables: &Option<Declared>, serializer: S) -> Result<S::Ok, S::Error> {
        let variables = variables.as_deref().unwrap_or_default();
        let mut map = serializer.serialize_map(Some(variables.len()))?;
        for (name, declaration) in variables {
            map.serialize_entry(name, declaration)?;
        }
        map.end()
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Declared>, D::Error> {
        struct InOrder;
        impl<'de> Visitor<'de> for InOrder {
            type Value = Declared;
            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a mapping of variable name to declaration")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Declared, A::Error> {
                let mut declared = Declared::new();
                while let Some(entry) = map.next_entry()? {
                    declared.push(entry);
                }
                Ok(declared)
            }
        }
        deserializer.deserialize_map(InOrder).map(Some)
    }
}
