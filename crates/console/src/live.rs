//! Live updates: `/events`, a server-sent event stream of the store's changes, which open pages
//! follow to refresh what they show.

use std::convert::Infallible;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures::Stream;

use crate::ConsoleState;

/// Each change the store commits, as an SSE event naming the session.
pub(crate) async fn events(State(state): State<ConsoleState>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let changes = state.runtime.subscribe();
    let stream = futures::stream::unfold(changes, |mut changes| async move {
        let event = match changes.recv().await {
            Ok(change) => Event::default().event("change").data(change.session.to_string()),
            Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => Event::default().event("lagged").data(""),
            Err(tokio::sync::broadcast::error::RecvError::Closed) => return None,
        };
        Some((Ok(event), changes))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
