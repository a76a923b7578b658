//! The rows the writer wrote lately, read back from memory instead of the file.
//!
//! Every append reads what the previous append to its session wrote: the session's last seq and
//! hash to chain onto, the run its guard names, and for the projections the session row, the run
//! row and the parent node, which is the run's previous tip. Reading them back through SQL
//! (statement, b-tree descent, decoding the node's state) was about a sixth of the writer's work
//! per advance. The writer keeps what it wrote here instead and reads the file only for what it
//! does not hold.
//!
//! What is held stays true only while this writer is the only one writing the file. SQLite's
//! `data_version` changes when another connection (another process, a copy's import) commits, so
//! the writer checks it at the start of each transaction, while it holds the write lock, and
//! forgets everything when it moved. Within a transaction, rows go in as each request writes
//! them, so the next request of a grouped commit reads what the previous one wrote, as it would
//! from the file; when any request or the commit fails, its rows may not be in the file, and the
//! writer forgets everything again.

use std::collections::HashMap;
use std::hash::Hash;

use rusqlite::Connection;

use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_store::{Error, NodeRecord, RunRecord, SessionRecord};

use crate::sql_error::Context;

/// The most sessions, runs and nodes held. Enough for every session of a busy server to find its
/// rows (the benchmarks run 32 writers at once).
const MAX_ROWS: usize = 256;

const DATA_VERSION: &str = "PRAGMA data_version";

/// The largest node state held, encoded: a node is held for its next child, which reads it back
/// whole, and a state holding a large context is not worth its memory.
pub(crate) const MAX_NODE_STATE_BYTES: usize = 16 * 1024;

/// See the module documentation.
#[derive(Debug)]
pub(crate) struct Recent {
    /// `PRAGMA data_version` when the rows were last known true; `None` before the first check.
    data_version: Option<i64>,
    /// Each session's last event: its seq and hash.
    heads: Held<SessionId, (u64, String)>,
    sessions: Held<SessionId, SessionRecord>,
    runs: Held<RunId, RunRecord>,
    nodes: Held<NodeId, NodeRecord>,
}

impl Default for Recent {
    fn default() -> Self {
        Self {
            data_version: None,
            heads: Held::new(MAX_ROWS),
            sessions: Held::new(MAX_ROWS),
            runs: Held::new(MAX_ROWS),
            nodes: Held::new(MAX_ROWS),
        }
    }
}

impl Recent {
    /// Called at the start of each write transaction, while it holds the write lock:
    /// forgets everything if another connection committed to the file since the last check.
    pub(crate) fn check(&mut self, connection: &Connection) -> Result<(), Error> {
        let version: i64 = connection
            .prepare_cached(DATA_VERSION)
            .and_then(|mut statement| statement.query_row([], |row| row.get(0)))
            .doing("reading the store's data version")?;
        if self.data_version != Some(version) {
            self.forget();
            self.data_version = Some(version);
        }
        Ok(())
    }

    /// Forgets every row: after a failed request or commit, and when the projections are rebuilt.
    pub(crate) fn forget(&mut self) {
        self.heads.clear();
        self.sessions.clear();
        self.runs.clear();
        self.nodes.clear();
    }

    pub(crate) fn head(&self, session: SessionId) -> Option<&(u64, String)> {
        self.heads.get(&session)
    }

    pub(crate) fn session(&self, id: SessionId) -> Option<&SessionRecord> {
        self.sessions.get(&id)
    }

    pub(crate) fn run(&self, id: RunId) -> Option<&RunRecord> {
        self.runs.get(&id)
    }

    pub(crate) fn node(&self, id: NodeId) -> Option<&NodeRecord> {
        self.nodes.get(&id)
    }

    pub(crate) fn wrote_head(&mut self, session: SessionId, seq: u64, hash: String) {
        self.heads.insert(session, (seq, hash));
    }

    pub(crate) fn wrote_session(&mut self, record: &SessionRecord) {
        self.sessions.insert(record.id, record.clone());
    }

    pub(crate) fn wrote_run(&mut self, record: &RunRecord) {
        self.runs.insert(record.id, record.clone());
    }

    /// Holds a node whose state encoded to `state_bytes`, unless that is too large to hold.
    pub(crate) fn wrote_node(&mut self, record: &NodeRecord, state_bytes: usize) {
        if state_bytes <= MAX_NODE_STATE_BYTES {
            self.nodes.insert(record.id, record.clone());
        } else {
            self.nodes.remove(&record.id);
        }
    }

    /// A node whose child count alone was written: a held one takes the new count; one not held
    /// stays so (its state's size is not known here).
    pub(crate) fn wrote_child_count(&mut self, record: &NodeRecord) {
        if let Some(held) = self.nodes.get_mut(&record.id) {
            held.child_count = record.child_count;
        }
    }
}

/// A map that holds at most `most` entries, in two generations: entries go into the young one,
/// and when that holds half of `most`, it becomes the old one and the old one is dropped. So an
/// entry stays held while fewer than `most / 2` others went in after it: under 32 sessions
/// advancing in turn, each session's rows from its last advance are always held, where emptying a
/// full map lost every session's rows at once.
#[derive(Debug)]
struct Held<K, V> {
    young: HashMap<K, V>,
    old: HashMap<K, V>,
    most: usize,
}

impl<K: Eq + Hash, V> Held<K, V> {
    fn new(most: usize) -> Self {
        Self { young: HashMap::new(), old: HashMap::new(), most }
    }

    fn get(&self, key: &K) -> Option<&V> {
        self.young.get(key).or_else(|| self.old.get(key))
    }

    fn get_mut(&mut self, key: &K) -> Option<&mut V> {
        match self.young.get_mut(key) {
            Some(value) => Some(value),
            None => self.old.get_mut(key),
        }
    }

    /// A value the old generation still holds for `key` is shadowed by this one, and dropped
    /// with that generation.
    fn insert(&mut self, key: K, value: V) {
        if self.young.len() >= self.most / 2 {
            std::mem::swap(&mut self.young, &mut self.old);
            self.young.clear();
        }
        self.young.insert(key, value);
    }

    fn remove(&mut self, key: &K) {
        self.young.remove(key);
        self.old.remove(key);
    }

    fn clear(&mut self) {
        self.young.clear();
        self.old.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::Held;

    /// An entry is held while fewer than `most / 2` others went in after it, a value written again
    /// shadows the older one, and the map never holds more than `most` entries.
    #[test]
    fn a_held_map_keeps_the_latest_half_and_stays_bounded() {
        let most = 8;
        let mut held = Held::new(most);
        for key in 0..100_u32 {
            held.insert(key, key);
            for earlier in key.saturating_sub(most as u32 / 2 - 1)..=key {
                assert!(held.get(&earlier).is_some(), "{earlier} after {key}");
            }
            assert!(held.young.len() + held.old.len() <= most);
        }
        assert_eq!(held.get(&90), None);
        held.insert(96, 1);
        assert_eq!(held.get(&96), Some(&1), "the newest value shadows an older one");
        held.remove(&96);
        assert_eq!(held.get(&96), None);
        *held.get_mut(&97).unwrap() = 7;
        assert_eq!(held.get(&97), Some(&7));
    }
}
