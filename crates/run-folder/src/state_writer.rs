//! Writes state documents off the request path.
//!
//! Regenerating `state/workflow.md` after a commit is a rename over the previous file, and on ext4
//! a rename over a file starts its writeback (`auto_da_alloc`): 0.2–1.4 ms, as much as the commit
//! itself (BENCHMARKS.md, "Advance (in process and over MCP)"). The answer to an advance does not
//! depend on the document, so a thread of its own writes it: the latest text per document, in the
//! order they were queued. Whoever reads a document first waits for what was queued before
//! ([`StateWriter::flush`]). Reads go through
//! [`RunFolders::state_document`](crate::RunFolders::state_document), which does, and dropping the
//! run folders writes what is queued.
//!
//! A run that moves faster than [`REWRITE_INTERVAL`] has its document rewritten at most that
//! often: the first document after a quiet spell is written at once, later ones wait out the
//! interval and only the last of them is rendered. An agent editing the file between turns never
//! waits; a burst of advances (an MCP client looping, 32 clients at once) costs one render per run
//! and interval instead of one per advance. A flush writes whatever waits.
//!
//! The projection each document was rendered from is remembered, so the next event extends it
//! without reading (and parsing) a file that may not even be written yet. That includes a run's
//! first document, which the start writes itself ([`StateWriter::written_elsewhere`]). At most
//! [`MAX_REMEMBERED`] written ones are kept; a forgotten one is read back from its file.
//!
//! The documents wait in a map the caller and the thread share under one lock, and the caller
//! wakes the thread only when a document falls due before the thread would wake by itself: an
//! advance inside a folder's interval leaves its document there and costs no wake-up of a thread
//! that, on a virtual machine, sleeps on another CPU.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use switchyard_config::atomic_file::{Durability, Readers, write_atomically};

use crate::document::{Projection, StateRender};
use crate::format::{IterationState, write_iteration_state};

/// A state document to write: its text (with the iteration state of the same tip), or what to
/// render both from on the writer's thread.
#[derive(Debug)]
pub(crate) enum Document {
    Text(String, IterationState),
    Render(Box<StateRender>),
}

impl Document {
    /// `_iteration_state.json`, written with the document.
    fn iteration_state(&self) -> IterationState {
        match self {
            Self::Text(_, iteration) => iteration.clone(),
            Self::Render(render) => render.iteration_state(),
        }
    }

    /// The text; `None` (logged) when it cannot be rendered.
    fn into_text(self, folder: &Path) -> Option<String> {
        match self {
            Self::Text(text, _) => Some(text),
            Self::Render(render) => render
                .render()
                .inspect_err(|error| {
                    tracing::warn!(folder = %folder.display(), %error, "state document not rendered; it is rebuilt on its next read");
                })
                .ok(),
        }
    }
}

/// How often one run folder's document is rewritten at most.
const REWRITE_INTERVAL: Duration = Duration::from_millis(250);

/// The most projections of written documents remembered (those still queued are always kept).
const MAX_REMEMBERED: usize = 1024;

/// The projection of a run folder's latest document, and whether that document is written.
#[derive(Debug)]
struct Latest {
    projection: Arc<Projection>,
    written: bool,
}

/// What the writer thread is doing, as the callers see it under the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Thread {
    /// Writing, or about to look at the waiting documents: it sees anything queued before it
    /// sleeps, so nobody needs to wake it.
    #[default]
    Awake,
    /// Asleep until the given instant, when its earliest waiting document falls due, or until
    /// woken when it is `None`.
    Asleep(Option<Instant>),
    /// Never started, or stopped by a panic: callers write their documents themselves.
    Gone,
}

impl Thread {
    /// Whether a document due at `due` must wake the thread to be written on time.
    fn wakes_for(self, due: Instant) -> bool {
        match self {
            Self::Awake | Self::Gone => false,
            Self::Asleep(until) => until.is_none_or(|until| due < until),
        }
    }
}

/// Everything the callers and the writer thread share, under one lock.
#[derive(Debug, Default)]
struct Inner {
    /// The latest projection of each run folder this writer has seen.
    remembered: HashMap<PathBuf, Latest>,
    /// The latest document of each folder not yet handed to the thread, with its event's `seq`.
    waiting: BTreeMap<PathBuf, (Document, u64)>,
    /// Folders written less than an interval ago (older entries are dropped as they pass).
    written_at: HashMap<PathBuf, Instant>,
    /// Flushes to answer once everything that waits now is written.
    flushes: Vec<oneshot::Sender<()>>,
    thread: Thread,
    /// Set when the last handle is dropped: the thread writes what waits and stops.
    closing: bool,
    /// How many times a caller woke the thread (for the tests).
    wake_ups: u64,
}

impl Inner {
    /// Makes `projection` the latest of `folder`, unless a later one is already there; says
    /// whether it did.
    fn remember(&mut self, folder: &Path, projection: Arc<Projection>, written: bool) -> bool {
        if self.remembered.get(folder).is_some_and(|latest| latest.projection.seq > projection.seq) {
            return false;
        }
        if self.remembered.len() >= MAX_REMEMBERED && !self.remembered.contains_key(folder) {
            self.remembered.retain(|_, latest| !latest.written);
        }
        self.remembered.insert(folder.to_owned(), Latest { projection, written });
        true
    }

    /// Records that `folder`'s document of `seq` is written, unless a newer one was queued
    /// meanwhile.
    fn mark_written(&mut self, folder: &Path, seq: u64) {
        if let Some(latest) = self.remembered.get_mut(folder).filter(|latest| latest.projection.seq == seq) {
            latest.written = true;
        }
    }

    /// Marks the thread awake for the caller about to notify it, so that callers after it, before
    /// the thread takes the lock, do not notify it again.
    fn wake(&mut self) {
        self.thread = Thread::Awake;
        self.wake_ups += 1;
    }

    /// When `folder`'s next document may be written: at once, or an interval after its last.
    fn due(&self, folder: &Path, interval: Duration, now: Instant) -> Instant {
        self.written_at.get(folder).map_or(now, |at| *at + interval)
    }
}

/// The shared state and the condition variable the thread sleeps on.
#[derive(Debug, Default)]
struct Shared {
    inner: Mutex<Inner>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[derive(Debug)]
pub(crate) struct StateWriter {
    shared: Arc<Shared>,
    interval: Duration,
    /// `None` when the thread could not start: documents are then written in the caller's thread.
    thread: Option<JoinHandle<()>>,
}

impl StateWriter {
    /// Starts the writer thread. If the thread cannot start, documents are written in the
    /// caller's thread instead.
    pub(crate) fn start() -> Self {
        Self::with_interval(REWRITE_INTERVAL)
    }

    /// Starts the writer thread, rewriting each folder's document at most once per `interval`.
    fn with_interval(interval: Duration) -> Self {
        let shared = Arc::<Shared>::default();
        let spawned = std::thread::Builder::new().name("switchyard-state-writer".to_owned()).spawn({
            let shared = Arc::clone(&shared);
            move || run(&shared, interval)
        });
        let thread = spawned
            .inspect_err(|error| {
                tracing::warn!(%error, "state writer thread not started; state documents are written inline");
            })
            .ok();
        if thread.is_none() {
            shared.lock().thread = Thread::Gone;
        }
        Self { shared, interval, thread }
    }

    /// The projection of `folder`'s latest document, written or queued, if remembered.
    pub(crate) fn projection(&self, folder: &Path) -> Option<Projection> {
        self.shared.lock().remembered.get(folder).map(|latest| Projection::clone(&latest.projection))
    }

    /// Queues `document` as the state document of `folder`, of `projection`, unless a document of
    /// a later event is already queued or written: a caller that read the run just before another
    /// committed must not put the older document back. Of several documents queued for one folder,
    /// only the last is rendered and written.
    pub(crate) fn write(&self, folder: &Path, document: Document, projection: Arc<Projection>) {
        let seq = projection.seq;
        let mut inner = self.shared.lock();
        if !inner.remember(folder, projection, false) {
            return;
        }
        if inner.thread == Thread::Gone {
            drop(inner);
            write_one(folder, document);
            self.shared.lock().mark_written(folder, seq);
            return;
        }
        let due = inner.due(folder, self.interval, Instant::now());
        inner.waiting.insert(folder.to_owned(), (document, seq));
        if inner.thread.wakes_for(due) {
            inner.wake();
            drop(inner);
            self.shared.wake.notify_one();
        }
    }

    /// Remembers `projection` as the one of `folder`'s document, which the caller wrote itself (a
    /// run's first document), so the run's next event extends it without reading the file back.
    pub(crate) fn written_elsewhere(&self, folder: &Path, projection: Arc<Projection>) {
        self.shared.lock().remember(folder, projection, true);
    }

    /// Waits until every document queued before this call is written.
    pub(crate) async fn flush(&self) {
        let (done, written) = oneshot::channel();
        {
            let mut inner = self.shared.lock();
            if inner.thread == Thread::Gone {
                return;
            }
            inner.flushes.push(done);
            if inner.thread != Thread::Awake {
                inner.wake();
                self.shared.wake.notify_one();
            }
        }
        // An error means the thread stopped, and wrote nothing more.
        let _ = written.await;
    }
}

impl Drop for StateWriter {
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.wake.notify_one();
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the state writer thread panicked");
        }
    }
}

/// Marks the thread gone if it unwinds, and drops the flushes it would have answered, so that
/// their callers stop waiting and later documents are written by their callers.
struct Exit<'a>(&'a Shared);

impl Drop for Exit<'_> {
    fn drop(&mut self) {
        let mut inner = self.0.lock();
        inner.thread = Thread::Gone;
        inner.flushes.clear();
    }
}

/// The writer thread: writes what is due, and what waits when asked to flush or to stop; sleeps
/// until the earliest waiting document falls due, or until a caller wakes it.
fn run(shared: &Shared, interval: Duration) {
    let _exit = Exit(shared);
    let mut inner = shared.lock();
    loop {
        let now = Instant::now();
        inner.written_at.retain(|_, at| now.saturating_duration_since(*at) < interval);
        let flushes = std::mem::take(&mut inner.flushes);
        let everything = inner.closing || !flushes.is_empty();
        let due: Vec<PathBuf> = inner
            .waiting
            .keys()
            .filter(|folder| everything || !inner.written_at.contains_key(*folder))
            .cloned()
            .collect();
        if due.is_empty() && flushes.is_empty() {
            if inner.closing {
                return;
            }
            let until = inner.waiting.keys().map(|folder| inner.due(folder, interval, now)).min();
            inner.thread = Thread::Asleep(until);
            inner = match until {
                None => shared.wake.wait(inner).unwrap_or_else(PoisonError::into_inner),
                Some(until) => {
                    let timeout = until.saturating_duration_since(now);
                    shared.wake.wait_timeout(inner, timeout).unwrap_or_else(PoisonError::into_inner).0
                }
            };
            inner.thread = Thread::Awake;
            continue;
        }
        let documents: Vec<(PathBuf, Document, u64)> = due
            .into_iter()
            .filter_map(|folder| inner.waiting.remove(&folder).map(|(document, seq)| (folder, document, seq)))
            .collect();
        drop(inner);
        let mut written = Vec::with_capacity(documents.len());
        for (folder, document, seq) in documents {
            write_one(&folder, document);
            written.push((folder, seq, Instant::now()));
        }
        inner = shared.lock();
        for (folder, seq, at) in written {
            inner.mark_written(&folder, seq);
            inner.written_at.insert(folder, at);
        }
        for done in flushes {
            let _ = done.send(());
        }
    }
}

/// A temporary file and a rename, no fsync: a document lost in a crash is rebuilt from the store
/// on its next read (its `eventSeq` says it is stale).
fn write_one(folder: &Path, document: Document) {
    let iteration = document.iteration_state();
    let Some(text) = document.into_text(folder) else { return };
    let path = folder.join(crate::format::STATE_DOCUMENT);
    if let Err(error) = write_atomically(&path, text.as_bytes(), Durability::Cached, Readers::Anyone) {
        tracing::warn!(path = %path.display(), %error, "state document not written; it is rebuilt on its next read");
    }
    write_iteration_state(folder, &iteration);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::STATE_DOCUMENT;

    fn run_folder() -> tempfile::TempDir {
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir(folder.path().join("state")).unwrap();
        folder
    }

    fn projection(seq: u64) -> Arc<Projection> {
        Arc::new(Projection { seq, ..Projection::default() })
    }

    #[tokio::test]
    async fn a_flush_waits_for_the_last_document_queued() {
        let folder = run_folder();
        let writer = StateWriter::start();
        for seq in 1..=50 {
            queue(&writer, folder.path(), seq);
        }
        writer.flush().await;
        assert_eq!(std::fs::read_to_string(folder.path().join(STATE_DOCUMENT)).unwrap(), "document 50");
        assert_eq!(writer.projection(folder.path()).map(|projection| projection.seq), Some(50));
    }

    #[tokio::test]
    async fn a_document_of_an_earlier_event_never_replaces_a_later_one() {
        let folder = run_folder();
        let writer = StateWriter::start();
        writer.write(folder.path(), Document::Text("event 5".to_owned(), IterationState::default()), projection(5));
        writer.write(
            folder.path(),
            Document::Text("event 3, read before event 5 committed".to_owned(), IterationState::default()),
            projection(3),
        );
        writer.flush().await;
        assert_eq!(std::fs::read_to_string(folder.path().join(STATE_DOCUMENT)).unwrap(), "event 5");
        writer.write(
            folder.path(),
            Document::Text("event 5, artifacts refreshed".to_owned(), IterationState::default()),
            projection(5),
        );
        writer.flush().await;
        let text = std::fs::read_to_string(folder.path().join(STATE_DOCUMENT)).unwrap();
        assert_eq!(text, "event 5, artifacts refreshed", "the same event may be rendered again");
    }

    #[test]
    fn dropping_the_writer_writes_what_is_queued() {
        let folders = [run_folder(), run_folder()];
        let writer = StateWriter::start();
        for (n, folder) in folders.iter().enumerate() {
            writer.write(
                folder.path(),
                Document::Text(format!("document of run {n}"), IterationState::default()),
                projection(1),
            );
        }
        drop(writer);
        for (n, folder) in folders.iter().enumerate() {
            let text = std::fs::read_to_string(folder.path().join(STATE_DOCUMENT)).unwrap();
            assert_eq!(text, format!("document of run {n}"));
        }
    }

    /// Queues `document <seq>` as `folder`'s document of event `seq`.
    fn queue(writer: &StateWriter, folder: &Path, seq: u64) {
        writer.write(folder, Document::Text(format!("document {seq}"), IterationState::default()), projection(seq));
    }

    /// Waits (up to ten seconds) for `folder`'s document to read `expected`, without a flush.
    fn written_without_flush(folder: &Path, expected: &str) -> bool {
        let path = folder.join(STATE_DOCUMENT);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if std::fs::read_to_string(&path).is_ok_and(|text| text == expected) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }

    #[tokio::test]
    async fn within_the_interval_a_document_waits_for_a_flush() {
        let folder = run_folder();
        let writer = StateWriter::with_interval(Duration::from_secs(3600));
        queue(&writer, folder.path(), 1);
        assert!(written_without_flush(folder.path(), "document 1"), "a quiet folder's document is written at once");
        queue(&writer, folder.path(), 2);
        queue(&writer, folder.path(), 3);
        std::thread::sleep(Duration::from_millis(100));
        let path = folder.path().join(STATE_DOCUMENT);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "document 1", "held within the interval");
        assert_eq!(writer.projection(folder.path()).map(|projection| projection.seq), Some(3));
        writer.flush().await;
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "document 3");
    }

    #[tokio::test]
    async fn documents_held_within_the_interval_wake_nobody() {
        let (folder, other) = (run_folder(), run_folder());
        let writer = StateWriter::with_interval(Duration::from_secs(3600));
        queue(&writer, folder.path(), 1);
        assert!(written_without_flush(folder.path(), "document 1"));
        // Asleep with nothing waiting, the thread is woken by the next document it must hold.
        wait_until_asleep(&writer);
        queue(&writer, folder.path(), 2);
        wait_until_asleep(&writer);
        let woken = writer.shared.lock().wake_ups;
        for seq in 3..=100 {
            queue(&writer, folder.path(), seq);
        }
        assert_eq!(writer.shared.lock().wake_ups, woken, "held documents leave the thread asleep");
        queue(&writer, other.path(), 1);
        assert_eq!(writer.shared.lock().wake_ups, woken + 1, "a quiet folder's document is due at once");
        assert!(written_without_flush(other.path(), "document 1"));
        writer.flush().await;
        assert_eq!(std::fs::read_to_string(folder.path().join(STATE_DOCUMENT)).unwrap(), "document 100");
    }

    #[tokio::test]
    async fn once_the_thread_is_gone_callers_write_their_own_documents() {
        let folder = run_folder();
        let writer = StateWriter::with_interval(Duration::from_secs(3600));
        // Asleep, the thread leaves its state alone until it is woken, which nobody does once it is
        // gone.
        wait_until_asleep(&writer);
        let (done, waiting) = oneshot::channel();
        writer.shared.lock().flushes.push(done);
        // What the thread's unwinding does when a panic stops it.
        drop(Exit(&writer.shared));
        assert!(waiting.await.is_err(), "a flush the thread would have answered stops waiting");
        queue(&writer, folder.path(), 1);
        let path = folder.path().join(STATE_DOCUMENT);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "document 1", "written before `write` returns");
        assert!(writer.shared.lock().remembered[folder.path()].written);
        writer.flush().await;
    }

    /// Waits (up to ten seconds) until the writer thread sleeps.
    fn wait_until_asleep(writer: &StateWriter) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !matches!(writer.shared.lock().thread, Thread::Asleep(_)) {
            assert!(Instant::now() < deadline, "the writer thread never slept");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_held_document_is_written_once_the_interval_is_over() {
        let folder = run_folder();
        let writer = StateWriter::with_interval(Duration::from_millis(200));
        queue(&writer, folder.path(), 1);
        assert!(written_without_flush(folder.path(), "document 1"));
        queue(&writer, folder.path(), 2);
        assert!(written_without_flush(folder.path(), "document 2"), "the held document follows without a flush");
        let shared = Arc::clone(&writer.shared);
        drop(writer);
        assert!(shared.lock().remembered[folder.path()].written);
    }

    #[test]
    fn dropping_the_writer_writes_held_documents() {
        let folder = run_folder();
        let writer = StateWriter::with_interval(Duration::from_secs(3600));
        queue(&writer, folder.path(), 1);
        assert!(written_without_flush(folder.path(), "document 1"));
        queue(&writer, folder.path(), 2);
        drop(writer);
        assert_eq!(std::fs::read_to_string(folder.path().join(STATE_DOCUMENT)).unwrap(), "document 2");
    }

    #[test]
    fn only_the_write_of_the_latest_projection_marks_it_written() {
        let folder = run_folder();
        let mut inner = Inner::default();
        inner.remembered.insert(folder.path().to_owned(), Latest { projection: projection(7), written: false });
        inner.mark_written(folder.path(), 6);
        assert!(!inner.remembered[folder.path()].written, "an older write does not count");
        inner.mark_written(folder.path(), 7);
        assert!(inner.remembered[folder.path()].written);
    }

    #[tokio::test]
    async fn written_projections_are_forgotten_past_the_bound_queued_ones_never() {
        let folders: Vec<tempfile::TempDir> = (0..=MAX_REMEMBERED).map(|_| run_folder()).collect();
        let writer = StateWriter::start();
        for folder in &folders[..MAX_REMEMBERED] {
            writer.write(folder.path(), Document::Text("written".to_owned(), IterationState::default()), projection(1));
        }
        writer.flush().await;
        let last = folders[MAX_REMEMBERED].path();
        writer.write(last, Document::Text("queued".to_owned(), IterationState::default()), projection(2));
        assert!(writer.shared.lock().remembered.len() <= MAX_REMEMBERED, "the written ones were forgotten");
        assert_eq!(writer.projection(last).map(|projection| projection.seq), Some(2));
        assert_eq!(writer.projection(folders[0].path()), None);
    }
}
