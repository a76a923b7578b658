//! `/sessions/{id}/nodes/{node}`: one node of a run: the step's prompt as rendered there, the
//! report that led to it (notes as Markdown, artifacts, the context change, the choice), the
//! reports sent from it, the validation of a blocked attempt, gate and human decisions,
//! checkpoints, the context at the node and when each happened, and why the run went there (each
//! condition and check marked PASS or SKIP, and on the workflow's graph).
//!
//! The runner's transcript of the step (its model turns) plugs in here once the runner records
//! turn events: one more section listing the turns recorded for this node.

use axum::Extension;
use axum::extract::{Path, State};
use maud::{Markup, PreEscaped, html};

use switchyard_core::event::EventKind;
use switchyard_core::state::Phase;
use switchyard_core::turn::ModelTurn;
use switchyard_core::{NodeId, SessionId};
use switchyard_runtime::Target;
use switchyard_store::StoredEvent;

use crate::ConsoleState;
use crate::diagram;
use crate::error::PageError;
use crate::layout::{self, Frame, Section};
use crate::markdown;
use crate::pages::parse_id;
use crate::pages::session::validation_list;
use crate::security::BrowserSession;
use switchyard_core::wire_name;

/// Events read from the store per call while looking for a node's events.
const EVENTS_PER_READ: u32 = 1000;

/// Every event of a session, oldest first.
async fn session_events(state: &ConsoleState, session: SessionId) -> Result<Vec<StoredEvent>, PageError> {
    let mut events = Vec::new();
    loop {
        let after = events.last().map_or(0, |event: &StoredEvent| event.seq);
        let page = state.runtime.events(session, after, EVENTS_PER_READ).await?;
        let done = page.len() < EVENTS_PER_READ as usize;
        events.extend(page);
        if done {
            return Ok(events);
        }
    }
}

pub(crate) async fn show(
    State(state): State<ConsoleState>,
    Extension(browser): Extension<BrowserSession>,
    Path((session, node)): Path<(String, String)>,
) -> Result<Markup, PageError> {
    let session: SessionId = parse_id("session", &session)?;
    let node: NodeId = parse_id("node", &node)?;
    let record = state
        .runtime
        .store()
        .node(node)
        .await
        .map_err(switchyard_runtime::Error::from)?
        .filter(|record| record.session == session)
        .ok_or_else(|| PageError::NotFound(format!("no node `{node}` in session `{session}`")))?;
    let pending = state.runtime.pending_at(node).await?;
    let events = session_events(&state, session).await?;
    let now = state.runtime.now_ms();
    let frame = Frame::load(&state, &browser, Section::Sessions).await;
    let about_this = |event: &&StoredEvent| match &event.kind {
        EventKind::AdvanceRecorded { from, to, .. } => *from == node || *to == node,
        EventKind::ReportWarned { node: about, .. }
        | EventKind::EvidenceRecorded { node: about, .. }
        | EventKind::GateDecided { node: about, .. }
        | EventKind::HumanDecided { node: about, .. }
        | EventKind::CheckpointRecorded { node: about, .. }
        | EventKind::RunCompleted { node: about }
        | EventKind::RunFailed { node: about, .. } => *about == node,
        EventKind::ModelTurn(turn) => turn.node == node,
        _ => false,
    };
    let related: Vec<&StoredEvent> = events.iter().filter(about_this).collect();
    // Why the command that created the node went here, drawn on the workflow's graph.
    let decision = events.iter().find_map(|event| match &event.kind {
        EventKind::DecisionRecorded { node: about, step, why } if *about == node => Some((step, why)),
        _ => None,
    });
    let why = match decision {
        Some((step, why)) => {
            let run = state.runtime.run(&Target::Run(record.run)).await?;
            let workflow = state.runtime.pinned_workflow(run.workflow_hash).await?;
            let graph = diagram::marked_workflow_graph(&workflow.workflow, &diagram::edge_marks(step.as_str(), why));
            Some((why, graph))
        }
        None => None,
    };
    let title = format!("{} · {}", record.step, wire_name(&record.kind).replace('_', " "));
    let body = html! {
        nav.breadcrumbs aria-label="Breadcrumbs" {
            a href="/" { "Sessions" } " › " a href={ "/sessions/" (session) } { (session) } " › " span { (node) }
        }
        h1 { "Step " code { (record.step) } " · " (wire_name(&record.kind).replace('_', " ")) }
        dl.facts data-testid="node-facts" {
            dt { "Status here" } dd { (layout::status_badge(Some(record.status))) }
            dt { "Created" } dd { (layout::time(now, record.created_at_ms)) " (event " (record.created_seq) ")" }
            dt { "How" } dd { (wire_name(&record.cause)) }
            @if let Some(parent) = record.parent {
                dt { "Parent" } dd { a href={ "/sessions/" (session) "/nodes/" (parent) } { code { (parent) } } }
            }
            dt { "Children" } dd { (record.child_count) }
        }
        @if let Some(rejection) = &record.state.rejection { p.warning { "Sent back by a human: " (rejection) } }
        @match &record.state.phase {
            Phase::Blocked { validation } => { (validation_list("This attempt was blocked", &validation.issues)) }
            Phase::Failed { code, message } => { p.bad { "The run failed here (" (code.as_str()) "): " (message) } }
            _ => {}
        }
        @if let Some(step) = &pending {
            section aria-labelledby="prompt-heading" {
                h2 id="prompt-heading" { "Prompt" }
                p { strong { (step.title) } }
                pre.prompt data-testid="node-prompt" { (step.prompt) }
            }
        }
        @if let Some((why, graph)) = &why {
            section aria-labelledby="why-heading" data-testid="node-why" {
                h2 id="why-heading" { "Why the run went here" }
                (layout::why_list(why))
                figure.diagram data-testid="why-diagram" { (graph) }
            }
        }
        section aria-labelledby="events-heading" {
            h2 id="events-heading" { "What happened here" }
            @if related.is_empty() { p { "Nothing recorded on this node yet." } }
            @for event in &related {
                article.event data-testid={ "event-" (event.kind.name()) } {
                    h3 { (heading(&event.kind, node)) " " small { (layout::time(now, event.at_ms)) } }
                    (event_body(session, &event.kind, node))
                }
            }
        }
        section aria-labelledby="context-heading" {
            h2 id="context-heading" { "Context at this node" }
            (layout::json_details("Context", &serde_json::Value::Object(record.state.context.clone()), false))
        }
    };
    Ok(layout::page(&title, &frame, &body))
}

fn heading(kind: &EventKind, node: NodeId) -> String {
    match kind {
        EventKind::AdvanceRecorded { to, .. } if *to == node => "The report that led here".to_owned(),
        EventKind::AdvanceRecorded { .. } => "A report sent on this step".to_owned(),
        EventKind::ReportWarned { .. } => "Status report warnings".to_owned(),
        EventKind::EvidenceRecorded { results, .. } if results.iter().all(|result| result.passed) => {
            "Evidence: every check passed".to_owned()
        }
        EventKind::EvidenceRecorded { .. } => "Evidence: checks failed".to_owned(),
        EventKind::GateDecided { approved: true, .. } => "Gate approved".to_owned(),
        EventKind::GateDecided { approved: false, .. } => "Gate rejected".to_owned(),
        EventKind::HumanDecided { option, .. } => format!("Human decision: {}", option.as_str()),
        EventKind::CheckpointRecorded { automatic: true, .. } => "Automatic checkpoint".to_owned(),
        EventKind::CheckpointRecorded { .. } => "Checkpoint".to_owned(),
        EventKind::RunCompleted { .. } => "The run completed".to_owned(),
        EventKind::RunFailed { .. } => "The run failed".to_owned(),
        EventKind::ModelTurn(turn) => format!("Model turn {} ({})", turn.turn, turn.model),
        other => other.name().replace('_', " "),
    }
}

/// Agent-written Markdown, rendered safely.
fn notes(text: &str) -> Markup {
    html! { div.notes data-testid="notes" { (PreEscaped(markdown::render(text))) } }
}

fn node_link(session: SessionId, node: NodeId) -> Markup {
    html! { a href={ "/sessions/" (session) "/nodes/" (node) } { code { (node) } } }
}

fn event_body(session: SessionId, kind: &EventKind, node: NodeId) -> Markup {
    html! {
        @match kind {
            EventKind::AdvanceRecorded { from, to, notes: text, artifacts, context_delta, choice, edge_label, .. } => {
                p {
                    @if *to == node { "From " (node_link(session, *from)) } @else { "Led to " (node_link(session, *to)) }
                    @if let Some(choice) = choice { " · choice " code { (choice) } }
                    @if let Some(edge) = edge_label { " · edge " code { (edge) } }
                }
                @if let Some(text) = text { (notes(text)) }
                @if let Some(artifacts) = artifacts { (layout::json_details("Artifacts", artifacts, false)) }
                @if let Some(delta) = context_delta { (layout::json_details("Context change", &serde_json::Value::Object(delta.clone()), false)) }
            }
            EventKind::ReportWarned { warnings, downgraded, .. } => {
                @if !warnings.is_empty() { (validation_list("Warnings", warnings)) }
                @if !downgraded.is_empty() {
                    (layout::json_details("Audit findings below the threshold", &serde_json::to_value(downgraded).unwrap_or_default(), false))
                }
            }
            EventKind::EvidenceRecorded { results, .. } => {
                (layout::evidence_list(results))
                (layout::json_details("What switchyard observed", &serde_json::to_value(results).unwrap_or_default(), false))
            }
            EventKind::GateDecided { to, reason, .. } => {
                p { "Led to " (node_link(session, *to)) }
                @if let Some(reason) = reason { p { "Reason: " } (notes(reason)) }
            }
            EventKind::HumanDecided { to, note, .. } => {
                p { "Led to " (node_link(session, *to)) }
                @if let Some(note) = note { (notes(note)) }
            }
            EventKind::CheckpointRecorded { notes: text, phase, .. } => {
                @if let Some(phase) = phase { p { "Phase " code { (phase) } } }
                @if let Some(text) = text { (notes(text)) }
            }
            EventKind::RunFailed { code, message, .. } => { p { code { (code) } ": " (message) } }
            EventKind::ModelTurn(turn) => { (model_turn(turn)) }
            _ => {}
        }
    }
}

/// One request of the agent runner and what came of it: what was new in the conversation, what
/// the model said and called, and what each call returned. Every text is the model's or a tool's:
/// shown as text, never as markup.
fn model_turn(turn: &ModelTurn) -> Markup {
    html! {
        p.turn-facts {
            (turn.usage.prompt_tokens) " prompt + " (turn.usage.completion_tokens) " completion tokens · "
            (turn.latency_ms) " ms"
            @if let Some(cost) = turn.cost_usd { " · $" (format!("{cost:.4}")) }
            " · " (turn.request.messages) " messages"
            @if turn.request.fresh { " (a fresh conversation)" }
            @if turn.request.trimmed > 0 { " · " (turn.request.trimmed) " older answers trimmed" }
        }
        @for message in &turn.request.new_messages {
            details {
                summary { "New " (message.role) " message (" (message.content.len()) " bytes)" }
                pre.transcript { (message.content) }
            }
        }
        @if let Some(text) = &turn.response.text { pre.transcript data-testid="turn-text" { (text) } }
        @for call in &turn.response.tool_calls {
            @let result = turn.tool_results.iter().find(|result| result.call_id == call.id);
            details.tool-call data-testid="turn-tool-call" {
                summary {
                    code { (call.name) }
                    @match result {
                        Some(result) if result.ok => " · ok",
                        Some(_) => " · refused",
                        None => "",
                    }
                }
                pre.transcript { (call.arguments) }
                @if let Some(result) = result { pre.transcript { (result.content) } }
            }
        }
    }
}
