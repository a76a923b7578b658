//! The seven switchyard tools' handlers: each takes its parsed arguments (the schema checked
//! first, `registry` routes), calls the runtime, and converts the answer into the door's
//! wire types. No engine rule is decided here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use switchyard_catalog::{Catalog, Origin};
use switchyard_core::token::TokenKind;
use switchyard_core::{RunId, SessionId};
use switchyard_runtime::{
    AdvanceInput, RECAP_BUDGET_BYTES, ResponseKind, ResumeRequest, Runtime, StartRequest, StepResponse, Target,
};

use crate::arguments::{
    CheckpointArguments, ContinueArguments, InspectArguments, InspectMode, Intent, ListArguments, ResumeArguments,
    SourceAction, SourceArguments, StartArguments, WorkspacePath,
};
use crate::errors::{ErrorCode, ToolError};
use crate::schemas::{CONTINUE_WORKFLOW, RESERVED_CONTEXT_KEYS};
use crate::wire::{
    CheckpointView, Execution, LoadWarning, NextCall, ResumeCandidate, ResumeView, SourceChangeView, SourceView,
    TagSummary, WorkflowEntry, WorkflowList, WorkflowView,
};

/// The most workflows one `list_workflows` answer carries.
pub const MAX_LISTED_WORKFLOWS: usize = 200;

/// The tag under which `list_workflows` summarizes (and finds) the workflows that have none.
pub const UNTAGGED: &str = "untagged";

/// How many workflow ids each tag of the summary names as examples.
const TAG_EXAMPLES: usize = 3;

/// What a tool answers: the text for the agent and the same facts as structured content, of
/// the type its output schema is derived from.
#[derive(Debug)]
pub struct Answer<Structured> {
    pub text: String,
    pub structured: Structured,
}

impl<Structured> Answer<Structured> {
    fn new(text: String, structured: Structured) -> Self {
        Self { text, structured }
    }
}

/// The process's runtime, and the catalog each call's workspace gets its workflows from.
#[derive(Debug)]
pub struct Tools {
    runtime: Arc<Runtime>,
    /// The catalog of a call that names no workspace; a call that names one searches that
    /// workspace's `.switchyard/workflows/` first ([`Catalog::for_project`]).
    catalog: Catalog,
}

/// A tool's checked arguments as its argument type.
pub(crate) fn parse<T: for<'de> Deserialize<'de>>(arguments: Map<String, Value>) -> Result<T, ToolError> {
    serde_json::from_value(Value::Object(arguments))
        .map_err(|error| ToolError::validation(format!("invalid arguments: {error}"), Value::Null))
}

fn workspace(path: &WorkspacePath) -> Result<PathBuf, ToolError> {
    let path = PathBuf::from(&path.0);
    if !path.is_absolute() {
        return Err(ToolError::validation(
            format!("workspacePath must be an absolute path; got `{}`", path.display()),
            json!({ "field": "/workspacePath" }),
        ));
    }
    Ok(path)
}

fn refuse_reserved(context: Option<&Map<String, Value>>, field: &str) -> Result<(), ToolError> {
    if let Some(context) = context
        && let Some(key) = context.keys().find(|key| RESERVED_CONTEXT_KEYS.contains(&key.as_str()))
    {
        return Err(ToolError::validation(
            format!("context key `{key}` is reserved and cannot be set by a tool call; use another name"),
            json!({ "field": format!("/{field}/{key}"), "reservedKeys": RESERVED_CONTEXT_KEYS }),
        ));
    }
    Ok(())
}

fn conflict(alias: &str, canonical: &str) -> ToolError {
    ToolError::validation(
        format!("send either `{alias}` or `{canonical}`, not both (`{alias}` is an alias of `{canonical}`)"),
        json!({ "field": format!("/{alias}"), "canonical": canonical }),
    )
}

impl Tools {
    pub fn new(runtime: Arc<Runtime>, catalog: Catalog) -> Self {
        Self { runtime, catalog }
    }

    pub fn runtime(&self) -> &Runtime {
        &self.runtime
    }

    fn catalog_of(&self, workspace: &Path) -> Catalog {
        self.catalog.for_project(Some(workspace))
    }

    pub async fn list_workflows(&self, args: ListArguments) -> Result<Answer<WorkflowList>, ToolError> {
        let catalog = self.catalog_of(&workspace(&args.workspace_path)?);
        let (found, tag_catalog) =
            tokio::task::spawn_blocking(move || (catalog.list(), catalog.tag_catalog())).await.map_err(|error| {
                ToolError::new(ErrorCode::InternalError, format!("listing workflows failed: {error}"))
            })?;
        let wanted: Vec<String> = args.tags.unwrap_or_default().iter().map(|tag| tag.to_lowercase()).collect();
        // Two steps, as WorkRail lists: without tags, a summary of the tags keeps a long list out
        // of the agent's context; `listAll` asks for the plain list at once.
        let summarize = wanted.is_empty() && !args.list_all.unwrap_or(false);
        let mut summary: BTreeMap<String, TagSummary> = BTreeMap::new();
        let mut workflows = Vec::new();
        let mut warnings = Vec::new();
        for found in found {
            let Some(workflow) = &found.compiled.workflow else {
                warnings.push(LoadWarning {
                    workflow_id: found.name.clone(),
                    source: found.location.describe(),
                    errors: found
                        .compiled
                        .diagnostics
                        .iter()
                        .filter(|d| d.is_error())
                        .map(ToString::to_string)
                        .collect(),
                });
                continue;
            };
            // A WorkRail tag catalog adds tags to the ones the workflow declares, and may hide it
            // from tag discovery (the plain list still shows it).
            if tag_catalog.hides(&workflow.id) && !args.list_all.unwrap_or(false) {
                continue;
            }
            let declared = tag_catalog.tags_of(&workflow.id, &workflow.tags);
            let tags = if declared.is_empty() { vec![UNTAGGED.to_owned()] } else { declared.clone() };
            if summarize {
                for tag in tags {
                    let entry = summary.entry(tag.clone()).or_insert_with(|| {
                        let described = tag_catalog.tags.get(&tag).cloned().unwrap_or_default();
                        TagSummary {
                            id: tag,
                            display_name: described.display_name,
                            when: described.when,
                            count: 0,
                            examples: Vec::new(),
                        }
                    });
                    entry.count += 1;
                    if entry.examples.len() < TAG_EXAMPLES {
                        entry.examples.push(workflow.id.clone());
                    }
                }
                continue;
            }
            if !wanted.is_empty() && !tags.iter().any(|tag| wanted.contains(tag)) {
                continue;
            }
            workflows.push(WorkflowEntry {
                workflow_id: workflow.id.clone(),
                name: workflow.title.clone(),
                description: workflow.description.clone(),
                version: workflow.version.clone(),
                kind: "workflow",
                workflow_hash: workflow.hash().to_string(),
                tags: declared,
                source: source_view(&found.location),
                shadows: args
                    .include_sources
                    .unwrap_or(false)
                    .then(|| found.shadows.iter().map(|shadow| shadow.describe()).collect()),
            });
        }
        let truncated = workflows.len() > MAX_LISTED_WORKFLOWS;
        workflows.truncate(MAX_LISTED_WORKFLOWS);
        let tag_summary: Option<Vec<TagSummary>> = summarize.then(|| summary.into_values().collect());
        let mut text = match &tag_summary {
            Some(tags) => {
                let mut text = format!(
                    "{} tag(s); call list_workflows again with `tags` (one or more of these ids) to list their workflows, or with `listAll: true` for every workflow:\n",
                    tags.len()
                );
                for tag in tags {
                    let named = tag.display_name.as_ref().map(|name| format!(" {name}")).unwrap_or_default();
                    let when =
                        if tag.when.is_empty() { String::new() } else { format!("; for {}", tag.when.join("; ")) };
                    text.push_str(&format!(
                        "- `{}`{named} ({}): {}{when}\n",
                        tag.id,
                        tag.count,
                        tag.examples.join(", ")
                    ));
                }
                text
            }
            None => format!("{} workflow(s):\n", workflows.len()),
        };
        for workflow in &workflows {
            text.push_str(&format!(
                "- `{}` {} — {} [{}]\n",
                workflow.workflow_id, workflow.version, workflow.description, workflow.source.kind
            ));
        }
        for warning in &warnings {
            text.push_str(&format!("! \"{}\" failed to load: {}\n", warning.workflow_id, json!(warning.errors)));
        }
        text.push_str("Start one with start_workflow {workflowId, workspacePath, goal}.");
        Ok(Answer::new(text, WorkflowList { workflows, tag_summary, validation_warnings: warnings, truncated }))
    }

    pub async fn inspect_workflow(&self, args: InspectArguments) -> Result<Answer<WorkflowView>, ToolError> {
        let found = self.catalog_of(&workspace(&args.workspace_path)?).find(&args.workflow_id.0)?;
        let Some(workflow) = &found.compiled.workflow else {
            return Err(ToolError::new(
                ErrorCode::PreconditionFailed,
                format!("workflow `{}` ({}) does not compile", found.name, found.location.describe()),
            )
            .with_details(json!({ "diagnostics": found.compiled.diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>() })));
        };
        let mode = args.mode.unwrap_or_default();
        let hash = workflow.hash().to_string();
        let compiled = if mode == InspectMode::Metadata {
            json!({
                "workflowId": workflow.id, "name": workflow.title, "description": workflow.description,
                "version": workflow.version, "tags": workflow.tags,
                "steps": workflow.steps.len(),
            })
        } else {
            serde_json::to_value(workflow)
                .map_err(|error| ToolError::new(ErrorCode::InternalError, error.to_string()))?
        };
        let text = format!(
            "Workflow `{}` {} ({hash}) from {}:\n```json\n{}\n```",
            workflow.id,
            workflow.version,
            found.location.describe(),
            serde_json::to_string_pretty(&compiled).unwrap_or_default()
        );
        let view = WorkflowView {
            workflow_id: workflow.id.clone(),
            workflow_hash: hash,
            mode: if mode == InspectMode::Metadata { "metadata" } else { "preview" },
            source: source_view(&found.location),
            compiled,
        };
        Ok(Answer::new(text, view))
    }

    pub async fn start_workflow(&self, args: StartArguments) -> Result<Answer<Execution>, ToolError> {
        refuse_reserved(args.context.as_ref(), "context")?;
        let path = workspace(&args.workspace_path)?;
        let catalog = self.catalog_of(&path);
        let response = self
            .runtime
            .start(
                &catalog,
                StartRequest {
                    workflow: Some(args.workflow_id.0),
                    file: None,
                    goal: args.goal,
                    context: args.context.unwrap_or_default(),
                    workspace: Some(path),
                    strict_status: args.strict_status.unwrap_or_default(),
                },
            )
            .await?;
        Ok(execution_answer(&response, None, None))
    }

    pub async fn continue_workflow(&self, args: ContinueArguments) -> Result<Answer<Execution>, ToolError> {
        let output = args.output.unwrap_or_default();
        let notes = match (args.notes, output.notes_markdown) {
            (Some(_), Some(_)) => return Err(conflict("notes", "output.notesMarkdown")),
            (alias, canonical) => canonical.or(alias),
        };
        let artifacts = match (args.artifacts, output.artifacts) {
            (Some(_), Some(_)) => return Err(conflict("artifacts", "output.artifacts")),
            (alias, canonical) => canonical.or(alias),
        };
        let context = match (args.context_variables, args.context) {
            (Some(_), Some(_)) => return Err(conflict("contextVariables", "context")),
            (alias, canonical) => canonical.or(alias),
        };
        refuse_reserved(context.as_ref(), "context")?;
        let has_report = notes.is_some() || artifacts.is_some() || context.is_some() || args.choice.is_some();
        let intent = match args.intent {
            Some(intent) => intent,
            None if has_report => Intent::Advance,
            None => Intent::Rehydrate,
        };
        let token = args.continue_token.trim().to_owned();
        if let Some(path) = &args.workspace_path {
            workspace(path)?;
        }
        let runtime = &self.runtime;
        match intent {
            Intent::Advance => {
                if token.starts_with(TokenKind::State.prefix()) {
                    return Err(ToolError::new(
                        ErrorCode::TokenScopeMismatch,
                        "a resumeToken (`st_…`) cannot advance: call continue_workflow with it and intent `rehydrate` first, then advance with the continueToken that returns",
                    )
                    .with_details(json!({ "nextCall": { "tool": CONTINUE_WORKFLOW, "params": { "continueToken": token, "intent": "rehydrate" } } })));
                }
                let sent = json!({
                    "notesBytes": notes.as_ref().map(String::len),
                    "artifacts": artifacts,
                    "context": context,
                    "choice": args.choice,
                });
                let input = AdvanceInput { notes, artifacts, context, choice: args.choice };
                let response = runtime.advance(&token, None, input).await?;
                Ok(execution_answer(&response, Some(sent), None))
            }
            Intent::Rehydrate => {
                if has_report {
                    return Err(ToolError::validation(
                        "intent `rehydrate` looks at a step without reporting: drop output, notes, artifacts, context and choice, or use intent `advance`",
                        json!({ "field": "/intent" }),
                    ));
                }
                let mut response = runtime.show(&Target::Token(token)).await?;
                // A waiting node never changes; once a human acts, the run's tip is where to go on.
                if matches!(response.kind, ResponseKind::WaitingGate | ResponseKind::WaitingForHumanDecision) {
                    let tip = runtime.show(&Target::Run(response.run)).await?;
                    if tip.node != response.node {
                        response = tip;
                    }
                }
                let recap = runtime.recap(response.node, RECAP_BUDGET_BYTES).await?;
                Ok(execution_answer(&response, None, Some(recap)))
            }
        }
    }

    pub async fn checkpoint_workflow(&self, args: CheckpointArguments) -> Result<Answer<CheckpointView>, ToolError> {
        let notes = args.output.and_then(|output| output.notes_markdown);
        let runtime = &self.runtime;
        let checkpoint = runtime.checkpoint(args.checkpoint_token.trim(), None, notes).await?;
        let shown = runtime.show(&Target::Node(checkpoint.node)).await?;
        let next_call = shown
            .tokens
            .continue_token
            .as_ref()
            .map(|token| NextCall::verbatim(CONTINUE_WORKFLOW, json!({ "continueToken": token })));
        let text = format!(
            "Checkpoint recorded on {} (run {}){}. Resume later with continue_workflow {{continueToken: \"{}\", intent: \"rehydrate\"}}.",
            checkpoint.node,
            checkpoint.run,
            if checkpoint.replayed { " (replayed: already recorded)" } else { "" },
            shown.tokens.state_token
        );
        let view = CheckpointView {
            checkpoint_node_id: checkpoint.node.to_string(),
            run_id: checkpoint.run.to_string(),
            resume_token: shown.tokens.state_token.clone(),
            continue_token: shown.tokens.continue_token,
            replayed: checkpoint.replayed,
            next_call,
        };
        Ok(Answer::new(text, view))
    }

    pub async fn resume_session(&self, args: ResumeArguments) -> Result<Answer<ResumeView>, ToolError> {
        let path = workspace(&args.workspace_path)?;
        let session =
            args.session_id.as_deref().map(|text| text.parse::<SessionId>()).transpose().map_err(|error| {
                ToolError::validation(format!("sessionId: {error}"), json!({ "field": "/sessionId" }))
            })?;
        let run = args
            .run_id
            .as_deref()
            .map(|text| text.parse::<RunId>())
            .transpose()
            .map_err(|error| ToolError::validation(format!("runId: {error}"), json!({ "field": "/runId" })))?;
        let request = ResumeRequest {
            query: args.query,
            session,
            run,
            git_branch: args.git_branch,
            git_head: args.git_head_sha,
            workspace: Some(path.display().to_string()),
            same_workspace_only: args.same_workspace_only.unwrap_or(false),
        };
        let candidates = self.runtime.resume_candidates(&request).await?;
        let mut text = if candidates.is_empty() {
            "No resumable sessions found. Ask the user which work they mean, or start a new workflow.\n".to_owned()
        } else {
            format!("{} candidate session(s), best first:\n", candidates.len())
        };
        let only_recency = candidates.iter().all(|candidate| candidate.why_matched == ["recency"]);
        if only_recency && !candidates.is_empty() {
            text.push_str("Only recency matched: ask the user which one they mean before resuming.\n");
        }
        let mut list = Vec::new();
        for candidate in &candidates {
            let confidence = serde_json::to_value(candidate.confidence).unwrap_or(Value::Null);
            let next_call = candidate.resume_token.as_ref().map(|token| {
                NextCall::verbatim(
                    CONTINUE_WORKFLOW,
                    json!({ "continueToken": token, "intent": "rehydrate", "workspacePath": args.workspace_path.0 }),
                )
            });
            text.push_str(&format!(
                "\n### {} ({})\n- session {} · workflow {} · status {} · pending {}\n- matched: {} · branch {}\n- {}\n- resume: {}\n",
                candidate.session.title,
                confidence.as_str().unwrap_or_default(),
                candidate.session.id,
                candidate.session.workflow_id.as_deref().unwrap_or("-"),
                candidate.status.map(|status| status.as_str()).unwrap_or("-"),
                candidate.pending_step.as_deref().unwrap_or("-"),
                candidate.why_matched.join(", "),
                candidate.session.git_branch.as_deref().unwrap_or("-"),
                candidate.snippet.replace('\n', " "),
                next_call.as_ref().map(|call| json!({ "tool": call.tool, "params": call.params }).to_string()).unwrap_or_default(),
            ));
            list.push(ResumeCandidate {
                session_id: candidate.session.id.to_string(),
                run_id: candidate.run.map(|run| run.to_string()),
                workflow_id: candidate.session.workflow_id.clone(),
                session_title: candidate.session.title.clone(),
                goal: candidate.session.goal.clone(),
                git_branch: candidate.session.git_branch.clone(),
                git_head_sha: candidate.session.git_head.clone(),
                workspace_path: candidate.session.workspace.clone(),
                resume_token: candidate.resume_token.clone(),
                snippet: candidate.snippet.clone(),
                confidence: candidate.confidence.into(),
                why_matched: candidate.why_matched.clone(),
                pending_step_id: candidate.pending_step.clone(),
                status: candidate.status.map(|status| status.as_str()),
                is_complete: candidate.status == Some(switchyard_core::RunStatus::Completed),
                last_modified_ms: candidate.session.updated_at_ms,
                next_call,
            });
        }
        let total_eligible = list.len();
        Ok(Answer::new(text, ResumeView { candidates: list, total_eligible }))
    }
}

impl Tools {
    pub async fn manage_workflow_source(&self, args: SourceArguments) -> Result<Answer<SourceChangeView>, ToolError> {
        let path = PathBuf::from(&args.path);
        let catalog = self.catalog.clone();
        let action = args.action;
        let change = tokio::task::spawn_blocking(move || match action {
            SourceAction::Attach => catalog.attach_source(&path),
            SourceAction::Detach => catalog.detach_source(&path),
        })
        .await
        .map_err(|error| ToolError::new(ErrorCode::InternalError, format!("managing sources failed: {error}")))??;
        let (action, done, already) = match args.action {
            SourceAction::Attach => ("attach", "Attached", "already attached"),
            SourceAction::Detach => ("detach", "Detached", "not attached"),
        };
        let path = change.path.display().to_string();
        let text = if change.changed {
            format!("{done} {path}. list_workflows shows its workflows (source `attached`).")
        } else {
            format!("{path} was {already}; nothing changed.")
        };
        Ok(Answer::new(text, SourceChangeView { action, path, changed: change.changed }))
    }
}

fn source_view(location: &switchyard_catalog::Location) -> SourceView {
    SourceView { kind: origin_name(location.origin), path: location.path.clone() }
}

fn origin_name(origin: Origin) -> &'static str {
    match origin {
        Origin::Project => "project",
        Origin::User => "user",
        Origin::Attached => "attached",
        Origin::Builtin => "built_in",
        Origin::File => "file",
    }
}

fn execution_answer(
    response: &StepResponse,
    sent: Option<Value>,
    recap: Option<switchyard_runtime::Recap>,
) -> Answer<Execution> {
    let sent = if response.kind == ResponseKind::Blocked { sent } else { None };
    let execution = Execution::from_response(response, sent, recap);
    Answer::new(crate::render::execution(&execution), execution)
}
