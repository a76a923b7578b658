//! Which nodes of a run hold a checkpoint: what a drawing of the run marks, read from the
//! session's `checkpoint_recorded` events (a checkpoint records notes on a node; it makes none).

use std::collections::BTreeSet;

use switchyard_core::event::EventKind;
use switchyard_core::{NodeId, RunId};

use crate::{Error, Runtime};

/// How many events one read of the store takes while looking for checkpoints.
const EVENTS_PER_READ: u32 = 500;

impl Runtime {
    /// The nodes of `run` that hold at least one checkpoint (the agent's or one the engine wrote
    /// as a phase ended), each once, in id order.
    pub async fn checkpointed_nodes(&self, run: RunId) -> Result<Vec<NodeId>, Error> {
        let session = self.run(&crate::Target::Run(run)).await?.session;
        let mut nodes = BTreeSet::new();
        let mut after_seq = 0;
        loop {
            let events = self.events(session, after_seq, EVENTS_PER_READ).await?;
            let Some(last) = events.last() else { break };
            after_seq = last.seq;
            for event in &events {
                if let (Some(event_run), EventKind::CheckpointRecorded { node, .. }) = (event.run, &event.kind)
                    && event_run == run
                {
                    nodes.insert(*node);
                }
            }
            if events.len() < EVENTS_PER_READ as usize {
                break;
            }
        }
        Ok(nodes.into_iter().collect())
    }
}
