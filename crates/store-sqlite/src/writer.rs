//! The writer: grouped commits, written together, isolated only when a request fails.
//!
//! The writer thread takes the first waiting request, then everything else already queued (up to
//! a bound), and runs them all in one `BEGIN IMMEDIATE` transaction, straight into it. Should one
//! of them fail, its rows may be half written: the transaction rolls back and the group runs
//! again, each request in its own savepoint, so one request's failure rolls back only that
//! request. Callers get their answer only after the COMMIT, so an answer means durable.
//!
//! A request that finds the writer idle commits on its caller's thread instead, as a group of one
//! ([`Shared::commit_here`]): the same connection and the same code, without two thread hand-offs.

use std::sync::atomic::Ordering;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, TryLockError};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, Transaction, TransactionBehavior, params};
use tokio::runtime::RuntimeFlavor;
use tokio::sync::oneshot;

use switchyard_core::token::Nonce;
use switchyard_store::projection::{ApplyError, Projector};
use switchyard_store::{Appended, Batch, Change, Error, Feed, SessionCopy, StoredEvent, TokenRecord};

use crate::Counters;
use crate::checkpoint::{Checkpointer, Cycle};
use crate::rows::{self, SqliteProjection};
use crate::search;
use crate::sql_error::{self, Context};
use crate::watch::Published;

const SESSION_HEAD: &str = "SELECT seq, hash FROM events WHERE session = ?1 ORDER BY seq DESC LIMIT 1";
const INSERT_EVENT: &str = "INSERT INTO events (session, seq, id, run, kind, at_ms, body, prev_hash, hash)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
const INSERT_CLAIM: &str = "INSERT INTO claims (key, session, payload_sha256, outcome) VALUES (?1, ?2, ?3, ?4)";

/// One request to the writer, with where to send its answer.
#[derive(Debug)]
pub(crate) enum Job {
    Append { batch: Box<Batch>, reply: Reply<Appended> },
    ClaimToken { record: TokenRecord, reply: Reply<Nonce> },
    Rebuild { reply: Reply<()> },
    Import { copy: Box<SessionCopy>, reply: Reply<u64> },
    IndexTexts { reply: Reply<()> },
}

/// Where a request's answer goes, and the answer once the request ran, held until the
/// transaction's fate is known.
#[derive(Debug)]
pub(crate) struct Reply<T> {
    sender: oneshot::Sender<Result<T, Error>>,
    answer: Option<Result<T, Error>>,
}

impl<T> Reply<T> {
    pub(crate) fn new(sender: oneshot::Sender<Result<T, Error>>) -> Self {
        Reply { sender, answer: None }
    }

    fn hold(&mut self, answer: Result<T, Error>) {
        self.answer = Some(answer);
    }

    fn succeeded(&self) -> bool {
        matches!(self.answer, Some(Ok(_)))
    }

    /// Sends the held answer, or the commit's error in place of a success that did not commit.
    fn send(self, commit_error: Option<&Error>) {
        let answer = match (self.answer, commit_error) {
            (Some(Ok(_)), Some(error)) => Err(error.clone()),
            (Some(answer), _) => answer,
            // Not reached: every request of a group runs, or is failed, before any answer is
            // sent. Dropping the sender would tell the caller that the writer stopped.
            (None, _) => return,
        };
        // A caller that stopped waiting has nobody to tell.
        let _ = self.sender.send(answer);
    }
}

impl Job {
    /// Runs the request inside the open transaction and holds its answer. The job stays whole,
    /// so that its group can run it again.
    fn perform(&mut self, connection: &Connection) {
        match self {
            Job::Append { batch, reply } => reply.hold(append(connection, batch)),
            Job::ClaimToken { record, reply } => reply.hold(claim_token(connection, record)),
            Job::Rebuild { reply } => reply.hold(rebuild(connection)),
            Job::Import { copy, reply } => reply.hold(import(connection, copy)),
            // Indexes every text still waiting for the text index, before a search.
            Job::IndexTexts { reply } => reply.hold(search::index_waiting(connection, 1)),
        }
    }

    /// Holds `error` as the request's answer.
    fn fail(&mut self, error: Error) {
        match self {
            Job::Append { reply, .. } => reply.hold(Err(error)),
            Job::ClaimToken { reply, .. } => reply.hold(Err(error)),
            Job::Rebuild { reply } => reply.hold(Err(error)),
            Job::Import { reply, .. } => reply.hold(Err(error)),
            Job::IndexTexts { reply } => reply.hold(Err(error)),
        }
    }

    fn succeeded(&self) -> bool {
        match self {
            Job::Append { reply, .. } => reply.succeeded(),
            Job::ClaimToken { reply, .. } => reply.succeeded(),
            Job::Rebuild { reply } => reply.succeeded(),
            Job::Import { reply, .. } => reply.succeeded(),
            Job::IndexTexts { reply } => reply.succeeded(),
        }
    }

    /// What this request, committed, changed in the log.
    fn change(&self) -> Option<Change> {
        match self {
            Job::Append { batch, reply: Reply { answer: Some(Ok(Appended::Committed { last_seq, .. })), .. } } => {
                Some(Change { session: batch.session, last_seq: *last_seq })
            }
            Job::Import { copy, reply: Reply { answer: Some(Ok(last_seq)), .. } } => {
                Some(Change { session: copy.session, last_seq: *last_seq })
            }
            _ => None,
        }
    }

    fn answer(self, commit_error: Option<&Error>) {
        match self {
            Job::Append { reply, .. } => reply.send(commit_error),
            Job::ClaimToken { reply, .. } => reply.send(commit_error),
            Job::Rebuild { reply } => reply.send(commit_error),
            Job::Import { reply, .. } => reply.send(commit_error),
            Job::IndexTexts { reply } => reply.send(commit_error),
        }
    }
}

/// The writer connection and what it keeps between commits. One thread at a time uses it: the
/// writer thread, or a caller that found it idle ([`Shared::commit_here`]).
pub(crate) struct Core {
    pub(crate) connection: Connection,
    /// Where the connection stands in checkpointing its WAL; `None` only while a commit has it.
    pub(crate) cycle: Option<Cycle>,
}

/// What the writer thread and the store's callers share to commit.
pub(crate) struct Shared {
    pub(crate) core: Mutex<Core>,
    pub(crate) max_group: usize,
    pub(crate) counters: Arc<Counters>,
    /// Held for the whole of each group; `SqliteStore::pause_writes` takes it to hold writes.
    pub(crate) gate: Arc<tokio::sync::Mutex<()>>,
    /// Told of each committed batch once its transaction is durable.
    pub(crate) feed: Feed,
    /// Told of each batch about to commit, so a running watcher knows it as this process's own.
    pub(crate) published: Arc<Published>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Shared").field("max_group", &self.max_group).finish_non_exhaustive()
    }
}

impl Shared {
    /// The writer connection, once nobody else holds it.
    fn lock_core(&self) -> MutexGuard<'_, Core> {
        // A panic while committing leaves no transaction open: rusqlite's transaction rolls back
        // when dropped.
        self.core.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer connection if nobody holds it now.
    fn try_core(&self) -> Option<MutexGuard<'_, Core>> {
        match self.core.try_lock() {
            Ok(core) => Some(core),
            Err(TryLockError::WouldBlock) => None,
            Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        }
    }

    /// Commits `job` on the calling thread when nothing else is writing: one request at a time (an
    /// agent's calls over stdio or HTTP, the CLI, a library caller) then pays no hand-off to the
    /// writer thread and back. Gives the job back, for the writer thread, when it cannot: another
    /// commit is running (requests that arrive meanwhile are grouped there), writes are paused, or
    /// the job is a rebuild or an import, which may take long.
    ///
    /// On a worker of a multi-threaded tokio runtime the commit runs in `block_in_place`, so the
    /// worker's other tasks move to another thread instead of waiting for the sync.
    pub(crate) fn commit_here(&self, job: Job) -> Option<Job> {
        if !matches!(job, Job::Append { .. } | Job::ClaimToken { .. }) {
            return Some(job);
        }
        let Ok(_gate) = self.gate.try_lock() else { return Some(job) };
        let Some(mut core) = self.try_core() else { return Some(job) };
        self.counters.on_caller_thread.fetch_add(1, Ordering::SeqCst);
        if on_runtime_worker() {
            tokio::task::block_in_place(|| self.commit(&mut core, vec![job]));
        } else {
            self.commit(&mut core, vec![job]);
        }
        None
    }

    /// Commits `group` on `core`'s connection, its checkpoint cycle where the WAL hook finds it.
    fn commit(&self, core: &mut Core, group: Vec<Job>) {
        let Core { connection, cycle } = core;
        Cycle::around(cycle, || commit_group(connection, group, &self.counters, &self.feed, &self.published));
    }
}

/// Whether the calling thread is a worker of a multi-threaded tokio runtime, running one of its
/// tasks. A future that runtime's `block_on` polls runs outside any task, on a thread of its own;
/// a current-thread runtime has no other thread to move its tasks to.
fn on_runtime_worker() -> bool {
    tokio::runtime::Handle::try_current()
        .is_ok_and(|runtime| runtime.runtime_flavor() == RuntimeFlavor::MultiThread && tokio::task::try_id().is_some())
}

/// The writer thread: commits what callers hand it, in groups.
pub(crate) struct Writer {
    pub(crate) shared: Arc<Shared>,
    pub(crate) jobs: Receiver<Job>,
    pub(crate) checkpointer: Checkpointer,
}

impl Writer {
    /// Runs until every sender is gone and the queue is empty.
    pub(crate) fn run(self) {
        let Writer { shared, jobs, checkpointer } = self;
        while let Ok(first) = jobs.recv() {
            let _gate = shared.gate.blocking_lock();
            let mut core = shared.lock_core();
            let mut group = vec![first];
            while group.len() < shared.max_group {
                match jobs.try_recv() {
                    Ok(job) => group.push(job),
                    Err(_) => break,
                }
            }
            shared.commit(&mut core, group);
        }
        // Every sender is gone. The checkpointer's connection closes first; then fold the WAL back
        // into the database and truncate it, so the next process does not rebuild its WAL index
        // from a long file. Failing here loses nothing: the WAL stays valid and is checkpointed
        // later.
        let mut core = shared.lock_core();
        // Texts left waiting for the index are indexed now, so the next process to open the
        // file, even one that can only read it, finds every text.
        if let Err(error) = index_waiting_texts(&mut core.connection) {
            tracing::debug!(%error, "texts left waiting for the index are indexed by the next writer");
        }
        let cycle = core.cycle.take();
        checkpointer.stop(&core.connection, cycle);
        if let Err(error) = core.connection.execute_batch("PRAGMA wal_checkpoint(TRUNCATE);") {
            tracing::debug!(%error, "closing checkpoint skipped; the WAL is checkpointed later");
        }
    }
}

/// Indexes the texts waiting for the text index in a transaction of their own.
fn index_waiting_texts(connection: &mut Connection) -> Result<(), Error> {
    let transaction = begin(connection)?;
    search::index_waiting(&transaction, 1)?;
    transaction.commit().doing("committing the indexed texts")
}

/// Starts the write transaction of a group.
fn begin(connection: &mut Connection) -> Result<Transaction<'_>, Error> {
    connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|error| sql_error::map(&error, "starting a write transaction"))
}

fn commit_group(
    connection: &mut Connection,
    mut group: Vec<Job>,
    counters: &Counters,
    feed: &Feed,
    published: &Published,
) {
    let fail_all = |group: Vec<Job>, error: Error| {
        for mut job in group {
            job.fail(error.clone());
            job.answer(None);
        }
    };
    let mut transaction = match begin(connection) {
        Ok(transaction) => transaction,
        Err(error) => return fail_all(group, error),
    };
    // Every request straight into the transaction: a savepoint would copy each page a request
    // touches before it writes it, a fifth of the writer's work with 32 concurrent writers
    // (BENCHMARKS.md, "Many clients and servers").
    // The first failure ends the pass: the group runs again below, and SQLite may have rolled the
    // transaction back itself (a full disk, an I/O error), leaving later statements to commit alone.
    for job in &mut group {
        job.perform(&transaction);
        if !job.succeeded() {
            break;
        }
    }
    let isolated = group.len() > 1 && !group.iter().all(Job::succeeded);
    if isolated {
        // A failed request may have written part of its rows. The group runs again from the start,
        // each request in its own savepoint, so only the failed ones lose their rows.
        if let Err(error) = transaction.rollback() {
            return fail_all(group, sql_error::map(&error, "rolling back a group to isolate its requests"));
        }
        transaction = match begin(connection) {
            Ok(transaction) => transaction,
            Err(error) => return fail_all(group, error),
        };
        for job in &mut group {
            if transaction.is_autocommit() {
                // SQLite rolled the whole transaction back after an error: nothing of the group
                // is left to commit.
                job.fail(Error::Io {
                    message: "the write transaction was rolled back by SQLite after an error".to_owned(),
                });
                continue;
            }
            if let Err(error) = in_savepoint(&mut transaction, job) {
                job.fail(error);
            }
        }
    }
    let all_succeeded = group.iter().all(Job::succeeded);
    let committing = isolated || all_succeeded;
    let changes: Vec<Change> = if committing { group.iter().filter_map(Job::change).collect() } else { Vec::new() };
    published.expect(&changes);
    let finished = if committing { transaction.commit() } else { transaction.rollback() };
    match finished {
        Ok(()) => {
            counters.transactions.fetch_add(1, Ordering::SeqCst);
            for change in changes {
                feed.publish(change);
            }
            for job in group {
                job.answer(None);
            }
        }
        Err(error) => {
            published.withdraw(&changes);
            let error = sql_error::map(&error, "committing");
            tracing::warn!(%error, "a grouped commit failed; every request in it is answered with the error");
            for job in group {
                job.answer(Some(&error));
            }
        }
    }
}

/// Runs one request of a group in a savepoint of its own, released if it succeeded and rolled
/// back if it failed, leaving the rest of the group untouched.
fn in_savepoint(transaction: &mut Transaction<'_>, job: &mut Job) -> Result<(), Error> {
    let savepoint = transaction.savepoint().doing("opening a savepoint")?;
    job.perform(&savepoint);
    if job.succeeded() {
        savepoint.commit().doing("releasing a savepoint")
    } else {
        // Rolls back to the savepoint and releases it.
        savepoint.finish().doing("rolling back a savepoint")
    }
}

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidBatch { reason: reason.into() }
}

/// The sequence number and hash of the session's last event, read inside the write transaction so
/// processes sharing the file agree.
fn head(connection: &Connection, batch: &Batch) -> Result<(u64, String), Error> {
    let mut statement = connection.prepare_cached(SESSION_HEAD).doing("reading the session head")?;
    let mut rows = statement.query([&*batch.session.text()]).doing("reading the session head")?;
    match rows.next().doing("reading the session head")? {
        Some(row) => {
            let decoder = rows::decoder(row, "events");
            Ok((decoder.count(0, "seq")?, decoder.text(1, "hash")?))
        }
        None => Ok((0, switchyard_store::event::GENESIS_HASH.to_owned())),
    }
}

fn append(connection: &Connection, batch: &Batch) -> Result<Appended, Error> {
    if batch.events.is_empty() {
        return Err(invalid("a batch must carry at least one event"));
    }
    if let Some(claim) = &batch.claim
        && let Some(recorded) = rows::recorded(connection, batch.session, &claim.key)?
    {
        return Ok(Appended::AlreadyRecorded(recorded));
    }
    if let Some(guard) = &batch.guard {
        let found = rows::run(connection, guard.run)?.map(|run| run.control);
        if found != Some(guard.control) {
            return Err(Error::Stale {
                run: guard.run.to_string(),
                expected: guard.control.as_str().to_owned(),
                found: found.map_or("missing", |control| control.as_str()).to_owned(),
            });
        }
    }
    let (mut seq, mut prev_hash) = head(connection, batch)?;
    let first_seq = seq + 1;
    let mut sealed = Vec::with_capacity(batch.events.len());
    for event in &batch.events {
        seq += 1;
        let (stored, body) = StoredEvent::seal(batch.session, seq, &prev_hash, event.clone());
        let body = String::from_utf8(body).map_err(|error| invalid(format!("event body is not UTF-8: {error}")))?;
        prev_hash = stored.hash.clone();
        sealed.push((stored, body));
    }
    write_events(connection, &sealed)?;
    if let Some(claim) = &batch.claim {
        let outcome =
            serde_json::to_string(&claim.outcome).map_err(|error| invalid(format!("claim outcome: {error}")))?;
        connection
            .prepare_cached(INSERT_CLAIM)
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

/// Inserts sealed events (each with the body its hash covers), applies them to the projections
/// and records their texts, indexing the texts waiting once a batch of them waits: the part of a
/// write that an append and an import share.
fn write_events(connection: &Connection, sealed: &[(StoredEvent, String)]) -> Result<(), Error> {
    let mut projector = Projector::new();
    let mut target = SqliteProjection::new(connection);
    let mut recorded = false;
    for (stored, body) in sealed {
        let run = stored.run.map(|run| run.text());
        let inserted = connection.prepare_cached(INSERT_EVENT).and_then(|mut statement| {
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
        recorded |= search::record_text(connection, stored)?;
    }
    projector.finish().map_err(invalid)?;
    target.flush()?;
    if recorded {
        search::index_waiting(connection, search::INDEX_BATCH)?;
    }
    Ok(())
}

/// Writes a session copied from another store (see [`Store::import_session`]).
///
/// [`Store::import_session`]: switchyard_store::Store::import_session
fn import(connection: &Connection, copy: &SessionCopy) -> Result<u64, Error> {
    let sealed = copy.checked_events()?;
    let held = connection
        .query_row("SELECT EXISTS (SELECT 1 FROM events WHERE session = ?1)", [copy.session.to_string()], |row| {
            row.get::<_, bool>(0)
        })
        .doing("checking that the session is new here")?;
    if held {
        return Err(switchyard_store::copy::session_exists(copy.session));
    }
    write_events(connection, &sealed)?;
    for claim in &copy.claims {
        let outcome =
            serde_json::to_string(&claim.outcome).map_err(|error| invalid(format!("claim outcome: {error}")))?;
        let inserted = connection.prepare_cached(INSERT_CLAIM).and_then(|mut statement| {
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

/// Deletes every projection row, with foreign keys unchecked meanwhile. A node's `parent`
/// references another node, and no index leads from a node to its children (none is read that
/// way, and it would cost every advance a page): checked, each deleted node would scan the table
/// for children that still name it, a time that grows with the square of the nodes. Every row
/// goes, so no reference is left dangling. SQLite takes this setting inside a transaction (the
/// `foreign_keys` pragma would not); the statements prepared meanwhile are prepared again.
fn drop_projections(connection: &Connection) -> Result<(), Error> {
    connection
        .set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_FKEY, false)
        .doing("setting foreign keys aside to drop the projections")?;
    let dropped = connection
        .execute_batch("DELETE FROM nodes; DELETE FROM runs; DELETE FROM sessions;")
        .doing("dropping the projections");
    connection
        .set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_FKEY, true)
        .doing("checking foreign keys again after dropping the projections")?;
    dropped
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
pub(crate) fn rebuild(connection: &Connection) -> Result<(), Error> {
    drop_projections(connection)?;
    let sessions: Vec<String> = {
        let mut statement =
            connection.prepare("SELECT DISTINCT session FROM events ORDER BY session").doing("listing sessions")?;
        statement.query_map([], |row| row.get(0)).and_then(|rows| rows.collect()).doing("listing sessions")?
    };
    let sql = "SELECT session, seq, body, hash FROM events WHERE session = ?1 ORDER BY seq";
    let mut target = SqliteProjection::new(connection);
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
    search::reindex(connection)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};

    use rusqlite::Connection;

    /// Dropping the projections costs each node a bounded number of SQLite's virtual machine
    /// steps however many there are (no scan for children per node, which would grow with the
    /// square of the nodes), and leaves the foreign key checks on.
    #[test]
    fn dropping_the_projections_takes_steps_in_proportion_to_the_nodes() {
        const NODES: u64 = 2_000;
        let connection = Connection::open_in_memory().unwrap();
        connection.pragma_update(None, "foreign_keys", "ON").unwrap();
        connection.execute_batch(&crate::schema::tables()).unwrap();
        connection
            .execute_batch(&format!(
                "INSERT INTO sessions VALUES ('s', 'g', 't', 'w', 'r', 'active', NULL, NULL, NULL, 0, 0, 1);
                 INSERT INTO runs VALUES ('r', 's', 'w', 'h', 'src', 'running', 'n0', 'active', 1, 0, 0);
                 WITH RECURSIVE count (x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM count WHERE x < {NODES} - 1)
                 INSERT INTO nodes SELECT 'n' || x, 'r', 's', CASE WHEN x = 0 THEN NULL ELSE 'n' || (x - 1) END,
                     'step', 'advance', 'work', 'active', '{{}}', 1, x, 0 FROM count;"
            ))
            .unwrap();
        let hundreds_of_steps = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&hundreds_of_steps);
        connection
            .progress_handler(
                100,
                Some(move || {
                    counted.fetch_add(1, Ordering::Relaxed);
                    false
                }),
            )
            .unwrap();
        let transaction = connection.unchecked_transaction().unwrap();
        super::drop_projections(&transaction).unwrap();
        transaction.commit().unwrap();
        let steps = hundreds_of_steps.load(Ordering::Relaxed) * 100;
        assert!(steps < 100 * NODES, "{steps} steps to drop {NODES} nodes");
        let dangling = connection.execute(
            "INSERT INTO nodes VALUES ('x', 'r', 's', 'missing', 'step', 'advance', 'work', 'active', '{}', 0, 0, 0)",
            [],
        );
        assert!(dangling.is_err(), "foreign keys are checked again: {dangling:?}");
    }
}
