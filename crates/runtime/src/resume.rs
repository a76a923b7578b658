//! Finding a session to resume and recapping it: `resume_session` for every door.
//!
//! Candidates are ranked in tiers: explicit session or run ids, then the user's words over titles,
//! goals and notes (the store's full-text index), then the workspace's git HEAD and branch, then
//! the workflow id, then recency. Every lookup is an indexed, bounded query.

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use switchyard_core::token::TokenKind;
use switchyard_core::workflow::Layer;
use switchyard_core::{NodeId, RunId, RunStatus, SessionId};
use switchyard_store::{RecapEntry, RecapKind, SearchQuery, SessionQuery, SessionRecord, TokenRecord};

use crate::{Error, Runtime};

/// The most candidates a resume lookup returns.
pub const MAX_RESUME_CANDIDATES: usize = 5;

/// How many of the store's workflow ids the workflow-id tier matches the query's words against
/// (by substring, which no index answers), and how many matching ids it looks up sessions of.
const WORKFLOW_IDS_READ: u32 = 1_000;
const WORKFLOW_IDS_MATCHED: usize = 20;

/// The default byte budget of a recap.
pub const RECAP_BUDGET_BYTES: usize = 24 * 1024;

/// What to look for.
#[derive(Debug, Clone, Default)]
pub struct ResumeRequest {
    pub query: Option<String>,
    pub session: Option<SessionId>,
    pub run: Option<RunId>,
    pub git_branch: Option<String>,
    pub git_head: Option<String>,
    /// The caller's workspace; its git facts are read when the caller gave none.
    pub workspace: Option<String>,
    /// Only sessions started in `workspace`.
    pub same_workspace_only: bool,
}

/// How sure a match is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    Strong,
    Medium,
    Weak,
}

/// One session that may be the one the user means.
#[derive(Debug, Clone, Serialize)]
pub struct ResumeCandidate {
    pub session: SessionRecord,
    pub run: Option<RunId>,
    pub tip: Option<NodeId>,
    pub pending_step: Option<String>,
    pub status: Option<RunStatus>,
    pub confidence: Confidence,
    /// The tier reason first, then any supporting signal.
    pub why_matched: Vec<String>,
    pub snippet: String,
    /// `st_…` for the run's tip: rehydrate it to continue, or to fork from there.
    pub resume_token: Option<String>,
}

/// A bounded account of a branch up to a node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Recap {
    pub text: String,
    /// Items left out to fit the budget (never a critical one).
    pub dropped: usize,
    pub truncated: bool,
}

/// A session a tier found: the first tier ranks it, later tiers add their reasons.
struct Ranked {
    tier: u8,
    confidence: Confidence,
    why_matched: Vec<String>,
    snippet: String,
    session: SessionRecord,
}

/// One recap item with the layer that decides when it may be dropped.
struct RecapItem {
    layer: Layer,
    text: String,
}

impl Runtime {
    /// Up to [`MAX_RESUME_CANDIDATES`] sessions, best first.
    pub async fn resume_candidates(&self, request: &ResumeRequest) -> Result<Vec<ResumeCandidate>, Error> {
        let (mut branch, mut head) = (request.git_branch.clone(), request.git_head.clone());
        if branch.is_none()
            && head.is_none()
            && let Some(workspace) = &request.workspace
        {
            (branch, head) = crate::workspace::git_facts(Path::new(workspace)).await;
        }
        // With `same_workspace_only`, every tier asks the store for that workspace's sessions
        // alone, so an older project is found however many sessions other projects added since.
        let workspace = request.workspace.clone().filter(|_| request.same_workspace_only);
        let mut ranked: Vec<Ranked> = Vec::new();
        let mut push = |tier: u8, confidence, why: &str, snippet: String, session: SessionRecord| {
            // Explicit ids are looked up whatever the workspace; every other tier asked the store
            // for the workspace's sessions already.
            if workspace.is_some() && session.workspace != workspace {
                return;
            }
            if let Some(found) = ranked.iter_mut().find(|found| found.session.id == session.id) {
                if !found.why_matched.iter().any(|reason| reason == why) {
                    found.why_matched.push(why.to_owned());
                }
                return;
            }
            ranked.push(Ranked { tier, confidence, why_matched: vec![why.to_owned()], snippet, session });
        };
        if let Some(session) = request.session
            && let Some(record) = self.store.session(session).await?
        {
            push(0, Confidence::Strong, "matched_session_id", String::new(), record);
        }
        if let Some(run) = request.run
            && let Some(run) = self.store.run(run).await?
            && let Some(record) = self.store.session(run.session).await?
        {
            push(0, Confidence::Strong, "matched_run_id", String::new(), record);
        }
        let query = request.query.as_deref().map(str::trim).filter(|query| !query.is_empty());
        let words = query.map(switchyard_store::search::search_words).unwrap_or_default();
        if let Some(query) = query {
            let search = SearchQuery { text: query.to_owned(), limit: 20, workspace: workspace.clone() };
            for hit in self.store.search_sessions(search).await? {
                let Some(record) = self.store.session(hit.session).await? else { continue };
                let haystack = format!("{} {}", record.title, record.goal).to_lowercase();
                if words.iter().all(|word| haystack.contains(word.as_str())) {
                    push(1, Confidence::Strong, "matched_goal", hit.snippet, record);
                } else {
                    push(1, Confidence::Medium, &format!("matched_{}", hit.matched), hit.snippet, record);
                }
            }
        }
        // Each later tier asks the store for the most recent sessions its value matches: enough
        // to fill the answer whatever ranks above them.
        let lookup = SessionQuery {
            workspace: workspace.clone(),
            limit: MAX_RESUME_CANDIDATES as u32,
            ..SessionQuery::default()
        };
        if head.is_some() {
            let query = SessionQuery { git_head: head, ..lookup.clone() };
            for record in self.store.list_sessions(query).await? {
                push(2, Confidence::Medium, "matched_head_sha", String::new(), record);
            }
        }
        if branch.is_some() {
            let query = SessionQuery { git_branch: branch, ..lookup.clone() };
            for record in self.store.list_sessions(query).await? {
                push(3, Confidence::Medium, "matched_branch", String::new(), record);
            }
        }
        let id_words: Vec<&str> = words.iter().map(String::as_str).filter(|word| word.len() >= 3).collect();
        if !id_words.is_empty() {
            let ids = self.store.session_workflow_ids(WORKFLOW_IDS_READ).await?;
            let named = ids.into_iter().filter(|id| {
                let id = id.to_lowercase();
                id_words.iter().any(|word| id.contains(word))
            });
            let mut found = Vec::new();
            for id in named.take(WORKFLOW_IDS_MATCHED) {
                found.extend(self.store.list_sessions(SessionQuery { workflow_id: Some(id), ..lookup.clone() }).await?);
            }
            found.sort_by_key(|record| std::cmp::Reverse((record.updated_at_ms, record.id)));
            for record in found {
                push(4, Confidence::Medium, "matched_workflow_id", String::new(), record);
            }
        }
        for record in self.store.list_sessions(lookup).await? {
            push(5, Confidence::Weak, "recency", String::new(), record);
        }
        // Stable: within a tier, the order the tier found them in (rank, then recency).
        ranked.sort_by_key(|found| (found.tier, found.confidence));
        ranked.truncate(MAX_RESUME_CANDIDATES);
        let mut candidates = Vec::with_capacity(ranked.len());
        for Ranked { confidence, why_matched, snippet, session, .. } in ranked {
            candidates.push(self.candidate(session, confidence, why_matched, snippet).await?);
        }
        Ok(candidates)
    }

    async fn candidate(
        &self,
        session: SessionRecord,
        confidence: Confidence,
        why_matched: Vec<String>,
        snippet: String,
    ) -> Result<ResumeCandidate, Error> {
        let snippet = if snippet.is_empty() { session.goal.chars().take(2048).collect() } else { snippet };
        let Some(run_id) = session.run else {
            return Ok(ResumeCandidate {
                session,
                run: None,
                tip: None,
                pending_step: None,
                status: None,
                confidence,
                why_matched,
                snippet,
                resume_token: None,
            });
        };
        let run = self.store.run(run_id).await?.ok_or_else(|| self.not_found("run", run_id.to_string()))?;
        let tip = self.store.node(run.tip).await?.ok_or_else(|| self.not_found("node", run.tip.to_string()))?;
        let record = TokenRecord {
            nonce: self.ids.nonce(),
            kind: TokenKind::State,
            session: run.session,
            run: run.id,
            node: tip.id,
            attempt: None,
        };
        let nonce = self.store.claim_token(record).await?;
        let pending_step = (!tip.status.is_terminal()).then(|| tip.step.to_string());
        Ok(ResumeCandidate {
            session,
            run: Some(run.id),
            tip: Some(tip.id),
            pending_step,
            status: Some(run.status),
            confidence,
            why_matched,
            snippet,
            resume_token: Some(self.keys.mint(TokenKind::State, nonce).to_string()),
        })
    }

    /// The branch up to `node`: earlier steps' notes, checkpoints and decisions, and the branch's
    /// context, trimmed to `budget_bytes` by layer (ephemeral first, then useful, then the oldest
    /// important items; critical items and decisions never), with a visible marker when trimmed.
    pub async fn recap(&self, node: NodeId, budget_bytes: usize) -> Result<Recap, Error> {
        let record = self.node(node).await?;
        let context = self.run_context(record.run).await?;
        let entries = self.store.recap(node, 100).await?;
        let mut items: Vec<RecapItem> = entries.iter().map(recap_item).collect();
        for (key, value) in &record.state.context {
            let layer = context
                .workflow
                .workflow
                .variables
                .iter()
                .find(|variable| &variable.name == key)
                .map(|variable| variable.layer)
                .unwrap_or(if key == "goal" { Layer::Critical } else { Layer::Useful });
            let value = match value {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            items.push(RecapItem { layer, text: format!("context `{key}` = {value}") });
        }
        let size =
            |items: &[Option<RecapItem>]| -> usize { items.iter().flatten().map(|item| item.text.len() + 2).sum() };
        let mut kept: Vec<Option<RecapItem>> = items.into_iter().map(Some).collect();
        let mut dropped = 0;
        for layer in [Layer::Ephemeral, Layer::Useful, Layer::Important] {
            for index in 0..kept.len() {
                if size(&kept) <= budget_bytes {
                    break;
                }
                if kept[index].as_ref().is_some_and(|item| item.layer == layer) {
                    kept[index] = None;
                    dropped += 1;
                }
            }
        }
        let mut text = kept.into_iter().flatten().map(|item| item.text).collect::<Vec<_>>().join("\n\n");
        if dropped > 0 {
            text.push_str(&format!(
                "\n\n[TRUNCATED: {dropped} older or less important item(s) left out to fit {budget_bytes} bytes]"
            ));
        }
        Ok(Recap { text, dropped, truncated: dropped > 0 })
    }
}

fn recap_item(entry: &RecapEntry) -> RecapItem {
    let (layer, label) = match entry.kind {
        RecapKind::Notes => (Layer::Important, "notes"),
        RecapKind::Checkpoint => (Layer::Useful, "checkpoint"),
        RecapKind::Decision => (Layer::Critical, "decision"),
    };
    RecapItem { layer, text: format!("[{}] {label}: {}", entry.step, entry.text) }
}
