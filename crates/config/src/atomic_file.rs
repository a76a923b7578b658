//! The one way the runtime writes a whole file so that no reader ever sees it half-written: a
//! temporary file beside it (`tempfile`, removed on every failure, a full disk included), then a
//! rename, or a link that never replaces what is there. The file door writes inside its sandbox
//! through cap-std-ext's `atomic_write` instead, which goes through a directory handle.

use std::fs::Permissions;
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use tempfile::NamedTempFile;

/// How much a write must survive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// The file and its folder are fsynced before the call returns: it survives a power cut.
    Synced,
    /// The file's bytes are fsynced before it appears, its folder is not: after a power cut the
    /// file is whole or absent. For files re-created when missing, whose folder is itself new and
    /// not fsynced (so the folder's fsync would not keep the file either).
    Content,
    /// Left to the kernel's writeback: for projections that are rebuilt from the log.
    Cached,
}

/// Who may read the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readers {
    /// As any file the process creates (mode 0666 less the umask).
    Anyone,
    /// The owner only (mode 0600), for secrets.
    Owner,
}

/// Replaces `path` with `bytes`.
pub fn write_atomically(path: &Path, bytes: &[u8], durability: Durability, readers: Readers) -> std::io::Result<()> {
    let (folder, temporary) = written_beside(path, bytes, durability, readers)?;
    temporary.persist(path).map_err(|error| error.error)?;
    sync_folder(folder, durability)
}

/// Writes `bytes` to `path` unless `path` already exists, which is then left as it is; `Ok(false)`
/// says so. Either way `path` is never seen partial.
pub fn create_atomically(path: &Path, bytes: &[u8], durability: Durability) -> std::io::Result<bool> {
    let (folder, temporary) = written_beside(path, bytes, durability, Readers::Anyone)?;
    match temporary.persist_noclobber(path) {
        Ok(_) => sync_folder(folder, durability).map(|()| true),
        Err(error) if error.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(error) => Err(error.error),
    }
}

fn written_beside<'a>(
    path: &'a Path,
    bytes: &[u8],
    durability: Durability,
    readers: Readers,
) -> std::io::Result<(&'a Path, NamedTempFile)> {
    let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let mode = match readers {
        Readers::Anyone => 0o666,
        Readers::Owner => 0o600,
    };
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(Permissions::from_mode(mode))
        .tempfile_in(folder)?;
    temporary.write_all(bytes)?;
    if matches!(durability, Durability::Synced | Durability::Content) {
        temporary.as_file().sync_all()?;
    }
    Ok((folder, temporary))
}

fn sync_folder(folder: &Path, durability: Durability) -> std::io::Result<()> {
    match durability {
        Durability::Synced => std::fs::File::open(folder)?.sync_all(),
        Durability::Content | Durability::Cached => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;

    fn leftovers(folder: &Path) -> Vec<String> {
        std::fs::read_dir(folder)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_no_temporary_file() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("state.md");
        write_atomically(&path, b"first", Durability::Cached, Readers::Anyone).unwrap();
        write_atomically(&path, b"second", Durability::Synced, Readers::Anyone).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        assert!(leftovers(folder.path()).is_empty());
    }

    #[test]
    fn a_secret_is_readable_by_its_owner_only() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("keyring.json");
        write_atomically(&path, b"{}", Durability::Synced, Readers::Owner).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().mode() & 0o777, 0o600);
    }

    #[test]
    fn a_create_never_replaces_what_is_there() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("manifest.json");
        assert!(create_atomically(&path, b"first", Durability::Synced).unwrap());
        assert!(!create_atomically(&path, b"second", Durability::Synced).unwrap());
        assert!(!create_atomically(&path, b"third", Durability::Content).unwrap());
        assert_eq!(std::fs::read(&path).unwrap(), b"first");
        assert!(leftovers(folder.path()).is_empty());
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("occupied");
        std::fs::create_dir(path.join("")).unwrap();
        std::fs::write(path.join("inside"), "a folder cannot be replaced by a file").unwrap();
        assert!(write_atomically(&path, b"x", Durability::Synced, Readers::Anyone).is_err());
        assert!(leftovers(folder.path()).is_empty());
    }
}
