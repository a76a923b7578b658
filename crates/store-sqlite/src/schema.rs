//! The SQLite schema, its version check and the connection settings every connection gets.

use std::path::Path;
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags, OptionalExtension, TransactionBehavior};
use switchyard_store::Error;

use crate::sql_error::Context;

/// The schema version this build writes and reads: the number of migrations (`MIGRATIONS`).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Every migration in order, as the Postgres store keeps its own: `MIGRATIONS[i]` takes a store
/// from version `i` to `i + 1` (version 0 is a file without tables), and opening a store applies
/// the ones it lacks in the transaction that checks its version. A new version is a new entry
/// here; an index older builds can do without is added or dropped in [`INDEX_CHANGES`] instead,
/// so they can still open the file.
const MIGRATIONS: [Migration; 3] = [
    Migration { statements: SCHEMA_V1, around_on_older_file: None },
    Migration { statements: SCHEMA_V2, around_on_older_file: None },
    Migration { statements: SCHEMA_V3, around_on_older_file: Some((CLAIMS_SET_ASIDE, CLAIMS_MOVED)) },
];

/// One step from a version to the next.
struct Migration {
    /// What the step creates or changes.
    statements: &'static str,
    /// What runs before and after `statements` on a file that already had tables when it was
    /// opened: a table a later version replaces is left out of a new file's earlier steps, so
    /// only such a file holds rows to move.
    around_on_older_file: Option<(&'static str, &'static str)>,
}

/// Version 1. Events are the truth; `sessions`, `runs` and `nodes` are projections and carry no
/// foreign key to `events`, so they can be dropped and rebuilt.
///
/// `tokens` are small rows looked up only by key, so they are `WITHOUT ROWID`: the primary key is
/// the table, one b-tree less to write per insert. The statements are the same either way, so
/// files created before this change read and write as before.
///
/// What version 1 had and a later version or [`INDEX_CHANGES`] drops is left out: its `claims`
/// table, which version 3 replaces ([`FIRST_RELEASE_CLAIMS`]), and the indexes
/// [`FIRST_RELEASE_INDEXES_DROPPED`]. A new file never has them, so opening one never drops a
/// table or an index (which would run SQLite code that a server at rest otherwise never maps).
pub(crate) const SCHEMA_V1: &str = "
CREATE TABLE events (
    session TEXT NOT NULL,
    seq INTEGER NOT NULL,
    id TEXT NOT NULL UNIQUE,
    run TEXT,
    kind TEXT NOT NULL,
    at_ms INTEGER NOT NULL,
    -- The canonical JSON of the envelope without its hash: exactly the hashed bytes.
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (session, seq)
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    goal TEXT NOT NULL,
    title TEXT NOT NULL,
    workflow_id TEXT,
    run TEXT,
    status TEXT,
    workspace TEXT,
    git_branch TEXT,
    git_head TEXT,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL,
    last_seq INTEGER NOT NULL
);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    session TEXT NOT NULL REFERENCES sessions (id),
    workflow_id TEXT NOT NULL,
    workflow_hash TEXT NOT NULL,
    source TEXT NOT NULL,
    control TEXT NOT NULL,
    tip TEXT NOT NULL,
    status TEXT NOT NULL,
    node_count INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL,
    updated_at_ms INTEGER NOT NULL
);
CREATE INDEX runs_by_session ON runs (session);
CREATE TABLE nodes (
    id TEXT PRIMARY KEY,
    run TEXT NOT NULL REFERENCES runs (id),
    session TEXT NOT NULL,
    parent TEXT REFERENCES nodes (id),
    kind TEXT NOT NULL,
    cause TEXT NOT NULL,
    step TEXT NOT NULL,
    status TEXT NOT NULL,
    state TEXT NOT NULL,
    child_count INTEGER NOT NULL,
    created_seq INTEGER NOT NULL,
    created_at_ms INTEGER NOT NULL
);
CREATE INDEX nodes_by_run ON nodes (run, created_seq);
-- `attempt` is '' when the token names no attempt, so the UNIQUE constraint covers that case.
CREATE TABLE tokens (
    nonce TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    session TEXT NOT NULL,
    run TEXT NOT NULL,
    node TEXT NOT NULL,
    attempt TEXT NOT NULL,
    UNIQUE (node, attempt, kind)
) WITHOUT ROWID;
CREATE TABLE workflows (
    hash TEXT PRIMARY KEY,
    ir TEXT NOT NULL
);
";

/// Version 2: the text index takes its texts in batches, and `texts_indexed` marks the newest
/// text it holds (see `search.rs`). The row is written once the text tables exist, after the
/// migrations: a store of version 1 had every text indexed as it was recorded.
///
/// A build of version 1 cannot open a store of version 2 (it would record texts it indexes at
/// once beside texts still waiting, and index those twice); it says so, naming both versions.
pub(crate) const SCHEMA_V2: &str = "
CREATE TABLE texts_indexed (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    upto INTEGER NOT NULL
);
";

/// Version 3: a claim is keyed by its session, then its key. Version 1 keyed claims by key alone,
/// with an index by session for the store copy, which reads a session's claims: every claimed
/// command wrote an entry in both, and now writes one (about 1.4 pages of the log fewer per
/// advance). A claim belongs to the session of the command it answers, which every lookup names.
///
/// A file of an earlier version has version 1's table; [`CLAIMS_SET_ASIDE`] and [`CLAIMS_MOVED`]
/// move its rows around this statement, in the transaction that migrates it. A build of version 2
/// refuses a store of version 3, naming both versions.
pub(crate) const SCHEMA_V3: &str = "
CREATE TABLE claims (
    key TEXT NOT NULL,
    session TEXT NOT NULL,
    payload_sha256 TEXT NOT NULL,
    outcome TEXT NOT NULL,
    PRIMARY KEY (session, key)
) WITHOUT ROWID;
";

/// Before [`SCHEMA_V3`] on a file of an earlier version: version 1's claims table is set aside
/// (its index by session goes with it).
const CLAIMS_SET_ASIDE: &str = "ALTER TABLE claims RENAME TO claims_by_key;";

/// After [`SCHEMA_V3`] on a file of an earlier version: the claims set aside are moved into the
/// new table, in its key's order, and the old table is dropped. This takes time in proportion to
/// the claims held, once.
const CLAIMS_MOVED: &str = "
INSERT INTO claims (key, session, payload_sha256, outcome)
    SELECT key, session, payload_sha256, outcome FROM claims_by_key ORDER BY session, key;
DROP TABLE claims_by_key;
";

/// Indexes added to version 1 since its first release, created when a writer opens a store
/// without them, and indexes dropped since, dropped when it opens one with them (builds on either
/// side read and write such a store as before).
///
/// The lookups of `resume_session` by workspace and by git branch or HEAD. These columns never
/// change once a session
/// starts, so an advance, which rewrites only the session's update time and last seq (and its
/// status when that changes), leaves these indexes untouched; a lookup sorts what its value
/// matches by recency.
///
/// Sessions by recency: `sessions_by_recency` holds the update time and id, then the status and
/// workflow id, so a list filtered by either walks it newest first and tests each entry without
/// reading the row, reading a page's worth of rows when the value is common and the whole index
/// when it is rare (about half a millisecond for 10,000 sessions:
/// BENCHMARKS.md, "Store at scale (search, resume, long runs)"). Version 1 had an index for each
/// filter with the update time after the value instead, which an advance moved in all three (a page
/// of the log each per commit); `sessions_by_workflow_id` serves the distinct workflow ids
/// (`rows.rs`) and never moves.
///
/// Then the indexes dropped since, each of which cost every advance a page of the log:
/// - `tokens_by_session` served only the store copy, which finds a session's tokens through its
///   runs and nodes instead (three entries per advance, one per token);
/// - `sessions_by_update`, `sessions_by_status` and `sessions_by_workflow`, version 1's recency
///   indexes, above;
/// - `nodes_by_parent` was read by nothing but SQLite's foreign key checks when a node is
///   deleted, which only a rebuild of the projections does, with those checks set aside
///   (`writer.rs`).
///
/// A build that still lists `tokens_by_session` creates it again when it opens the file, and this
/// one drops it again: both read and write the file either way. The others were created only with
/// a new file; a build that expects them reads and writes the file without them (its lists walk
/// `sessions_by_recency`; its rebuild of the projections, with the checks on, is slow).
pub(crate) const INDEX_CHANGES: &str = "
CREATE INDEX IF NOT EXISTS sessions_by_workspace ON sessions (workspace);
CREATE INDEX IF NOT EXISTS sessions_by_branch ON sessions (git_branch);
CREATE INDEX IF NOT EXISTS sessions_by_head ON sessions (git_head);
CREATE INDEX IF NOT EXISTS sessions_by_recency ON sessions (updated_at_ms DESC, id DESC, status, workflow_id);
CREATE INDEX IF NOT EXISTS sessions_by_workflow_id ON sessions (workflow_id);
DROP INDEX IF EXISTS tokens_by_session;
DROP INDEX IF EXISTS sessions_by_update;
DROP INDEX IF EXISTS sessions_by_status;
DROP INDEX IF EXISTS sessions_by_workflow;
DROP INDEX IF EXISTS nodes_by_parent;
";

/// Version 1's claims table, which version 3 replaces ([`SCHEMA_V3`]).
const FIRST_RELEASE_CLAIMS: &str = "
CREATE TABLE claims (
    key TEXT PRIMARY KEY,
    session TEXT NOT NULL,
    payload_sha256 TEXT NOT NULL,
    outcome TEXT NOT NULL
) WITHOUT ROWID;
";

/// The indexes of version 1's first release that [`INDEX_CHANGES`] drops.
const FIRST_RELEASE_INDEXES_DROPPED: &str = "
CREATE INDEX sessions_by_update ON sessions (updated_at_ms DESC, id DESC);
CREATE INDEX sessions_by_status ON sessions (status, updated_at_ms DESC, id DESC);
CREATE INDEX sessions_by_workflow ON sessions (workflow_id, updated_at_ms DESC, id DESC);
CREATE INDEX nodes_by_parent ON nodes (parent);
";

/// The tables and indexes of a new file, without a store: the migrations in order, then the index
/// changes (the text index is `search.rs`'s). For tests that plan or run statements on them.
#[cfg(test)]
pub(crate) fn tables() -> String {
    let statements: String = MIGRATIONS.iter().map(|migration| migration.statements).collect();
    format!("{statements}{INDEX_CHANGES}")
}

/// The statements of version 1 as its first release ran them, for tests that make a store as it
/// did.
#[doc(hidden)]
pub fn schema_v1() -> String {
    format!("{SCHEMA_V1}{FIRST_RELEASE_CLAIMS}{FIRST_RELEASE_INDEXES_DROPPED}")
}

/// Applies the per-connection settings.
pub(crate) fn configure(connection: &Connection, busy_timeout: Duration) -> Result<(), Error> {
    connection.busy_timeout(busy_timeout).doing("setting the busy timeout")?;
    connection.pragma_update(None, "foreign_keys", "ON").doing("enabling foreign keys")?;
    connection.pragma_update(None, "synchronous", "FULL").doing("setting synchronous=FULL")?;
    one_plan_per_statement(connection)?;
    // After a checkpoint resets the WAL, truncate it back to this size, so one burst of writes
    // does not leave a long WAL that every later reader and opener pays for.
    connection.pragma_update(None, "journal_size_limit", 16 * 1024 * 1024).doing("limiting the WAL size")?;
    Ok(())
}

/// How many prepared statements the writer's connection keeps: an advance runs some twenty on it,
/// and with rusqlite's default of 16 each would push out one it needs next.
const WRITER_STATEMENT_CACHE: usize = 32;

/// Opens the writer connection: creates the file, switches to WAL and creates or checks the
/// schema inside an immediate transaction, so processes opening the file together agree.
pub(crate) fn open_writer(path: &Path, busy_timeout: Duration) -> Result<Connection, Error> {
    let display = path.display();
    let mut connection = Connection::open(path).doing(&format!("opening {display}"))?;
    connection.set_prepared_statement_cache_capacity(WRITER_STATEMENT_CACHE);
    configure(&connection, busy_timeout)?;
    let mode = switch_to_wal(&connection, busy_timeout).doing(&format!("switching {display} to WAL"))?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::Io { message: format!("{display} refused WAL mode (it stays in `{mode}` mode)") });
    }
    let transaction = connection
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .doing("locking the store to check its schema")?;
    transaction
        .execute_batch(
            "CREATE TABLE IF NOT EXISTS schema_version (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                version INTEGER NOT NULL
            );",
        )
        .doing("creating the schema version table")?;
    let version: Option<i64> = transaction
        .query_row("SELECT version FROM schema_version WHERE singleton = 1", [], |row| row.get(0))
        .optional()
        .doing("reading the schema version")?;
    let found = version.unwrap_or(0);
    if found > SCHEMA_VERSION {
        return Err(Error::SchemaTooNew { found, supported: SCHEMA_VERSION });
    }
    // The version row is written in the transaction that applies the first migration, so a
    // recorded version below 1 was never written by switchyard.
    if version.is_some_and(|recorded| recorded < 1) {
        return Err(Error::Corrupt {
            message: format!("{display} records schema version {found}, which never existed"),
        });
    }
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let version = index as i64 + 1;
        let doing = format!("migrating the schema to version {version}");
        let around = if found > 0 { migration.around_on_older_file } else { None };
        if let Some((before, _)) = around {
            transaction.execute_batch(before).doing(&doing)?;
        }
        transaction.execute_batch(migration.statements).doing(&doing)?;
        if let Some((_, after)) = around {
            transaction.execute_batch(after).doing(&doing)?;
        }
        if found > 0 {
            tracing::info!(path = %path.display(), version, "the SQLite store's schema was migrated");
        }
    }
    if found < SCHEMA_VERSION {
        transaction
            .execute(
                "INSERT INTO schema_version (singleton, version) VALUES (1, ?1)
                 ON CONFLICT (singleton) DO UPDATE SET version = excluded.version",
                [SCHEMA_VERSION],
            )
            .doing("recording the schema version")?;
    }
    transaction.execute_batch(INDEX_CHANGES).doing("adding and dropping the indexes changed since version 1")?;
    crate::search::ensure_schema(&transaction)?;
    transaction.commit().doing("committing the schema")?;
    Ok(connection)
}

/// `PRAGMA journal_mode = WAL`, retried while another process holds the lock: SQLite answers a
/// journal mode change that could deadlock with `SQLITE_BUSY` at once, without calling the busy
/// handler, so processes opening a new store together would fail where they should wait.
fn switch_to_wal(connection: &Connection, busy_timeout: Duration) -> rusqlite::Result<String> {
    let deadline = std::time::Instant::now() + busy_timeout;
    loop {
        match connection.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0)) {
            Err(rusqlite::Error::SqliteFailure(failure, _))
                if matches!(failure.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                    && std::time::Instant::now() < deadline =>
            {
                // Backoff while the other opener finishes its switch (milliseconds).
                std::thread::sleep(Duration::from_millis(5));
            }
            answer => return answer,
        }
    }
}

/// Opens a read-only connection (after the writer created the file).
pub(crate) fn open_reader(path: &Path, busy_timeout: Duration) -> Result<Connection, Error> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | OpenFlags::SQLITE_OPEN_URI;
    let connection =
        Connection::open_with_flags(path, flags).doing(&format!("opening {} for reading", path.display()))?;
    connection.busy_timeout(busy_timeout).doing("setting the busy timeout")?;
    one_plan_per_statement(&connection)?;
    Ok(connection)
}

/// One plan per statement, whatever its parameters hold. Without this, SQLite plans `LIMIT ?n` with
/// the value bound, and binding any value to it marks the statement expired, so every use of such a
/// cached statement parsed and planned it again (the watcher's read of new events and a session's
/// pages of events among them). The other plans that depend on bound values (`LIKE` prefixes,
/// `sqlite_stat4` samples) are ones this schema never uses.
pub(crate) fn one_plan_per_statement(connection: &Connection) -> Result<(), Error> {
    connection
        .set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
        .doing("asking for one query plan per statement")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rusqlite::StatementStatus;

    /// A cached statement whose `LIMIT` is a parameter runs again with new values as it was
    /// prepared: on the store's connections, binding a new limit does not make SQLite parse and
    /// plan it again.
    #[test]
    fn a_bound_limit_does_not_prepare_a_statement_again() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.db");
        drop(super::open_writer(&path, Duration::from_secs(1)).unwrap());
        let connections = [
            super::open_writer(&path, Duration::from_secs(1)).unwrap(),
            super::open_reader(&path, Duration::from_secs(1)).unwrap(),
        ];
        for connection in &connections {
            for limit in 1..=3 {
                let mut statement = connection.prepare_cached(crate::watch::EVENTS_AFTER_ROWID).unwrap();
                let rows = statement.query_map([0, limit], |_| Ok(())).unwrap().count();
                assert_eq!(rows, 0);
                assert_eq!(statement.get_status(StatementStatus::RePrepare), 0, "after limit {limit}");
            }
        }
    }
}
