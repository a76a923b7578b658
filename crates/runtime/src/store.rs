//! Which store backend a configuration names, decided here and nowhere else: a PostgreSQL URL
//! (`[store] url`, `--store postgres://…`) opens the Postgres store, otherwise the SQLite file.
//! The rest of the runtime holds the store contract only. `copy` moves a store's sessions into
//! another store, of either backend.

pub mod copy;

use std::path::PathBuf;
use std::sync::Arc;

use switchyard_store::Store;
use switchyard_store_postgres::{PostgresOptions, PostgresStore};
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};

use crate::config::Config;
use crate::error::Error;

/// Whether `text` names a database rather than a file.
pub fn is_url(text: &str) -> bool {
    ["postgres://", "postgresql://"].iter().any(|scheme| text.starts_with(scheme))
}

/// Checks a store URL `named` (a file and key, a variable, or the flag) gave.
pub(crate) fn check_url(url: &str, named: &str) -> Result<(), Error> {
    if !is_url(url) {
        return Err(Error::Config(format!(
            "{named} is not a PostgreSQL URL; write postgres://user@host:5432/database (the password from PGPASSWORD or ~/.pgpass), or set [store] path for a SQLite file"
        )));
    }
    switchyard_store_postgres::check_url(url).map_err(|problem| {
        Error::Config(format!(
            "{named} is not a valid PostgreSQL URL ({problem}); write postgres://user@host:5432/database"
        ))
    })
}

/// A store URL as messages and `switchyard config` show it: `postgres://user@host:port/database`,
/// never the password.
pub fn describe_url(url: &str) -> String {
    switchyard_store_postgres::describe_url(url)
}

/// The store a configuration names, opened.
pub(crate) struct Opened {
    pub(crate) store: Arc<dyn Store>,
    /// Where it is, for messages.
    pub(crate) label: String,
    /// Its file, for a SQLite store.
    pub(crate) path: Option<PathBuf>,
}

pub(crate) async fn open(config: &Config) -> Result<Opened, Error> {
    match &config.store_url {
        Some(url) => {
            let store = PostgresStore::open(url.expose(), PostgresOptions::default()).await?;
            let label = store.target().to_owned();
            Ok(Opened { store: Arc::new(store), label, path: None })
        }
        None => {
            let store = SqliteStore::open(&config.store_path, SqliteOptions::default())?;
            Ok(Opened {
                store: Arc::new(store),
                label: config.store_path.display().to_string(),
                path: Some(config.store_path.clone()),
            })
        }
    }
}

/// The schema version a store of `location`'s backend is at once this build has opened it.
pub(crate) fn schema_version(location: &copy::Location) -> i64 {
    match location {
        copy::Location::Postgres(_) => switchyard_store_postgres::SCHEMA_VERSION,
        copy::Location::Sqlite(_) => switchyard_store_sqlite::SCHEMA_VERSION,
    }
}

/// Opens the store a location names (`switchyard store copy`, `doctor`), creating a SQLite file
/// that does not exist yet.
pub(crate) async fn open_location(location: &copy::Location) -> Result<Arc<dyn Store>, Error> {
    Ok(match location {
        copy::Location::Postgres(url) => Arc::new(PostgresStore::open(url, PostgresOptions::default()).await?),
        copy::Location::Sqlite(path) => Arc::new(SqliteStore::open(path, SqliteOptions::default())?),
    })
}
