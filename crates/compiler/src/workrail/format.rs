//! WorkRail's workflow, step, loop, criteria, prompt, assessment and condition fields as typed
//! values, read after the checks.
//!
//! Reading goes on after the checks report an error (so one pass finds every problem), hence
//! every field is lenient: a field of another shape reads as absent, since the checks have
//! already reported it. A field that only has to be present (an `audit`, a fragment's `when`)
//! reads as present whatever its shape, as WorkRail's engine treats it. Fields keep conditions
//! as JSON, since the steps the reader derives carry them on as written; `conditions` reads
//! them into `Condition` when it translates them.

use std::collections::BTreeMap;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer};
use serde_json::Value as Json;

/// The workflow-level fields the reader uses.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Workflow {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) name: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) description: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) version: Option<String>,
    #[serde(deserialize_with = "lenient_texts")]
    pub(super) meta_guidance: Vec<String>,
    #[serde(deserialize_with = "lenient_texts")]
    pub(super) preconditions: Vec<String>,
    #[serde(deserialize_with = "lenient_texts")]
    pub(super) clarification_prompts: Vec<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) references: Option<Vec<Reference>>,
    #[serde(deserialize_with = "lenient")]
    pub(super) function_definitions: Option<Vec<FunctionDefinition>>,
    #[serde(deserialize_with = "lenient")]
    pub(super) steps: Option<Vec<Json>>,
    #[serde(deserialize_with = "lenient_items")]
    pub(super) assessments: Vec<Assessment>,
    /// WorkRail-only fields switchyard leaves out, with a warning when they are set.
    #[serde(deserialize_with = "present")]
    pub(super) metrics_profile: Option<IgnoredAny>,
    #[serde(deserialize_with = "present")]
    pub(super) features: Option<IgnoredAny>,
    #[serde(deserialize_with = "present")]
    pub(super) extension_points: Option<IgnoredAny>,
    #[serde(deserialize_with = "present")]
    pub(super) recommended_preferences: Option<IgnoredAny>,
    #[serde(deserialize_with = "present")]
    pub(super) model_tier: Option<IgnoredAny>,
}

/// An assessment the workflow defines: dimensions the agent rates at declared levels.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Assessment {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<String>,
    #[serde(deserialize_with = "lenient_items")]
    pub(super) dimensions: Vec<Dimension>,
}

/// One dimension of an assessment; required unless `required: false`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Dimension {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) purpose: Option<String>,
    #[serde(deserialize_with = "lenient_texts")]
    pub(super) levels: Vec<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) required: Option<bool>,
}

/// What a step does when an assessment comes back at a level: asks for a follow-up.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Consequence {
    #[serde(deserialize_with = "lenient")]
    pub(super) when: Option<ConsequenceTrigger>,
    #[serde(deserialize_with = "lenient")]
    pub(super) effect: Option<ConsequenceEffect>,
}

/// The level that triggers a consequence, and the assessment it watches when not all.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct ConsequenceTrigger {
    #[serde(deserialize_with = "lenient")]
    pub(super) any_equals_level: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) for_assessment: Option<String>,
}

/// The follow-up a consequence asks for, in words.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ConsequenceEffect {
    #[serde(deserialize_with = "lenient")]
    pub(super) guidance: Option<String>,
}

/// A document the workflow points the agent to.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Reference {
    #[serde(deserialize_with = "lenient")]
    pub(super) title: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) source: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) purpose: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) authoritative: Option<bool>,
}

/// A function the prompts may call by name, defined in words.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct FunctionDefinition {
    #[serde(deserialize_with = "lenient")]
    pub(super) name: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) definition: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) parameters: Option<Vec<Parameter>>,
}

/// A function's parameter; only its name reaches the prompt.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Parameter {
    #[serde(deserialize_with = "lenient")]
    pub(super) name: Option<String>,
}

/// The fields of a standard step (a parallel step's too, once its delegations become its
/// prompt).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct StandardStep {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) title: Option<String>,
    #[serde(deserialize_with = "lenient_texts")]
    pub(super) guidance: Vec<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) ask_for_files: Option<bool>,
    #[serde(deserialize_with = "lenient")]
    pub(super) output_contract: Option<OutputContract>,
    #[serde(deserialize_with = "lenient")]
    pub(super) assessment_refs: Option<Vec<String>>,
    #[serde(deserialize_with = "lenient")]
    pub(super) agent_role: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) model_tier: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) notes_optional: Option<bool>,
    #[serde(deserialize_with = "lenient")]
    pub(super) function_definitions: Option<Vec<FunctionDefinition>>,
    #[serde(deserialize_with = "lenient_items")]
    pub(super) assessment_consequences: Vec<Consequence>,
    #[serde(deserialize_with = "lenient_items")]
    pub(super) prompt_fragments: Vec<PromptFragment>,
    #[serde(deserialize_with = "present")]
    pub(super) audit: Option<Audit>,
    #[serde(deserialize_with = "present")]
    pub(super) verification: Option<Verification>,
    #[serde(deserialize_with = "present")]
    pub(super) validation_criteria: Option<Criteria>,
    #[serde(deserialize_with = "present")]
    pub(super) run_condition: Option<Json>,
    #[serde(deserialize_with = "present")]
    pub(super) require_confirmation: Option<Confirmation>,
    /// A text, or another shape, which the reader reports when `promptBlocks` is set too.
    pub(super) prompt: Json,
    /// Read into `PromptBlocks` when an object, reported with `prompt` otherwise.
    pub(super) prompt_blocks: Json,
}

/// A WorkRail condition: a composition (`and` before `or` before `not`, as WorkRail tries
/// them), a test of one variable by its operators, or another shape (nothing, `{}`, or one the
/// translation reports as written). Fields keep conditions as JSON because the steps the reader
/// derives (audit, verification, a routine's steps) carry them on as written; `conditions` reads
/// them into this type to translate them.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Condition {
    /// Comes first so a list is never read as a variant's fields in order.
    List(Vec<Json>),
    All {
        and: Conditions,
    },
    Any {
        or: Conditions,
    },
    Not {
        not: Box<Condition>,
    },
    Test {
        var: String,
        /// Operator names and their operands, in key order.
        #[serde(flatten)]
        operators: BTreeMap<String, Json>,
    },
    Other(Json),
}

/// The parts of `and`/`or`: a list, or another shape the translation reports.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Conditions {
    List(Vec<Condition>),
    Other(IgnoredAny),
}

/// `requireConfirmation`: yes or no, WorkRail's `{kind, condition?}` form, or a condition.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Confirmation {
    Flag(bool),
    /// Comes before `Gate` so a list is never read as its fields in order; a condition.
    List(Vec<Json>),
    Gate {
        /// Only its presence marks this form.
        #[serde(rename = "kind")]
        _kind: Json,
        #[serde(default, deserialize_with = "present")]
        condition: Option<Json>,
    },
    Condition(Json),
}

/// What every step has, whatever its type: how the reader dispatches, links, expands and loops
/// it. A standard or parallel step's own fields are read by `StandardStep` and `ParallelStep`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Item {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<String>,
    #[serde(rename = "type", deserialize_with = "lenient")]
    pub(super) kind: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) title: Option<String>,
    #[serde(deserialize_with = "present")]
    pub(super) run_condition: Option<Json>,
    #[serde(deserialize_with = "present")]
    pub(super) require_confirmation: Option<Json>,
    #[serde(deserialize_with = "present")]
    pub(super) template_call: Option<TemplateCall>,
    #[serde(rename = "loop", deserialize_with = "lenient")]
    pub(super) loop_config: Option<LoopConfig>,
    #[serde(deserialize_with = "lenient")]
    pub(super) body: Option<LoopBody>,
}

/// A loop's body: the id of a top-level step, or its steps written inline.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum LoopBody {
    Reference(String),
    Inline(Vec<Json>),
}

/// A step replaced by a routine's steps, its placeholders filled from `args`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct TemplateCall {
    #[serde(deserialize_with = "lenient")]
    pub(super) template_id: Option<String>,
    /// Placeholders are filled from an object; any value is shown as written when the routine
    /// is missing.
    pub(super) args: Json,
}

/// `promptBlocks`: a step's prompt as sections.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct PromptBlocks {
    #[serde(deserialize_with = "present")]
    pub(super) goal: Option<PromptText>,
    #[serde(deserialize_with = "lenient")]
    pub(super) constraints: Option<Vec<PromptText>>,
    #[serde(deserialize_with = "lenient")]
    pub(super) procedure: Option<Vec<PromptText>>,
    #[serde(deserialize_with = "lenient")]
    pub(super) verify: Option<Vec<PromptText>>,
    #[serde(deserialize_with = "lenient")]
    pub(super) output_required: Option<BTreeMap<String, PromptText>>,
}

/// The text of a prompt block: a text, parts to join, or another value shown as JSON.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum PromptText {
    Plain(String),
    Parts(Vec<PromptPart>),
    Other(Json),
}

/// One part of a prompt block's text: a text, a reference to WorkRail's built-in text, or
/// another value (a plain string is itself; anything else is shown as JSON).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum PromptPart {
    /// Comes first so a list is never read as a part's fields in order.
    List(Vec<Json>),
    Kinded(KindedPart),
    Other(Json),
}

/// A part with a `kind` switchyard knows.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct KindedPart {
    pub(super) kind: PartKind,
    #[serde(default, deserialize_with = "lenient")]
    pub(super) text: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub(super) ref_id: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum PartKind {
    Text,
    Ref,
}

impl Default for PromptText {
    fn default() -> Self {
        Self::Other(Json::Null)
    }
}

/// `validationCriteria`: a list of criteria, a composition (`and` before `or` before `not`, as
/// WorkRail tries them), one rule, or another shape the translation reports.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Criteria {
    List(Vec<Criteria>),
    All {
        #[serde(deserialize_with = "lenient_items")]
        and: Vec<Criteria>,
        #[serde(default, deserialize_with = "present")]
        condition: Option<Json>,
    },
    Any {
        #[serde(deserialize_with = "lenient_items")]
        or: Vec<Criteria>,
        #[serde(default, deserialize_with = "present")]
        condition: Option<Json>,
    },
    Not {
        not: Box<Criteria>,
        #[serde(default, deserialize_with = "present")]
        condition: Option<Json>,
    },
    Rule(Rule),
    Other(Json),
}

/// One validation rule; `kind` says which of its fields count.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Rule {
    #[serde(rename = "type", deserialize_with = "lenient")]
    pub(super) kind: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) value: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) pattern: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) flags: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) min: Option<f64>,
    #[serde(deserialize_with = "lenient")]
    pub(super) max: Option<f64>,
    #[serde(deserialize_with = "present")]
    pub(super) schema: Option<Json>,
    #[serde(deserialize_with = "lenient")]
    pub(super) message: Option<String>,
    #[serde(deserialize_with = "present")]
    pub(super) condition: Option<Json>,
}

impl Default for Criteria {
    fn default() -> Self {
        Self::Other(Json::Null)
    }
}

/// Text added to a step's prompt, only when its condition holds if it has one.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct PromptFragment {
    #[serde(deserialize_with = "lenient")]
    pub(super) text: Option<String>,
    #[serde(deserialize_with = "present")]
    pub(super) when: Option<Json>,
}

/// A review of a step's deliverables, which WorkRail runs as a step of its own.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Audit {
    #[serde(deserialize_with = "lenient")]
    pub(super) prompt: Option<String>,
    #[serde(deserialize_with = "lenient_texts")]
    pub(super) rubric: Vec<String>,
}

/// A check of a step's deliverables (a command to run, or words), run as a step of its own.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Verification {
    #[serde(deserialize_with = "lenient")]
    pub(super) command: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) prompt: Option<String>,
}

/// A parallel step: tasks the agent delegates to subagents, then an optional synthesis.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct ParallelStep {
    #[serde(deserialize_with = "lenient")]
    pub(super) id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) title: Option<String>,
    #[serde(deserialize_with = "lenient_items")]
    pub(super) parallel_delegations: Vec<Delegation>,
    #[serde(deserialize_with = "present")]
    pub(super) synthesis: Option<Synthesis>,
}

/// One task of a parallel step: a workflow a subagent runs, with its goal and arguments.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Delegation {
    #[serde(deserialize_with = "lenient")]
    pub(super) workflow_id: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) goal: Option<String>,
    #[serde(deserialize_with = "present")]
    pub(super) args: Option<Json>,
    #[serde(deserialize_with = "present")]
    pub(super) run_condition: Option<Json>,
}

/// The step after a parallel step's delegations that combines their results.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct Synthesis {
    #[serde(deserialize_with = "lenient")]
    pub(super) prompt: Option<String>,
    #[serde(deserialize_with = "present")]
    pub(super) output_contract: Option<Json>,
}

/// The artifact a step must produce: a contract of WorkRail's, required unless said otherwise.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct OutputContract {
    #[serde(deserialize_with = "lenient")]
    pub(super) contract_ref: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) required: Option<bool>,
}

/// A loop step's `loop`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub(super) struct LoopConfig {
    #[serde(rename = "type", deserialize_with = "lenient")]
    pub(super) kind: Option<String>,
    pub(super) condition: Option<Json>,
    #[serde(deserialize_with = "lenient")]
    pub(super) items: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) count: Option<Count>,
    #[serde(deserialize_with = "lenient")]
    pub(super) max_iterations: Option<u64>,
    #[serde(deserialize_with = "lenient")]
    pub(super) iteration_var: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) index_var: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) item_var: Option<String>,
    #[serde(deserialize_with = "lenient")]
    pub(super) condition_source: Option<ConditionSource>,
}

/// How many times a `for` loop runs: a number, or the name of the variable holding it.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Count {
    Times(serde_json::Number),
    Variable(String),
}

/// What decides a `while`/`until` loop: an artifact of a contract, or a condition.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct ConditionSource {
    #[serde(deserialize_with = "lenient")]
    pub(super) kind: Option<String>,
    pub(super) condition: Option<Json>,
}

impl Workflow {
    pub(super) fn read(document: &Json) -> Self {
        read_object(document)
    }
}

impl StandardStep {
    pub(super) fn read(step: &Json) -> Self {
        read_object(step)
    }
}

impl Item {
    pub(super) fn read(item: &Json) -> Self {
        read_object(item)
    }
}

impl Default for Confirmation {
    fn default() -> Self {
        Self::Flag(false)
    }
}

impl PromptBlocks {
    pub(super) fn read(blocks: &Json) -> Self {
        read_object(blocks)
    }
}

impl ParallelStep {
    pub(super) fn read(step: &Json) -> Self {
        read_object(step)
    }
}

/// A step, a workflow or a block read as `T` when it is an object (a derived struct would read
/// a list's items as its fields in order), else `T`'s default.
fn read_object<T: Default + for<'de> Deserialize<'de>>(value: &Json) -> T {
    if value.is_object() { T::deserialize(value).unwrap_or_default() } else { T::default() }
}

/// A field read as `T`, or absent when it has another shape.
fn lenient<'de, D: Deserializer<'de>, T: DeserializeOwned>(deserializer: D) -> Result<Option<T>, D::Error> {
    let value = Json::deserialize(deserializer)?;
    Ok(serde_json::from_value(value).ok())
}

/// A list of texts; items of another shape are left out.
fn lenient_texts<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    let value = Json::deserialize(deserializer)?;
    Ok(value.as_array().into_iter().flatten().filter_map(|item| item.as_str().map(str::to_owned)).collect())
}

/// A list whose items of another shape read as their default (so each still counts).
fn lenient_items<'de, D: Deserializer<'de>, T: Default + DeserializeOwned>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    let value = Json::deserialize(deserializer)?;
    let items = value.as_array().into_iter().flatten();
    Ok(items.map(|item| serde_json::from_value(item.clone()).unwrap_or_default()).collect())
}

/// A field that counts by being there: read as `T`, or `T`'s default when it has another shape.
fn present<'de, D: Deserializer<'de>, T: Default + DeserializeOwned>(deserializer: D) -> Result<Option<T>, D::Error> {
    let value = Json::deserialize(deserializer)?;
    Ok(Some(serde_json::from_value(value).unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use serde_json::{Value as Json, json};

    use super::{Confirmation, Count, Criteria, Item, PromptBlocks, PromptPart, PromptText, StandardStep};

    #[test]
    fn a_step_written_as_a_list_reads_as_no_fields_rather_than_fields_in_order() {
        let item = Item::read(&json!(["first", "loop"]));
        assert!(item.id.is_none() && item.kind.is_none());
        let confirmation = StandardStep::read(&json!({"requireConfirmation": [true]})).require_confirmation;
        assert!(matches!(confirmation, Some(Confirmation::List(_))));
    }

    #[test]
    fn a_loop_count_reads_as_a_number_or_a_variable_and_another_shape_as_absent() {
        let count =
            |value: Json| Item::read(&json!({"loop": {"type": "for", "count": value}})).loop_config.unwrap().count;
        assert!(matches!(count(json!(3)), Some(Count::Times(number)) if number.to_string() == "3"));
        assert!(matches!(count(json!("retries")), Some(Count::Variable(name)) if name == "retries"));
        assert!(count(json!([1])).is_none());
    }

    #[test]
    fn step_fields_of_several_shapes_read_as_workrail_tells_them_apart() {
        let confirmation =
            |value: Json| StandardStep::read(&json!({"requireConfirmation": value})).require_confirmation;
        assert!(matches!(confirmation(json!(true)), Some(Confirmation::Flag(true))));
        assert!(matches!(confirmation(json!({"kind": "x"})), Some(Confirmation::Gate { condition: None, .. })));
        assert!(matches!(confirmation(json!({"var": "x"})), Some(Confirmation::Condition(_))));
        assert!(matches!(confirmation(json!(null)), Some(Confirmation::Condition(Json::Null))));
        let criteria = |value: Json| StandardStep::read(&json!({"validationCriteria": value})).validation_criteria;
        assert!(matches!(criteria(json!({"and": [], "or": []})), Some(Criteria::All { .. })));
        assert!(matches!(criteria(json!({"not": null})), Some(Criteria::Not { .. })));
        assert!(
            matches!(criteria(json!([{"type": "contains"}])), Some(Criteria::List(rules)) if matches!(rules[..], [Criteria::Rule(_)]))
        );
        assert!(matches!(criteria(json!("x")), Some(Criteria::Other(_))));
        let blocks = PromptBlocks::read(&json!({"goal": [["text", "x"], {"kind": "ref", "refId": "r"}, "plain"]}));
        assert!(matches!(
            blocks.goal,
            Some(PromptText::Parts(parts))
                if matches!(parts[..], [PromptPart::List(_), PromptPart::Kinded(_), PromptPart::Other(_)])
        ));
    }
}
