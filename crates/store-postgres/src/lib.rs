//! The PostgreSQL backend of the switchyard store, for teams: several switchyard servers share one
//! database, which serialises their writes per session and tells each what the others commit.
//!
//! The client is `tokio-postgres` with a `deadpool-postgres` pool. Against `sqlx`: it builds in a
//! fraction of the time, leaves the SQLite store free to pick its `rusqlite` version (sqlx links
//! its own SQLite), hands notifications straight from the connection (`LISTEN/NOTIFY` needs no
//! extra listener type), and every query here is a runtime query anyway, which is all sqlx's
//! compile-time checking would have offered over it. The pool waits a bounded time for a
//! connection and then answers `STORE_BUSY`.
//!
//! Guarantees, the same as SQLite's: a batch's events, projections, text index, idempotency claim,
//! tokens and pin commit in one transaction; appends to one session are serialised by a row lock
//! on the session's head (see `writer.rs`), so sequence numbers and the hash chain stay gap-free
//! whatever number of servers append at once; the projections come from the one rule set,
//! [`switchyard_store::projection::Projector`]. A connection lost mid-command leaves the batch
//! committed whole or not at all, and the command fails with the retryable `STORE_UNAVAILABLE`.

mod copy;
mod listen;
mod password;
mod pg_error;
mod rows;
mod schema;
mod search;
mod tls;
mod verify;
mod writer;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime};
use tokio_postgres::IsolationLevel;
use tokio_postgres::config::Host;

use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_core::token::Nonce;
use switchyard_core::workflow::{Workflow, WorkflowHash};
use switchyard_store::{
    Appended, Batch, Change, Changes, Error, Feed, NodeRecord, RecapEntry, Recorded, RunRecord, SearchHit, SearchQuery,
    SessionCopy, SessionQuery, SessionRecord, Store, StoredEvent, TokenRecord, TokenScope, VerifyReport,
};

pub use schema::{SCHEMA_VERSION, schema_v1};
pub use search::newest_of_lexemes_sql;

use listen::Listener;
use pg_error::Context;
use tls::Tls;

/// How long `subscribe` waits for the change listener to be in force before answering anyway:
/// long enough to connect on a busy server, short enough that a page or a runner never hangs on a
/// database that is down (its own commands fail then, saying so).
const LISTEN_WAIT: Duration = Duration::from_secs(5);

/// How to open a store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PostgresOptions {
    /// The most connections this store holds (at least 1), besides its change listener's.
    pub pool_size: usize,
    /// How long a command waits for a free pooled connection before `STORE_BUSY`.
    pub wait_timeout: Duration,
    /// How long connecting to the server may take before `STORE_UNAVAILABLE`.
    pub connect_timeout: Duration,
    /// The password file read when the URL has no password and `PGPASSWORD` is unset; `None`:
    /// `PGPASSFILE`, else `~/.pgpass`.
    pub password_file: Option<PathBuf>,
}

impl Default for PostgresOptions {
    fn default() -> Self {
        Self {
            pool_size: 16,
            wait_timeout: Duration::from_secs(5),
            connect_timeout: Duration::from_secs(5),
            password_file: None,
        }
    }
}

/// A switchyard store in a PostgreSQL database.
#[derive(Debug)]
pub struct PostgresStore {
    pool: Pool,
    config: tokio_postgres::Config,
    /// Where the store is, for messages: user, host, port and database, never the password.
    target: String,
    options: PostgresOptions,
    /// TLS as the URL asks for it; the pool's and the listener's connections both use it.
    tls: Tls,
    /// Tags this store's change notices, so its listener skips what it published itself.
    instance: String,
    feed: Feed,
    listener: OnceLock<Option<Listener>>,
}

/// `user@host:port/database` of a connection configuration: what messages name, never the
/// password.
pub fn describe_target(config: &tokio_postgres::Config) -> String {
    let hosts: Vec<String> = config
        .get_hosts()
        .iter()
        .map(|host| match host {
            Host::Tcp(name) => name.clone(),
            Host::Unix(path) => path.display().to_string(),
        })
        .collect();
    let hosts = if hosts.is_empty() { "localhost".to_owned() } else { hosts.join(",") };
    let ports: Vec<String> = config.get_ports().iter().map(u16::to_string).collect();
    let port = if ports.is_empty() { "5432".to_owned() } else { ports.join(",") };
    let user = config.get_user().unwrap_or("(default user)");
    let database = config.get_dbname().unwrap_or(user);
    format!("postgres://{user}@{hosts}:{port}/{database}")
}

/// `user@host:port/database` of a store URL, for messages and settings (never the password); a
/// URL that does not parse is described as such, without repeating it.
pub fn describe_url(url: &str) -> String {
    match tls::parse(url) {
        Ok((config, _)) => describe_target(&config),
        Err(_) => "(an unreadable PostgreSQL URL)".to_owned(),
    }
}

/// Whether `url` is a connection string the store can open; the error says what is wrong with it
/// without repeating it (it may hold a password). The TLS keys are read too (`sslmode`, with
/// `verify-ca` and `verify-full`, and `sslrootcert`); the root file is read when the store opens.
pub fn check_url(url: &str) -> Result<(), String> {
    tls::parse(url).map(drop)
}

fn instance_tag() -> String {
    static OPENED: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos());
    format!("{}-{nanos:x}-{}", std::process::id(), OPENED.fetch_add(1, Ordering::Relaxed))
}

impl PostgresStore {
    /// Opens the store in the database `url` names (`postgres://user:password@host:port/db`, or
    /// the `key=value` form; without a password in it, from `PGPASSWORD` or the password file, see
    /// [`PostgresOptions::password_file`]; TLS as its `sslmode` and `sslrootcert` ask, libpq's
    /// way, `prefer` when it names no mode): connects, refuses a read-only server (a replica in recovery, or
    /// `default_transaction_read_only`), and applies the schema migrations this build has, refusing
    /// a schema newer than it.
    pub async fn open(url: &str, options: PostgresOptions) -> Result<PostgresStore, Error> {
        let (mut config, tls) = tls::parse(url).map_err(|problem| Error::Io {
            message: format!(
                "the store URL is not a PostgreSQL connection string ({problem}); write it as postgres://user@host:port/database?sslmode=verify-full"
            ),
        })?;
        if config.get_password().is_none()
            && let Some(password) = password::find(&config, options.password_file.as_deref())
        {
            config.password(password);
        }
        config.connect_timeout(options.connect_timeout);
        if config.get_application_name().is_none() {
            config.application_name("switchyard");
        }
        let target = describe_target(&config);
        let tls = tls.connector().map_err(|problem| Error::Io { message: format!("TLS to {target}: {problem}") })?;
        let manager = Manager::from_config(
            config.clone(),
            tls.connector.clone(),
            ManagerConfig { recycling_method: RecyclingMethod::Fast },
        );
        let pool = Pool::builder(manager)
            .max_size(options.pool_size.max(1))
            .wait_timeout(Some(options.wait_timeout))
            .create_timeout(Some(options.connect_timeout))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|error| Error::Io { message: format!("creating the connection pool to {target}: {error}") })?;
        let store = PostgresStore {
            pool,
            config,
            target,
            options,
            tls,
            instance: instance_tag(),
            feed: Feed::default(),
            listener: OnceLock::new(),
        };
        let mut client = store.client().await?;
        store.refuse_read_only(&client).await?;
        schema::migrate(&mut client).await?;
        Ok(store)
    }

    /// Where the store is: `postgres://user@host:port/database`, without the password.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Waits until this store hears the other servers' commits (its change listener's `LISTEN` is
    /// in force), starting the listener if no one subscribed yet. Returns at once outside a tokio
    /// runtime, where no listener can run.
    pub async fn listening(&self) {
        if let Some(listener) = self.listener() {
            listener.ready().await;
        }
    }

    fn listener(&self) -> Option<&Listener> {
        self.listener
            .get_or_init(|| match tokio::runtime::Handle::try_current() {
                Ok(runtime) => Some(Listener::start(
                    &runtime,
                    self.config.clone(),
                    self.tls.connector.clone(),
                    self.target.clone(),
                    self.feed.clone(),
                    self.instance.clone(),
                )),
                Err(_) => {
                    tracing::warn!(target = %self.target, "subscribed outside a tokio runtime: only this process's commits are published");
                    None
                }
            })
            .as_ref()
    }

    async fn client(&self) -> Result<Object, Error> {
        self.pool.get().await.map_err(|error| {
            pg_error::pool(error, &self.target, self.options.wait_timeout, |error| self.tls.explain(error))
        })
    }

    async fn refuse_read_only(&self, client: &Object) -> Result<(), Error> {
        let row = client
            .query_one("SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'", &[])
            .await
            .doing(&format!("checking that {} can be written", self.target))?;
        let (in_recovery, read_only): (bool, bool) = (row.get(0), row.get(1));
        let why = if in_recovery {
            "is a standby in recovery (a read-only replica)"
        } else if read_only {
            "answers read-only (default_transaction_read_only is on)"
        } else {
            return Ok(());
        };
        Err(pg_error::read_only(format!("the database {} {why}", self.target)))
    }

    /// A read-only transaction that sees one snapshot for all its statements.
    async fn snapshot<T>(
        &self,
        doing: &str,
        read: impl AsyncFnOnce(&deadpool_postgres::Transaction<'_>) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut client = self.client().await?;
        let transaction = client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
            .await
            .doing(doing)?;
        let value = read(&transaction).await?;
        transaction.commit().await.doing(doing)?;
        Ok(value)
    }
}

#[async_trait::async_trait]
impl Store for PostgresStore {
    async fn append(&self, batch: Batch) -> Result<Appended, Error> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await.doing("starting a write transaction")?;
        let session = batch.session;
        match writer::append(&transaction, batch, &self.instance).await {
            Ok(Appended::Committed { first_seq, last_seq }) => {
                transaction.commit().await.doing("committing")?;
                self.feed.publish(Change { session, last_seq });
                Ok(Appended::Committed { first_seq, last_seq })
            }
            other => {
                // Nothing of the batch is kept; a failed rollback means the connection is gone,
                // which drops the transaction with it.
                let _ = transaction.rollback().await;
                other
            }
        }
    }

    async fn claim_token(&self, record: TokenRecord) -> Result<Nonce, Error> {
        let client = self.client().await?;
        if let Some(existing) = rows::token_at(&client, &record).await? {
            return Ok(existing.nonce);
        }
        writer::claim_token(&client, &record).await
    }

    async fn token(&self, nonce: Nonce) -> Result<Option<TokenRecord>, Error> {
        rows::token(&self.client().await?, nonce).await
    }

    async fn token_scope(&self, nonce: Nonce) -> Result<Option<TokenScope>, Error> {
        rows::token_scope(&self.client().await?, nonce).await
    }

    async fn recorded(&self, session: SessionId, key: &str) -> Result<Option<Recorded>, Error> {
        rows::recorded(&self.client().await?, session, key).await
    }

    async fn workflow(&self, hash: WorkflowHash) -> Result<Option<Workflow>, Error> {
        rows::workflow(&self.client().await?, hash).await
    }

    async fn session(&self, id: SessionId) -> Result<Option<SessionRecord>, Error> {
        rows::session(&self.client().await?, id).await
    }

    async fn run(&self, id: RunId) -> Result<Option<RunRecord>, Error> {
        rows::run(&self.client().await?, id).await
    }

    async fn node(&self, id: NodeId) -> Result<Option<NodeRecord>, Error> {
        rows::node(&self.client().await?, id).await
    }

    async fn run_nodes(&self, run: RunId) -> Result<Vec<NodeRecord>, Error> {
        rows::run_nodes(&self.client().await?, run).await
    }

    async fn list_sessions(&self, query: SessionQuery) -> Result<Vec<SessionRecord>, Error> {
        rows::list_sessions(&self.client().await?, &query).await
    }

    async fn session_workflow_ids(&self, limit: u32) -> Result<Vec<String>, Error> {
        rows::session_workflow_ids(&self.client().await?, limit).await
    }

    async fn events(&self, session: SessionId, after_seq: u64, limit: u32) -> Result<Vec<StoredEvent>, Error> {
        rows::events(&self.client().await?, session, after_seq, limit).await
    }

    async fn verify(&self) -> Result<VerifyReport, Error> {
        self.snapshot("verifying the store", async |transaction| verify::verify(transaction).await).await
    }

    async fn rebuild_projections(&self) -> Result<(), Error> {
        let mut client = self.client().await?;
        let transaction = client.transaction().await.doing("starting the rebuild")?;
        writer::rebuild(&transaction).await?;
        transaction.commit().await.doing("committing the rebuild")
    }

    async fn search_sessions(&self, query: SearchQuery) -> Result<Vec<SearchHit>, Error> {
        self.snapshot("searching sessions", async |transaction| search::search(transaction, &query).await).await
    }

    async fn recap(&self, node: NodeId, max_nodes: u32) -> Result<Vec<RecapEntry>, Error> {
        search::recap(&self.client().await?, node, max_nodes).await
    }

    async fn subscribe(&self) -> Changes {
        // Subscribe before the listener starts, so nothing it publishes is missed; answer once it
        // listens, so nothing another server commits from now on is missed either.
        let changes = self.feed.subscribe();
        if let Some(listener) = self.listener()
            && tokio::time::timeout(LISTEN_WAIT, listener.ready()).await.is_err()
        {
            tracing::warn!(target = %self.target, "the change listener is not listening yet (is the database reachable?): other servers' commits reach subscribers once it is");
        }
        changes
    }

    async fn copied_sessions(&self, after: Option<SessionId>, limit: u32) -> Result<Vec<SessionId>, Error> {
        copy::copied_sessions(&self.client().await?, after, limit).await
    }

    async fn export_session(&self, session: SessionId) -> Result<Option<SessionCopy>, Error> {
        self.snapshot("reading a session to copy", async |transaction| copy::export(transaction, session).await).await
    }

    async fn import_session(&self, copy: SessionCopy) -> Result<(), Error> {
        let session = copy.session;
        let mut client = self.client().await?;
        let transaction = client.transaction().await.doing("starting the import of a session")?;
        match writer::import(&transaction, copy, &self.instance).await {
            Ok(last_seq) => {
                transaction.commit().await.doing("committing the import of a session")?;
                self.feed.publish(Change { session, last_seq });
                Ok(())
            }
            Err(error) => {
                // Nothing of the session is kept; a failed rollback means the connection is gone.
                let _ = transaction.rollback().await;
                Err(error)
            }
        }
    }
}
