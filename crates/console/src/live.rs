//! Live updates: `/events`, a server-sent event stream of the store's changes, which open pages
//! follow (with `/assets/live.js`) to refresh what they show.
//!
//! Each connection holds one receiver of the store's broadcast feed and nothing else, so fifty open
//! pages cost fifty cursors into one shared ring. The stream sends:
//! - `event: change` with `data: {"session": "...", "seq": N}` and an `id:` for each commit;
//! - `event: reload` when the page may have missed something: the receiver fell behind the feed
//!   (`Lagged`), or the browser reconnected (it sends the `Last-Event-ID` it last saw, and the feed
//!   keeps no history to replay from it);
//! - a keep-alive comment every [`KEEP_ALIVE`], so proxies keep the connection and a dead server is
//!   noticed.
//!
//! The stream ends when the server shuts down (`ConsoleOptions::shutdown`) or the feed closes (the
//! store is gone); the browser's `EventSource` then reconnects by itself, after [`RECONNECT`].

use std::convert::Infallible;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use futures::Stream;
use tokio::sync::broadcast::error::RecvError;

use switchyard_runtime::{Change, Changes};

use crate::ConsoleState;

/// The script pages load to follow `/events`; no build step, no framework.
const SCRIPT: &str = include_str!("../assets/live.js");

/// How often an idle stream sends a comment.
pub(crate) const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How long a browser waits before reconnecting a dropped stream (the `retry:` field).
pub(crate) const RECONNECT: Duration = Duration::from_secs(1);

/// `GET /assets/live.js`. Revalidated on each load (its name does not change with its content);
/// small enough that this costs nothing.
pub(crate) async fn script() -> Response {
    let mut response = SCRIPT.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/javascript; charset=utf-8"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `GET /events`: each change the store commits, as an SSE event naming the session.
pub(crate) async fn events(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let resumed = headers.contains_key("last-event-id");
    // A stream never ends by itself: without this, a server asked to stop would wait for every
    // open page to close.
    let shutdown = state.options.shutdown.clone().cancelled_owned();
    let stream = futures::StreamExt::take_until(stream(state.runtime.subscribe().await, resumed), shutdown);
    Sse::new(stream).keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
}

/// What a connection sends: a first event setting the reconnection delay (a `reload` one when the
/// browser comes back from a dropped stream), then one event per change.
fn stream(changes: Changes, resumed: bool) -> impl Stream<Item = Result<Event, Infallible>> {
    let first = if resumed { reload("reconnected") } else { Event::default().comment("live") };
    let first = futures::stream::once(std::future::ready(Ok(first.retry(RECONNECT))));
    let following = futures::stream::unfold(changes, |mut changes| async move {
        let event = match changes.recv().await {
            Ok(change) => change_event(change),
            Err(RecvError::Lagged(_)) => reload("lagged"),
            Err(RecvError::Closed) => return None,
        };
        Some((Ok(event), changes))
    });
    futures::StreamExt::chain(first, following)
}

fn change_event(change: Change) -> Event {
    let data = serde_json::json!({ "session": change.session.to_string(), "seq": change.last_seq });
    Event::default().event("change").id(format!("{}-{}", change.session, change.last_seq)).data(data.to_string())
}

fn reload(reason: &'static str) -> Event {
    Event::default().event("reload").data(serde_json::json!({ "reason": reason }).to_string())
}

#[cfg(test)]
mod tests {
    use axum::response::IntoResponse;

    use switchyard_runtime::{CHANGE_BACKLOG, Change, Feed};

    use super::*;

    fn change(seq: u64) -> Change {
        Change { session: "sess_aeaaaaaaaaaaaaaaaaaaaaaaae".parse().expect("a session id"), last_seq: seq }
    }

    /// Everything a stream sends once its feed closes, as the text a browser reads.
    async fn sent(changes: Changes, resumed: bool) -> String {
        let response = Sse::new(stream(changes, resumed)).into_response();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("the stream's body");
        String::from_utf8(body.to_vec()).expect("UTF-8")
    }

    #[tokio::test]
    async fn each_change_is_one_change_event_with_an_id() {
        let feed = Feed::default();
        let changes = feed.subscribe();
        feed.publish(change(3));
        drop(feed);
        let session = change(3).session;
        assert_eq!(
            sent(changes, false).await,
            format!(
                ": live\nretry: 1000\n\nevent: change\nid: {session}-3\ndata: {{\"seq\":3,\"session\":\"{session}\"}}\n\n"
            )
        );
    }

    #[tokio::test]
    async fn a_receiver_that_fell_behind_is_told_to_reload() {
        let feed = Feed::default();
        let changes = feed.subscribe();
        let published = CHANGE_BACKLOG as u64 + 3;
        for seq in 1..=published {
            feed.publish(change(seq));
        }
        drop(feed);
        let sent = sent(changes, false).await;
        let reload = "event: reload\ndata: {\"reason\":\"lagged\"}\n\n";
        assert!(sent.starts_with(&format!(": live\nretry: 1000\n\n{reload}")), "{sent}");
        assert_eq!(sent.matches("event: change").count(), CHANGE_BACKLOG, "the changes still in the backlog follow");
    }

    #[tokio::test]
    async fn a_gap_in_what_the_store_heard_is_told_to_reload() {
        let feed = Feed::default();
        let changes = feed.subscribe();
        feed.publish_gap();
        feed.publish(change(4));
        drop(feed);
        let sent = sent(changes, false).await;
        let reload = "event: reload\ndata: {\"reason\":\"lagged\"}\n\n";
        assert!(sent.starts_with(&format!(": live\nretry: 1000\n\n{reload}event: change\n")), "{sent}");
    }

    #[tokio::test]
    async fn a_browser_that_reconnects_is_told_to_reload_first() {
        let changes = Feed::default().subscribe();
        assert_eq!(sent(changes, true).await, "event: reload\ndata: {\"reason\":\"reconnected\"}\nretry: 1000\n\n");
    }
}
