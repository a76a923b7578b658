//! The clock and id source: the only places time and randomness enter switchyard.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use rand::RngCore;
use switchyard_core::token::Nonce;
use switchyard_core::{AttemptId, EventId, NodeId, RunId, SessionId};

/// Milliseconds since the Unix epoch.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now_ms(&self) -> i64;
}

/// Fresh bytes for ids, token nonces and key material.
pub trait IdSource: Send + Sync + std::fmt::Debug {
    /// Random bytes, for key material.
    fn bytes16(&self) -> [u8; 16];
    fn bytes12(&self) -> [u8; 12];

    /// Bytes for an id that keys a table or index: random unless the source orders them (see
    /// [`RandomIds`]).
    fn key16(&self) -> [u8; 16] {
        self.bytes16()
    }
    fn key12(&self) -> [u8; 12] {
        self.bytes12()
    }

    fn session(&self) -> SessionId {
        SessionId::from_bytes(self.key16())
    }
    fn run(&self) -> RunId {
        RunId::from_bytes(self.key16())
    }
    fn node(&self) -> NodeId {
        NodeId::from_bytes(self.key16())
    }
    fn attempt(&self) -> AttemptId {
        AttemptId::from_bytes(self.key16())
    }
    fn event(&self) -> EventId {
        EventId::from_bytes(self.key16())
    }
    fn nonce(&self) -> Nonce {
        Nonce(self.key12())
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|elapsed| i64::try_from(elapsed.as_millis()).unwrap_or(i64::MAX))
            .unwrap_or(0)
    }
}

/// Ids from the clock and the operating system's random source.
///
/// Ids and nonces start with the time in milliseconds (48 bits, big-endian) and end random: 80
/// random bits in an id, 48 in a nonce (which names a token; its signature is what cannot be
/// forged). Rows created together then sit together in every index keyed by them (events, nodes,
/// tokens, claims), so a commit writes a few neighbouring pages instead of one random page per
/// index, as UUIDv7 and ULID do. Key material stays wholly random.
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

impl RandomIds {
    fn ordered<const N: usize>() -> [u8; N] {
        let mut bytes = [0u8; N];
        let now = u64::try_from(SystemClock.now_ms()).unwrap_or(0);
        bytes[..TIME_PREFIX].copy_from_slice(&now.to_be_bytes()[8 - TIME_PREFIX..]);
        rand::rng().fill_bytes(&mut bytes[TIME_PREFIX..]);
        bytes
    }
}

/// How many leading bytes of an ordered id hold the time.
const TIME_PREFIX: usize = 6;

impl IdSource for RandomIds {
    fn bytes16(&self) -> [u8; 16] {
        let mut bytes = [0u8; 16];
        rand::rng().fill_bytes(&mut bytes);
        bytes
    }

    fn bytes12(&self) -> [u8; 12] {
        let mut bytes = [0u8; 12];
        rand::rng().fill_bytes(&mut bytes);
        bytes
    }

    fn key16(&self) -> [u8; 16] {
        Self::ordered()
    }

    fn key12(&self) -> [u8; 12] {
        Self::ordered()
    }
}

/// Deterministic ids for tests and benchmarks: a counter, so runs are reproducible.
#[derive(Debug, Default)]
pub struct CountingIds {
    next: AtomicU64,
}

impl IdSource for CountingIds {
    fn bytes16(&self) -> [u8; 16] {
        let value = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut bytes = [0u8; 16];
        bytes[8..].copy_from_slice(&value.to_be_bytes());
        bytes
    }

    fn bytes12(&self) -> [u8; 12] {
        let value = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let mut bytes = [0u8; 12];
        bytes[4..].copy_from_slice(&value.to_be_bytes());
        bytes
    }
}

/// A clock that always says the same time, for tests.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub i64);

impl Clock for FixedClock {
    fn now_ms(&self) -> i64 {
        self.0
    }
}

/// Formats milliseconds since the epoch as RFC 3339 UTC with milliseconds
/// (`2026-01-03T10:00:00.000Z`), as manifests, state documents and the console write times; an
/// instant outside what `jiff` represents (years -9999 to 9999) is clamped to its bounds.
pub fn rfc3339(ms: i64) -> String {
    let instant = jiff::Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 {
        jiff::Timestamp::MIN
    } else {
        jiff::Timestamp::MAX
    });
    instant.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_nonces_start_with_the_time_and_sort_by_it() {
        let before = u64::try_from(SystemClock.now_ms()).unwrap();
        let (node, nonce) = (RandomIds.node(), RandomIds.nonce());
        std::thread::sleep(std::time::Duration::from_millis(2));
        let (later_node, later_nonce) = (RandomIds.node(), RandomIds.nonce());
        let after = u64::try_from(SystemClock.now_ms()).unwrap();
        let time = |bytes: &[u8]| bytes[..TIME_PREFIX].iter().fold(0u64, |time, byte| time << 8 | u64::from(*byte));
        for stamped in [time(node.as_bytes()), time(&nonce.0), time(later_node.as_bytes()), time(&later_nonce.0)] {
            assert!((before..=after).contains(&stamped), "{before} ≤ {stamped} ≤ {after}");
        }
        assert!(node.as_bytes() < later_node.as_bytes());
        assert!(nonce < later_nonce);
        // As text too: nonces are hex, which sorts as the bytes do.
        assert!(nonce.to_hex() < later_nonce.to_hex());
        assert_ne!(RandomIds.node(), RandomIds.node(), "the rest is random");
    }

    #[test]
    fn key_material_carries_no_time() {
        let now = u64::try_from(SystemClock.now_ms()).unwrap().to_be_bytes();
        // The clock's top 40 bits (its last byte may tick between the two calls): random bytes
        // match them by chance once in 2^40.
        assert_ne!(RandomIds.bytes16()[..TIME_PREFIX - 1], now[8 - TIME_PREFIX..7]);
    }

    #[test]
    fn rfc3339_formats_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_767_434_400_123), "2026-01-03T10:00:00.123Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59.999Z");
    }
}
