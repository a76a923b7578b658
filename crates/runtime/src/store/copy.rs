//! `switchyard store copy`: moves every session of one store into another, whatever their
//! backends, through the store contract alone (`copied_sessions`, `export_session`,
//! `import_session`), then verifies the destination.
//!
//! Each session is one import transaction, so an interrupted copy leaves whole sessions behind
//! and none half-copied; running it again with `add` skips the sessions already there (the same
//! last hash) and copies the rest.

use std::collections::BTreeSet;
use std::time::Instant;

use serde::Serialize;

use switchyard_core::SessionId;
use switchyard_store::{MAX_PAGE, SessionCopy, Store, VerifyReport};

use crate::error::Error;

/// How to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CopyOptions {
    /// Copy into a destination that already holds sessions (the sessions it already holds with
    /// the same history are skipped; one with another history stops the copy).
    pub add: bool,
}

/// Where a copy is, after each session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CopyProgress {
    pub sessions_done: u64,
    pub sessions_total: u64,
    pub events: u64,
}

/// What a copy did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopySummary {
    /// The source and the destination, as messages name them (never a password).
    pub from: String,
    pub to: String,
    pub sessions: u64,
    pub events: u64,
    pub claims: u64,
    pub tokens: u64,
    /// Distinct pinned workflows.
    pub pins: u64,
    /// Sessions the destination already held with the same history (only with `add`).
    pub skipped_sessions: u64,
    pub elapsed_ms: u64,
    /// The destination's `verify` after the copy.
    pub verify: VerifyReport,
}

pub use super::Location;

/// Copies every session of `from` into `to`. `progress` hears of each session copied.
pub async fn copy(
    from: &Location,
    to: &Location,
    options: CopyOptions,
    progress: &mut dyn FnMut(CopyProgress),
) -> Result<CopySummary, Error> {
    let started = Instant::now();
    if from == to {
        return Err(Error::invalid_input(format!(
            "--from and --to both name {}; copy a store into another one",
            from.describe()
        )));
    }
    if let Location::Sqlite(path) = from
        && !path.is_file()
    {
        return Err(Error::invalid_input(format!(
            "the source store {} does not exist; name an existing SQLite file (or a postgres:// URL) with --from",
            path.display()
        )));
    }
    let source = from.open().await?;
    let destination = to.open().await?;
    let skip_held = match destination.copied_sessions(None, 1).await?.is_empty() {
        true => false,
        false if options.add => true,
        false => return Err(Error::DestinationNotEmpty { store: to.describe() }),
    };

    let sessions = all_sessions(source.as_ref()).await?;
    let mut summary = CopySummary {
        from: from.describe(),
        to: to.describe(),
        sessions: 0,
        events: 0,
        claims: 0,
        tokens: 0,
        pins: 0,
        skipped_sessions: 0,
        elapsed_ms: 0,
        verify: VerifyReport::default(),
    };
    let mut pins = BTreeSet::new();
    for (index, session) in sessions.iter().enumerate() {
        let Some(copy) = source.export_session(*session).await? else { continue };
        if skip_held && held(destination.as_ref(), &copy).await? {
            summary.skipped_sessions += 1;
        } else {
            summary.sessions += 1;
            summary.events += copy.events.len() as u64;
            summary.claims += copy.claims.len() as u64;
            summary.tokens += copy.tokens.len() as u64;
            pins.extend(copy.pins.iter().map(|workflow| workflow.hash().to_string()));
            destination.import_session(copy).await?;
        }
        progress(CopyProgress {
            sessions_done: index as u64 + 1,
            sessions_total: sessions.len() as u64,
            events: summary.events,
        });
    }
    summary.pins = pins.len() as u64;
    summary.verify = destination.verify().await?;
    summary.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    Ok(summary)
}

/// Every session of `store` that holds events, in id order.
async fn all_sessions(store: &dyn Store) -> Result<Vec<SessionId>, Error> {
    let mut sessions = Vec::new();
    loop {
        let page = store.copied_sessions(sessions.last().copied(), MAX_PAGE).await?;
        if page.is_empty() {
            return Ok(sessions);
        }
        sessions.extend(page);
    }
}

/// Whether `destination` already holds the session with the same history (the same last event
/// hash); a session it holds with another history is an error, since adding would mix two logs.
async fn held(destination: &dyn Store, copy: &SessionCopy) -> Result<bool, Error> {
    let Some(record) = destination.session(copy.session).await? else { return Ok(false) };
    let last = destination.events(copy.session, record.last_seq.saturating_sub(1), 1).await?;
    let same = last.first().map(|event| &event.hash) == copy.events.last().map(|event| &event.hash);
    if same {
        return Ok(true);
    }
    Err(Error::Store(switchyard_store::copy::session_exists(copy.session)))
}

/// How often progress is worth a line on stderr: every this many sessions.
pub const PROGRESS_EVERY: u64 = 100;
