//! The tool definitions (names, descriptions, annotations, and input and output JSON Schemas
//! derived by [`switchyard_runtime::tool_schema`] from the argument structs of
//! [`crate::arguments`] and the wire types of [`crate::wire`]) and the argument check every call passes before any deserialization: the
//! schema, then "did you mean" for unknown fields, each error naming the field.

use std::sync::{Arc, OnceLock};

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde_json::{Value, json};
use switchyard_runtime::tool_schema;

use crate::arguments::{
    CheckpointArguments, ContinueArguments, InspectArguments, ListArguments, ResumeArguments, SourceArguments,
    StartArguments,
};
use crate::errors::ToolError;
use crate::wire::{CheckpointView, Execution, ResumeView, SourceChangeView, WorkflowList, WorkflowView};

pub const LIST_WORKFLOWS: &str = "list_workflows";
pub const INSPECT_WORKFLOW: &str = "inspect_workflow";
pub const START_WORKFLOW: &str = "start_workflow";
pub const CONTINUE_WORKFLOW: &str = "continue_workflow";
pub const CHECKPOINT_WORKFLOW: &str = "checkpoint_workflow";
pub const RESUME_SESSION: &str = "resume_session";
pub const MANAGE_WORKFLOW_SOURCE: &str = "manage_workflow_source";

/// Context keys WorkRail reserves; switchyard refuses them too so skills behave the same.
pub const RESERVED_CONTEXT_KEYS: [&str; 4] =
    ["eat_token", "parent_eat_token", "metrics_harness", "metrics_active_model"];

/// One tool: its wire definition and a validator for its arguments, compiled on the tool's first
/// call (compiling all seven, meta-schema check and patterns included, was a third of a cold start's
/// page faults, paid by clients that only list the tools).
#[derive(Debug)]
pub struct ToolSpec {
    pub tool: Tool,
    validator: OnceLock<jsonschema::Validator>,
    properties: Vec<String>,
}

impl ToolSpec {
    pub fn new(tool: Tool) -> Self {
        let properties = tool_schema::property_names(&tool.input_schema);
        Self { tool, validator: OnceLock::new(), properties }
    }

    pub fn name(&self) -> &str {
        &self.tool.name
    }

    fn validator(&self) -> &jsonschema::Validator {
        self.validator.get_or_init(|| {
            let schema = Value::Object((*self.tool.input_schema).clone());
            jsonschema::validator_for(&schema).expect("every tool's input schema compiles (a unit test compiles each)")
        })
    }

    /// Checks `arguments` against the input schema. Unknown fields come first, each with the
    /// closest known field; then every schema violation with its JSON pointer.
    pub fn check(&self, arguments: &JsonObject) -> Result<(), ToolError> {
        let unknown = tool_schema::unknown_arguments(arguments, &self.properties);
        if !unknown.is_empty() {
            return Err(ToolError::validation(
                tool_schema::refusal(self.name(), &unknown, &self.properties),
                json!({ "unknownFields": unknown, "knownFields": self.properties }),
            ));
        }
        let instance = Value::Object(arguments.clone());
        let problems: Vec<Value> = self
            .validator()
            .iter_errors(&instance)
            .take(10)
            .map(|error| {
                let pointer = error.instance_path().to_string();
                let field = if pointer.is_empty() { "(arguments)".to_owned() } else { pointer };
                json!({ "field": field, "problem": error.to_string() })
            })
            .collect();
        if problems.is_empty() {
            return Ok(());
        }
        let summary: Vec<String> = problems
            .iter()
            .map(|problem| {
                format!(
                    "{}: {}",
                    problem["field"].as_str().unwrap_or_default(),
                    problem["problem"].as_str().unwrap_or_default()
                )
            })
            .collect();
        Err(ToolError::validation(
            format!("invalid arguments for {}: {}", self.name(), summary.join("; ")),
            json!({ "problems": problems, "inputSchema": Value::Object((*self.tool.input_schema).clone()) }),
        ))
    }
}

fn tool<Arguments: JsonSchema, Answer: JsonSchema>(
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new(name, description, Arc::new(tool_schema::input_schema::<Arguments>()))
        .with_raw_output_schema(Arc::new(tool_schema::output_schema::<Answer>()))
        .with_annotations(annotations)
}

/// The seven switchyard tools, in the order `tools/list` shows them.
pub fn switchyard_tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new().read_only(true).idempotent(true).open_world(false);
    let writes = |idempotent: bool| {
        ToolAnnotations::new().read_only(false).destructive(false).idempotent(idempotent).open_world(false)
    };
    vec![
        tool::<ListArguments, WorkflowList>(
            LIST_WORKFLOWS,
            "List the workflows visible from a workspace (project, user and built-in), with id, name, description, version, hash, source and tags, plus the problems of workflow files that failed to load. Two steps: without `tags` the answer is `tagSummary` (each tag with its count and example ids); call again with `tags` for those workflows, or with `listAll: true` for all of them.",
            read_only.clone(),
        ),
        tool::<InspectArguments, WorkflowView>(
            INSPECT_WORKFLOW,
            "Show a workflow: `metadata`, or (`preview`, the default) the whole compiled graph: every step with its prompt, notes policy, output schema and gate, every edge with its condition and kind, the limits and the hash a run pins.",
            read_only.clone(),
        ),
        tool::<StartArguments, Execution>(
            START_WORKFLOW,
            "Start a run of a workflow for a goal. Pins the workflow by hash, records the workspace's git branch and HEAD, and returns the first step with a continueToken. Do the step, then call continue_workflow exactly as `nextCall` says.",
            writes(false),
        ),
        tool::<ContinueArguments, Execution>(
            CONTINUE_WORKFLOW,
            "Report on the pending step and get the next one (`intent: advance`, implied when `output` is present), or look at a point of a run again without advancing (`intent: rehydrate`, implied otherwise; takes a continueToken or a resumeToken and returns a recap). Sending the same call twice advances once and returns the recorded answer. Advancing from an older point forks the run.",
            writes(true),
        ),
        tool::<CheckpointArguments, CheckpointView>(
            CHECKPOINT_WORKFLOW,
            "Record durable progress on the current step without advancing (optionally with notes). Returns a resumeToken and the step's continueToken. Idempotent by token.",
            writes(true),
        ),
        tool::<ResumeArguments, ResumeView>(
            RESUME_SESSION,
            "Find earlier work to resume in a fresh chat: explicit session or run ids first, then the user's words over session titles, goals and notes (full-text ranked), then the workspace's git HEAD and branch, then workflow id, then recency. At most 5 candidates, each with confidence, why it matched, a snippet and a resumeToken for continue_workflow (intent rehydrate).",
            read_only,
        ),
        tool::<SourceArguments, SourceChangeView>(
            MANAGE_WORKFLOW_SOURCE,
            "Attach a folder of workflow files for this user (its workflows are listed and started like your own, after them, in every workspace), or detach it. Idempotent; the list is kept across restarts. The folder must exist; it is recorded by its canonical path.",
            writes(true),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Validators compile lazily, on a tool's first call; this compiles every one now, so a schema
    /// that does not compile fails here instead of in some agent's call.
    #[test]
    fn every_input_schema_compiles_and_checks_arguments() {
        for spec in switchyard_tools().into_iter().map(ToolSpec::new) {
            let mut wrong = JsonObject::new();
            for field in &spec.properties {
                wrong.insert(field.clone(), json!({ "not": "a plausible value" }));
            }
            let error = spec.check(&wrong).expect_err(spec.name());
            assert!(error.message.starts_with(&format!("invalid arguments for {}:", spec.name())), "{}", error.message);
        }
    }
}
