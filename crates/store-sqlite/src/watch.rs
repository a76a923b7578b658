//! The cross-process change feed: what other processes (a CLI `continue` in another terminal, a
//! second server) commit to the same file reaches this store's subscribers.
//!
//! A [`Watcher`] starts on the first `subscribe`, so a command that never subscribes pays nothing.
//! The kernel wakes it (inotify, FSEvents or kqueue, through `notify`) when the store file or its
//! WAL is written; it then reads the events appended since its cursor, one `rowid` range search, and
//! publishes each session's new end. Sessions whose end this process's writer already published are
//! left out, through the [`Published`] record the writer keeps while a watcher runs.
//!
//! A write reaches the WAL file before the commit is visible to readers (the WAL is synced, then
//! its index is updated in shared memory, which the kernel does not report), so after a burst of
//! file events the watcher reads again once the file has been quiet for [`SETTLE_CHECKS`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher as _};
use rusqlite::{Connection, params};

use switchyard_core::id::SessionId;
use switchyard_store::{Change, Error, Feed};

use crate::rows::decoder;
use crate::schema;
use crate::sql_error::Context;

/// How long the file must stay quiet before each extra read after a burst of writes: long enough
/// for another process's commit to become visible after its WAL sync on a slow disk, short enough
/// that a change still arrives well within a second.
const SETTLE_CHECKS: [Duration; 2] = [Duration::from_millis(40), Duration::from_millis(250)];

/// The most event rows one read takes; a longer backlog is read in several.
const ROWS_PER_READ: u32 = 4096;

/// The events appended after a rowid, in rowid order: a range search of the table's own b-tree.
pub(crate) const EVENTS_AFTER_ROWID: &str =
    "SELECT session, seq, rowid FROM events WHERE rowid > ?1 ORDER BY rowid LIMIT ?2";

/// The ends of sessions this process's writer published, kept only while a watcher runs so it does
/// not publish them a second time when it reads them back from the file.
#[derive(Debug, Default)]
pub(crate) struct Published {
    watching: AtomicBool,
    own: Mutex<HashMap<SessionId, u64>>,
}

impl Published {
    fn own(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, u64>> {
        // The map is a cache of what was published: a panic elsewhere leaves it usable.
        self.own.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Called by the writer before it commits `changes`, while it holds the write lock: recording
    /// them first means the watcher never reads one of them back before knowing it is this
    /// process's own.
    pub(crate) fn expect(&self, changes: &[Change]) {
        if changes.is_empty() || !self.watching.load(Ordering::Acquire) {
            return;
        }
        let mut own = self.own();
        for change in changes {
            let end = own.entry(change.session).or_default();
            *end = (*end).max(change.last_seq);
        }
    }

    /// Called by the writer when the commit of `changes` failed: they never happened.
    pub(crate) fn withdraw(&self, changes: &[Change]) {
        if changes.is_empty() || !self.watching.load(Ordering::Acquire) {
            return;
        }
        let mut own = self.own();
        for change in changes {
            own.remove(&change.session);
        }
    }

    /// Of the session ends read from the file, those this process did not publish itself. An own
    /// end at or below what was read is settled and forgotten; one above it was committed after
    /// the read and waits for the next.
    fn foreign(&self, ends: HashMap<SessionId, u64>) -> Vec<Change> {
        let mut own = self.own();
        let mut foreign = Vec::new();
        for (session, last_seq) in ends {
            let published = own.get(&session).copied();
            if published.is_some_and(|published| published <= last_seq) {
                own.remove(&session);
            }
            if published.is_none_or(|published| published < last_seq) {
                foreign.push(Change { session, last_seq });
            }
        }
        foreign
    }
}

/// A running watcher; dropping it stops its thread and releases its file watch and connection.
///
/// The thread wakes on a message per burst of file events, sent by the file watch's handler, and
/// ends when that handler is gone: `notify` drops it only after closing its own descriptors, so
/// once the thread is joined, nothing of the watcher is left open.
#[derive(Debug)]
pub(crate) struct Watcher {
    file_watch: Option<notify::RecommendedWatcher>,
    thread: Option<JoinHandle<()>>,
    published: Arc<Published>,
}

impl Watcher {
    /// Starts watching the store at `path`, publishing other processes' commits to `feed`.
    pub(crate) fn start(
        path: &Path,
        busy_timeout: Duration,
        feed: Feed,
        published: Arc<Published>,
    ) -> Result<Watcher, Error> {
        let connection = schema::open_reader(path, busy_timeout)?;
        // Own commits from here on are recorded; the cursor is read after, so none is missed.
        published.watching.store(true, Ordering::Release);
        let cursor = last_rowid(&connection)?;
        let (wake, woken) = mpsc::channel();
        let file_watch = watch_files(path, wake.clone())?;
        // A commit between reading the cursor and the kernel's watch taking effect woke nobody:
        // one read now finds it.
        let _ = wake.send(());
        let reader = Reader { connection, cursor, feed, published: Arc::clone(&published) };
        let thread = std::thread::Builder::new()
            .name("switchyard-watch".to_owned())
            .spawn(move || reader.run(&woken))
            .map_err(|error| Error::Io { message: format!("starting the store watcher thread: {error}") })?;
        Ok(Watcher { file_watch: Some(file_watch), thread: Some(thread), published })
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        drop(self.file_watch.take());
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the store watcher thread panicked");
        }
        self.published.watching.store(false, Ordering::Release);
        self.published.own().clear();
    }
}

/// Watches the folder holding the store (the WAL is deleted and created again as processes come
/// and go, which a watch on the file itself would not survive), keeping the store's own files.
fn watch_files(path: &Path, wake: mpsc::Sender<()>) -> Result<notify::RecommendedWatcher, Error> {
    let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let store = path.file_name().map(std::ffi::OsStr::to_owned).unwrap_or_default();
    let mut wal = store.clone();
    wal.push("-wal");
    let watched: [PathBuf; 2] = [PathBuf::from(store), PathBuf::from(wal)];
    let handler = move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        // Opening and closing the file (a reader connecting) changes nothing.
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        let ours = event.paths.iter().any(|changed| {
            changed.file_name().is_some_and(|name| watched.iter().any(|watched| watched.as_os_str() == name))
        });
        if ours {
            let _ = wake.send(());
        }
    };
    let failed = |error: notify::Error| Error::Io {
        message: format!("watching {} for other processes' commits: {error}", folder.display()),
    };
    let mut file_watch = notify::recommended_watcher(handler).map_err(failed)?;
    file_watch.watch(folder, RecursiveMode::NonRecursive).map_err(failed)?;
    Ok(file_watch)
}

fn last_rowid(connection: &Connection) -> Result<i64, Error> {
    connection
        .query_row("SELECT coalesce(max(rowid), 0) FROM events", [], |row| row.get(0))
        .doing("reading where the event log ends")
}

/// The watcher thread's side: its own read connection and how far it has read.
struct Reader {
    connection: Connection,
    cursor: i64,
    feed: Feed,
    published: Arc<Published>,
}

impl Reader {
    /// Runs until the file watch is dropped.
    fn run(mut self, woken: &mpsc::Receiver<()>) {
        let mut settle_checks = SETTLE_CHECKS.len();
        loop {
            match SETTLE_CHECKS.get(settle_checks) {
                Some(quiet) => match woken.recv_timeout(*quiet) {
                    Ok(()) => {}
                    Err(RecvTimeoutError::Timeout) => {
                        settle_checks += 1;
                        self.publish_new();
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return,
                },
                None => {
                    if woken.recv().is_err() {
                        return;
                    }
                }
            }
            // One read for a burst of file events: take every wake already queued.
            woken.try_iter().for_each(drop);
            self.publish_new();
            settle_checks = 0;
        }
    }

    fn publish_new(&mut self) {
        match self.read_new() {
            Ok(ends) => {
                for change in self.published.foreign(ends) {
                    self.feed.publish(change);
                }
            }
            // The next write wakes the watcher again and reads from the same cursor.
            Err(error) => tracing::warn!(%error, "reading other processes' commits failed"),
        }
    }

    /// Each session's last sequence number among the events appended since the cursor.
    fn read_new(&mut self) -> Result<HashMap<SessionId, u64>, Error> {
        let mut ends = HashMap::new();
        loop {
            let mut statement =
                self.connection.prepare_cached(EVENTS_AFTER_ROWID).doing("preparing the read of new events")?;
            let mut rows =
                statement.query(params![self.cursor, ROWS_PER_READ]).doing("reading the events appended since")?;
            let mut read = 0;
            while let Some(row) = rows.next().doing("reading the events appended since")? {
                let decoder = decoder(row, "events");
                let session: SessionId = decoder.parse(0, "session")?;
                let seq = decoder.count(1, "seq")?;
                self.cursor = decoder.integer(2, "rowid")?;
                let end = ends.entry(session).or_insert(seq);
                *end = (*end).max(seq);
                read += 1;
            }
            if read < ROWS_PER_READ {
                return Ok(ends);
            }
        }
    }
}
