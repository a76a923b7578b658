//! Workflow discovery: the project's `.switchyard/workflows/`, then `$SWITCHYARD_HOME/workflows/`,
//! then the built-ins. The first match wins; `list` shows which copies each winner shadows.
//!
//! A workflow is found by name: the file `<name>.yaml`, `<name>.yml` or `<name>.json` (native,
//! stage list or WorkRail, told apart by content), or a bundle: the folder `<name>/` or the
//! archive `<name>.bmad`/`<name>.zip` (a CrewAgent package or a BMad Method workflow, told apart
//! by layout; a multi-workflow package lists each workflow as `<name>.<workflow id>`). Names are
//! checked with [`validate_workflow_id`] before any path is built, so no name reaches outside
//! those folders.

pub mod attached;
mod bundle;
mod cache;
mod error;
mod project;
pub mod read;
mod tags;

use std::fs;
use std::path::{Path, PathBuf};

use rayon::iter::{IntoParallelIterator, ParallelIterator};
use serde::Serialize;
use switchyard_compiler::{MAX_BUNDLE_FILES, Source, compile, compile_bundle, detect_bundle};
// What doors show of a found workflow (its compiled form, diagnostics and source format, a
// bundle's files) and write from it (the native format's schema, native YAML, Mermaid, DOT), so
// that doors reach the compiler through the catalog alone.
pub use switchyard_compiler::{
    Bundle, Compiled, Diagnostic, Format, MAX_BUNDLE_BYTES, Severity, native_schema, to_dot, to_mermaid, to_native_yaml,
};
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;
use switchyard_core::workflow::{WorkflowHash, validate_workflow_id};

pub use crate::error::Error;

pub use self::bundle::{
    MAX_ARCHIVE_BYTES, MAX_DEPTH, MAX_EXPANSION_RATIO, is_bundle_path, read_archive_bytes, read_bundle,
};
pub use self::cache::{MAX_CACHED_BYTES, MAX_CACHED_FILES, compiles_of};
use self::read::read_bounded;
pub use self::tags::{CatalogedWorkflow, TAG_CATALOG_FILE, TagCatalog, TagDescription};

const ARCHIVE_EXTENSIONS: [&str; 2] = ["bmad", "zip"];

const EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Where a workflow came from, in precedence order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    Project,
    User,
    /// A folder attached with `manage_workflow_source` (see [`crate::attached`]).
    Attached,
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
            Origin::Attached => format!("attached:{}", self.path),
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

impl Found {
    /// The text the workflow was compiled from, byte for byte: a file's, or a built-in's as
    /// embedded. A bundle (a folder or an archive) has several files, so no one text.
    pub fn source(&self) -> Result<String, Error> {
        if self.location.origin == Origin::Builtin {
            let builtin = switchyard_compiler::builtins()
                .find(|builtin| builtin.name == self.name)
                .ok_or_else(|| Error::NotASource(format!("`{}` is no built-in workflow", self.name)))?;
            return Ok(builtin.source.text);
        }
        let path = Path::new(&self.location.path);
        if is_bundle_path(path) {
            return Err(Error::NotASource(format!(
                "{} is a bundle, a folder or archive of several files: its sources are those files",
                path.display()
            )));
        }
        read_source(path)
    }
}

/// What a path found by [`Catalog::sources`] turned out to be.
#[derive(Debug)]
pub enum Sourced {
    /// The workflows it holds, compiled: one for a file, every workflow of a bundle.
    Workflows(Vec<Found>),
    /// None of the formats at all (a module or tool config, an agent definition, a manifest, a
    /// JSON Schema): skipped rather than reported as a broken workflow. The text says why.
    NotAWorkflow(String),
}

/// The folders discovery looks in. Cheap to build: one per workspace a call names, all sharing
/// the process-wide compile cache.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub project_dir: Option<PathBuf>,
    /// `$SWITCHYARD_HOME/workflows/`; `None` for a catalog of the built-ins only.
    pub user_dir: Option<PathBuf>,
    /// The list of attached folders, searched after `user_dir`, read on every lookup so an attach
    /// shows in every workspace's catalog at once; `None` for a catalog of the built-ins only.
    pub attached_file: Option<PathBuf>,
    /// Folders agents may write through the file tools besides the project (the run output
    /// folders): never attachable, so nothing an agent wrote becomes a workflow later runs load.
    pub agent_writable: Vec<PathBuf>,
}

impl Catalog {
    /// `project_root` is the workspace (its `.switchyard/workflows/` is searched); `home` is
    /// `$SWITCHYARD_HOME`.
    pub fn new(project_root: Option<&Path>, home: &Path) -> Self {
        Self {
            project_dir: project_root.map(|root| root.join(switchyard_config::PROJECT_FOLDER).join("workflows")),
            user_dir: Some(home.join("workflows")),
            attached_file: Some(home.join(switchyard_config::ATTACHED_SOURCES_FILE)),
            agent_writable: Vec::new(),
        }
    }

    /// A catalog that searches no folder: the built-in workflows, and files named directly. What
    /// a program that embeds the runtime without a switchyard home starts runs from.
    pub fn builtins_only() -> Self {
        Self { project_dir: None, user_dir: None, attached_file: None, agent_writable: Vec::new() }
    }

    /// The catalog a configuration names: its project and home, with its run output folders off
    /// limits for attaching.
    pub fn configured(config: &switchyard_config::Config) -> Self {
        Self {
            agent_writable: vec![config.output_root.clone()],
            ..Self::new(config.project_root.as_deref(), &config.home)
        }
    }

    /// The same catalog for another workspace: its `.switchyard/workflows/` searched first, the
    /// user's folders and attached list as they are.
    pub fn for_project(&self, project_root: Option<&Path>) -> Self {
        Self {
            project_dir: project_root.map(|root| root.join(switchyard_config::PROJECT_FOLDER).join("workflows")),
            ..self.clone()
        }
    }

    /// Attaches a workflow folder for this user: discovery searches it after the user's own
    /// folder, in every workspace. Idempotent; the folder must exist and is kept canonical.
    ///
    /// An agent may call this (MCP `manage_workflow_source`), so a folder it can write (the
    /// project, the run output folders) or switchyard's home is refused: attaching must never make
    /// what an agent wrote a workflow that later runs load.
    pub fn attach_source(&self, path: &Path) -> Result<attached::SourceChange, Error> {
        let project_root = self.project_dir.as_deref().and_then(Path::parent).and_then(Path::parent);
        let off_limits = attached::OffLimits {
            writable: project_root.into_iter().map(Path::to_owned).chain(self.agent_writable.iter().cloned()).collect(),
            home: self.attached_file.as_deref().and_then(Path::parent).map(Path::to_owned),
        };
        attached::attach(self.attached_list()?, path, &off_limits)
    }

    /// Detaches a workflow folder attached before; detaching one that is not attached changes
    /// nothing.
    pub fn detach_source(&self, path: &Path) -> Result<attached::SourceChange, Error> {
        attached::detach(self.attached_list()?, path)
    }

    fn attached_list(&self) -> Result<&Path, Error> {
        self.attached_file.as_deref().ok_or_else(|| {
            Error::AttachRefused("this catalog has no switchyard home to keep attached folders in".to_owned())
        })
    }

    /// The folders to search, in precedence order. The attached list is read here, once per
    /// lookup or listing: callers pass the result down rather than read it again per name.
    fn folders(&self) -> Vec<(Origin, PathBuf)> {
        let attached = self.attached_file.as_deref().map(attached::attached_folders).unwrap_or_default();
        self.project_dir
            .iter()
            .map(|dir| (Origin::Project, dir.clone()))
            .chain(self.user_dir.iter().map(|dir| (Origin::User, dir.clone())))
            .chain(attached.into_iter().map(|dir| (Origin::Attached, dir)))
            .collect()
    }

    /// Every place `name` exists among `folders`, in precedence order.
    fn locations(folders: &[(Origin, PathBuf)], name: &str) -> Vec<Candidate> {
        let mut found = Vec::new();
        for (origin, folder) in folders {
            let origin = *origin;
            for extension in EXTENSIONS {
                let path = folder.join(format!("{name}.{extension}"));
                if let Some(text) = path.is_file().then(|| workflow_text(&path)).flatten() {
                    let location = Location { origin, path: path.display().to_string() };
                    found.push(Candidate { location, text: Some(text) });
                }
            }
            for candidate in bundle_candidates(folder, name) {
                found.push(Candidate {
                    location: Location { origin, path: candidate.display().to_string() },
                    text: None,
                });
            }
        }
        if switchyard_compiler::builtins().any(|builtin| builtin.name == name) {
            let location = Location { origin: Origin::Builtin, path: format!("builtin:{name}") };
            found.push(Candidate { location, text: None });
        }
        found
    }

    /// Finds and compiles the workflow called `name`: by the name discovery lists it under (its
    /// file or bundle name), or by the id it declares, which is what `list_workflows` and run
    /// records show.
    ///
    /// A name that is its workflow's file name and id at once is that workflow. Any other name
    /// is looked up among every visible workflow, and when it names more than one (two files
    /// declaring the same id, or one file's name that is another's id) the answer is
    /// [`Error::AmbiguousWorkflow`] listing them, never a pick.
    pub fn find(&self, name: &str) -> Result<Found, Error> {
        if let Err(message) = validate_workflow_id(name) {
            return Err(if looks_like_path(name) {
                path_given_as_name(name, &Self::names_in(&self.folders()))
            } else {
                Error::InvalidName { message }
            });
        }
        let folders = self.folders();
        let by_file_name = Self::find_by_file_name(&folders, name)?;
        if let Some(found) = &by_file_name
            && found.compiled.workflow.as_ref().is_none_or(|workflow| workflow.id == name)
        {
            return Ok(by_file_name.expect("just matched"));
        }
        let listed = Self::names_in(&folders);
        let by_id: Vec<Found> = listed
            .iter()
            .filter(|listed| listed.as_str() != name)
            .filter_map(|listed| Self::find_by_file_name(&folders, listed).ok().flatten())
            .filter(|found| found.compiled.workflow.as_ref().is_some_and(|workflow| workflow.id == name))
            .collect();
        let mut matches: Vec<Found> = by_file_name.into_iter().chain(by_id).collect();
        match matches.len() {
            0 if looks_like_path(name) => Err(path_given_as_name(name, &listed)),
            0 => Err(Error::WorkflowNotFound { name: name.to_owned(), available: listed }),
            1 => Ok(matches.remove(0)),
            _ => Err(Error::AmbiguousWorkflow {
                name: name.to_owned(),
                candidates: matches
                    .iter()
                    .map(|found| format!("{} ({})", found.name, found.location.describe()))
                    .collect(),
            }),
        }
    }

    /// The workflow discovery lists under `name` (its file or bundle name) in `folders`, compiled.
    fn find_by_file_name(folders: &[(Origin, PathBuf)], name: &str) -> Result<Option<Found>, Error> {
        let mut candidates = Self::locations(folders, name).into_iter();
        let Some(first) = candidates.next() else { return Ok(None) };
        let location = first.location.clone();
        let compiled = compile_location(name, first)?;
        let shadows = candidates.map(|candidate| candidate.location).collect();
        Ok(Some(Found { name: name.to_owned(), location, shadows, compiled }))
    }

    /// The built-in workflow `name` as this binary embeds it, whatever the project's or the
    /// user's folders hold under the same name (`inspect --builtin`, to see or vendor it again).
    pub fn builtin(name: &str) -> Result<Found, Error> {
        let names: Vec<String> = switchyard_compiler::builtins().map(|builtin| builtin.name.to_owned()).collect();
        if !names.iter().any(|known| known == name) {
            return Err(Error::WorkflowNotFound { name: name.to_owned(), available: names });
        }
        let location = Location { origin: Origin::Builtin, path: format!("builtin:{name}") };
        let compiled = compile_location(name, Candidate { location: location.clone(), text: None })?;
        Ok(Found { name: name.to_owned(), location, shadows: Vec::new(), compiled })
    }

    /// Compiles a file or bundle named directly, outside discovery. For a multi-workflow package
    /// this is its first workflow; [`Catalog::bundle`] gives all of them.
    pub fn file(path: &Path) -> Result<Found, Error> {
        if is_bundle_path(path) {
            return Self::bundle(path)?
                .into_iter()
                .next()
                .ok_or_else(|| Error::NotASource(format!("{} holds no workflow", path.display())));
        }
        let text = read_source(path)?;
        let location = Location { origin: Origin::File, path: path.display().to_string() };
        let compiled = compile_file(path, &location.path, text);
        let name =
            compiled.workflow.as_ref().map(|workflow| workflow.id.clone()).unwrap_or_else(|| {
                path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default()
            });
        Ok(Found { name, location, shadows: Vec::new(), compiled })
    }

    /// The hash of the workflow `text` (native YAML named `name`) compiles to, or `None` when it
    /// does not compile: what `import` prints for the file it wrote.
    pub fn hash_of_text(name: &str, text: &str) -> Option<WorkflowHash> {
        compile(&Source::new(name, text)).workflow.map(|workflow| workflow.hash())
    }

    /// Compiles every workflow of a bundle (a folder or a `.bmad`/`.zip` archive) named directly.
    ///
    /// A bundle inside a project (under `{project-root}/bmad/` or `{project-root}/_bmad/`) also
    /// gets the module configs and invoked workflows it names under `{project-root}`
    /// (`catalog/project.rs`).
    pub fn bundle(path: &Path) -> Result<Vec<Found>, Error> {
        Ok(Self::compile_bundle_at(path, read_bundle(path)?))
    }

    fn compile_bundle_at(path: &Path, bundle: Bundle) -> Vec<Found> {
        let stem = bundle_stem(path);
        let compiled = match project::root_of(path) {
            Some(root) => project::compile_in_project(bundle, &root),
            None => compile_bundle(&bundle),
        };
        let single = compiled.len() == 1;
        let location = Location { origin: Origin::File, path: path.display().to_string() };
        compiled
            .into_iter()
            .map(|found| Found {
                name: if single { stem.clone().unwrap_or(found.name) } else { found.name },
                location: location.clone(),
                shadows: Vec::new(),
                compiled: found.compiled,
            })
            .collect()
    }

    /// Every workflow source under `path`, found and compiled the way discovery does it:
    /// a single file (a WorkRail file with the routines beside it), or every workflow of a bundle
    /// (a folder with a bundle's layout, or a `.bmad`/`.zip` archive). A folder that is no bundle
    /// is searched for files (`.yaml`, `.yml`, `.json`), archives and bundle folders; a bundle
    /// folder's subfolders are searched for further bundles (a BMad Method child workflow inside
    /// its parent's folder), except in a CrewAgent package, whose workflow folders are its parts.
    /// A bundle's entry file named directly (`workflow.yaml`, `bmad.json`, `workflow.md`) stands
    /// for its folder.
    ///
    /// Detection is by content and layout: a file that is no workflow format (see
    /// [`switchyard_compiler::detect_format`]), a folder with an entry file but not a bundle's
    /// layout, and an archive holding no bundle come back as [`Sourced::NotAWorkflow`]. Each
    /// source comes with its own result, so a refused bundle does not hide the others.
    pub fn sources(path: &Path) -> Vec<(PathBuf, Result<Sourced, Error>)> {
        let mut paths = Vec::new();
        if path.is_dir() {
            collect_sources(path, 0, &mut paths);
            if paths.is_empty() {
                return vec![(path.to_owned(), Ok(Sourced::NotAWorkflow(empty_folder_reason(path))))];
            }
        } else if let Some(folder) = entry_file_folder(path) {
            paths.push(folder);
        } else {
            paths.push(path.to_owned());
        }
        if paths.is_empty() && !path.exists() {
            paths.push(path.to_owned());
        }
        // One source per task on every core: a source's compile is independent of the others'.
        paths
            .into_par_iter()
            .map(|source| {
                let result = source_outcome(&source);
                (source, result)
            })
            .collect()
    }

    /// Every workflow name visible from here, sorted.
    pub fn names(&self) -> Vec<String> {
        Self::names_in(&self.folders())
    }

    fn names_in(folders: &[(Origin, PathBuf)]) -> Vec<String> {
        let mut names: Vec<String> = switchyard_compiler::builtins().map(|builtin| builtin.name.to_owned()).collect();
        for (_, folder) in folders {
            let Ok(entries) = fs::read_dir(folder) else { continue };
            for entry in entries.flatten() {
                let path = entry.path();
                let has_extension = path
                    .extension()
                    .and_then(|extension| extension.to_str())
                    .is_some_and(|extension| EXTENSIONS.contains(&extension));
                let Some(stem) = path.file_stem().and_then(|stem| stem.to_str()) else { continue };
                // Only regular files, as [`Catalog::find`] looks for them: a FIFO or a device named like
                // a workflow is skipped unread.
                if has_extension
                    && path.is_file()
                    && validate_workflow_id(stem).is_ok()
                    && workflow_text(&path).is_some()
                {
                    names.push(stem.to_owned());
                }
                if looks_like_bundle(&path)
                    && let Some(stem) = bundle_stem(&path)
                {
                    names.extend(bundle_names(&path, &stem));
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }

    /// The tag catalogs of the discovery folders (WorkRail's `workflow-tags.json`), merged in
    /// precedence order.
    pub fn tag_catalog(&self) -> TagCatalog {
        let folders = self.folders();
        TagCatalog::of(folders.iter().map(|(_, folder)| folder.as_path()))
    }

    /// Every visible workflow, compiled, with what it shadows. Files that fail to compile are
    /// listed with their diagnostics rather than hidden.
    pub fn list(&self) -> Vec<Found> {
        let folders = self.folders();
        Self::names_in(&folders)
            .into_iter()
            .filter_map(|name| Self::find_by_file_name(&folders, &name).ok().flatten())
            .collect()
    }
}

/// The workflow file a name given where a workflow name goes stands for: a name that looks like
/// a path (see [`looks_like_path`]) and is an existing file or a bundle folder. A command line,
/// which may name any file with `--file`, takes it as that file (`switchyard run`, which has no
/// `--file`, takes workflows this way only); an agent's door never does (names only find
/// workflows through discovery).
pub fn file_named_as_workflow(name: &str) -> Option<PathBuf> {
    let path = Path::new(name);
    (looks_like_path(name) && (path.is_file() || looks_like_bundle(path))).then(|| path.to_owned())
}

/// Whether a workflow name is really a file path: it holds a path separator, or ends in a
/// workflow file's extension (`.yaml`, `.yml`, `.json`, `.bmad`, `.zip`).
pub fn looks_like_path(name: &str) -> bool {
    name.contains(['/', '\\'])
        || has_extension(Path::new(name), &EXTENSIONS)
        || has_extension(Path::new(name), &ARCHIVE_EXTENSIONS)
}

/// The refusal of a file path given as a workflow name, saying what to do instead: for a
/// folder, what in it to pass; for a file that is not there but whose name without its extension
/// is a workflow's (`small-change.yaml`), that workflow. `listed` holds the visible workflows'
/// names.
fn path_given_as_name(name: &str, listed: &[String]) -> Error {
    let path = Path::new(name);
    let shown = name.escape_debug();
    let instead = "on the command line give a workflow file's path (in place of the name, or with `--file`), or name a workflow as `switchyard list` (MCP: `list_workflows`) shows it";
    let message = if path.is_file() {
        format!("`{shown}` is a file path, not a workflow name: {instead}")
    } else if looks_like_bundle(path) {
        format!(
            "`{shown}` is a workflow bundle folder, not a workflow name: on the command line pass it with `--file {shown}`, or name a workflow as `switchyard list` (MCP: `list_workflows`) shows it"
        )
    } else if path.is_dir() {
        format!(
            "`{shown}` is a folder, not a workflow: on the command line give the path of one workflow file in it (in place of the name, or with `--file`; `switchyard validate {shown}` checks every one it holds), or name a workflow as `switchyard list` (MCP: `list_workflows`) shows it"
        )
    } else if let Some(stem) =
        path.file_stem().and_then(|stem| stem.to_str()).filter(|stem| listed.iter().any(|listed| listed == stem))
    {
        format!(
            "`{shown}` looks like a file path, but there is no such file; did you mean the workflow `{stem}`? Name it as `{stem}`, or on the command line give a workflow file's path"
        )
    } else {
        format!("`{shown}` looks like a file path, not a workflow name, and there is no such file: {instead}")
    };
    Error::InvalidName { message }
}

/// The name a bundle folder or archive is listed under: its file name without `.bmad`/`.zip`,
/// when that is a valid workflow id.
fn bundle_stem(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let stem =
        ARCHIVE_EXTENSIONS.iter().find_map(|extension| name.strip_suffix(&format!(".{extension}"))).unwrap_or(name);
    validate_workflow_id(stem).is_ok().then(|| stem.to_owned())
}

/// Sources under a folder, depth first in name order: bundle folders and folders with a
/// bundle's entry file (told apart later, by [`source_outcome`]), and outside bundles the files
/// (`.yaml`, `.yml`, `.json`) and archives. Hidden entries and symlinks are skipped, and the
/// walk stops at [`MAX_DEPTH`], as the bundle reader does.
fn collect_sources(folder: &Path, depth: usize, found: &mut Vec<PathBuf>) {
    if depth > MAX_DEPTH {
        return;
    }
    if has_entry_file(folder) {
        found.push(folder.to_owned());
    }
    // A CrewAgent package's workflow folders are parts of it, not bundles of their own.
    if folder.join("bmad.json").is_file() {
        return;
    }
    let is_bundle = looks_like_bundle(folder);
    let Ok(entries) = fs::read_dir(folder) else { return };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|entry| entry.path()).collect();
    entries.sort();
    for entry in entries {
        if hidden_or_symlink(&entry) {
            continue;
        }
        if entry.is_dir() {
            collect_sources(&entry, depth + 1, found);
        } else if !is_bundle && (has_extension(&entry, &ARCHIVE_EXTENSIONS) || has_extension(&entry, &EXTENSIONS)) {
            // By name alone: a FIFO or device named like a workflow comes back refused, unread,
            // so `validate` names it and says why.
            found.push(entry);
        }
    }
}

/// Why a folder named directly yields no source, for a folder in which discovery found nothing.
fn empty_folder_reason(folder: &Path) -> String {
    let mut reason = "a folder holding no workflow files (.yaml, .yml, .json), bundle folders or .bmad/.zip \
                      archives (hidden entries and symlinks are not searched)"
        .to_owned();
    if has_extension(folder, &EXTENSIONS) || has_extension(folder, &ARCHIVE_EXTENSIONS) {
        reason.push_str("; its name ends like a workflow file's, but a workflow file must be a file, not a folder");
    }
    reason
}

fn hidden_or_symlink(path: &Path) -> bool {
    let hidden = path.file_name().and_then(|name| name.to_str()).is_none_or(|name| name.starts_with('.'));
    hidden || fs::symlink_metadata(path).map(|metadata| metadata.file_type().is_symlink()).unwrap_or(true)
}

/// Reads and compiles one path [`collect_sources`] found, or says why it is no workflow.
fn source_outcome(source: &Path) -> Result<Sourced, Error> {
    if source.is_dir() || is_archive(source) {
        let bundle = read_bundle(source)?;
        if detect_bundle(&bundle).is_none() {
            let what = if source.is_dir() { "this folder" } else { "this archive" };
            return Ok(Sourced::NotAWorkflow(format!(
                "{what} is no workflow bundle: it has no `bmad.json` (CrewAgent), no `workflow.yaml` (BMad Method \
                 classic) and no `workflow.md` or `workflow-*.md` with `step-*.md` files in a subfolder (BMad Method \
                 step files)"
            )));
        }
        return Ok(Sourced::Workflows(Catalog::compile_bundle_at(source, bundle)));
    }
    if is_bundle_path(source) {
        return Catalog::bundle(source).map(Sourced::Workflows);
    }
    let text = read_source(source)?;
    if cache::format_of(&text).is_none() {
        return Ok(Sourced::NotAWorkflow(
            "no top-level `steps` or `stages`, so it is no native workflow, stage list or WorkRail workflow, \
             and it is no bundle's entry file"
                .to_owned(),
        ));
    }
    let location = Location { origin: Origin::File, path: source.display().to_string() };
    let compiled = compile_file(source, &location.path, text);
    let name = compiled
        .workflow
        .as_ref()
        .map(|workflow| workflow.id.clone())
        .unwrap_or_else(|| source.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default());
    Ok(Sourced::Workflows(vec![Found { name, location, shadows: Vec::new(), compiled }]))
}

/// The bundle folder a bundle's entry file (`bmad.json`, `workflow.yaml`, `workflow.md`,
/// `workflow-*.md`) named directly stands for.
fn entry_file_folder(path: &Path) -> Option<PathBuf> {
    let entry = is_entry_file_name(path.file_name()?.to_str()?);
    let folder = path.parent().filter(|folder| !folder.as_os_str().is_empty()).unwrap_or(Path::new("."));
    (entry && path.is_file() && looks_like_bundle(folder)).then(|| folder.to_owned())
}

/// The text of a workflow file found by name, or `None` when it holds no workflow (see
/// [`switchyard_compiler::detect_format`], remembered by text in the compile cache). A file that
/// cannot be read counts, so the error reaches whoever asked for it.
fn workflow_text(path: &Path) -> Option<Result<String, Error>> {
    let text = read_source(path);
    text.as_ref().map_or(true, |text| cache::format_of(text).is_some()).then_some(text)
}

fn has_extension(path: &Path, extensions: &[&str]) -> bool {
    path.extension().and_then(|extension| extension.to_str()).is_some_and(|extension| extensions.contains(&extension))
}

fn is_archive(path: &Path) -> bool {
    path.is_file() && has_extension(path, &ARCHIVE_EXTENSIONS)
}

/// A folder with a bundle's entry file: `bmad.json`, `workflow.yaml`, `workflow.md` or a
/// `workflow-*.md` file.
fn has_entry_file(folder: &Path) -> bool {
    ENTRY_FILES.iter().any(|entry| folder.join(entry).is_file()) || step_file_entries(folder)
}

/// The entry files a bundle folder has by name; a `workflow-*.md` file is one too.
const ENTRY_FILES: [&str; 3] = ["bmad.json", "workflow.yaml", "workflow.md"];

fn is_entry_file_name(name: &str) -> bool {
    ENTRY_FILES.contains(&name) || is_step_entry_name(name)
}

fn is_step_entry_name(name: &str) -> bool {
    name.starts_with("workflow-") && name.ends_with(".md")
}

/// Whether `folder` holds a `workflow-*.md` entry file.
fn step_file_entries(folder: &Path) -> bool {
    fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .take(MAX_BUNDLE_FILES)
        .any(|entry| is_step_entry_name(&entry.file_name().to_string_lossy()) && entry.path().is_file())
}

/// A folder with a bundle's layout, as the compiler detects it (`detect_bundle`): `bmad.json`,
/// `workflow.yaml`, or `workflow.md` (or `workflow-*.md`) with `step-*.md` files in a
/// subfolder; or an archive, by extension.
fn looks_like_bundle(path: &Path) -> bool {
    if path.is_dir() {
        let marked = ["bmad.json", "workflow.yaml"].iter().any(|marker| path.join(marker).is_file());
        let step_files =
            || (path.join("workflow.md").is_file() || step_file_entries(path)) && has_nested_step_file(path);
        return marked || step_files();
    }
    path.is_file()
        && path
            .extension()
            .and_then(|extension| extension.to_str())
            .is_some_and(|extension| ARCHIVE_EXTENSIONS.contains(&extension))
}

/// Whether a subfolder of `folder` holds a step file: a `.md` file whose path below `folder`
/// has `step-` in it, as the compiler looks for them. The walk skips hidden entries and
/// symlinks and looks at no more entries than a bundle may hold.
fn has_nested_step_file(folder: &Path) -> bool {
    let mut pending: Vec<(PathBuf, usize)> = fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_dir() && !hidden_or_symlink(path))
        .map(|path| (path, 1))
        .collect();
    let mut budget = MAX_BUNDLE_FILES;
    while let Some((current, depth)) = pending.pop() {
        let Ok(entries) = fs::read_dir(&current) else { continue };
        for entry in entries.flatten() {
            budget = budget.saturating_sub(1);
            if budget == 0 {
                return false;
            }
            let path = entry.path();
            if hidden_or_symlink(&path) {
                continue;
            }
            if path.is_dir() {
                if depth < MAX_DEPTH {
                    pending.push((path, depth + 1));
                }
                continue;
            }
            let relative = path.strip_prefix(folder).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            if relative.contains("step-") && relative.ends_with(".md") {
                return true;
            }
        }
    }
    false
}

/// The names of a bundle's workflows: the stem, or `<stem>.<id>` for each workflow of a
/// multi-workflow package (read from its manifest without compiling).
fn bundle_names(path: &Path, stem: &str) -> Vec<String> {
    let workflows: Vec<String> = package_manifest(path)
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|manifest| manifest["workflows"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter_map(|workflow| workflow["id"].as_str().map(|id| format!("{stem}.{}", id.to_lowercase())))
        .filter(|name| validate_workflow_id(name).is_ok())
        .collect();
    if workflows.is_empty() { vec![stem.to_owned()] } else { workflows }
}

/// The `bmad.json` of a package folder, or of an archive as the bundle reader reads it (with
/// its limits, and with a single top folder taken as the root).
fn package_manifest(path: &Path) -> Option<String> {
    if path.is_dir() {
        let bytes = read_bounded(&path.join("bmad.json"), MAX_WORKFLOW_SOURCE_BYTES).ok()?;
        return String::from_utf8(bytes).ok();
    }
    read_bundle(path).ok()?.files.remove("bmad.json")
}

/// Bundle paths in `folder` that may hold the workflow `name`: `<name>/`, `<name>.bmad`,
/// `<name>.zip`, or the package `<prefix>` of `<prefix>.<workflow id>`.
fn bundle_candidates(folder: &Path, name: &str) -> Vec<PathBuf> {
    let mut stems = vec![name.to_owned()];
    if let Some((package, _)) = name.split_once('.') {
        stems.push(package.to_owned());
    }
    let mut found = Vec::new();
    for stem in stems {
        let mut paths = vec![folder.join(&stem)];
        paths.extend(ARCHIVE_EXTENSIONS.iter().map(|extension| folder.join(format!("{stem}.{extension}"))));
        for path in paths {
            if looks_like_bundle(&path) && bundle_names(&path, &stem).iter().any(|listed| listed == name) {
                found.push(path);
            }
        }
    }
    found
}

/// A place a workflow name was found, with the text read from it when it is a file: read once to
/// tell a workflow from other YAML, and compiled from the same text.
struct Candidate {
    location: Location,
    text: Option<Result<String, Error>>,
}

fn compile_location(name: &str, Candidate { location, text }: Candidate) -> Result<Compiled, Error> {
    if location.origin == Origin::Builtin {
        let builtin = switchyard_compiler::builtins()
            .find(|builtin| builtin.name == name)
            .expect("a built-in location names an existing built-in");
        return Ok(cache::builtin(builtin.name, &builtin.source));
    }
    let path = Path::new(&location.path);
    if is_bundle_path(path) {
        let mut found = Catalog::bundle(path)?;
        // A package's workflows compile as `<package name>.<id>`; discovery lists them under the
        // archive's or folder's name (`<stem>.<id>`), which may differ from the package name.
        let listed_id = bundle_stem(path).and_then(|stem| name.strip_prefix(&format!("{stem}.")).map(str::to_owned));
        let position = found
            .iter()
            .position(|found| found.name == name)
            .or_else(|| {
                let id = listed_id.as_deref()?;
                found.iter().position(|found| found.name.ends_with(&format!(".{id}")))
            })
            .or_else(|| (found.len() == 1).then_some(0));
        let Some(position) = position else {
            let available = found.iter().map(|found| found.name.clone()).collect();
            return Err(Error::WorkflowNotFound { name: name.to_owned(), available });
        };
        return Ok(found.swap_remove(position).compiled);
    }
    let text = text.unwrap_or_else(|| read_source(path))?;
    Ok(compile_file(path, &location.path, text))
}

/// Compiles a workflow file, or takes it from the compile cache when its text and routines are
/// unchanged (`catalog/cache.rs`). A WorkRail file that calls templates gets the routines in a
/// `routines/` folder beside it or beside its folder, as WorkRail registers them.
fn compile_file(path: &Path, name: &str, text: String) -> Compiled {
    let routines = if text.contains("\"templateCall\"") { routine_texts_near(path) } else { Vec::new() };
    cache::file(name, text, routines)
}

/// The texts of the routine files (`*.json`) in `routines/` next to `path` or one folder up;
/// unreadable, oversized or special files are skipped (the call then compiles with a warning
/// naming the template). Routines are held to a bundle's limits: at most [`MAX_BUNDLE_FILES`]
/// entries looked at per folder and [`MAX_BUNDLE_BYTES`] read in all.
fn routine_texts_near(path: &Path) -> Vec<String> {
    let Some(folder) = path.parent() else { return Vec::new() };
    let mut texts = Vec::new();
    let mut bytes = 0usize;
    for candidate in [Some(folder), folder.parent()].into_iter().flatten() {
        let Ok(entries) = fs::read_dir(candidate.join("routines")) else { continue };
        let mut files: Vec<PathBuf> = entries
            .flatten()
            .take(MAX_BUNDLE_FILES)
            .map(|entry| entry.path())
            .filter(|file| file.extension().is_some_and(|extension| extension == "json"))
            .collect();
        files.sort();
        for text in files.iter().filter_map(|file| read_source(file).ok()) {
            bytes += text.len();
            if bytes > MAX_BUNDLE_BYTES {
                return texts;
            }
            texts.push(text);
        }
    }
    texts
}

/// Reads a workflow file: a regular file only (see `catalog/read.rs`), refusing anything larger
/// than the compiler accepts.
pub fn read_source(path: &Path) -> Result<String, Error> {
    let bytes =
        read_bounded(path, MAX_WORKFLOW_SOURCE_BYTES).map_err(|unread| unread.into_error("workflow file", path))?;
    String::from_utf8(bytes)
        .map_err(|_| Error::NotASource(format!("workflow file {} is not UTF-8 text", path.display())))
}
