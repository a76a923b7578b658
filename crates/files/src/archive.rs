//! `{bundle-root}` of a run whose workflow came from a zip bundle (`.zip`, `.bmad`): the archive's
//! files, read into memory by the runtime's bundle reader with its bounds (archive size, file
//! count and size, nesting, zip bombs, entries that climb out or are symlinks), so nothing is
//! extracted to disk and no path in the archive reaches the file system. [`ArchiveCache`] keeps
//! a few opened archives, so repeated reads do not decompress the archive again.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use switchyard_catalog::{Bundle, MAX_BUNDLE_BYTES};
use switchyard_core::suggest;

use crate::error::{ToolError, codes};
use crate::metrics::Counters;
use crate::sandbox::MountName;

/// The text files of a zip bundle, by the paths its workflow's references use.
#[derive(Debug)]
pub struct BundleArchive {
    pub path: PathBuf,
    pub bundle: Bundle,
}

impl BundleArchive {
    /// Reads the archive at `path` (the run's source): `E_NOT_FOUND` when it is gone, `E_IO` with
    /// the reader's reason when it is refused (it changed since the run started).
    pub fn open(path: &Path) -> Result<Self, ToolError> {
        let bundle = switchyard_catalog::read_bundle(path).map_err(|error| {
            let code = if path.exists() { codes::IO } else { codes::NOT_FOUND };
            ToolError::new(code, format!("{{bundle-root}} ({}) cannot be read: {error}", path.display()))
        })?;
        Ok(Self { path: path.to_owned(), bundle })
    }

    /// The text of the file at `relative` (plain names, as [`crate::sandbox::Mounts`] checks
    /// them), at most `limit` bytes.
    pub fn read(&self, relative: &Path, limit: u64) -> Result<&str, ToolError> {
        let key = key_of(relative);
        let shown = display(&key);
        let Some(text) = self.bundle.files.get(&key) else {
            if key.is_empty() || self.bundle.files.keys().any(|path| path.starts_with(&format!("{key}/"))) {
                return Err(ToolError::new(codes::IS_DIRECTORY, format!("{shown} is a directory: use list_files")));
            }
            return Err(self.not_found(&key));
        };
        if text.len() as u64 > limit {
            return Err(ToolError::new(
                codes::TOO_LARGE,
                format!("{shown} is {} bytes; the read limit is {limit}: read a line range", text.len()),
            ));
        }
        Ok(text)
    }

    /// Files below `relative`, `name<TAB>bytes`, as `list_files` prints them for a folder.
    pub fn list(&self, relative: &Path) -> Vec<(String, usize)> {
        let key = key_of(relative);
        self.bundle
            .files
            .iter()
            .filter_map(|(path, text)| {
                let below = if key.is_empty() { Some(path.as_str()) } else { path.strip_prefix(&format!("{key}/")) };
                below.map(|name| (name.to_owned(), text.len()))
            })
            .collect()
    }

    /// `E_NOT_FOUND` with up to ten names of the nearest existing folder, closest first. The
    /// bundle reader skips binary files, so those are not found either.
    fn not_found(&self, key: &str) -> ToolError {
        let shown = display(key);
        let (mut folder, wanted) = match key.rsplit_once('/') {
            Some((folder, name)) => (folder.to_owned(), name.to_owned()),
            None => (String::new(), key.to_owned()),
        };
        let names = loop {
            let prefix = if folder.is_empty() { String::new() } else { format!("{folder}/") };
            let mut children: Vec<String> = self
                .bundle
                .files
                .keys()
                .filter_map(|path| path.strip_prefix(&prefix))
                .map(|below| below.split('/').next().unwrap_or(below))
                .map(|name| format!("{prefix}{name}"))
                .collect();
            children.dedup();
            if !children.is_empty() || folder.is_empty() {
                break children;
            }
            folder = folder.rsplit_once('/').map(|(parent, _)| parent.to_owned()).unwrap_or_default();
        };
        let names = suggest::nearest_by(&wanted, names, |name| name.rsplit('/').next().unwrap_or(name), 10);
        let archive = self.path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        let message = if names.is_empty() {
            format!("{shown} does not exist in {archive} (or is not text)")
        } else {
            format!("{shown} does not exist in {archive} (or is not text); nearby: {}", names.join(", "))
        };
        ToolError::new(codes::NOT_FOUND, message).with_details(serde_json::json!({ "nearby": names }))
    }

    /// The memory its files take: their paths and their text.
    fn bytes(&self) -> usize {
        self.bundle.files.iter().map(|(path, text)| path.len() + text.len()).sum()
    }
}

/// How much [`ArchiveCache`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveCacheLimits {
    /// Opened archives kept at most.
    pub archives: usize,
    /// Bytes of files kept at most, over all archives; one archive holds at most
    /// [`MAX_BUNDLE_BYTES`].
    pub bytes: usize,
}

impl Default for ArchiveCacheLimits {
    fn default() -> Self {
        Self { archives: 8, bytes: 4 * MAX_BUNDLE_BYTES }
    }
}

/// Opened archives, by the canonical path of the archive file, each served again only while the
/// file on disk is provably the one that was read (its `Stamp`); the least recently used go first
/// when a bound is reached. Shared by every call of a [`crate::FileHost`].
#[derive(Default)]
pub struct ArchiveCache {
    limits: ArchiveCacheLimits,
    /// Least recently used first.
    entries: Mutex<Vec<Cached>>,
}

/// The kept archives by path and size, not their files (up to [`ArchiveCacheLimits::bytes`]).
impl std::fmt::Debug for ArchiveCache {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut shown = formatter.debug_struct("ArchiveCache");
        shown.field("limits", &self.limits);
        match self.entries.try_lock() {
            Ok(entries) => {
                let kept: Vec<(&Path, usize)> =
                    entries.iter().map(|entry| (entry.canonical.as_path(), entry.bytes)).collect();
                shown.field("kept", &kept)
            }
            Err(_) => shown.field("kept", &"(in use)"),
        };
        shown.finish()
    }
}

struct Cached {
    canonical: PathBuf,
    stamp: Stamp,
    bytes: usize,
    archive: Arc<BundleArchive>,
}

/// What tells one version of a file from another without reading it: the file (device and
/// inode, so a file renamed over the archive is a new one), its length, and when its content and
/// its inode last changed. The inode change time cannot be set back, so a tool that restores the
/// modification time after a rewrite does not hide it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    device: u64,
    inode: u64,
    bytes: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Stamp {
    /// The stamp of the regular file `path` names, following symbolic links as the bundle
    /// reader does; `None` for anything else (a folder's stamp says nothing about its files).
    fn of(path: &Path) -> Option<Self> {
        let metadata = std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        Some(Self {
            device: metadata.dev(),
            inode: metadata.ino(),
            bytes: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        })
    }
}

impl ArchiveCache {
    pub fn new(limits: ArchiveCacheLimits) -> Self {
        Self { limits, entries: Mutex::new(Vec::new()) }
    }

    /// The archive at `path`, opened as [`BundleArchive::open`] opens it, or the copy opened
    /// before when the file has not changed since. Counts each open and each reuse in
    /// `counters`.
    pub fn open(&self, path: &Path, counters: &Counters) -> Result<Arc<BundleArchive>, ToolError> {
        let identified = std::fs::canonicalize(path).ok().zip(Stamp::of(path));
        if let Some((canonical, stamp)) = &identified
            && let Some(archive) = self.reuse(canonical, path, stamp)
        {
            counters.record_archive_reuse();
            return Ok(archive);
        }
        counters.record_archive_read();
        let archive = Arc::new(BundleArchive::open(path)?);
        // Kept only when the file did not change while it was read: the stamp taken before then
        // names exactly these contents.
        if let Some((canonical, stamp)) = identified
            && Stamp::of(path) == Some(stamp)
        {
            self.keep(Cached { canonical, stamp, bytes: archive.bytes(), archive: Arc::clone(&archive) });
        }
        Ok(archive)
    }

    /// How many archives are kept.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kept archive for `canonical` if `stamp` is still its file's, now the most recently
    /// used. A stale one is dropped at once, freeing its memory. The archive must also have been
    /// opened under the name `path`, which its messages show.
    fn reuse(&self, canonical: &Path, path: &Path, stamp: &Stamp) -> Option<Arc<BundleArchive>> {
        let mut entries = self.entries();
        let position = entries.iter().position(|entry| entry.canonical == canonical)?;
        let entry = entries.remove(position);
        if entry.stamp != *stamp || entry.archive.path != path {
            return None;
        }
        let archive = Arc::clone(&entry.archive);
        entries.push(entry);
        Some(archive)
    }

    /// Keeps `cached` as the most recently used, dropping the least recently used until both
    /// bounds hold. An archive larger than the byte bound alone is not kept.
    fn keep(&self, cached: Cached) {
        if cached.bytes > self.limits.bytes || self.limits.archives == 0 {
            return;
        }
        let mut entries = self.entries();
        entries.retain(|entry| entry.canonical != cached.canonical);
        entries.push(cached);
        while entries.len() > self.limits.archives
            || entries.iter().map(|entry| entry.bytes).sum::<usize>() > self.limits.bytes
        {
            entries.remove(0);
        }
    }

    /// The entries; a panic elsewhere while they were locked leaves them consistent (each change
    /// is one `Vec` operation), so a poisoned lock is taken as it is.
    fn entries(&self) -> std::sync::MutexGuard<'_, Vec<Cached>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The bundle's key for a checked relative path: `/`-separated, empty for the root.
fn key_of(relative: &Path) -> String {
    if relative == Path::new(".") {
        return String::new();
    }
    relative.iter().map(|part| part.to_string_lossy()).collect::<Vec<_>>().join("/")
}

fn display(key: &str) -> String {
    if key.is_empty() {
        MountName::Bundle.variable().to_owned()
    } else {
        format!("{}/{key}", MountName::Bundle.variable())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    /// A zip bundle at `folder/name` holding one file of `bytes` bytes.
    fn archive(folder: &Path, name: &str, bytes: usize) -> PathBuf {
        let path = folder.join(name);
        let mut writer = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
        writer.start_file("notes.md", zip::write::SimpleFileOptions::default()).unwrap();
        writer.write_all("n".repeat(bytes).as_bytes()).unwrap();
        writer.finish().unwrap();
        path
    }

    fn reads(counters: &Counters) -> u64 {
        counters.snapshot().archive_reads
    }

    #[test]
    fn the_cache_keeps_at_most_its_bound_of_archives_dropping_the_least_recently_used() {
        let folder = tempfile::tempdir().unwrap();
        let cache = ArchiveCache::new(ArchiveCacheLimits { archives: 3, ..ArchiveCacheLimits::default() });
        let counters = Counters::default();
        let paths: Vec<PathBuf> =
            (0..5).map(|index| archive(folder.path(), &format!("bundle-{index}.zip"), 100)).collect();
        for path in &paths[..3] {
            cache.open(path, &counters).unwrap();
        }
        cache.open(&paths[0], &counters).unwrap();
        assert_eq!((reads(&counters), cache.len()), (3, 3), "bundle-0 reused, now the most recently used");
        for path in &paths[3..] {
            cache.open(path, &counters).unwrap();
            assert_eq!(cache.len(), 3);
        }
        assert_eq!(reads(&counters), 5);
        cache.open(&paths[0], &counters).unwrap();
        assert_eq!(reads(&counters), 5, "bundle-0 was kept: bundle-1 and bundle-2 were older");
        cache.open(&paths[1], &counters).unwrap();
        assert_eq!(reads(&counters), 6, "bundle-1 was dropped, so it is read again");
        assert_eq!(cache.len(), 3);
    }

    #[test]
    fn the_cache_keeps_its_byte_bound_and_does_not_keep_an_archive_larger_than_it() {
        let folder = tempfile::tempdir().unwrap();
        let cache = ArchiveCache::new(ArchiveCacheLimits { archives: 8, bytes: 2_500 });
        let counters = Counters::default();
        for index in 0..4 {
            cache.open(&archive(folder.path(), &format!("bundle-{index}.zip"), 1_000), &counters).unwrap();
        }
        assert_eq!(cache.len(), 2, "two archives of 1,000 bytes and their paths fit in 2,500 bytes");

        let large = archive(folder.path(), "large.zip", 3_000);
        let opened = cache.open(&large, &counters).unwrap();
        assert_eq!(opened.read(Path::new("notes.md"), u64::MAX).unwrap().len(), 3_000, "it is served");
        assert_eq!(cache.len(), 2, "and the archives kept before stay");
        cache.open(&large, &counters).unwrap();
        assert_eq!(reads(&counters), 6, "but it is read on every call");
    }
}
