//! What a tool's calls are checked against: the tool names, and for each listed tool its input
//! schema (derived from its argument struct for switchyard's own, in `registry`), checked
//! before any deserialization: unknown fields first, each with the closest known one, then every
//! schema violation, each naming the field.

use std::sync::OnceLock;

use rmcp::model::{JsonObject, Tool};
use serde_json::{Value, json};
use switchyard_runtime::tool_schema;

use crate::errors::ToolError;

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
/// call. Compiling all seven at start was a third of a cold start's page faults (when they were
/// read as 2020-12), paid by clients that only list the tools; compiling them on a thread of
/// their own as the server starts held 3–4 MB more at rest, the schema compiler's code paged in
/// (BENCHMARKS.md, "Memory at rest and cold start").
#[derive(Debug)]
pub struct ToolSpec {
    pub tool: Tool,
    validator: OnceLock<jsonschema::Validator>,
    properties: Vec<String>,
    /// The draft the schema is read as; `None`: as it declares (2020-12 when it declares none).
    draft: Option<jsonschema::Draft>,
}

/// The keywords switchyard's own input schemas may use: each means the same in draft 7 as in
/// 2020-12, so they are read as draft 7. Building a validator first checks the schema against
/// its draft's meta-schema: checking against 2020-12's (eight documents, dynamic references,
/// patterns) took over half of the first `continue_workflow` in a fresh process, against draft
/// 7's far less (BENCHMARKS.md, "Memory at rest and cold start"). With jsonschema's `macros`
/// feature the meta-schemas are checked by code generated at build time, not by a validator
/// built on first use.
pub const DRAFT_7_KEYWORDS: [&str; 12] = [
    "type",
    "properties",
    "required",
    "additionalProperties",
    "description",
    "enum",
    "pattern",
    "minLength",
    "maxLength",
    "items",
    "maxItems",
    "minItems",
];

impl ToolSpec {
    /// A provider's tool, its schema read as the draft it declares.
    pub fn new(tool: Tool) -> Self {
        let properties = tool_schema::property_names(&tool.input_schema);
        Self { tool, validator: OnceLock::new(), properties, draft: None }
    }

    /// One of switchyard's own tools, whose schemas use only [`DRAFT_7_KEYWORDS`] (a unit test
    /// checks them).
    pub fn own(tool: Tool) -> Self {
        Self { draft: Some(jsonschema::Draft::Draft7), ..Self::new(tool) }
    }

    pub fn name(&self) -> &str {
        &self.tool.name
    }

    fn validator(&self) -> &jsonschema::Validator {
        self.validator.get_or_init(|| {
            let schema = Value::Object((*self.tool.input_schema).clone());
            let mut options = jsonschema::options();
            if let Some(draft) = self.draft {
                options = options.with_draft(draft);
            }
            options.build(&schema).expect("every tool's input schema compiles (a unit test compiles each)")
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
        let validator = self.validator();
        // The common case answers yes or no without building errors.
        if validator.is_valid(&instance) {
            return Ok(());
        }
        let problems: Vec<Value> = validator
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::SwitchyardTool;

    /// Validators compile lazily, on a tool's first call; this compiles every one now, so a schema
    /// that does not compile fails here instead of in some agent's call.
    #[test]
    fn every_input_schema_compiles_and_checks_arguments() {
        for spec in SwitchyardTool::ALL.map(|tool| ToolSpec::own(tool.definition())) {
            let mut wrong = JsonObject::new();
            for field in &spec.properties {
                wrong.insert(field.clone(), json!({ "not": "a plausible value" }));
            }
            let error = spec.check(&wrong).expect_err(spec.name());
            assert!(error.message.starts_with(&format!("invalid arguments for {}:", spec.name())), "{}", error.message);
        }
    }

    /// Every keyword of a schema, at any depth (the names under `properties` are fields, not
    /// keywords).
    fn keywords(schema: &Value, found: &mut Vec<String>) {
        let Some(object) = schema.as_object() else { return };
        for (keyword, value) in object {
            found.push(keyword.clone());
            match keyword.as_str() {
                "properties" => value.as_object().into_iter().flatten().for_each(|(_, field)| keywords(field, found)),
                "items" | "additionalProperties" => keywords(value, found),
                _ => {}
            }
        }
    }

    /// Our own tools' schemas are read as draft 7 because they mean the same there as in 2020-12:
    /// a keyword outside [`DRAFT_7_KEYWORDS`] (`$ref`, `prefixItems`, `$defs`...) would not.
    #[test]
    fn own_input_schemas_mean_the_same_in_draft_7_and_2020_12() {
        for tool in SwitchyardTool::ALL.map(SwitchyardTool::definition) {
            let schema = Value::Object((*tool.input_schema).clone());
            let mut found = Vec::new();
            keywords(&schema, &mut found);
            let foreign: Vec<&String> =
                found.iter().filter(|keyword| !DRAFT_7_KEYWORDS.contains(&keyword.as_str())).collect();
            assert!(foreign.is_empty(), "{}: keywords outside DRAFT_7_KEYWORDS: {foreign:?}", tool.name);
            let draft_7 = jsonschema::draft7::meta::validate(&schema);
            assert!(draft_7.is_ok(), "{} against the draft 7 meta-schema: {draft_7:?}", tool.name);
            let draft_2020_12 = jsonschema::draft202012::meta::validate(&schema);
            assert!(draft_2020_12.is_ok(), "{} against the 2020-12 meta-schema: {draft_2020_12:?}", tool.name);
        }
    }
}
