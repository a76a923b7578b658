//! Reads a multi-file workflow (a folder, or a `.zip`/`.bmad` archive) into a compiler
//! [`Bundle`], refusing hostile input with a clear error: too many or too large files, nesting
//! deeper than [`MAX_DEPTH`], symlinks that leave the folder, archive paths that climb out, and
//! archives that expand far beyond their size (zip bombs). Binary files are skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{Cursor, Read};
use std::path::{Component, Path};

use switchyard_compiler::{Bundle, MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES};
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;

use crate::error::Error;

use super::read::{Unread, open_regular, read_bounded};

/// Deepest folder nesting a bundle may have.
pub const MAX_DEPTH: usize = 12;
/// Largest archive file read, in bytes.
pub const MAX_ARCHIVE_BYTES: u64 = 32 * 1024 * 1024;
/// Highest expansion ratio an archive entry may claim before it is called a zip bomb.
pub const MAX_EXPANSION_RATIO: u64 = 100;

/// Whether the path is a bundle: a folder, or a file that is a zip archive.
pub fn is_bundle_path(path: &Path) -> bool {
    if path.is_dir() {
        return true;
    }
    let by_extension = path
        .extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| extension.eq_ignore_ascii_case("zip") || extension.eq_ignore_ascii_case("bmad"));
    by_extension || is_zip(path)
}

fn is_zip(path: &Path) -> bool {
    let mut magic = [0u8; 4];
    open_regular(path).is_ok_and(|mut file| file.read_exact(&mut magic).is_ok()) && magic == *b"PK\x03\x04"
}

/// Reads a folder or an archive.
pub fn read_bundle(path: &Path) -> Result<Bundle, Error> {
    let mut files = if path.is_dir() { read_folder(path)? } else { read_archive(path)? };
    strip_single_root(&mut files);
    Ok(Bundle { name: path.display().to_string(), files })
}

fn refuse(path: &Path, why: &str) -> Error {
    Error::NotASource(format!("workflow bundle {}: {why}", path.display()))
}

struct Budget {
    files: usize,
    bytes: usize,
}

impl Budget {
    /// Counts one file of `size` bytes.
    fn take(&mut self, root: &Path, size: usize) -> Result<(), Error> {
        self.files += 1;
        if self.files > MAX_BUNDLE_FILES {
            return Err(refuse(
                root,
                &format!("more than {MAX_BUNDLE_FILES} files; a workflow bundle should be small"),
            ));
        }
        self.charge(root, size)
    }

    /// Counts `size` more bytes of the file counted last.
    fn charge(&mut self, root: &Path, size: usize) -> Result<(), Error> {
        self.bytes = self.bytes.saturating_add(size);
        if self.bytes > MAX_BUNDLE_BYTES {
            return Err(refuse(root, &format!("more than {MAX_BUNDLE_BYTES} bytes of files; remove large data files")));
        }
        Ok(())
    }
}

/// Reads a folder's text files by relative path, with the limits above (no single-root
/// stripping: the paths are the folder's own). A FIFO, device or socket in the folder refuses
/// the bundle unread, as does a symlink that loops or leads back into a folder already read.
pub(crate) fn read_folder(root: &Path) -> Result<BTreeMap<String, String>, Error> {
    let canonical_root = fs::canonicalize(root)
        .map_err(|error| Error::io(format!("cannot read workflow folder {}", root.display()), error))?;
    let mut files = BTreeMap::new();
    let mut budget = Budget { files: 0, bytes: 0 };
    let mut folders_read = BTreeSet::from([canonical_root.clone()]);
    let mut pending = vec![(root.to_path_buf(), 0usize)];
    while let Some((folder, depth)) = pending.pop() {
        if depth > MAX_DEPTH {
            return Err(refuse(root, &format!("folders nest deeper than {MAX_DEPTH} levels")));
        }
        let entries = fs::read_dir(&folder)
            .map_err(|error| Error::io(format!("cannot read folder {}", folder.display()), error))?;
        // Listed no further than a bundle could hold, so a folder of millions of entries is
        // refused without listing them all.
        let mut entries: Vec<_> = entries.flatten().take(MAX_BUNDLE_FILES + 1).map(|entry| entry.path()).collect();
        if entries.len() > MAX_BUNDLE_FILES {
            return Err(refuse(
                root,
                &format!(
                    "{} holds more than {MAX_BUNDLE_FILES} entries; a workflow bundle should be small",
                    folder.display()
                ),
            ));
        }
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
            if name.starts_with('.') {
                continue;
            }
            let metadata = fs::symlink_metadata(&path)
                .map_err(|error| Error::io(format!("cannot read {}", path.display()), error))?;
            if metadata.file_type().is_symlink() {
                let target = fs::canonicalize(&path).map_err(|error| {
                    refuse(
                        root,
                        &format!("symlink {} cannot be followed ({error}): it is broken or loops", path.display()),
                    )
                })?;
                if !target.starts_with(&canonical_root) {
                    return Err(refuse(root, &format!("symlink {} points outside the folder", path.display())));
                }
            }
            if path.is_dir() {
                let canonical = fs::canonicalize(&path)
                    .map_err(|error| Error::io(format!("cannot read folder {}", path.display()), error))?;
                if !folders_read.insert(canonical) {
                    return Err(refuse(
                        root,
                        &format!(
                            "{} is a folder already read by another path (a symlink loop, or a second link to it)",
                            path.display()
                        ),
                    ));
                }
                pending.push((path, depth + 1));
                continue;
            }
            budget.take(root, 0)?;
            let bytes = read_bounded(&path, MAX_WORKFLOW_SOURCE_BYTES).map_err(|unread| match unread {
                Unread::Io(_) => unread.into_error("bundle file", &path),
                Unread::NotRegular(_) | Unread::TooLarge(_) => refuse(root, &unread.reason(&path)),
            })?;
            budget.charge(root, bytes.len())?;
            let Ok(text) = String::from_utf8(bytes) else { continue };
            let relative = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            files.insert(relative, text);
        }
    }
    Ok(files)
}

/// Reads an archive file whole, refusing it unread when it is no regular file and by bytes read
/// past [`MAX_ARCHIVE_BYTES`].
fn read_archive(path: &Path) -> Result<BTreeMap<String, String>, Error> {
    let limit = usize::try_from(MAX_ARCHIVE_BYTES).unwrap_or(usize::MAX);
    let bytes = read_bounded(path, limit).map_err(|unread| match unread {
        Unread::Io(_) => unread.into_error("archive", path),
        Unread::NotRegular(_) => refuse(path, &unread.reason(path)),
        Unread::TooLarge(_) => refuse(path, &format!("the archive is larger than {MAX_ARCHIVE_BYTES} bytes")),
    })?;
    read_archive_bytes(path, &bytes)
}

/// Decodes a zip archive held in memory.
pub fn read_archive_bytes(name: &Path, bytes: &[u8]) -> Result<BTreeMap<String, String>, Error> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes))
        .map_err(|error| refuse(name, &format!("not a readable zip archive: {error}")))?;
    if archive.len() > MAX_BUNDLE_FILES {
        return Err(refuse(name, &format!("the archive holds more than {MAX_BUNDLE_FILES} entries")));
    }
    let mut files = BTreeMap::new();
    let mut budget = Budget { files: 0, bytes: 0 };
    for index in 0..archive.len() {
        let mut entry =
            archive.by_index(index).map_err(|error| refuse(name, &format!("entry {index} cannot be read: {error}")))?;
        let raw_name = entry.name().map(|name| name.into_owned()).unwrap_or_else(|_| format!("#{index}"));
        let Some(relative) = entry.enclosed_name() else {
            return Err(refuse(name, &format!("entry `{raw_name}` climbs out of the archive (absolute path or `..`)")));
        };
        if entry.is_symlink() {
            return Err(refuse(name, &format!("entry `{raw_name}` is a symlink; archives may hold only files")));
        }
        if entry.is_dir() {
            continue;
        }
        let depth = relative.components().filter(|component| matches!(component, Component::Normal(_))).count();
        if depth > MAX_DEPTH {
            return Err(refuse(name, &format!("entry `{raw_name}` nests deeper than {MAX_DEPTH} levels")));
        }
        let declared = entry.size();
        if declared > u64::try_from(MAX_WORKFLOW_SOURCE_BYTES).unwrap_or(u64::MAX)
            || declared > entry.compressed_size().max(1).saturating_mul(MAX_EXPANSION_RATIO).max(64 * 1024)
        {
            return Err(refuse(
                name,
                &format!(
                    "entry `{raw_name}` expands to {declared} bytes from {} (a zip bomb?)",
                    entry.compressed_size()
                ),
            ));
        }
        let limit = u64::try_from(MAX_WORKFLOW_SOURCE_BYTES).unwrap_or(u64::MAX);
        let mut content = Vec::new();
        (&mut entry)
            .take(limit + 1)
            .read_to_end(&mut content)
            .map_err(|error| refuse(name, &format!("entry `{raw_name}` cannot be decompressed: {error}")))?;
        if u64::try_from(content.len()).unwrap_or(u64::MAX) > declared {
            return Err(refuse(name, &format!("entry `{raw_name}` is larger than it says (a zip bomb?)")));
        }
        budget.take(name, content.len())?;
        let Ok(text) = String::from_utf8(content) else { continue };
        files.insert(relative.to_string_lossy().replace('\\', "/"), text);
    }
    Ok(files)
}

/// An archive whose every file sits under one folder (`pkg/bmad.json`, `pkg/steps/…`) is read
/// as if that folder were the root.
fn strip_single_root(files: &mut BTreeMap<String, String>) {
    let Some(first) = files.keys().next() else { return };
    let Some((root, _)) = first.split_once('/') else { return };
    let prefix = format!("{root}/");
    if files.keys().all(|path| path.starts_with(&prefix)) && !files.contains_key("bmad.json") {
        *files =
            std::mem::take(files).into_iter().map(|(path, text)| (path[prefix.len()..].to_owned(), text)).collect();
    }
}
