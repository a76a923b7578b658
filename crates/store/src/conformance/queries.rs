//! Listing sessions: recency order, the filters (status, workflow, workspace, git facts) and
//! paging.

use std::sync::Arc;

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::id::SessionId;
use switchyard_core::state::RunStatus;

use crate::Store;
use crate::record::{Batch, MAX_PAGE, SessionQuery, SessionRecord};
use crate::search::SearchQuery;

use super::fixture::{SessionScript, node_id, workflow};
use super::{append, expect_ok};

fn expected_order(sessions: &[SessionRecord]) -> Vec<SessionRecord> {
    let mut sorted = sessions.to_vec();
    sorted.sort_by_key(|session| std::cmp::Reverse((session.updated_at_ms, session.id.to_string())));
    sorted
}

/// Most recently updated first (ties by id text, descending), status and workflow filters,
/// cursor paging that neither skips nor repeats rows.
pub async fn list_sessions_orders_filters_and_pages<S: Store>(store: S) {
    let times = [5_000, 9_000, 7_000, 9_000, 1_000, 7_000, 3_000];
    let mut all = Vec::new();
    for (index, at_ms) in times.into_iter().enumerate() {
        let n = index as u64 + 1;
        let mut script = SessionScript::new(n);
        let batch = if n == 7 {
            // A session without a run: no status, no workflow.
            script.at_ms = at_ms;
            Batch::events(script.session, vec![script.created("no run")])
        } else {
            script.at_ms = at_ms - 10;
            let mut batch = script.start(node_id(n * 100 + 1));
            if n.is_multiple_of(3) {
                batch.events.push(script.run_event(EventKind::RunPaused { reason: None }));
            }
            script.at_ms = at_ms;
            batch.events.push(script.run_event(EventKind::CheckpointRecorded {
                node: node_id(n * 100 + 1),
                attempt: None,
                notes: None,
                automatic: true,
                phase: None,
            }));
            batch
        };
        append(&store, batch).await;
        all.push(expect_ok(store.session(script.session).await, "session").expect("session exists"));
    }
    let expected = expected_order(&all);
    let listed = expect_ok(store.list_sessions(SessionQuery::default()).await, "list_sessions");
    assert_eq!(listed, expected, "most recently updated first, ties by id descending");

    let paused = SessionQuery { status: Some(RunStatus::Paused), ..SessionQuery::default() };
    let listed = expect_ok(store.list_sessions(paused).await, "list_sessions");
    let want: Vec<_> = expected.iter().filter(|s| s.status == Some(RunStatus::Paused)).cloned().collect();
    assert_eq!(want.len(), 2);
    assert_eq!(listed, want, "status filter");

    let by_workflow = SessionQuery { workflow_id: Some("conformance".to_owned()), ..SessionQuery::default() };
    let listed = expect_ok(store.list_sessions(by_workflow).await, "list_sessions");
    let want: Vec<_> = expected.iter().filter(|s| s.workflow_id.is_some()).cloned().collect();
    assert_eq!(want.len(), 6);
    assert_eq!(listed, want, "workflow filter");
    let nothing = SessionQuery { workflow_id: Some("other".to_owned()), ..SessionQuery::default() };
    assert!(expect_ok(store.list_sessions(nothing).await, "list_sessions").is_empty());

    let mut paged = Vec::new();
    let mut before = None;
    loop {
        let query = SessionQuery { limit: 2, before, ..SessionQuery::default() };
        let page = expect_ok(store.list_sessions(query).await, "list_sessions");
        assert!(page.len() <= 2, "a page holds at most `limit` rows");
        let Some(last) = page.last() else { break };
        before = Some((last.updated_at_ms, last.id));
        paged.extend(page);
    }
    assert_eq!(paged, expected, "pages join up to the full list, no row skipped or repeated");

    let active = SessionQuery { status: Some(RunStatus::Active), limit: 1, ..SessionQuery::default() };
    let first_page = expect_ok(store.list_sessions(active.clone()).await, "list_sessions");
    let cursor = first_page.last().map(|s| (s.updated_at_ms, s.id));
    let second_page = expect_ok(store.list_sessions(SessionQuery { before: cursor, ..active }).await, "list_sessions");
    let want: Vec<_> = expected.iter().filter(|s| s.status == Some(RunStatus::Active)).take(2).cloned().collect();
    assert_eq!([first_page, second_page].concat(), want, "filters and the cursor combine");
}

/// The workspace, branch, HEAD and workflow filters of `list_sessions`, `session_workflow_ids`,
/// and the workspace filter of `search_sessions`: each alone and combined, most recent first,
/// after later events moved a session's update time, and never matching a session that recorded
/// no value.
pub async fn sessions_are_found_by_workspace_and_git_facts<S: Store>(store: S) {
    let mut okapi = workflow();
    okapi.id = "okapi-survey".to_owned();
    let mut scripts = Vec::new();
    for n in 1..=7_u64 {
        let workflow = if n >= 5 { okapi.clone() } else { workflow() };
        let mut script = SessionScript::new(n);
        script.at_ms += i64::try_from(n).expect("small") * 1_000;
        let facts = |value: String| (n < 7).then_some(value);
        let created = script.event(
            None,
            EventKind::SessionCreated {
                goal: format!("goal of session {n}"),
                title: format!("Session {n}"),
                workspace: facts(if n % 2 == 1 { "/work/alpha" } else { "/work/beta" }.to_owned()),
                git_branch: facts(if n <= 4 { "main" } else { "topic" }.to_owned()),
                git_head: facts(format!("head-{}", n % 2)),
            },
        );
        let events = vec![
            created,
            script.run_started(&workflow),
            script.node(node_id(n * 100 + 1), None, NodeCause::Start, RunStatus::Active),
        ];
        append(&store, Batch { pin: Some(workflow.clone()), ..Batch::events(script.session, events) }).await;
        scripts.push(script);
    }
    // Session 1 moves to the top of the recency order.
    let first = &mut scripts[0];
    first.at_ms += 100_000;
    let checkpoint = first.run_event(EventKind::CheckpointRecorded {
        node: node_id(101),
        attempt: None,
        notes: None,
        automatic: true,
        phase: None,
    });
    append(&store, Batch::events(first.session, vec![checkpoint])).await;

    let n_of = |session: SessionId| scripts.iter().find(|script| script.session == session).expect("known").n;
    let found = async |query: SessionQuery| -> Vec<u64> {
        let listed = expect_ok(store.list_sessions(query).await, "list_sessions");
        listed.iter().map(|record| n_of(record.id)).collect()
    };
    let text = |value: &str| Some(value.to_owned());
    let workspace = SessionQuery { workspace: text("/work/alpha"), ..SessionQuery::default() };
    assert_eq!(found(workspace.clone()).await, [1, 5, 3], "by workspace, most recent first");
    let branch = SessionQuery { git_branch: text("topic"), ..SessionQuery::default() };
    assert_eq!(found(branch).await, [6, 5], "by branch");
    let head = SessionQuery { git_head: text("head-0"), ..SessionQuery::default() };
    assert_eq!(found(head).await, [6, 4, 2], "by HEAD");
    let both = SessionQuery { git_branch: text("main"), ..workspace.clone() };
    assert_eq!(found(both).await, [1, 3], "workspace and branch together");
    let first_page = SessionQuery { limit: 1, ..workspace.clone() };
    let page = expect_ok(store.list_sessions(first_page.clone()).await, "list_sessions");
    let cursor = page.last().map(|record| (record.updated_at_ms, record.id));
    assert_eq!(found(SessionQuery { before: cursor, ..first_page }).await, [5], "the cursor pages a filtered list");
    let nowhere = SessionQuery { workspace: text("/work/gamma"), ..SessionQuery::default() };
    assert!(found(nowhere).await.is_empty(), "a workspace no session started in");
    let okapi_in_alpha = SessionQuery { workflow_id: text("okapi-survey"), ..workspace.clone() };
    assert_eq!(found(okapi_in_alpha).await, [5], "workflow and workspace together");
    let ids = expect_ok(store.session_workflow_ids(10).await, "session_workflow_ids");
    assert_eq!(ids, ["conformance", "okapi-survey"], "each workflow id once, in byte order");
    let ids = expect_ok(store.session_workflow_ids(1).await, "session_workflow_ids");
    assert_eq!(ids, ["conformance"], "at most the limit");

    let search = |workspace: Option<String>| SearchQuery { text: "goal session".to_owned(), limit: 10, workspace };
    let hits = expect_ok(store.search_sessions(search(text("/work/beta"))).await, "search_sessions");
    let mut sessions: Vec<u64> = hits.iter().map(|hit| n_of(hit.session)).collect();
    sessions.sort_unstable();
    assert_eq!(sessions, [2, 4, 6], "a search in one workspace finds only its sessions: {hits:?}");
    let hits = expect_ok(store.search_sessions(search(None)).await, "search_sessions");
    assert_eq!(hits.len(), 7, "without a workspace, every session: {hits:?}");
}

/// A limit above [`MAX_PAGE`] returns `MAX_PAGE` rows; a limit of 0 returns none.
pub async fn list_sessions_caps_the_limit<S: Store>(store: S) {
    // A few appends at a time: a thousand at once would each wait their turn for one of the
    // backend's connections, and on a busy machine the last would wait past its pool's bound.
    const IN_FLIGHT: usize = 8;
    let store = Arc::new(store);
    let mut tasks = tokio::task::JoinSet::new();
    for n in 1..=u64::from(MAX_PAGE) + 1 {
        if tasks.len() == IN_FLIGHT {
            let joined = tasks.join_next().await.expect("a task in flight");
            expect_ok(joined.expect("an append task panicked"), "append");
        }
        let mut script = SessionScript::new(n);
        let batch = Batch::events(script.session, vec![script.created("many")]);
        let store = Arc::clone(&store);
        tasks.spawn(async move { store.append(batch).await });
    }
    while let Some(joined) = tasks.join_next().await {
        expect_ok(joined.expect("an append task panicked"), "append");
    }
    let query = SessionQuery { limit: 5 * MAX_PAGE, ..SessionQuery::default() };
    assert_eq!(expect_ok(store.list_sessions(query).await, "list_sessions").len(), MAX_PAGE as usize, "capped");
    let query = SessionQuery { limit: 0, ..SessionQuery::default() };
    assert!(expect_ok(store.list_sessions(query).await, "list_sessions").is_empty(), "limit 0");
}
