//! The one way discovery reads a file: only regular files, opened so that opening cannot block,
//! and never more bytes than the caller's limit, counted as they are read.
//!
//! Folders searched for workflows are written by other people and tools, and a name alone says
//! nothing about what sits behind it. A FIFO named `x.yaml` blocks a plain `open` until some
//! writer appears (forever, as a rule); a character device claims 0 bytes in its metadata and
//! then streams without end. So the type is checked before opening, opening passes `O_NONBLOCK`
//! (a FIFO swapped in after the check opens at once instead of waiting), the type is checked
//! again on the opened handle, and reading stops one byte past the limit whatever the metadata
//! said. Every read of discovery (workflow files, routines, bundle folders, archives, package
//! manifests, project files added to a bundle) goes through [`read_bounded`] or
//! [`open_regular`].

use std::fs::{self, File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use crate::error::Error;

/// Why a file was not read.
#[derive(Debug)]
pub enum Unread {
    /// Not a regular file (a FIFO, a device, a socket, a folder): never read, and never opened
    /// when the check before opening saw it. Holds what it is.
    NotRegular(&'static str),
    /// More bytes than the limit, counted by reading, not by what the metadata claims.
    TooLarge(usize),
    Io(io::Error),
}

impl Unread {
    /// The error to report about `path`, a `what` ("workflow file", "routine file").
    pub fn into_error(self, what: &str, path: &Path) -> Error {
        match self {
            Self::Io(source) => Error::io(format!("{what} {} cannot be read", path.display()), source),
            unread => Error::NotASource(format!("{what} {}", unread.reason(path))),
        }
    }

    /// What is wrong with `path` and what to do, starting with the path.
    pub fn reason(&self, path: &Path) -> String {
        let path = path.display();
        match self {
            Self::NotRegular(kind) => format!(
                "{path} is a {kind}, not a regular file; discovery reads only regular files and left it unopened: \
                 remove it, or put a regular file in its place"
            ),
            Self::TooLarge(limit) => {
                format!("{path} is larger than {limit} bytes; split it or remove embedded data")
            }
            Self::Io(error) => format!("{path} cannot be read: {error}"),
        }
    }
}

impl From<io::Error> for Unread {
    fn from(error: io::Error) -> Self {
        Self::Io(error)
    }
}

/// What a file that is not regular is, for messages; `None` for a regular file.
pub fn special_kind(metadata: &Metadata) -> Option<&'static str> {
    let file_type = metadata.file_type();
    let kind = if file_type.is_file() {
        return None;
    } else if file_type.is_dir() {
        "folder"
    } else if file_type.is_fifo() {
        "named pipe (FIFO)"
    } else if file_type.is_char_device() {
        "character device"
    } else if file_type.is_block_device() {
        "block device"
    } else if file_type.is_socket() {
        "socket"
    } else {
        "special file"
    };
    Some(kind)
}

fn regular(metadata: &Metadata) -> Result<(), Unread> {
    special_kind(metadata).map_or(Ok(()), |kind| Err(Unread::NotRegular(kind)))
}

/// Opens `path` (following symlinks) for reading if it is a regular file.
pub fn open_regular(path: &Path) -> Result<File, Unread> {
    regular(&fs::metadata(path)?)?;
    // `O_NONBLOCK` keeps a FIFO put in the file's place since the check from blocking the open;
    // `O_NOCTTY` keeps a terminal from becoming ours. Neither changes how a regular file reads.
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let file = File::from(rustix::fs::open(path, flags, Mode::empty()).map_err(io::Error::from)?);
    regular(&file.metadata()?)?;
    Ok(file)
}

/// The bytes of the regular file `path`, refused past `limit` bytes.
pub fn read_bounded(path: &Path, limit: usize) -> Result<Vec<u8>, Unread> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(u64::try_from(limit).unwrap_or(u64::MAX).saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Err(Unread::TooLarge(limit));
    }
    Ok(bytes)
}
