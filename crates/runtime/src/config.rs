//! Where switchyard keeps its data, and `switchyard.toml`.
//!
//! Precedence, highest first: explicit options (`--home`, `--store`), the project's
//! `switchyard.toml`, the user's `$SWITCHYARD_HOME/switchyard.toml`, then defaults
//! (`$SWITCHYARD_HOME` defaults to the user's data directory plus `switchyard`).

use std::fs;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::Error;

/// The file name of the store inside the home folder.
pub const DEFAULT_STORE_FILE: &str = "switchyard.sqlite3";

/// Resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// `$SWITCHYARD_HOME`: keys, user workflows, the default store.
    pub home: PathBuf,
    /// The SQLite store file.
    pub store_path: PathBuf,
    /// The project (workspace) root whose `.switchyard/workflows/` is searched first.
    pub project_root: Option<PathBuf>,
    /// Where run output folders go (`[runs] output_root`); defaults to `$SWITCHYARD_HOME/runs/`.
    pub output_root: PathBuf,
    /// The file tools may write under `{project-root}` (`[files] project_writable`, default false).
    pub project_writable: bool,
    /// Built-in assets, `{core-root}` (`[files] core_root`; default `$SWITCHYARD_HOME/core`).
    pub core_root: PathBuf,
}

/// What the caller says explicitly; anything left `None` comes from files or defaults.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub home: Option<PathBuf>,
    pub store: Option<PathBuf>,
    pub project_root: Option<PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    #[serde(default)]
    store: StoreSection,
    #[serde(default)]
    runs: RunsSection,
    #[serde(default)]
    files: FilesSection,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunsSection {
    output_root: Option<PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FilesSection {
    project_writable: Option<bool>,
    core_root: Option<PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreSection {
    path: Option<PathBuf>,
}

impl Config {
    pub fn resolve(overrides: Overrides) -> Result<Self, Error> {
        let home = match overrides.home {
            Some(home) => home,
            None => dirs::data_dir().map(|data| data.join("switchyard")).ok_or_else(|| {
                Error::environment("cannot find a data directory for this user; set SWITCHYARD_HOME or pass --home")
            })?,
        };
        let (mut store_path, mut output_root, mut project_writable, mut core_root) = (None, None, None, None);
        let project_file = overrides.project_root.as_deref().map(|root| root.join("switchyard.toml"));
        for file in project_file.iter().chain(std::iter::once(&home.join("switchyard.toml"))) {
            let read = read_file_config(file)?;
            store_path = store_path.or_else(|| read.store.path.map(|path| relative_to(file, path)));
            output_root = output_root.or_else(|| read.runs.output_root.map(|path| relative_to(file, path)));
            project_writable = project_writable.or(read.files.project_writable);
            core_root = core_root.or_else(|| read.files.core_root.map(|path| relative_to(file, path)));
        }
        let store_path = overrides.store.or(store_path).unwrap_or_else(|| home.join(DEFAULT_STORE_FILE));
        // Under the home, not the project: a run folder never lands in a repository by surprise.
        let output_root = output_root.unwrap_or_else(|| home.join("runs"));
        let core_root = core_root.unwrap_or_else(|| home.join("core"));
        Ok(Self {
            home,
            store_path,
            project_root: overrides.project_root,
            output_root,
            project_writable: project_writable.unwrap_or(false),
            core_root,
        })
    }
}

fn relative_to(config_file: &Path, path: PathBuf) -> PathBuf {
    if path.is_absolute() { path } else { config_file.parent().unwrap_or(Path::new(".")).join(path) }
}

fn read_file_config(path: &Path) -> Result<FileConfig, Error> {
    match fs::read_to_string(path) {
        Ok(text) => toml::from_str(&text)
            .map_err(|error| Error::environment(format!("{} is not a valid switchyard.toml: {error}", path.display()))),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(FileConfig::default()),
        Err(error) => Err(Error::environment(format!("cannot read {}: {error}", path.display()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_store_beats_project_file_which_beats_user_file() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        fs::write(home.path().join("switchyard.toml"), "[store]\npath = \"user.sqlite3\"\n").unwrap();
        let resolve = |store: Option<PathBuf>| {
            Config::resolve(Overrides {
                home: Some(home.path().to_owned()),
                store,
                project_root: Some(project.path().to_owned()),
            })
            .unwrap()
            .store_path
        };
        assert_eq!(resolve(None), home.path().join("user.sqlite3"));
        fs::write(project.path().join("switchyard.toml"), "[store]\npath = \"/tmp/p.sqlite3\"\n").unwrap();
        assert_eq!(resolve(None), PathBuf::from("/tmp/p.sqlite3"));
        assert_eq!(resolve(Some("/x.sqlite3".into())), PathBuf::from("/x.sqlite3"));
    }

    #[test]
    fn a_misspelled_key_is_an_error_naming_the_file() {
        let home = tempfile::tempdir().unwrap();
        fs::write(home.path().join("switchyard.toml"), "[store]\npaht = \"x\"\n").unwrap();
        let error =
            Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() }).unwrap_err();
        assert!(error.to_string().contains("switchyard.toml"), "{error}");
    }
}
