//! The MCP door's own wire types, converted explicitly from the runtime's answers, so the runtime
//! can change without changing what agents read. camelCase, as WorkRail's tools answer. Each
//! tool's output JSON Schema is derived from these types (see [`crate::schemas`]).

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value, json};
use switchyard_runtime::{Recap, ResponseKind, StepResponse};

use crate::schemas::CONTINUE_WORKFLOW;

/// How long an agent should wait before asking again about a run that waits for a human.
pub const HUMAN_RETRY_AFTER_MS: u64 = 30_000;

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct NextCall {
    pub tool: &'static str,
    pub params: Value,
    /// Each `<fill in: …>` placeholder in `params` and what goes there; absent when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fill_in: Vec<FillInView>,
}

impl NextCall {
    /// A call to send as it is: no placeholder in it.
    pub fn verbatim(tool: &'static str, params: Value) -> Self {
        Self { tool, params, fill_in: Vec::new() }
    }
}

/// One placeholder of a next call.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FillInView {
    /// `notes`, `choice`, or a JSON pointer into the report (`/artifacts/findings/0/severity`).
    pub path: String,
    /// What goes there.
    pub what: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
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

#[derive(Debug, Clone, Serialize, JsonSchema)]
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
    /// What switchyard itself checks when the step is reported done (a command it runs, files that must exist, a change to the workspace): run the tests before reporting. Absent when nothing.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<EvidenceView>,
    pub allowed_next: Vec<AllowedNext>,
    pub needs_choice: bool,
    pub rejection: Option<String>,
    pub attempts_left: u32,
    pub cycle: u32,
}

/// An evidence check of the pending step.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceView {
    /// `files`, `changed`, `command`, `test_report` or `artifact_paths`.
    pub kind: String,
    /// What the check requires, in a sentence.
    pub requires: String,
}

/// What switchyard observed for one evidence check of the advance, and whether it passed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvidenceResultView {
    /// The check's position in the step's evidence list, from 0.
    pub check: u32,
    pub passed: bool,
    /// What was observed: the command's exit code and the end of its output, the globs that matched nothing, the changed paths, the test counts.
    #[schemars(with = "Map<String, Value>")]
    pub observed: Value,
}

/// Why the run went where it went: each condition and check switchyard evaluated, and the rule that decided.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WhyView {
    /// The decision in one sentence, such as "took `again` because `!stable` held; not `ship`".
    pub sentence: String,
    /// What decided: `condition`, `choice`, `default`, `only`, `first`, `person` (each with the edge's `label`), `complete`, `gate`, `blocked`, `no_way_on` or `entry`.
    #[schemars(with = "Map<String, Value>")]
    pub rule: Value,
    pub evaluated: Vec<EvaluatedView>,
    /// Evaluations past the 64 listed, counted but not kept. Absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub more: Option<u32>,
}

/// One condition or check switchyard evaluated for a decision.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvaluatedView {
    pub step: String,
    /// What was evaluated: `edge` (with its `label`), `run_when`, `gate_when` or `check` (with its `index`).
    #[schemars(with = "Map<String, Value>")]
    pub subject: Value,
    /// The CEL condition as written, or what the check requires.
    pub text: String,
    /// The values it read, by name (`context.stable` for a field of the context), each cut at 256 bytes of JSON.
    #[schemars(with = "Map<String, Value>")]
    pub read: Value,
    /// `held`, `not_held`, `error` or `used_up`.
    pub result: String,
    /// For an edge not taken: the smallest change of the context that would have taken it ("set stable to true"), or that no simple change would.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest: Option<String>,
}

impl From<&switchyard_core::why::Why> for WhyView {
    fn from(why: &switchyard_core::why::Why) -> Self {
        Self {
            sentence: why.sentence(),
            rule: serde_json::to_value(&why.rule).unwrap_or(Value::Null),
            evaluated: why
                .evaluated
                .iter()
                .map(|evaluated| EvaluatedView {
                    step: evaluated.step.to_string(),
                    subject: serde_json::to_value(&evaluated.subject).unwrap_or(Value::Null),
                    text: evaluated.text.clone(),
                    read: serde_json::to_value(&evaluated.read).unwrap_or(Value::Null),
                    result: evaluated.result.kind().to_owned(),
                    nearest: evaluated.nearest.as_ref().map(switchyard_core::why::Nearest::sentence),
                })
                .collect(),
            more: (why.more > 0).then_some(why.more),
        }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssueView {
    pub code: String,
    pub path: String,
    pub message: String,
}

impl From<&switchyard_core::state::ValidationIssue> for IssueView {
    fn from(issue: &switchyard_core::state::ValidationIssue) -> Self {
        Self { code: issue.code.clone(), path: issue.path.clone(), message: issue.message.clone() }
    }
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValidationView {
    pub issues: Vec<IssueView>,
    /// The step's output schema, when the artifacts must match one.
    pub expected_schema: Option<Value>,
    pub notes_required: bool,
    /// What the blocked call sent (notes shown by length), when this call made it.
    pub sent: Option<Value>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GateView {
    pub step_id: String,
    pub title: String,
    pub choice: Option<String>,
    /// The command a human runs to approve; agents cannot approve.
    pub approve_with: String,
    pub reject_with: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub reason: Value,
    pub options: Vec<String>,
    pub decide_with: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecapView {
    pub text: String,
    pub truncated: bool,
    pub dropped: usize,
}

/// Where a run stands after a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Ok,
    Blocked,
    WaitingForHumanGate,
    WaitingForHumanDecision,
    Complete,
    Failed,
    Paused,
    Stopped,
}

impl From<ResponseKind> for Kind {
    fn from(kind: ResponseKind) -> Self {
        match kind {
            ResponseKind::Ok => Self::Ok,
            ResponseKind::Blocked => Self::Blocked,
            ResponseKind::WaitingGate => Self::WaitingForHumanGate,
            ResponseKind::WaitingForHumanDecision => Self::WaitingForHumanDecision,
            ResponseKind::Complete => Self::Complete,
            ResponseKind::Failed => Self::Failed,
            ResponseKind::Paused => Self::Paused,
            ResponseKind::Stopped => Self::Stopped,
        }
    }
}

/// What the agent does next: do the pending step then report, wait for a human (asking again returns the same status), only look at the run, or nothing (complete).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum NextIntent {
    PerformPendingThenContinue,
    AwaitUserConfirmation,
    RehydrateOnly,
    Complete,
}

/// An advance's status report warnings and downgraded audit findings.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportWarningsView {
    pub warnings: Vec<IssueView>,
    pub downgraded: Vec<DowngradedView>,
}

/// A blocked audit finding that did not block: below the run's threshold, or not validated.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DowngradedView {
    /// JSON pointer of the finding in the artifacts sent.
    pub path: String,
    pub summary: String,
    pub confidence: f64,
    pub validated: bool,
    pub min_confidence: f64,
}

/// Why a run failed.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailureView {
    pub code: String,
    pub message: String,
}

/// The answer of `start_workflow` and `continue_workflow`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Execution {
    pub kind: Kind,
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
    pub failure: Option<FailureView>,
    pub recap: Option<RecapView>,
    /// What this advance's status report did not block on: missing extended fields, and audit findings downgraded below the run's audit_min_confidence. Absent when nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub report_warnings: Option<ReportWarningsView>,
    /// What switchyard observed of the reported work, check by check (the step's evidence), passed or not. Absent when the step has none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<EvidenceResultView>,
    /// Why the run went where it went in this call: each condition and check evaluated and the rule that chose. Absent when none was evaluated and no person decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<WhyView>,
    #[schemars(with = "Map<String, Value>")]
    pub progress: Value,
    pub next_intent: NextIntent,
    pub next_call: Option<NextCall>,
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
            evidence: step
                .evidence
                .iter()
                .map(|check| EvidenceView { kind: check.kind().to_owned(), requires: check.requirement() })
                .collect(),
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
            issues: validation.issues.iter().map(IssueView::from).collect(),
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
                NextIntent::PerformPendingThenContinue,
                // The report the step asks for, with the runtime's `<fill in: …>` placeholders
                // (the artifacts the output schema requires, a choice where one is needed): once
                // filled in, this call can succeed. Sent verbatim, the runtime refuses it before
                // anything is recorded (`REPORT_NOT_FILLED_IN`).
                continue_token.as_ref().map(|token| {
                    let mut params = json!({ "continueToken": token });
                    let mut fill_in = Vec::new();
                    if let Some(report) = &response.report {
                        let mut output = json!({ "notesMarkdown": report.notes });
                        if let Some(artifacts) = &report.artifacts {
                            output["artifacts"] = artifacts.clone();
                        }
                        params["output"] = output;
                        if let Some(choice) = &report.choice {
                            params["choice"] = json!(choice);
                        }
                        fill_in = report
                            .fill_in
                            .iter()
                            .map(|fill| FillInView { path: fill.path.clone(), what: fill.what.clone() })
                            .collect();
                    }
                    NextCall { tool: CONTINUE_WORKFLOW, params, fill_in }
                }),
            ),
            ResponseKind::WaitingGate | ResponseKind::WaitingForHumanDecision | ResponseKind::Paused => (
                NextIntent::AwaitUserConfirmation,
                Some(NextCall::verbatim(
                    CONTINUE_WORKFLOW,
                    json!({ "continueToken": resume_token, "intent": "rehydrate" }),
                )),
            ),
            ResponseKind::Complete => (NextIntent::Complete, None),
            ResponseKind::Failed | ResponseKind::Stopped => (NextIntent::RehydrateOnly, None),
        };
        Execution {
            kind: kind.into(),
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
                .map(|failure| FailureView { code: failure.code.clone(), message: failure.message.clone() }),
            recap: recap.map(|recap| RecapView {
                text: recap.text,
                truncated: recap.truncated,
                dropped: recap.dropped,
            }),
            report_warnings: response.report_warnings.as_ref().map(|report| ReportWarningsView {
                warnings: report.warnings.iter().map(IssueView::from).collect(),
                downgraded: report
                    .downgraded
                    .iter()
                    .map(|finding| DowngradedView {
                        path: finding.path.clone(),
                        summary: finding.summary.clone(),
                        confidence: finding.confidence,
                        validated: finding.validated,
                        min_confidence: finding.min_confidence,
                    })
                    .collect(),
            }),
            evidence: response
                .evidence
                .iter()
                .map(|result| EvidenceResultView {
                    check: result.check,
                    passed: result.passed,
                    observed: serde_json::to_value(&result.observation).unwrap_or(Value::Null),
                })
                .collect(),
            why: response.why.as_ref().map(WhyView::from),
            progress: serde_json::to_value(&response.progress).unwrap_or(Value::Null),
            next_intent,
            next_call,
        }
    }
}

/// Where a workflow was found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceView {
    /// `project`, `user`, `attached`, `built_in` or `file`.
    pub kind: &'static str,
    pub path: String,
}

/// One workflow of `list_workflows`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowEntry {
    pub workflow_id: String,
    pub name: String,
    pub description: String,
    pub version: String,
    /// Always `workflow`.
    pub kind: &'static str,
    pub workflow_hash: String,
    pub tags: Vec<String>,
    pub source: SourceView,
    /// The lower-precedence copies this one hides (with `includeSources`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shadows: Option<Vec<String>>,
}

/// A workflow file that failed to load.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoadWarning {
    pub workflow_id: String,
    pub source: String,
    pub errors: Vec<String>,
}

/// One tag of `list_workflows`' summary.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TagSummary {
    /// The tag, as `tags` takes it; `untagged` gathers the workflows without tags.
    pub id: String,
    /// Its name for people, where a WorkRail tag catalog gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display_name: Option<String>,
    /// When to use it, where a WorkRail tag catalog says.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub when: Vec<String>,
    /// How many visible workflows carry it.
    pub count: usize,
    /// A few of their ids.
    pub examples: Vec<String>,
}

/// The answer of `list_workflows`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowList {
    /// Empty when the answer is the tag summary.
    pub workflows: Vec<WorkflowEntry>,
    /// Every tag with its count, when the call named no tags (and did not ask for `listAll`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag_summary: Option<Vec<TagSummary>>,
    pub validation_warnings: Vec<LoadWarning>,
    pub truncated: bool,
}

/// The answer of `inspect_workflow`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowView {
    pub workflow_id: String,
    pub workflow_hash: String,
    /// `metadata` or `preview`.
    pub mode: &'static str,
    pub source: SourceView,
    /// The workflow's metadata, or its whole compiled graph.
    #[schemars(with = "Map<String, Value>")]
    pub compiled: Value,
}

/// The answer of `checkpoint_workflow`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointView {
    pub checkpoint_node_id: String,
    pub run_id: String,
    pub resume_token: String,
    pub continue_token: Option<String>,
    pub replayed: bool,
    pub next_call: Option<NextCall>,
}

/// How sure a resume candidate is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Strong,
    Medium,
    Weak,
}

impl From<switchyard_runtime::Confidence> for Confidence {
    fn from(confidence: switchyard_runtime::Confidence) -> Self {
        match confidence {
            switchyard_runtime::Confidence::Strong => Self::Strong,
            switchyard_runtime::Confidence::Medium => Self::Medium,
            switchyard_runtime::Confidence::Weak => Self::Weak,
        }
    }
}

/// One candidate of `resume_session`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResumeCandidate {
    pub session_id: String,
    pub run_id: Option<String>,
    pub workflow_id: Option<String>,
    pub session_title: String,
    pub goal: String,
    pub git_branch: Option<String>,
    pub git_head_sha: Option<String>,
    pub workspace_path: Option<String>,
    pub resume_token: Option<String>,
    pub snippet: String,
    pub confidence: Confidence,
    pub why_matched: Vec<String>,
    pub pending_step_id: Option<String>,
    pub status: Option<&'static str>,
    pub is_complete: bool,
    pub last_modified_ms: i64,
    pub next_call: Option<NextCall>,
}

/// The answer of `resume_session`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResumeView {
    #[schemars(length(max = 5))]
    pub candidates: Vec<ResumeCandidate>,
    pub total_eligible: usize,
}

/// The answer of `manage_workflow_source`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SourceChangeView {
    /// `attach` or `detach`.
    pub action: &'static str,
    /// The folder, resolved to its canonical path.
    pub path: String,
    /// `false` when the folder was already attached (or already detached).
    pub changed: bool,
}

/// A run resource's content.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunResource {
    pub uri: String,
    pub run_id: String,
    pub session_id: String,
    pub workflow_id: String,
    pub status: switchyard_core::RunStatus,
    /// `running`, `paused` or `stopped`: what people set.
    pub control: &'static str,
    /// The node the run stands at.
    pub node_id: String,
    /// The step at that node; none once the run has ended.
    pub step: Option<StepSummary>,
    pub node_count: u64,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    /// What moves the run on from here, in words.
    pub next: String,
}

/// The step a run stands at.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepSummary {
    pub step_id: String,
    pub title: String,
    /// The step waits for a person's approval once it is done.
    pub gate: bool,
    pub attempts_left: u32,
}
