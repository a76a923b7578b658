//! Search and recap: sessions found by the words of their goal and notes, and a branch's texts
//! oldest first.

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::state::RunStatus;

use crate::Store;
use crate::record::Batch;
use crate::search::{RecapKind, SearchQuery};

use super::fixture::{SessionScript, attempt_id, node_id};
use super::{append, expect_ok};

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
