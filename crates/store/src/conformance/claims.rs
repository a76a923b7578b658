//! Claims and tokens: a command's recorded outcome, its replays and races, and one nonce per
//! token position.

use std::sync::Arc;

use switchyard_core::event::NodeCause;
use switchyard_core::state::RunStatus;
use switchyard_core::token::TokenKind;

use crate::Store;
use crate::record::{Appended, Batch, Recorded};

use super::fixture::{SessionScript, attempt_id, node_id, nonce, workflow};
use super::{all_events, append, expect_ok};

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
