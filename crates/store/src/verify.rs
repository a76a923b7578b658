//! The checks behind [`crate::Store::verify`], the same for every backend: a backend reads its
//! rows, hands each session's event rows in order to a [`ChainWalk`] and each stored projection
//! row to [`Verification`], and gets the report.
//!
//! A chain walk recomputes every hash from the stored bytes, checks sequence numbers and links,
//! compares the columns that repeat envelope fields, and replays the events through the one
//! [`Projector`]; the replay is then compared with the stored projections.

use std::collections::BTreeSet;
use std::fmt::Display;

use switchyard_core::id::SessionId;

use crate::error::Error;
use crate::event::{GENESIS_HASH, chain_hash};
use crate::projection::{ApplyError, Projections, Projector, differences};
use crate::record::{NodeRecord, Problem, RunRecord, SessionRecord, StoredEvent, VerifyReport, problem};

/// One event row as stored, before anything is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEvent {
    pub seq: i64,
    pub id: String,
    pub run: Option<String>,
    pub kind: String,
    pub at_ms: i64,
    /// The canonical JSON the hash covers.
    pub body: String,
    pub prev_hash: String,
    pub hash: String,
}

/// A verification under way.
#[derive(Debug, Default)]
pub struct Verification {
    report: VerifyReport,
    expected: Projections,
    stored: Projections,
    /// Stored rows that could not be decoded, by table and key: reported once, not again as
    /// missing.
    unreadable: BTreeSet<(&'static str, String)>,
}

fn found(code: &str, session: Option<SessionId>, seq: Option<u64>, message: String) -> Problem {
    Problem { code: code.to_owned(), session, seq, message }
}

impl Verification {
    pub fn new() -> Self {
        Self::default()
    }

    /// Starts the walk of one session's events, named as its rows name it; hand them in `seq`
    /// order, then call [`ChainWalk::finish`].
    pub fn session(&mut self, session: &str) -> ChainWalk<'_> {
        self.report.sessions_checked += 1;
        let parsed = session.parse::<SessionId>().ok();
        if parsed.is_none() {
            self.report.problems.push(found(
                problem::EVENT_UNREADABLE,
                None,
                None,
                format!("events of session `{session}`: the session column is not a session id"),
            ));
        }
        ChainWalk {
            verification: self,
            session: parsed,
            text: session.to_owned(),
            expected_seq: 1,
            prev_hash: GENESIS_HASH.to_owned(),
            projector: Projector::new(),
        }
    }

    /// A stored session row, or why it could not be decoded (`key` names the row).
    pub fn stored_session(&mut self, row: Result<SessionRecord, Error>, key: &str) {
        match row {
            Ok(record) => _ = self.stored.sessions.insert(record.id, record),
            Err(error) => self.unreadable_row("sessions", key, key.parse().ok(), &error),
        }
    }

    /// A stored run row, or why it could not be decoded (`key` names the row, `session` its
    /// session when that column reads).
    pub fn stored_run(&mut self, row: Result<RunRecord, Error>, key: &str, session: Option<SessionId>) {
        match row {
            Ok(record) => _ = self.stored.runs.insert(record.id, record),
            Err(error) => self.unreadable_row("runs", key, session, &error),
        }
    }

    /// A stored node row, or why it could not be decoded.
    pub fn stored_node(&mut self, row: Result<NodeRecord, Error>, key: &str, session: Option<SessionId>) {
        match row {
            Ok(record) => _ = self.stored.nodes.insert(record.id, record),
            Err(error) => self.unreadable_row("nodes", key, session, &error),
        }
    }

    /// A problem only the backend can see (a row of its own bookkeeping).
    pub fn problem(&mut self, problem: Problem) {
        self.report.problems.push(problem);
    }

    fn unreadable_row(&mut self, table: &'static str, key: &str, session: Option<SessionId>, error: &Error) {
        let message = match error {
            Error::Corrupt { message } => message.clone(),
            other => other.to_string(),
        };
        self.report.problems.push(found(problem::PROJECTION_UNREADABLE, session, None, message));
        self.unreadable.insert((table, key.to_owned()));
    }

    /// The report: the chains' problems, then every difference between the replay and the
    /// stored projections.
    pub fn finish(mut self) -> VerifyReport {
        let unreadable = &self.unreadable;
        self.expected.sessions.retain(|id, _| !unreadable.contains(&("sessions", id.to_string())));
        self.expected.runs.retain(|id, _| !unreadable.contains(&("runs", id.to_string())));
        self.expected.nodes.retain(|id, _| !unreadable.contains(&("nodes", id.to_string())));
        self.report.problems.extend(differences(&self.expected, &self.stored));
        self.report
    }
}

/// The walk of one session's hash chain.
#[derive(Debug)]
pub struct ChainWalk<'a> {
    verification: &'a mut Verification,
    session: Option<SessionId>,
    text: String,
    expected_seq: i64,
    prev_hash: String,
    projector: Projector,
}

/// The columns that repeat envelope fields, compared with the envelope.
fn column_mismatches(raw: &RawEvent, event: &StoredEvent, session: &str) -> Vec<String> {
    let mut mismatches = Vec::new();
    let mut check = |column: &str, stored: String, envelope: String| {
        if stored != envelope {
            mismatches.push(format!("column `{column}` is {stored:?} but the envelope says {envelope:?}"));
        }
    };
    check("session", session.to_owned(), event.session.to_string());
    check("seq", raw.seq.to_string(), event.seq.to_string());
    check("id", raw.id.clone(), event.id.to_string());
    check("run", format!("{:?}", raw.run), format!("{:?}", event.run.map(|run| run.to_string())));
    check("kind", raw.kind.clone(), event.kind.name().to_owned());
    check("at_ms", raw.at_ms.to_string(), event.at_ms.to_string());
    check("prev_hash", raw.prev_hash.clone(), event.prev_hash.clone());
    mismatches
}

impl ChainWalk<'_> {
    fn push(&mut self, code: &str, seq: Option<u64>, message: String) {
        self.verification.report.problems.push(found(code, self.session, seq, message));
    }

    /// An event row whose columns could not be read (`seq` when that one could).
    pub fn unreadable(&mut self, seq: Option<u64>, error: impl Display) {
        self.verification.report.events_checked += 1;
        let message = format!("events row of session {}: {error}", self.text);
        self.push(problem::EVENT_UNREADABLE, seq, message);
    }

    /// The next event row of the session.
    pub fn event(&mut self, raw: &RawEvent) {
        self.verification.report.events_checked += 1;
        let seq = u64::try_from(raw.seq).ok();
        if raw.seq != self.expected_seq {
            let message = format!("expected seq {}, found seq {}", self.expected_seq, raw.seq);
            self.push(problem::EVENT_SEQ_GAP, seq, message);
        }
        self.expected_seq = raw.seq.saturating_add(1);
        if raw.prev_hash != self.prev_hash {
            let message = format!("prev_hash is {} but the previous event's hash is {}", raw.prev_hash, self.prev_hash);
            self.push(problem::EVENT_CHAIN_BROKEN, seq, message);
        }
        let recomputed = chain_hash(&raw.prev_hash, raw.body.as_bytes());
        if recomputed != raw.hash {
            let message =
                format!("stored hash {} but the stored bytes hash to {recomputed}: the event was altered", raw.hash);
            self.push(problem::EVENT_HASH_MISMATCH, seq, message);
        }
        self.prev_hash = raw.hash.clone();
        let event = match StoredEvent::from_body(raw.body.as_bytes(), raw.hash.clone()) {
            Ok(event) => event,
            Err(error) => return self.push(problem::EVENT_UNREADABLE, seq, error),
        };
        let mismatches = column_mismatches(raw, &event, &self.text);
        if !mismatches.is_empty() {
            return self.push(problem::EVENT_UNREADABLE, seq, mismatches.join("; "));
        }
        match self.projector.apply(&mut self.verification.expected, &event) {
            Ok(()) => {}
            Err(ApplyError::Inconsistent(reason)) => self.push(problem::EVENT_INCONSISTENT, seq, reason),
            Err(ApplyError::Store(never)) => match never {},
        }
    }

    /// Ends the session: every run it started has its first node. Returns the session's last
    /// seq and hash as the walk found them.
    pub fn finish(mut self) -> (i64, String) {
        let projector = std::mem::take(&mut self.projector);
        if let Err(reason) = projector.finish() {
            self.push(problem::EVENT_INCONSISTENT, None, reason);
        }
        (self.expected_seq - 1, std::mem::take(&mut self.prev_hash))
    }
}
