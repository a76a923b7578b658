//! `verify`: walks every session's hash chain from the stored bytes and compares the stored
//! projections with a fresh in-memory replay, reporting each problem with where it is. Reads one
//! snapshot (the caller's repeatable-read transaction), so every table is seen at one commit.

use std::collections::BTreeSet;

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use switchyard_core::id::SessionId;
use switchyard_store::event::{GENESIS_HASH, chain_hash};
use switchyard_store::projection::{ApplyError, Projections, Projector, differences};
use switchyard_store::record::problem;
use switchyard_store::{Error, Problem, StoredEvent, VerifyReport};

use crate::pg_error::Context;
use crate::rows::{self, NODE_COLUMNS, RUN_COLUMNS, SESSION_COLUMNS};

fn problem(code: &str, session: Option<SessionId>, seq: Option<u64>, message: String) -> Problem {
    Problem { code: code.to_owned(), session, seq, message }
}

/// One event row as stored, before anything is trusted.
struct RawEvent {
    seq: i64,
    id: String,
    run: Option<String>,
    kind: String,
    at_ms: i64,
    body: String,
    prev_hash: String,
    hash: String,
}

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

/// The columns that repeat envelope fields, compared with the envelope.
fn column_mismatches(raw: &RawEvent, event: &StoredEvent, session: &str) -> Vec<String> {
    let mut mismatches = Vec::new();
    let mut check = |column: &str, stored: String, envelope: String| {
        if stored != envelope {
            mismatches.push(format!("column `{column}` is {stored:?} but the envelope says {envelope:?}"));
        }
    };
    check("session", session.to_owned(), event.session.to_string());
    check("seq", raw.seq.to_string(), event.seq.to_string());
    check("id", raw.id.clone(), event.id.to_string());
    check("run", format!("{:?}", raw.run), format!("{:?}", event.run.map(|run| run.to_string())));
    check("kind", raw.kind.clone(), event.kind.name().to_owned());
    check("at_ms", raw.at_ms.to_string(), event.at_ms.to_string());
    check("prev_hash", raw.prev_hash.clone(), event.prev_hash.clone());
    mismatches
}

pub(crate) async fn verify<C: GenericClient>(client: &C) -> Result<VerifyReport, Error> {
    let mut report = VerifyReport::default();
    let mut expected = Projections::default();
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
    for session_text in sessions {
        report.sessions_checked += 1;
        let session = session_text.parse::<SessionId>().ok();
        if session.is_none() {
            report.problems.push(problem(
                problem::EVENT_UNREADABLE,
                None,
                None,
                format!("events of session `{session_text}`: the session column is not a session id"),
            ));
        }
        let mut expected_seq: i64 = 1;
        let mut prev_hash = GENESIS_HASH.to_owned();
        let mut projector = Projector::new();
        for row in client.query(&events, &[&session_text]).await.doing("reading events")? {
            report.events_checked += 1;
            let raw = match raw_event(&row) {
                Ok(raw) => raw,
                Err(error) => {
                    let seq = row.try_get::<_, i64>(0).ok().and_then(|seq| u64::try_from(seq).ok());
                    report.problems.push(problem(
                        problem::EVENT_UNREADABLE,
                        session,
                        seq,
                        format!("events row of session {session_text}: {error}"),
                    ));
                    continue;
                }
            };
            let seq = u64::try_from(raw.seq).ok();
            if raw.seq != expected_seq {
                report.problems.push(problem(
                    problem::EVENT_SEQ_GAP,
                    session,
                    seq,
                    format!("expected seq {expected_seq}, found seq {}", raw.seq),
                ));
            }
            expected_seq = raw.seq.saturating_add(1);
            if raw.prev_hash != prev_hash {
                report.problems.push(problem(
                    problem::EVENT_CHAIN_BROKEN,
                    session,
                    seq,
                    format!("prev_hash is {} but the previous event's hash is {prev_hash}", raw.prev_hash),
                ));
            }
            let recomputed = chain_hash(&raw.prev_hash, raw.body.as_bytes());
            if recomputed != raw.hash {
                report.problems.push(problem(
                    problem::EVENT_HASH_MISMATCH,
                    session,
                    seq,
                    format!(
                        "stored hash {} but the stored bytes hash to {recomputed}: the event was altered",
                        raw.hash
                    ),
                ));
            }
            prev_hash = raw.hash.clone();
            let event = match StoredEvent::from_body(raw.body.as_bytes(), raw.hash.clone()) {
                Ok(event) => event,
                Err(error) => {
                    report.problems.push(problem(problem::EVENT_UNREADABLE, session, seq, error));
                    continue;
                }
            };
            let mismatches = column_mismatches(&raw, &event, &session_text);
            if !mismatches.is_empty() {
                report.problems.push(problem(problem::EVENT_UNREADABLE, session, seq, mismatches.join("; ")));
                continue;
            }
            match projector.apply(&mut expected, &event) {
                Ok(()) => {}
                Err(ApplyError::Inconsistent(reason)) => {
                    report.problems.push(problem(problem::EVENT_INCONSISTENT, session, seq, reason));
                }
                Err(ApplyError::Store(never)) => match never {},
            }
        }
        if let Err(reason) = projector.finish() {
            report.problems.push(problem(problem::EVENT_INCONSISTENT, session, None, reason));
        }
    }

    let mut stored = Projections::default();
    let mut unreadable = BTreeSet::new();
    for row in read_table(client, "sessions", SESSION_COLUMNS).await? {
        match rows::decode_session(&row) {
            Ok(record) => _ = stored.sessions.insert(record.id, record),
            Err(error) => unreadable_row(&row, "sessions", error, &mut unreadable, &mut report.problems),
        }
    }
    for row in read_table(client, "runs", RUN_COLUMNS).await? {
        match rows::decode_run(&row) {
            Ok(record) => _ = stored.runs.insert(record.id, record),
            Err(error) => unreadable_row(&row, "runs", error, &mut unreadable, &mut report.problems),
        }
    }
    for row in read_table(client, "nodes", NODE_COLUMNS).await? {
        match rows::decode_node(&row) {
            Ok(record) => _ = stored.nodes.insert(record.id, record),
            Err(error) => unreadable_row(&row, "nodes", error, &mut unreadable, &mut report.problems),
        }
    }
    // An unreadable row is reported once, not again as missing.
    expected.sessions.retain(|id, _| !unreadable.contains(&("sessions", id.to_string())));
    expected.runs.retain(|id, _| !unreadable.contains(&("runs", id.to_string())));
    expected.nodes.retain(|id, _| !unreadable.contains(&("nodes", id.to_string())));
    report.problems.extend(differences(&expected, &stored));
    Ok(report)
}

async fn read_table<C: GenericClient>(client: &C, table: &str, columns: &str) -> Result<Vec<Row>, Error> {
    client.query(&format!("SELECT {columns} FROM {table}"), &[]).await.doing(&format!("reading the {table} table"))
}

fn unreadable_row(
    row: &Row,
    table: &'static str,
    error: Error,
    unreadable: &mut BTreeSet<(&'static str, String)>,
    problems: &mut Vec<Problem>,
) {
    let key = rows::Decoder::new(row, table).key().to_owned();
    let session = match table {
        "sessions" => key.parse().ok(),
        _ => row.try_get::<_, String>(if table == "runs" { 1 } else { 2 }).ok().and_then(|s| s.parse().ok()),
    };
    let message = match error {
        Error::Corrupt { message } => message,
        other => other.to_string(),
    };
    problems.push(problem(problem::PROJECTION_UNREADABLE, session, None, message));
    unreadable.insert((table, key));
}
