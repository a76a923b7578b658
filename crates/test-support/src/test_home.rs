//! The one switch that runs the runtime's, the MCP door's and the CLI's integration tests on
//! either store backend: a [`TestHome`] is a temporary `$SWITCHYARD_HOME` whose store is the
//! SQLite file in it, or, with `SWITCHYARD_TEST_BACKEND=postgres`, a PostgreSQL database of its
//! own on the server `SWITCHYARD_TEST_POSTGRES_URL` names, created with the home and dropped with
//! it.
//!
//! The home points at its database through `[store] url` in its own `switchyard.toml`, so
//! whatever opens that home (`Runtime::open`, the binary with `SWITCHYARD_HOME`) uses it, and
//! tests running in parallel never share a process-wide variable.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Chooses the backend of every [`TestHome::new`]: `sqlite` (the default) or `postgres`.
pub const BACKEND_VARIABLE: &str = "SWITCHYARD_TEST_BACKEND";

/// The server the Postgres homes' databases are created on: a URL of a role that may create
/// databases (`.ci/postgres` starts one and prints it).
pub const POSTGRES_URL_VARIABLE: &str = "SWITCHYARD_TEST_POSTGRES_URL";

/// The store backend a test home uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    /// The backend `SWITCHYARD_TEST_BACKEND` chooses; SQLite when it is unset or empty.
    ///
    /// # Panics
    /// On any other value, naming the ones it takes.
    pub fn chosen() -> Backend {
        let value = std::env::var(BACKEND_VARIABLE).unwrap_or_default();
        Backend::parse(&value).unwrap_or_else(|message| panic!("{message}"))
    }

    fn parse(value: &str) -> Result<Backend, String> {
        match value.trim() {
            "" | "sqlite" => Ok(Backend::Sqlite),
            "postgres" => Ok(Backend::Postgres),
            other => {
                Err(format!("{BACKEND_VARIABLE}=`{other}` is not a store backend: set it to `sqlite` or `postgres`"))
            }
        }
    }
}

/// A temporary switchyard home and the store it names, removed (the database dropped) when the
/// test drops it.
#[derive(Debug)]
pub struct TestHome {
    folder: tempfile::TempDir,
    database: Option<TestDatabase>,
}

impl TestHome {
    /// A home on the backend `SWITCHYARD_TEST_BACKEND` chooses.
    pub fn new() -> TestHome {
        match Backend::chosen() {
            Backend::Sqlite => TestHome::sqlite(),
            Backend::Postgres => TestHome::postgres(),
        }
    }

    /// A home whose store is its SQLite file whatever the switch says, for the tests of SQLite
    /// itself (its file on a read-only mount or a full disk, its write-ahead log, its writer).
    pub fn sqlite() -> TestHome {
        TestHome { folder: temporary_folder(), database: None }
    }

    /// A home whose store is a fresh PostgreSQL database, with `[store] url` naming it in the
    /// home's `switchyard.toml`.
    pub fn postgres() -> TestHome {
        let home = TestHome { folder: temporary_folder(), database: Some(TestDatabase::create()) };
        home.write_config("");
        home
    }

    pub fn path(&self) -> &Path {
        self.folder.path()
    }

    pub fn backend(&self) -> Backend {
        if self.database.is_some() { Backend::Postgres } else { Backend::Sqlite }
    }

    /// The database URL of a Postgres home.
    pub fn store_url(&self) -> Option<&str> {
        self.database.as_ref().map(|database| database.url.as_str())
    }

    /// The home's `switchyard.toml`.
    pub fn config_file(&self) -> PathBuf {
        self.path().join("switchyard.toml")
    }

    /// Writes the home's `switchyard.toml` as `text`, keeping the home on its store: a Postgres
    /// home's `[store] url` is added after it. `text` must not have a `[store]` table of its own.
    pub fn write_config(&self, text: &str) {
        let mut whole = text.to_owned();
        if let Some(url) = self.store_url() {
            assert!(!text.contains("[store]"), "a test home writes its own [store] table:\n{text}");
            if !whole.is_empty() && !whole.ends_with('\n') {
                whole.push('\n');
            }
            whole.push_str(&format!("[store]\nurl = \"{url}\"\n"));
        }
        let file = self.config_file();
        std::fs::write(&file, whole).unwrap_or_else(|error| panic!("cannot write {}: {error}", file.display()));
    }
}

impl Default for TestHome {
    fn default() -> TestHome {
        TestHome::new()
    }
}

fn temporary_folder() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|error| panic!("cannot create a temporary folder: {error}"))
}

/// A fresh database on the test server, dropped when this is dropped: a Postgres home's store,
/// or one a test names itself (`--store postgres://…`).
#[derive(Debug)]
pub struct TestDatabase {
    name: String,
    url: String,
}

impl TestDatabase {
    /// Creates a database named uniquely across the processes and threads of a test run.
    ///
    /// # Panics
    /// Without `SWITCHYARD_TEST_POSTGRES_URL`, or when the server refuses, saying which.
    pub fn create() -> TestDatabase {
        static CREATED: AtomicU64 = AtomicU64::new(0);
        let nanos =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos());
        let name =
            format!("switchyard_home_{}_{nanos:x}_{}", std::process::id(), CREATED.fetch_add(1, Ordering::Relaxed));
        let server = server_url();
        administer(&server, &format!("CREATE DATABASE {name}")).unwrap_or_else(|error| {
            panic!("cannot create the test database {name} on {POSTGRES_URL_VARIABLE}: {error}")
        });
        let url = with_database(&server, &name);
        TestDatabase { name, url }
    }

    /// Its URL, with the test role's password.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Its name on the server.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Runs `statements` in this database as one simple query: plain SQL such as a dump to restore
    /// (`pg_dump` without psql's meta-commands).
    ///
    /// # Panics
    /// When the server refuses a statement, saying what it said.
    pub fn execute(&self, statements: &str) {
        administer(&self.url, statements)
            .unwrap_or_else(|error| panic!("the statements failed in the test database {}: {error}", self.name));
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        // FORCE closes what the test left connected (a server it killed, a pool still open).
        // An autovacuum worker visiting the new database is closed too when the role may signal
        // it (`.ci/postgres` grants `pg_signal_backend`); on a server where it may not, the drop
        // is refused until the worker is done, which takes a moment, so it is tried again.
        let statement = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let mut outcome = administer(&server_url(), &statement);
        for _ in 0..DROP_ATTEMPTS {
            if outcome.is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(200));
            outcome = administer(&server_url(), &statement);
        }
        // A database left behind fails the test, unless it is failing already.
        if let Err(error) = outcome
            && !std::thread::panicking()
        {
            panic!("cannot drop the test database {}: {error}", self.name);
        }
    }
}

/// How many more times a refused drop is tried, 200 ms apart.
const DROP_ATTEMPTS: usize = 25;

/// The admin URL of the test server; a test fails, never skips, without one.
///
/// # Panics
/// Without `SWITCHYARD_TEST_POSTGRES_URL`, saying how to get one.
pub fn server_url() -> String {
    std::env::var(POSTGRES_URL_VARIABLE).unwrap_or_else(|_| {
        panic!(
            "this test needs a PostgreSQL server ({BACKEND_VARIABLE}=postgres or a Postgres store test): run `export {POSTGRES_URL_VARIABLE}=\"$(bash .ci/postgres)\"` \
             (it starts the machine's cluster and creates a test role), or set it to a role that may create databases"
        )
    })
}

/// Runs `statement` on the server `url` names. On a thread of its own with its own runtime, so
/// it works the same from a plain test, an async test, and a `Drop` inside either.
fn administer(url: &str, statement: &str) -> Result<(), String> {
    let (url, statement) = (url.to_owned(), statement.to_owned());
    let worker = std::thread::spawn(move || {
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|error| error.to_string())?;
        runtime.block_on(async {
            let (client, connection) =
                tokio_postgres::connect(&url, tokio_postgres::NoTls).await.map_err(|error| explain(&error))?;
            let driver = tokio::spawn(connection);
            let done = client.batch_execute(&statement).await.map_err(|error| explain(&error));
            drop(client);
            let _ = driver.await;
            done
        })
    });
    worker.join().map_err(|_| "the administering thread panicked".to_owned())?
}

/// What the server said, not only "db error".
fn explain(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{}: {} ({})", db.severity(), db.message(), db.code().code()),
        None => error.to_string(),
    }
}

/// `url` with its database replaced by `name` (the URL form: `postgres://…/database?…`).
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let authority_end = base.find("://").map_or(0, |at| at + 3);
    let base = match base[authority_end..].find('/') {
        Some(slash) => &base[..authority_end + slash],
        None => base,
    };
    format!("{base}/{name}{query}")
}

#[cfg(test)]
mod tests {
    use super::{Backend, with_database};

    #[test]
    fn the_backend_switch_takes_sqlite_or_postgres_and_names_both_otherwise() {
        assert_eq!(Backend::parse(""), Ok(Backend::Sqlite));
        assert_eq!(Backend::parse("sqlite"), Ok(Backend::Sqlite));
        assert_eq!(Backend::parse("postgres"), Ok(Backend::Postgres));
        let message = Backend::parse("mysql").unwrap_err();
        assert!(message.contains("SWITCHYARD_TEST_BACKEND=`mysql`") && message.contains("`postgres`"), "{message}");
    }

    #[test]
    fn a_test_database_url_keeps_the_server_and_its_options() {
        assert_eq!(with_database("postgres://u:p@h:5432/postgres", "t1"), "postgres://u:p@h:5432/t1");
        assert_eq!(
            with_database("postgres://u@h:5432/postgres?sslmode=require", "t1"),
            "postgres://u@h:5432/t1?sslmode=require"
        );
        assert_eq!(with_database("postgres://u@h", "t1"), "postgres://u@h/t1");
    }
}
