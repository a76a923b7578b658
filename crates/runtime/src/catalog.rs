//! Workflow discovery: the project's `.switchyard/workflows/`, then `$SWITCHYARD_HOME/workflows/`,
//! then the built-ins. The first match wins; `list` shows which copies each winner shadows.
//!
//! A workflow is found by name: the file `<name>.yaml`, `<name>.yml` or `<name>.json`. Names are
//! checked with [`validate_workflow_id`] before any path is built, so no name reaches outside
//! those folders.

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Serialize;
use switchyard_compiler::{Compiled, Source, compile};
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;
use switchyard_core::workflow::validate_workflow_id;

use crate::error::Error;

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Where a workflow came from, in precedence order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Project,
    User,
    Builtin,
    /// A file named directly (`--file`), outside discovery.
    File,
}

/// One place a workflow was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Location {
    pub origin: Origin,
    /// The file path, or `builtin:<name>`.
    pub path: String,
}

impl Location {
    /// The source string recorded with a run.
    pub fn describe(&self) -> String {
        match self.origin {
            Origin::Builtin => self.path.clone(),
            Origin::Project => format!("project:{}", self.path),
            Origin::User => format!("user:{}", self.path),
            Origin::File => format!("file:{}", self.path),
        }
    }
}

/// A workflow source found by discovery, compiled.
#[derive(Debug)]
pub struct Found {
    pub name: String,
    pub location: Location,
    /// Lower-precedence copies of the same name that this one hides.
    pub shadows: Vec<Location>,
    pub compiled: Compiled,
}

/// The folders discovery looks in.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub project_dir: Option<PathBuf>,
    pub user_dir: PathBuf,
}

impl Catalog {
    /// `project_root` is the workspace (its `.switchyard/workflows/` is searched); `home` is
    /// `$SWITCHYARD_HOME`.
    pub fn new(project_root: Option<&Path>, home: &Path) -> Self {
        Self {
            project_dir: project_root.map(|root| root.join(".switchyard").join("workflows")),
            user_dir: home.join("workflows"),
        }
    }

    fn folders(&self) -> impl Iterator<Item = (Origin, &Path)> {
        self.project_dir
            .as_deref()
            .map(|dir| (Origin::Project, dir))
            .into_iter()
            .chain(std::iter::once((Origin::User, self.user_dir.as_path())))
    }

    /// Every place `name` exists, in precedence order.
    fn locations(&self, name: &str) -> Vec<Location> {
        let mut found = Vec::new();
        for (origin, folder) in self.folders() {
            for extension in EXTENSIONS {
                let path = folder.join(format!("{name}.{extension}"));
                if path.is_file() {
                    found.push(Location { origin, path: path.display().to_string() });
                }
            }
        }
        if switchyard_compiler::builtins().any(|builtin| builtin.name == name) {
            found.push(Location { origin: Origin::Builtin, path: format!("builtin:{name}") });
        }
        found
    }

    /// Finds and compiles the workflow called `name`.
    pub fn find(&self, name: &str) -> Result<Found, Error> {
        validate_workflow_id(name).map_err(|message| Error::InvalidName { message })?;
        let mut locations = self.locations(name).into_iter();
        let Some(location) = locations.next() else {
            return Err(Error::WorkflowNotFound { name: name.to_owned(), available: self.names() });
        };
        let compiled = compile_location(name, &location)?;
        Ok(Found { name: name.to_owned(), location, shadows: locations.collect(), compiled })
    }

    /// Compiles a file named directly, outside discovery.
    pub fn file(path: &Path) -> Result<Found, Error> {
        let text = read_source(path)?;
        let location = Location { origin: Origin::File, path: path.display().to_string() };
        let compiled = compile(&Source { name: location.path.clone(), text });
        let name =
            compiled.workflow.as_ref().map(|workflow| workflow.id.clone()).unwrap_or_else(|| {
                path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default()
            });
        Ok(Found { name, location, shadows: Vec::new(), compiled })
    }

    /// Every workflow name visible from here, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = switchyard_compiler::builtins().map(|builtin| builtin.name.to_owned()).collect();
        for (_, folder) in self.folders() {
            let Ok(entries) = fs::read_dir(folder) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                let has_extension = path
                    .extension()
                    .and_then(|extension| extension.to_str())
                    .is_some_and(|extension| EXTENSIONS.contains(&extension));
                let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else { continue };
                if has_extension && validate_workflow_id(stem).is_ok() {
                    names.push(stem.to_owned());
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// Every visible workflow, compiled, with what it shadows. Files that fail to compile are
    /// listed with their diagnostics rather than hidden.
    pub fn list(&self) -> Vec<Found> {
        self.names().into_iter().filter_map(|name| self.find(&name).ok()).collect()
    }
}

fn compile_location(name: &str, location: &Location) -> Result<Compiled, Error> {
    if location.origin == Origin::Builtin {
        let builtin = switchyard_compiler::builtins()
            .find(|builtin| builtin.name == name)
            .expect("a built-in location names an existing built-in");
        return Ok(compile(&builtin.source));
    }
    let text = read_source(Path::new(&location.path))?;
    Ok(compile(&Source { name: location.path.clone(), text }))
}

/// Reads a workflow file, refusing anything larger than the compiler accepts.
pub fn read_source(path: &Path) -> Result<String, Error> {
    let cannot =
        |error: std::io::Error| Error::environment(format!("cannot read workflow file {}: {error}", path.display()));
    let file = fs::File::open(path).map_err(cannot)?;
    let mut bytes = Vec::new();
    let limit = u64::try_from(MAX_WORKFLOW_SOURCE_BYTES).unwrap_or(u64::MAX) + 1;
    file.take(limit).read_to_end(&mut bytes).map_err(cannot)?;
    if bytes.len() > MAX_WORKFLOW_SOURCE_BYTES {
        return Err(Error::invalid_input(format!(
            "workflow file {} is larger than {} bytes; split it or remove embedded data",
            path.display(),
            MAX_WORKFLOW_SOURCE_BYTES
        )));
    }
    String::from_utf8(bytes)
        .map_err(|_| Error::invalid_input(format!("workflow file {} is not UTF-8 text", path.display())))
}
