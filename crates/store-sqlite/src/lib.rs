//! The embedded SQLite backend of the switchyard store: one file in WAL mode, one writer thread
//! doing grouped commits, a small pool of read connections.
//!
//! Several processes may share the file: every sequence number and previous hash is read inside
//! the `BEGIN IMMEDIATE` write transaction, and idempotency keys are primary keys.

mod checkpoint;
mod rows;
mod schema;
mod search;
mod sql_error;
mod verify;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;
use tokio::sync::oneshot;

use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_core::token::Nonce;
use switchyard_core::workflow::{Workflow, WorkflowHash};
use switchyard_store::{
    Appended, Batch, Error, NodeRecord, RecapEntry, Recorded, RunRecord, SearchHit, SearchQuery, SessionQuery,
    SessionRecord, Store, StoredEvent, TokenRecord, TokenScope, VerifyReport,
};

pub use schema::SCHEMA_VERSION;

use writer::{Counters, Job, Writer};

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
    /// Requests (appends, token claims, rebuilds) handed to the writer.
    pub requests: u64,
    /// Transactions committed; several requests share one when they arrive together.
    pub commits: u64,
    /// Checkpoints the background checkpoint thread ran.
    pub background_checkpoints: u64,
}

/// Held writes: while it lives, the writer starts no transaction and requests queue up.
#[derive(Debug)]
pub struct WritePause<'a> {
    _guard: tokio::sync::MutexGuard<'a, ()>,
}

#[derive(Debug)]
struct ReadPool {
    connections: Vec<Mutex<Connection>>,
    next: AtomicUsize,
}

impl ReadPool {
    fn with<T>(&self, read: impl FnOnce(&mut Connection) -> Result<T, Error>) -> Result<T, Error> {
        let index = self.next.fetch_add(1, Ordering::Relaxed) % self.connections.len();
        // A panic while holding a connection leaves it usable: SQLite state lives in the file.
        let mut connection = self.connections[index].lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        read(&mut connection)
    }

    /// A connection nobody is using, if there is one.
    fn idle(&self) -> Option<MutexGuard<'_, Connection>> {
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        (0..self.connections.len()).find_map(|offset| {
            match self.connections[(start + offset) % self.connections.len()].try_lock() {
                Ok(connection) => Some(connection),
                Err(TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
                Err(TryLockError::WouldBlock) => None,
            }
        })
    }
}

/// A switchyard store in one SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    jobs: Option<mpsc::Sender<Job>>,
    writer: Option<JoinHandle<()>>,
    /// `None` only while dropping: readers close before the writer (see `Drop`).
    readers: Option<Arc<ReadPool>>,
    counters: Arc<Counters>,
    gate: Arc<tokio::sync::Mutex<()>>,
}

impl SqliteStore {
    /// Opens (creating if needed) the store at `path`: WAL, `synchronous=FULL`, foreign keys, the
    /// busy timeout, and the schema, refusing a schema newer than this build.
    pub fn open(path: &Path, options: SqliteOptions) -> Result<SqliteStore, Error> {
        let connection = schema::open_writer(path, options.busy_timeout)?;
        let readers = (0..options.read_connections.max(1))
            .map(|_| schema::open_reader(path, options.busy_timeout).map(Mutex::new))
            .collect::<Result<Vec<_>, Error>>()?;
        let (sender, receiver) = mpsc::channel();
        let counters = Arc::new(Counters::default());
        let gate = Arc::new(tokio::sync::Mutex::new(()));
        let checkpointer = checkpoint::Checkpointer::start(path, options.busy_timeout, Arc::clone(&counters))?;
        let writer = Writer {
            connection,
            jobs: receiver,
            max_group: options.max_group.max(1),
            counters: Arc::clone(&counters),
            gate: Arc::clone(&gate),
            checkpointer,
        };
        let handle = std::thread::Builder::new()
            .name("switchyard-store-writer".to_owned())
            .spawn(move || writer.run())
            .map_err(|error| Error::Io { message: format!("starting the writer thread: {error}") })?;
        Ok(SqliteStore {
            path: path.to_owned(),
            jobs: Some(sender),
            writer: Some(handle),
            readers: Some(Arc::new(ReadPool { connections: readers, next: AtomicUsize::new(0) })),
            counters,
            gate,
        })
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn write_stats(&self) -> WriteStats {
        WriteStats {
            requests: self.counters.requests.load(Ordering::SeqCst),
            commits: self.counters.transactions.load(Ordering::SeqCst),
            background_checkpoints: self.counters.checkpoints.load(Ordering::SeqCst),
        }
    }

    /// Holds writes until the returned value is dropped: the writer finishes the transaction in
    /// progress, then waits; requests queue up and are committed together afterwards. Useful for
    /// copying the file, and for observing grouped commits deterministically.
    pub async fn pause_writes(&self) -> WritePause<'_> {
        WritePause { _guard: self.gate.lock().await }
    }

    async fn write<T>(&self, job: impl FnOnce(oneshot::Sender<Result<T, Error>>) -> Job) -> Result<T, Error> {
        let closed = || Error::Closed { message: format!("the writer of {} has stopped", self.path.display()) };
        let (reply, answer) = oneshot::channel();
        let jobs = self.jobs.as_ref().ok_or_else(closed)?;
        jobs.send(job(reply)).map_err(|_| closed())?;
        self.counters.requests.fetch_add(1, Ordering::SeqCst);
        answer.await.map_err(|_| closed())?
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

    /// Runs a point lookup (a few rows by key, tens of microseconds) on the caller's thread, on
    /// an idle connection: cheaper than handing it to a blocking thread and waking the caller
    /// again, which every advance would pay twice. With every connection busy, it waits on a
    /// blocking thread like any read.
    async fn lookup<T: Send + 'static>(
        &self,
        read: impl FnOnce(&mut Connection) -> Result<T, Error> + Send + 'static,
    ) -> Result<T, Error> {
        if let Some(mut connection) = self.readers()?.idle() {
            return read(&mut connection);
        }
        self.read(read).await
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        // Read-only connections can neither checkpoint nor remove the WAL when they close, so they
        // close first; the writer, closing last, checkpoints and removes it (see `Writer::run`).
        drop(self.readers.take());
        // Closing the channel lets the writer finish what is queued and stop.
        drop(self.jobs.take());
        if let Some(writer) = self.writer.take()
            && writer.join().is_err()
        {
            tracing::error!(path = %self.path.display(), "the store writer thread panicked");
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
        self.lookup(move |connection| {
            let Some(token) = rows::token(connection, nonce)? else { return Ok(None) };
            let run = rows::run(connection, token.run)?;
            let session = rows::session(connection, token.session)?;
            let node = rows::node(connection, token.node)?;
            Ok(Some(TokenScope { token, run, session, node }))
        })
        .await
    }

    async fn recorded(&self, key: &str) -> Result<Option<Recorded>, Error> {
        let key = key.to_owned();
        self.lookup(move |connection| rows::recorded(connection, &key)).await
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
        self.read(move |connection| search::search(connection, &query)).await
    }

    async fn recap(&self, node: NodeId, max_nodes: u32) -> Result<Vec<RecapEntry>, Error> {
        self.read(move |connection| search::recap(connection, node, max_nodes)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(size: usize) -> ReadPool {
        let connections = (0..size).map(|_| Mutex::new(Connection::open_in_memory().unwrap())).collect();
        ReadPool { connections, next: AtomicUsize::new(0) }
    }

    #[test]
    fn a_lookup_takes_an_idle_connection_and_never_waits_for_a_busy_one() {
        let pool = pool(2);
        let busy = pool.connections[0].lock().unwrap();
        for _ in 0..4 {
            let idle = pool.idle().expect("the second connection is idle");
            assert!(pool.connections[1].try_lock().is_err(), "the idle one handed out is the second");
            drop(idle);
        }
        let other = pool.connections[1].lock().unwrap();
        assert!(pool.idle().is_none(), "every connection is busy: the lookup goes to a blocking thread");
        drop((busy, other));
        assert!(pool.idle().is_some());
    }
}
