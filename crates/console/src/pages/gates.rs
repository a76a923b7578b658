//! `/gates`: every run waiting for a human, at a gate (approve, or reject with a reason) or at a
//! limit (pick one of the options offered), with the forms that do it: the [`MAX_LISTED`] most
//! recently active of each kind, and past that, links to all of them, a page at a time, on the
//! sessions page filtered by status. The forms post to
//! [`crate::pages::actions`], which runs the same runtime commands as `switchyard approve`,
//! `reject` and `decide`.

use axum::Extension;
use axum::extract::State;
use maud::{Markup, html};

use switchyard_core::state::{DecisionOption, Phase};
use switchyard_core::{RunId, RunStatus, SessionId};
use switchyard_runtime::{Findings, Target};
use switchyard_store::{NodeRecord, SessionQuery};

use crate::ConsoleState;
use crate::error::PageError;
use crate::layout::{self, Frame, Section};
use crate::security::BrowserSession;

/// Runs listed of each kind (gates, decisions).
const MAX_LISTED: u32 = 100;

/// A run waiting for a human, with what the inbox shows of it.
struct Waiting {
    session: switchyard_store::SessionRecord,
    run: RunId,
    tip: NodeRecord,
    step_title: String,
    /// What switchyard itself checked of the result waiting here, and why it waits.
    findings: Findings,
}

pub(crate) async fn inbox(
    State(state): State<ConsoleState>,
    Extension(browser): Extension<BrowserSession>,
) -> Result<Markup, PageError> {
    let mut waiting = Vec::new();
    // The kinds with more runs waiting than are listed here.
    let mut more = Vec::new();
    for status in [RunStatus::WaitingGate, RunStatus::WaitingForHumanDecision] {
        // One more than listed, to know whether there are more.
        let mut sessions = state
            .runtime
            .sessions(SessionQuery { status: Some(status), limit: MAX_LISTED + 1, ..SessionQuery::default() })
            .await?;
        if sessions.len() > MAX_LISTED as usize {
            sessions.truncate(MAX_LISTED as usize);
            more.push(status);
        }
        for session in sessions {
            let Some(run) = session.run else { continue };
            let record = state.runtime.run(&Target::Run(run)).await?;
            let Some(tip) = state.runtime.store().node(record.tip).await.map_err(switchyard_runtime::Error::from)?
            else {
                continue;
            };
            let workflow = state.runtime.pinned_workflow(record.workflow_hash).await?;
            let step_title = workflow.workflow.step(&tip.state.step).map(|step| step.title.clone()).unwrap_or_default();
            let findings = state.runtime.findings_of(&tip).await?;
            waiting.push(Waiting { session, run, tip, step_title, findings });
        }
    }
    waiting.sort_by_key(|waiting| std::cmp::Reverse(waiting.session.updated_at_ms));
    let now = state.runtime.now_ms();
    let frame = Frame::load(&state, &browser, Section::Gates).await;
    let body = html! {
        h1 { "Gate inbox" }
        p { "Runs waiting for a human: a gated step's result to approve or reject, or a limit reached that needs a decision. Each button does what " code { "switchyard approve" } ", " code { "reject" } " and " code { "decide" } " do." }
        section id="gate-list" data-live aria-label="Runs waiting for a human" {
            @if !more.is_empty() {
                p.more data-testid="gates-more" {
                    "More runs wait than this page lists: it shows the " (MAX_LISTED) " most recently active of each kind. All of them, a page at a time: "
                    @for (index, status) in more.iter().enumerate() {
                        @if index > 0 { " · " }
                        a href={ "/?status=" (status.as_str()) } { (if *status == RunStatus::WaitingGate { "at a gate" } else { "at a decision" }) }
                    }
                }
            }
            @if waiting.is_empty() {
                p.empty data-testid="gates-empty" { "No run is waiting for a human." }
            } @else {
                ul.cards {
                    @for item in &waiting {
                        li.card id={ "gate-" (item.run) } data-testid="gate-item" data-run=(item.run) data-session=(item.session.id) {
                            h2 {
                                a href={ "/sessions/" (item.session.id) } { (if item.session.title.trim().is_empty() { &item.session.goal } else { &item.session.title }) }
                            }
                            p {
                                (layout::status_badge(item.session.status)) " "
                                "at " strong { (if item.step_title.is_empty() { item.tip.state.step.as_str() } else { &item.step_title }) }
                                " (" code { (item.tip.state.step) } ") of "
                                (item.session.workflow_id.as_deref().unwrap_or("?"))
                                " · waiting since " (layout::time(now, item.tip.created_at_ms))
                            }
                            @if !item.findings.evidence.is_empty() {
                                div.evidence data-testid="gate-evidence" {
                                    p { "What switchyard checked itself:" }
                                    (layout::evidence_list(&item.findings.evidence))
                                }
                            }
                            @if let Some(why) = &item.findings.why {
                                (layout::why_list(why))
                            }
                            p { a href={ "/sessions/" (item.session.id) "/nodes/" (item.tip.id) } { "See what was submitted" } }
                            (waiting_forms(&browser.csrf, item.session.id, item.run, &item.tip, item.session.status, "gates"))
                        }
                    }
                }
            }
        }
    };
    Ok(layout::page("Gate inbox", &frame, &body))
}

/// The forms for a run waiting for a human at `tip`: approve and reject at a gate, one button
/// per option at a decision; nothing otherwise. `from` says where to come back to (`gates` or
/// `session`).
pub(crate) fn waiting_forms(
    csrf: &str,
    session: SessionId,
    run: RunId,
    tip: &NodeRecord,
    status: Option<RunStatus>,
    from: &str,
) -> Markup {
    let hidden = html! {
        input type="hidden" name="csrf" value=(csrf);
        input type="hidden" name="run" value=(run);
        input type="hidden" name="node" value=(tip.id);
        input type="hidden" name="session" value=(session);
        input type="hidden" name="from" value=(from);
    };
    let suffix = format!("{from}-{run}");
    html! {
        @match (&tip.state.phase, status) {
            (Phase::WaitingGate { submission }, Some(RunStatus::WaitingGate)) => {
                div.actions data-testid="gate-actions" {
                    @if let Some(choice) = &submission.choice { p { "The agent chose " code { (choice) } "; approving takes that edge." } }
                    form method="post" action="/gates/approve" {
                        (hidden)
                        label for={ "approve-note-" (suffix) } { "Note (optional)" }
                        input type="text" id={ "approve-note-" (suffix) } name="note" data-testid="approve-note";
                        button.ok type="submit" data-testid="approve-button" { "Approve" }
                    }
                    form method="post" action="/gates/reject" {
                        (hidden)
                        label for={ "reject-reason-" (suffix) } { "Reason to reject (shown to the agent)" }
                        textarea id={ "reject-reason-" (suffix) } name="reason" required rows="2" data-testid="reject-reason" {}
                        button.danger type="submit" data-testid="reject-button" { "Reject" }
                    }
                }
            }
            (Phase::WaitingForHumanDecision { reason, options, .. }, Some(RunStatus::WaitingForHumanDecision)) => {
                form.actions method="post" action="/gates/decide" data-testid="decision-actions" {
                    (hidden)
                    p { "A limit was reached (" (switchyard_core::wire_name(reason).replace('_', " ")) "). Decide how the run goes on:" }
                    label for={ "decide-note-" (suffix) } { "Note (optional)" }
                    // A text area: Enter writes a new line there, and never submits a decision.
                    textarea id={ "decide-note-" (suffix) } name="note" rows="2" data-testid="decide-note" {}
                    @if options.contains(&DecisionOption::Stop) {
                        label for={ "decide-confirm-" (suffix) } {
                            input type="checkbox" id={ "decide-confirm-" (suffix) } name="confirm" value="stop" data-testid="decide-confirm";
                            " Stopping is permanent (needed to choose stop)"
                        }
                    }
                    div.options {
                        @for option in options {
                            button type="submit" name="option" value=(option.as_str()) data-testid={ "decide-" (option.as_str()) } { (option.as_str()) }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}
