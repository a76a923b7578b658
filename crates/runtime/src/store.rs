//! Which store backend a configuration names, decided here and nowhere else: a PostgreSQL URL
//! (`[store] url`, `--store postgres://…`) opens the Postgres store, otherwise the SQLite file.
//! The rest of the runtime holds the store contract only. `copy` moves a store's sessions into
//! another store, of either backend.

pub mod copy;

use std::path::PathBuf;
use std::sync::Arc;

use switchyard_config::{Config, Origin};
use switchyard_store::Store;
#[cfg(feature = "postgres")]
use switchyard_store_postgres::{PostgresOptions, PostgresStore};
#[cfg(feature = "sqlite")]
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};

use crate::error::Error;

/// Checks that the store URL the configuration names, if any, is one the Postgres store can open;
/// the error names where the URL was written. The CLI calls it right after resolving the
/// configuration, so every command stops on a broken URL, not only those that open the store.
pub fn check_config(config: &Config) -> Result<(), Error> {
    let Some(url) = &config.store_url else { return Ok(()) };
    let named = match config.origin("store.url") {
        Origin::Flag(flag) => flag.to_owned(),
        origin => format!("{origin} [store] url"),
    };
    check_url(url.expose()).map_err(|problem| {
        switchyard_config::Error::Invalid(format!(
            "{named} is not a valid PostgreSQL URL ({problem}); write postgres://user@host:5432/database"
        ))
        .into()
    })
}

/// Whether `url` is a connection string the Postgres store can open; the problem never repeats
/// the URL (it may hold a password).
fn check_url(url: &str) -> Result<(), String> {
    #[cfg(feature = "postgres")]
    return switchyard_store_postgres::check_url(url);
    #[cfg(not(feature = "postgres"))]
    return Err(format!("this build has no Postgres store ({} bytes not read)", url.len()));
}

/// A store URL as messages and `switchyard config` show it: `postgres://user@host:port/database`,
/// never the password.
pub fn describe_url(url: &str) -> String {
    #[cfg(feature = "postgres")]
    return switchyard_store_postgres::describe_url(url);
    #[cfg(not(feature = "postgres"))]
    return format!("(a PostgreSQL URL of {} bytes, which this build cannot open)", url.len());
}

/// A store by where it is: a PostgreSQL URL, or a SQLite file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Postgres(String),
    Sqlite(PathBuf),
}

impl Location {
    /// The store a configuration names: its database URL when it has one, else its file.
    pub fn of(config: &Config) -> Self {
        match &config.store_url {
            Some(url) => Self::Postgres(url.expose().to_owned()),
            None => Self::Sqlite(config.store_path.clone()),
        }
    }

    /// A store named on the command line: a PostgreSQL URL, `sqlite:<path>` or a SQLite file path.
    pub fn parse(text: &str) -> Self {
        if switchyard_config::store_url::is_url(text) {
            return Self::Postgres(text.to_owned());
        }
        let path = text.strip_prefix("sqlite://").or_else(|| text.strip_prefix("sqlite:")).unwrap_or(text);
        Self::Sqlite(path.into())
    }

    /// Where it is for messages: the file, or the database without its password.
    pub fn describe(&self) -> String {
        match self {
            Self::Postgres(url) => describe_url(url),
            Self::Sqlite(path) => path.display().to_string(),
        }
    }

    /// The schema version a store here is at once this build has opened it.
    pub(crate) fn schema_version(&self) -> i64 {
        match self {
            #[cfg(feature = "postgres")]
            Self::Postgres(_) => switchyard_store_postgres::SCHEMA_VERSION,
            #[cfg(feature = "sqlite")]
            Self::Sqlite(_) => switchyard_store_sqlite::SCHEMA_VERSION,
            #[allow(unreachable_patterns, reason = "one arm per backend this build links")]
            _ => 0,
        }
    }

    /// Opens the store here, creating a SQLite file that does not exist yet.
    pub(crate) async fn open(&self) -> Result<Arc<dyn Store>, Error> {
        match self {
            #[cfg(feature = "postgres")]
            Self::Postgres(url) => Ok(Arc::new(PostgresStore::open(url, PostgresOptions::default()).await?)),
            #[cfg(feature = "sqlite")]
            Self::Sqlite(path) => Ok(Arc::new(SqliteStore::open(path, SqliteOptions::default())?)),
            #[allow(unreachable_patterns, reason = "one arm per backend this build links")]
            other => Err(switchyard_config::Error::Invalid(format!(
                "this build of switchyard cannot open {}: it was built without that store backend (the runtime's `sqlite` and `postgres` features)",
                other.describe()
            ))
            .into()),
        }
    }
}
