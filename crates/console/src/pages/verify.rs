//! `/verify`: runs the store's `verify` (every session's hash chain and projections) and shows
//! what it found.

use axum::Extension;
use axum::extract::State;
use maud::{Markup, html};

use crate::ConsoleState;
use crate::error::PageError;
use crate::layout::{self, Frame, Section};
use crate::security::BrowserSession;

pub(crate) async fn show(
    State(state): State<ConsoleState>,
    Extension(browser): Extension<BrowserSession>,
) -> Result<Markup, PageError> {
    let report = state.runtime.verify().await?;
    let frame = Frame::load(&state, &browser, Section::Verify).await;
    let body = html! {
        h1 { "Verify" }
        p { "Checks every session's event chain (each event's hash over the one before) and that the projections match the events, as " code { "switchyard verify" } " does." }
        p data-testid="verify-summary" id="verify-summary" {
            "Verified " (report.sessions_checked) " sessions, " (report.events_checked) " events: "
            @if report.is_clean() { strong.ok { "no problems" } } @else { strong.bad { (report.problems.len()) " problem(s)" } }
            "."
        }
        @if !report.is_clean() {
            div.scroll {
                table data-testid="verify-problems" {
                    thead { tr { th scope="col" { "Code" } th scope="col" { "Session" } th scope="col" { "Event" } th scope="col" { "What differs" } } }
                    tbody {
                        @for problem in &report.problems {
                            tr {
                                td { code { (problem.code) } }
                                td { @if let Some(session) = problem.session { a href={ "/sessions/" (session) } { (session) } } }
                                td { @if let Some(seq) = problem.seq { (seq) } }
                                td { (problem.message) }
                            }
                        }
                    }
                }
            }
        }
        p { a href="/verify" data-testid="verify-again" { "Verify again" } }
    };
    Ok(layout::page("Verify", &frame, &body))
}
