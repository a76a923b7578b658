//! Appending batches: sequence numbers and the hash chain, refused batches, run guards, and
//! the change feed.

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::state::{Control, RunStatus};
use switchyard_core::token::TokenKind;

use crate::event::{GENESIS_HASH, chain_hash};
use crate::record::{Appended, Batch, RunGuard, SessionQuery};
use crate::{Change, Store};

use super::fixture::{self, SessionScript, node_id, nonce, session_id, workflow};
use super::{all_events, append, expect_invalid, expect_ok};

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
