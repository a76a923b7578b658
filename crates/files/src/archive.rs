//! `{bundle-root}` of a run whose workflow came from a zip bundle (`.zip`, `.bmad`): the archive's
//! files, read into memory by the runtime's bundle reader with its bounds (archive size, file
//! count and size, nesting, zip bombs, entries that climb out or are symlinks), so nothing is
//! extracted to disk and no path in the archive reaches the file system.

use std::path::{Path, PathBuf};

use switchyard_compiler::Bundle;

use crate::error::{ToolError, codes};
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
        let bundle = switchyard_runtime::catalog::read_bundle(path).map_err(|error| {
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
        let mut nearby: Vec<(f64, String)> = names
            .into_iter()
            .map(|name| {
                let last = name.rsplit('/').next().unwrap_or(&name).to_owned();
                (strsim::normalized_levenshtein(&wanted, &last), name)
            })
            .collect();
        nearby.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let names: Vec<String> = nearby.into_iter().take(10).map(|(_, name)| name).collect();
        let archive = self.path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
        let message = if names.is_empty() {
            format!("{shown} does not exist in {archive} (or is not text)")
        } else {
            format!("{shown} does not exist in {archive} (or is not text); nearby: {}", names.join(", "))
        };
        ToolError::new(codes::NOT_FOUND, message).with_details(serde_json::json!({ "nearby": names }))
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
