//! Maps Postgres and pool failures to `store::Error` with advice, so no driver type leaks past
//! this crate.

use deadpool_postgres::{PoolError, TimeoutType};
use tokio_postgres::error::SqlState;

use switchyard_store::Error;

/// Maps a driver error met while `doing` something.
pub(crate) fn map(error: &tokio_postgres::Error, doing: &str) -> Error {
    let message = format!("{doing}: {}", describe(error));
    let Some(code) = error.code() else {
        // No SQLSTATE: the connection failed or closed (the server went away, the backend was
        // terminated, the network broke), or the client could not even try (a password missing).
        // A transaction cut off is whole or absent: it did not commit, unless the break came
        // while COMMIT was in flight.
        return if error.is_closed() || caused_by_io(error) {
            Error::Unavailable { message }
        } else {
            let fix = if message.contains("password missing") {
                "put it in PGPASSWORD or in a password file (PGPASSFILE, else ~/.pgpass, mode 600), or in the URL"
            } else {
                "check the store URL, its user and its password"
            };
            Error::Io { message: format!("{message}; {fix}") }
        };
    };
    match *code {
        SqlState::READ_ONLY_SQL_TRANSACTION => read_only(message),
        SqlState::DISK_FULL | SqlState::OUT_OF_MEMORY | SqlState::INSUFFICIENT_RESOURCES => Error::DiskFull { message },
        SqlState::T_R_SERIALIZATION_FAILURE
        | SqlState::T_R_DEADLOCK_DETECTED
        | SqlState::LOCK_NOT_AVAILABLE
        | SqlState::QUERY_CANCELED
        | SqlState::TOO_MANY_CONNECTIONS => Error::Busy { message },
        SqlState::ADMIN_SHUTDOWN
        | SqlState::CRASH_SHUTDOWN
        | SqlState::CANNOT_CONNECT_NOW
        | SqlState::CONNECTION_EXCEPTION
        | SqlState::CONNECTION_FAILURE
        | SqlState::CONNECTION_DOES_NOT_EXIST
        | SqlState::SQLCLIENT_UNABLE_TO_ESTABLISH_SQLCONNECTION
        | SqlState::SQLSERVER_REJECTED_ESTABLISHMENT_OF_SQLCONNECTION
        | SqlState::T_R_STATEMENT_COMPLETION_UNKNOWN => Error::Unavailable { message },
        SqlState::DATA_CORRUPTED | SqlState::INDEX_CORRUPTED => Error::Corrupt { message },
        SqlState::INVALID_PASSWORD | SqlState::INVALID_AUTHORIZATION_SPECIFICATION => Error::Io {
            message: format!(
                "{message}; check the user and password of the store URL (or PGPASSWORD, or the password file)"
            ),
        },
        _ => Error::Io { message },
    }
}

/// Whether a failure of the network or the socket is among the error's causes.
fn caused_by_io(error: &tokio_postgres::Error) -> bool {
    let mut cause = std::error::Error::source(error);
    while let Some(source) = cause {
        if source.is::<std::io::Error>() {
            return true;
        }
        cause = source.source();
    }
    false
}

/// The error with the server's message and detail when it has them (the driver's own text says
/// only "db error"), or with its causes (the driver's says only "error connecting to server").
pub(crate) fn describe(error: &tokio_postgres::Error) -> String {
    if let Some(db) = error.as_db_error() {
        return match db.detail() {
            Some(detail) => format!("{} ({})", db.message(), detail),
            None => db.message().to_owned(),
        };
    }
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(source) = cause {
        let more = source.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = source.source();
    }
    text
}

/// What to do about a database that refuses writes.
pub(crate) const READ_ONLY_FIX: &str = "point --store (or [store] url) at the primary server, not a standby or read-only replica, or turn default_transaction_read_only off for switchyard's database and role";

/// A write refused because the database answers read-only, with the fix for a database.
pub(crate) fn read_only(message: String) -> Error {
    Error::ReadOnly { message, fix: READ_ONLY_FIX.to_owned() }
}

/// Whether the error is a violated UNIQUE or PRIMARY KEY constraint, and which.
pub(crate) fn unique_violation(error: &tokio_postgres::Error) -> Option<&str> {
    let db = error.as_db_error()?;
    (*db.code() == SqlState::UNIQUE_VIOLATION).then(|| db.constraint().unwrap_or(""))
}

/// Maps a failure to get a pooled connection to the database `target` (host, port, database,
/// user: never the password); a TLS failure, as `explain_tls` words it, says which check failed
/// and how to fix it, and is not retryable: the same server fails it again.
pub(crate) fn pool(
    error: PoolError,
    target: &str,
    wait: std::time::Duration,
    explain_tls: impl FnOnce(&tokio_postgres::Error) -> Option<String>,
) -> Error {
    match error {
        PoolError::Timeout(TimeoutType::Wait) => Error::Busy {
            message: format!(
                "every pooled connection to {target} stayed in use for {} ms; retry the command, or raise the pool size",
                wait.as_millis()
            ),
        },
        PoolError::Timeout(_) => Error::Unavailable {
            message: format!("connecting to {target} timed out; check that the server runs and is reachable"),
        },
        PoolError::Backend(error) => match explain_tls(&error) {
            Some(explained) => Error::Io { message: format!("connecting to {target}: {explained}") },
            None => map(&error, &format!("connecting to {target}")),
        },
        PoolError::Closed => Error::Closed { message: format!("the connection pool to {target} is closed") },
        other => Error::Io { message: format!("getting a connection to {target}: {other}") },
    }
}

/// Adds what was being done to a driver result.
pub(crate) trait Context<T> {
    fn doing(self, doing: &str) -> Result<T, Error>;
}

impl<T> Context<T> for Result<T, tokio_postgres::Error> {
    fn doing(self, doing: &str) -> Result<T, Error> {
        self.map_err(|error| map(&error, doing))
    }
}
