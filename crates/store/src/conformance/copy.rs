//! Copying a session between stores: everything arrives whole, and a copy that is not whole is
//! refused.

use switchyard_core::event::EventKind;
use switchyard_core::token::TokenKind;

use crate::Store;

use super::fixture::{SessionScript, attempt_id, node_id, nonce, session_id, workflow};
use super::{append, expect_ok, projections, write_varied_sessions};

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
