//! The forms that change a run: approve, reject and decide (from the gate inbox or a session's
//! page), and pause, resume and stop. Each checks the CSRF token, runs the runtime command the
//! CLI runs, and redirects (303) back with a flash message saying what happened.
//!
//! A gate form names the node it was shown for and answers that node ([`Runtime::answer`]): when
//! the run has moved on since (another person, another terminal), the runtime refuses it rather
//! than acting on whatever waits now.
//!
//! [`Runtime::answer`]: switchyard_runtime::Runtime::answer

use axum::Form;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use switchyard_core::state::DecisionOption;
use switchyard_core::{NodeId, RunId, SessionId};
use switchyard_runtime::{HumanAnswer, StepResponse, Target};

use crate::ConsoleState;
use crate::error::PageError;
use crate::pages::parse_id;
use crate::security::{check_csrf, flash};

/// A gate or decision form. Every field defaults to empty, so a missing one gets this console's
/// answer (a refused CSRF token first) rather than a bare 422.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct GateForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    run: String,
    #[serde(default)]
    node: String,
    #[serde(default)]
    session: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    note: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    option: String,
    /// `stop` when the person ticked that stopping is permanent (a decision to stop).
    #[serde(default)]
    confirm: String,
}

/// What a gate form names, checked.
struct Checked {
    run: RunId,
    node: NodeId,
    back: String,
}

impl GateForm {
    fn note(&self) -> Option<String> {
        Some(self.note.trim().to_owned()).filter(|note| !note.is_empty())
    }

    /// The CSRF token, then the ids and that the run belongs to the session. Whether the run still
    /// waits where the page showed it is the runtime's to say, when it answers.
    async fn check(&self, state: &ConsoleState, headers: &HeaderMap) -> Result<Checked, PageError> {
        check_csrf(state, headers, &self.csrf)?;
        let run: RunId = parse_id("run", &self.run)?;
        let node: NodeId = parse_id("node", &self.node)?;
        let session: SessionId = parse_id("session", &self.session)?;
        let record = state.runtime.run(&Target::Run(run)).await?;
        if record.session != session {
            return Err(PageError::BadRequest(format!("run {run} is not a run of session {session}")));
        }
        let back = if self.from == "session" { format!("/sessions/{session}") } else { "/gates".to_owned() };
        Ok(Checked { run, node, back })
    }
}

/// `303 See Other` to `back`, leaving `message` for the page.
fn redirect(back: &str, message: &str) -> Response {
    let location = HeaderValue::from_str(back).unwrap_or_else(|_| HeaderValue::from_static("/"));
    (StatusCode::SEE_OTHER, [(header::LOCATION, location), (header::SET_COOKIE, flash(message))]).into_response()
}

/// Where the run stands after a command, in words.
fn outcome(response: &StepResponse) -> String {
    let status = response.status.as_str().replace('_', " ");
    match &response.step {
        Some(step) => format!("run {} is now {status}, at step {}", response.run, step.title),
        None => format!("run {} is now {status}", response.run),
    }
}

pub(crate) async fn approve(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    Form(form): Form<GateForm>,
) -> Result<Response, PageError> {
    let checked = form.check(&state, &headers).await?;
    let response = state.runtime.answer(checked.run, checked.node, HumanAnswer::Approve { note: form.note() }).await?;
    Ok(redirect(&checked.back, &format!("Approved: {}.", outcome(&response))))
}

pub(crate) async fn reject(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    Form(form): Form<GateForm>,
) -> Result<Response, PageError> {
    let checked = form.check(&state, &headers).await?;
    let reason = form.reason.trim();
    if reason.is_empty() {
        return Err(PageError::BadRequest(
            "a rejection needs a reason: the agent reads it to redo the step; go back and write one".to_owned(),
        ));
    }
    let response =
        state.runtime.answer(checked.run, checked.node, HumanAnswer::Reject { reason: reason.to_owned() }).await?;
    Ok(redirect(&checked.back, &format!("Rejected: {}.", outcome(&response))))
}

pub(crate) async fn decide(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    Form(form): Form<GateForm>,
) -> Result<Response, PageError> {
    let checked = form.check(&state, &headers).await?;
    let option: DecisionOption =
        serde_json::from_value(serde_json::Value::String(form.option.clone())).map_err(|_| {
            PageError::BadRequest(format!(
                "`{}` is not a decision option: use accept, revise, replan, proceed or stop",
                form.option
            ))
        })?;
    if option == DecisionOption::Stop && form.confirm != "stop" {
        return Err(PageError::BadRequest(
            "stopping a run is permanent: tick \"Stopping is permanent\" before choosing stop (confirm=stop); nothing was decided"
                .to_owned(),
        ));
    }
    let response =
        state.runtime.answer(checked.run, checked.node, HumanAnswer::Decide { option, note: form.note() }).await?;
    Ok(redirect(&checked.back, &format!("Decided {}: {}.", option.as_str(), outcome(&response))))
}

/// A pause, resume or stop form.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ControlForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    run: String,
    #[serde(default)]
    action: String,
    #[serde(default)]
    reason: String,
    /// `stop` when the person ticked that stopping is permanent.
    #[serde(default)]
    confirm: String,
}

pub(crate) async fn control(
    State(state): State<ConsoleState>,
    Path(session): Path<String>,
    headers: HeaderMap,
    Form(form): Form<ControlForm>,
) -> Result<Response, PageError> {
    check_csrf(&state, &headers, &form.csrf)?;
    let session: SessionId = parse_id("session", &session)?;
    let run: RunId = parse_id("run", &form.run)?;
    if state.runtime.run(&Target::Run(run)).await?.session != session {
        return Err(PageError::BadRequest(format!("run {run} is not a run of session {session}")));
    }
    let reason = Some(form.reason.trim().to_owned()).filter(|reason| !reason.is_empty());
    let (done, response) = match form.action.as_str() {
        "pause" => ("Paused", state.runtime.pause(run, reason).await?),
        "resume" => ("Resumed", state.runtime.resume(run).await?),
        "stop" if form.confirm != "stop" => {
            return Err(PageError::BadRequest(
                "stopping a run is permanent: tick \"Stopping is permanent\" beside the Stop button to confirm (confirm=stop)"
                    .to_owned(),
            ));
        }
        "stop" => ("Stopped", state.runtime.stop(run, reason).await?),
        other => {
            return Err(PageError::BadRequest(format!("`{other}` is not a control: use pause, resume or stop")));
        }
    };
    Ok(redirect(&format!("/sessions/{session}"), &format!("{done}: {}.", outcome(&response))))
}
