//! The change feed: what a subscriber learns when the store commits, so live views (the console's
//! pages, a runner waiting on a gate, MCP clients) wait on the store instead of polling it.
//!
//! A [`Change`] says only where a session's log now ends; a subscriber reads what it shows again.
//! The feed is a bounded broadcast: a subscriber told [`RecvError::Lagged`] must assume anything
//! changed, because it fell behind or because the store itself may have missed commits (see
//! [`Changes::recv`]).

use switchyard_core::id::SessionId;
use tokio::sync::broadcast;
pub use tokio::sync::broadcast::error::{RecvError, TryRecvError};

/// How many changes a subscriber may fall behind before it is told it lagged.
pub const CHANGE_BACKLOG: usize = 1024;

/// One commit's mark on the log: `session`'s events now end at `last_seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Change {
    pub session: SessionId,
    pub last_seq: u64,
}

/// What the feed carries.
#[derive(Debug, Clone, Copy)]
enum Notice {
    Change(Change),
    /// Commits may have gone unheard (another server's, while the store's listener reconnected).
    Gap,
}

/// A subscription to a store's changes.
#[derive(Debug)]
pub struct Changes {
    receiver: broadcast::Receiver<Notice>,
}

impl Changes {
    /// The next change. [`RecvError::Lagged`] means: read again everything you show. It comes
    /// when this subscriber fell more than [`CHANGE_BACKLOG`] changes behind (the count says by
    /// how many), and as `Lagged(0)` when the store may have missed commits, such as another
    /// server's while the store's connection that hears them was being made again.
    pub async fn recv(&mut self) -> Result<Change, RecvError> {
        match self.receiver.recv().await? {
            Notice::Change(change) => Ok(change),
            Notice::Gap => Err(RecvError::Lagged(0)),
        }
    }

    /// [`Changes::recv`] without waiting.
    pub fn try_recv(&mut self) -> Result<Change, TryRecvError> {
        match self.receiver.try_recv()? {
            Notice::Change(change) => Ok(change),
            Notice::Gap => Err(TryRecvError::Lagged(0)),
        }
    }
}

/// The sending side a backend keeps; [`Feed::publish`] never blocks and never fails, whether or
/// not anyone listens.
#[derive(Debug, Clone)]
pub struct Feed {
    sender: broadcast::Sender<Notice>,
}

impl Default for Feed {
    fn default() -> Self {
        Self { sender: broadcast::Sender::new(CHANGE_BACKLOG) }
    }
}

impl Feed {
    pub fn publish(&self, change: Change) {
        // No receiver is not an error: nobody is watching.
        let _ = self.sender.send(Notice::Change(change));
    }

    /// Tells every subscriber that commits may have gone unheard, so they read everything again.
    pub fn publish_gap(&self) {
        let _ = self.sender.send(Notice::Gap);
    }

    pub fn subscribe(&self) -> Changes {
        Changes { receiver: self.sender.subscribe() }
    }
}
