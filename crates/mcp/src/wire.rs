//! The MCP door's own wire types, converted explicitly from the runtime's answers, so the runtime
//! can change without changing what agents read. camelCase, as WorkRail's tools answer.

use serde::Serialize;
use serde_json::{Value, json};
use switchyard_runtime::{Recap, ResponseKind, StepResponse};

use crate::schemas::CONTINUE_WORKFLOW;

/// How long an agent should wait before asking again about a run that waits for a human.
pub const HUMAN_RETRY_AFTER_MS: u64 = 30_000;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NextCall {
    pub tool: &'static str,
    pub params: Value,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AllowedNext {
    pub label: String,
    /// The step the edge leads to; `null` completes the run.
    pub to: Option<String>,
    pub default: bool,
    pub condition: Option<String>,
    pub kind: String,
    pub remaining: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingView {
    pub step_id: String,
    pub title: String,
    pub prompt: String,
    pub agent_role: Option<String>,
    pub model: Option<String>,
    pub phase: Option<String>,
    pub context_reset: bool,
    /// Whether a human approves the step's result before the run moves on.
    pub human_gate: bool,
    pub notes_required: bool,
    pub output_schema: Option<Value>,
    pub allowed_next: Vec<AllowedNext>,
    pub needs_choice: bool,
    pub rejection: Option<String>,
    pub attempts_left: u32,
    pub cycle: u32,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IssueView {
    pub code: String,
    pub path: String,
    pub message: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ValidationView {
    pub issues: Vec<IssueView>,
    /// The step's output schema, when the artifacts must match one.
    pub expected_schema: Option<Value>,
    pub notes_required: bool,
    /// What the blocked call sent (notes shown by length), when this call made it.
    pub sent: Option<Value>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GateView {
    pub step_id: String,
    pub title: String,
    pub choice: Option<String>,
    /// The command a human runs to approve; agents cannot approve.
    pub approve_with: String,
    pub reject_with: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub reason: Value,
    pub options: Vec<String>,
    pub decide_with: String,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RecapView {
    pub text: String,
    pub truncated: bool,
    pub dropped: usize,
}

/// The answer of `start_workflow` and `continue_workflow`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Execution {
    pub kind: &'static str,
    pub is_complete: bool,
    pub session_id: String,
    pub run_id: String,
    pub node_id: String,
    pub workflow_id: String,
    pub workflow_hash: String,
    pub continue_token: Option<String>,
    pub checkpoint_token: Option<String>,
    pub resume_token: String,
    pub retry_continue_token: Option<String>,
    pub retryable: bool,
    pub retry_after_ms: Option<u64>,
    pub forked: bool,
    pub replayed: bool,
    pub pending: Option<PendingView>,
    pub validation: Option<ValidationView>,
    pub gate: Option<GateView>,
    pub decision: Option<DecisionView>,
    pub failure: Option<Value>,
    pub recap: Option<RecapView>,
    pub progress: Value,
    pub next_intent: &'static str,
    pub next_call: Option<NextCall>,
}

pub fn kind_name(kind: ResponseKind) -> &'static str {
    match kind {
        ResponseKind::Ok => "ok",
        ResponseKind::Blocked => "blocked",
        ResponseKind::WaitingGate => "waiting_for_human_gate",
        ResponseKind::WaitingForHumanDecision => "waiting_for_human_decision",
        ResponseKind::Complete => "complete",
        ResponseKind::Failed => "failed",
        ResponseKind::Paused => "paused",
        ResponseKind::Stopped => "stopped",
    }
}

impl Execution {
    /// Converts a runtime answer. `sent` is what the call that produced it sent, if it advanced.
    pub fn from_response(response: &StepResponse, sent: Option<Value>, recap: Option<Recap>) -> Self {
        let kind = response.kind;
        let run = response.run.to_string();
        let pending = response.step.as_ref().map(|step| PendingView {
            step_id: step.step.to_string(),
            title: step.title.clone(),
            prompt: step.prompt.clone(),
            agent_role: step.role.clone(),
            model: step.model.clone(),
            phase: step.phase.clone(),
            context_reset: step.context_reset,
            human_gate: step.gate,
            notes_required: step.notes == switchyard_core::workflow::NotesPolicy::Required,
            output_schema: step.output_schema.clone(),
            allowed_next: step
                .allowed_next
                .iter()
                .map(|edge| AllowedNext {
                    label: edge.label.clone(),
                    to: edge.to.as_ref().map(ToString::to_string),
                    default: edge.default,
                    condition: edge.condition_text.clone(),
                    kind: serde_json::to_value(edge.kind)
                        .ok()
                        .and_then(|value| value.as_str().map(str::to_owned))
                        .unwrap_or_default(),
                    remaining: edge.remaining,
                })
                .collect(),
            needs_choice: step.needs_choice,
            rejection: step.rejection.clone(),
            attempts_left: step.attempts_left,
            cycle: step.cycle,
        });
        let validation = response.validation.as_ref().map(|validation| ValidationView {
            issues: validation
                .issues
                .iter()
                .map(|issue| IssueView {
                    code: issue.code.clone(),
                    path: issue.path.clone(),
                    message: issue.message.clone(),
                })
                .collect(),
            expected_schema: pending.as_ref().and_then(|pending| pending.output_schema.clone()),
            notes_required: pending.as_ref().is_some_and(|pending| pending.notes_required),
            sent,
        });
        let gate = response.gate.as_ref().map(|gate| GateView {
            step_id: gate.step.to_string(),
            title: gate.title.clone(),
            choice: gate.choice.clone(),
            approve_with: format!("switchyard approve {run}"),
            reject_with: format!("switchyard reject {run} --reason \"…\""),
        });
        let decision = response.decision.as_ref().map(|decision| DecisionView {
            reason: serde_json::to_value(decision.reason).unwrap_or(Value::Null),
            options: decision.options.iter().map(|option| option.as_str().to_owned()).collect(),
            decide_with: format!("switchyard decide {run} <option>"),
        });
        let waits_for_human =
            matches!(kind, ResponseKind::WaitingGate | ResponseKind::WaitingForHumanDecision | ResponseKind::Paused);
        let continue_token = response.tokens.continue_token.clone();
        let resume_token = response.tokens.state_token.clone();
        let (next_intent, next_call) = match kind {
            ResponseKind::Ok | ResponseKind::Blocked => (
                "perform_pending_then_continue",
                continue_token.as_ref().map(|token| NextCall {
                    tool: CONTINUE_WORKFLOW,
                    params: json!({ "continueToken": token, "output": { "notesMarkdown": "…" } }),
                }),
            ),
            ResponseKind::WaitingGate | ResponseKind::WaitingForHumanDecision | ResponseKind::Paused => (
                "await_user_confirmation",
                Some(NextCall {
                    tool: CONTINUE_WORKFLOW,
                    params: json!({ "continueToken": resume_token, "intent": "rehydrate" }),
                }),
            ),
            ResponseKind::Complete => ("complete", None),
            ResponseKind::Failed | ResponseKind::Stopped => ("rehydrate_only", None),
        };
        Execution {
            kind: kind_name(kind),
            is_complete: kind == ResponseKind::Complete,
            session_id: response.session.to_string(),
            run_id: run,
            node_id: response.node.to_string(),
            workflow_id: response.workflow.id.clone(),
            workflow_hash: response.workflow.hash.to_string(),
            retry_continue_token: (kind == ResponseKind::Blocked).then(|| continue_token.clone()).flatten(),
            continue_token,
            checkpoint_token: response.tokens.checkpoint_token.clone(),
            resume_token,
            retryable: kind == ResponseKind::Blocked || waits_for_human,
            retry_after_ms: waits_for_human.then_some(HUMAN_RETRY_AFTER_MS),
            forked: response.forked,
            replayed: response.replayed,
            pending,
            validation,
            gate,
            decision,
            failure: response
                .failure
                .as_ref()
                .map(|failure| json!({ "code": failure.code, "message": failure.message })),
            recap: recap.map(|recap| RecapView {
                text: recap.text,
                truncated: recap.truncated,
                dropped: recap.dropped,
            }),
            progress: serde_json::to_value(&response.progress).unwrap_or(Value::Null),
            next_intent,
            next_call,
        }
    }
}
