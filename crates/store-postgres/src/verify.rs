//! `verify`: reads every session's event rows and the stored projections in one snapshot (the
//! caller's repeatable-read transaction) and hands them to the shared checks
//! ([`switchyard_store::verify`]); checks too that each session's head row, which appends lock
//! and extend, is where its chain ends.

use std::collections::BTreeMap;

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use switchyard_core::id::SessionId;
use switchyard_store::record::problem;
use switchyard_store::verify::{RawEvent, Verification};
use switchyard_store::{Error, Problem, VerifyReport};

use crate::pg_error::Context;
use crate::rows::{self, NODE_COLUMNS, RUN_COLUMNS, SESSION_COLUMNS};

fn raw_event(row: &Row) -> Result<RawEvent, tokio_postgres::Error> {
    Ok(RawEvent {
        seq: row.try_get(0)?,
        id: row.try_get(1)?,
        run: row.try_get(2)?,
        kind: row.try_get(3)?,
        at_ms: row.try_get(4)?,
        body: row.try_get(5)?,
        prev_hash: row.try_get(6)?,
        hash: row.try_get(7)?,
    })
}

pub(crate) async fn verify<C: GenericClient>(client: &C) -> Result<VerifyReport, Error> {
    let mut verification = Verification::new();
    let sessions: Vec<String> = client
        .query("SELECT DISTINCT session FROM events ORDER BY session", &[])
        .await
        .doing("listing sessions")?
        .iter()
        .map(|row| row.get(0))
        .collect();
    let events = client
        .prepare_cached(
            "SELECT seq, id, run, kind, at_ms, body, prev_hash, hash FROM events WHERE session = $1 ORDER BY seq",
        )
        .await
        .doing("reading events")?;
    let mut ends = BTreeMap::new();
    for session in sessions {
        let rows = client.query(&events, &[&session]).await.doing("reading events")?;
        let mut walk = verification.session(&session);
        for row in rows {
            match raw_event(&row) {
                Ok(raw) => walk.event(&raw),
                Err(error) => {
                    let seq = row.try_get::<_, i64>(0).ok().and_then(|seq| u64::try_from(seq).ok());
                    walk.unreadable(seq, error);
                }
            }
        }
        ends.insert(session, walk.finish());
    }
    check_heads(client, &ends, &mut verification).await?;

    for row in read_table(client, "sessions", SESSION_COLUMNS).await? {
        let (key, _) = locate(&row, "sessions");
        verification.stored_session(rows::decode_session(&row), &key);
    }
    for row in read_table(client, "runs", RUN_COLUMNS).await? {
        let (key, session) = locate(&row, "runs");
        verification.stored_run(rows::decode_run(&row), &key, session);
    }
    for row in read_table(client, "nodes", NODE_COLUMNS).await? {
        let (key, session) = locate(&row, "nodes");
        verification.stored_node(rows::decode_node(&row), &key, session);
    }
    Ok(verification.finish())
}

/// Every session's head row must hold the seq and hash its chain ends with, or the next append
/// would number or link its events wrongly.
async fn check_heads<C: GenericClient>(
    client: &C,
    ends: &BTreeMap<String, (i64, String)>,
    verification: &mut Verification,
) -> Result<(), Error> {
    let heads: BTreeMap<String, (i64, String)> = client
        .query("SELECT session, seq, hash FROM heads", &[])
        .await
        .doing("reading the session heads")?
        .iter()
        .map(|row| (row.get(0), (row.get(1), row.get(2))))
        .collect();
    let mut mismatch = |session: &str, message: String| {
        verification.problem(Problem {
            code: problem::PROJECTION_DIFFERS.to_owned(),
            session: session.parse().ok(),
            seq: None,
            message,
        });
    };
    for (session, end) in ends {
        match heads.get(session) {
            Some(head) if head == end => {}
            Some((seq, hash)) => mismatch(
                session,
                format!(
                    "heads row {session} says seq {seq} hash {hash}, the events end at seq {} hash {}",
                    end.0, end.1
                ),
            ),
            None => mismatch(session, format!("heads row {session} is missing; `rebuild` writes it from the events")),
        }
    }
    for (session, (seq, _)) in &heads {
        if *seq > 0 && !ends.contains_key(session) {
            mismatch(session, format!("heads row {session} says seq {seq}, but the session has no events"));
        }
    }
    Ok(())
}

async fn read_table<C: GenericClient>(client: &C, table: &str, columns: &str) -> Result<Vec<Row>, Error> {
    client.query(&format!("SELECT {columns} FROM {table}"), &[]).await.doing(&format!("reading the {table} table"))
}

/// A projection row's key and, for runs and nodes, the session its column names.
fn locate(row: &Row, table: &'static str) -> (String, Option<SessionId>) {
    let key = rows::decoder(row, table).key();
    let session = match table {
        "sessions" => key.parse().ok(),
        _ => row.try_get::<_, String>(if table == "runs" { 1 } else { 2 }).ok().and_then(|text| text.parse().ok()),
    };
    (key, session)
}
