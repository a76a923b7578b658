//! The embedded SQLite backend of the switchyard store: one file in WAL mode, one writer thread
//! doing grouped commits (a write that finds it idle commits on its caller's thread), a small pool
//! of read connections.
//!
//! Several processes may share the file: every sequence number and previous hash is read inside
//! the `BEGIN IMMEDIATE` write transaction, and idempotency keys are primary keys.

mod checkpoint;
mod copy;
mod rows;
mod schema;
mod search;
mod sql_error;
mod verify;
mod watch;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, TryLockError, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;
use tokio::sync::oneshot;

use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_core::token::Nonce;
use switchyard_core::workflow::{Workflow, WorkflowHash};
use switchyard_store::{
    Appended, Batch, Changes, Error, Feed, NodeRecord, RecapEntry, Recorded, RunRecord, SearchHit, SearchQuery,
    SessionCopy, SessionQuery, SessionRecord, Store, StoredEvent, TokenRecord, TokenScope, VerifyReport,
};

pub use schema::{SCHEMA_VERSION, schema_v1};
pub use search::INDEX_BATCH;

use sql_error::Context;
use writer::{Core, Job, Reply, Shared, Writer};

/// Counters the store exposes.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) requests: AtomicU64,
    /// Requests run on the caller's own thread, which found the writer idle.
    pub(crate) on_caller_thread: AtomicU64,
    pub(crate) transactions: AtomicU64,
    /// Passes of the background checkpoint thread, finished or stopped early.
    pub(crate) checkpoints: AtomicU64,
    /// Checkpoints the writer ran after its own commit.
    pub(crate) inline_checkpoints: AtomicU64,
}

/// How to open a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqliteOptions {
    /// Read connections in the pool (at least 1).
    pub read_connections: usize,
    /// How long a write waits for another process's write lock before `STORE_BUSY`.
    pub busy_timeout: Duration,
    /// The most requests one grouped commit takes.
    pub max_group: usize,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        Self { read_connections: 4, busy_timeout: Duration::from_secs(5), max_group: 256 }
    }
}

/// What the writer has done since the store was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WriteStats {
    /// Write requests (appends, token claims, rebuilds, imports), wherever they ran.
    pub requests: u64,
    /// Requests run on the caller's own thread, which found the writer idle (each in a transaction
    /// of its own); the others went to the writer thread.
    pub on_caller_thread: u64,
    /// Transactions committed; several requests share one when they arrive together.
    pub commits: u64,
    /// Checkpoint passes the background checkpoint thread ran.
    pub background_checkpoints: u64,
    /// Checkpoints the writer ran after its own commit, copying what a background pass left.
    pub inline_checkpoints: u64,
}

/// Held writes: while it lives, the writer starts no transaction and requests queue up.
#[derive(Debug)]
pub struct WritePause<'a> {
    _guard: tokio::sync::MutexGuard<'a, ()>,
}

/// The read-only connections. The first opens with the store, so a file that cannot be read fails
/// `open`; the others open when a read first finds every open one busy, so a process that reads one
/// thing at a time holds one reader (each costs its lookaside buffers and schema).
#[derive(Debug)]
struct ReadPool {
    path: PathBuf,
    busy_timeout: Duration,
    connections: Vec<Mutex<Option<Connection>>>,
    next: AtomicUsize,
}

impl ReadPool {
    fn open(path: &Path, busy_timeout: Duration, size: usize) -> Result<ReadPool, Error> {
        let first = schema::open_reader(path, busy_timeout)?;
        let connections = std::iter::once(Some(first)).chain(std::iter::repeat_with(|| None)).take(size.max(1));
        Ok(ReadPool {
            path: path.to_owned(),
            busy_timeout,
            connections: connections.map(Mutex::new).collect(),
            next: AtomicUsize::new(0),
        })
    }

    fn with<T>(&self, read: impl FnOnce(&mut Connection) -> Result<T, Error>) -> Result<T, Error> {
        let mut slot = match self.idle() {
            Some(slot) => slot,
            None => {
                let index = self.next.fetch_add(1, Ordering::Relaxed) % self.connections.len();
                // A panic while holding a connection leaves it usable: SQLite state is in the file.
                self.connections[index].lock().unwrap_or_else(|poisoned| poisoned.into_inner())
            }
        };
        read(self.opened(&mut slot)?)
    }

    /// The first connection nobody is using, opened ones first, if there is one.
    fn idle(&self) -> Option<MutexGuard<'_, Option<Connection>>> {
        let mut unopened = None;
        for slot in &self.connections {
            let slot = match slot.try_lock() {
                Ok(slot) => slot,
                Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => continue,
            };
            if slot.is_some() {
                return Some(slot);
            }
            unopened = unopened.or(Some(slot));
        }
        unopened
    }

    fn opened<'a>(&self, slot: &'a mut Option<Connection>) -> Result<&'a mut Connection, Error> {
        if slot.is_none() {
            *slot = Some(schema::open_reader(&self.path, self.busy_timeout)?);
        }
        Ok(slot.as_mut().expect("opened just above"))
    }
}

/// The way to a store's writer: its queue, the connection an idle writer lets a caller commit on,
/// and its thread.
#[derive(Debug)]
struct WriterHandle {
    jobs: mpsc::Sender<Job>,
    shared: Arc<Shared>,
    thread: JoinHandle<()>,
}

/// A switchyard store in one SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    /// `None` when the store was opened for reading only, and while dropping.
    writer: Option<WriterHandle>,
    /// `None` only while dropping: readers close before the writer (see `Drop`).
    readers: Option<Arc<ReadPool>>,
    counters: Arc<Counters>,
    gate: Arc<tokio::sync::Mutex<()>>,
    /// Why the store could not be opened for writing, when it was opened for reading only; every
    /// write is refused with it.
    read_only: Option<String>,
    /// Changes this store commits; see [`Store::subscribe`].
    feed: Feed,
    /// What this process's writer published, for the watcher to leave out.
    published: Arc<watch::Published>,
    /// Other processes' commits to the same file, watched from the first `subscribe` on.
    watcher: OnceLock<Option<watch::Watcher>>,
    busy_timeout: Duration,
}

/// Why the store at `path`, which exists, cannot be written (the file system is mounted read-only,
/// or the file or its folder is not writable by this user); `None` if it can be, or does not exist.
fn unwritable(path: &Path) -> Option<String> {
    use rustix::fs::{Access, access};
    if !path.is_file() {
        return None;
    }
    let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
    // The folder too: SQLite creates the `-wal` and `-shm` files beside the store.
    for checked in [path, folder] {
        match access(checked, Access::WRITE_OK) {
            Ok(()) => {}
            Err(rustix::io::Errno::ROFS) => {
                return Some(format!("the file system holding {} is mounted read-only", path.display()));
            }
            Err(rustix::io::Errno::ACCESS | rustix::io::Errno::PERM) => {
                return Some(format!("{} is not writable by this user", checked.display()));
            }
            Err(_) => {}
        }
    }
    None
}

/// The URI SQLite opens a store with that no process can be writing: `immutable=1`, since a
/// WAL-mode file on read-only media cannot have its shared-memory index created.
fn immutable_uri(path: &Path) -> PathBuf {
    let mut uri = String::from("file:");
    for character in path.display().to_string().chars() {
        match character {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            other => uri.push(other),
        }
    }
    uri.push_str("?immutable=1");
    PathBuf::from(uri)
}

impl SqliteStore {
    /// Opens for reading only a store that cannot be written (`reason` says why): reads work,
    /// writes are refused with `STORE_READ_ONLY`. Without a WAL left beside it, everything is in
    /// the main file and it opens immutable; with one (a writer stopped without checkpointing),
    /// SQLite reads through it.
    fn open_read_only(path: &Path, options: SqliteOptions, reason: String) -> Result<SqliteStore, Error> {
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let has_wal = std::fs::metadata(&wal).is_ok_and(|metadata| metadata.len() > 0);
        let opened = if has_wal { path.to_owned() } else { immutable_uri(path) };
        let readers = ReadPool::open(&opened, options.busy_timeout, options.read_connections)?;
        let version: i64 = readers.with(|connection| {
            connection
                .query_row("SELECT version FROM schema_version WHERE singleton = 1", [], |row| row.get(0))
                .doing("reading the schema version")
        })?;
        if version > SCHEMA_VERSION {
            return Err(Error::SchemaTooNew { found: version, supported: SCHEMA_VERSION });
        }
        tracing::info!(path = %path.display(), %reason, "the store is opened for reading only");
        Ok(SqliteStore {
            path: path.to_owned(),
            writer: None,
            readers: Some(Arc::new(readers)),
            counters: Arc::new(Counters::default()),
            gate: Arc::new(tokio::sync::Mutex::new(())),
            read_only: Some(reason),
            feed: Feed::default(),
            published: Arc::default(),
            watcher: OnceLock::new(),
            busy_timeout: options.busy_timeout,
        })
    }

    /// Opens (creating if needed) the store at `path`: WAL, `synchronous=FULL`, foreign keys, the
    /// busy timeout, and the schema, refusing a schema newer than this build.
    ///
    /// A store that exists but cannot be written (a read-only mount, no write permission) opens
    /// for reading only; its writes are refused with `STORE_READ_ONLY` saying why.
    pub fn open(path: &Path, options: SqliteOptions) -> Result<SqliteStore, Error> {
        let connection = match schema::open_writer(path, options.busy_timeout) {
            Ok(connection) => connection,
            Err(error) => match unwritable(path) {
                Some(reason) => return Self::open_read_only(path, options, reason),
                None => return Err(error),
            },
        };
        let readers = ReadPool::open(path, options.busy_timeout, options.read_connections)?;
        let (sender, receiver) = mpsc::channel();
        let counters = Arc::new(Counters::default());
        let gate = Arc::new(tokio::sync::Mutex::new(()));
        let feed = Feed::default();
        let published = Arc::new(watch::Published::default());
        let checkpointer = checkpoint::Checkpointer::start(path, options.busy_timeout, Arc::clone(&counters))?;
        let cycle = Some(checkpointer.attach(&connection));
        let shared = Arc::new(Shared {
            core: Mutex::new(Core { connection, cycle }),
            max_group: options.max_group.max(1),
            counters: Arc::clone(&counters),
            gate: Arc::clone(&gate),
            feed: feed.clone(),
            published: Arc::clone(&published),
        });
        let writer = Writer { shared: Arc::clone(&shared), jobs: receiver, checkpointer };
        let thread = std::thread::Builder::new()
            .name("switchyard-store-writer".to_owned())
            .spawn(move || writer.run())
            .map_err(|error| Error::Io { message: format!("starting the writer thread: {error}") })?;
        Ok(SqliteStore {
            path: path.to_owned(),
            writer: Some(WriterHandle { jobs: sender, shared, thread }),
            readers: Some(Arc::new(readers)),
            counters,
            gate,
            read_only: None,
            feed,
            published,
            watcher: OnceLock::new(),
            busy_timeout: options.busy_timeout,
        })
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn write_stats(&self) -> WriteStats {
        WriteStats {
            requests: self.counters.requests.load(Ordering::SeqCst),
            on_caller_thread: self.counters.on_caller_thread.load(Ordering::SeqCst),
            commits: self.counters.transactions.load(Ordering::SeqCst),
            background_checkpoints: self.counters.checkpoints.load(Ordering::SeqCst),
            inline_checkpoints: self.counters.inline_checkpoints.load(Ordering::SeqCst),
        }
    }

    /// Holds writes until the returned value is dropped: the writer finishes the transaction in
    /// progress, then waits; requests queue up and are committed together afterwards. Useful for
    /// copying the file, and for observing grouped commits deterministically.
    pub async fn pause_writes(&self) -> WritePause<'_> {
        WritePause { _guard: self.gate.lock().await }
    }

    async fn write<T>(&self, job: impl FnOnce(Reply<T>) -> Job) -> Result<T, Error> {
        if let Some(reason) = &self.read_only {
            return Err(sql_error::read_only(format!("{reason}, so the store was opened for reading only")));
        }
        let closed = || Error::Closed { message: format!("the writer of {} has stopped", self.path.display()) };
        let (reply, answer) = oneshot::channel();
        let writer = self.writer.as_ref().ok_or_else(closed)?;
        if let Some(job) = writer.shared.commit_here(job(Reply::new(reply))) {
            writer.jobs.send(job).map_err(|_| closed())?;
        }
        self.counters.requests.fetch_add(1, Ordering::SeqCst);
        answer.await.map_err(|_| closed())?
    }

    /// Whether a watcher of other processes' commits is running (it starts with the first
    /// `subscribe`, and not at all on a store opened for reading only, which nobody can write).
    pub fn watches_other_processes(&self) -> bool {
        self.watcher.get().is_some_and(Option::is_some)
    }

    fn start_watcher(&self) -> Option<watch::Watcher> {
        if self.read_only.is_some() {
            return None;
        }
        let started =
            watch::Watcher::start(&self.path, self.busy_timeout, self.feed.clone(), Arc::clone(&self.published));
        match started {
            Ok(watcher) => Some(watcher),
            Err(error) => {
                // Subscribers still hear this process's own commits.
                tracing::warn!(path = %self.path.display(), %error, "other processes' commits will not be seen live");
                None
            }
        }
    }

    fn readers(&self) -> Result<&Arc<ReadPool>, Error> {
        self.readers
            .as_ref()
            .ok_or_else(|| Error::Closed { message: format!("the store {} is closed", self.path.display()) })
    }

    /// Runs a read that may take a while (a scan, a search, a verification) on a blocking thread.
    async fn read<T: Send + 'static>(
        &self,
        read: impl FnOnce(&mut Connection) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        let readers = Arc::clone(self.readers()?);
        tokio::task::spawn_blocking(move || readers.with(read))
            .await
            .map_err(|error| Error::Io { message: format!("a read task failed: {error}") })?
    }

    /// Runs a point lookup (a few rows by key) on the caller's thread, on an idle read
    /// connection: it takes less than handing it to a blocking thread and waking the caller
    /// again, and every advance starts with one (its token's scope). With every connection busy,
    /// it waits on a blocking thread like any read.
    async fn lookup<T: Send + 'static>(
        &self,
        read: impl FnOnce(&mut Connection) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        let readers = self.readers()?;
        if let Some(mut slot) = readers.idle() {
            return read(readers.opened(&mut slot)?);
        }
        self.read(read).await
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        // The watcher's connection is a reader too, and it must stop before the file goes.
        drop(self.watcher.take());
        // Read-only connections can neither checkpoint nor remove the WAL when they close, so they
        // close first; the writer, closing last, checkpoints and removes it (see `Writer::run`).
        drop(self.readers.take());
        if let Some(WriterHandle { jobs, shared, thread }) = self.writer.take() {
            // Closing the channel lets the writer finish what is queued and stop.
            drop(jobs);
            if thread.join().is_err() {
                tracing::error!(path = %self.path.display(), "the store writer thread panicked");
            }
            // The writer connection closes last.
            drop(shared);
        }
    }
}

#[async_trait::async_trait]
impl Store for SqliteStore {
    async fn append(&self, batch: Batch) -> Result<Appended, Error> {
        self.write(|reply| Job::Append { batch: Box::new(batch), reply }).await
    }

    async fn claim_token(&self, record: TokenRecord) -> Result<Nonce, Error> {
        // A registered position never changes, so a read answers most claims (a `show` claims
        // the tokens its node already has) without queueing behind the writer's commits.
        let position = record.clone();
        if let Some(existing) = self.lookup(move |connection| rows::token_at(connection, &position)).await? {
            return Ok(existing.nonce);
        }
        self.write(|reply| Job::ClaimToken { record, reply }).await
    }

    async fn token(&self, nonce: Nonce) -> Result<Option<TokenRecord>, Error> {
        self.lookup(move |connection| rows::token(connection, nonce)).await
    }

    async fn token_scope(&self, nonce: Nonce) -> Result<Option<TokenScope>, Error> {
        self.lookup(move |connection| rows::token_scope(connection, nonce)).await
    }

    async fn recorded(&self, session: SessionId, key: &str) -> Result<Option<Recorded>, Error> {
        let key = key.to_owned();
        self.lookup(move |connection| rows::recorded(connection, session, &key)).await
    }

    async fn workflow(&self, hash: WorkflowHash) -> Result<Option<Workflow>, Error> {
        self.lookup(move |connection| rows::workflow(connection, hash)).await
    }

    async fn session(&self, id: SessionId) -> Result<Option<SessionRecord>, Error> {
        self.lookup(move |connection| rows::session(connection, id)).await
    }

    async fn run(&self, id: RunId) -> Result<Option<RunRecord>, Error> {
        self.lookup(move |connection| rows::run(connection, id)).await
    }

    async fn node(&self, id: NodeId) -> Result<Option<NodeRecord>, Error> {
        self.lookup(move |connection| rows::node(connection, id)).await
    }

    async fn run_nodes(&self, run: RunId) -> Result<Vec<NodeRecord>, Error> {
        self.read(move |connection| rows::run_nodes(connection, run)).await
    }

    async fn list_sessions(&self, query: SessionQuery) -> Result<Vec<SessionRecord>, Error> {
        self.read(move |connection| rows::list_sessions(connection, &query)).await
    }

    async fn session_workflow_ids(&self, limit: u32) -> Result<Vec<String>, Error> {
        self.read(move |connection| rows::session_workflow_ids(connection, limit)).await
    }

    async fn events(&self, session: SessionId, after_seq: u64, limit: u32) -> Result<Vec<StoredEvent>, Error> {
        self.read(move |connection| rows::events(connection, session, after_seq, limit)).await
    }

    async fn verify(&self) -> Result<VerifyReport, Error> {
        self.read(verify::verify).await
    }

    async fn rebuild_projections(&self) -> Result<(), Error> {
        self.write(|reply| Job::Rebuild { reply }).await
    }

    async fn search_sessions(&self, query: SearchQuery) -> Result<Vec<SearchHit>, Error> {
        // Texts recorded since the index last took a batch are indexed first, by the writer.
        if self.read_only.is_none() && self.lookup(|connection| search::lagging(connection)).await? {
            self.write(|reply| Job::IndexTexts { reply }).await?;
        }
        self.read(move |connection| search::search(connection, &query)).await
    }

    async fn recap(&self, node: NodeId, max_nodes: u32) -> Result<Vec<RecapEntry>, Error> {
        self.read(move |connection| search::recap(connection, node, max_nodes)).await
    }

    async fn subscribe(&self) -> Changes {
        let changes = self.feed.subscribe();
        self.watcher.get_or_init(|| self.start_watcher());
        changes
    }

    async fn copied_sessions(&self, after: Option<SessionId>, limit: u32) -> Result<Vec<SessionId>, Error> {
        self.read(move |connection| copy::copied_sessions(connection, after, limit)).await
    }

    async fn export_session(&self, session: SessionId) -> Result<Option<SessionCopy>, Error> {
        self.read(move |connection| copy::export(connection, session)).await
    }

    async fn import_session(&self, copy: SessionCopy) -> Result<(), Error> {
        self.write(|reply| Job::Import { copy: Box::new(copy), reply }).await.map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql_error::Context;

    fn pool(size: usize) -> (tempfile::TempDir, ReadPool) {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("store.db");
        Connection::open(&path).unwrap().execute_batch("CREATE TABLE t (x);").unwrap();
        let pool = ReadPool::open(&path, Duration::from_secs(1), size).unwrap();
        (folder, pool)
    }

    fn opened(pool: &ReadPool) -> usize {
        pool.connections.iter().filter(|slot| slot.lock().unwrap().is_some()).count()
    }

    #[test]
    fn reads_one_at_a_time_keep_to_one_connection() {
        let (_folder, pool) = pool(4);
        for _ in 0..8 {
            let rows: i64 = pool
                .with(|connection| {
                    connection.query_row("SELECT count(*) FROM t", [], |row| row.get(0)).doing("counting")
                })
                .unwrap();
            assert_eq!(rows, 0);
            let mut lookup = pool.idle().expect("nothing else reads");
            pool.opened(&mut lookup).unwrap();
        }
        assert_eq!(opened(&pool), 1);
    }

    #[test]
    fn a_lookup_takes_an_idle_connection_and_never_waits_for_a_busy_one() {
        let (_folder, pool) = pool(2);
        assert_eq!(opened(&pool), 1, "only the first reader opens with the store");
        let busy = pool.idle().expect("the first connection is idle");
        let mut idle = pool.idle().expect("the second connection is idle");
        pool.opened(&mut idle).expect("the second connection opens on demand");
        assert!(pool.idle().is_none(), "every connection is busy: the lookup goes to a blocking thread");
        drop((busy, idle));
        assert_eq!(opened(&pool), 2);
        assert!(pool.idle().is_some());
    }

    #[test]
    fn a_reader_that_cannot_open_fails_the_read_with_the_path() {
        let (folder, pool) = pool(2);
        let _busy = pool.idle().unwrap();
        drop(folder);
        let error = pool.with(|_| Ok(())).unwrap_err();
        assert!(error.to_string().contains("store.db"), "{error}");
    }
}
