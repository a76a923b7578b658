//! The change feed: what a subscriber learns when the store commits, so live views (the console's
//! pages, a runner waiting on a gate, MCP clients) wait on the store instead of polling it.
//!
//! A [`Change`] says only where a session's log now ends; a subscriber reads what it shows again.
//! The feed is a bounded broadcast: a subscriber that falls behind gets
//! [`tokio::sync::broadcast::error::RecvError::Lagged`] and must assume anything changed.

use switchyard_core::id::SessionId;

/// How many changes a subscriber may fall behind before it is told it lagged.
pub const CHANGE_BACKLOG: usize = 1024;

/// One commit's mark on the log: `session`'s events now end at `last_seq`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Change {
    pub session: SessionId,
    pub last_seq: u64,
}

/// A subscription to a store's changes.
pub type Changes = tokio::sync::broadcast::Receiver<Change>;

/// The sending side a backend keeps; [`Feed::publish`] never blocks and never fails, whether or
/// not anyone listens.
#[derive(Debug, Clone)]
pub struct Feed {
    sender: tokio::sync::broadcast::Sender<Change>,
}

impl Default for Feed {
    fn default() -> Self {
        Self { sender: tokio::sync::broadcast::Sender::new(CHANGE_BACKLOG) }
    }
}

impl Feed {
    pub fn publish(&self, change: Change) {
        // No receiver is not an error: nobody is watching.
        let _ = self.sender.send(change);
    }

    pub fn subscribe(&self) -> Changes {
        self.sender.subscribe()
    }
}
