//! Checkpoints off the commit path.
//!
//! SQLite's automatic checkpoint runs inside the commit that crosses its threshold: that commit
//! copies about a thousand pages into the database file and syncs it, so one advance in fifty
//! waited ten milliseconds or more (BENCHMARKS.md, "Advance (in process and over MCP)"). The writer
//! connection instead registers a WAL hook that checkpoints each WAL once, in two passes:
//!
//! 1. Past [`CHECKPOINT_FRAMES`] it nudges a thread of its own, which runs a `PASSIVE` checkpoint
//!    on a separate connection: the bulk of the copy, off the commit path. A passive checkpoint
//!    never blocks the writer or the readers.
//! 2. The writer keeps committing meanwhile, so the copy ends a few commits behind. After the
//!    first commit that follows the pass, the writer copies those last frames itself (a few
//!    pages and two syncs, after the commit it follows). Every frame is then in the database, so
//!    the next write starts the WAL over from its beginning, where overwriting is cheaper to sync
//!    than appending.
//!
//! Nudging on every commit past the threshold instead, as this did before, checkpointed about
//! every other commit once the WAL was long: each pass synced both files and wrote the hot pages
//! again, and the WAL rarely started over. A reader still on an old snapshot can keep the WAL from
//! starting over; the cycle then repeats, and past [`INLINE_CHECKPOINT_FRAMES`] the writer copies
//! after every commit, as SQLite would.

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

use crate::Counters;
use crate::sql_error::Context;

/// WAL frames (pages) after which the checkpointer is nudged: SQLite's own default threshold.
const CHECKPOINT_FRAMES: c_int = 1000;

/// WAL frames after which the writer checkpoints after each of its commits, whatever the
/// background pass is doing.
const INLINE_CHECKPOINT_FRAMES: c_int = 4 * CHECKPOINT_FRAMES;

thread_local! {
    /// The checkpoint cycle of the writer connection committing on this thread. The WAL hook is a
    /// plain function, so the cycle is put here for the length of each commit ([`Cycle::around`]):
    /// a thread commits for one store at a time.
    static CYCLE: RefCell<Option<Cycle>> = const { RefCell::new(None) };
}

/// Where the writer stands in checkpointing the current WAL.
pub(crate) struct Cycle {
    nudge: SyncSender<()>,
    counters: Arc<Counters>,
    /// The background passes finished when this WAL's pass was asked for; `None` while the WAL
    /// is short or its pass has not been asked for yet.
    asked_after: Option<u64>,
}

/// The checkpointer thread of one store.
pub(crate) struct Checkpointer {
    nudge: SyncSender<()>,
    counters: Arc<Counters>,
    thread: JoinHandle<()>,
}

impl Checkpointer {
    /// Opens the checkpointer's connection and starts its thread.
    pub(crate) fn start(path: &Path, busy_timeout: Duration, counters: Arc<Counters>) -> Result<Self, Error> {
        let connection = Connection::open(path).doing(&format!("opening {} to checkpoint", path.display()))?;
        crate::schema::configure(&connection, busy_timeout)?;
        // Nudges that arrive while a checkpoint runs fold into one.
        let (nudge, nudged) = sync_channel(1);
        let thread_counters = Arc::clone(&counters);
        let thread = std::thread::Builder::new()
            .name("switchyard-store-checkpoint".to_owned())
            .spawn(move || run(&connection, &nudged, &thread_counters))
            .map_err(|error| Error::Io { message: format!("starting the checkpoint thread: {error}") })?;
        Ok(Self { nudge, counters, thread })
    }

    /// Routes the WAL hook of `writer` to this checkpointer, replacing SQLite's automatic
    /// checkpoint on that connection. Its commits must run inside [`Cycle::around`] with the
    /// cycle returned.
    pub(crate) fn attach(&self, writer: &Connection) -> Cycle {
        writer.wal_hook(Some(after_commit));
        Cycle { nudge: self.nudge.clone(), counters: Arc::clone(&self.counters), asked_after: None }
    }

    /// Stops the thread once its checkpoint in progress is done, closing its connection, so the
    /// writer's connection can close last (only the last connection removes the WAL). `cycle` is
    /// what [`Checkpointer::attach`] returned: the thread stops once nothing can nudge it.
    pub(crate) fn stop(self, writer: &Connection, cycle: Option<Cycle>) {
        writer.wal_hook(None);
        drop(cycle);
        drop(self.nudge);
        if self.thread.join().is_err() {
            tracing::error!("the store checkpoint thread panicked");
        }
    }
}

/// The writer connection's WAL hook: runs after each commit with the WAL's length in frames.
fn after_commit(wal: &Wal, frames: c_int) -> rusqlite::Result<()> {
    CYCLE.with(|slot| {
        let mut slot = slot.borrow_mut();
        let Some(cycle) = slot.as_mut() else { return };
        if !cycle.copy_now(frames) {
            return;
        }
        // The commit is durable already; a checkpoint that fails leaves the frames for the next.
        match wal.checkpoint_v2(CheckpointMode::PASSIVE) {
            Ok(_) => {
                cycle.counters.inline_checkpoints.fetch_add(1, Ordering::SeqCst);
            }
            Err(error) => tracing::debug!(%error, "an inline checkpoint stopped early; the next one continues"),
        }
    });
    Ok(())
}

impl Cycle {
    /// Runs `commit` (statements of the writer connection this cycle was attached to) with the
    /// cycle where the WAL hook finds it, on whichever thread commits, and takes it back after.
    pub(crate) fn around<T>(cycle: &mut Option<Cycle>, commit: impl FnOnce() -> T) -> T {
        /// Takes the cycle back even if `commit` panics.
        struct TakeBack<'a>(&'a mut Option<Cycle>);
        impl Drop for TakeBack<'_> {
            fn drop(&mut self) {
                *self.0 = CYCLE.with(|slot| slot.borrow_mut().take());
            }
        }
        CYCLE.with(|slot| *slot.borrow_mut() = cycle.take());
        let _take_back = TakeBack(cycle);
        commit()
    }

    /// Moves the cycle on after a commit that left `frames` in the WAL: nudges the background
    /// pass once per WAL, and answers whether the writer should copy the rest itself now.
    fn copy_now(&mut self, frames: c_int) -> bool {
        if frames < CHECKPOINT_FRAMES {
            // The WAL started over (or has not grown yet): the next long one gets its own pass.
            self.asked_after = None;
            return false;
        }
        let passes = self.counters.checkpoints.load(Ordering::SeqCst);
        match self.asked_after {
            None if frames < INLINE_CHECKPOINT_FRAMES => {
                // Full means a nudge is already waiting: the pass it starts serves this WAL too.
                let _ = self.nudge.try_send(());
                self.asked_after = Some(passes);
                false
            }
            Some(asked_after) if passes == asked_after && frames < INLINE_CHECKPOINT_FRAMES => false,
            _ => {
                // The pass is done (or the WAL grew long regardless): copy what it left. A WAL
                // that does not start over after this one gets another pass.
                self.asked_after = None;
                true
            }
        }
    }
}

fn run(connection: &Connection, nudged: &Receiver<()>, counters: &Counters) {
    while nudged.recv().is_ok() {
        // A checkpoint that cannot finish loses nothing: the frames stay in the WAL for the next.
        if let Err(error) = connection.execute_batch("PRAGMA wal_checkpoint(PASSIVE);") {
            tracing::debug!(%error, "a background checkpoint stopped early; the next one continues");
        }
        counters.checkpoints.fetch_add(1, Ordering::SeqCst);
    }
}
