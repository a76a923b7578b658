//! The tool definitions (names, descriptions, input and output JSON Schemas, annotations) and the
//! argument check every call passes before any deserialization: the schema, then "did you mean"
//! for unknown fields, each error naming the field.

use std::sync::{Arc, OnceLock};

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::errors::ToolError;

pub const LIST_WORKFLOWS: &str = "list_workflows";
pub const INSPECT_WORKFLOW: &str = "inspect_workflow";
pub const START_WORKFLOW: &str = "start_workflow";
pub const CONTINUE_WORKFLOW: &str = "continue_workflow";
pub const CHECKPOINT_WORKFLOW: &str = "checkpoint_workflow";
pub const RESUME_SESSION: &str = "resume_session";

/// Context keys WorkRail reserves; switchyard refuses them too so skills behave the same.
pub const RESERVED_CONTEXT_KEYS: [&str; 4] =
    ["eat_token", "parent_eat_token", "metrics_harness", "metrics_active_model"];

/// One tool: its wire definition and a validator for its arguments, compiled on the tool's first
/// call (compiling all six, meta-schema check and patterns included, was a third of a cold start's
/// page faults, paid by clients that only list the tools).
#[derive(Debug)]
pub struct ToolSpec {
    pub tool: Tool,
    validator: OnceLock<jsonschema::Validator>,
    properties: Vec<String>,
}

impl ToolSpec {
    pub fn new(tool: Tool) -> Self {
        let properties = tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default();
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
        let unknown: Vec<Value> = arguments
            .keys()
            .filter(|key| !self.properties.contains(key))
            .map(|key| {
                let suggestion = self
                    .properties
                    .iter()
                    .map(|known| (strsim::jaro_winkler(&key.to_lowercase(), &known.to_lowercase()), known))
                    .filter(|(score, _)| *score > 0.75)
                    .max_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, known)| known.clone());
                json!({ "field": key, "didYouMean": suggestion })
            })
            .collect();
        if !unknown.is_empty() {
            let names: Vec<String> = unknown
                .iter()
                .map(|entry| match entry["didYouMean"].as_str() {
                    Some(known) => {
                        format!("`{}` (did you mean `{known}`?)", entry["field"].as_str().unwrap_or_default())
                    }
                    None => format!("`{}`", entry["field"].as_str().unwrap_or_default()),
                })
                .collect();
            return Err(ToolError::validation(
                format!(
                    "{} does not take {}; it takes: {}",
                    self.name(),
                    names.join(", "),
                    self.properties.iter().map(|known| format!("`{known}`")).collect::<Vec<_>>().join(", ")
                ),
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

fn object(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => unreachable!("tool schemas are written as JSON objects"),
    }
}

fn tool(
    name: &'static str,
    description: &'static str,
    input: Value,
    output: Value,
    annotations: ToolAnnotations,
) -> Tool {
    Tool::new(name, description, object(input)).with_raw_output_schema(object(output)).with_annotations(annotations)
}

const WORKSPACE_PATH: &str = "Absolute path of the workspace (project folder) the agent works in; its .switchyard/workflows/ is searched first, and its git branch and HEAD are recorded.";

fn workspace_path() -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 4096, "description": WORKSPACE_PATH })
}

fn token(prefix: &str, description: &str) -> Value {
    json!({ "type": "string", "minLength": 1, "maxLength": 256, "description": format!("{description} (`{prefix}…`, 27 characters).") })
}

fn context_delta(description: &str) -> Value {
    json!({ "type": "object", "description": description })
}

fn output_argument() -> Value {
    json!({
        "type": "object",
        "additionalProperties": false,
        "description": "Your report on the pending step.",
        "properties": {
            "notesMarkdown": { "type": "string", "description": "What you did and found, in Markdown (required unless the step says notes are optional)." },
            "artifacts": { "description": "Structured results; must match the step's output schema when it has one." }
        }
    })
}

/// The structured answer of `start_workflow` and `continue_workflow`.
pub fn execution_output_schema() -> Value {
    let nullable_string = json!({ "type": ["string", "null"] });
    json!({
        "type": "object",
        "required": ["kind", "isComplete", "sessionId", "runId", "nodeId", "workflowId", "workflowHash", "resumeToken", "nextIntent", "retryable", "forked", "replayed"],
        "properties": {
            "kind": { "type": "string", "enum": ["ok", "blocked", "waiting_for_human_gate", "waiting_for_human_decision", "complete", "failed", "paused", "stopped"] },
            "isComplete": { "type": "boolean" },
            "sessionId": { "type": "string" },
            "runId": { "type": "string" },
            "nodeId": { "type": "string" },
            "workflowId": { "type": "string" },
            "workflowHash": { "type": "string" },
            "continueToken": nullable_string,
            "checkpointToken": nullable_string,
            "resumeToken": { "type": "string" },
            "retryContinueToken": nullable_string,
            "retryable": { "type": "boolean" },
            "retryAfterMs": { "type": ["integer", "null"] },
            "forked": { "type": "boolean" },
            "replayed": { "type": "boolean" },
            "pending": { "type": ["object", "null"] },
            "validation": { "type": ["object", "null"] },
            "gate": { "type": ["object", "null"] },
            "decision": { "type": ["object", "null"] },
            "failure": { "type": ["object", "null"] },
            "recap": { "type": ["object", "null"] },
            "progress": { "type": "object" },
            "nextIntent": { "type": "string", "enum": ["perform_pending_then_continue", "await_user_confirmation", "rehydrate_only", "complete"] },
            "nextCall": { "type": ["object", "null"] }
        }
    })
}

/// The six switchyard tools, in the order `tools/list` shows them.
pub fn switchyard_tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new().read_only(true).idempotent(true).open_world(false);
    let writes = |idempotent: bool| {
        ToolAnnotations::new().read_only(false).destructive(false).idempotent(idempotent).open_world(false)
    };
    vec![
        tool(
            LIST_WORKFLOWS,
            "List the workflows visible from a workspace (project, user and built-in), with id, name, description, version, hash, source and tags, plus the problems of workflow files that failed to load. One call; filter with `tags`.",
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["workspacePath"],
                "properties": {
                    "workspacePath": workspace_path(),
                    "tags": { "type": "array", "items": { "type": "string", "maxLength": 64 }, "maxItems": 32, "description": "Only workflows with at least one of these tags." },
                    "includeSources": { "type": "boolean", "description": "Also list which copies each workflow shadows." }
                }
            }),
            json!({
                "type": "object",
                "required": ["workflows", "validationWarnings", "truncated"],
                "properties": {
                    "workflows": { "type": "array", "items": { "type": "object" } },
                    "validationWarnings": { "type": "array", "items": { "type": "object" } },
                    "truncated": { "type": "boolean" }
                }
            }),
            read_only.clone(),
        ),
        tool(
            INSPECT_WORKFLOW,
            "Show a workflow: `metadata`, or (`preview`, the default) the whole compiled graph: every step with its prompt, notes policy, output schema and gate, every edge with its condition and kind, the limits and the hash a run pins.",
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["workflowId", "workspacePath"],
                "properties": {
                    "workflowId": { "type": "string", "pattern": "^[a-z0-9][a-z0-9_.-]{0,127}$", "description": "The workflow id from list_workflows." },
                    "workspacePath": workspace_path(),
                    "mode": { "type": "string", "enum": ["metadata", "preview"], "description": "`metadata`, or `preview` (default): the whole graph." }
                }
            }),
            json!({
                "type": "object",
                "required": ["workflowId", "workflowHash", "mode"],
                "properties": {
                    "workflowId": { "type": "string" },
                    "workflowHash": { "type": "string" },
                    "mode": { "type": "string" },
                    "source": { "type": "object" },
                    "compiled": { "type": "object" }
                }
            }),
            read_only.clone(),
        ),
        tool(
            START_WORKFLOW,
            "Start a run of a workflow for a goal. Pins the workflow by hash, records the workspace's git branch and HEAD, and returns the first step with a continueToken. Do the step, then call continue_workflow exactly as `nextCall` says.",
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["workflowId", "workspacePath", "goal"],
                "properties": {
                    "workflowId": { "type": "string", "pattern": "^[a-z0-9][a-z0-9_.-]{0,127}$" },
                    "workspacePath": workspace_path(),
                    "goal": { "type": "string", "minLength": 1, "description": "What this run is for, in the user's words; it titles the session and is searched by resume_session." },
                    "context": context_delta("Initial context values (declared workflow variables)."),
                    "modelTier": { "type": "string", "enum": ["lightweight", "mid", "heavy"], "description": "Accepted for WorkRail compatibility; switchyard records nothing for it." }
                }
            }),
            execution_output_schema(),
            writes(false),
        ),
        tool(
            CONTINUE_WORKFLOW,
            "Report on the pending step and get the next one (`intent: advance`, implied when `output` is present), or look at a point of a run again without advancing (`intent: rehydrate`, implied otherwise; takes a continueToken or a resumeToken and returns a recap). Sending the same call twice advances once and returns the recorded answer. Advancing from an older point forks the run.",
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["continueToken"],
                "properties": {
                    "continueToken": token("ct_ or st_", "The continueToken (or retryContinueToken) of the step, or a resumeToken to rehydrate"),
                    "intent": { "type": "string", "enum": ["advance", "rehydrate"] },
                    "output": output_argument(),
                    "notes": { "type": "string", "description": "Alias of output.notesMarkdown." },
                    "artifacts": { "description": "Alias of output.artifacts." },
                    "context": context_delta("A context delta: keys to set; a null value deletes the key."),
                    "contextVariables": context_delta("Alias of context."),
                    "choice": { "type": "string", "maxLength": 128, "description": "The label of the edge to take, from the step's allowedNext, when the step asks for a choice." },
                    "workspacePath": workspace_path()
                }
            }),
            execution_output_schema(),
            writes(true),
        ),
        tool(
            CHECKPOINT_WORKFLOW,
            "Record durable progress on the current step without advancing (optionally with notes). Returns a resumeToken and the step's continueToken. Idempotent by token.",
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["checkpointToken"],
                "properties": {
                    "checkpointToken": token("ck_", "The checkpointToken of the step"),
                    "output": {
                        "type": "object",
                        "additionalProperties": false,
                        "properties": { "notesMarkdown": { "type": "string", "description": "Progress so far, in Markdown." } }
                    }
                }
            }),
            json!({
                "type": "object",
                "required": ["checkpointNodeId", "resumeToken", "replayed"],
                "properties": {
                    "checkpointNodeId": { "type": "string" },
                    "runId": { "type": "string" },
                    "resumeToken": { "type": "string" },
                    "replayed": { "type": "boolean" },
                    "nextCall": { "type": ["object", "null"] }
                }
            }),
            writes(true),
        ),
        tool(
            RESUME_SESSION,
            "Find earlier work to resume in a fresh chat: explicit session or run ids first, then the user's words over session titles, goals and notes (full-text ranked), then the workspace's git HEAD and branch, then workflow id, then recency. At most 5 candidates, each with confidence, why it matched, a snippet and a resumeToken for continue_workflow (intent rehydrate).",
            json!({
                "type": "object",
                "additionalProperties": false,
                "required": ["workspacePath"],
                "properties": {
                    "workspacePath": workspace_path(),
                    "query": { "type": "string", "minLength": 1, "maxLength": 256, "description": "The user's words about the work (\"the verbose flag\"). Words match whole, in any inflection (\"adapters\" finds \"adapter\"); rarer words weigh more." },
                    "sessionId": { "type": "string", "pattern": "^sess_[a-z0-9]+$" },
                    "runId": { "type": "string", "pattern": "^run_[a-z0-9]+$" },
                    "gitBranch": { "type": "string", "maxLength": 256, "description": "The branch to match sessions against; read from workspacePath's repository when neither git field is given." },
                    "gitHeadSha": { "type": "string", "pattern": "^[0-9a-f]{40}$", "description": "The commit to match sessions against; read from workspacePath's repository when neither git field is given." },
                    "sameWorkspaceOnly": { "type": "boolean", "description": "Only sessions started in workspacePath (default false: every workspace's sessions)." }
                }
            }),
            json!({
                "type": "object",
                "required": ["candidates", "totalEligible"],
                "properties": {
                    "candidates": { "type": "array", "maxItems": 5, "items": { "type": "object" } },
                    "totalEligible": { "type": "integer" }
                }
            }),
            read_only,
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
