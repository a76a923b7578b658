//! Writes state documents off the request path.
//!
//! Regenerating `state/workflow.md` after a commit is a rename over the previous file, and on ext4
//! a rename over a file starts its writeback (`auto_da_alloc`): measured at 0.2–1.4 ms, as much as
//! the commit itself. The answer to an advance does not depend on the document, so a thread of its
//! own writes it: the latest text per document, in the order they were queued. Whoever reads a
//! document first waits for what was queued before ([`StateWriter::flush`]); the runtime reads
//! through `Runtime::state_document`, which does, and dropping the last runtime that shares the
//! writer writes what is queued.
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

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::atomic_file::{Durability, Readers, write_atomically};
use crate::run_folder::{IterationState, Projection, StateRender, write_iteration_state};

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

#[derive(Debug)]
enum Message {
    /// The state document of the run folder `folder`, of the projection at `seq`.
    Write { folder: PathBuf, document: Document, seq: u64 },
    /// Answered once every write queued before it is on disk.
    Flush(oneshot::Sender<()>),
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

/// The latest projection of each run folder this writer has seen.
type Remembered = Arc<Mutex<HashMap<PathBuf, Latest>>>;

#[derive(Debug)]
pub(crate) struct StateWriter {
    sender: Option<Sender<Message>>,
    thread: Option<JoinHandle<()>>,
    remembered: Remembered,
}

impl StateWriter {
    /// Starts the writer thread. If the thread cannot start, documents are written in the
    /// caller's thread instead.
    pub(crate) fn start() -> Self {
        Self::with_interval(REWRITE_INTERVAL)
    }

    /// Starts the writer thread, rewriting each folder's document at most once per `interval`.
    fn with_interval(interval: Duration) -> Self {
        let remembered: Remembered = Arc::default();
        let (sender, messages) = channel();
        let spawned = std::thread::Builder::new().name("switchyard-state-writer".to_owned()).spawn({
            let remembered = Arc::clone(&remembered);
            move || run(&messages, Waiting::new(interval, remembered))
        });
        match spawned {
            Ok(thread) => Self { sender: Some(sender), thread: Some(thread), remembered },
            Err(error) => {
                tracing::warn!(%error, "state writer thread not started; state documents are written inline");
                Self { sender: None, thread: None, remembered }
            }
        }
    }

    /// The projection of `folder`'s latest document, written or queued, if remembered.
    pub(crate) fn projection(&self, folder: &Path) -> Option<Projection> {
        lock(&self.remembered).get(folder).map(|latest| Projection::clone(&latest.projection))
    }

    /// Queues `document` as the state document of `folder`, of `projection`, unless a document of
    /// a later event is already queued or written: a caller that read the run just before another
    /// committed must not put the older document back. Of several documents queued for one folder,
    /// only the last is rendered and written.
    pub(crate) fn write(&self, folder: &Path, document: Document, projection: Arc<Projection>) {
        let seq = projection.seq;
        if !self.remember(folder, projection, false) {
            return;
        }
        let message = Message::Write { folder: folder.to_owned(), document, seq };
        let unsent = match &self.sender {
            Some(sender) => sender.send(message).err().map(|error| error.0),
            None => Some(message),
        };
        if let Some(Message::Write { folder, document, seq }) = unsent {
            write_one(&folder, document);
            mark_written(&self.remembered, &folder, seq);
        }
    }

    /// Remembers `projection` as the one of `folder`'s document, which the caller wrote itself (a
    /// run's first document), so the run's next event extends it without reading the file back.
    pub(crate) fn written_elsewhere(&self, folder: &Path, projection: Arc<Projection>) {
        self.remember(folder, projection, true);
    }

    /// Makes `projection` the latest of `folder`, unless a later one is already there; says
    /// whether it did.
    fn remember(&self, folder: &Path, projection: Arc<Projection>, written: bool) -> bool {
        let mut remembered = lock(&self.remembered);
        if remembered.get(folder).is_some_and(|latest| latest.projection.seq > projection.seq) {
            return false;
        }
        if remembered.len() >= MAX_REMEMBERED && !remembered.contains_key(folder) {
            remembered.retain(|_, latest| !latest.written);
        }
        remembered.insert(folder.to_owned(), Latest { projection, written });
        true
    }

    /// Waits until every document queued before this call is written.
    pub(crate) async fn flush(&self) {
        let Some(sender) = &self.sender else { return };
        let (done, written) = oneshot::channel();
        if sender.send(Message::Flush(done)).is_ok() {
            // An error means the thread is gone, which it only is once everything is written.
            let _ = written.await;
        }
    }
}

impl Drop for StateWriter {
    fn drop(&mut self) {
        // Closing the channel lets the thread write what is queued and stop.
        drop(self.sender.take());
        if let Some(thread) = self.thread.take()
            && thread.join().is_err()
        {
            tracing::error!("the state writer thread panicked");
        }
    }
}

fn lock(remembered: &Remembered) -> MutexGuard<'_, HashMap<PathBuf, Latest>> {
    remembered.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Records that `folder`'s document of `seq` is written, unless a newer one was queued meanwhile.
fn mark_written(remembered: &Remembered, folder: &Path, seq: u64) {
    if let Some(latest) = lock(remembered).get_mut(folder).filter(|latest| latest.projection.seq == seq) {
        latest.written = true;
    }
}

fn run(messages: &Receiver<Message>, mut waiting: Waiting) {
    loop {
        let first = match waiting.next_due() {
            None => messages.recv().map_err(|_| RecvTimeoutError::Disconnected),
            Some(due) => messages.recv_timeout(due.saturating_duration_since(Instant::now())),
        };
        match first {
            Ok(first) => {
                // Take everything queued: several writes of one document collapse into the last.
                for message in std::iter::once(first).chain(messages.try_iter()) {
                    match message {
                        Message::Write { folder, document, seq } => waiting.queue(folder, document, seq),
                        Message::Flush(done) => {
                            waiting.write_all();
                            let _ = done.send(());
                        }
                    }
                }
                waiting.write_due();
            }
            Err(RecvTimeoutError::Timeout) => waiting.write_due(),
            Err(RecvTimeoutError::Disconnected) => {
                waiting.write_all();
                return;
            }
        }
    }
}

/// The documents the writer thread holds, and when it last wrote each folder's.
struct Waiting {
    interval: Duration,
    remembered: Remembered,
    documents: BTreeMap<PathBuf, (Document, u64)>,
    /// Folders written less than `interval` ago (older entries are dropped as they pass).
    written_at: HashMap<PathBuf, Instant>,
}

impl Waiting {
    fn new(interval: Duration, remembered: Remembered) -> Self {
        Self { interval, remembered, documents: BTreeMap::new(), written_at: HashMap::new() }
    }

    fn queue(&mut self, folder: PathBuf, document: Document, seq: u64) {
        self.documents.insert(folder, (document, seq));
    }

    /// When the earliest waiting document may be written; `None` when none waits.
    fn next_due(&self) -> Option<Instant> {
        let now = Instant::now();
        let due = |folder: &PathBuf| self.written_at.get(folder).map_or(now, |at| *at + self.interval);
        self.documents.keys().map(due).min()
    }

    /// Writes the documents whose folder was not written within the interval.
    fn write_due(&mut self) {
        let now = Instant::now();
        self.written_at.retain(|_, at| now.saturating_duration_since(*at) < self.interval);
        let due: Vec<PathBuf> =
            self.documents.keys().filter(|folder| !self.written_at.contains_key(*folder)).cloned().collect();
        for folder in due {
            if let Some((document, seq)) = self.documents.remove(&folder) {
                self.write(folder, document, seq);
            }
        }
    }

    fn write_all(&mut self) {
        for (folder, (document, seq)) in std::mem::take(&mut self.documents) {
            self.write(folder, document, seq);
        }
    }

    fn write(&mut self, folder: PathBuf, document: Document, seq: u64) {
        write_one(&folder, document);
        mark_written(&self.remembered, &folder, seq);
        self.written_at.insert(folder, Instant::now());
    }
}

/// A temporary file and a rename, no fsync: a document lost in a crash is rebuilt from the store
/// on its next read (its `eventSeq` says it is stale).
fn write_one(folder: &Path, document: Document) {
    let iteration = document.iteration_state();
    let Some(text) = document.into_text(folder) else { return };
    let path = folder.join(crate::run_folder::STATE_DOCUMENT);
    if let Err(error) = write_atomically(&path, text.as_bytes(), Durability::Cached, Readers::Anyone) {
        tracing::warn!(path = %path.display(), %error, "state document not written; it is rebuilt on its next read");
    }
    write_iteration_state(folder, &iteration);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_folder::STATE_DOCUMENT;

    fn run_folder() -> tempfile::TempDir {
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir(folder.path().join("state")).unwrap();
        folder
    }

    fn projection(seq: u64) -> Arc<Projection> {
        let mut projection = Projection::default();
        projection.seq = seq;
        Arc::new(projection)
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

    #[test]
    fn a_held_document_is_written_once_the_interval_is_over() {
        let folder = run_folder();
        let writer = StateWriter::with_interval(Duration::from_millis(200));
        queue(&writer, folder.path(), 1);
        assert!(written_without_flush(folder.path(), "document 1"));
        queue(&writer, folder.path(), 2);
        assert!(written_without_flush(folder.path(), "document 2"), "the held document follows without a flush");
        let remembered = Arc::clone(&writer.remembered);
        drop(writer);
        assert!(lock(&remembered)[folder.path()].written);
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
        let remembered: Remembered = Arc::default();
        lock(&remembered).insert(folder.path().to_owned(), Latest { projection: projection(7), written: false });
        mark_written(&remembered, folder.path(), 6);
        assert!(!lock(&remembered)[folder.path()].written, "an older write does not count");
        mark_written(&remembered, folder.path(), 7);
        assert!(lock(&remembered)[folder.path()].written);
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
        assert!(lock(&writer.remembered).len() <= MAX_REMEMBERED, "the written ones were forgotten");
        assert_eq!(writer.projection(last).map(|projection| projection.seq), Some(2));
        assert_eq!(writer.projection(folders[0].path()), None);
    }
}
