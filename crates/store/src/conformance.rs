//! The conformance suite every [`Store`] backend runs unchanged.
//!
//! [`run_all`] runs every check, each against a fresh store; each check is also public so a
//! backend can run one alone. A check panics with a message naming what the backend got wrong.
//! Run the suite inside a multi-thread tokio runtime: the race checks spawn tasks.

pub mod fixture;

mod append;
mod claims;
mod copy;
mod projections;
mod queries;
mod search;

use std::future::Future;

use crate::projection::Projections;
use crate::record::{Appended, Batch, MAX_PAGE, SessionQuery, StoredEvent};
use crate::{Error, Store};

use fixture::SessionScript;

pub use append::{
    a_run_guard_holds_a_batch_to_the_control_it_was_decided_on, append_assigns_seq_and_chains_hashes,
    commits_are_published_to_subscribers, invalid_batch_writes_nothing,
};
pub use claims::{
    claim_replay_returns_the_recorded_outcome, claim_token_keeps_one_nonce_per_position, claims_are_kept,
    concurrent_claims_commit_exactly_once, sessions_with_claims,
};
pub use copy::a_session_copy_carries_everything_and_imports_whole;
pub use projections::{
    completion_and_failure_set_the_run_status, projections_follow_nodes_forks_and_controls, rebuild_equals_incremental,
    verify_is_clean_on_a_good_store, write_varied_sessions,
};
pub use queries::{
    list_sessions_caps_the_limit, list_sessions_orders_filters_and_pages, sessions_are_found_by_workspace_and_git_facts,
};
pub use search::search_and_recap_follow_the_events;

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
