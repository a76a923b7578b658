//! Checkpoints off the commit path.
//!
//! SQLite's automatic checkpoint runs inside the commit that crosses its threshold: that commit
//! copies about a thousand pages into the database file and syncs it, so one advance in fifty
//! waited ten milliseconds or more. The writer connection instead registers a WAL hook that, past
//! [`CHECKPOINT_FRAMES`], nudges a thread of its own which runs a `PASSIVE` checkpoint on a
//! separate connection. A passive checkpoint never blocks the writer or the readers; frames a
//! reader still needs are copied on a later nudge.
//!
//! The WAL only starts over when a write begins after every frame was copied, which a writer
//! committing without pause may never leave room for. Past [`INLINE_CHECKPOINT_FRAMES`] the writer
//! therefore checkpoints itself after its commit, as SQLite would: by then the background thread
//! has copied nearly everything, so this copies only the last frames, and the next write restarts
//! the WAL.

use std::cell::RefCell;
use std::ffi::c_int;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use rusqlite::Connection;
use rusqlite::hooks::{CheckpointMode, Wal};

use switchyard_store::Error;

use crate::sql_error::Context;
use crate::writer::Counters;

/// WAL frames (pages) after which the checkpointer is nudged: SQLite's own default threshold.
pub(crate) const CHECKPOINT_FRAMES: c_int = 1000;

/// WAL frames after which the writer checkpoints after its own commit.
pub(crate) const INLINE_CHECKPOINT_FRAMES: c_int = 4 * CHECKPOINT_FRAMES;

thread_local! {
    /// The nudge of the writer running on this thread. The WAL hook is a plain function, and each
    /// store's writer connection lives on a thread of its own, so the thread identifies the store.
    static NUDGE: RefCell<Option<SyncSender<()>>> = const { RefCell::new(None) };
}

/// The checkpointer thread of one store.
pub(crate) struct Checkpointer {
    nudge: SyncSender<()>,
    thread: JoinHandle<()>,
}

impl Checkpointer {
    /// Opens the checkpointer's connection and starts its thread.
    pub(crate) fn start(path: &Path, busy_timeout: Duration, counters: Arc<Counters>) -> Result<Self, Error> {
        let connection = Connection::open(path).doing(&format!("opening {} to checkpoint", path.display()))?;
        crate::schema::configure(&connection, busy_timeout)?;
        // Nudges that arrive while a checkpoint runs fold into one.
        let (nudge, nudged) = sync_channel(1);
        let thread = std::thread::Builder::new()
            .name("switchyard-store-checkpoint".to_owned())
            .spawn(move || run(&connection, &nudged, &counters))
            .map_err(|error| Error::Io { message: format!("starting the checkpoint thread: {error}") })?;
        Ok(Self { nudge, thread })
    }

    /// Routes the WAL hook of `writer`, which must be used on the calling thread from now on, to
    /// this checkpointer. This replaces SQLite's automatic checkpoint on that connection.
    pub(crate) fn attach(&self, writer: &Connection) {
        NUDGE.with(|nudge| *nudge.borrow_mut() = Some(self.nudge.clone()));
        writer.wal_hook(Some(after_commit));
    }

    /// Stops the thread once its checkpoint in progress is done, closing its connection, so the
    /// writer's connection can close last (only the last connection removes the WAL).
    pub(crate) fn stop(self, writer: &Connection) {
        writer.wal_hook(None);
        NUDGE.with(|nudge| nudge.borrow_mut().take());
        drop(self.nudge);
        if self.thread.join().is_err() {
            tracing::error!("the store checkpoint thread panicked");
        }
    }
}

/// The writer connection's WAL hook: runs after each commit with the WAL's length in frames.
fn after_commit(wal: &Wal, frames: c_int) -> rusqlite::Result<()> {
    if frames >= INLINE_CHECKPOINT_FRAMES {
        // The commit is durable already; a checkpoint that fails leaves the frames for the next.
        if let Err(error) = wal.checkpoint_v2(CheckpointMode::PASSIVE) {
            tracing::debug!(%error, "an inline checkpoint stopped early; the next one continues");
        }
    } else if frames >= CHECKPOINT_FRAMES {
        NUDGE.with(|nudge| {
            if let Some(nudge) = nudge.borrow().as_ref() {
                // Full means a nudge is already waiting: nothing more to say.
                let _ = nudge.try_send(());
            }
        });
    }
    Ok(())
}

fn run(connection: &Connection, nudged: &Receiver<()>, counters: &Counters) {
    while nudged.recv().is_ok() {
        // A checkpoint that cannot finish loses nothing: the frames stay in the WAL for the next.
        match connection.execute_batch("PRAGMA wal_checkpoint(PASSIVE);") {
            Ok(()) => {
                counters.checkpoints.fetch_add(1, Ordering::SeqCst);
            }
            Err(error) => tracing::debug!(%error, "a background checkpoint stopped early; the next one continues"),
        }
    }
}
