//! The agent runner's turns in a run's log: [`Runtime::record_turn`] appends one `model_turn`
//! event in its own small batch. [`Runtime::transcript`] reads them back, in order, for
//! `switchyard transcript`; [`Runtime::last_turn`] and [`Runtime::step_transcript`] read from
//! the end of the log, for a runner picking a run up again.
//!
//! A turn changes no engine state: its event is a record, never read by the engine, so recording
//! one takes no token, claims no idempotency key and is written whatever the run's control (a
//! turn that happened while someone paused the run still happened).

use switchyard_core::RunId;
use switchyard_core::event::EventKind;
use switchyard_core::turn::ModelTurn;
use switchyard_core::workflow::StepId;
use switchyard_store::{Batch, MAX_PAGE};

use crate::{Error, Runtime};

/// One recorded turn with where and when it sits in the log.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedTurn {
    /// The event's sequence number in the session's log.
    pub seq: u64,
    pub at_ms: i64,
    pub turn: ModelTurn,
}

impl Runtime {
    /// Appends one turn of a model driving `run` to the run's log, in a batch of its own.
    ///
    /// The caller bounds the bodies (`switchyard_core::turn::bounded`); the turn must never hold
    /// a token, an API key or an internal id the model was not shown.
    pub async fn record_turn(&self, run: RunId, turn: ModelTurn) -> Result<(), Error> {
        let record = self.store.run(run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
        let batch = Batch {
            session: record.session,
            events: self.stamp(run, vec![EventKind::ModelTurn(Box::new(turn))]),
            claim: None,
            tokens: Vec::new(),
            pin: None,
            guard: None,
        };
        self.commit(batch).await?;
        Ok(())
    }

    /// Every turn recorded for `run`, oldest first, read from its session's log page by page.
    pub async fn transcript(&self, run: RunId) -> Result<Vec<RecordedTurn>, Error> {
        let record = self.store.run(run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
        let mut turns = Vec::new();
        let mut after_seq = 0;
        loop {
            let page = self.store.events(record.session, after_seq, MAX_PAGE).await?;
            let Some(last) = page.last() else { break };
            after_seq = last.seq;
            let full = page.len() == MAX_PAGE as usize;
            for event in page {
                if let (Some(event_run), EventKind::ModelTurn(turn)) = (event.run, event.kind)
                    && event_run == run
                {
                    turns.push(RecordedTurn { seq: event.seq, at_ms: event.at_ms, turn: *turn });
                }
            }
            if !full {
                break;
            }
        }
        Ok(turns)
    }

    /// The newest turn recorded for `run`, read from the end of its session's log backwards, a
    /// page at a time. A runner picking a run up numbers its next turn from it; its turns are
    /// among the log's last events unless the run went on without it, so this reads one page
    /// where [`Runtime::transcript`] reads the whole log.
    pub async fn last_turn(&self, run: RunId) -> Result<Option<RecordedTurn>, Error> {
        let record = self.store.run(run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
        let mut before = self.store.session(record.session).await?.map_or(0, |session| session.last_seq);
        while before > 0 {
            let after = before.saturating_sub(u64::from(MAX_PAGE));
            let count = u32::try_from(before - after).unwrap_or(MAX_PAGE);
            for event in self.store.events(record.session, after, count).await?.into_iter().rev() {
                if let (Some(event_run), EventKind::ModelTurn(turn)) = (event.run, event.kind)
                    && event_run == run
                {
                    return Ok(Some(RecordedTurn { seq: event.seq, at_ms: event.at_ms, turn: *turn }));
                }
            }
            before = after;
        }
        Ok(None)
    }

    /// The turns of `run`'s latest stretch on `step`, oldest first, at most `limit` (the newest):
    /// read from the end of the log back to the first turn of another step, so a runner picking
    /// the run up mid-step gives the model the conversation it had, reading only that stretch.
    pub async fn step_transcript(&self, run: RunId, step: &StepId, limit: usize) -> Result<Vec<RecordedTurn>, Error> {
        let record = self.store.run(run).await?.ok_or_else(|| self.not_found("run", run.to_string()))?;
        let mut before = self.store.session(record.session).await?.map_or(0, |session| session.last_seq);
        let mut turns = Vec::new();
        'pages: while before > 0 && turns.len() < limit {
            let after = before.saturating_sub(u64::from(MAX_PAGE));
            let count = u32::try_from(before - after).unwrap_or(MAX_PAGE);
            for event in self.store.events(record.session, after, count).await?.into_iter().rev() {
                let (Some(event_run), EventKind::ModelTurn(turn)) = (event.run, event.kind) else { continue };
                if event_run != run {
                    continue;
                }
                if turn.step != *step || turns.len() == limit {
                    break 'pages;
                }
                turns.push(RecordedTurn { seq: event.seq, at_ms: event.at_ms, turn: *turn });
            }
            before = after;
        }
        turns.reverse();
        Ok(turns)
    }
}
