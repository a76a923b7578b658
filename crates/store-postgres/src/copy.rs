//! The reads of a store copy: the sessions to copy, page by page, and one session's events as
//! stored, claims, tokens and pins, read in one snapshot (the import is in `writer.rs`).

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use switchyard_core::id::SessionId;
use switchyard_store::decode::{self, TOKEN_COLUMNS};
use switchyard_store::{CopiedEvent, Error, MAX_PAGE, SessionCopy};

use crate::rows::{self, Cells};

/// Sessions holding events after `after`, in id byte order.
pub(crate) async fn copied_sessions<C: GenericClient>(
    client: &C,
    after: Option<SessionId>,
    limit: u32,
) -> Result<Vec<SessionId>, Error> {
    // `heads` has one row per session that holds events, and is keyed by it.
    let sql = "SELECT session FROM heads WHERE session > $1 AND seq > 0 ORDER BY session LIMIT $2";
    let after = after.map(|session| session.to_string()).unwrap_or_default();
    let limit = i64::from(limit.min(MAX_PAGE));
    rows::all(
        client,
        sql,
        &[&after, &limit],
        |row| rows::decoder(row, "heads").parse(0, "session"),
        "listing the sessions to copy",
    )
    .await
}

/// One session's copy; call it inside a snapshot transaction so its parts agree.
pub(crate) async fn export<C: GenericClient>(client: &C, session: SessionId) -> Result<Option<SessionCopy>, Error> {
    let id = session.to_string();
    let events = rows::all(
        client,
        "SELECT body, hash FROM events WHERE session = $1 ORDER BY seq",
        &[&id],
        |row: &Row| {
            let decoder = rows::decoder(row, "events");
            Ok(CopiedEvent { body: decoder.text(0, "body")?, hash: decoder.text(1, "hash")? })
        },
        "reading a session's events",
    )
    .await?;
    if events.is_empty() {
        return Ok(None);
    }
    let claims = rows::all(
        client,
        "SELECT key, session, payload_sha256, outcome FROM claims WHERE session = $1 ORDER BY key",
        &[&id],
        |row| decode::recorded(Cells(row)),
        "reading a session's claims",
    )
    .await?;
    let tokens = rows::all(
        client,
        &format!("SELECT {TOKEN_COLUMNS} FROM tokens WHERE session = $1 ORDER BY nonce"),
        &[&id],
        |row| decode::token(Cells(row)),
        "reading a session's tokens",
    )
    .await?;
    let pins = rows::all(
        client,
        "SELECT hash, ir FROM workflows WHERE hash IN (SELECT workflow_hash FROM runs WHERE session = $1) ORDER BY hash",
        &[&id],
        |row| decode::workflow(Cells(row), rows::decoder(row, "workflows").parse(0, "hash")?),
        "reading a session's pinned workflows",
    )
    .await?;
    Ok(Some(SessionCopy { session, events, claims, tokens, pins }))
}
