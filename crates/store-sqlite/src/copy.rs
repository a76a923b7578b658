//! The reads of a store copy: the sessions to copy, page by page, and one session's events as
//! stored, claims, tokens and pins, read in one transaction (the import is in `writer.rs`).

use rusqlite::{Connection, Row, params};

use switchyard_core::id::SessionId;
use switchyard_store::decode::{self, TOKEN_COLUMNS};
use switchyard_store::{CopiedEvent, Error, MAX_PAGE, SessionCopy};

use crate::rows::{self, Cells};
use crate::sql_error::Context;

/// Sessions holding events after `after`, in id byte order.
pub(crate) fn copied_sessions(
    connection: &Connection,
    after: Option<SessionId>,
    limit: u32,
) -> Result<Vec<SessionId>, Error> {
    let sql = "SELECT DISTINCT session FROM events WHERE session > ?1 ORDER BY session LIMIT ?2";
    let after = after.map(|session| session.to_string()).unwrap_or_default();
    rows::all(
        connection,
        sql,
        params![after, limit.min(MAX_PAGE)],
        |row| rows::decoder(row, "events").parse(0, "session"),
        "listing the sessions to copy",
    )
}

/// A session's claims, read through the claims' key, which starts with the session.
pub(crate) const SESSION_CLAIMS: &str =
    "SELECT key, session, payload_sha256, outcome FROM claims WHERE session = ?1 ORDER BY key";

pub(crate) fn export(connection: &mut Connection, session: SessionId) -> Result<Option<SessionCopy>, Error> {
    // One read transaction: the events, claims and tokens agree with each other.
    let transaction = connection.transaction().doing("starting a read transaction")?;
    let id = session.to_string();
    let events = rows::all(
        &transaction,
        "SELECT body, hash FROM events WHERE session = ?1 ORDER BY seq",
        [&id],
        |row: &Row<'_>| {
            let decoder = rows::decoder(row, "events");
            Ok(CopiedEvent { body: decoder.text(0, "body")?, hash: decoder.text(1, "hash")? })
        },
        "reading a session's events",
    )?;
    if events.is_empty() {
        return Ok(None);
    }
    let claims = rows::all(
        &transaction,
        SESSION_CLAIMS,
        [&id],
        |row| decode::recorded(Cells(row)),
        "reading a session's claims",
    )?;
    let tokens = rows::all(
        &transaction,
        // Through the session's runs and their nodes: a token is keyed by its node first, and
        // a per-session index of tokens would cost every advance a write for this read alone.
        &format!(
            "SELECT {} FROM runs r JOIN nodes n ON n.run = r.id JOIN tokens t ON t.node = n.id
             WHERE r.session = ?1 AND t.session = ?1 ORDER BY t.nonce",
            decode::qualified("t", TOKEN_COLUMNS)
        ),
        [&id],
        |row| decode::token(Cells(row)),
        "reading a session's tokens",
    )?;
    let pins = rows::all(
        &transaction,
        "SELECT hash, ir FROM workflows WHERE hash IN (SELECT workflow_hash FROM runs WHERE session = ?1) ORDER BY hash",
        [&id],
        |row| decode::workflow(Cells(row), rows::decoder(row, "workflows").parse(0, "hash")?),
        "reading a session's pinned workflows",
    )?;
    Ok(Some(SessionCopy { session, events, claims, tokens, pins }))
}
