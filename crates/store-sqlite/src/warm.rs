//! Statements prepared ahead of a long-lived server's first request ([`Store::warm`]).
//!
//! SQLite parses and plans a statement the first time a connection prepares it, and a read
//! connection parses the whole schema before its first statement: about two million instructions
//! that a fresh server would otherwise spend inside its first `continue_workflow`, which counted
//! four times the instructions of the next. Prepared here, they wait in each connection's statement
//! cache (rusqlite's, looked up by the text), and the first advance finds them there.
//!
//! The lists name the statements of an advance, the request a server answers most; a statement
//! left off only costs its first use what it did before.
//!
//! The writer also begins the write-ahead log. SQLite deletes the log when a process's last
//! connection to the file closes, so a fresh server's first commit would create it: write its
//! header and sync it, and sync the folder that gained it, three syncs where a later commit makes
//! one. The warm-up commits one page unchanged instead (the header's `user_version`, set to the
//! value it holds), so those syncs happen before any request waits on them. No row changes.
//!
//! Then the log is written ahead with zeros, as far as it grows before its first checkpoint
//! starts it over (some 4.6 MB, [`crate::vfs::reserve_log`]), so a fresh server's commits
//! overwrite blocks the file has instead of growing it. That is some 18 writer jobs of a quarter
//! megabyte each ([`log_ahead`]), not one: a request that comes meanwhile waits for one step, not
//! for the whole log (one job of a megabyte delayed a call made as soon as `tools/list` was
//! answered by 0.3-0.6 ms, one of the whole log by 4 ms).
//!
//! [`Store::warm`]: switchyard_store::Store::warm

use rusqlite::Connection;

use switchyard_store::Error;

use crate::checkpoint::CHECKPOINT_FRAMES;
use crate::sql_error::Context;
use crate::{recent, rows, search, writer};

/// What the writer's connection runs in an advance, most of it in every one: the lookups before
/// the write when it finds the connection idle (the token's scope, the claim of a retried call,
/// the pinned workflow, the position of each token it hands out), then the transaction's begin,
/// the data version check, the claim and run guard, the session head, the event, the projections,
/// the text and how far the text index lags, the claim, the tokens and the commit. Fewer than
/// [`WRITER_STATEMENT_CACHE`], so none pushes another out.
fn writer_statements() -> [&'static str; 23] {
    [
        &rows::TOKEN_SCOPE,
        &rows::TOKEN_AT,
        rows::WORKFLOW_BY_HASH,
        writer::BEGIN,
        recent::DATA_VERSION,
        rows::CLAIM,
        &rows::RUN_BY_ID,
        writer::SESSION_HEAD,
        writer::INSERT_EVENT,
        &rows::SESSION_BY_ID,
        &rows::NODE_BY_ID,
        search::STEP_OF_NODE,
        search::INSERT_TEXT,
        search::NEWEST_TEXT,
        search::INDEXED_UPTO,
        writer::INSERT_CLAIM,
        &rows::INSERT_TOKEN_IF_FREE,
        rows::WRITE_SESSION,
        rows::SESSION_MOVED_ON,
        rows::WRITE_RUN,
        rows::WRITE_NODE,
        rows::WRITE_CHILD_COUNT,
        writer::COMMIT,
    ]
}

/// How many prepared statements the writer's connection keeps: those of [`writer_statements`],
/// with room for the lookups of other requests.
pub(crate) const WRITER_STATEMENT_CACHE: usize = 32;

/// What an advance reads before it writes: the token with its run, session and node, the claim of
/// a retried call, the pinned workflow, and the events a response quotes.
fn reader_statements() -> [&'static str; 7] {
    [
        &rows::TOKEN_SCOPE,
        rows::CLAIM,
        rows::WORKFLOW_BY_HASH,
        &rows::SESSION_BY_ID,
        &rows::RUN_BY_ID,
        &rows::NODE_BY_ID,
        rows::EVENTS_AFTER,
    ]
}

/// Prepares the writer's statements on its connection and begins the write-ahead log. Runs inside
/// the writer's transaction, which holds the write lock, so nobody changes `user_version` between
/// its read and its write.
pub(crate) fn writer(connection: &Connection) -> Result<(), Error> {
    prepare(connection, &writer_statements())?;
    // SQLite writes page 1 whenever `user_version` is set, even to the value it holds: the one
    // write it makes for a change that changes nothing. (An `UPDATE` that rewrites a row with its
    // own bytes leaves the page clean, and the transaction would commit empty.)
    let version: i64 =
        connection.query_row("PRAGMA user_version", [], |row| row.get(0)).doing("reading the store's user version")?;
    connection.pragma_update(None, "user_version", version).doing("beginning the write-ahead log")
}

/// One step of writing the log ahead, at most [`LOG_AHEAD_STEP`] bytes of zeros past its end,
/// synced; whether the log now reaches as far as it grows before it first starts over. Runs
/// inside a writer job, which holds the write lock.
pub(crate) fn log_ahead(connection: &Connection) -> Result<bool, Error> {
    let page: i64 = connection.query_row("PRAGMA page_size", [], |row| row.get(0)).doing("reading the page size")?;
    crate::vfs::reserve_log(connection, log_until_it_starts_over(page), LOG_AHEAD_STEP)
}

/// The bytes of one step of [`log_ahead`]: written and synced in about a third of a millisecond
/// on the disk of BENCHMARKS.md, which is as long as a request that arrives meanwhile waits.
const LOG_AHEAD_STEP: i64 = 256 * 1024;

/// The most steps of [`log_ahead`] a warm-up takes. Some 18 reach the end of the log; the bound
/// ends the warm-up if something keeps cutting the log short meanwhile (another process
/// checkpointing and truncating it), where it would otherwise write for ever.
pub(crate) const MOST_LOG_AHEAD_STEPS: usize = 64;

/// How long the write-ahead log grows before it first starts over, in bytes: its header, the
/// frames after which it is checkpointed ([`CHECKPOINT_FRAMES`]), and those of the commits made
/// while the background pass copies them, a few at most, each frame a page and its header. The
/// warm-up writes the log ahead that far: every commit of a fresh server then overwrites blocks
/// the file has, until the log starts over at its beginning and overwrites its own.
fn log_until_it_starts_over(page: i64) -> i64 {
    const FRAMES_DURING_THE_PASS: i64 = 128;
    32 + (i64::from(CHECKPOINT_FRAMES) + FRAMES_DURING_THE_PASS) * (page + 24)
}

/// Prepares the reads on a read connection (and so parses its schema).
pub(crate) fn reader(connection: &Connection) -> Result<(), Error> {
    prepare(connection, &reader_statements())
}

fn prepare(connection: &Connection, statements: &[&str]) -> Result<(), Error> {
    for sql in statements {
        // Dropped at once: the statement goes back to the connection's cache.
        connection.prepare_cached(sql).doing("preparing a statement ahead of its first use")?;
    }
    Ok(())
}
