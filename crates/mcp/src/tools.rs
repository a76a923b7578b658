//! The six switchyard tools: each reads its checked arguments, calls the runtime, and converts
//! the answer into the door's wire types. No engine rule is decided here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use switchyard_core::token::TokenKind;
use switchyard_core::{RunId, SessionId};
use switchyard_runtime::{
    AdvanceInput, Origin, RECAP_BUDGET_BYTES, ResponseKind, ResumeRequest, Runtime, StartRequest, StepResponse, Target,
};

use crate::errors::{ErrorCode, ToolError};
use crate::schemas::{CONTINUE_WORKFLOW, RESERVED_CONTEXT_KEYS};
use crate::wire::Execution;

/// The most workflows one `list_workflows` answer carries.
pub const MAX_LISTED_WORKFLOWS: usize = 200;

/// What a tool answers: the text for the agent and the same facts as structured content.
#[derive(Debug)]
pub struct Answer {
    pub text: String,
    pub structured: Value,
}

/// The runtime, and one runtime view per workspace (each searches that workspace's workflows).
#[derive(Debug)]
pub struct Tools {
    base: Arc<Runtime>,
    workspaces: Mutex<HashMap<PathBuf, Arc<Runtime>>>,
}

fn parse<T: for<'de> Deserialize<'de>>(arguments: Map<String, Value>) -> Result<T, ToolError> {
    serde_json::from_value(Value::Object(arguments))
        .map_err(|error| ToolError::validation(format!("invalid arguments: {error}"), Value::Null))
}

fn workspace(path: &str) -> Result<PathBuf, ToolError> {
    let path = PathBuf::from(path);
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

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ListArgs {
    workspace_path: String,
    tags: Option<Vec<String>>,
    include_sources: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct InspectArgs {
    workflow_id: String,
    workspace_path: String,
    mode: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct StartArgs {
    workflow_id: String,
    workspace_path: String,
    goal: String,
    context: Option<Map<String, Value>>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct OutputArg {
    notes_markdown: Option<String>,
    artifacts: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ContinueArgs {
    continue_token: String,
    intent: Option<String>,
    output: Option<OutputArg>,
    notes: Option<String>,
    artifacts: Option<Value>,
    context: Option<Map<String, Value>>,
    context_variables: Option<Map<String, Value>>,
    choice: Option<String>,
    workspace_path: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CheckpointArgs {
    checkpoint_token: String,
    output: Option<OutputArg>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ResumeArgs {
    workspace_path: String,
    query: Option<String>,
    session_id: Option<String>,
    run_id: Option<String>,
    git_branch: Option<String>,
    git_head_sha: Option<String>,
    same_workspace_only: Option<bool>,
}

fn conflict(alias: &str, canonical: &str) -> ToolError {
    ToolError::validation(
        format!("send either `{alias}` or `{canonical}`, not both (`{alias}` is an alias of `{canonical}`)"),
        json!({ "field": format!("/{alias}"), "canonical": canonical }),
    )
}

impl Tools {
    pub fn new(base: Arc<Runtime>) -> Self {
        Self { base, workspaces: Mutex::new(HashMap::new()) }
    }

    pub fn runtime(&self) -> &Runtime {
        &self.base
    }

    fn for_workspace(&self, path: &Path) -> Arc<Runtime> {
        let mut workspaces = self.workspaces.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        // Bounded: a long-lived server meeting many workspaces starts over rather than grow.
        if workspaces.len() >= 64 && !workspaces.contains_key(path) {
            workspaces.clear();
        }
        Arc::clone(workspaces.entry(path.to_owned()).or_insert_with(|| Arc::new(self.base.for_workspace(Some(path)))))
    }

    pub async fn list_workflows(&self, arguments: Map<String, Value>) -> Result<Answer, ToolError> {
        let args: ListArgs = parse(arguments)?;
        let runtime = self.for_workspace(&workspace(&args.workspace_path)?);
        let catalog = runtime.catalog().clone();
        let found = tokio::task::spawn_blocking(move || catalog.list())
            .await
            .map_err(|error| ToolError::new(ErrorCode::InternalError, format!("listing workflows failed: {error}")))?;
        let wanted: Vec<String> = args.tags.unwrap_or_default().iter().map(|tag| tag.to_lowercase()).collect();
        let mut workflows = Vec::new();
        let mut warnings = Vec::new();
        for found in found {
            let Some(workflow) = &found.compiled.workflow else {
                warnings.push(json!({
                    "workflowId": found.name,
                    "source": found.location.describe(),
                    "errors": found.compiled.diagnostics.iter().filter(|d| d.is_error()).map(ToString::to_string).collect::<Vec<_>>(),
                }));
                continue;
            };
            if !wanted.is_empty() && !workflow.tags.iter().any(|tag| wanted.contains(&tag.to_lowercase())) {
                continue;
            }
            let mut entry = json!({
                "workflowId": workflow.id,
                "name": workflow.title,
                "description": workflow.description,
                "version": workflow.version,
                "kind": "workflow",
                "workflowHash": workflow.hash().to_string(),
                "tags": workflow.tags,
                "source": { "kind": origin_name(found.location.origin), "path": found.location.path },
            });
            if args.include_sources.unwrap_or(false) {
                entry["shadows"] = json!(found.shadows.iter().map(|shadow| shadow.describe()).collect::<Vec<_>>());
            }
            workflows.push(entry);
        }
        let truncated = workflows.len() > MAX_LISTED_WORKFLOWS;
        workflows.truncate(MAX_LISTED_WORKFLOWS);
        let mut text = format!("{} workflow(s):\n", workflows.len());
        for workflow in &workflows {
            text.push_str(&format!(
                "- `{}` {} — {} [{}]\n",
                workflow["workflowId"].as_str().unwrap_or_default(),
                workflow["version"].as_str().unwrap_or_default(),
                workflow["description"].as_str().unwrap_or_default(),
                workflow["source"]["kind"].as_str().unwrap_or_default()
            ));
        }
        for warning in &warnings {
            text.push_str(&format!("! {} failed to load: {}\n", warning["workflowId"], warning["errors"]));
        }
        text.push_str("Start one with start_workflow {workflowId, workspacePath, goal}.");
        Ok(Answer {
            text,
            structured: json!({ "workflows": workflows, "validationWarnings": warnings, "truncated": truncated }),
        })
    }

    pub async fn inspect_workflow(&self, arguments: Map<String, Value>) -> Result<Answer, ToolError> {
        let args: InspectArgs = parse(arguments)?;
        let runtime = self.for_workspace(&workspace(&args.workspace_path)?);
        let found = runtime.find_workflow(Some(&args.workflow_id), None)?;
        let Some(workflow) = &found.compiled.workflow else {
            return Err(ToolError::new(
                ErrorCode::PreconditionFailed,
                format!("workflow `{}` ({}) does not compile", found.name, found.location.describe()),
            )
            .with_details(json!({ "diagnostics": found.compiled.diagnostics.iter().map(ToString::to_string).collect::<Vec<_>>() })));
        };
        let mode = args.mode.unwrap_or_else(|| "preview".to_owned());
        let hash = workflow.hash().to_string();
        let source = json!({ "kind": origin_name(found.location.origin), "path": found.location.path });
        let compiled = if mode == "metadata" {
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
        Ok(Answer {
            text,
            structured: json!({ "workflowId": workflow.id, "workflowHash": hash, "mode": mode, "source": source, "compiled": compiled }),
        })
    }

    pub async fn start_workflow(&self, arguments: Map<String, Value>) -> Result<Answer, ToolError> {
        let args: StartArgs = parse(arguments)?;
        refuse_reserved(args.context.as_ref(), "context")?;
        let path = workspace(&args.workspace_path)?;
        let runtime = self.for_workspace(&path);
        let response = runtime
            .start(StartRequest {
                workflow: Some(args.workflow_id),
                file: None,
                goal: args.goal,
                context: args.context.unwrap_or_default(),
                workspace: Some(path),
            })
            .await?;
        Ok(execution_answer(&response, None, None))
    }

    pub async fn continue_workflow(&self, arguments: Map<String, Value>) -> Result<Answer, ToolError> {
        let args: ContinueArgs = parse(arguments)?;
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
        let intent = match args.intent.as_deref() {
            Some("advance") => Intent::Advance,
            Some(_) => Intent::Rehydrate,
            None if has_report => Intent::Advance,
            None => Intent::Rehydrate,
        };
        let token = args.continue_token.trim().to_owned();
        let runtime = match &args.workspace_path {
            Some(path) => self.for_workspace(&workspace(path)?),
            None => Arc::new(self.base.for_workspace(None)),
        };
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

    pub async fn checkpoint_workflow(&self, arguments: Map<String, Value>) -> Result<Answer, ToolError> {
        let args: CheckpointArgs = parse(arguments)?;
        let notes = args.output.and_then(|output| output.notes_markdown);
        let runtime = &self.base;
        let checkpoint = runtime.checkpoint(args.checkpoint_token.trim(), None, notes).await?;
        let shown = runtime.show(&Target::Node(checkpoint.node)).await?;
        let next_call = shown
            .tokens
            .continue_token
            .as_ref()
            .map(|token| json!({ "tool": CONTINUE_WORKFLOW, "params": { "continueToken": token } }));
        let text = format!(
            "Checkpoint recorded on {} (run {}){}. Resume later with continue_workflow {{continueToken: \"{}\", intent: \"rehydrate\"}}.",
            checkpoint.node,
            checkpoint.run,
            if checkpoint.replayed { " (replayed: already recorded)" } else { "" },
            shown.tokens.state_token
        );
        Ok(Answer {
            text,
            structured: json!({
                "checkpointNodeId": checkpoint.node.to_string(),
                "runId": checkpoint.run.to_string(),
                "resumeToken": shown.tokens.state_token,
                "continueToken": shown.tokens.continue_token,
                "replayed": checkpoint.replayed,
                "nextCall": next_call,
            }),
        })
    }

    pub async fn resume_session(&self, arguments: Map<String, Value>) -> Result<Answer, ToolError> {
        let args: ResumeArgs = parse(arguments)?;
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
        let candidates = self.base.resume_candidates(&request).await?;
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
                json!({ "tool": CONTINUE_WORKFLOW, "params": { "continueToken": token, "intent": "rehydrate", "workspacePath": args.workspace_path } })
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
                next_call.as_ref().map(Value::to_string).unwrap_or_default(),
            ));
            list.push(json!({
                "sessionId": candidate.session.id.to_string(),
                "runId": candidate.run.map(|run| run.to_string()),
                "workflowId": candidate.session.workflow_id,
                "sessionTitle": candidate.session.title,
                "goal": candidate.session.goal,
                "gitBranch": candidate.session.git_branch,
                "gitHeadSha": candidate.session.git_head,
                "workspacePath": candidate.session.workspace,
                "resumeToken": candidate.resume_token,
                "snippet": candidate.snippet,
                "confidence": confidence,
                "whyMatched": candidate.why_matched,
                "pendingStepId": candidate.pending_step,
                "status": candidate.status.map(|status| status.as_str()),
                "isComplete": candidate.status == Some(switchyard_core::RunStatus::Completed),
                "lastModifiedMs": candidate.session.updated_at_ms,
                "nextCall": next_call,
            }));
        }
        let total = list.len();
        Ok(Answer { text, structured: json!({ "candidates": list, "totalEligible": total }) })
    }
}

enum Intent {
    Advance,
    Rehydrate,
}

fn origin_name(origin: Origin) -> &'static str {
    match origin {
        Origin::Project => "project",
        Origin::User => "user",
        Origin::Builtin => "built_in",
        Origin::File => "file",
    }
}

fn execution_answer(response: &StepResponse, sent: Option<Value>, recap: Option<switchyard_runtime::Recap>) -> Answer {
    let sent = if response.kind == ResponseKind::Blocked { sent } else { None };
    let execution = Execution::from_response(response, sent, recap);
    Answer {
        text: crate::render::execution(&execution),
        structured: serde_json::to_value(&execution).unwrap_or(Value::Null),
    }
}
