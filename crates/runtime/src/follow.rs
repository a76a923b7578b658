//! Who hears of a command once its batch is durable, in the process that committed it: the
//! projections a door keeps beside the log (a run's output folder and state document,
//! `switchyard-run-folder`) follow the runtime's commits here instead of each command writing
//! them itself.
//!
//! Why not the store's change feed ([`crate::Changes`]): a change names a session and a sequence
//! number, so a follower would read back what the command had just computed (the node's state,
//! the step it hands out), and every process sharing the store would project every commit, each
//! racing the others for the same files. A follower is told once, by the process that committed,
//! with what that process knew.

use switchyard_core::event::EventKind;
use switchyard_core::{Control, NodeId, NodeState};
use switchyard_engine::PendingStep;
use switchyard_store::NodeRecord;

use crate::{RunContext, Runtime};

/// What a command committed, as the runtime knew it when its batch became durable.
#[derive(Debug)]
pub struct Committed<'a> {
    /// The run as the command found it (a new run: as it started).
    pub context: &'a RunContext,
    /// The node the command acted on; for a start, the run's first node.
    pub acted_on: &'a NodeRecord,
    /// The node the command created, when it created one.
    pub created: Option<(NodeId, &'a NodeState)>,
    /// The run's control once the command committed.
    pub control: Control,
    /// The session's last sequence number once the command committed.
    pub last_seq: u64,
    /// The events the command recorded, in order.
    pub events: &'a [EventKind],
    /// The step the run now hands out, if it hands one out.
    pub step: Option<&'a PendingStep>,
    /// Whether the command started the run.
    pub started: bool,
}

/// Something that follows this process's commits (see the module doc).
///
/// `committed` is called once per committed command, after the commit and before the command
/// answers; never for a replay or a refused batch. The command has happened whatever a follower
/// does, so a follower reports its own failures (a log line) and whoever needs what it keeps
/// rebuilds it from the log.
#[async_trait::async_trait]
pub trait Follower: Send + Sync + std::fmt::Debug {
    async fn committed(&self, runtime: &Runtime, commit: &Committed<'_>);
}

impl Runtime {
    /// Tells every follower of a commit.
    pub(crate) async fn tell_followers(&self, commit: &Committed<'_>) {
        for follower in &self.followers {
            follower.committed(self, commit).await;
        }
    }

    /// Whether anyone follows this runtime's commits: a command keeps what it would tell them
    /// only then.
    pub(crate) fn followed(&self) -> bool {
        !self.followers.is_empty()
    }
}
