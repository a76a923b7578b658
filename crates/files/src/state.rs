//! Writes to the state document `state/workflow.md`: checked against the document's own format
//! before anything touches disk, then translated into the same advance any other door makes
//! (`Runtime::advance_to` the step `currentNodeId` names). Engine rules (which edge leads there,
//! its conditions and counters, the variables' types, output contracts) are the engine's alone;
//! its refusals and blocked attempts are mapped to this door's codes here. The file itself is
//! never written here: the run folder regenerates it from the events the advance records.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};
use switchyard_core::RunId;
use switchyard_core::workflow::{EdgeTarget, StepId};
use switchyard_run_folder::{COMPLETE_TARGET, RunFolders, StateDocument, state_schema};
use switchyard_runtime::{AdvanceInput, ResponseKind, Runtime};

use crate::error::{ToolError, codes};
use crate::{folder_error, frontmatter, runtime_error};

/// What an accepted write did, in one line for the agent.
pub async fn write(
    runtime: &Runtime,
    folders: &RunFolders,
    run: RunId,
    text: &str,
    if_match: Option<&str>,
) -> Result<String, ToolError> {
    let document = folders.state_document(runtime, run).await.map_err(|error| folder_error(&error))?;
    if let Some(expected) = if_match {
        let actual = crate::sha256_hex(document.text.as_bytes());
        if !expected.eq_ignore_ascii_case(&actual) {
            return Err(precondition(format!(
                "the state document changed since you read it (sha256 {actual}, you expected {expected}); read it again"
            )));
        }
    }
    let (written, _) = frontmatter::parse(text).map_err(|error| schema_error(&error.message, &[]))?;
    let move_request = check(&document, &written)?;
    let Some(request) = move_request else {
        return Ok("no change: the state document already says this".to_owned());
    };
    // The first attempt's token, not a fresh one: a write racing another that already moved
    // this node must be refused (a replay mismatch), never fork the run.
    let token = runtime.first_attempt_token(document.node.id).await.map_err(|error| runtime_error(&error))?;
    let Some(token) = token else {
        let reason = format!("the run is {}: nothing can move now", document.frontmatter.status);
        return Err(transition(&document, &request.to, &reason));
    };
    let from = document.frontmatter.current_node_id.clone();
    let advanced = match request.target {
        Some(target) => runtime.advance_to(&token, Some(run), request.input, target).await,
        None => runtime.advance(&token, Some(run), request.input).await,
    };
    let response = match advanced {
        Ok(response) => response,
        Err(switchyard_runtime::Error::ReplayMismatch { .. }) => {
            return Err(precondition(
                "another write moved the run from this step first; read the state document again".to_owned(),
            ));
        }
        Err(error) if error.code() == NO_EDGE_TO_STEP => return Err(refused_move(&document, &request.to, &error)),
        Err(error) => return Err(runtime_error(&error)),
    };
    if response.kind == ResponseKind::Blocked {
        let issues = response.validation.map(|validation| validation.issues).unwrap_or_default();
        let listed: Vec<String> =
            issues.iter().map(|issue| format!("{} at {}: {}", issue.code, issue.path, issue.message)).collect();
        return Err(ToolError::new(
            codes::STEP_BLOCKED,
            format!("the move from `{from}` was recorded as blocked: {}", listed.join("; ")),
        )
        .with_details(json!({ "issues": issues })));
    }
    let now =
        response.step.as_ref().map_or_else(|| response.status.to_string(), |step| format!("step `{}`", step.step));
    let replayed = if response.replayed { " (already recorded)" } else { "" };
    Ok(format!("recorded{replayed}: `{from}` -> {}; the run is now at {now}", request.to))
}

/// The advance an accepted write becomes.
#[derive(Debug)]
struct MoveRequest {
    to: String,
    /// Where the document says the run goes; `None`: along the edge `input.choice` names.
    target: Option<EdgeTarget>,
    input: AdvanceInput,
}

fn validator() -> &'static jsonschema::Validator {
    static VALIDATOR: OnceLock<jsonschema::Validator> = OnceLock::new();
    VALIDATOR.get_or_init(|| jsonschema::draft202012::new(&state_schema()).expect("the state schema compiles"))
}

/// Checks a written frontmatter against the current document. `Ok(None)`: nothing moves and
/// nothing changed.
fn check(document: &StateDocument, written: &Map<String, Value>) -> Result<Option<MoveRequest>, ToolError> {
    let instance = Value::Object(written.clone());
    let errors: Vec<Value> = validator()
        .iter_errors(&instance)
        .take(20)
        .map(|error| json!({ "path": error.instance_path().to_string(), "message": error.to_string() }))
        .collect();
    if !errors.is_empty() {
        return Err(schema_error("the frontmatter does not match the state document schema", &errors));
    }
    let current = &document.frontmatter;
    for (key, value) in [
        ("runId", json!(current.run_id)),
        ("workflowType", json!(current.workflow_type)),
        ("schemaVersion", json!(current.schema_version)),
    ] {
        if written.get(key) != Some(&value) {
            return Err(schema_error(
                &format!("`{key}` is read-only"),
                &[json!({ "path": format!("/{key}"), "message": format!("must stay {value}") })],
            ));
        }
    }
    if let Some(node) = written.get("nodeId").and_then(Value::as_str)
        && node != current.node_id
    {
        return Err(precondition(format!(
            "the document you wrote reflects node {node}, but the run has moved to {}; read it again",
            current.node_id
        )));
    }
    let workflow = &document.workflow.workflow;
    let entry = workflow.entry.to_string();
    let effective = |id: &str| if id.trim().is_empty() { entry.clone() } else { id.trim().to_owned() };
    let from = effective(&current.current_node_id);
    let to = effective(written.get("currentNodeId").and_then(Value::as_str).unwrap_or_default());
    let steps: Vec<String> = string_list(written.get("stepsCompleted"));
    if steps.len() < current.steps_completed.len()
        || steps[..current.steps_completed.len()] != current.steps_completed[..]
    {
        let missing: Vec<&String> = current.steps_completed.iter().filter(|step| !steps.contains(step)).collect();
        return Err(transition(
            document,
            &to,
            "`stepsCompleted` may only grow: keep every entry it had, in order, and add new ones at the end",
        )
        .with_details(json!({ "from": from, "to": to, "allowedNext": allowed_next(document), "missing": missing })));
    }
    // Variables are sent as they are: their declared types are the engine's to check, and a
    // mistyped one is a blocked attempt through this door as through any other.
    let variables = written.get("variables").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut delta = Map::new();
    for (name, value) in &variables {
        if current.variables.get(name) != Some(value) {
            delta.insert(name.clone(), value.clone());
        }
    }
    for name in current.variables.keys() {
        if !variables.contains_key(name) {
            delta.insert(name.clone(), Value::Null);
        }
    }
    let log = written.get("decisionLog").and_then(Value::as_array).cloned().unwrap_or_default();
    let old_log: Vec<Value> =
        current.decision_log.iter().map(|entry| serde_json::to_value(entry).unwrap_or(Value::Null)).collect();
    if log.len() < old_log.len() || log[..old_log.len()] != old_log[..] || log.len() > old_log.len() + 1 {
        return Err(schema_error(
            "`decisionLog` keeps its entries; append at most one entry (`notes`, `artifacts`, `choice`) per move",
            &[json!({ "path": "/decisionLog", "message": "earlier entries changed or several were added" })],
        ));
    }
    let added = log.get(old_log.len()).and_then(Value::as_object).cloned().unwrap_or_default();
    let choice = added.get("choice").and_then(Value::as_str).map(str::to_owned);
    let completes_here = steps.len() > current.steps_completed.len() && steps.last() == Some(&from);
    let moves = to != from || completes_here || choice.is_some();
    if !moves {
        if delta.is_empty() && added.is_empty() {
            return Ok(None);
        }
        return Err(transition(
            document,
            &to,
            "nothing moves: variables and notes are recorded with a move; change `currentNodeId` (or finish the step) in the same write",
        ));
    }
    // What the document names, in the engine's terms; which edge that is, and whether it may be
    // taken, is the engine's to say. An unchanged `currentNodeId` with a choice takes that edge
    // wherever it leads; without one it finishes the step: along an edge back to the step itself
    // if it has one, else to the end of the run.
    let target = if to == COMPLETE_TARGET {
        Some(EdgeTarget::Complete)
    } else if to != from {
        Some(EdgeTarget::Step(StepId::new(to.clone())))
    } else if choice.is_some() {
        None
    } else {
        let here = EdgeTarget::Step(StepId::new(from.clone()));
        let loops_back =
            workflow.step(&StepId::new(from)).is_some_and(|step| step.edges.iter().any(|edge| edge.target == here));
        Some(if loops_back { here } else { EdgeTarget::Complete })
    };
    let notes = added.get("notes").and_then(Value::as_str).map(str::to_owned);
    let artifacts = added.get("artifacts").cloned();
    Ok(Some(MoveRequest {
        to,
        target,
        input: AdvanceInput { notes, artifacts, context: (!delta.is_empty()).then_some(delta), choice },
    }))
}

fn string_list(value: Option<&Value>) -> Vec<String> {
    value
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// `allowedNext` of the document's current step.
pub fn allowed_next(document: &StateDocument) -> Vec<Value> {
    let Some(pending) = &document.pending else { return Vec::new() };
    if pending.allowed_next.is_empty() {
        return vec![json!({
            "to": COMPLETE_TARGET, "label": "", "isDefault": true,
            "conditionText": "the last step: finish it by adding it to stepsCompleted"
        })];
    }
    pending
        .allowed_next
        .iter()
        .map(|edge| {
            json!({
                "to": edge.to.as_ref().map_or_else(|| COMPLETE_TARGET.to_owned(), ToString::to_string),
                "label": edge.label,
                "isDefault": edge.default,
                "conditionText": edge.condition_text,
            })
        })
        .collect()
}

/// The engine's code for a move to a step no edge of the current one leads to.
const NO_EDGE_TO_STEP: &str = "NO_EDGE_TO_STEP";

/// The engine's refusal of the move, as this door reports a transition it cannot make; the
/// engine's message names the allowed next steps already.
fn refused_move(document: &StateDocument, to: &str, error: &switchyard_runtime::Error) -> ToolError {
    let from = &document.frontmatter.current_node_id;
    ToolError::new(
        codes::INVALID_TRANSITION,
        format!("invalid transition `{from}` -> `{to}`: {error}; the file is unchanged"),
    )
    .with_details(json!({ "from": from, "to": to, "allowedNext": allowed_next(document) }))
}

fn transition(document: &StateDocument, to: &str, reason: &str) -> ToolError {
    let from = &document.frontmatter.current_node_id;
    let allowed = allowed_next(document);
    let listed: Vec<String> = allowed
        .iter()
        .map(|edge| {
            format!("`{}` (label `{}`)", edge["to"].as_str().unwrap_or(""), edge["label"].as_str().unwrap_or(""))
        })
        .collect();
    let next = if listed.is_empty() { "none".to_owned() } else { listed.join(", ") };
    ToolError::new(
        codes::INVALID_TRANSITION,
        format!("invalid transition `{from}` -> `{to}`: {reason}; allowed next: {next}; the file is unchanged"),
    )
    .with_details(json!({ "from": from, "to": to, "allowedNext": allowed }))
}

fn schema_error(message: &str, errors: &[Value]) -> ToolError {
    ToolError::new(
        codes::SCHEMA_VALIDATION,
        format!("{message}; the file is unchanged (see `switchyard schema state`)"),
    )
    .with_details(json!({ "errors": errors }))
}

fn precondition(message: String) -> ToolError {
    ToolError::new(codes::PRECONDITION_FAILED, message)
}
