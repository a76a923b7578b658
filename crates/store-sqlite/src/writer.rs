//! The writer thread: grouped commits, each request in its own savepoint.
//!
//! The thread takes the first waiting request, then everything else already queued (up to a
//! bound), and runs them all in one `BEGIN IMMEDIATE` transaction. Each request runs inside its own
//! savepoint, so one request's failure or idempotency replay rolls back only that request. Callers
//! get their answer only after the COMMIT, so an answer means durable.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;

use rusqlite::{Connection, Transaction, TransactionBehavior, params};
use tokio::sync::oneshot;

use switchyard_core::id::SessionId;
use switchyard_core::token::Nonce;
use switchyard_store::projection::{ApplyError, Projector};
use switchyard_store::{Appended, Batch, Change, Error, Feed, SessionCopy, StoredEvent, TokenRecord};

use crate::checkpoint::Checkpointer;
use crate::recent::Recent;
use crate::rows::{self, SqliteProjection};
use crate::sql_error::{self, Context};
use crate::watch::Published;

/// One request to the writer, with where to send its answer.
#[derive(Debug)]
pub(crate) enum Job {
    Append { batch: Box<Batch>, reply: oneshot::Sender<Result<Appended, Error>> },
    ClaimToken { record: TokenRecord, reply: oneshot::Sender<Result<Nonce, Error>> },
    Rebuild { reply: oneshot::Sender<Result<(), Error>> },
    Import { copy: Box<SessionCopy>, reply: oneshot::Sender<Result<u64, Error>> },
}

/// A request that ran, holding its answer until the transaction's fate is known.
enum Done {
    Append(oneshot::Sender<Result<Appended, Error>>, Result<Appended, Error>, SessionId),
    ClaimToken(oneshot::Sender<Result<Nonce, Error>>, Result<Nonce, Error>),
    Rebuild(oneshot::Sender<Result<(), Error>>, Result<(), Error>),
    /// An import and the session's last seq.
    Import(oneshot::Sender<Result<u64, Error>>, Result<u64, Error>, SessionId),
}

/// Counters the store exposes.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) requests: AtomicU64,
    pub(crate) transactions: AtomicU64,
    /// Passes of the background checkpoint thread, finished or stopped early.
    pub(crate) checkpoints: AtomicU64,
    /// Checkpoints the writer ran after its own commit.
    pub(crate) inline_checkpoints: AtomicU64,
}

/// Settings of the writer thread.
pub(crate) struct Writer {
    pub(crate) connection: Connection,
    pub(crate) jobs: Receiver<Job>,
    pub(crate) max_group: usize,
    pub(crate) counters: Arc<Counters>,
    /// Held for the whole of each group; `SqliteStore::pause_writes` takes it to hold writes.
    pub(crate) gate: Arc<tokio::sync::Mutex<()>>,
    pub(crate) checkpointer: Checkpointer,
    /// Told of each committed batch once its transaction is durable.
    pub(crate) feed: Feed,
    /// Told of each batch about to commit, so a running watcher knows it as this process's own.
    pub(crate) published: Arc<Published>,
}

impl Writer {
    /// Runs until every sender is gone and the queue is empty.
    pub(crate) fn run(self) {
        let Writer { mut connection, jobs, max_group, counters, gate, checkpointer, feed, published } = self;
        checkpointer.attach(&connection);
        let mut recent = Recent::default();
        while let Ok(first) = jobs.recv() {
            let _gate = gate.blocking_lock();
            let mut group = vec![first];
            while group.len() < max_group {
                match jobs.try_recv() {
                    Ok(job) => group.push(job),
                    Err(_) => break,
                }
            }
            commit_group(&mut connection, &mut recent, group, &counters, &feed, &published);
        }
        // Every sender is gone. The checkpointer's connection closes first; then fold the WAL back
        // into the database and truncate it, so the next process does not rebuild its WAL index
        // from a long file. Failing here loses nothing: the WAL stays valid and is checkpointed
        // later.
        checkpointer.stop(&connection);
        if let Err(error) = connection.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);") {
            tracing::debug!(%error, "closing checkpoint skipped; the WAL is checkpointed later");
        }
    }
}

fn fail(job: Job, error: Error) {
    // A caller that stopped waiting has nobody to tell.
    let _ = match job {
        Job::Append { reply, .. } => reply.send(Err(error)).map_err(drop),
        Job::ClaimToken { reply, .. } => reply.send(Err(error)).map_err(drop),
        Job::Rebuild { reply } => reply.send(Err(error)).map_err(drop),
        Job::Import { reply, .. } => reply.send(Err(error)).map_err(drop),
    };
}

fn settle<T>(result: Result<T, Error>, commit_error: Option<&Error>) -> Result<T, Error> {
    match (result, commit_error) {
        (Ok(_), Some(error)) => Err(error.clone()),
        (result, _) => result,
    }
}

impl Done {
    fn succeeded(&self) -> bool {
        match self {
            Done::Append(_, result, _) => result.is_ok(),
            Done::ClaimToken(_, result) => result.is_ok(),
            Done::Rebuild(_, result) => result.is_ok(),
            Done::Import(_, result, _) => result.is_ok(),
        }
    }

    fn send(self, commit_error: Option<&Error>) {
        let _ = match self {
            Done::Append(reply, result, _) => reply.send(settle(result, commit_error)).map_err(drop),
            Done::ClaimToken(reply, result) => reply.send(settle(result, commit_error)).map_err(drop),
            Done::Rebuild(reply, result) => reply.send(settle(result, commit_error)).map_err(drop),
            Done::Import(reply, result, _) => reply.send(settle(result, commit_error)).map_err(drop),
        };
    }

    /// What this request, committed, changed in the log.
    fn change(&self) -> Option<Change> {
        match self {
            Done::Append(_, Ok(Appended::Committed { last_seq, .. }), session) => {
                Some(Change { session: *session, last_seq: *last_seq })
            }
            Done::Import(_, Ok(last_seq), session) => Some(Change { session: *session, last_seq: *last_seq }),
            _ => None,
        }
    }
}

fn commit_group(
    connection: &mut Connection,
    recent: &mut Recent,
    group: Vec<Job>,
    counters: &Counters,
    feed: &Feed,
    published: &Published,
) {
    let begun = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|error| sql_error::map(&error, "starting a write transaction"))
        .and_then(|transaction| recent.check(&transaction).map(|()| transaction));
    let mut transaction = match begun {
        Ok(transaction) => transaction,
        Err(error) => {
            for job in group {
                fail(job, error.clone());
            }
            return;
        }
    };
    // A lone request needs no savepoint: if it fails, the whole transaction rolls back instead.
    // (Journalling pages for a savepoint took a tenth of the writer's time for a lone advance.)
    let isolate = group.len() > 1;
    let done: Vec<Done> = group
        .into_iter()
        .map(|job| match job {
            Job::Append { batch, reply } => {
                let session = batch.session;
                Done::Append(
                    reply,
                    isolated(&mut transaction, isolate, |connection| append(connection, recent, *batch)),
                    session,
                )
            }
            Job::ClaimToken { record, reply } => Done::ClaimToken(
                reply,
                isolated(&mut transaction, isolate, |connection| claim_token(connection, &record)),
            ),
            Job::Rebuild { reply } => {
                Done::Rebuild(reply, isolated(&mut transaction, isolate, |connection| rebuild(connection, recent)))
            }
            Job::Import { copy, reply } => {
                let session = copy.session;
                Done::Import(
                    reply,
                    isolated(&mut transaction, isolate, |connection| import(connection, recent, &copy)),
                    session,
                )
            }
        })
        .collect();
    let all_succeeded = done.iter().all(Done::succeeded);
    if !all_succeeded {
        // A failed request's rows were rolled back (or the whole transaction will be).
        recent.forget();
    }
    let committing = isolate || all_succeeded;
    let changes: Vec<Change> = if committing { done.iter().filter_map(Done::change).collect() } else { Vec::new() };
    published.expect(&changes);
    let finished = if committing { transaction.commit() } else { transaction.rollback() };
    match finished {
        Ok(()) => {
            counters.transactions.fetch_add(1, Ordering::SeqCst);
            for change in changes {
                feed.publish(change);
            }
            for done in done {
                done.send(None);
            }
        }
        Err(error) => {
            recent.forget();
            published.withdraw(&changes);
            let error = sql_error::map(&error, "committing");
            tracing::warn!(%error, "a grouped commit failed; every request in it is answered with the error");
            for done in done {
                done.send(Some(&error));
            }
        }
    }
}

/// Runs one request of a group: in its own savepoint when the group has others to protect.
fn isolated<T>(
    transaction: &mut Transaction<'_>,
    isolate: bool,
    work: impl FnOnce(&Connection) -> Result<T, Error>,
) -> Result<T, Error> {
    if isolate { in_savepoint(transaction, work) } else { work(transaction) }
}

fn in_savepoint<T>(
    transaction: &mut Transaction<'_>,
    work: impl FnOnce(&Connection) -> Result<T, Error>,
) -> Result<T, Error> {
    let savepoint = transaction.savepoint().doing("opening a savepoint")?;
    match work(&savepoint) {
        Ok(value) => {
            savepoint.commit().doing("releasing a savepoint")?;
            Ok(value)
        }
        Err(error) => {
            // Rolls back to the savepoint and releases it; the rest of the group is untouched.
            savepoint.finish().doing("rolling back a savepoint")?;
            Err(error)
        }
    }
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidBatch { reason: reason.into() }
}

/// The sequence number and hash of the session's last event, read inside the write transaction so
/// processes sharing the file agree.
fn head(connection: &Connection, recent: &Recent, batch: &Batch) -> Result<(u64, String), Error> {
    if let Some(head) = recent.head(batch.session) {
        return Ok(head.clone());
    }
    let sql = "SELECT seq, hash FROM events WHERE session = ?1 ORDER BY seq DESC LIMIT 1";
    let mut statement = connection.prepare_cached(sql).doing("reading the session head")?;
    let mut rows = statement.query([&*batch.session.text()]).doing("reading the session head")?;
    match rows.next().doing("reading the session head")? {
        Some(row) => {
            let decoder = rows::decoder(row, "events");
            Ok((decoder.count(0, "seq")?, decoder.text(1, "hash")?))
        }
        None => Ok((0, switchyard_store::event::GENESIS_HASH.to_owned())),
    }
}

fn append(connection: &Connection, recent: &mut Recent, batch: Batch) -> Result<Appended, Error> {
    if batch.events.is_empty() {
        return Err(invalid("a batch must carry at least one event"));
    }
    if let Some(claim) = &batch.claim
        && let Some(recorded) = rows::recorded(connection, &claim.key)?
    {
        return Ok(Appended::AlreadyRecorded(recorded));
    }
    if let Some(guard) = &batch.guard {
        let found = match recent.run(guard.run) {
            Some(run) => Some(run.control),
            None => rows::run(connection, guard.run)?.map(|run| run.control),
        };
        if found != Some(guard.control) {
            return Err(Error::Stale {
                run: guard.run.to_string(),
                expected: guard.control.as_str().to_owned(),
                found: found.map_or("missing", |control| control.as_str()).to_owned(),
            });
        }
    }
    let (mut seq, mut prev_hash) = head(connection, recent, &batch)?;
    let first_seq = seq + 1;
    let mut sealed = Vec::with_capacity(batch.events.len());
    for event in batch.events {
        seq += 1;
        let (stored, body) = StoredEvent::seal(batch.session, seq, &prev_hash, event);
        let body = String::from_utf8(body).map_err(|error| invalid(format!("event body is not UTF-8: {error}")))?;
        prev_hash = stored.hash.clone();
        sealed.push((stored, body));
    }
    write_events(connection, recent, &sealed)?;
    recent.wrote_head(batch.session, seq, prev_hash);
    if let Some(claim) = &batch.claim {
        let outcome =
            serde_json::to_string(&claim.outcome).map_err(|error| invalid(format!("claim outcome: {error}")))?;
        connection
            .prepare_cached("INSERT INTO claims (key, session, payload_sha256, outcome) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut statement| {
                statement.execute(params![claim.key, &*batch.session.text(), claim.payload_sha256, outcome])
            })
            .doing("recording the claim")?;
    }
    for token in &batch.tokens {
        register_token(connection, token)?;
    }
    if let Some(workflow) = &batch.pin {
        rows::pin_workflow(connection, workflow)?;
    }
    Ok(Appended::Committed { first_seq, last_seq: seq })
}

/// Inserts sealed events (each with the body its hash covers) and applies them to the
/// projections and the text index: the part of a write that an append and an import share.
fn write_events(connection: &Connection, recent: &mut Recent, sealed: &[(StoredEvent, String)]) -> Result<(), Error> {
    let mut projector = Projector::new();
    let mut target = SqliteProjection::new(connection, recent);
    let insert = "INSERT INTO events (session, seq, id, run, kind, at_ms, body, prev_hash, hash)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
    for (stored, body) in sealed {
        let run = stored.run.map(|run| run.text());
        let inserted = connection.prepare_cached(insert).and_then(|mut statement| {
            statement.execute(params![
                &*stored.session.text(),
                rows::sql_int(stored.seq),
                &*stored.id.text(),
                run.as_deref(),
                stored.kind.name(),
                stored.at_ms,
                body,
                stored.prev_hash,
                stored.hash,
            ])
        });
        match inserted {
            Ok(_) => {}
            Err(error) if sql_error::is_unique_violation(&error) => {
                return Err(invalid(format!("event id {} is already stored; every event needs a fresh id", stored.id)));
            }
            Err(error) => return Err(sql_error::map(&error, "writing an event")),
        }
        projector.apply(&mut target, stored).map_err(|error| match error {
            ApplyError::Inconsistent(reason) => invalid(reason),
            ApplyError::Store(error) => error,
        })?;
        crate::search::index_event(connection, stored)?;
    }
    projector.finish().map_err(invalid)?;
    target.flush()
}

/// Writes a session copied from another store (see [`Store::import_session`]).
///
/// [`Store::import_session`]: switchyard_store::Store::import_session
fn import(connection: &Connection, recent: &mut Recent, copy: &SessionCopy) -> Result<u64, Error> {
    let sealed = copy.checked_events()?;
    let held = connection
        .query_row("SELECT EXISTS (SELECT 1 FROM events WHERE session = ?1)", [copy.session.to_string()], |row| {
            row.get::<_, bool>(0)
        })
        .doing("checking that the session is new here")?;
    if held {
        return Err(switchyard_store::copy::session_exists(copy.session));
    }
    write_events(connection, recent, &sealed)?;
    for claim in &copy.claims {
        let outcome =
            serde_json::to_string(&claim.outcome).map_err(|error| invalid(format!("claim outcome: {error}")))?;
        let inserted = connection
            .prepare_cached("INSERT INTO claims (key, session, payload_sha256, outcome) VALUES (?1, ?2, ?3, ?4)")
            .and_then(|mut statement| {
                statement.execute(params![claim.key, claim.session.to_string(), claim.payload_sha256, outcome])
            });
        match inserted {
            Ok(_) => {}
            Err(error) if sql_error::is_unique_violation(&error) => {
                return Err(switchyard_store::copy::claim_taken(claim));
            }
            Err(error) => return Err(sql_error::map(&error, "copying a claim")),
        }
    }
    for token in &copy.tokens {
        register_token(connection, token)?;
    }
    for workflow in &copy.pins {
        rows::pin_workflow(connection, workflow)?;
    }
    Ok(sealed.len() as u64)
}

/// Registers a batch token: the same record again is a no-op, anything else taken is a conflict.
/// A fresh token, the usual case, costs one insert; only a conflict reads what holds its place.
fn register_token(connection: &Connection, token: &TokenRecord) -> Result<(), Error> {
    if rows::insert_token_if_free(connection, token)? {
        return Ok(());
    }
    match rows::token_at(connection, token)? {
        Some(existing) if existing == *token => Ok(()),
        Some(existing) => Err(Error::token_position_taken(token, &existing)),
        None => Err(Error::nonce_taken(token)),
    }
}

/// The token already registered at `record`'s position, or `record` itself if the place was free.
fn claim_token(connection: &Connection, record: &TokenRecord) -> Result<Nonce, Error> {
    if rows::insert_token_if_free(connection, record)? {
        return Ok(record.nonce);
    }
    match rows::token_at(connection, record)? {
        Some(existing) => Ok(existing.nonce),
        None => Err(Error::nonce_taken(record)),
    }
}

/// Drops the projections and replays every session's events through the same projector.
pub(crate) fn rebuild(connection: &Connection, recent: &mut Recent) -> Result<(), Error> {
    recent.forget();
    connection
        .execute_batch("DELETE FROM nodes; DELETE FROM runs; DELETE FROM sessions;")
        .doing("dropping the projections")?;
    let sessions: Vec<String> = {
        let mut statement =
            connection.prepare("SELECT DISTINCT session FROM events ORDER BY session").doing("listing sessions")?;
        statement.query_map([], |row| row.get(0)).and_then(|rows| rows.collect()).doing("listing sessions")?
    };
    let sql = "SELECT session, seq, body, hash FROM events WHERE session = ?1 ORDER BY seq";
    let mut target = SqliteProjection::new(connection, recent);
    for session in sessions {
        let events = rows::all(connection, sql, [&session], rows::decode_event, "reading a session's events")?;
        let mut projector = Projector::new();
        for event in &events {
            projector.apply(&mut target, event).map_err(|error| match error {
                ApplyError::Inconsistent(reason) => Error::Corrupt {
                    message: format!("session {session} seq {} cannot be replayed: {reason}", event.seq),
                },
                ApplyError::Store(error) => error,
            })?;
        }
        projector
            .finish()
            .map_err(|reason| Error::Corrupt { message: format!("session {session} cannot be replayed: {reason}") })?;
        target.flush()?;
    }
    crate::search::reindex(connection)
}
