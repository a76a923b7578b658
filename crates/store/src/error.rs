//! `store::Error`: what a backend reports, each variant with a stable code and advice.

/// A store failure. Codes are stable; doors and agents react to them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Another writer held the store for longer than the busy timeout.
    #[error("the store is busy: {message}; another process holds the write lock, retry the command in a moment")]
    Busy { message: String },
    /// The store cannot be written. `fix` is the backend's own advice: a file system to remount
    /// for SQLite, the primary server to point at for Postgres.
    #[error(
        "the store is read-only: {message}; reading commands (status, log, sessions, verify) still work; to write, {fix}"
    )]
    ReadOnly { message: String, fix: String },
    /// The disk (or a quota) is full.
    #[error(
        "the disk holding the store is full: {message}; free some space and retry; nothing of the failed command was written"
    )]
    DiskFull { message: String },
    /// Stored data cannot be read back as what it claims to be.
    #[error(
        "the store is corrupt: {message}; run `switchyard verify` to see every problem, and restore from a backup if events are damaged"
    )]
    Corrupt { message: String },
    /// The batch breaks a rule of the contract; nothing of it was written.
    #[error("invalid batch, nothing was written: {reason}")]
    InvalidBatch { reason: String },
    /// A token nonce or position is already registered differently.
    #[error("token conflict, nothing was written: {message}")]
    Conflict { message: String },
    /// The batch's [`crate::RunGuard`] no longer holds: the run's control changed after the
    /// command was decided. Nothing was written; decide again on what the run is now.
    #[error("the run {run} is now {found}, not {expected} as when the command was decided; nothing was written")]
    Stale { run: String, expected: String, found: String },
    /// The file was written by a newer switchyard.
    #[error(
        "the store has schema version {found}, newer than {supported}, the newest this switchyard understands; upgrade switchyard to open it"
    )]
    SchemaTooNew { found: i64, supported: i64 },
    /// The store was shut down while the request was in flight.
    #[error("the store is closed: {message}; reopen it")]
    Closed { message: String },
    /// The database server cannot be reached, or the connection to it was lost. A command in
    /// flight when the connection was lost either committed whole or not at all; retrying it is
    /// safe (a replayed command is answered from its idempotency claim).
    #[error(
        "the store's database server is unavailable: {message}; nothing half-written remains; check that the server runs and is reachable, then retry the command"
    )]
    Unavailable { message: String },
    /// Any other failure of the file system or database engine.
    #[error("store input/output failed: {message}")]
    Io { message: String },
}

impl Error {
    /// `token`'s position (kind, node, attempt) is registered under another nonce, `existing`.
    pub fn token_position_taken(token: &crate::TokenRecord, existing: &crate::TokenRecord) -> Self {
        Self::Conflict {
            message: format!(
                "the {} token position (node {}, attempt {:?}) is already registered under nonce {}; use claim_token to get it",
                token.kind.name(),
                token.node,
                token.attempt,
                existing.nonce.to_hex()
            ),
        }
    }

    /// `token`'s nonce is registered for another position.
    pub fn nonce_taken(token: &crate::TokenRecord) -> Self {
        Self::Conflict {
            message: format!(
                "nonce {} is already registered for another position; mint a fresh nonce",
                token.nonce.to_hex()
            ),
        }
    }

    /// The stable code of the error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Busy { .. } => "STORE_BUSY",
            Self::ReadOnly { .. } => "STORE_READ_ONLY",
            Self::DiskFull { .. } => "STORE_DISK_FULL",
            Self::Corrupt { .. } => "STORE_CORRUPT",
            Self::InvalidBatch { .. } => "STORE_INVALID_BATCH",
            Self::Conflict { .. } => "STORE_CONFLICT",
            Self::Stale { .. } => "STORE_STALE",
            Self::SchemaTooNew { .. } => "STORE_SCHEMA_TOO_NEW",
            Self::Closed { .. } => "STORE_CLOSED",
            Self::Unavailable { .. } => "STORE_UNAVAILABLE",
            Self::Io { .. } => "STORE_IO",
        }
    }

    /// Whether retrying the same request later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Self::Busy { .. } | Self::DiskFull { .. } | Self::Unavailable { .. })
    }
}
