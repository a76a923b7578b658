//! One output stream of a command, read as it comes: every byte counted and hashed, only the last
//! `keep` bytes held, so a command writing gigabytes costs a bounded amount of memory.

use std::collections::VecDeque;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use crate::Captured;

/// How much is read from a pipe at a time.
const READ_CHUNK: usize = 64 * 1024;

/// The running state of one stream: its tail, its length and its hash so far.
#[derive(Debug)]
pub(crate) struct Tail {
    keep: usize,
    kept: VecDeque<u8>,
    total_bytes: u64,
    hasher: Sha256,
}

impl Tail {
    pub(crate) fn new(keep: usize) -> Self {
        Self { keep, kept: VecDeque::with_capacity(keep.min(READ_CHUNK)), total_bytes: 0, hasher: Sha256::new() }
    }

    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.hasher.update(chunk);
        self.total_bytes += chunk.len() as u64;
        let chunk = &chunk[chunk.len().saturating_sub(self.keep)..];
        let overflow = (self.kept.len() + chunk.len()).saturating_sub(self.keep);
        self.kept.drain(..overflow);
        self.kept.extend(chunk);
    }

    pub(crate) fn finish(mut self) -> Captured {
        let truncated = self.total_bytes > self.kept.len() as u64;
        let mut kept: &[u8] = self.kept.make_contiguous();
        if truncated {
            // The cut may have split a character: its continuation bytes (at most three) are
            // dropped rather than shown as replacement characters.
            let split = kept.iter().take(3).take_while(|byte| (**byte & 0b1100_0000) == 0b1000_0000).count();
            kept = &kept[split..];
        }
        let mut sha256 = String::with_capacity(64);
        for byte in self.hasher.finalize() {
            let _ = write!(sha256, "{byte:02x}");
        }
        Captured { tail: String::from_utf8_lossy(kept).into_owned(), total_bytes: self.total_bytes, sha256, truncated }
    }
}

/// Reads `stream` to its end, or until `stop` is cancelled (a writer outside the command's process
/// group may hold the pipe open forever), and returns what it saw.
pub(crate) async fn read_to_end(mut stream: impl AsyncRead + Unpin, keep: usize, stop: CancellationToken) -> Tail {
    let mut tail = Tail::new(keep);
    let mut buffer = vec![0; READ_CHUNK];
    loop {
        tokio::select! {
            biased;
            () = stop.cancelled() => break,
            read = stream.read(&mut buffer) => match read {
                Ok(0) => break,
                Ok(length) => tail.push(&buffer[..length]),
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(error) => {
                    tracing::debug!(%error, "reading a command's output failed; keeping what was read");
                    break;
                }
            },
        }
    }
    tail
}
