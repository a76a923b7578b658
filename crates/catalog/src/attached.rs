//! Workflow folders a user attached (MCP `manage_workflow_source`): their list, kept in
//! `$SWITCHYARD_HOME/attached-sources.json` and written atomically, which discovery searches
//! after the user's own folder. Only canonical paths of real directories are kept, so a symlink
//! swapped later, or a relative path, cannot make the list name something else.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use switchyard_config::atomic_file::{Durability, Readers, write_atomically};

pub use switchyard_config::ATTACHED_SOURCES_FILE;

/// The most folders one user may attach: each is searched on every lookup.
pub const MAX_ATTACHED_SOURCES: usize = 64;

/// Read-modify-write of the list is one at a time in this process.
static WRITING: Mutex<()> = Mutex::new(());

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttachedFile {
    version: u32,
    folders: Vec<PathBuf>,
}

/// What an attach or detach did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceChange {
    /// The folder, resolved to its canonical path (or, for a detach of a folder that no longer
    /// exists, as given).
    pub path: PathBuf,
    /// `false` when the folder was already attached (or already not).
    pub changed: bool,
}

/// The attached folders listed in `file`, in the order they were attached. A missing file is an
/// empty list; an unreadable one is logged and read as empty, so discovery never stops on it.
pub fn attached_folders(file: &Path) -> Vec<PathBuf> {
    match read(file) {
        Ok(list) => list.folders,
        Err(error) => {
            tracing::warn!(%error, "attached workflow folders are left out");
            Vec::new()
        }
    }
}

/// Folders an attached source must stay clear of: what an agent may write through the file tools
/// (the project, the run output folders) and switchyard's home (keys, store, configuration).
#[derive(Debug, Default)]
pub struct OffLimits {
    /// Neither the folder nor anything inside it may be attached.
    pub writable: Vec<PathBuf>,
    /// May not be attached, lie inside an attached folder, or hold one.
    pub home: Option<PathBuf>,
}

impl OffLimits {
    /// Refuses `resolved` (a canonical path) when attaching it would let what an agent writes
    /// become a workflow a later run loads, or would put switchyard's own files in discovery.
    fn check(&self, resolved: &Path, given: &Path) -> Result<(), Error> {
        for folder in &self.writable {
            let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.clone());
            if resolved.starts_with(&folder) {
                return Err(Error::AttachRefused(format!(
                    "cannot attach {}: it lies in {}, which agents may write through the file tools, so a \
                     workflow an agent wrote there would be loaded by later runs; attach a folder outside it \
                     (project workflows belong in .switchyard/workflows/)",
                    given.display(),
                    folder.display()
                )));
            }
        }
        if let Some(home) = &self.home {
            let home = std::fs::canonicalize(home).unwrap_or_else(|_| home.clone());
            if resolved.starts_with(&home) || home.starts_with(resolved) {
                return Err(Error::AttachRefused(format!(
                    "cannot attach {}: it is, holds or lies in switchyard's home {} (keys, store, \
                     configuration); put user workflows in {}/workflows/, which is searched already",
                    given.display(),
                    home.display(),
                    home.display()
                )));
            }
        }
        Ok(())
    }
}

/// Adds `path` (absolute, an existing directory, clear of `off_limits`) to the list in `file`;
/// attaching it again changes nothing.
pub fn attach(file: &Path, path: &Path, off_limits: &OffLimits) -> Result<SourceChange, Error> {
    let resolved = resolve_directory(path)?;
    off_limits.check(&resolved, path)?;
    let _writing = WRITING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut list = read(file)?;
    if list.folders.contains(&resolved) {
        return Ok(SourceChange { path: resolved, changed: false });
    }
    if list.folders.len() >= MAX_ATTACHED_SOURCES {
        return Err(Error::AttachRefused(format!(
            "{MAX_ATTACHED_SOURCES} workflow folders are attached already: detach one first ({})",
            file.display()
        )));
    }
    list.folders.push(resolved.clone());
    write(file, &list)?;
    Ok(SourceChange { path: resolved, changed: true })
}

/// Removes `path` (absolute) from the list in `file`; detaching a folder that is not attached
/// changes nothing. A folder deleted since it was attached can still be detached by its path.
pub fn detach(file: &Path, path: &Path) -> Result<SourceChange, Error> {
    absolute(path)?;
    let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    let _writing = WRITING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut list = read(file)?;
    let before = list.folders.len();
    list.folders.retain(|folder| folder != &resolved && folder != path);
    let changed = list.folders.len() != before;
    if changed {
        write(file, &list)?;
    }
    Ok(SourceChange { path: resolved, changed })
}

fn absolute(path: &Path) -> Result<(), Error> {
    if path.is_absolute() {
        Ok(())
    } else {
        Err(Error::AttachRefused(format!("`{}` is not an absolute path: give the folder's full path", path.display())))
    }
}

fn resolve_directory(path: &Path) -> Result<PathBuf, Error> {
    absolute(path)?;
    let resolved = std::fs::canonicalize(path)
        .map_err(|error| Error::AttachRefused(format!("cannot attach {}: {error}", path.display())))?;
    if !resolved.is_dir() {
        return Err(Error::AttachRefused(format!(
            "cannot attach {}: it is not a directory; attach the folder that holds the workflow files",
            path.display()
        )));
    }
    Ok(resolved)
}

fn read(file: &Path) -> Result<AttachedFile, Error> {
    match std::fs::read_to_string(file) {
        Ok(text) => serde_json::from_str(&text).map_err(|error| {
            Error::io(
                format!("{} is not a list of attached workflow folders (fix or remove it)", file.display()),
                std::io::Error::new(std::io::ErrorKind::InvalidData, error),
            )
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            Ok(AttachedFile { version: 1, folders: Vec::new() })
        }
        Err(error) => Err(Error::io(format!("cannot read {}", file.display()), error)),
    }
}

fn write(file: &Path, list: &AttachedFile) -> Result<(), Error> {
    let list = AttachedFile { version: 1, folders: list.folders.clone() };
    let mut bytes = serde_json::to_vec_pretty(&list)
        .map_err(|error| Error::io("cannot encode the attached folders", std::io::Error::other(error)))?;
    bytes.push(b'\n');
    if let Some(folder) = file.parent() {
        std::fs::create_dir_all(folder)
            .map_err(|error| Error::io(format!("cannot create {}", folder.display()), error))?;
    }
    write_atomically(file, &bytes, Durability::Synced, Readers::Anyone)
        .map_err(|error| Error::io(format!("cannot write {}", file.display()), error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attach_is_idempotent_canonical_and_refuses_what_is_no_directory() {
        let home = tempfile::tempdir().unwrap();
        let folder = tempfile::tempdir().unwrap();
        let file = home.path().join(ATTACHED_SOURCES_FILE);
        let link = home.path().join("link");
        std::os::unix::fs::symlink(folder.path(), &link).unwrap();
        let first = attach(&file, &link, &OffLimits::default()).unwrap();
        assert_eq!(first.path, std::fs::canonicalize(folder.path()).unwrap(), "the link is resolved");
        assert!(first.changed);
        assert!(
            !attach(&file, folder.path(), &OffLimits::default()).unwrap().changed,
            "the same folder by another path"
        );
        assert_eq!(attached_folders(&file), [first.path]);
        let not_a_folder = home.path().join("plain.txt");
        std::fs::write(&not_a_folder, "x").unwrap();
        assert!(
            attach(&file, &not_a_folder, &OffLimits::default()).unwrap_err().to_string().contains("not a directory")
        );
        assert!(
            attach(&file, Path::new("relative/dir"), &OffLimits::default())
                .unwrap_err()
                .to_string()
                .contains("absolute")
        );
        assert!(detach(&file, folder.path()).unwrap().changed);
        assert!(!detach(&file, folder.path()).unwrap().changed);
        assert!(attached_folders(&file).is_empty());
    }

    /// Regression: an agent could attach a folder it writes (the project, a run folder) and have
    /// later runs load a workflow it wrote there.
    #[test]
    fn folders_agents_write_and_switchyards_home_are_never_attached() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let file = home.path().join(ATTACHED_SOURCES_FILE);
        let off_limits = OffLimits { writable: vec![project.path().to_owned()], home: Some(home.path().to_owned()) };
        let inside_project = project.path().join("flows");
        let inside_home = home.path().join("workflows");
        for folder in [&inside_project, &inside_home] {
            std::fs::create_dir_all(folder).unwrap();
        }
        let link_into_project = outside.path().join("looks-outside");
        std::os::unix::fs::symlink(&inside_project, &link_into_project).unwrap();
        for (path, says) in [
            (project.path(), "agents may write"),
            (inside_project.as_path(), "agents may write"),
            (link_into_project.as_path(), "agents may write"),
            (home.path(), "switchyard's home"),
            (inside_home.as_path(), "switchyard's home"),
            (Path::new("/"), "switchyard's home"),
        ] {
            let refused = attach(&file, path, &off_limits).unwrap_err().to_string();
            assert!(refused.contains(says), "{}: {refused}", path.display());
        }
        assert!(attached_folders(&file).is_empty(), "nothing was written");
        assert!(attach(&file, outside.path(), &off_limits).unwrap().changed);
    }
}
