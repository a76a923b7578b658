//! The frame every page shares (header with the navigation, main, footer saying where MCP is
//! served and where the docs are), the stylesheet, and the small pieces pages repeat: status
//! badges, times, JSON.

use std::sync::LazyLock;

use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use data_encoding::HEXLOWER;
use maud::{DOCTYPE, Markup, html};
use sha2::{Digest, Sha256};

use switchyard_core::RunStatus;
use switchyard_store::SessionQuery;

use crate::ConsoleState;
use crate::security::BrowserSession;

/// The stylesheet, embedded in the binary: the pages', then the diagrams' (`diagram::STYLESHEET`).
const STYLESHEET: &str = concat!(include_str!("../assets/console.css"), include_str!("diagram/diagram.css"));

/// The script that keeps pages live (`live`'s): it follows `/events` and swaps the `data-live`
/// regions of the page.
pub(crate) const LIVE_SCRIPT_PATH: &str = "/assets/live.js";

/// Where the stylesheet is served: its name holds the hash of its content, so browsers may keep it
/// for good and a new build's stylesheet has a new name.
static STYLESHEET_PATH: LazyLock<String> = LazyLock::new(|| {
    let digest = Sha256::digest(STYLESHEET.as_bytes());
    format!("/assets/console-{}.css", &HEXLOWER.encode(&digest)[..16])
});

/// The tab's icon, a track leaving the main line, drawn inline so that no page asks the server
/// for a `/favicon.ico` it does not have (`img-src` allows `data:`).
const ICON: &str = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Cpath d='M5 1v14M5 10 12 2' stroke='%232f6feb' stroke-width='2.5' fill='none' stroke-linecap='round'/%3E%3C/svg%3E";

pub(crate) fn stylesheet_path() -> &'static str {
    &STYLESHEET_PATH
}

/// `GET` the stylesheet: immutable, since its name changes with its content.
pub(crate) async fn stylesheet() -> Response {
    let mut response = STYLESHEET.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/css; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=31536000, immutable"));
    response
}

/// The section of the navigation a page belongs to, marked `aria-current` in the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Sessions,
    Gates,
    Workflows,
    Verify,
    None,
}

/// The most runs of each kind the navigation counts as waiting for a human; past it, it adds `+`.
const MAX_COUNTED_WAITING: u32 = 100;

/// What the frame of a page needs beyond its body.
#[derive(Debug)]
pub(crate) struct Frame {
    pub(crate) section: Section,
    pub(crate) flash: Option<String>,
    /// Runs waiting for a human (gates and decisions), at most [`MAX_COUNTED_WAITING`] of each.
    pub(crate) waiting: usize,
    /// Whether more runs of either kind wait than [`MAX_COUNTED_WAITING`].
    pub(crate) waiting_capped: bool,
    /// The CSRF token of the log-out form, shown when the server requires a login.
    pub(crate) logout_csrf: Option<String>,
}

impl Frame {
    /// The frame for a page of `section`: the flash message and the gate inbox's count (two
    /// bounded queries).
    pub(crate) async fn load(state: &ConsoleState, browser: &BrowserSession, section: Section) -> Self {
        let (mut waiting, mut waiting_capped) = (0, false);
        for status in [RunStatus::WaitingGate, RunStatus::WaitingForHumanDecision] {
            // One more than counted, to know whether there are more.
            let query =
                SessionQuery { status: Some(status), limit: MAX_COUNTED_WAITING + 1, ..SessionQuery::default() };
            match state.runtime.sessions(query).await {
                Ok(sessions) => {
                    waiting += sessions.len().min(MAX_COUNTED_WAITING as usize);
                    waiting_capped |= sessions.len() > MAX_COUNTED_WAITING as usize;
                }
                Err(error) => tracing::warn!(%error, "cannot count the runs waiting for a human"),
            }
        }
        let logout_csrf = state.options.token.is_some().then(|| browser.csrf.clone());
        Self { section, flash: browser.flash.clone(), waiting, waiting_capped, logout_csrf }
    }
}

/// A whole page: header, navigation, flash message, `body` in `main`, footer.
pub(crate) fn page(title: &str, frame: &Frame, body: &Markup) -> Markup {
    let current = |section: Section| (frame.section == section).then_some("page");
    let waiting = if frame.waiting_capped { format!("{}+", frame.waiting) } else { frame.waiting.to_string() };
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body {
                a.skip href="#main" { "Skip to content" }
                header.site {
                    a.brand href="/" { "switchyard" }
                    nav aria-label="Main" {
                        ul {
                            li { a href="/" aria-current=[current(Section::Sessions)] data-testid="nav-sessions" { "Sessions" } }
                            li {
                                a href="/gates" aria-current=[current(Section::Gates)] data-testid="nav-gates" {
                                    "Gate inbox "
                                    span.count id="gate-count" data-live data-testid="gate-count" aria-label={ (waiting) " waiting" } { (waiting) }
                                }
                            }
                            li { a href="/workflows" aria-current=[current(Section::Workflows)] data-testid="nav-workflows" { "Workflows" } }
                            li { a href="/verify" aria-current=[current(Section::Verify)] data-testid="nav-verify" { "Verify" } }
                        }
                    }
                    @if let Some(csrf) = &frame.logout_csrf {
                        form.logout method="post" action="/logout" {
                            input type="hidden" name="csrf" value=(csrf);
                            button type="submit" data-testid="logout-button" { "Log out" }
                        }
                    }
                }
                @if let Some(flash) = &frame.flash {
                    p.flash role="status" data-testid="flash" { (flash) }
                }
                main id="main" tabindex="-1" { (body) }
                (footer())
            }
        }
    }
}

/// A page without the navigation (errors, the login form), which must not query the store.
pub(crate) fn bare(title: &str, body: &Markup) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            (head(title))
            body {
                header.site { a.brand href="/" { "switchyard" } }
                main id="main" { (body) }
                (footer())
            }
        }
    }
}

fn head(title: &str) -> Markup {
    html! {
        head {
            meta charset="utf-8";
            meta name="viewport" content="width=device-width, initial-scale=1";
            title { (title) " · switchyard" }
            link rel="icon" href=(ICON);
            link rel="stylesheet" href=(stylesheet_path());
            script src=(LIVE_SCRIPT_PATH) defer {}
        }
    }
}

fn footer() -> Markup {
    html! {
        footer.site {
            p {
                "MCP is served at " code { "/mcp" } " on this address (streamable HTTP): "
                code { "claude mcp add --transport http switchyard <this address>/mcp" } "."
            }
            p {
                "Docs: " code { "switchyard --help" } ", " code { "docs/cli.md" } " and " code { "docs/mcp-tools.md" }
                " in switchyard's sources. " a href="/about" { "About this server" } "."
            }
        }
    }
}

/// A run status as a badge: its word, never only its colour.
pub(crate) fn status_badge(status: Option<RunStatus>) -> Markup {
    let name = status.map_or("no run", RunStatus::as_str);
    html! { span class={ "status status-" (name) } { (name.replace('_', " ")) } }
}

/// How long ago `at_ms` was, in the largest whole unit (`5 s`, `3 min`, `2 h`, `4 d`).
pub(crate) fn ago(now_ms: i64, at_ms: i64) -> String {
    let seconds = (now_ms - at_ms).max(0) / 1000;
    match seconds {
        0..60 => format!("{seconds} s ago"),
        60..3600 => format!("{} min ago", seconds / 60),
        3600..86_400 => format!("{} h ago", seconds / 3600),
        _ => format!("{} d ago", seconds / 86_400),
    }
}

/// A time as RFC 3339 in UTC, in a `time` element, with how long ago as its title.
pub(crate) fn time(now_ms: i64, at_ms: i64) -> Markup {
    let exact = jiff::Timestamp::from_millisecond(at_ms).map(|at| at.to_string()).unwrap_or_else(|_| at_ms.to_string());
    html! { time datetime=(exact) title=(exact) { (ago(now_ms, at_ms)) } }
}

/// A JSON value, pretty-printed, collapsed under `summary`.
pub(crate) fn json_details(summary: &str, value: &serde_json::Value, open: bool) -> Markup {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    html! {
        details open[open] {
            summary { (summary) }
            pre.code { code { (text) } }
        }
    }
}

/// What switchyard observed of a step's work, a line per check with its verdict.
pub(crate) fn evidence_list(results: &[switchyard_core::evidence::EvidenceResult]) -> Markup {
    html! {
        ul.evidence data-testid="evidence" {
            @for result in results {
                li {
                    @if result.passed { span.ok { "passed" } } @else { span.bad { "failed" } }
                    " " (result.observation.summary())
                }
            }
        }
    }
}

/// Why the run went where it went: the sentence, then each condition and check evaluated,
/// marked PASS, SKIP or ERROR, with what it read and the change that would have taken an edge not
/// taken. Condition texts are the workflow's, shown as text.
pub(crate) fn why_list(why: &switchyard_core::why::Why) -> Markup {
    html! {
        div.why data-testid="why" {
            p { strong { "Why: " } "switchyard " (ticked(&why.sentence())) "." }
            @if !why.evaluated.is_empty() {
                ul.why-evaluated {
                    @for evaluated in &why.evaluated {
                        li {
                            span class={ "mark mark-" (evaluated.mark().to_lowercase()) } { (evaluated.mark()) }
                            " " (ticked(&evaluated.description()))
                        }
                    }
                    @if why.more > 0 { li { "… and " (why.more) " more" } }
                }
            }
        }
    }
}

/// Text whose `backticked` parts (names, conditions) are shown as code; every part is escaped.
fn ticked(text: &str) -> Markup {
    html! {
        @for (index, part) in text.split('`').enumerate() {
            @if index % 2 == 1 { code { (part) } } @else { (part) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_use_the_largest_whole_unit() {
        assert_eq!(ago(10_000, 5_000), "5 s ago");
        assert_eq!(ago(200_000, 0), "3 min ago");
        assert_eq!(ago(7_300_000, 0), "2 h ago");
        assert_eq!(ago(4 * 86_400_000, 0), "4 d ago");
        assert_eq!(ago(0, 5_000), "0 s ago", "a clock behind the store says now");
    }

    #[test]
    fn the_stylesheet_path_names_its_content() {
        assert!(stylesheet_path().starts_with("/assets/console-") && stylesheet_path().ends_with(".css"));
    }
}
