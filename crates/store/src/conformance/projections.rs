//! Projections: nodes, runs and sessions through forks, controls, completion and failure, and
//! a rebuild and `verify` that agree with them.

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::state::{Control, RunStatus};

use crate::Store;
use crate::record::Batch;

use super::fixture::{self, SessionScript, attempt_id, node_id, session_id, workflow};
use super::{append, expect_ok, projections};

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
