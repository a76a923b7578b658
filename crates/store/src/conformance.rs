//! The conformance suite every [`Store`] backend runs unchanged.
//!
//! [`run_all`] runs every check, each against a fresh store; each check is also public so a
//! backend can run one alone. A check panics with a message naming what the backend got wrong.
//! Run the suite inside a multi-thread tokio runtime: the race checks spawn tasks.

pub mod fixture;

use std::future::Future;
use std::sync::Arc;

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::id::SessionId;
use switchyard_core::state::{Control, RunStatus};
use switchyard_core::token::TokenKind;

use crate::event::{GENESIS_HASH, chain_hash};
use crate::projection::Projections;
use crate::record::{Appended, Batch, MAX_PAGE, Recorded, RunGuard, SessionQuery, SessionRecord, StoredEvent};
use crate::search::{RecapKind, SearchQuery};
use crate::{Change, Error, Store};

use fixture::{SessionScript, attempt_id, node_id, nonce, session_id, workflow};

/// Runs every check, each against a store made by `new_store`.
pub async fn run_all<F, Fut, S>(new_store: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = S>,
    S: Store,
{
    append_assigns_seq_and_chains_hashes(new_store().await).await;
    claim_replay_returns_the_recorded_outcome(new_store().await).await;
    concurrent_claims_commit_exactly_once(new_store().await).await;
    claim_token_keeps_one_nonce_per_position(new_store().await).await;
    projections_follow_nodes_forks_and_controls(new_store().await).await;
    completion_and_failure_set_the_run_status(new_store().await).await;
    list_sessions_orders_filters_and_pages(new_store().await).await;
    list_sessions_caps_the_limit(new_store().await).await;
    sessions_are_found_by_workspace_and_git_facts(new_store().await).await;
    rebuild_equals_incremental(new_store().await).await;
    verify_is_clean_on_a_good_store(new_store().await).await;
    invalid_batch_writes_nothing(new_store().await).await;
    a_run_guard_holds_a_batch_to_the_control_it_was_decided_on(new_store().await).await;
    search_and_recap_follow_the_events(new_store().await).await;
    commits_are_published_to_subscribers(new_store().await).await;
    a_session_copy_carries_everything_and_imports_whole(new_store().await, new_store().await).await;
}

fn expect_ok<T>(result: Result<T, Error>, doing: &str) -> T {
    match result {
        Ok(value) => value,
        Err(error) => panic!("{doing}: unexpected error {}: {error}", error.code()),
    }
}

async fn append<S: Store>(store: &S, batch: Batch) -> (u64, u64) {
    match expect_ok(store.append(batch).await, "append") {
        Appended::Committed { first_seq, last_seq } => (first_seq, last_seq),
        Appended::AlreadyRecorded(recorded) => panic!("append without a claim conflict returned {recorded:?}"),
    }
}

async fn all_events<S: Store>(store: &S, script: &SessionScript) -> Vec<StoredEvent> {
    expect_ok(store.events(script.session, 0, u32::MAX).await, "events")
}

async fn expect_invalid<S: Store>(store: &S, batch: Batch, why: &str) {
    match store.append(batch).await {
        Err(error) => assert_eq!(error.code(), "STORE_INVALID_BATCH", "{why}: wrong error: {error}"),
        Ok(appended) => panic!("{why}: the batch was accepted: {appended:?}"),
    }
}

/// Every projection the store holds, read through the contract.
pub async fn projections<S: Store>(store: &S) -> Projections {
    let mut all = Projections::default();
    let mut before = None;
    loop {
        let query = SessionQuery { limit: MAX_PAGE, before, ..SessionQuery::default() };
        let page = expect_ok(store.list_sessions(query).await, "list_sessions");
        let Some(last) = page.last() else { break };
        before = Some((last.updated_at_ms, last.id));
        for session in page {
            if let Some(run_id) = session.run {
                let run = expect_ok(store.run(run_id).await, "run").expect("a session's run exists");
                for node in expect_ok(store.run_nodes(run_id).await, "run_nodes") {
                    all.nodes.insert(node.id, node);
                }
                all.runs.insert(run.id, run);
            }
            all.sessions.insert(session.id, session);
        }
    }
    all
}

/// Appended events come back with contiguous per-session seqs, the envelope version and a valid
/// hash chain; paging by `after_seq` and `limit` works; a pinned workflow reads back.
pub async fn append_assigns_seq_and_chains_hashes<S: Store>(store: S) {
    let mut first = SessionScript::new(1);
    let start = first.start(node_id(101));
    let appended_events = start.events.clone();
    assert_eq!(append(&store, start).await, (1, 3), "a new session's first batch gets seqs 1..=3");

    let mut second_batch = vec![first.run_event(EventKind::CheckpointRecorded {
        node: node_id(101),
        attempt: None,
        notes: Some("halfway".to_owned()),
        automatic: false,
        phase: None,
    })];
    second_batch.push(first.node(node_id(102), Some(node_id(101)), NodeCause::Advance, RunStatus::WaitingGate));
    let mut expected = appended_events;
    expected.extend(second_batch.clone());
    assert_eq!(append(&store, Batch::events(first.session, second_batch)).await, (4, 5));

    let events = all_events(&store, &first).await;
    assert_eq!(events.len(), 5, "every appended event is stored");
    let mut prev_hash = GENESIS_HASH.to_owned();
    for (index, (stored, sent)) in events.iter().zip(&expected).enumerate() {
        assert_eq!(stored.seq, index as u64 + 1, "seqs start at 1 and are contiguous");
        assert_eq!(stored.v, 1, "the envelope version is 1");
        assert_eq!(stored.session, first.session);
        assert_eq!((stored.id, stored.run, stored.at_ms, &stored.kind), (sent.id, sent.run, sent.at_ms, &sent.kind));
        assert_eq!(stored.prev_hash, prev_hash, "seq {} links to the previous event", stored.seq);
        assert_eq!(stored.hash, chain_hash(&stored.prev_hash, &stored.body()), "seq {} hash", stored.seq);
        prev_hash = stored.hash.clone();
    }

    let page = expect_ok(store.events(first.session, 2, 2).await, "events page");
    assert_eq!(page.iter().map(|event| event.seq).collect::<Vec<_>>(), vec![3, 4], "after_seq 2, limit 2");
    assert!(expect_ok(store.events(first.session, 5, 10).await, "events").is_empty(), "nothing after the last seq");
    assert!(
        expect_ok(store.events(session_id(99), 0, 10).await, "events").is_empty(),
        "an unknown session has no events"
    );

    let mut other = SessionScript::new(2);
    assert_eq!(append(&store, other.start(node_id(201))).await, (1, 3), "seqs are per session");
    let other_events = all_events(&store, &other).await;
    assert_eq!(other_events[0].prev_hash, GENESIS_HASH, "each session's chain starts at the genesis hash");

    let session = expect_ok(store.session(first.session).await, "session").expect("session 1 exists");
    assert_eq!(session.last_seq, 5);
    let pinned = workflow();
    assert_eq!(expect_ok(store.workflow(pinned.hash()).await, "workflow"), Some(pinned), "the pinned workflow");
    let mut unpinned = workflow();
    unpinned.version = "2.0.0".to_owned();
    assert_eq!(expect_ok(store.workflow(unpinned.hash()).await, "workflow"), None, "an unpinned workflow");
}

/// A second append with a recorded claim key writes nothing and returns exactly what was recorded;
/// the same key in another session is another claim.
pub async fn claim_replay_returns_the_recorded_outcome<S: Store>(store: S) {
    let mut script = SessionScript::new(1);
    append(&store, script.start(node_id(101))).await;
    let outcome = serde_json::json!({"token": "ct_first", "score": 0.1, "nested": {"list": [1, 2, 3], "none": null}});
    let first_advance = vec![script.node(node_id(102), Some(node_id(101)), NodeCause::Advance, RunStatus::Active)];
    let batch = script.claimed(first_advance, "advance:one", "sha-one", outcome.clone());
    assert_eq!(append(&store, batch).await, (4, 4));
    let recorded = Recorded {
        key: "advance:one".to_owned(),
        session: script.session,
        payload_sha256: "sha-one".to_owned(),
        outcome: outcome.clone(),
    };
    assert_eq!(expect_ok(store.recorded(script.session, "advance:one").await, "recorded"), Some(recorded.clone()));

    let replay_events = vec![script.node(node_id(103), Some(node_id(101)), NodeCause::Fork, RunStatus::Active)];
    let mut replay = script.claimed(replay_events, "advance:one", "sha-two", serde_json::json!({"token": "ct_second"}));
    replay.tokens.push(script.token(nonce(7), TokenKind::Continue, node_id(103), None));
    let mut other_workflow = workflow();
    other_workflow.version = "9".to_owned();
    replay.pin = Some(other_workflow.clone());
    match expect_ok(store.append(replay).await, "replayed append") {
        Appended::AlreadyRecorded(found) => assert_eq!(found, recorded, "the replay returns the recorded claim"),
        Appended::Committed { .. } => panic!("a second append with the same claim key committed"),
    }
    assert_eq!(all_events(&store, &script).await.len(), 4, "the replay wrote no event");
    assert_eq!(expect_ok(store.node(node_id(103)).await, "node"), None, "the replay created no node");
    assert_eq!(expect_ok(store.token(nonce(7)).await, "token"), None, "the replay registered no token");
    assert_eq!(expect_ok(store.workflow(other_workflow.hash()).await, "workflow"), None, "the replay pinned nothing");
    let session = expect_ok(store.session(script.session).await, "session").expect("session exists");
    assert_eq!(session.last_seq, 4, "the replay left the session as it was");
    assert_eq!(expect_ok(store.recorded(script.session, "advance:unknown").await, "recorded"), None);

    let mut other = SessionScript::new(2);
    append(&store, other.start(node_id(201))).await;
    assert_eq!(expect_ok(store.recorded(other.session, "advance:one").await, "recorded"), None, "another session's");
    let elsewhere = vec![other.node(node_id(202), Some(node_id(201)), NodeCause::Advance, RunStatus::Active)];
    let other_outcome = serde_json::json!({"token": "ct_other"});
    let batch = other.claimed(elsewhere, "advance:one", "sha-other", other_outcome.clone());
    assert_eq!(append(&store, batch).await, (4, 4), "the same key in another session commits");
    let found = expect_ok(store.recorded(other.session, "advance:one").await, "recorded").map(|claim| claim.outcome);
    assert_eq!(found, Some(other_outcome), "the other session's claim");
    assert_eq!(expect_ok(store.recorded(script.session, "advance:one").await, "recorded"), Some(recorded));
}

/// Sessions 1 to `count`, each started and advanced once under the claim `advance:<n>` (outcome
/// `{"session": n}`): a store for a migration test to take back to an older schema.
pub async fn sessions_with_claims<S: Store>(store: &S, count: u64) -> Vec<SessionScript> {
    let mut scripts = Vec::new();
    for n in 1..=count {
        let mut script = SessionScript::new(n);
        append(store, script.start(node_id(100 + n))).await;
        let advance =
            vec![script.node(node_id(200 + n), Some(node_id(100 + n)), NodeCause::Advance, RunStatus::Active)];
        append(store, script.claimed(advance, &format!("advance:{n}"), "sha", serde_json::json!({ "session": n })))
            .await;
        scripts.push(script);
    }
    scripts
}

/// After a migration, each session of [`sessions_with_claims`] finds its claim, copies it with its
/// session, and replays a command sent again.
pub async fn claims_are_kept<S: Store>(store: &S, scripts: &mut [SessionScript]) {
    for (n, script) in (1u64..).zip(scripts) {
        let key = format!("advance:{n}");
        let claim = expect_ok(store.recorded(script.session, &key).await, "recorded").expect("the claim is kept");
        assert_eq!(claim.outcome, serde_json::json!({ "session": n }));
        let copy = expect_ok(store.export_session(script.session).await, "export").expect("the session exports");
        assert_eq!(copy.claims, vec![claim.clone()], "the copy reads the session's claims");
        let again = vec![script.node(node_id(300 + n), Some(node_id(100 + n)), NodeCause::Advance, RunStatus::Active)];
        let replayed =
            expect_ok(store.append(script.claimed(again, &key, "sha", serde_json::json!(0))).await, "append");
        assert_eq!(replayed, Appended::AlreadyRecorded(claim), "a retried command replays");
    }
    let report = expect_ok(store.verify().await, "verify");
    assert!(report.is_clean(), "verify after a migration: {:#?}", report.problems);
}

/// Many appends racing with one claim key: exactly one commits, every other gets its outcome.
pub async fn concurrent_claims_commit_exactly_once<S: Store>(store: S) {
    const WRITERS: u64 = 16;
    let mut script = SessionScript::new(1);
    append(&store, script.start(node_id(101))).await;
    let store = Arc::new(store);
    let mut tasks = tokio::task::JoinSet::new();
    for writer in 0..WRITERS {
        let events =
            vec![script.node(node_id(200 + writer), Some(node_id(101)), NodeCause::Advance, RunStatus::Active)];
        let batch = script.claimed(events, "advance:race", "sha-race", serde_json::json!({ "writer": writer }));
        let store = Arc::clone(&store);
        tasks.spawn(async move { store.append(batch).await });
    }
    let mut committed = 0;
    let mut replayed = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match expect_ok(joined.expect("an append task panicked"), "racing append") {
            Appended::Committed { .. } => committed += 1,
            Appended::AlreadyRecorded(recorded) => replayed.push(recorded),
        }
    }
    assert_eq!(committed, 1, "exactly one racing append commits");
    let winner =
        expect_ok(store.recorded(script.session, "advance:race").await, "recorded").expect("the claim is recorded");
    assert!(replayed.iter().all(|recorded| *recorded == winner), "every loser gets the winner's outcome");
    assert_eq!(all_events(&*store, &script).await.len(), 4, "one event beyond the start batch");
    let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
    assert_eq!(run.node_count, 2, "one node beyond the start node");
}

/// One nonce per `(kind, node, attempt)`, with or without an attempt; batch tokens read back; a
/// batch registering a taken position under another nonce, or a taken nonce at another position,
/// is a conflict and writes nothing; registering the same record again is a no-op.
pub async fn claim_token_keeps_one_nonce_per_position<S: Store>(store: S) {
    let mut script = SessionScript::new(1);
    let mut start = script.start(node_id(101));
    let batch_token = script.token(nonce(1), TokenKind::Continue, node_id(101), Some(attempt_id(1)));
    start.tokens.push(batch_token.clone());
    append(&store, start).await;
    assert_eq!(expect_ok(store.token(nonce(1)).await, "token"), Some(batch_token.clone()), "a batch token");
    let scope = expect_ok(store.token_scope(nonce(1)).await, "token_scope").expect("a registered token has a scope");
    assert_eq!(scope.token, batch_token);
    assert_eq!(scope.run, expect_ok(store.run(script.run).await, "run"));
    assert_eq!(scope.session, expect_ok(store.session(script.session).await, "session"));
    assert_eq!(scope.node, expect_ok(store.node(node_id(101)).await, "node"));
    assert!(scope.run.is_some() && scope.session.is_some() && scope.node.is_some(), "{scope:?}");
    assert_eq!(expect_ok(store.token_scope(nonce(99)).await, "token_scope"), None, "an unknown nonce");
    // A token naming a node the store lacks (a damaged store) still has a scope, without the node.
    let orphan = script.token(nonce(404), TokenKind::Continue, node_id(404), None);
    assert_eq!(expect_ok(store.claim_token(orphan).await, "claim_token"), nonce(404));
    let scope = expect_ok(store.token_scope(nonce(404)).await, "token_scope").expect("a registered token has a scope");
    assert_eq!((scope.node, scope.run.is_some(), scope.session.is_some()), (None, true, true), "the missing node");

    let again = script.token(nonce(2), TokenKind::Continue, node_id(101), Some(attempt_id(1)));
    assert_eq!(expect_ok(store.claim_token(again).await, "claim_token"), nonce(1), "a taken position keeps its nonce");
    assert_eq!(expect_ok(store.token(nonce(2)).await, "token"), None, "the losing nonce is not registered");

    let state = script.token(nonce(3), TokenKind::State, node_id(101), None);
    assert_eq!(expect_ok(store.claim_token(state.clone()).await, "claim_token"), nonce(3), "a free position");
    let state_again = script.token(nonce(4), TokenKind::State, node_id(101), None);
    assert_eq!(
        expect_ok(store.claim_token(state_again).await, "claim_token"),
        nonce(3),
        "no attempt is a position too"
    );
    assert_eq!(expect_ok(store.token(nonce(3)).await, "token"), Some(state));

    let checkpoint = script.token(nonce(5), TokenKind::Checkpoint, node_id(101), Some(attempt_id(1)));
    assert_eq!(
        expect_ok(store.claim_token(checkpoint).await, "claim_token"),
        nonce(5),
        "another kind, another position"
    );
    let other_attempt = script.token(nonce(6), TokenKind::Continue, node_id(101), Some(attempt_id(2)));
    assert_eq!(expect_ok(store.claim_token(other_attempt).await, "claim_token"), nonce(6), "another attempt");

    // A new node whose batch registers a token that clashes: at a taken position under another
    // nonce, then a taken nonce at the new node's free position.
    let clashes = [
        (
            node_id(102),
            script.token(nonce(8), TokenKind::Continue, node_id(101), Some(attempt_id(1))),
            "a taken position",
        ),
        (node_id(103), script.token(nonce(1), TokenKind::Continue, node_id(103), Some(attempt_id(1))), "a taken nonce"),
    ];
    for (node, token, clash) in clashes {
        let mut batch = Batch::events(
            script.session,
            vec![script.node(node, Some(node_id(101)), NodeCause::Advance, RunStatus::Active)],
        );
        batch.tokens.push(token);
        match store.append(batch).await {
            Err(error) => assert_eq!(error.code(), "STORE_CONFLICT", "{clash} in a batch: {error}"),
            Ok(appended) => panic!("a batch registering {clash} was accepted: {appended:?}"),
        }
        assert_eq!(expect_ok(store.node(node).await, "node"), None, "the batch with {clash} wrote nothing");
    }
    assert_eq!(expect_ok(store.token(nonce(8)).await, "token"), None);
    let elsewhere = script.token(nonce(3), TokenKind::Checkpoint, node_id(101), Some(attempt_id(2)));
    match store.claim_token(elsewhere).await {
        Err(error) => {
            assert_eq!(error.code(), "STORE_CONFLICT", "claiming a free position with a taken nonce: {error}")
        }
        Ok(nonce) => panic!("a taken nonce was registered at a second position: {nonce:?}"),
    }

    let mut same_again = Batch::events(
        script.session,
        vec![script.node(node_id(104), Some(node_id(101)), NodeCause::Advance, RunStatus::Active)],
    );
    same_again.tokens.push(batch_token.clone());
    append(&store, same_again).await;
    assert_eq!(expect_ok(store.token(nonce(1)).await, "token"), Some(batch_token), "the same record again is a no-op");
}

/// Node rows, child counts, the tip and the run and session statuses through an advance, a fork,
/// a pause (with a node created while paused), a resume and a stop.
pub async fn projections_follow_nodes_forks_and_controls<S: Store>(store: S) {
    let mut script = SessionScript::new(1);
    let (a, b, c, d) = (node_id(101), node_id(102), node_id(103), node_id(104));
    append(&store, script.start(a)).await;

    let session = expect_ok(store.session(script.session).await, "session").expect("session exists");
    assert_eq!(session.title, "Session 1");
    assert_eq!(session.goal, "goal of session 1");
    assert_eq!(session.workspace.as_deref(), Some("/work/project"));
    assert_eq!(session.git_branch.as_deref(), Some("main"));
    assert_eq!(session.workflow_id.as_deref(), Some("conformance"));
    assert_eq!(session.run, Some(script.run));
    assert_eq!(session.status, Some(RunStatus::Active));
    assert_eq!(
        (session.created_at_ms, session.updated_at_ms, session.last_seq),
        (1_700_000_000_000, 1_700_000_000_002, 3)
    );
    let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
    assert_eq!((run.tip, run.status, run.control, run.node_count), (a, RunStatus::Active, Control::Running, 1));
    assert_eq!(
        (run.workflow_id.as_str(), run.workflow_hash, run.source.as_str()),
        ("conformance", workflow().hash(), "builtin")
    );
    assert_eq!(run.session, script.session);
    let start = expect_ok(store.node(a).await, "node").expect("start node exists");
    assert_eq!((start.parent, start.child_count, start.created_seq, start.run), (None, 0, 3, script.run));
    assert_eq!(start.state, fixture::node_state("draft", RunStatus::Active));

    let advance = script.node(b, Some(a), NodeCause::Advance, RunStatus::WaitingGate);
    append(&store, Batch::events(script.session, vec![advance])).await;
    let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
    assert_eq!((run.tip, run.status, run.node_count), (b, RunStatus::WaitingGate, 2), "the tip follows the advance");
    assert_eq!(expect_ok(store.node(a).await, "node").expect("a").child_count, 1);

    let fork = script.node(c, Some(a), NodeCause::Fork, RunStatus::Blocked);
    append(&store, Batch::events(script.session, vec![fork])).await;
    let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
    assert_eq!((run.tip, run.status, run.node_count), (c, RunStatus::Blocked, 3), "the tip follows the fork");
    assert_eq!(expect_ok(store.node(a).await, "node").expect("a").child_count, 2, "a fork is a second child");
    let forked = expect_ok(store.node(c).await, "node").expect("c");
    assert_eq!((forked.parent, forked.cause, forked.status), (Some(a), NodeCause::Fork, RunStatus::Blocked));
    let order: Vec<_> =
        expect_ok(store.run_nodes(script.run).await, "run_nodes").into_iter().map(|node| node.id).collect();
    assert_eq!(order, vec![a, b, c], "run_nodes come in creation order");

    let pause = script.run_event(EventKind::RunPaused { reason: Some("lunch".to_owned()) });
    append(&store, Batch::events(script.session, vec![pause])).await;
    let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
    assert_eq!((run.control, run.status), (Control::Paused, RunStatus::Paused));
    let session = expect_ok(store.session(script.session).await, "session").expect("session exists");
    assert_eq!(session.status, Some(RunStatus::Paused), "the session mirrors its run");

    let while_paused = script.node(d, Some(c), NodeCause::Advance, RunStatus::Active);
    append(&store, Batch::events(script.session, vec![while_paused])).await;
    let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
    assert_eq!((run.tip, run.status, run.node_count), (d, RunStatus::Paused, 4), "a node does not unpause the run");

    append(&store, Batch::events(script.session, vec![script.run_event(EventKind::RunResumed)])).await;
    let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
    assert_eq!((run.control, run.status), (Control::Running, RunStatus::Active), "resume shows the tip's status");

    let stop = script.run_event(EventKind::RunStopped { reason: None });
    let stop_at = stop.at_ms;
    append(&store, Batch::events(script.session, vec![stop])).await;
    let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
    assert_eq!((run.control, run.status, run.updated_at_ms), (Control::Stopped, RunStatus::Stopped, stop_at));
    let session = expect_ok(store.session(script.session).await, "session").expect("session exists");
    assert_eq!((session.status, session.updated_at_ms, session.last_seq), (Some(RunStatus::Stopped), stop_at, 9));
    assert_eq!(expect_ok(store.node(node_id(999)).await, "node"), None);
    assert_eq!(expect_ok(store.run(fixture::run_id(999)).await, "run"), None);
    assert_eq!(expect_ok(store.session(session_id(999)).await, "session"), None);
    assert!(expect_ok(store.run_nodes(fixture::run_id(999)).await, "run_nodes").is_empty());
}

/// `RunCompleted` and `RunFailed` leave the run completed or failed, and the session with it.
pub async fn completion_and_failure_set_the_run_status<S: Store>(store: S) {
    for (n, status, last) in [
        (1, RunStatus::Completed, EventKind::RunCompleted { node: node_id(102) }),
        (
            2,
            RunStatus::Failed,
            EventKind::RunFailed {
                node: node_id(202),
                code: "NO_ELIGIBLE_EDGE".to_owned(),
                message: "stuck".to_owned(),
            },
        ),
    ] {
        let mut script = SessionScript::new(n);
        let first = node_id(n * 100 + 1);
        let mut start = script.start(first);
        start.events.push(script.node(node_id(n * 100 + 2), Some(first), NodeCause::Advance, status));
        start.events.push(script.run_event(last));
        append(&store, start).await;
        let run = expect_ok(store.run(script.run).await, "run").expect("run exists");
        assert_eq!((run.status, run.tip, run.node_count), (status, node_id(n * 100 + 2), 2));
        let session = expect_ok(store.session(script.session).await, "session").expect("session exists");
        assert_eq!(session.status, Some(status));
    }
}

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
    let store = Arc::new(store);
    let mut tasks = tokio::task::JoinSet::new();
    for n in 1..=u64::from(MAX_PAGE) + 1 {
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

/// Writes sessions covering every projection rule: advances, forks, pauses, nodes while paused,
/// resumes, stops, completion, failure, log-only events and a session without a run.
pub async fn write_varied_sessions<S: Store>(store: &S) -> (u64, u64) {
    let mut events = 0;
    let sessions = 5;
    for n in 1..=sessions {
        let mut script = SessionScript::new(n);
        let node = |k: u64| node_id(n * 100 + k);
        if n == 5 {
            let batch = Batch::events(script.session, vec![script.created("no run yet")]);
            events += 1;
            append(store, batch).await;
            continue;
        }
        let mut batches = vec![script.start(node(1))];
        batches.push(Batch::events(
            script.session,
            vec![
                script.run_event(EventKind::AdvanceRecorded {
                    from: node(1),
                    attempt: attempt_id(n),
                    to: node(2),
                    notes: Some("did it".to_owned()),
                    artifacts: Some(serde_json::json!({"files": ["a.rs"]})),
                    context_delta: None,
                    choice: None,
                    edge_label: Some("done".to_owned()),
                }),
                script.node(node(2), Some(node(1)), NodeCause::Advance, RunStatus::WaitingGate),
            ],
        ));
        batches.push(Batch::events(
            script.session,
            vec![script.node(node(3), Some(node(1)), NodeCause::Fork, RunStatus::Blocked)],
        ));
        match n {
            1 => {
                batches
                    .push(Batch::events(script.session, vec![script.run_event(EventKind::RunPaused { reason: None })]));
                batches.push(Batch::events(
                    script.session,
                    vec![script.node(node(4), Some(node(3)), NodeCause::Advance, RunStatus::Active)],
                ));
            }
            2 => {
                batches
                    .push(Batch::events(script.session, vec![script.run_event(EventKind::RunPaused { reason: None })]));
                batches.push(Batch::events(script.session, vec![script.run_event(EventKind::RunResumed)]));
            }
            3 => {
                batches.push(Batch::events(
                    script.session,
                    vec![
                        script.node(node(4), Some(node(2)), NodeCause::Advance, RunStatus::Completed),
                        script.run_event(EventKind::RunCompleted { node: node(4) }),
                    ],
                ));
            }
            _ => {
                batches.push(Batch::events(
                    script.session,
                    vec![script.run_event(EventKind::RunStopped { reason: Some("enough".to_owned()) })],
                ));
            }
        }
        for batch in batches {
            events += batch.events.len() as u64;
            append(store, batch).await;
        }
    }
    (sessions, events)
}

/// Rebuilding the projections from the events gives exactly the incrementally maintained ones.
pub async fn rebuild_equals_incremental<S: Store>(store: S) {
    write_varied_sessions(&store).await;
    let before = projections(&store).await;
    assert_eq!((before.sessions.len(), before.runs.len()), (5, 4), "the varied sessions are all listed");
    expect_ok(store.rebuild_projections().await, "rebuild_projections");
    let after = projections(&store).await;
    let problems = crate::projection::differences(&before, &after);
    assert!(problems.is_empty(), "rebuild differs from the incremental projections: {problems:#?}");
    assert_eq!(before, after);
    let report = expect_ok(store.verify().await, "verify");
    assert!(report.is_clean(), "verify after rebuild: {:#?}", report.problems);
}

/// `verify` on a store written only through the contract finds nothing and counts everything.
pub async fn verify_is_clean_on_a_good_store<S: Store>(store: S) {
    let empty = expect_ok(store.verify().await, "verify");
    assert!(empty.is_clean(), "verify of an empty store: {:#?}", empty.problems);
    let (sessions, events) = write_varied_sessions(&store).await;
    let report = expect_ok(store.verify().await, "verify");
    assert!(report.is_clean(), "verify of a good store: {:#?}", report.problems);
    assert_eq!((report.sessions_checked, report.events_checked), (sessions, events));
}

/// A batch that breaks a rule is refused with `STORE_INVALID_BATCH` and writes nothing: no event,
/// no projection, no claim, no token, no pin; the next good batch gets the next seq.
pub async fn invalid_batch_writes_nothing<S: Store>(store: S) {
    let mut fresh = SessionScript::new(1);
    expect_invalid(&store, Batch::events(fresh.session, Vec::new()), "an empty batch").await;

    let mut broken_start = fresh.start(node_id(101));
    broken_start.events.push(fresh.node(node_id(102), Some(node_id(999)), NodeCause::Advance, RunStatus::Active));
    broken_start.claim = Some(crate::record::Claim {
        key: "advance:broken".to_owned(),
        payload_sha256: "sha".to_owned(),
        outcome: serde_json::json!(1),
    });
    broken_start.tokens.push(fresh.token(nonce(1), TokenKind::Continue, node_id(101), None));
    expect_invalid(&store, broken_start, "a node whose parent does not exist").await;
    assert_eq!(expect_ok(store.session(fresh.session).await, "session"), None, "no session row");
    assert_eq!(expect_ok(store.run(fresh.run).await, "run"), None, "no run row");
    assert_eq!(expect_ok(store.node(node_id(101)).await, "node"), None, "no node row");
    assert!(all_events(&store, &fresh).await.is_empty(), "no event");
    assert_eq!(expect_ok(store.recorded(fresh.session, "advance:broken").await, "recorded"), None, "no claim");
    assert_eq!(expect_ok(store.token(nonce(1)).await, "token"), None, "no token");
    assert_eq!(expect_ok(store.workflow(workflow().hash()).await, "workflow"), None, "no pin");
    assert!(expect_ok(store.list_sessions(SessionQuery::default()).await, "list").is_empty(), "nothing listed");

    let mut headless = SessionScript::new(2);
    let checkpoint = headless.event(None, EventKind::RunResumed);
    expect_invalid(&store, Batch::events(headless.session, vec![checkpoint]), "an event before session_created").await;
    let workflow = workflow();
    let no_node = vec![headless.created("g"), headless.run_started(&workflow)];
    expect_invalid(&store, Batch::events(headless.session, no_node), "run_started without its first node").await;

    let mut good = SessionScript::new(3);
    append(&store, good.start(node_id(301))).await;
    let duplicate_id = all_events(&store, &good).await[0].id;
    let mut duplicate = good.node(node_id(302), Some(node_id(301)), NodeCause::Advance, RunStatus::Active);
    duplicate.id = duplicate_id;
    expect_invalid(&store, Batch::events(good.session, vec![duplicate]), "a reused event id").await;
    let half_good = vec![
        good.node(node_id(303), Some(node_id(301)), NodeCause::Advance, RunStatus::Active),
        good.event(Some(fixture::run_id(999)), EventKind::RunPaused { reason: None }),
    ];
    expect_invalid(&store, Batch::events(good.session, half_good), "an event naming an unknown run").await;
    let again = vec![good.created("twice")];
    expect_invalid(&store, Batch::events(good.session, again), "a second session_created").await;
    assert_eq!(expect_ok(store.node(node_id(303)).await, "node"), None, "the valid half was rolled back");
    let session = expect_ok(store.session(good.session).await, "session").expect("session 3 exists");
    assert_eq!(session.last_seq, 3, "refused batches left the session as it was");
    let run = expect_ok(store.run(good.run).await, "run").expect("run 3 exists");
    assert_eq!((run.node_count, run.tip), (1, node_id(301)));

    let next = vec![good.node(node_id(304), Some(node_id(301)), NodeCause::Advance, RunStatus::Active)];
    assert_eq!(append(&store, Batch::events(good.session, next)).await, (4, 4), "no seq was burnt");
    let report = expect_ok(store.verify().await, "verify");
    assert!(report.is_clean(), "verify after refused batches: {:#?}", report.problems);
}

/// A batch guarded on its run's control commits while the control holds; once a stop commits in
/// between, it writes nothing and says the run is stale, but a replay of a recorded claim is still
/// answered from the record.
pub async fn a_run_guard_holds_a_batch_to_the_control_it_was_decided_on<S: Store>(store: S) {
    let mut script = SessionScript::new(1);
    append(&store, script.start(node_id(101))).await;
    let running = Some(RunGuard { run: script.run, control: Control::Running });
    let advance = vec![script.node(node_id(102), Some(node_id(101)), NodeCause::Advance, RunStatus::Active)];
    let mut claimed = script.claimed(advance, "advance:102", "sha", serde_json::json!({"node": "102"}));
    claimed.guard = running;
    append(&store, claimed.clone()).await;

    let stop = script.event(Some(script.run), EventKind::RunStopped { reason: None });
    append(&store, Batch::events(script.session, vec![stop])).await;
    let mut late = Batch::events(
        script.session,
        vec![script.node(node_id(103), Some(node_id(102)), NodeCause::Advance, RunStatus::Active)],
    );
    late.guard = running;
    match store.append(late).await {
        Err(error) => assert_eq!(error.code(), "STORE_STALE", "a guard that no longer holds: {error}"),
        Ok(appended) => panic!("a batch decided on a running run landed after its stop: {appended:?}"),
    }
    assert_eq!(expect_ok(store.node(node_id(103)).await, "node"), None, "the stale batch wrote nothing");
    let run = expect_ok(store.run(script.run).await, "run").expect("the run exists");
    assert_eq!((run.control, run.tip, run.node_count), (Control::Stopped, node_id(102), 2));

    match expect_ok(store.append(claimed).await, "a replay") {
        Appended::AlreadyRecorded(recorded) => assert_eq!(recorded.key, "advance:102"),
        other => panic!("a replay of a recorded claim must be answered from the record: {other:?}"),
    }
}

/// Search finds sessions by words of their goal and notes, one hit per session, best first, and
/// ignores query syntax; a recap walks the branch up from a node, oldest first, and leaves out
/// texts recorded on other branches. Both survive a rebuild.
pub async fn search_and_recap_follow_the_events<S: Store>(store: S) {
    let mut first = SessionScript::new(1);
    let (a, b, c, fork) = (node_id(101), node_id(102), node_id(103), node_id(104));
    append(&store, first.start(a)).await;
    let advance = |script: &mut SessionScript, from, to, notes: &str| {
        script.run_event(EventKind::AdvanceRecorded {
            from,
            attempt: attempt_id(1),
            to,
            notes: Some(notes.to_owned()),
            artifacts: None,
            context_delta: None,
            choice: None,
            edge_label: None,
        })
    };
    let to_b = advance(&mut first, a, b, "Parsed the lighthouse manifest");
    let node_b = first.node(b, Some(a), NodeCause::Advance, RunStatus::Active);
    append(&store, Batch::events(first.session, vec![to_b, node_b])).await;
    let to_c = advance(&mut first, b, c, "Wrote the zeppelin adapter");
    let node_c = first.node(c, Some(b), NodeCause::Advance, RunStatus::Active);
    append(&store, Batch::events(first.session, vec![to_c, node_c])).await;
    let checkpoint = first.run_event(EventKind::CheckpointRecorded {
        node: c,
        attempt: None,
        notes: Some("half way through the adapter".to_owned()),
        automatic: false,
        phase: None,
    });
    append(&store, Batch::events(first.session, vec![checkpoint])).await;
    let to_fork = advance(&mut first, a, fork, "A different plan: quokka first");
    let node_fork = first.node(fork, Some(a), NodeCause::Fork, RunStatus::Active);
    append(&store, Batch::events(first.session, vec![to_fork, node_fork])).await;

    let mut second = SessionScript::new(2);
    append(&store, second.start(node_id(201))).await;

    let search = |text: &str| SearchQuery { text: text.to_owned(), limit: 5, workspace: None };
    let hits = expect_ok(store.search_sessions(search("zeppelin")).await, "search_sessions");
    assert_eq!(hits.iter().map(|hit| hit.session).collect::<Vec<_>>(), vec![first.session], "notes are searchable");
    assert!(hits[0].snippet.contains("[zeppelin]"), "the snippet marks the match: {}", hits[0].snippet);
    assert_eq!(hits[0].matched, "notes");
    let hits = expect_ok(store.search_sessions(search("session 2")).await, "search_sessions");
    assert_eq!(hits.first().map(|hit| hit.session), Some(second.session), "the goal and title are searchable");
    let hits = expect_ok(store.search_sessions(search("goal")).await, "search_sessions");
    assert_eq!(hits.len(), 2, "one hit per session, however many texts match: {hits:?}");
    let hits = expect_ok(store.search_sessions(search("adapters")).await, "search_sessions");
    assert_eq!(hits.len(), 1, "a word matches its other forms (stemmed): {hits:?}");
    assert!(hits[0].snippet.contains("[adapter]"), "{}", hits[0].snippet);
    for syntax in ["\"NEAR(\"", "* OR -", "\"", ""] {
        let hits = expect_ok(store.search_sessions(search(syntax)).await, "search_sessions with query syntax");
        assert!(hits.iter().all(|hit| hit.session == first.session || hit.session == second.session));
    }

    let recap = expect_ok(store.recap(c, 50).await, "recap");
    let texts: Vec<(&str, RecapKind)> = recap.iter().map(|entry| (entry.text.as_str(), entry.kind)).collect();
    assert_eq!(
        texts,
        vec![
            ("Parsed the lighthouse manifest", RecapKind::Notes),
            ("Wrote the zeppelin adapter", RecapKind::Notes),
            ("half way through the adapter", RecapKind::Checkpoint),
        ],
        "the recap walks up the branch, oldest first, and leaves the fork's notes out"
    );
    assert_eq!(
        (recap[0].node, recap[1].node, recap[2].node),
        (b, c, c),
        "an advance's notes belong to the node it led to"
    );
    assert!(recap.iter().all(|entry| entry.step.as_str() == "draft"), "the step acted on: {recap:?}");
    let short = expect_ok(store.recap(c, 1).await, "recap");
    assert_eq!(short.len(), 2, "max_nodes bounds the walk to node c's two texts: {short:?}");
    let fork_recap = expect_ok(store.recap(fork, 50).await, "recap");
    assert_eq!(
        fork_recap.iter().map(|entry| entry.text.as_str()).collect::<Vec<_>>(),
        vec!["A different plan: quokka first"]
    );

    expect_ok(store.rebuild_projections().await, "rebuild_projections");
    assert_eq!(expect_ok(store.recap(c, 50).await, "recap after rebuild"), recap, "a rebuild keeps the recap");
    let hits = expect_ok(store.search_sessions(search("quokka")).await, "search_sessions after rebuild");
    assert_eq!(hits.len(), 1, "a rebuild keeps the search index");
}

/// Each committed batch reaches every subscriber as where its session's log now ends, after the
/// commit; a replayed claim and a refused batch publish nothing.
pub async fn commits_are_published_to_subscribers<S: Store>(store: S) {
    use tokio::sync::broadcast::error::TryRecvError;
    let mut early = store.subscribe().await;
    let mut script = SessionScript::new(1);
    append(&store, script.start(node_id(101))).await;
    let mut late = store.subscribe().await;
    let advance = vec![script.node(node_id(102), Some(node_id(101)), NodeCause::Advance, RunStatus::Active)];
    let batch = script.claimed(advance, "advance:published", "sha", serde_json::json!(1));
    assert_eq!(append(&store, batch).await, (4, 4));
    let started = Change { session: script.session, last_seq: 3 };
    let advanced = Change { session: script.session, last_seq: 4 };
    // Published before `append` returned: no waiting needed.
    assert_eq!(early.try_recv(), Ok(started), "the start reached the early subscriber");
    assert_eq!(early.try_recv(), Ok(advanced), "the advance reached the early subscriber");
    assert_eq!(late.try_recv(), Ok(advanced), "a subscriber hears only what commits after it subscribed");

    let replay_events = vec![script.node(node_id(103), Some(node_id(101)), NodeCause::Fork, RunStatus::Active)];
    let replay = script.claimed(replay_events, "advance:published", "sha", serde_json::json!(2));
    assert!(matches!(expect_ok(store.append(replay).await, "replay"), Appended::AlreadyRecorded(_)));
    expect_invalid(&store, Batch::events(script.session, Vec::new()), "an empty batch").await;
    assert_eq!(early.try_recv(), Err(TryRecvError::Empty), "a replay and a refused batch publish nothing");
}

/// Every session exported from `source` and imported into `destination` arrives whole: the same
/// events with the same hashes, the same projections (rebuilt by the destination), claims, tokens
/// and pins; the destination verifies clean. A session already there, a copy whose bytes do not
/// match its hashes, and a copy carrying a claim of another session or one claim twice are refused
/// and write nothing.
pub async fn a_session_copy_carries_everything_and_imports_whole<S: Store, D: Store>(source: S, destination: D) {
    write_varied_sessions(&source).await;
    let mut script = SessionScript::new(9);
    append(&source, script.start(node_id(901))).await;
    let token = script.token(nonce(901), TokenKind::Continue, node_id(901), Some(attempt_id(901)));
    let paused = script.run_event(EventKind::RunPaused { reason: Some("copied".to_owned()) });
    let mut claimed =
        script.claimed(vec![paused], "advance:901", "payload-digest", serde_json::json!({"copied": true}));
    claimed.tokens.push(token.clone());
    append(&source, claimed).await;

    let mut copied = Vec::new();
    let mut after = None;
    loop {
        let page = expect_ok(source.copied_sessions(after, 2).await, "copied_sessions");
        let Some(last) = page.last() else { break };
        after = Some(*last);
        copied.extend(page);
    }
    let mut sorted = copied.clone();
    sorted.sort_by_key(ToString::to_string);
    assert_eq!(copied, sorted, "copied_sessions pages in id byte order");
    assert_eq!(copied.len(), 6, "every session with events is listed once: {copied:?}");
    assert!(expect_ok(source.export_session(session_id(77)).await, "export_session").is_none(), "an unknown session");

    for session in &copied {
        let copy =
            expect_ok(source.export_session(*session).await, "export_session").expect("a listed session exports");
        expect_ok(destination.import_session(copy).await, "import_session");
    }
    for session in &copied {
        let from = expect_ok(source.events(*session, 0, u32::MAX).await, "events");
        let to = expect_ok(destination.events(*session, 0, u32::MAX).await, "events");
        assert_eq!(from, to, "session {session}: the events, seqs and hashes are copied as they are");
    }
    let problems = crate::projection::differences(&projections(&source).await, &projections(&destination).await);
    assert!(problems.is_empty(), "the destination's projections differ from the source's: {problems:#?}");
    let report = expect_ok(destination.verify().await, "verify");
    assert!(report.is_clean(), "verify after a copy: {:#?}", report.problems);
    assert_eq!(expect_ok(destination.token(token.nonce).await, "token"), Some(token), "the token is copied");
    let recorded =
        expect_ok(destination.recorded(script.session, "advance:901").await, "recorded").expect("the claim is copied");
    assert_eq!(recorded.outcome, serde_json::json!({"copied": true}));
    assert!(expect_ok(destination.workflow(workflow().hash()).await, "workflow").is_some(), "the pin is copied");

    let again = expect_ok(source.export_session(script.session).await, "export_session").expect("exported");
    match destination.import_session(again.clone()).await {
        Err(error) => assert_eq!(error.code(), "STORE_CONFLICT", "a session already there: {error}"),
        Ok(()) => panic!("a session the destination holds was imported a second time"),
    }
    let mut tampered = again;
    tampered.session = session_id(78);
    tampered.claims.clear();
    tampered.tokens.clear();
    match destination.import_session(tampered).await {
        Err(error) => assert_eq!(error.code(), "STORE_CORRUPT", "events sealed for another session: {error}"),
        Ok(()) => panic!("events whose envelopes name another session were imported"),
    }
    let mut altered = expect_ok(source.export_session(session_id(1)).await, "export_session").expect("exported");
    let edited = altered.events.iter_mut().find(|event| event.body.contains("did it")).expect("an advance with notes");
    edited.body = edited.body.replace("did it", "did not");
    match destination.import_session(altered).await {
        Err(error) => assert_eq!(error.code(), "STORE_CORRUPT", "a copy that does not match its hashes: {error}"),
        Ok(()) => panic!("a copy that does not match its hashes was imported"),
    }
    // Both are refused by the copy's own checks, before the destination is looked at (it holds
    // this session already).
    let fresh = expect_ok(source.export_session(script.session).await, "export_session").expect("exported");
    let mut foreign = fresh.clone();
    foreign.claims[0].session = session_id(78);
    let mut twice = fresh;
    twice.claims.push(twice.claims[0].clone());
    for (copy, what) in [(foreign, "a claim of another session"), (twice, "a claim listed twice")] {
        match destination.import_session(copy).await {
            Err(error) => assert_eq!(error.code(), "STORE_INVALID_BATCH", "{what}: {error}"),
            Ok(()) => panic!("a copy carrying {what} was imported"),
        }
    }
    let refused = session_id(78);
    assert!(expect_ok(destination.session(refused).await, "session").is_none(), "a refused import wrote nothing");
    assert!(
        expect_ok(destination.recorded(refused, "advance:901").await, "recorded").is_none(),
        "a refused import wrote no claim"
    );
    assert!(expect_ok(destination.events(refused, 0, 10).await, "events").is_empty());
}
