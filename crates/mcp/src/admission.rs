//! Who may hold a connection to `switchyard serve`: a bound on open connections, and a smaller one
//! on connections that have not yet sent a request the guard let through ("pending": still
//! sending headers, or refused by the guard).
//!
//! A pending connection costs its peer nothing but a socket, so when either bound is reached the
//! oldest pending connection is closed to make room for the new one: a crowd of half-sent
//! requests can never lock out a client that sends its request at once. Only when every open
//! connection belongs to a client the guard let through is a new connection refused.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

/// The bounds on connections.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConnectionBounds {
    pub max_connections: usize,
    pub max_pending: usize,
}

#[derive(Debug)]
pub(crate) struct Admission {
    bounds: ConnectionBounds,
    state: Mutex<AdmissionState>,
}

#[derive(Debug, Default)]
struct AdmissionState {
    /// Connections admitted and neither closed nor evicted.
    open: usize,
    next_id: u64,
    /// Pending connections, oldest first, with the token that closes each.
    pending: VecDeque<(u64, CancellationToken)>,
}

/// One admitted connection. Held by the connection's task (its drop frees the place) and, through
/// [`Pass`], by each of its requests.
#[derive(Debug)]
pub(crate) struct Seat {
    admission: Arc<Admission>,
    id: u64,
    /// Cancelled when the connection is evicted to make room.
    pub evicted: CancellationToken,
    passed: AtomicBool,
}

/// What a request carries (as an extension) to tell the admission its connection passed the guard.
#[derive(Debug, Clone)]
pub(crate) struct Pass(pub Arc<Seat>);

impl Admission {
    pub fn new(bounds: ConnectionBounds) -> Arc<Self> {
        let bounds =
            ConnectionBounds { max_connections: bounds.max_connections.max(1), max_pending: bounds.max_pending.max(1) };
        Arc::new(Self { bounds, state: Mutex::new(AdmissionState::default()) })
    }

    pub fn bounds(&self) -> ConnectionBounds {
        self.bounds
    }

    fn state(&self) -> MutexGuard<'_, AdmissionState> {
        // The state stays consistent under every operation below, so a panic elsewhere while the
        // lock was held leaves nothing half-done.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A seat for a new connection, evicting the oldest pending connection when a bound is
    /// reached; `None` when every open connection has passed the guard and none may be evicted.
    pub fn admit(self: &Arc<Self>) -> Option<Arc<Seat>> {
        let mut state = self.state();
        if state.open >= self.bounds.max_connections || state.pending.len() >= self.bounds.max_pending {
            let (_, oldest) = state.pending.pop_front()?;
            oldest.cancel();
            state.open -= 1;
        }
        state.open += 1;
        let id = state.next_id;
        state.next_id += 1;
        let evicted = CancellationToken::new();
        state.pending.push_back((id, evicted.clone()));
        Some(Arc::new(Seat { admission: Arc::clone(self), id, evicted, passed: AtomicBool::new(false) }))
    }
}

impl Seat {
    /// The connection sent a request the guard let through: it can no longer be evicted.
    pub fn passed(&self) {
        if self.passed.swap(true, Ordering::AcqRel) {
            return;
        }
        let mut state = self.admission.state();
        state.pending.retain(|(id, _)| *id != self.id);
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        let mut state = self.admission.state();
        // An evicted seat gave its place back when it was evicted.
        if !self.evicted.is_cancelled() {
            state.open -= 1;
            state.pending.retain(|(id, _)| *id != self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_pending_connection_makes_room_and_passed_ones_are_never_evicted() {
        let admission = Admission::new(ConnectionBounds { max_connections: 3, max_pending: 2 });
        let first = admission.admit().unwrap();
        first.passed();
        let second = admission.admit().unwrap();
        let third = admission.admit().unwrap();
        let fourth = admission.admit().unwrap();
        assert!(second.evicted.is_cancelled(), "two pending at most: the oldest went");
        assert!(!first.evicted.is_cancelled() && !third.evicted.is_cancelled() && !fourth.evicted.is_cancelled());
        third.passed();
        fourth.passed();
        assert!(admission.admit().is_none(), "every open connection passed the guard");
        drop(second);
        assert!(admission.admit().is_none(), "an evicted seat frees no second place");
        drop(first);
        assert!(admission.admit().is_some(), "a closed connection frees its place");
    }
}
