//! The arguments of each tool, as the one definition of what a call may send: each struct parses a
//! call's arguments and, derived from the same fields and doc comments, gives the tool's input
//! JSON Schema (see [`crate::schemas`]). A field cannot be accepted without being listed, or listed
//! without being accepted.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value};

/// Absolute path of the workspace (project folder) the agent works in; its .switchyard/workflows/ is searched first, and its git branch and HEAD are recorded.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct WorkspacePath(#[schemars(length(min = 1, max = 4096))] pub String);

/// The workflow id from list_workflows.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(transparent)]
pub struct WorkflowName(#[schemars(regex(pattern = r"^[a-z0-9][a-z0-9_.-]{0,127}$"))] pub String);

/// `list_workflows`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListArguments {
    pub workspace_path: WorkspacePath,
    /// Only workflows with at least one of these tags (`untagged`: those without tags). Without tags, the answer is a summary of the tags (`tagSummary`) instead of the workflows.
    #[schemars(length(max = 32), inner(length(max = 64)))]
    pub tags: Option<Vec<String>>,
    /// List every workflow at once, without the tag summary step.
    pub list_all: Option<bool>,
    /// Also list which copies each workflow shadows.
    pub include_sources: Option<bool>,
}

/// What `inspect_workflow` shows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InspectMode {
    Metadata,
    #[default]
    Preview,
}

/// `inspect_workflow`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InspectArguments {
    pub workflow_id: WorkflowName,
    pub workspace_path: WorkspacePath,
    /// `metadata`, or `preview` (default): the whole graph.
    pub mode: Option<InspectMode>,
}

/// The model tiers WorkRail's `start_workflow` accepts.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModelTier {
    Lightweight,
    Mid,
    Heavy,
}

/// `start_workflow`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartArguments {
    pub workflow_id: WorkflowName,
    pub workspace_path: WorkspacePath,
    /// What this run is for, in the user's words; it titles the session and is searched by resume_session.
    #[schemars(length(min = 1))]
    pub goal: String,
    /// Initial context values (declared workflow variables).
    pub context: Option<Map<String, Value>>,
    /// Check every status report of this run strictly: skills_used, skills_missing and model_override_reason are required, not warned about. Default false.
    pub strict_status: Option<bool>,
    /// Accepted for WorkRail compatibility; switchyard records nothing for it.
    #[allow(dead_code, reason = "accepted so WorkRail clients can send it; nothing reads it")]
    pub model_tier: Option<ModelTier>,
}

/// Whether `continue_workflow` reports on the step or looks at it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    Advance,
    Rehydrate,
}

/// Your report on the pending step.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StepReport {
    /// What you did and found, in Markdown (required unless the step says notes are optional).
    pub notes_markdown: Option<String>,
    /// Structured results; must match the step's output schema when it has one.
    pub artifacts: Option<Value>,
}

/// `continue_workflow`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContinueArguments {
    /// The continueToken (or retryContinueToken) of the step, or a resumeToken to rehydrate (`ct_ or st_…`, 27 characters).
    #[schemars(length(min = 1, max = 256))]
    pub continue_token: String,
    /// `advance` (implied when a report is sent) or `rehydrate` (implied otherwise).
    pub intent: Option<Intent>,
    pub output: Option<StepReport>,
    /// Alias of output.notesMarkdown.
    pub notes: Option<String>,
    /// Alias of output.artifacts.
    pub artifacts: Option<Value>,
    /// A context delta: keys to set; a null value deletes the key.
    pub context: Option<Map<String, Value>>,
    /// Alias of context.
    pub context_variables: Option<Map<String, Value>>,
    /// The label of the edge to take, from the step's allowedNext, when the step asks for a choice.
    #[schemars(length(max = 128))]
    pub choice: Option<String>,
    pub workspace_path: Option<WorkspacePath>,
}

/// Progress to record with a checkpoint.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckpointReport {
    /// Progress so far, in Markdown.
    pub notes_markdown: Option<String>,
}

/// `checkpoint_workflow`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckpointArguments {
    /// The checkpointToken of the step (`ck_…`, 27 characters).
    #[schemars(length(min = 1, max = 256))]
    pub checkpoint_token: String,
    pub output: Option<CheckpointReport>,
}

/// `resume_session`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResumeArguments {
    pub workspace_path: WorkspacePath,
    /// The user's words about the work ("the verbose flag"). Words match whole, in any inflection ("adapters" finds "adapter"); rarer words weigh more.
    #[schemars(length(min = 1, max = 256))]
    pub query: Option<String>,
    /// A session id (`sess_…`) the user named.
    #[schemars(regex(pattern = r"^sess_[a-z0-9]+$"))]
    pub session_id: Option<String>,
    /// A run id (`run_…`) the user named.
    #[schemars(regex(pattern = r"^run_[a-z0-9]+$"))]
    pub run_id: Option<String>,
    /// The branch to match sessions against; read from workspacePath's repository when neither git field is given.
    #[schemars(length(max = 256))]
    pub git_branch: Option<String>,
    /// The commit to match sessions against; read from workspacePath's repository when neither git field is given.
    #[schemars(regex(pattern = r"^[0-9a-f]{40}$"))]
    pub git_head_sha: Option<String>,
    /// Only sessions started in workspacePath (default false: every workspace's sessions).
    pub same_workspace_only: Option<bool>,
}

/// What `manage_workflow_source` does with the folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceAction {
    Attach,
    Detach,
}

/// `manage_workflow_source`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SourceArguments {
    /// `attach` the folder (its workflows are listed after your own, in every workspace) or `detach` it.
    pub action: SourceAction,
    /// Absolute path of a folder of workflow files.
    #[schemars(length(min = 1, max = 4096))]
    pub path: String,
}
