//! The seven switchyard tools, each declared once: its name, description, annotations, argument
//! and answer types (from which its input and output schemas are derived) and its handler, in one
//! `match` that the compiler holds to every tool.
//!
//! rmcp's `#[tool_router]` would route by name too, but it lists tools sorted by name, answers an
//! unknown name and arguments that do not parse with its own errors, and derives schemas its own
//! way: `tools/list` and the tools' answers would change.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use switchyard_runtime::tool_schema;

use crate::arguments::{
    CheckpointArguments, ContinueArguments, InspectArguments, ListArguments, ResumeArguments, SourceArguments,
    StartArguments,
};
use crate::errors::ToolError;
use crate::schemas::{
    CHECKPOINT_WORKFLOW, CONTINUE_WORKFLOW, INSPECT_WORKFLOW, LIST_WORKFLOWS, MANAGE_WORKFLOW_SOURCE, RESUME_SESSION,
    START_WORKFLOW,
};
use crate::tools::{Answer, Tools, parse};
use crate::wire::{CheckpointView, Execution, ResumeView, SourceChangeView, WorkflowList, WorkflowView};

/// A switchyard tool. A new one is a variant, an entry of [`SwitchyardTool::ALL`] and an arm of
/// [`SwitchyardTool::declare`]: the compiler refuses a missing arm, and reports a variant left out
/// of `ALL` as never constructed (`dead_code`, denied in CI).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SwitchyardTool {
    ListWorkflows,
    InspectWorkflow,
    StartWorkflow,
    ContinueWorkflow,
    CheckpointWorkflow,
    ResumeSession,
    ManageWorkflowSource,
}

/// A call's handler: the tool's parsed arguments in, its answer out.
type Handler<Arguments, Output> =
    for<'t> fn(&'t Tools, Arguments) -> Pin<Box<dyn Future<Output = Result<Answer<Output>, ToolError>> + Send + 't>>;

/// One tool as [`SwitchyardTool::declare`] declares it.
struct Declared<Arguments, Output> {
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
    handler: Handler<Arguments, Output>,
}

/// What is done with a tool's declaration: listing it or calling it.
trait Visit {
    type Result;

    fn visit<Arguments, Output>(self, declared: Declared<Arguments, Output>) -> Self::Result
    where
        Arguments: DeserializeOwned + JsonSchema + Send + 'static,
        Output: Serialize + JsonSchema + 'static;
}

impl SwitchyardTool {
    /// In the order `tools/list` shows them.
    pub(crate) const ALL: [Self; 7] = [
        Self::ListWorkflows,
        Self::InspectWorkflow,
        Self::StartWorkflow,
        Self::ContinueWorkflow,
        Self::CheckpointWorkflow,
        Self::ResumeSession,
        Self::ManageWorkflowSource,
    ];

    /// Everything about the tool, handed to `visit`.
    fn declare<V: Visit>(self, visit: V) -> V::Result {
        let read_only = ToolAnnotations::new().read_only(true).idempotent(true).open_world(false);
        let writes = |idempotent: bool| {
            ToolAnnotations::new().read_only(false).destructive(false).idempotent(idempotent).open_world(false)
        };
        match self {
            Self::ListWorkflows => visit.visit(Declared::<ListArguments, WorkflowList> {
                name: LIST_WORKFLOWS,
                description: "List the workflows visible from a workspace (project, user and built-in), with id, name, description, version, hash, source and tags, plus the problems of workflow files that failed to load. Two steps: without `tags` the answer is `tagSummary` (each tag with its count and example ids); call again with `tags` for those workflows, or with `listAll: true` for all of them.",
                annotations: read_only,
                handler: |tools, arguments| Box::pin(tools.list_workflows(arguments)),
            }),
            Self::InspectWorkflow => visit.visit(Declared::<InspectArguments, WorkflowView> {
                name: INSPECT_WORKFLOW,
                description: "Show a workflow: `metadata`, or (`preview`, the default) the whole compiled graph: every step with its prompt, notes policy, output schema and gate, every edge with its condition and kind, the limits and the hash a run pins.",
                annotations: read_only,
                handler: |tools, arguments| Box::pin(tools.inspect_workflow(arguments)),
            }),
            Self::StartWorkflow => visit.visit(Declared::<StartArguments, Execution> {
                name: START_WORKFLOW,
                description: "Start a run of a workflow for a goal. Pins the workflow by hash, records the workspace's git branch and HEAD, and returns the first step with a continueToken. Do the step, then call continue_workflow exactly as `nextCall` says.",
                annotations: writes(false),
                handler: |tools, arguments| Box::pin(tools.start_workflow(arguments)),
            }),
            Self::ContinueWorkflow => visit.visit(Declared::<ContinueArguments, Execution> {
                name: CONTINUE_WORKFLOW,
                description: "Report on the pending step and get the next one (`intent: advance`, implied when `output` is present), or look at a point of a run again without advancing (`intent: rehydrate`, implied otherwise; takes a continueToken or a resumeToken and returns a recap). Sending the same call twice advances once and returns the recorded answer. Advancing from an older point forks the run.",
                annotations: writes(true),
                handler: |tools, arguments| Box::pin(tools.continue_workflow(arguments)),
            }),
            Self::CheckpointWorkflow => visit.visit(Declared::<CheckpointArguments, CheckpointView> {
                name: CHECKPOINT_WORKFLOW,
                description: "Record durable progress on the current step without advancing (optionally with notes). Returns a resumeToken and the step's continueToken. Idempotent by token.",
                annotations: writes(true),
                handler: |tools, arguments| Box::pin(tools.checkpoint_workflow(arguments)),
            }),
            Self::ResumeSession => visit.visit(Declared::<ResumeArguments, ResumeView> {
                name: RESUME_SESSION,
                description: "Find earlier work to resume in a fresh chat: explicit session or run ids first, then the user's words over session titles, goals and notes (full-text ranked), then the workspace's git HEAD and branch, then workflow id, then recency. At most 5 candidates, each with confidence, why it matched, a snippet and a resumeToken for continue_workflow (intent rehydrate).",
                annotations: read_only,
                handler: |tools, arguments| Box::pin(tools.resume_session(arguments)),
            }),
            Self::ManageWorkflowSource => visit.visit(Declared::<SourceArguments, SourceChangeView> {
                name: MANAGE_WORKFLOW_SOURCE,
                description: "Attach a folder of workflow files for this user (its workflows are listed and started like your own, after them, in every workspace), or detach it. Idempotent; the list is kept across restarts. The folder must exist; it is recorded by its canonical path.",
                annotations: writes(true),
                handler: |tools, arguments| Box::pin(tools.manage_workflow_source(arguments)),
            }),
        }
    }

    /// The tool as `tools/list` shows it; its schemas are derived from its argument and answer
    /// types.
    pub(crate) fn definition(self) -> Tool {
        self.declare(Definition)
    }

    /// Runs a call whose arguments passed the tool's schema check: parses them with the tool's
    /// argument type and hands them to its handler.
    pub(crate) async fn call(self, tools: &Tools, arguments: Map<String, Value>) -> Result<Answer<Value>, ToolError> {
        self.declare(Call { tools, arguments }).await
    }
}

/// Visits a declaration into the tool's wire definition.
struct Definition;

impl Visit for Definition {
    type Result = Tool;

    fn visit<Arguments, Output>(self, declared: Declared<Arguments, Output>) -> Tool
    where
        Arguments: DeserializeOwned + JsonSchema + Send + 'static,
        Output: Serialize + JsonSchema + 'static,
    {
        Tool::new(declared.name, declared.description, Arc::new(tool_schema::input_schema::<Arguments>()))
            .with_raw_output_schema(Arc::new(tool_schema::output_schema::<Output>()))
            .with_annotations(declared.annotations)
    }
}

/// Visits a declaration into a call of its handler.
struct Call<'t> {
    tools: &'t Tools,
    arguments: Map<String, Value>,
}

impl<'t> Visit for Call<'t> {
    type Result = Pin<Box<dyn Future<Output = Result<Answer<Value>, ToolError>> + Send + 't>>;

    fn visit<Arguments, Output>(self, declared: Declared<Arguments, Output>) -> Self::Result
    where
        Arguments: DeserializeOwned + JsonSchema + Send + 'static,
        Output: Serialize + JsonSchema + 'static,
    {
        Box::pin(async move {
            let arguments: Arguments = parse(self.arguments)?;
            let Answer { text, structured } = (declared.handler)(self.tools, arguments).await?;
            Ok(Answer { text, structured: serde_json::to_value(structured).unwrap_or(Value::Null) })
        })
    }
}
