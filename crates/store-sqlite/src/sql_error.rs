//! Maps SQLite failures to `store::Error` with advice, so no rusqlite type leaks past this crate.

use rusqlite::ErrorCode;
use switchyard_store::Error;

/// Maps a rusqlite error met while `doing` something.
pub(crate) fn map(error: &rusqlite::Error, doing: &str) -> Error {
    let message = format!("{doing}: {error}");
    match error {
        rusqlite::Error::SqliteFailure(failure, _) => match failure.code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => Error::Busy { message },
            ErrorCode::ReadOnly | ErrorCode::PermissionDenied => read_only(message),
            ErrorCode::DiskFull => Error::DiskFull { message },
            // Growing the WAL index (`-shm`) fails only for want of space: on a full disk every
            // opening process meets it before anything else.
            ErrorCode::SystemIoFailure if failure.extended_code == rusqlite::ffi::SQLITE_IOERR_SHMSIZE => {
                Error::DiskFull { message }
            }
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => Error::Corrupt { message },
            ErrorCode::ConstraintViolation => Error::InvalidBatch { reason: message },
            _ => Error::Io { message },
        },
        rusqlite::Error::InvalidColumnType(..)
        | rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..)
        | rusqlite::Error::Utf8Error(..) => Error::Corrupt { message },
        _ => Error::Io { message },
    }
}

/// What to do about a SQLite store that cannot be written.
pub(crate) const READ_ONLY_FIX: &str =
    "remount the file system read-write or make the file and its folder writable, or point --store at a writable copy";

/// A write refused because the store's file cannot be written, with the fix for a file.
pub(crate) fn read_only(message: String) -> Error {
    Error::ReadOnly { message, fix: READ_ONLY_FIX.to_owned() }
}

/// Whether the error is a violated UNIQUE or PRIMARY KEY constraint.
pub(crate) fn is_unique_violation(error: &rusqlite::Error) -> bool {
    matches!(error, rusqlite::Error::SqliteFailure(failure, _) if failure.code == ErrorCode::ConstraintViolation)
}

/// Adds what was being done to a rusqlite result.
pub(crate) trait Context<T> {
    fn doing(self, doing: &str) -> Result<T, Error>;
}

impl<T> Context<T> for rusqlite::Result<T> {
    fn doing(self, doing: &str) -> Result<T, Error> {
        self.map_err(|error| map(&error, doing))
    }
}
