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

/// Fresh random bytes for ids and token nonces.
pub trait IdSource: Send + Sync + std::fmt::Debug {
    fn bytes16(&self) -> [u8; 16];
    fn bytes12(&self) -> [u8; 12];

    fn session(&self) -> SessionId {
        SessionId::from_bytes(self.bytes16())
    }
    fn run(&self) -> RunId {
        RunId::from_bytes(self.bytes16())
    }
    fn node(&self) -> NodeId {
        NodeId::from_bytes(self.bytes16())
    }
    fn attempt(&self) -> AttemptId {
        AttemptId::from_bytes(self.bytes16())
    }
    fn event(&self) -> EventId {
        EventId::from_bytes(self.bytes16())
    }
    fn nonce(&self) -> Nonce {
        Nonce(self.bytes12())
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

/// Ids from the operating system's random source.
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomIds;

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
