//! The native format, defined once: these types are what the compiler reads (through `located`),
//! what `switchyard import` writes, and, through `schemars`, the JSON Schema that `switchyard
//! schema` prints. Doc lines are the schema's descriptions; comments are not.
//!
//! A field holds what was written, not yet what it means: where the compiler needs a place it is
//! [`Located`]; a value of the wrong shape reads as absent (`lenient`, [`Items`]) or as
//! [`Required::Wrong`], reported where it is written. `native` turns a document into a draft and
//! says what the types cannot (a missing prompt, an edge without a target). Output checks are the
//! IR's own `OutputCheck`, whose schema core derives behind its `schemars` feature.

use std::collections::BTreeMap;
use std::fmt;

use schemars::{JsonSchema, Schema};
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use switchyard_core::evidence::{CommandLine, EvidenceCheck};
use switchyard_core::workflow::{EdgeKind, Layer, NotesPolicy, OutputCheck, StatusReportMode, ValueType};

use crate::diagnostic::Loc;
use crate::located::{
    Count, FromWritten, Items, JsonValue, Located, Maybe, Required, Scalar, Written, from_written, lenient, require,
};
use crate::tree::Kind;

/// A switchyard workflow in the native format (YAML or JSON).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "switchyard workflow", transform = workflow_requires)]
pub(crate) struct NativeWorkflow {
    /// Optional URL of this schema, for editors.
    #[serde(rename = "$schema", default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub schema: Option<Located<Scalar>>,
    /// Stable name of the workflow: 1-64 characters of `a-z 0-9 . _ -`, starting with a letter or digit.
    #[serde(default, skip_serializing_if = "Required::is_missing")]
    pub id: Required<Located<String>>,
    /// Version of the workflow, free text. Default `1`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Human title. Default: the id.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the workflow is for.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Labels for finding the workflow (`list_workflows` filters on them).
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<String>>")]
    pub tags: Option<Vec<Located<Scalar>>>,
    /// Declared context variables, by name. Conditions and prompts may name only these and the
    /// reserved names (`goal`, `context`, `artifacts`, `rejection`, `cycle`, `attempt`, `step`).
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, VariableDeclaration>>")]
    pub variables: Option<Located<Variables>>,
    /// Workflow-wide limits.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub limits: Option<NativeLimits>,
    /// Id of the step a run starts at. Default: the first step.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub start: Option<Located<String>>,
    /// Every status report and audit report of the workflow is checked strictly: the extended fields (`skills_used`, `skills_missing`, `model_override_reason`) are required, not warned about. Default false.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub strict_status: Option<bool>,
    /// The steps, in order.
    #[serde(default, skip_serializing_if = "Required::is_missing")]
    #[schemars(length(min = 1))]
    pub steps: Required<Items<Located<NativeStep>>>,
}

/// `id` and `steps` are [`Required`]: the reader goes on without them.
fn workflow_requires(schema: &mut Schema) {
    require(schema, &["id", "steps"]);
}

/// `variables` as written: each name with its declaration, in the order written (the order is
/// part of the workflow hash, so the exporter writes them as they were declared), or the kind of
/// what was written instead of a mapping.
#[derive(Debug, Clone)]
pub(crate) enum Variables {
    Declared(Vec<VariableEntry>),
    NotMapping(Kind),
}

/// One entry of `variables`. A name that is no scalar, or that names a variable declared before,
/// leaves its declaration unread.
#[derive(Debug, Clone)]
pub(crate) enum VariableEntry {
    Declared {
        name: Located<String>,
        declaration: VariableDeclaration,
    },
    /// The declaration was of the wrong shape, and reported.
    Unread,
    NameNotScalar {
        at: Loc,
    },
    Repeated {
        name: Located<String>,
        first: Loc,
    },
}

impl<'de> FromWritten<'de> for Variables {
    fn from_written<A: MapAccess<'de>>(written: Written<A>) -> Result<Self, A::Error> {
        match written.kind {
            Kind::Mapping => written.read().map(|DeclaredVariables(entries)| Self::Declared(entries)),
            kind => Ok(Self::NotMapping(kind)),
        }
    }
}

impl<'de> Deserialize<'de> for Variables {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        from_written(deserializer, "a mapping of name to declaration")
    }
}

/// The entries of a `variables` mapping.
struct DeclaredVariables(Vec<VariableEntry>);

impl<'de> Deserialize<'de> for DeclaredVariables {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;

        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = DeclaredVariables;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of name to declaration")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DeclaredVariables, A::Error> {
                let mut entries = Vec::new();
                let mut declared: Vec<Located<String>> = Vec::new();
                while let Some(key) = map.next_key::<Located<Scalar>>()? {
                    let Some(name) = key.value.text() else {
                        map.next_value::<IgnoredAny>()?;
                        entries.push(VariableEntry::NameNotScalar { at: key.at });
                        continue;
                    };
                    let name = Located::new(name.to_owned(), key.at);
                    if let Some(first) = declared.iter().find(|first| first.value == name.value) {
                        map.next_value::<IgnoredAny>()?;
                        entries.push(VariableEntry::Repeated { name, first: first.at });
                        continue;
                    }
                    match map.next_value::<Maybe<VariableDeclaration>>()?.0 {
                        Some(declaration) => {
                            declared.push(name.clone());
                            entries.push(VariableEntry::Declared { name, declaration });
                        }
                        None => entries.push(VariableEntry::Unread),
                    }
                }
                Ok(DeclaredVariables(entries))
            }
        }

        deserializer.deserialize_map(EntriesVisitor)
    }
}

impl Serialize for Variables {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let entries = match self {
            Self::Declared(entries) => entries.as_slice(),
            Self::NotMapping(_) => &[],
        };
        let mut map = serializer.serialize_map(None)?;
        for entry in entries {
            if let VariableEntry::Declared { name, declaration } = entry {
                map.serialize_entry(&name.value, declaration)?;
            }
        }
        map.end()
    }
}

/// A variable declaration: a type name alone, or a full declaration.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum VariableDeclaration {
    /// Shorthand: only the type.
    // Read as the word written, so an unknown word gets its own message.
    Type(#[schemars(with = "NativeValueType")] Located<String>),
    Full(NativeVariable),
}

impl<'de> FromWritten<'de> for VariableDeclaration {
    fn from_written<A: MapAccess<'de>>(written: Written<A>) -> Result<Self, A::Error> {
        let at = written.at;
        match written.kind {
            Kind::String => Ok(Self::Type(Located::new(written.read()?, at))),
            _ => written.read().map(Self::Full),
        }
    }
}

impl<'de> Deserialize<'de> for VariableDeclaration {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        from_written(deserializer, "a type name or a declaration")
    }
}

/// A declared context variable.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NativeVariable {
    /// The value's type. Default `any`.
    #[serde(rename = "type", default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub value_type: Option<NativeValueType>,
    /// The value a run starts with; must match `type`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub default: Option<Located<JsonValue>>,
    /// What a recap may drop first when it must fit a budget. Default `important`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub layer: Option<NativeLayer>,
    /// What the variable holds, shown to the agent.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The type of a context variable.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NativeValueType {
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
pub(crate) enum NativeLayer {
    Critical,
    Important,
    Useful,
    Ephemeral,
}

/// Workflow-wide limits; each defaults to the engine's default.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NativeLimits {
    /// How many `kind: loop` edges a branch may take before the run fails with `MAX_CYCLES_EXCEEDED`. Default 10.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub max_cycles: Option<Count<1>>,
    /// How many gate rejections a step may take before a human must decide. Default 3.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub max_revision_attempts: Option<Count<0>>,
    /// How many `kind: replan` edges a branch may take before a human must decide. Default 2.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub max_replan_attempts: Option<Count<0>>,
}

/// One step: a unit of work handed to the agent.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(transform = step_requires)]
pub(crate) struct NativeStep {
    /// Unique step id: `[A-Za-z0-9][A-Za-z0-9_.-]*`.
    // Without an id the step is left out (see `located`), so it is read strictly.
    #[schemars(regex(pattern = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"))]
    pub id: Located<String>,
    /// Human title. Default: the id.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the agent must do: a minijinja template over `goal`, `context`, `rejection`, `cycle`, `attempt`, `step` and the declared variables.
    #[serde(default, skip_serializing_if = "Required::is_missing")]
    pub prompt: Required<Located<String>>,
    /// The role the agent plays (planner, implementer, reviewer, ...).
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The model the step is meant for.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Whether notes are required when advancing. Default `required`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub notes: Option<NativeNotes>,
    /// Output contract: a JSON Schema (draft 2020-12) the step's artifacts object must satisfy.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub output: Option<Located<JsonValue>>,
    /// A human must approve the step's result before the run moves on. Default false.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub gate: Option<bool>,
    /// The agent should start this step in a fresh conversation. Default false.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub context_reset: Option<bool>,
    /// Name of the phase the step belongs to; the engine checkpoints when a phase ends.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Failed attempts (blocked advances) allowed before the block is terminal. Default 3.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub max_attempts: Option<Count<1>>,
    /// Asserts the step is an end step (it must have no `next`).
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub end: Option<Located<bool>>,
    /// Where the run goes next: a step id (one default edge) or a list of edges. No `next`: the step ends the run.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub next: Option<NativeNext>,
    /// Run condition (CEL): when it is false as the run arrives, the step is skipped and the run moves on along its edges.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub when: Option<Located<String>>,
    /// Conditional gate (CEL): the step waits for a human only when this holds at advance time.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub gate_when: Option<Located<String>>,
    /// Checks on the notes (the step's written output) or, with `kind: condition`, on the artifacts and context; a failing check blocks the advance with `OUTPUT_CHECK`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<OutputCheck>>")]
    pub checks: Option<Located<Listed<OutputCheck>>>,
    /// The step's artifacts are a status report: `status` (`pass` or `blocked`) and a non-empty `summary` are required; `skills_used`, `skills_missing` and `model_override_reason` are warned about when missing (`true`) or required (`strict`). Default false.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub status_report: Option<NativeStatusReport>,
    /// The step is an audit: its artifacts are the audit-extended status report (with `confidence` 0.0-1.0 and `validated`, optionally `findings`); a blocked finding blocks the advance only when validated and at least as confident as `[audit] audit_min_confidence`, and is otherwise recorded as a downgraded warning. Default false.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub audit: Option<bool>,
    /// Checks switchyard runs itself when the agent reports the step done: files that must exist, a change to the workspace, a command that must succeed, a test report it wrote, paths the agent lists. A failed check blocks the advance with `EVIDENCE` and costs an attempt.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<EvidenceCheck>>")]
    pub evidence: Option<Located<Listed<EvidenceCheck>>>,
    /// A command switchyard runs itself when the run arrives at the step, instead of handing the step to an agent: an argv (`[make, test]`), or one string with `shell: true`. Its exit code, output and duration are the step's report; `exit_code` is in scope for the conditions of the step's edges (null when the command was killed or could not run). A step with `run` needs no `prompt`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub run: Option<Located<CommandLine>>,
    /// `run` is a shell command line, run with `sh -c`. Default false.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub shell: Option<bool>,
    /// How long `run` may take (`90s`, `5m`); its process group is killed then. Default 10 minutes, bounded by `[evidence] max_timeout_seconds`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Located<String>>,
    /// The step the run goes to when `run` fails (exits with another code than 0, is killed, or cannot run): an edge tried before the others.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub on_failure: Option<Located<String>>,
}

/// A list of the IR's own items (`checks`, `evidence`) as read, or, in serde's words, why what
/// was written is no list of them (read as JSON first, so the reader can say so in its own
/// message).
#[derive(Debug, Clone)]
pub(crate) enum Listed<T> {
    Read(Vec<T>),
    NotRead(String),
}

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Listed<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let written = JsonValue::deserialize(deserializer)?;
        Ok(match serde_json::from_value(written.0) {
            Ok(items) => Self::Read(items),
            Err(error) => Self::NotRead(error.to_string()),
        })
    }
}

impl<T: Serialize> Serialize for Listed<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Read(items) => items.serialize(serializer),
            Self::NotRead(_) => serializer.serialize_none(),
        }
    }
}

/// `prompt` is [`Required`] (the reader goes on without it) unless the step has `run`.
fn step_requires(schema: &mut Schema) {
    let either = serde_json::json!([{"required": ["prompt"]}, {"required": ["run"]}]);
    schema.ensure_object().insert("anyOf".to_owned(), either);
}

/// `status_report`: `true`, `false` or `strict`.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum NativeStatusReport {
    /// `true`: checked graduated (missing extended fields are warnings); `false`: no status report.
    Enabled(bool),
    /// `strict`: every field is required.
    Mode(NativeStrict),
}

/// Read as one of three words, whether a boolean or a string spells it.
impl<'de> Deserialize<'de> for NativeStatusReport {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct WordVisitor;

        impl<'de> Visitor<'de> for WordVisitor {
            type Value = NativeStatusReport;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`true`, `false` or `strict`")
            }

            fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<NativeStatusReport, A::Error> {
                use serde::de::VariantAccess;
                let (word, variant) = data.variant::<String>()?;
                variant.unit_variant()?;
                Ok(match word.as_str() {
                    "strict" => NativeStatusReport::Mode(NativeStrict::Strict),
                    word => NativeStatusReport::Enabled(word == "true"),
                })
            }
        }

        deserializer.deserialize_enum("NativeStatusReport", &["true", "false", "strict"], WordVisitor)
    }
}

/// The word `strict`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NativeStrict {
    Strict,
}

/// Notes policy of a step.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NativeNotes {
    Required,
    Optional,
}

/// `next`: a single step id, or a list of edges.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum NativeNext {
    /// One default edge to this step.
    // Any scalar, as spelled: `next: 1.10` leads to step `1.10`.
    Step(#[schemars(with = "String")] Located<String>),
    /// Edges in evaluation order.
    Edges(Items<NativeEdgeItem>),
    /// Something else was written, which the reader reports.
    #[serde(skip)]
    #[schemars(skip)]
    Neither(Loc, Kind),
}

impl<'de> FromWritten<'de> for NativeNext {
    fn from_written<A: MapAccess<'de>>(written: Written<A>) -> Result<Self, A::Error> {
        let at = written.at;
        match written.kind {
            Kind::List => written.read().map(Self::Edges),
            kind if kind.is_scalar() => Ok(Self::Step(Located::new(written.read()?, at))),
            kind => Ok(Self::Neither(at, kind)),
        }
    }
}

impl<'de> Deserialize<'de> for NativeNext {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        from_written(deserializer, "a step id or a list of edges")
    }
}

/// An item of a `next` list: a step id (an edge chosen by its label) or a full edge.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(untagged)]
pub(crate) enum NativeEdgeItem {
    /// An edge to this step, labelled with its id.
    Step(#[schemars(with = "String")] Located<String>),
    Edge(Located<NativeEdge>),
}

/// Only a string is a step id here; anything else must be an edge's mapping.
impl<'de> FromWritten<'de> for NativeEdgeItem {
    fn from_written<A: MapAccess<'de>>(written: Written<A>) -> Result<Self, A::Error> {
        let at = written.at;
        match written.kind {
            Kind::String => Ok(Self::Step(Located::new(written.read()?, at))),
            _ => Ok(Self::Edge(Located::new(written.read()?, at))),
        }
    }
}

impl<'de> Deserialize<'de> for NativeEdgeItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        from_written(deserializer, "a step id or an edge")
    }
}

/// An outgoing edge. Exactly one of `to` and `end: true`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NativeEdge {
    /// The step the edge leads to.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub to: Option<Located<String>>,
    /// Taking the edge completes the run.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub end: Option<bool>,
    /// What the agent passes as `choice` to take the edge; unique per step. Default: the target id, or `complete`.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub label: Option<Located<String>>,
    /// Taken when no condition matches and the agent made no choice. At most one per step.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
    /// A CEL condition over `context`, `artifacts`, `goal`, `cycle`, `attempt` and the declared variables.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub when: Option<Located<String>>,
    /// The condition in words, shown to the agent.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub when_text: Option<String>,
    /// How often the edge may be taken in one branch of a run.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub max_traversals: Option<Count<1>>,
    /// How taking the edge is counted: `normal`, `loop` (against `max_cycles`) or `replan` (against `max_replan_attempts`).
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub kind: Option<NativeEdgeKind>,
    /// Context assignments made when the edge is taken: variable name to CEL expression, all evaluated over the scope the edge was chosen in.
    #[serde(default, deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<BTreeMap<String, String>>")]
    pub set: Option<Located<Assignments>>,
}

/// Edge kind.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(crate) enum NativeEdgeKind {
    Normal,
    Loop,
    Replan,
}

/// `set` as written: assignments in the order written, or the kind of what was written instead
/// of a mapping.
#[derive(Debug, Clone)]
pub(crate) enum Assignments {
    Written(Vec<Assignment>),
    NotMapping(Kind),
}

/// One entry of `set`: a name and a CEL expression, or an entry of another shape, located at its
/// value.
#[derive(Debug, Clone)]
pub(crate) enum Assignment {
    Set { name: Located<String>, expression: Located<String> },
    NotText { at: Loc },
}

impl<'de> FromWritten<'de> for Assignments {
    fn from_written<A: MapAccess<'de>>(written: Written<A>) -> Result<Self, A::Error> {
        match written.kind {
            Kind::Mapping => written.read().map(|WrittenAssignments(assignments)| Self::Written(assignments)),
            kind => Ok(Self::NotMapping(kind)),
        }
    }
}

impl<'de> Deserialize<'de> for Assignments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        from_written(deserializer, "a mapping of variable name to CEL expression")
    }
}

/// The entries of a `set` mapping.
struct WrittenAssignments(Vec<Assignment>);

impl<'de> Deserialize<'de> for WrittenAssignments {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;

        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = WrittenAssignments;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping of variable name to CEL expression")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<WrittenAssignments, A::Error> {
                let mut assignments = Vec::new();
                while let Some(name) = map.next_key::<Located<Scalar>>()? {
                    let expression = map.next_value::<Located<Scalar>>()?;
                    assignments.push(match (name.value.text(), expression.value.text()) {
                        (Some(name_text), Some(expression_text)) => Assignment::Set {
                            name: Located::new(name_text.to_owned(), name.at),
                            expression: Located::new(expression_text.to_owned(), expression.at),
                        },
                        _ => Assignment::NotText { at: expression.at },
                    });
                }
                Ok(WrittenAssignments(assignments))
            }
        }

        deserializer.deserialize_map(EntriesVisitor)
    }
}

impl Serialize for Assignments {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let assignments = match self {
            Self::Written(assignments) => assignments.as_slice(),
            Self::NotMapping(_) => &[],
        };
        let mut map = serializer.serialize_map(None)?;
        for assignment in assignments {
            if let Assignment::Set { name, expression } = assignment {
                map.serialize_entry(&name.value, &expression.value)?;
            }
        }
        map.end()
    }
}

/// Each word of the format names one value of the IR, and back.
macro_rules! same_words {
    ($native:ident <=> $ir:ident: $($variant:ident),+) => {
        impl From<$native> for $ir {
            fn from(word: $native) -> Self {
                match word {
                    $($native::$variant => $ir::$variant,)+
                }
            }
        }

        impl From<$ir> for $native {
            fn from(value: $ir) -> Self {
                match value {
                    $($ir::$variant => $native::$variant,)+
                }
            }
        }
    };
}

same_words!(NativeValueType <=> ValueType: String, Integer, Number, Boolean, Array, Object, Any);
same_words!(NativeLayer <=> Layer: Critical, Important, Useful, Ephemeral);
same_words!(NativeNotes <=> NotesPolicy: Required, Optional);
same_words!(NativeEdgeKind <=> EdgeKind: Normal, Loop, Replan);

/// `status_report: false` is no status report.
impl From<NativeStatusReport> for Option<StatusReportMode> {
    fn from(written: NativeStatusReport) -> Self {
        match written {
            NativeStatusReport::Enabled(true) => Some(StatusReportMode::Graduated),
            NativeStatusReport::Enabled(false) => None,
            NativeStatusReport::Mode(NativeStrict::Strict) => Some(StatusReportMode::Strict),
        }
    }
}

impl From<StatusReportMode> for NativeStatusReport {
    fn from(mode: StatusReportMode) -> Self {
        match mode {
            StatusReportMode::Graduated => Self::Enabled(true),
            StatusReportMode::Strict => Self::Mode(NativeStrict::Strict),
        }
    }
}

/// The JSON Schema (draft 2020-12) of the native workflow format.
pub fn native_schema() -> serde_json::Value {
    schemars::schema_for!(NativeWorkflow).to_value()
}
