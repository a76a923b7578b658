//! The workflow IR: the one graph every source format compiles into and the engine runs.
//!
//! The IR is plain data. It is serialised canonically to compute the [`WorkflowHash`] and is
//! stored verbatim when a run pins it, so changing these types changes stored data: add fields
//! with `#[serde(default)]` and bump [`IR_VERSION`] when meaning changes.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::evidence::{CommandCheck, EvidenceCheck};
use crate::hash;

/// Version of the IR encoding; part of the hashed bytes.
pub const IR_VERSION: u32 = 1;

/// A compiled workflow.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Workflow {
    pub ir_version: u32,
    /// Stable name, `[a-z0-9][a-z0-9._-]*`, at most 64 characters. See [`validate_workflow_id`].
    pub id: String,
    pub version: String,
    pub title: String,
    pub description: String,
    /// Free-form labels for finding workflows (`list_workflows` filters on them), sorted, unique.
    #[serde(default)]
    pub tags: Vec<String>,
    /// The step a run starts at.
    pub entry: StepId,
    /// Steps in authored order. Ids are unique.
    pub steps: Vec<Step>,
    /// Declared context variables, in authored order.
    pub variables: Vec<Variable>,
    pub limits: Limits,
    /// Per-step rules beyond the plain step: run conditions, conditional gates, output checks
    /// and edge assignments, keyed by step id. Kept beside [`Step`] rather than inside it so the
    /// shape of `Step` and `Edge` (built literally by stores' test fixtures) stays unchanged;
    /// absent from the encoding when empty, so workflows that use none of them hash as before.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<StepId, StepRules>,
}

/// What a step may add to the plain [`Step`]. Every field is optional; an all-default value is
/// never stored (the compiler drops it).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct StepRules {
    /// A CEL condition over the run context. When it is false as the run arrives at the step,
    /// the step is skipped: it is not handed out, and the run moves on along its edges as if
    /// the agent had advanced it with no input. Skipped steps are listed in
    /// `Counters::skipped` of the node the run lands on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_when: Option<String>,
    /// A CEL condition: the step is a gate only when this holds at advance time (over the
    /// context after the advance's delta). Ignored when `Step::gate` is already true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gate_when: Option<String>,
    /// Checks on the advance: its notes (the step's written output) or, with
    /// [`OutputCheck::Condition`], anything a condition can read (artifacts, context). A failing
    /// check blocks the advance with an `OUTPUT_CHECK` issue.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checks: Vec<OutputCheck>,
    /// Context assignments made when an edge is taken, keyed by edge label then variable name;
    /// each value is a CEL expression evaluated over the scope the edge was chosen in (context
    /// after the delta, the advance's artifacts). Assignments of one edge see the same scope,
    /// not each other's results.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub assign: BTreeMap<String, BTreeMap<String, String>>,
    /// The step's artifacts are a status report (`status`, `summary` and the extended fields),
    /// checked on every advance; see `switchyard_engine::status_report`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_report: Option<StatusReportMode>,
    /// The step is an audit: its artifacts are the audit-extended status report (with
    /// `confidence` and `validated`, optionally `findings`), and a blocked finding blocks the
    /// advance only when it is validated and at least as confident as the run's threshold.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub audit: bool,
    /// Checks switchyard runs itself when the agent reports the step done (see
    /// [`crate::evidence`]), in the order written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<EvidenceCheck>,
    /// The step is a command switchyard runs itself when the run arrives there, never handed to
    /// an agent: its exit code, output and duration are the step's report, and `exit_code` is in
    /// scope for the conditions of its edges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<CommandCheck>,
}

/// How strictly a step's status report is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StatusReportMode {
    /// The core fields are required; a missing extended field is a warning.
    Graduated,
    /// Every field is required.
    Strict,
}

impl StepRules {
    pub fn is_empty(&self) -> bool {
        self == &Self::default()
    }
}

// The doc comments below are also the descriptions of the native format's published JSON Schema
// (`switchyard schema`, derived with the `schemars` feature), so they speak to workflow authors.
// There the type keeps the name `NativeCheck` and refuses unknown fields, like the rest of the
// native format; serde itself stays lenient, as the compiler and stored workflows read it.
/// A check on an advance: on its written output (the notes), or with `condition` on anything a condition reads. Each may carry `when` (CEL): it applies only when that holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema), schemars(rename = "NativeCheck", deny_unknown_fields))]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum OutputCheck {
    /// The output contains `value` (case-sensitive).
    Contains {
        value: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    /// The output matches `pattern` (Rust regex syntax); `flags` may hold `i`, `m`, `s`.
    Regex {
        pattern: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        flags: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    /// The output's length in characters is within `min` and `max`.
    Length {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    /// The output is JSON satisfying `schema`.
    Schema {
        schema: serde_json::Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    /// The CEL `condition` holds over the advance (context after the delta, `artifacts`, `goal`, counters); it checks artifacts and context rather than the notes.
    Condition {
        condition: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    /// Every check holds.
    All {
        checks: Vec<OutputCheck>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    /// At least one check holds.
    Any {
        checks: Vec<OutputCheck>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    /// The check does not hold.
    Not {
        check: Box<OutputCheck>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
}

impl OutputCheck {
    /// The condition under which the check applies, if any.
    pub fn when(&self) -> Option<&str> {
        match self {
            Self::Contains { when, .. }
            | Self::Regex { when, .. }
            | Self::Length { when, .. }
            | Self::Schema { when, .. }
            | Self::Condition { when, .. }
            | Self::All { when, .. }
            | Self::Any { when, .. }
            | Self::Not { when, .. } => when.as_deref(),
        }
    }
}

impl Workflow {
    pub fn step(&self, id: &StepId) -> Option<&Step> {
        self.steps.iter().find(|step| &step.id == id)
    }

    /// The rules of a step; the empty rules when it has none.
    pub fn rules(&self, id: &StepId) -> &StepRules {
        static EMPTY: std::sync::LazyLock<StepRules> = std::sync::LazyLock::new(StepRules::default);
        self.rules.get(id).unwrap_or(&EMPTY)
    }

    /// The command of a step switchyard runs itself, if the step is one.
    pub fn run_of(&self, id: &StepId) -> Option<&CommandCheck> {
        self.rules(id).run.as_ref()
    }

    /// The project commands the workflow's steps run (`run: {project: test_command}`).
    pub fn project_commands(&self) -> std::collections::BTreeSet<crate::evidence::ProjectCommand> {
        self.rules.values().filter_map(|rules| rules.run.as_ref()?.project_command()).collect()
    }

    /// Whether a step's evidence compares with the workspace as it was when the step was handed
    /// out, so the node that hands it out must hold a [`crate::evidence::Snapshot`].
    pub fn needs_snapshot(&self, id: &StepId) -> bool {
        self.rules(id).evidence.iter().any(EvidenceCheck::needs_snapshot)
    }

    pub fn variable(&self, name: &str) -> Option<&Variable> {
        self.variables.iter().find(|variable| variable.name == name)
    }

    /// The workflow hash: SHA-256 over the canonical JSON encoding of the IR.
    pub fn hash(&self) -> WorkflowHash {
        WorkflowHash(hash::sha256(&hash::canonical_json(self)))
    }
}

/// A step id, unique within its workflow: `[A-Za-z0-9][A-Za-z0-9_.-]*`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct StepId(pub String);

impl StepId {
    pub fn new(id: impl Into<String>) -> Self {
        Self(id.into())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StepId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// One step: a unit of work handed to the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Step {
    pub id: StepId,
    pub title: String,
    /// A minijinja template rendered with the run context (see `docs/workflow-format.md`).
    pub prompt: String,
    pub role: Option<String>,
    pub model: Option<String>,
    pub notes: NotesPolicy,
    /// JSON Schema (draft 2020-12) the step's artifacts must satisfy, if any.
    pub output_schema: Option<serde_json::Value>,
    /// A human must approve the step's result before the run moves on.
    pub gate: bool,
    /// The agent should start this step in a fresh conversation.
    pub context_reset: bool,
    pub phase: Option<String>,
    /// How many failed attempts (blocked advances) the step allows before the block is terminal.
    pub max_attempts: u32,
    /// Outgoing edges in evaluation order. A step with no edges is an end step: advancing it
    /// completes the run.
    pub edges: Vec<Edge>,
}

impl Step {
    pub fn is_end(&self) -> bool {
        self.edges.is_empty()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotesPolicy {
    Required,
    Optional,
}

/// Where an edge leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeTarget {
    Step(StepId),
    /// Taking the edge completes the run.
    Complete,
}

/// How taking an edge is counted against the workflow's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// Counted only by the edge's own `max_traversals`, if set.
    #[default]
    Normal,
    /// Starts another cycle of the workflow; bounded by `Limits::max_cycles` and fails the run
    /// with `MAX_CYCLES_EXCEEDED` past it.
    Loop,
    /// Sends the run back to replan; bounded by `Limits::max_replan_attempts`, past which the
    /// run waits for a human decision.
    Replan,
}

/// An outgoing edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Edge {
    pub target: EdgeTarget,
    /// What the agent passes as `choice` to take this edge. Unique among a step's edges.
    pub label: String,
    /// Taken when no conditional edge matches and the agent made no choice.
    pub default: bool,
    /// A CEL expression over the run context; the edge is taken when it is true.
    pub condition: Option<String>,
    /// The condition in words, shown to the agent.
    pub condition_text: Option<String>,
    /// How often the edge may be taken in one branch of a run.
    pub max_traversals: Option<u32>,
    pub kind: EdgeKind,
}

/// A declared context variable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Variable {
    pub name: String,
    pub value_type: ValueType,
    pub default: Option<serde_json::Value>,
    pub layer: Layer,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueType {
    String,
    Integer,
    Number,
    Boolean,
    Array,
    Object,
    Any,
}

impl ValueType {
    pub fn admits(self, value: &serde_json::Value) -> bool {
        use serde_json::Value;
        match (self, value) {
            (Self::Any, _) | (_, Value::Null) => true,
            (Self::String, Value::String(_)) | (Self::Boolean, Value::Bool(_)) => true,
            (Self::Array, Value::Array(_)) | (Self::Object, Value::Object(_)) => true,
            (Self::Number, Value::Number(_)) => true,
            (Self::Integer, Value::Number(number)) => number.is_i64() || number.is_u64(),
            _ => false,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Array => "array",
            Self::Object => "object",
            Self::Any => "any",
        }
    }
}

/// Context layer: what a recap may drop first when it must fit a budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    Critical,
    #[default]
    Important,
    Useful,
    Ephemeral,
}

/// Workflow-wide limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct Limits {
    pub max_cycles: u32,
    pub max_revision_attempts: u32,
    pub max_replan_attempts: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self { max_cycles: 10, max_revision_attempts: 3, max_replan_attempts: 2 }
    }
}

/// Default attempt limit of a step when the source does not set one.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;

/// SHA-256 of the canonical IR encoding. Printed as `sha256:<64 hex>`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkflowHash(pub [u8; 32]);

impl fmt::Display for WorkflowHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha256:{}", data_encoding::HEXLOWER.encode(&self.0))
    }
}

impl fmt::Debug for WorkflowHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for WorkflowHash {
    type Err = String;

    fn from_str(input: &str) -> Result<Self, String> {
        let hex = input
            .strip_prefix("sha256:")
            .ok_or_else(|| format!("`{input}` is not a workflow hash: expected `sha256:` and 64 hex digits"))?;
        let bytes = data_encoding::HEXLOWER
            .decode(hex.as_bytes())
            .ok()
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .ok_or_else(|| {
                format!("`{input}` is not a workflow hash: expected `sha256:` and 64 lowercase hex digits")
            })?;
        Ok(Self(bytes))
    }
}

impl Serialize for WorkflowHash {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for WorkflowHash {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Checks a workflow id (also used as a file name during discovery, so it must not reach
/// outside a folder): 1 to 64 characters of `a-z 0-9 . _ -`, starting with a letter or digit.
pub fn validate_workflow_id(id: &str) -> Result<(), String> {
    let valid_start = id.bytes().next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let valid_rest =
        id.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'));
    if id.is_empty() || id.len() > 64 || !valid_start || !valid_rest || id.contains("..") {
        return Err(format!(
            "`{}` is not a valid workflow id: use 1-64 characters of a-z, 0-9, `.`, `_`, `-`, starting with a letter or digit (no `..`)",
            id.escape_debug()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_ids_cannot_reach_outside_a_folder() {
        for bad in ["", "../x", "a/b", "a\\b", "..", ".hidden", "a..b", "A", "x\0y", &"a".repeat(65)] {
            assert!(validate_workflow_id(bad).is_err(), "{bad:?} accepted");
        }
        for good in ["dev-cycle", "bug.investigation", "a", "x_1"] {
            assert!(validate_workflow_id(good).is_ok(), "{good:?} rejected");
        }
    }

    #[test]
    fn value_types_admit_what_they_name() {
        use serde_json::json;
        assert!(ValueType::Integer.admits(&json!(3)));
        assert!(!ValueType::Integer.admits(&json!(3.5)));
        assert!(ValueType::Number.admits(&json!(3.5)));
        assert!(!ValueType::String.admits(&json!(1)));
        assert!(ValueType::String.admits(&json!(null)));
    }

    #[test]
    fn workflow_hash_round_trips() {
        let hash = WorkflowHash([0xab; 32]);
        assert_eq!(hash.to_string().parse::<WorkflowHash>().unwrap(), hash);
        assert!("sha256:zz".parse::<WorkflowHash>().is_err());
    }
}
