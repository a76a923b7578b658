//! `/`: every session, most recently active first, a page at a time (keyset paging on the last
//! row's `(updated_at_ms, id)`), filtered by status and workspace, or searched by the words of
//! their goals and notes with the index `resume_session` searches.
//!
//! A page costs one query for the rows (or one search and one read per hit, at most
//! [`SEARCH_HITS`]), plus one catalog lookup per distinct workflow on the page, whatever the
//! number of sessions in the store.

use std::collections::HashMap;

use axum::Extension;
use axum::extract::{Query, State};
use maud::{Markup, html};
use serde::Deserialize;

use switchyard_core::{RunStatus, SessionId};
use switchyard_store::{SearchQuery, SessionQuery, SessionRecord};

use crate::ConsoleState;
use crate::error::PageError;
use crate::layout::{self, Frame, Section};
use crate::security::BrowserSession;

/// Rows on a page.
pub(crate) const PAGE_SIZE: u32 = 50;

/// Hits a search shows.
const SEARCH_HITS: u32 = 50;

/// The query string: every filter is a plain form field, so the page works without script.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct ListQuery {
    #[serde(default)]
    status: String,
    #[serde(default)]
    workspace: String,
    #[serde(default)]
    q: String,
    /// `<updated_at_ms>.<session id>` of the last row of the previous page.
    #[serde(default)]
    before: String,
}

impl ListQuery {
    fn status(&self) -> Result<Option<RunStatus>, PageError> {
        if self.status.is_empty() {
            return Ok(None);
        }
        self.status.parse().map(Some).map_err(|_| {
            let known: Vec<&str> = RunStatus::ALL.iter().map(|status| status.as_str()).collect();
            PageError::BadRequest(format!("`{}` is not a run status: use one of {}", self.status, known.join(", ")))
        })
    }

    fn before(&self) -> Result<Option<(i64, SessionId)>, PageError> {
        if self.before.is_empty() {
            return Ok(None);
        }
        let parsed = self.before.split_once('.').and_then(|(at, id)| Some((at.parse().ok()?, id.parse().ok()?)));
        parsed.map(Some).ok_or_else(|| {
            PageError::BadRequest(format!(
                "`{}` is not a page cursor: follow the page's \"Older\" link instead of editing it",
                self.before
            ))
        })
    }

    fn workspace(&self) -> Option<String> {
        Some(self.workspace.trim().to_owned()).filter(|workspace| !workspace.is_empty())
    }

    /// The link to the next page: these filters, starting below `last`.
    fn older(&self, last: &SessionRecord) -> String {
        let mut query = vec![("before", format!("{}.{}", last.updated_at_ms, last.id))];
        if !self.status.is_empty() {
            query.push(("status", self.status.clone()));
        }
        if let Some(workspace) = self.workspace() {
            query.push(("workspace", workspace));
        }
        let encoded =
            query.iter().map(|(key, value)| format!("{key}={}", encode_component(value))).collect::<Vec<_>>().join("&");
        format!("/?{encoded}")
    }
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
fn encode_component(text: &str) -> String {
    text.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => (byte as char).to_string(),
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// One row: the session and, for a search, where it matched.
struct Row {
    session: SessionRecord,
    snippet: Option<String>,
}

pub(crate) async fn list(
    State(state): State<ConsoleState>,
    Extension(browser): Extension<BrowserSession>,
    Query(query): Query<ListQuery>,
) -> Result<Markup, PageError> {
    let status = query.status()?;
    let searching = !query.q.trim().is_empty();
    let rows = if searching { search(&state, &query, status).await? } else { page(&state, &query, status).await? };
    let formats = formats(&state, &rows);
    let older = (!searching && rows.len() == PAGE_SIZE as usize)
        .then(|| rows.last().map(|row| query.older(&row.session)))
        .flatten();
    let now = state.runtime.now_ms();
    let frame = Frame::load(&state, &browser, Section::Sessions).await;
    let body = html! {
        h1 { "Sessions" }
        form.filters method="get" action="/" role="search" data-testid="session-filters" {
            div.field {
                label for="search" { "Search goals and notes" }
                input type="search" id="search" name="q" value=(query.q) data-testid="search-input";
            }
            div.field {
                label for="status" { "Status" }
                select id="status" name="status" data-testid="status-filter" {
                    option value="" selected[status.is_none()] { "any" }
                    @for candidate in RunStatus::ALL {
                        option value=(candidate.as_str()) selected[status == Some(candidate)] { (candidate.as_str().replace('_', " ")) }
                    }
                }
            }
            div.field {
                label for="workspace" { "Workspace" }
                input type="text" id="workspace" name="workspace" value=(query.workspace) placeholder="/path/to/project" data-testid="workspace-filter";
            }
            button type="submit" data-testid="filter-submit" { "Show" }
            @if searching || status.is_some() || query.workspace().is_some() {
                " " a href="/" data-testid="filter-clear" { "Clear" }
            }
        }
        section id="sessions" data-live aria-label="Sessions" {
            @if rows.is_empty() {
                p.empty data-testid="sessions-empty" {
                    @if searching { "No session matches these words." } @else { "No sessions yet. Start one with " code { "switchyard start <workflow> --goal \"…\"" } " or from an MCP client." }
                }
            } @else {
                div.scroll {
                    table.sessions data-testid="sessions-table" {
                        caption.visually-hidden { "Sessions, most recently active first" }
                        thead {
                            tr {
                                th scope="col" { "Goal" }
                                th scope="col" { "Status" }
                                th scope="col" { "Workflow" }
                                th scope="col" { "Workspace" }
                                th scope="col" { "Started" }
                                th scope="col" { "Last activity" }
                            }
                        }
                        tbody {
                            @for row in &rows {
                                @let session = &row.session;
                                tr id={ "session-" (session.id) } data-testid="session-row" data-session=(session.id) {
                                    td data-label="Goal" {
                                        a href={ "/sessions/" (session.id) } data-testid="session-link" { (title_of(session)) }
                                        @if let Some(snippet) = &row.snippet { br; small.snippet { (snippet) } }
                                    }
                                    td data-label="Status" { (layout::status_badge(session.status)) }
                                    td data-label="Workflow" {
                                        @if let Some(workflow) = &session.workflow_id {
                                            a href={ "/workflows/" (encode_component(workflow)) } { (workflow) }
                                            @if let Some(format) = formats.get(workflow.as_str()) { " " small.format { (format) } }
                                        } @else { "—" }
                                    }
                                    td data-label="Workspace" {
                                        @if let Some(workspace) = &session.workspace { code.path { (workspace) } } @else { "—" }
                                        @if let Some(branch) = &session.git_branch { br; small { "branch " code { (branch) } } }
                                    }
                                    td data-label="Started" { (layout::time(now, session.created_at_ms)) }
                                    td data-label="Last activity" { (layout::time(now, session.updated_at_ms)) }
                                }
                            }
                        }
                    }
                }
                @if let Some(older) = older {
                    nav.pager aria-label="Pages" { a href=(older) rel="next" data-testid="older-page" { "Older sessions →" } }
                }
            }
        }
    };
    Ok(layout::page("Sessions", &frame, &body))
}

/// What a row calls a session: its title, else its goal.
fn title_of(session: &SessionRecord) -> &str {
    if session.title.trim().is_empty() { &session.goal } else { &session.title }
}

async fn page(state: &ConsoleState, query: &ListQuery, status: Option<RunStatus>) -> Result<Vec<Row>, PageError> {
    let sessions = state
        .runtime
        .sessions(SessionQuery {
            status,
            workspace: query.workspace(),
            limit: PAGE_SIZE,
            before: query.before()?,
            ..SessionQuery::default()
        })
        .await?;
    Ok(sessions.into_iter().map(|session| Row { session, snippet: None }).collect())
}

async fn search(state: &ConsoleState, query: &ListQuery, status: Option<RunStatus>) -> Result<Vec<Row>, PageError> {
    let hits = state
        .runtime
        .store()
        .search_sessions(SearchQuery { text: query.q.clone(), limit: SEARCH_HITS, workspace: query.workspace() })
        .await
        .map_err(switchyard_runtime::Error::from)?;
    let mut rows = Vec::with_capacity(hits.len());
    for hit in hits {
        let Some(session) =
            state.runtime.store().session(hit.session).await.map_err(switchyard_runtime::Error::from)?
        else {
            continue;
        };
        if status.is_none() || session.status == status {
            rows.push(Row { session, snippet: Some(format!("{}: {}", hit.matched, hit.snippet)) });
        }
    }
    Ok(rows)
}

/// The source format of each workflow on the page, as the catalog finds it now.
fn formats(state: &ConsoleState, rows: &[Row]) -> HashMap<String, String> {
    let mut formats = HashMap::new();
    for workflow in rows.iter().filter_map(|row| row.session.workflow_id.as_deref()) {
        if formats.contains_key(workflow) {
            continue;
        }
        let format = state.catalog.find(workflow).ok().map(|found| switchyard_core::wire_name(&found.compiled.format));
        formats.insert(workflow.to_owned(), format.unwrap_or_default());
    }
    formats.retain(|_, format| !format.is_empty());
    formats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_percent_encoded() {
        assert_eq!(encode_component("/a b&c=d"), "%2Fa%20b%26c%3Dd");
        assert_eq!(encode_component("run_Az-1.~"), "run_Az-1.~");
        assert_eq!(encode_component("é"), "%C3%A9");
    }
}
