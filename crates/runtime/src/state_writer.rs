//! Writes state documents off the request path.
//!
//! Regenerating `state/workflow.md` after a commit is a rename over the previous file, and on ext4
//! a rename over a file starts its writeback (`auto_da_alloc`): measured at 0.2–1.4 ms, as much as
//! the commit itself. The answer to an advance does not depend on the document, so a thread of its
//! own writes it: the latest text per document, in the order they were queued. Whoever reads a
//! document first waits for what was queued before ([`StateWriter::flush`]); the runtime reads
//! through `Runtime::state_document`, which does, and dropping the runtime writes what is queued.
//!
//! The projection a document was rendered from is kept here until its write is done, so the next
//! event extends it without reading a file that may not be written yet.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use tokio::sync::oneshot;

use crate::run_folder::Projection;

#[derive(Debug)]
enum Message {
    /// The state document of the run folder `folder`, rendered from the projection at `seq`.
    Write { folder: PathBuf, text: String, seq: u64 },
    /// Answered once every write queued before it is on disk.
    Flush(oneshot::Sender<()>),
}

/// The projections whose documents are queued, by run folder.
type Pending = Arc<Mutex<HashMap<PathBuf, Projection>>>;

#[derive(Debug)]
pub(crate) struct StateWriter {
    sender: Option<Sender<Message>>,
    thread: Option<JoinHandle<()>>,
    pending: Pending,
}

impl StateWriter {
    /// Starts the writer thread. If the thread cannot start, documents are written in the
    /// caller's thread instead.
    pub(crate) fn start() -> Self {
        let pending: Pending = Arc::default();
        let (sender, messages) = channel();
        let spawned = std::thread::Builder::new().name("switchyard-state-writer".to_owned()).spawn({
            let pending = Arc::clone(&pending);
            move || run(&messages, &pending)
        });
        match spawned {
            Ok(thread) => Self { sender: Some(sender), thread: Some(thread), pending },
            Err(error) => {
                tracing::warn!(%error, "state writer thread not started; state documents are written inline");
                Self { sender: None, thread: None, pending }
            }
        }
    }

    /// The projection of the document queued for `folder`, if its write is not done yet.
    pub(crate) fn queued_projection(&self, folder: &Path) -> Option<Projection> {
        lock(&self.pending).get(folder).cloned()
    }

    /// Queues `text` as the state document of `folder`, rendered from `projection`.
    pub(crate) fn write(&self, folder: &Path, text: String, projection: Projection) {
        let seq = projection.seq;
        lock(&self.pending).insert(folder.to_owned(), projection);
        let message = Message::Write { folder: folder.to_owned(), text, seq };
        let unsent = match &self.sender {
            Some(sender) => sender.send(message).err().map(|error| error.0),
            None => Some(message),
        };
        if let Some(Message::Write { folder, text, seq }) = unsent {
            write_one(&folder, &text);
            forget(&self.pending, &folder, seq);
        }
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

fn lock(pending: &Pending) -> MutexGuard<'_, HashMap<PathBuf, Projection>> {
    pending.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Forgets the projection of `folder`'s document once the write of `seq` is done, unless a newer
/// one was queued meanwhile.
fn forget(pending: &Pending, folder: &Path, seq: u64) {
    let mut pending = lock(pending);
    if pending.get(folder).is_some_and(|projection| projection.seq == seq) {
        pending.remove(folder);
    }
}

fn run(messages: &Receiver<Message>, pending: &Pending) {
    while let Ok(first) = messages.recv() {
        // Take everything queued: several writes of one document collapse into the last.
        let mut batch = vec![first];
        batch.extend(messages.try_iter());
        let mut writes: BTreeMap<PathBuf, (String, u64)> = BTreeMap::new();
        for message in batch {
            match message {
                Message::Write { folder, text, seq } => {
                    writes.insert(folder, (text, seq));
                }
                Message::Flush(done) => {
                    write_all(&mut writes, pending);
                    let _ = done.send(());
                }
            }
        }
        write_all(&mut writes, pending);
    }
}

fn write_all(writes: &mut BTreeMap<PathBuf, (String, u64)>, pending: &Pending) {
    for (folder, (text, seq)) in std::mem::take(writes) {
        write_one(&folder, &text);
        forget(pending, &folder, seq);
    }
}

/// A temporary file and a rename, no fsync: a document lost in a crash is rebuilt from the store
/// on its next read (its `eventSeq` says it is stale).
fn write_one(folder: &Path, text: &str) {
    let path = folder.join(crate::run_folder::STATE_DOCUMENT);
    if let Err(error) = crate::run_folder::write_atomically(&path, text.as_bytes(), false) {
        tracing::warn!(path = %path.display(), %error, "state document not written; it is rebuilt on its next read");
    }
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

    fn projection(seq: u64) -> Projection {
        let mut projection = Projection::default();
        projection.seq = seq;
        projection
    }

    #[tokio::test]
    async fn a_flush_waits_for_the_last_document_queued_and_forgets_its_projection() {
        let folder = run_folder();
        let writer = StateWriter::start();
        for seq in 1..=50 {
            writer.write(folder.path(), format!("document {seq}"), projection(seq));
        }
        writer.flush().await;
        assert_eq!(std::fs::read_to_string(folder.path().join(STATE_DOCUMENT)).unwrap(), "document 50");
        assert_eq!(writer.queued_projection(folder.path()), None, "written documents keep no projection");
    }

    #[test]
    fn dropping_the_writer_writes_what_is_queued() {
        let folders = [run_folder(), run_folder()];
        let writer = StateWriter::start();
        for (n, folder) in folders.iter().enumerate() {
            writer.write(folder.path(), format!("document of run {n}"), projection(1));
        }
        drop(writer);
        for (n, folder) in folders.iter().enumerate() {
            let text = std::fs::read_to_string(folder.path().join(STATE_DOCUMENT)).unwrap();
            assert_eq!(text, format!("document of run {n}"));
        }
    }

    #[test]
    fn a_newer_projection_is_kept_until_its_own_write_is_done() {
        let folder = run_folder();
        let pending: Pending = Arc::default();
        lock(&pending).insert(folder.path().to_owned(), projection(7));
        forget(&pending, folder.path(), 6);
        assert_eq!(lock(&pending).get(folder.path()).map(|projection| projection.seq), Some(7));
        forget(&pending, folder.path(), 7);
        assert!(lock(&pending).is_empty());
    }
}
