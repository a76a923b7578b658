//! The tools the model is offered: the file door's tools (through the same `FileHost`, with the
//! run supplied by the runner, so the model never sees or sends a run id), plus `complete_step`
//! and `checkpoint`, whose schemas are derived from the structs that parse their calls.
//!
//! Each step gets its own `complete_step` schema ([`StepTools`]): what the step requires (notes,
//! artifacts, a choice among its edges) is marked required there, and a call that lacks it is
//! refused by the runner as a tool error, before it reaches the runtime and costs an attempt.

use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use switchyard_core::workflow::NotesPolicy;
use switchyard_llm::ToolSpec;
use switchyard_runtime::{AdvanceInput, PendingStep, tool_schema};

pub(crate) const COMPLETE_STEP: &str = "complete_step";
pub(crate) const CHECKPOINT: &str = "checkpoint";
pub(crate) const RUN_COMMAND: &str = "run_command";

/// File tools whose success changes a file: progress, for stuck detection.
const WRITING_TOOLS: [&str; 4] = ["save_output", "write_file", "apply_patch", "update_frontmatter"];

/// `complete_step`: the report on the current step, as every door sends it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CompleteStepArguments {
    /// What you did, decided and why, in Markdown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// Structured results, checked against the step's output schema when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Value>,
    /// Variables to set for later steps; a `null` value deletes one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Map<String, Value>>,
    /// The label of the next edge to take, where the step asks you to choose.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
}

impl From<CompleteStepArguments> for AdvanceInput {
    fn from(arguments: CompleteStepArguments) -> Self {
        Self {
            notes: arguments.notes,
            artifacts: arguments.artifacts,
            context: arguments.context,
            choice: arguments.choice,
        }
    }
}

/// `checkpoint`: notes on progress, recorded without completing the step.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct CheckpointArguments {
    /// What is done so far and what comes next, in Markdown.
    pub notes: String,
}

/// `run_command`: one of the project's allowed commands.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct RunCommandArguments {
    /// The command as its words (no shell: no pipes, redirections or variables), such as
    /// ["cargo", "test", "--lib"]; it runs in the project's folder.
    pub argv: Vec<String>,
}

/// A tool call the model made, parsed.
#[derive(Debug)]
pub(crate) enum Parsed {
    /// A file tool, with its arguments for `FileHost::call`.
    File {
        name: String,
        arguments: Value,
    },
    CompleteStep(CompleteStepArguments),
    Checkpoint(CheckpointArguments),
    RunCommand(RunCommandArguments),
}

/// The tools offered with every request, derived once per process.
pub(crate) fn specs() -> &'static [ToolSpec] {
    static SPECS: OnceLock<Vec<ToolSpec>> = OnceLock::new();
    SPECS.get_or_init(|| {
        let mut specs: Vec<ToolSpec> = switchyard_files::tool_definitions()
            .into_iter()
            .map(|definition| ToolSpec::function(definition.name, definition.description, without_run(definition.input_schema)))
            .collect();
        specs.push(ToolSpec::function(
            COMPLETE_STEP,
            "Report the current step as done: notes, artifacts, context changes and, where asked, the choice of the next edge. The step's checks may block it: the answer then says what to fix.",
            Value::Object(tool_schema::input_schema::<CompleteStepArguments>()),
        ));
        specs.push(ToolSpec::function(
            CHECKPOINT,
            "Record notes on your progress in the current step without completing it.",
            Value::Object(tool_schema::input_schema::<CheckpointArguments>()),
        ));
        specs
    })
}

/// The tools of one step: the common ones with `complete_step`'s schema marking what the step
/// requires.
#[derive(Debug)]
pub(crate) struct StepTools {
    specs: Vec<ToolSpec>,
    complete_step: Option<jsonschema::Validator>,
    /// The specs' JSON size: part of every request, counted against the context window.
    bytes: u64,
}

impl StepTools {
    /// The tools of `step`, with `run_command` when the project allows commands (`allowed`, the
    /// prefixes as words).
    pub(crate) fn for_step(step: &PendingStep, allowed: Option<&[Vec<String>]>) -> Self {
        let mut specs = specs().to_vec();
        if let Some(allowed) = allowed {
            let allowed: Vec<String> = allowed.iter().map(|prefix| format!("`{}`", prefix.join(" "))).collect();
            specs.push(ToolSpec::function(
                RUN_COMMAND,
                format!(
                    "Run one of the project's commands in the project's folder and read its exit code and the end of its output. Allowed: commands starting with {}. No shell; writes only inside the project; a command that runs too long is killed.",
                    allowed.join(", ")
                ),
                Value::Object(tool_schema::input_schema::<RunCommandArguments>()),
            ));
        }
        let mut required = Vec::new();
        let complete = specs.iter_mut().find(|spec| spec.function.name == COMPLETE_STEP);
        let mut schema = complete.map(|spec| &mut spec.function.parameters);
        if let Some(properties) = schema.as_deref_mut().and_then(|schema| schema["properties"].as_object_mut()) {
            if step.notes == NotesPolicy::Required {
                properties.insert(
                    "notes".to_owned(),
                    json!({"type": "string", "pattern": "\\S", "description": "What you did, decided and why, in Markdown (this step requires notes)."}),
                );
                required.push("notes");
            }
            let lists_required = |schema: &Value| schema["required"].as_array().is_some_and(|names| !names.is_empty());
            if step.output_schema.as_ref().is_some_and(lists_required) {
                properties.insert(
                    "artifacts".to_owned(),
                    json!({"type": "object", "description": "Structured results; this step's output schema requires some."}),
                );
                required.push("artifacts");
            }
            if step.needs_choice {
                let labels: Vec<&str> = step.allowed_next.iter().map(|edge| edge.label.as_str()).collect();
                properties.insert(
                    "choice".to_owned(),
                    json!({"type": "string", "enum": labels, "description": "The label of the edge to take next (this step asks you to choose)."}),
                );
                required.push("choice");
            }
        }
        let validator = match schema {
            Some(schema) if !required.is_empty() => {
                schema["required"] = json!(required);
                jsonschema::validator_for(schema)
                    .inspect_err(|error| tracing::warn!(%error, "complete_step's schema for this step does not compile; the runtime checks the report alone"))
                    .ok()
            }
            _ => None,
        };
        let bytes = serde_json::to_string(&specs).map_or(0, |text| text.len() as u64);
        Self { specs, complete_step: validator, bytes }
    }

    pub(crate) fn specs(&self) -> &[ToolSpec] {
        &self.specs
    }

    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Parses one call as [`parse`] does, and refuses a `complete_step` lacking what the step
    /// requires, saying what is missing.
    pub(crate) fn parse(&self, name: &str, arguments: &str) -> Result<Parsed, String> {
        if name == RUN_COMMAND && self.specs.iter().any(|spec| spec.function.name == RUN_COMMAND) {
            let text = if arguments.trim().is_empty() { "{}" } else { arguments };
            return serde_json::from_str(text)
                .map(Parsed::RunCommand)
                .map_err(|error| format!("the arguments of `{RUN_COMMAND}` do not fit its schema: {error}; send {{\"argv\": [\"word\", ...]}}"));
        }
        let parsed = parse(name, arguments)?;
        if let (Parsed::CompleteStep(report), Some(validator)) = (&parsed, &self.complete_step) {
            let sent = serde_json::to_value(report).unwrap_or_default();
            let problems: Vec<String> = validator
                .iter_errors(&sent)
                .map(|error| {
                    let at = error.instance_path().as_str();
                    if at.is_empty() { error.to_string() } else { format!("{at}: {error}") }
                })
                .collect();
            if !problems.is_empty() {
                return Err(format!(
                    "`{COMPLETE_STEP}` was not sent (no attempt used): {}; send it again with what this step requires",
                    problems.join("; ")
                ));
            }
        }
        Ok(parsed)
    }
}

/// A file tool's schema without its `run` argument: the runner names the run.
fn without_run(mut schema: Value) -> Value {
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        properties.remove("run");
    }
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|name| name != "run");
    }
    schema
}

/// Whether a successful call of `tool` changed a file.
pub(crate) fn writes(tool: &str) -> bool {
    WRITING_TOOLS.contains(&tool)
}

/// Parses one call: an unknown tool, arguments that are not a JSON object, or arguments that do
/// not fit the tool's schema are an error the model reads.
pub(crate) fn parse(name: &str, arguments: &str) -> Result<Parsed, String> {
    let known = specs().iter().any(|spec| spec.function.name == name);
    if !known {
        let names: Vec<&str> = specs().iter().map(|spec| spec.function.name.as_str()).collect();
        let closest = switchyard_core::suggest::closest(name, names.iter().copied())
            .map_or_else(String::new, |closest| format!(" (did you mean `{closest}`?)"));
        return Err(format!("there is no tool named `{name}`{closest}; the tools are: {}", names.join(", ")));
    }
    let text = if arguments.trim().is_empty() { "{}" } else { arguments };
    let value: Value = serde_json::from_str(text)
        .map_err(|error| format!("the arguments of `{name}` are not valid JSON ({error}): send one JSON object"))?;
    let Value::Object(mut fields) = value else {
        return Err(format!("the arguments of `{name}` must be a JSON object"));
    };
    match name {
        COMPLETE_STEP => serde_json::from_value(Value::Object(fields))
            .map(Parsed::CompleteStep)
            .map_err(|error| format!("the arguments of `{COMPLETE_STEP}` do not fit its schema: {error}")),
        CHECKPOINT => serde_json::from_value(Value::Object(fields))
            .map(Parsed::Checkpoint)
            .map_err(|error| format!("the arguments of `{CHECKPOINT}` do not fit its schema: {error}")),
        _ => {
            // The runner names the run; a `run` the model sends anyway is not its to choose.
            fields.remove("run");
            Ok(Parsed::File { name: name.to_owned(), arguments: Value::Object(fields) })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_is_offered_the_file_tools_and_the_step_tools_without_a_run_argument() {
        // `run_command` is offered where the project allows commands.
        let mut names: Vec<&str> =
            specs().iter().map(|spec| spec.function.name.as_str()).chain([RUN_COMMAND]).collect();
        names.sort_unstable();
        // The same list labels the runner's metrics on a server's `/metrics`.
        let mut expected = switchyard_runtime::turn_metrics::RUNNER_TOOLS.to_vec();
        expected.sort_unstable();
        assert_eq!(names, expected, "the file tools and the step tools, each labelled in the metrics");
        assert!(names.contains(&COMPLETE_STEP) && names.contains(&CHECKPOINT));
        for spec in specs() {
            let properties = spec.function.parameters.get("properties").and_then(Value::as_object);
            assert!(
                properties.is_none_or(|properties| !properties.contains_key("run")),
                "{} takes no run",
                spec.function.name
            );
        }
    }

    #[test]
    fn malformed_and_unknown_calls_are_refused_with_what_to_do() {
        assert!(parse("complete_stpe", "{}").unwrap_err().contains("did you mean `complete_step`"));
        assert!(parse(COMPLETE_STEP, "{notes: oops").unwrap_err().contains("not valid JSON"));
        assert!(parse(COMPLETE_STEP, "[1]").unwrap_err().contains("must be a JSON object"));
        assert!(parse(COMPLETE_STEP, r#"{"note": "x"}"#).unwrap_err().contains("unknown field `note`"));
        assert!(matches!(parse(COMPLETE_STEP, ""), Ok(Parsed::CompleteStep(_))));
        match parse("read_file", r#"{"path": "a.md", "run": "run_x"}"#) {
            Ok(Parsed::File { arguments, .. }) => assert_eq!(arguments, serde_json::json!({ "path": "a.md" })),
            other => panic!("expected a file call, got {other:?}"),
        }
    }
}
