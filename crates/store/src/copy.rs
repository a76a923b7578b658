//! What a store copy moves between backends: one session at a time, as [`SessionCopy`] (its
//! events as stored, its idempotency claims, its tokens and the workflows its runs pin).
//!
//! A backend supplies three things ([`crate::Store::copied_sessions`],
//! [`crate::Store::export_session`], [`crate::Store::import_session`]); the checks an import
//! makes before writing anything are here, the same for every backend. An import writes the
//! events with their original sequence numbers and hashes and rebuilds the projections through
//! the one [`crate::projection::Projector`], so the destination verifies as the source did.

use serde::{Deserialize, Serialize};

use switchyard_core::id::SessionId;
use switchyard_core::workflow::Workflow;

use crate::error::Error;
use crate::event::{GENESIS_HASH, chain_hash};
use crate::record::{Recorded, StoredEvent, TokenRecord};

/// One event as a copy carries it: the exact bytes its hash covers, and that hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CopiedEvent {
    /// The canonical JSON of the envelope without its hash, as the source stored it.
    pub body: String,
    pub hash: String,
}

/// Everything a store keeps about one session beyond its projections, which the destination
/// rebuilds from the events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionCopy {
    pub session: SessionId,
    /// Every event, in sequence order.
    pub events: Vec<CopiedEvent>,
    pub claims: Vec<Recorded>,
    pub tokens: Vec<TokenRecord>,
    /// The workflows the session's runs are pinned to.
    pub pins: Vec<Workflow>,
}

impl SessionCopy {
    /// The events decoded, after checking what the import is about to write: sequence numbers
    /// 1, 2, 3, ..., each `prev_hash` the previous event's hash, each hash recomputed from the
    /// stored bytes, every event, claim and token of this session, each claim listed once. Nothing
    /// is written when this fails.
    pub fn checked_events(&self) -> Result<Vec<(StoredEvent, String)>, Error> {
        let session = self.session;
        let corrupt = |seq: usize, problem: String| Error::Corrupt {
            message: format!(
                "the copy of session {session} seq {seq} is refused: {problem}; run `switchyard verify` on the source store"
            ),
        };
        if self.events.is_empty() {
            return Err(Error::InvalidBatch { reason: format!("the copy of session {session} carries no event") });
        }
        let mut prev_hash = GENESIS_HASH.to_owned();
        let mut events = Vec::with_capacity(self.events.len());
        for (index, copied) in self.events.iter().enumerate() {
            let seq = index + 1;
            let recomputed = chain_hash(&prev_hash, copied.body.as_bytes());
            if recomputed != copied.hash {
                return Err(corrupt(
                    seq,
                    format!("its bytes hash to {recomputed}, not to its stored hash {}", copied.hash),
                ));
            }
            let event = StoredEvent::from_body(copied.body.as_bytes(), copied.hash.clone())
                .map_err(|problem| corrupt(seq, problem))?;
            if event.session != session || event.seq != seq as u64 || event.prev_hash != prev_hash {
                return Err(corrupt(
                    seq,
                    format!(
                        "its envelope says session {} seq {} after {}, where the chain expects this session, seq {seq}, after {prev_hash}",
                        event.session, event.seq, event.prev_hash
                    ),
                ));
            }
            prev_hash = copied.hash.clone();
            events.push((event, copied.body.clone()));
        }
        let foreign_claim = self.claims.iter().find(|claim| claim.session != session).map(|claim| &claim.key);
        let foreign_token = self.tokens.iter().find(|token| token.session != session).map(|token| token.nonce.to_hex());
        if let Some(named) = foreign_claim.cloned().or(foreign_token) {
            return Err(Error::InvalidBatch {
                reason: format!("the copy of session {session} carries `{named}`, which belongs to another session"),
            });
        }
        let mut keys = std::collections::HashSet::with_capacity(self.claims.len());
        if let Some(twice) = self.claims.iter().find(|claim| !keys.insert(claim.key.as_str())) {
            return Err(Error::InvalidBatch {
                reason: format!(
                    "the copy of session {session} lists the claim `{}` twice; a session records each claim once",
                    twice.key
                ),
            });
        }
        Ok(events)
    }
}

/// The error of an import into a store that already holds the session.
pub fn session_exists(session: SessionId) -> Error {
    Error::Conflict {
        message: format!(
            "session {session} is already in the destination store; copy into an empty store, or leave this session out"
        ),
    }
}

/// The error of an import whose claim the destination already holds. The session itself is new
/// there (checked first) and a copy lists each of its claims once ([`SessionCopy::checked_events`]),
/// so only a destination holding claims of a session without its events meets this.
pub fn claim_taken(claim: &Recorded) -> Error {
    Error::Conflict {
        message: format!(
            "the destination already holds the claim `{}` of session {}, though not the session's events; copy into an empty store",
            claim.key, claim.session
        ),
    }
}
