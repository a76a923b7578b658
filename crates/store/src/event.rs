//! The stored event envelope (version 1) and its hash chain.
//!
//! A stored event is the envelope `{v, id, session, seq, run, at_ms, kind, prev_hash}` plus
//! `hash`. Backends keep the canonical JSON of the envelope without `hash` (the "body") exactly as
//! hashed, so verification recomputes hashes from the stored bytes. The `kind` payload is the serde
//! form of [`EventKind`]; the golden snapshot test `tests/stored_event_format.rs` pins it.

use serde::{Deserialize, Serialize};

use switchyard_core::event::EventKind;
use switchyard_core::hash::{canonical_json, sha256_hex};
use switchyard_core::id::{EventId, RunId, SessionId};

use crate::record::{NewEvent, StoredEvent};

/// The envelope version written today.
pub const ENVELOPE_VERSION: u32 = 1;

/// The `prev_hash` of a session's first event.
pub const GENESIS_HASH: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[derive(Serialize)]
struct EnvelopeRef<'a> {
    v: u32,
    id: EventId,
    session: SessionId,
    seq: u64,
    run: Option<RunId>,
    at_ms: i64,
    kind: &'a EventKind,
    prev_hash: &'a str,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Envelope {
    v: u32,
    id: EventId,
    session: SessionId,
    seq: u64,
    run: Option<RunId>,
    at_ms: i64,
    kind: EventKind,
    prev_hash: String,
}

/// The chain hash: hex SHA-256 over `prev_hash` (its 64 hex characters) followed by `body`.
pub fn chain_hash(prev_hash: &str, body: &[u8]) -> String {
    let mut bytes = Vec::with_capacity(prev_hash.len() + body.len());
    bytes.extend_from_slice(prev_hash.as_bytes());
    bytes.extend_from_slice(body);
    sha256_hex(&bytes)
}

impl StoredEvent {
    /// Seals a new event as the `seq`-th of `session`, after the event whose hash is `prev_hash`.
    /// Returns the stored event and its body, the exact bytes its hash covers.
    pub fn seal(session: SessionId, seq: u64, prev_hash: &str, event: NewEvent) -> (StoredEvent, Vec<u8>) {
        let mut stored = StoredEvent {
            v: ENVELOPE_VERSION,
            id: event.id,
            session,
            seq,
            run: event.run,
            at_ms: event.at_ms,
            kind: event.kind,
            prev_hash: prev_hash.to_owned(),
            hash: String::new(),
        };
        let body = stored.body();
        stored.hash = chain_hash(prev_hash, &body);
        (stored, body)
    }

    /// The canonical JSON of the envelope without `hash`.
    pub fn body(&self) -> Vec<u8> {
        canonical_json(&EnvelopeRef {
            v: self.v,
            id: self.id,
            session: self.session,
            seq: self.seq,
            run: self.run,
            at_ms: self.at_ms,
            kind: &self.kind,
            prev_hash: &self.prev_hash,
        })
    }

    /// Decodes a stored body and its stored hash. The hash is taken as stored, not checked;
    /// compare it with [`chain_hash`] to verify.
    pub fn from_body(body: &[u8], hash: String) -> Result<StoredEvent, String> {
        let envelope: Envelope =
            serde_json::from_slice(body).map_err(|error| format!("the event envelope does not decode: {error}"))?;
        if envelope.v != ENVELOPE_VERSION {
            return Err(format!(
                "the event envelope has version {}, this switchyard reads version {ENVELOPE_VERSION}",
                envelope.v
            ));
        }
        Ok(StoredEvent {
            v: envelope.v,
            id: envelope.id,
            session: envelope.session,
            seq: envelope.seq,
            run: envelope.run,
            at_ms: envelope.at_ms,
            kind: envelope.kind,
            prev_hash: envelope.prev_hash,
            hash,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(seq: u64, prev_hash: &str) -> (StoredEvent, Vec<u8>) {
        let event = NewEvent {
            id: EventId::from_bytes([seq as u8; 16]),
            run: None,
            at_ms: 1_700_000_000_000,
            kind: EventKind::RunResumed,
        };
        StoredEvent::seal(SessionId::from_bytes([9; 16]), seq, prev_hash, event)
    }

    #[test]
    fn sealed_events_decode_from_their_body() {
        let (first, body) = sample(1, GENESIS_HASH);
        assert_eq!(first.hash, chain_hash(GENESIS_HASH, &body));
        assert_eq!(StoredEvent::from_body(&body, first.hash.clone()).unwrap(), first);
    }

    #[test]
    fn the_hash_depends_on_the_previous_hash() {
        let (first, _) = sample(1, GENESIS_HASH);
        let (second, _) = sample(2, &first.hash);
        let (unchained, _) = sample(2, GENESIS_HASH);
        assert_ne!(second.hash, unchained.hash);
        assert_eq!(second.prev_hash, first.hash);
    }

    #[test]
    fn unknown_envelope_versions_are_refused() {
        let (first, body) = sample(1, GENESIS_HASH);
        let text = String::from_utf8(body).unwrap().replace("\"v\":1", "\"v\":2");
        let error = StoredEvent::from_body(text.as_bytes(), first.hash).unwrap_err();
        assert!(error.contains("version 2"), "{error}");
    }
}
