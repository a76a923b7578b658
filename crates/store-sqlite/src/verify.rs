//! `verify`: reads every session's event rows and the stored projections in one read
//! transaction and hands them to the shared checks ([`switchyard_store::verify`]).

use rusqlite::{Connection, Row};

use switchyard_store::verify::{RawEvent, Verification};
use switchyard_store::{Error, VerifyReport};

use crate::rows::{self, NODE_COLUMNS, RUN_COLUMNS, SESSION_COLUMNS};
use crate::sql_error::Context;

fn raw_event(row: &Row<'_>) -> rusqlite::Result<RawEvent> {
    Ok(RawEvent {
        seq: row.get(0)?,
        id: row.get(1)?,
        run: row.get(2)?,
        kind: row.get(3)?,
        at_ms: row.get(4)?,
        body: row.get(5)?,
        prev_hash: row.get(6)?,
        hash: row.get(7)?,
    })
}

pub(crate) fn verify(connection: &mut Connection) -> Result<VerifyReport, Error> {
    // One read transaction: every table is seen at the same commit.
    let transaction = connection.transaction().doing("starting a read transaction")?;
    let mut verification = Verification::new();
    let sessions: Vec<String> = {
        let mut statement =
            transaction.prepare("SELECT DISTINCT session FROM events ORDER BY session").doing("listing sessions")?;
        statement.query_map([], |row| row.get(0)).and_then(|rows| rows.collect()).doing("listing sessions")?
    };
    for session in sessions {
        let mut walk = verification.session(&session);
        let mut statement = transaction
            .prepare_cached(
                "SELECT seq, id, run, kind, at_ms, body, prev_hash, hash FROM events WHERE session = ?1 ORDER BY seq",
            )
            .doing("reading events")?;
        let mut rows = statement.query([&session]).doing("reading events")?;
        while let Some(row) = rows.next().doing("reading events")? {
            match raw_event(row) {
                Ok(raw) => walk.event(&raw),
                Err(error) => {
                    let seq = row.get::<_, i64>(0).ok().and_then(|seq| u64::try_from(seq).ok());
                    walk.unreadable(seq, error);
                }
            }
        }
        walk.finish();
    }

    read_table(&transaction, &format!("SELECT {SESSION_COLUMNS} FROM sessions"), "sessions", |row, key, _| {
        verification.stored_session(rows::decode_session(row), key);
    })?;
    read_table(&transaction, &format!("SELECT {RUN_COLUMNS} FROM runs"), "runs", |row, key, session| {
        verification.stored_run(rows::decode_run(row), key, session);
    })?;
    read_table(&transaction, &format!("SELECT {NODE_COLUMNS} FROM nodes"), "nodes", |row, key, session| {
        verification.stored_node(rows::decode_node(row), key, session);
    })?;
    Ok(verification.finish())
}

/// Hands every row of a projection table to `keep` with its key and, for runs and nodes, the
/// session its column names (to locate a row that does not decode).
fn read_table(
    connection: &Connection,
    sql: &str,
    table: &'static str,
    mut keep: impl FnMut(&Row<'_>, &str, Option<switchyard_core::id::SessionId>),
) -> Result<(), Error> {
    let doing = format!("reading the {table} table");
    let mut statement = connection.prepare(sql).doing(&doing)?;
    let mut rows = statement.query([]).doing(&doing)?;
    while let Some(row) = rows.next().doing(&doing)? {
        let key = rows::decoder(row, table).key();
        let session_column = if table == "runs" { 1 } else { 2 };
        let session = row.get::<_, String>(session_column).ok().and_then(|text| text.parse().ok());
        keep(row, &key, session);
    }
    Ok(())
}
