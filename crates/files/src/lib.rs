//! The file door: kernel-checked file tools for agents, run output folders' manifests, workflow
//! preload, and validated writes to the state document.
//!
//! One implementation behind every way in: [`FileHost::call`] takes a tool name and its JSON
//! arguments and returns the tool's text or a short [`ToolError`] with a stable code. The CLI
//! (`switchyard tool`), the MCP server (with file tools enabled) and the agent runner all call
//! it; [`tool_definitions`] gives each tool's name, description and JSON input schema, derived from
//! the struct of [`arguments`] that parses its calls.

#[cfg(not(unix))]
compile_error!(
    "switchyard-files needs a Unix system (Linux is tested, macOS should work): its sandbox opens folders by descriptor and compares files by device and inode"
);

pub mod archive;
pub mod arguments;
pub mod error;
pub mod frontmatter;
pub mod metrics;
pub mod patch;
pub mod preload;
pub mod sandbox;
pub mod state;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use cap_std_ext::dirext::CapStdExtDirExt;
use serde_json::{Map, Value};
use switchyard_config::{CONFIG_FILE, Config, PROJECT_FOLDER, ProtectedPlaces};
use switchyard_core::RunId;
pub use switchyard_core::hash::sha256_hex;
use switchyard_run_folder::{
    ITERATION_STATE_FILE, MANIFEST_FILE, MANIFEST_LOCK_FILE, Manifest, ManifestFile, RunFolders, STATE_DOCUMENT,
};
use switchyard_runtime::clock::rfc3339;
use switchyard_runtime::observe::{LIFECYCLE_TARGET, SECURITY_REFUSED, refusal_line};
use switchyard_runtime::{Runtime, Target, tool_schema};

use crate::archive::{ArchiveCache, BundleArchive};
use crate::arguments::{
    ApplyPatchArguments, ExpectedSha256, FilePath, ListFilesArguments, PreloadArguments, ReadFileArguments, RunName,
    SaveOutputArguments, UpdateFrontmatterArguments, WriteFileArguments,
};
pub use crate::error::{ToolError, codes};
pub use crate::metrics::{CounterSnapshot, Counters};
pub use crate::preload::{Preload, Reference, References};
use crate::sandbox::{Guard, Mount, MountName, Mounts, Resolved};

/// What a tool answers: its text, or a short coded error.
pub type ToolResult = Result<String, ToolError>;

/// Limits and mounts of a file host.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// `{project-root}`, readable; writable only with `project_writable`.
    pub project_root: Option<PathBuf>,
    pub project_writable: bool,
    /// `{core-root}`: built-in assets, read-only; ignored when the folder does not exist.
    pub core_root: Option<PathBuf>,
    pub max_read_bytes: u64,
    pub max_write_bytes: u64,
    pub max_list_entries: usize,
    pub max_preload_bytes: u64,
    /// What no mount reaches ([`Config::protected_places`]). The project's own `switchyard.toml`
    /// and `.switchyard/` are protected even when this does not name them.
    pub protected: ProtectedPlaces,
}

impl Default for HostConfig {
    fn default() -> Self {
        Self {
            project_root: None,
            project_writable: false,
            core_root: None,
            max_read_bytes: 1024 * 1024,
            max_write_bytes: 1024 * 1024,
            max_list_entries: 500,
            max_preload_bytes: 8 * 1024 * 1024,
            protected: ProtectedPlaces::default(),
        }
    }
}

impl HostConfig {
    pub fn from_config(config: &Config) -> Self {
        Self {
            project_root: config.project_root.clone(),
            project_writable: config.project_writable,
            core_root: Some(config.core_root.clone()),
            protected: config.protected_places(),
            ..Self::default()
        }
    }
}

/// A tool's name, description and JSON input schema (draft 2020-12), derived from the struct of
/// [`arguments`] that parses its calls.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ToolDefinition {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
}

/// One call's arguments, parsed by the struct of its tool.
#[derive(Debug)]
enum Call {
    ReadFile(ReadFileArguments),
    ListFiles(ListFilesArguments),
    SaveOutput(SaveOutputArguments),
    WriteFile(WriteFileArguments),
    ApplyPatch(ApplyPatchArguments),
    UpdateFrontmatter(UpdateFrontmatterArguments),
    Preload(PreloadArguments),
}

impl Call {
    /// The run the arguments name, if they do.
    fn run(&self) -> Option<&RunName> {
        match self {
            Self::ReadFile(arguments) => arguments.run.as_ref(),
            Self::ListFiles(arguments) => arguments.run.as_ref(),
            Self::SaveOutput(arguments) => arguments.run.as_ref(),
            Self::WriteFile(arguments) => arguments.run.as_ref(),
            Self::ApplyPatch(arguments) => arguments.run.as_ref(),
            Self::UpdateFrontmatter(arguments) => arguments.run.as_ref(),
            Self::Preload(arguments) => arguments.run.as_ref(),
        }
    }
}

/// One file tool: its name and description, and its argument struct, which both parses its calls
/// and gives its input schema.
struct Tool {
    name: &'static str,
    description: &'static str,
    input_schema: fn() -> Map<String, Value>,
    parse: fn(Value) -> Result<Call, serde_json::Error>,
}

/// The file tools, in the order they are listed.
const TOOLS: [Tool; 7] = [
    Tool {
        name: "read_file",
        description: "Read a text file (1 MB limit), optionally lines startLine..=endLine (1-based).",
        input_schema: tool_schema::input_schema::<ReadFileArguments>,
        parse: |arguments| serde_json::from_value(arguments).map(Call::ReadFile),
    },
    Tool {
        name: "list_files",
        description: "List files below a folder, optionally filtered by a glob (`**/*.md`); bounded.",
        input_schema: tool_schema::input_schema::<ListFilesArguments>,
        parse: |arguments| serde_json::from_value(arguments).map(Call::ListFiles),
    },
    Tool {
        name: "save_output",
        description: "Save a file in the run's output folder ({output-root}); atomic, recorded in manifest.json.",
        input_schema: tool_schema::input_schema::<SaveOutputArguments>,
        parse: |arguments| serde_json::from_value(arguments).map(Call::SaveOutput),
    },
    Tool {
        name: "write_file",
        description: "Write a text file atomically under a writable mount. Writing state/workflow.md moves the run (checked first).",
        input_schema: tool_schema::input_schema::<WriteFileArguments>,
        parse: |arguments| serde_json::from_value(arguments).map(Call::WriteFile),
    },
    Tool {
        name: "apply_patch",
        description: "Patch a file, all or nothing: a unified diff (`diff`) or search/replace hunks (`hunks`, each search matching exactly once).",
        input_schema: tool_schema::input_schema::<ApplyPatchArguments>,
        parse: |arguments| serde_json::from_value(arguments).map(Call::ApplyPatch),
    },
    Tool {
        name: "update_frontmatter",
        description: "Edit a markdown file's YAML frontmatter with operations {op: set|append|remove, key: dotted.key, value}. On state/workflow.md this moves the run (checked first).",
        input_schema: tool_schema::input_schema::<UpdateFrontmatterArguments>,
        parse: |arguments| serde_json::from_value(arguments).map(Call::UpdateFrontmatter),
    },
    Tool {
        name: "preload_workflow",
        description: "Read every file the run's workflow needs in one call, with sizes and the references that point at missing files.",
        input_schema: tool_schema::input_schema::<PreloadArguments>,
        parse: |arguments| serde_json::from_value(arguments).map(Call::Preload),
    },
];

/// The file tools, as an MCP server or an agent runner lists them.
pub fn tool_definitions() -> Vec<ToolDefinition> {
    definitions().to_vec()
}

/// The definitions, derived once per process.
fn definitions() -> &'static [ToolDefinition] {
    static DEFINITIONS: OnceLock<Vec<ToolDefinition>> = OnceLock::new();
    DEFINITIONS.get_or_init(|| {
        TOOLS
            .iter()
            .map(|tool| ToolDefinition {
                name: tool.name,
                description: tool.description,
                input_schema: Value::Object((tool.input_schema)()),
            })
            .collect()
    })
}

/// Parses a call's arguments with its tool's struct. An unknown field is named with the closest
/// field the tool takes and every field it takes, as the MCP door names it.
fn parse_call(tool: &str, arguments: Value) -> Result<Call, ToolError> {
    let Some(index) = TOOLS.iter().position(|known| known.name == tool) else {
        let names: Vec<&str> = TOOLS.iter().map(|known| known.name).collect();
        return Err(ToolError::new(
            codes::UNKNOWN_TOOL,
            format!("no tool named `{tool}`; available: {}", names.join(", ")),
        ));
    };
    let properties = tool_schema::property_names(
        definitions()[index].input_schema.as_object().expect("a derived input schema is an object"),
    );
    if let Value::Object(fields) = &arguments {
        let unknown = tool_schema::unknown_arguments(fields, &properties);
        if !unknown.is_empty() {
            return Err(ToolError::new(codes::INVALID_ARGUMENTS, tool_schema::refusal(tool, &unknown, &properties)));
        }
    }
    (TOOLS[index].parse)(arguments).map_err(|error| {
        ToolError::new(codes::INVALID_ARGUMENTS, format!("the arguments of `{tool}` do not fit its schema: {error}"))
    })
}

/// The tool host: mounts per run, limits, counters, opened zip bundles.
///
/// What decides what the sandbox allows is fixed when the host is built: `{project-root}` and
/// `{core-root}` are opened then and lent to each run, and the protected places are opened then
/// too. Nothing an agent writes during a run (a `switchyard.toml` least of all) is read again to
/// decide what a later call may reach.
#[derive(Debug)]
pub struct FileHost {
    runtime: Arc<Runtime>,
    /// The run output folders, which the runtime keeps current as it commits.
    folders: Arc<RunFolders>,
    config: HostConfig,
    /// `{project-root}` as opened when the host was built, or why it could not be.
    project: Option<Result<Mount, ToolError>>,
    /// `{core-root}`, when its folder existed when the host was built.
    core: Option<Mount>,
    guard: Arc<Guard>,
    counters: Arc<Counters>,
    /// Zip bundles read before, so each call under `{bundle-root}` does not decompress its
    /// archive again.
    archives: Arc<ArchiveCache>,
    /// Serialises writes within one run (manifest updates, `ifMatchSha256` checks).
    run_locks: Mutex<HashMap<RunId, Arc<tokio::sync::Mutex<()>>>>,
}

impl FileHost {
    pub fn new(runtime: Arc<Runtime>, folders: Arc<RunFolders>, config: HostConfig) -> Self {
        let project =
            config.project_root.as_deref().map(|root| open_mount(MountName::Project, root, config.project_writable));
        let core = config.core_root.as_deref().filter(|core| core.is_dir()).and_then(|core| {
            open_mount(MountName::Core, core, false)
                .inspect_err(|error| tracing::warn!(%error, "{{core-root}} is left out"))
                .ok()
        });
        let mut unwritable = config.protected.unwritable.clone();
        if let Some(project) = &config.project_root {
            unwritable.extend([project.join(CONFIG_FILE), project.join(PROJECT_FOLDER)]);
        }
        let guard = Arc::new(Guard::new(&unwritable, &config.protected.secret, Some(folders.root())));
        Self {
            runtime,
            folders,
            config,
            project,
            core,
            guard,
            counters: Arc::default(),
            archives: Arc::default(),
            run_locks: Mutex::new(HashMap::new()),
        }
    }

    pub fn counters(&self) -> CounterSnapshot {
        self.counters.snapshot()
    }

    /// Calls tool `tool` with its JSON arguments. `run` names the run when the caller knows it
    /// (the CLI's `--run`); otherwise the arguments' `run` does.
    pub async fn call(&self, tool: &str, arguments: Value, run: Option<RunId>) -> ToolResult {
        // A monotonic timer for the call's duration (metrics), not a time of day: the runtime's
        // clock gives every time that is recorded.
        let started = Instant::now();
        let path = arguments.get("path").and_then(Value::as_str).unwrap_or("").to_owned();
        // Only a well-formed run id goes into the log, never whatever text the agent sent.
        let named_run = arguments.get("run").and_then(Value::as_str).and_then(|text| text.parse::<RunId>().ok());
        // `resolved` is recorded once the path is resolved to its mount.
        let span = tracing::info_span!("file_tool", tool, resolved = tracing::field::Empty);
        let result = tracing::Instrument::instrument(self.dispatch(tool, arguments, run), span.clone()).await;
        let _entered = span.enter();
        let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let violation = result.as_ref().err().is_some_and(|error| error.security);
        self.counters.record(micros, result.is_err(), violation);
        match &result {
            Ok(content) => tracing::info!(tool, path, bytes = content.len(), micros, outcome = "ok", "file tool call"),
            Err(error) if error.security => {
                // The lifecycle field names of the runtime's log lines (`docs/operations.md`), so
                // one filter on `event` finds refusals beside runs; the run is the caller's or
                // the one the arguments name, since a refused call may never have resolved one.
                if let Some(suppressed) = refusal_line() {
                    let run = run.or(named_run).map(|run| run.to_string());
                    tracing::warn!(target: LIFECYCLE_TARGET, event = SECURITY_REFUSED, run, tool, path, micros, code = error.code, message = %error.message, suppressed, "security: file tool refused");
                }
            }
            Err(error) => {
                tracing::info!(tool, path, micros, outcome = error.code, message = %error.message, "file tool call")
            }
        }
        result
    }

    async fn dispatch(&self, tool: &str, arguments: Value, run: Option<RunId>) -> ToolResult {
        let call = parse_call(tool, arguments)?;
        let run = match (run, call.run()) {
            (Some(run), _) => run,
            (None, Some(RunName(text))) => {
                text.parse().map_err(|error| ToolError::new(codes::INVALID_ARGUMENTS, format!("`run`: {error}")))?
            }
            (None, None) => return Err(ToolError::new(codes::INVALID_ARGUMENTS, "name the run (`run` or --run)")),
        };
        let mounts = Arc::new(self.mounts(run).await?);
        let read_default =
            if mounts.get(MountName::Project).is_some() { MountName::Project } else { MountName::Output };
        let argument = |raw: String, default: MountName, write: bool| PathArgument {
            mounts: Arc::clone(&mounts),
            raw,
            default,
            write,
        };
        match call {
            Call::ReadFile(arguments) => {
                let (start_line, end_line) = (arguments.start_line, arguments.end_line);
                let FilePath(path) = arguments.path;
                if let Some(checked) = mounts.in_bundle_archive(&path) {
                    let (archive, relative) = checked?;
                    let archive = self.open_archive(archive.to_owned()).await?;
                    let text = archive.read(&relative, self.config.max_read_bytes)?;
                    return Ok(line_range(text, start_line, end_line));
                }
                let target = argument(path, read_default, false);
                if is_state_document(&target.resolve()?) {
                    self.folders.state_document(&self.runtime, run).await.map_err(|error| folder_error(&error))?;
                }
                let limit = self.config.max_read_bytes;
                let text = target.blocking(move |resolved| read_text(resolved, limit)).await?;
                Ok(line_range(&text, start_line, end_line))
            }
            Call::ListFiles(arguments) => {
                let path = arguments.path.map_or_else(|| ".".to_owned(), |FilePath(path)| path);
                let limit = arguments.limit.unwrap_or(self.config.max_list_entries).min(self.config.max_list_entries);
                let matcher = glob_matcher(arguments.glob.as_deref())?;
                if let Some(checked) = mounts.in_bundle_archive(&path) {
                    let (archive, relative) = checked?;
                    let archive = self.open_archive(archive.to_owned()).await?;
                    return Ok(list_archive(&archive, &relative, matcher.as_ref(), limit));
                }
                argument(path, read_default, false)
                    .blocking(move |resolved| list(resolved, matcher.as_ref(), limit))
                    .await
            }
            Call::SaveOutput(arguments) => {
                let target = argument(arguments.path.0, MountName::Output, true);
                if target.resolve()?.mount.name != MountName::Output {
                    return Err(ToolError::security(codes::READ_ONLY, "save_output writes only under {output-root}"));
                }
                self.write(run, &target, arguments.content, None).await
            }
            Call::WriteFile(arguments) => {
                let target = argument(arguments.path.0, MountName::Output, true);
                let if_match = arguments.if_match_sha256.as_ref().map(|ExpectedSha256(digest)| digest.as_str());
                self.write(run, &target, arguments.content, if_match).await
            }
            Call::ApplyPatch(arguments) => {
                let target = argument(arguments.path.0, MountName::Output, true);
                let current = self.current_text(run, &target).await?;
                let patched = match (&arguments.diff, &arguments.hunks) {
                    (Some(diff), None) => patch::apply_unified(&current, diff)?,
                    (None, Some(hunks)) => patch::apply_replacements(&current, hunks)?,
                    _ => {
                        return Err(ToolError::new(codes::INVALID_ARGUMENTS, "pass exactly one of `diff` and `hunks`"));
                    }
                };
                let if_match = arguments
                    .if_match_sha256
                    .map_or_else(|| sha256_hex(current.as_bytes()), |ExpectedSha256(digest)| digest);
                self.write(run, &target, patched, Some(&if_match)).await
            }
            Call::UpdateFrontmatter(arguments) => {
                frontmatter::check(&arguments.operations)?;
                let target = argument(arguments.path.0, MountName::Output, true);
                let current = self.current_text(run, &target).await?;
                let (mut map, body) = frontmatter::parse(&current)?;
                frontmatter::apply(&mut map, &arguments.operations)?;
                let text = frontmatter::render(&map, &body)?;
                let if_match = arguments
                    .if_match_sha256
                    .map_or_else(|| sha256_hex(current.as_bytes()), |ExpectedSha256(digest)| digest);
                self.write(run, &target, text, Some(&if_match)).await
            }
            Call::Preload(_) => {
                let files = self.runtime.workflow_files(run).await.map_err(|error| runtime_error(&error))?;
                let archive = self.bundle_archive(&mounts).await?;
                self.preload_with(mounts, archive, preload::references_of(&files)).await
            }
        }
    }

    /// Preloads a workflow's references (the seam multi-file importers plug into). When the
    /// mounts' `{bundle-root}` is a zip bundle, its references are read from the archive.
    pub async fn preload(&self, mounts: Mounts, references: &dyn References) -> ToolResult {
        let archive = self.bundle_archive(&mounts).await?;
        self.preload_with(Arc::new(mounts), archive, references.references()).await
    }

    /// The zip bundle that is the mounts' `{bundle-root}`, if it is one.
    async fn bundle_archive(&self, mounts: &Mounts) -> Result<Option<Arc<BundleArchive>>, ToolError> {
        match &mounts.bundle_archive {
            Some(path) => self.open_archive(path.clone()).await.map(Some),
            None => Ok(None),
        }
    }

    /// The zip bundle at `path`, from the cache or read and decompressed on the blocking pool.
    async fn open_archive(&self, path: PathBuf) -> Result<Arc<BundleArchive>, ToolError> {
        let (archives, counters) = (Arc::clone(&self.archives), Arc::clone(&self.counters));
        on_blocking_pool(move || archives.open(&path, &counters)).await
    }

    async fn preload_with(
        &self,
        mounts: Arc<Mounts>,
        archive: Option<Arc<BundleArchive>>,
        references: Vec<Reference>,
    ) -> ToolResult {
        let preload =
            preload::preload(mounts, archive, references, self.config.max_read_bytes, self.config.max_preload_bytes)
                .await?;
        serde_json::to_string_pretty(&preload).map_err(|error| ToolError::new(codes::IO, error.to_string()))
    }

    /// The mounts of a run: its output folder, its workflow's folder, and the project and the
    /// core as they were opened when the host was built.
    pub async fn mounts(&self, run: RunId) -> Result<Mounts, ToolError> {
        let record = self.runtime.run(&Target::Run(run)).await.map_err(|error| runtime_error(&error))?;
        let mut mounts = Mounts { guard: Arc::clone(&self.guard), ..Mounts::default() };
        // The folder is a projection of the log: a kill or a full disk may have left it missing.
        let output = self.folders.ensure(&self.runtime, &record).await.map_err(|error| folder_error(&error))?;
        // Opening folders by their paths waits on the disk, so it runs on the blocking pool;
        // lending a mount opened before only duplicates its descriptor.
        let (output, bundle) = on_blocking_pool(move || {
            let output = open_mount(MountName::Output, &output, true)?;
            let bundle = match bundle_source(&record.source) {
                Some(BundleSource::Archive(archive)) => Some(OpenedBundle::Archive(archive)),
                Some(BundleSource::Folder(folder)) => {
                    Mount::open(MountName::Bundle, &folder, false).ok().map(OpenedBundle::Folder)
                }
                None => None,
            };
            Ok((output, bundle))
        })
        .await?;
        mounts.mounts.push(output);
        if let Some(project) = &self.project {
            mounts.mounts.push(lend(project.as_ref().map_err(Clone::clone)?)?);
        }
        match bundle {
            Some(OpenedBundle::Archive(archive)) => mounts.bundle_archive = Some(archive),
            Some(OpenedBundle::Folder(mount)) => mounts.mounts.push(mount),
            None => {}
        }
        if let Some(core) = &self.core {
            mounts.mounts.push(lend(core)?);
        }
        Ok(mounts)
    }

    fn run_lock(&self, run: RunId) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.run_locks.lock().expect("run lock table");
        Arc::clone(locks.entry(run).or_default())
    }

    async fn current_text(&self, run: RunId, target: &PathArgument) -> Result<String, ToolError> {
        if is_state_document(&target.resolve()?) {
            return Ok(self
                .folders
                .state_document(&self.runtime, run)
                .await
                .map_err(|error| folder_error(&error))?
                .text);
        }
        let limit = self.config.max_read_bytes;
        target.blocking(move |resolved| read_text(resolved, limit)).await
    }

    async fn write(&self, run: RunId, target: &PathArgument, content: String, if_match: Option<&str>) -> ToolResult {
        let resolved = target.resolve()?;
        if content.len() as u64 > self.config.max_write_bytes {
            return Err(ToolError::new(
                codes::TOO_LARGE,
                format!("the content is {} bytes; the write limit is {}", content.len(), self.config.max_write_bytes),
            ));
        }
        let lock = self.run_lock(run);
        let _guard = lock.lock().await;
        if is_state_document(&resolved) {
            let moved = state::write(&self.runtime, &self.folders, run, &content, if_match).await;
            // The document is regenerated off the request path; an agent reading it next, by any
            // means, sees the move.
            self.folders.flush().await;
            return moved;
        }
        let output = resolved.mount.name == MountName::Output;
        let kept = [MANIFEST_FILE, MANIFEST_LOCK_FILE, ITERATION_STATE_FILE]
            .iter()
            .any(|name| resolved.relative == Path::new(name));
        if output && (resolved.relative.starts_with("state") || kept) {
            return Err(ToolError::security(
                codes::READ_ONLY,
                format!("{} is kept by switchyard; only state/workflow.md may be written there", resolved.display()),
            ));
        }
        target.blocking(|resolved| resolved.check_write_target()).await?;
        // The run lock above serialises this process. The manifest lock serialises every process
        // writing to this run folder, from the `ifMatchSha256` check through the write and the
        // manifest entry to the state document listing it: the manifest then always describes
        // the bytes on disk, and the last document written lists every file.
        let _manifest_lock = if output { Some(ManifestLock::acquire(target).await?) } else { None };
        let (limit, if_match, runtime) =
            (self.config.max_read_bytes, if_match.map(str::to_owned), Arc::clone(&self.runtime));
        let bytes = content.len() as u64;
        let digest = target
            .blocking(move |resolved| {
                if let Some(expected) = if_match {
                    let current = match resolved.read(limit) {
                        Ok(bytes) => sha256_hex(&bytes),
                        Err(error) if error.code == codes::NOT_FOUND => String::new(),
                        Err(error) => return Err(error),
                    };
                    if !current.eq_ignore_ascii_case(&expected) {
                        return Err(ToolError::new(
                            codes::PRECONDITION_FAILED,
                            format!(
                                "{} changed since you read it (sha256 {current}); read it again",
                                resolved.display()
                            ),
                        ));
                    }
                }
                resolved.write_atomic(content.as_bytes())?;
                let digest = sha256_hex(content.as_bytes());
                if output {
                    record_in_manifest(resolved, bytes, &digest, runtime.now_ms())?;
                }
                Ok(digest)
            })
            .await?;
        if output {
            // Keep the state document's `artifacts` current; a failure only leaves it stale.
            if let Err(error) = self.folders.refresh_state_document(&self.runtime, run).await {
                tracing::warn!(%run, %error, "state document not refreshed after a write");
            }
            self.folders.flush().await;
        }
        Ok(format!("wrote {} ({bytes} bytes, sha256 {digest})", resolved.display()))
    }
}

/// Replaces the file's entry in `manifest.json`, written at `now_ms`; the caller holds the
/// [`ManifestLock`].
fn record_in_manifest(resolved: &Resolved<'_>, bytes: u64, sha256: &str, now_ms: i64) -> Result<(), ToolError> {
    let dir = resolved.mount.dir();
    let fail = |error: String| ToolError::new(codes::IO, format!("cannot update manifest.json: {error}"));
    let text = dir.read_to_string(MANIFEST_FILE).map_err(|error| fail(error.to_string()))?;
    let mut manifest: Manifest = serde_json::from_str(&text).map_err(|error| fail(error.to_string()))?;
    let path = resolved.relative.to_string_lossy().into_owned();
    manifest.files.retain(|file| file.path != path);
    let written_at = rfc3339(now_ms);
    manifest.files.push(ManifestFile { path, bytes, sha256: sha256.to_owned(), written_at });
    manifest.files.sort_by(|a, b| a.path.cmp(&b.path));
    let bytes = serde_json::to_vec_pretty(&manifest).map_err(|error| fail(error.to_string()))?;
    dir.atomic_write(MANIFEST_FILE, bytes).map_err(|error| fail(error.to_string()))
}

/// A path argument with the mounts it names a place in, owned, so the file-system work on it can
/// move to the blocking pool. Resolving is pure (the kernel checks the path at the moment of
/// use), so it is done again there rather than carried across threads.
#[derive(Debug, Clone)]
struct PathArgument {
    mounts: Arc<Mounts>,
    raw: String,
    default: MountName,
    write: bool,
}

impl PathArgument {
    fn resolve(&self) -> Result<Resolved<'_>, ToolError> {
        let resolved = self.mounts.resolve(&self.raw, self.default, self.write)?;
        tracing::Span::current().record("resolved", resolved.display().as_str());
        Ok(resolved)
    }

    /// Runs `work` on the resolved path on the blocking pool ([`on_blocking_pool`]).
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Resolved<'_>) -> Result<T, ToolError> + Send + 'static,
    ) -> Result<T, ToolError> {
        let argument = self.clone();
        on_blocking_pool(move || work(&argument.resolve()?)).await
    }
}

/// Runs file-system work on tokio's blocking pool, in the caller's span. A read from a slow disk,
/// a walk of a large folder or a write's syncs then never hold one of the runtime's workers,
/// which serve every other session and run of the process meanwhile.
async fn on_blocking_pool<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ToolError> + Send + 'static,
) -> Result<T, ToolError> {
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || span.in_scope(work))
        .await
        .map_err(|error| ToolError::new(codes::IO, format!("the file tool's thread failed: {error}")))?
}

/// An exclusive advisory lock on a run folder's [`MANIFEST_LOCK_FILE`], released when dropped
/// (the descriptor closes). `flock` locks belong to the open file, so two hosts in one process
/// exclude each other as two processes do.
struct ManifestLock {
    _file: cap_std::fs::File,
}

impl ManifestLock {
    /// Opens and waits for the lock on the blocking pool, so a writer in another process holding
    /// it never stalls this process's async workers.
    async fn acquire(target: &PathArgument) -> Result<Self, ToolError> {
        target
            .blocking(|resolved| {
                let fail =
                    |error: std::io::Error| ToolError::new(codes::IO, format!("cannot lock manifest.json: {error}"));
                let mut options = cap_std::fs::OpenOptions::new();
                options.read(true).write(true).create(true);
                let file = resolved.mount.dir().open_with(MANIFEST_LOCK_FILE, &options).map_err(fail)?;
                loop {
                    match rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive) {
                        Ok(()) => return Ok(Self { _file: file }),
                        Err(rustix::io::Errno::INTR) => {}
                        Err(error) => return Err(fail(std::io::Error::from(error))),
                    }
                }
            })
            .await
    }
}

fn open_mount(name: MountName, root: &Path, writable: bool) -> Result<Mount, ToolError> {
    Mount::open(name, root, writable)
        .map_err(|error| ToolError::new(codes::NOT_FOUND, format!("{} ({}): {error}", name.variable(), root.display())))
}

/// A handle of its own on a mount opened when the host was built.
fn lend(mount: &Mount) -> Result<Mount, ToolError> {
    mount.try_clone().map_err(|error| ToolError::new(codes::IO, format!("{}: {error}", mount.name.variable())))
}

fn is_state_document(resolved: &Resolved<'_>) -> bool {
    resolved.mount.name == MountName::Output && resolved.relative == Path::new(STATE_DOCUMENT)
}

/// What `{bundle-root}` is for a run.
enum BundleSource {
    /// The bundle folder itself, or the workflow file's folder.
    Folder(PathBuf),
    /// A zip bundle (`.zip`, `.bmad`): its contents, not the folder it lies in.
    Archive(PathBuf),
}

/// Where a run's workflow was loaded from (`project:<path>`, `user:<path>`, `file:<path>`).
fn bundle_source(source: &str) -> Option<BundleSource> {
    let (_, path) = source.split_once(':')?;
    let path = Path::new(path);
    if path.is_dir() {
        return Some(BundleSource::Folder(path.to_path_buf()));
    }
    if path.is_file() && switchyard_catalog::is_bundle_path(path) {
        return Some(BundleSource::Archive(path.to_path_buf()));
    }
    path.parent().filter(|parent| parent.is_dir()).map(|parent| BundleSource::Folder(parent.to_path_buf()))
}

/// `{bundle-root}` as [`FileHost::mounts`] opened it.
enum OpenedBundle {
    Folder(Mount),
    Archive(PathBuf),
}

fn read_text(resolved: &Resolved<'_>, limit: u64) -> Result<String, ToolError> {
    let bytes = resolved.read(limit)?;
    String::from_utf8(bytes)
        .map_err(|_| ToolError::new(codes::NOT_TEXT, format!("{} is not UTF-8 text", resolved.display())))
}

fn line_range(text: &str, start: Option<usize>, end: Option<usize>) -> String {
    if start.is_none() && end.is_none() {
        return text.to_owned();
    }
    let start = start.unwrap_or(1).max(1);
    let end = end.unwrap_or(usize::MAX);
    text.split_inclusive('\n').skip(start - 1).take(end.saturating_sub(start - 1)).collect()
}

fn glob_matcher(glob: Option<&str>) -> Result<Option<globset::GlobMatcher>, ToolError> {
    glob.map(|pattern| {
        globset::Glob::new(pattern)
            .map(|glob| glob.compile_matcher())
            .map_err(|error| ToolError::new(codes::INVALID_ARGUMENTS, format!("`glob`: {error}")))
    })
    .transpose()
}

/// One line of a listing: the path below the listed folder, its size, and `(symlink)` or
/// `(special)` when it is not a regular file.
type Listed = (PathBuf, u64, &'static str);

/// Lists files below `resolved`, without following directory symlinks, bounded in depth and
/// entries visited.
fn list(resolved: &Resolved<'_>, matcher: Option<&globset::GlobMatcher>, limit: usize) -> ToolResult {
    const MAX_DEPTH: usize = 16;
    const MAX_VISITED: usize = 20_000;
    let dir = resolved.open_listed_dir()?;
    let unlisted = resolved.unlisted()?;
    let mut stack = vec![(dir, PathBuf::new(), 0usize)];
    let (mut found, mut visited, mut truncated) = (Vec::new(), 0usize, false);
    'walk: while let Some((dir, prefix, depth)) = stack.pop() {
        let entries = dir.entries().map_err(|error| resolved.kernel_error(&error))?;
        for entry in entries.filter_map(Result::ok) {
            visited += 1;
            if visited > MAX_VISITED || found.len() >= limit {
                truncated = true;
                break 'walk;
            }
            let name = prefix.join(entry.file_name());
            let Ok(file_type) = entry.file_type() else { continue };
            // Keys and the store are left out, by what they are, not by their names.
            let Ok(metadata) = entry.metadata() else { continue };
            if unlisted.contains(&sandbox::Identity::of_metadata(&metadata)) {
                continue;
            }
            if file_type.is_dir() {
                if depth + 1 < MAX_DEPTH
                    && let Ok(child) = entry.open_dir()
                {
                    stack.push((child, name.clone(), depth + 1));
                }
                continue;
            }
            if matcher.is_some_and(|matcher| !matcher.is_match(&name)) {
                continue;
            }
            let size = metadata.len();
            let kind = if file_type.is_symlink() {
                " (symlink)"
            } else if file_type.is_file() {
                ""
            } else {
                " (special)"
            };
            found.push((name, size, kind));
        }
    }
    Ok(listing(found, truncated, limit))
}

/// Lists the files of a zip bundle below `relative`, as [`list`] lists a folder.
fn list_archive(
    archive: &BundleArchive,
    relative: &Path,
    matcher: Option<&globset::GlobMatcher>,
    limit: usize,
) -> String {
    let mut found: Vec<Listed> = archive
        .list(relative)
        .into_iter()
        .map(|(name, bytes)| (PathBuf::from(name), bytes as u64, ""))
        .filter(|(name, _, _)| matcher.is_none_or(|matcher| matcher.is_match(name)))
        .collect();
    let truncated = found.len() > limit;
    found.truncate(limit);
    listing(found, truncated, limit)
}

/// `name<TAB>bytes<kind>` lines, sorted, with a last line saying when entries were left out.
fn listing(found: Vec<Listed>, truncated: bool, limit: usize) -> String {
    let mut lines: Vec<String> =
        found.into_iter().map(|(name, size, kind)| format!("{}\t{size}{kind}", name.display())).collect();
    lines.sort();
    if truncated {
        lines.push(format!("… more entries not listed (limit {limit}); narrow the path or the glob"));
    }
    lines.join("\n")
}

pub(crate) fn runtime_error(error: &switchyard_runtime::Error) -> ToolError {
    ToolError::new(codes::RUNTIME, format!("{}: {error}", error.code()))
}

pub(crate) fn folder_error(error: &switchyard_run_folder::Error) -> ToolError {
    ToolError::new(codes::RUNTIME, format!("{}: {error}", error.code()))
}
