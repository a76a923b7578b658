//! Where switchyard keeps its data, and `switchyard.toml`.
//!
//! Precedence, highest first: explicit options (`--home`, `--store`), the environment
//! (`SWITCHYARD_<SECTION>_<KEY>`, see [`keys::Key::variable`]), the project's `switchyard.toml`,
//! the user's `$SWITCHYARD_HOME/switchyard.toml`, then defaults (`$SWITCHYARD_HOME` defaults to
//! the user's data directory plus `switchyard`). Each key comes from the nearest layer that sets
//! it, and [`Config::origin`] says which (`switchyard config` prints them); a list (`[serve]
//! allowed_hosts`, `[[validate.prompts]]`) comes whole from one layer, never merged. Paths are
//! relative to the file that set them. Every file is read and checked even when a nearer layer
//! shadows all it says, and an unknown key is refused with its file, line and column and the
//! closest known key ([`keys::check_keys`]).
//!
//! Why not `figment`: its [`Metadata`](https://docs.rs/figment) says which provider (file) a value
//! came from but not the line and column, which both the errors and `switchyard config` print; a
//! shadowed file must be checked on its own anyway (a merged figment keeps only the winning
//! values); and the variable names are not a split of the key (`[audit] audit_min_confidence` is
//! `SWITCHYARD_AUDIT_MIN_CONFIDENCE`), with comma-separated lists. What was left for it was a
//! merge of optional fields, which [`Config::resolve_with`] does in a loop over the layers, so the
//! layers are read with `toml` (its spanned table for positions, serde for the values).
//!
//! `[serve]` (`host`, `port`, `token_file` or `token`, `allowed_hosts`, `allowed_origins`) is what
//! `switchyard serve` falls back to when its flags do not say otherwise. The token itself is read
//! only by `serve` ([`ServeTokenSource::read`]), so a missing token file never stops other
//! commands; the allowed lists are checked when the layer is read ([`check_allowed_hosts`],
//! [`check_allowed_origins`]), the same checks `serve` runs on its flags. Its resource bounds
//! ([`ServeLimits`]) are read here and given their defaults by `serve`. Secrets never reach a
//! `Debug` output or a message.
//!
//! `[runner]` and the named tables `[models.<name>]` are what `switchyard run` drives a model
//! with; [`Config::run_model`] and [`Config::named_model`] resolve a model ([`runner`]). A
//! `[models.<name>]` table merges key by key across the files like a section; its keys have no
//! environment variables.

pub mod atomic_file;
mod error;
pub mod keys;
mod layer;
pub mod prompt_rules;
pub mod runner;
pub mod settings;
pub mod store_url;

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::net::IpAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use switchyard_core::evidence::{CommandLine, ProjectCommand, ProjectCommands};
use switchyard_core::workflow::Limits;

use self::layer::Layer;
pub use self::layer::{Environment, Origin};
pub use self::runner::{
    CommandsConfig, ModelConfig, ModelFlags, ModelPrice, ResolvedModel, RunnerConfig, SendReasoning,
};
pub use crate::error::Error;

/// The file name of the store inside the home folder.
pub const DEFAULT_STORE_FILE: &str = "switchyard.sqlite3";
/// The configuration file's name, in the project root and in the home folder.
pub const CONFIG_FILE: &str = "switchyard.toml";
/// The project's own folder (`.switchyard/workflows/`, routines) below the project root.
pub const PROJECT_FOLDER: &str = ".switchyard";
/// The list of workflow folders attached for this user, in the home folder.
pub const ATTACHED_SOURCES_FILE: &str = "attached-sources.json";

/// Resolved configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// `$SWITCHYARD_HOME`: keys, user workflows, the default store.
    pub home: PathBuf,
    /// The SQLite store file (unused while `store_url` names a database).
    pub store_path: PathBuf,
    /// A PostgreSQL store (`[store] url`, or `--store postgres://…`): when set, the store is that
    /// database instead of the file. A secret, as the URL may hold a password: show it with
    /// `switchyard_runtime::store::describe_url`.
    pub store_url: Option<Secret>,
    /// The project (workspace) root whose `.switchyard/workflows/` is searched first.
    pub project_root: Option<PathBuf>,
    /// Where run output folders go (`[runs] output_root`); defaults to `$SWITCHYARD_HOME/runs/`.
    pub output_root: PathBuf,
    /// The file tools may write under `{project-root}` (`[files] project_writable`, default false).
    pub project_writable: bool,
    /// Built-in assets, `{core-root}` (`[files] core_root`; default `$SWITCHYARD_HOME/core`).
    pub core_root: PathBuf,
    /// `[serve]`: defaults for `switchyard serve`.
    pub serve: ServeConfig,
    /// `[audit]`: how audit steps' findings are weighed.
    pub audit: AuditConfig,
    /// `[execution]`: the limits a workflow gets when it does not set its own.
    pub execution: ExecutionConfig,
    /// `[evidence]`: whether and how switchyard runs the commands workflows' evidence asks for.
    pub evidence: EvidenceConfig,
    /// `[project]`: the project's own commands, which workflows written for any project (the
    /// built-in ones) run by name (`run: {project: test_command}`).
    pub project: ProjectCommands,
    /// `[validate]`: what `switchyard validate` checks besides workflows.
    pub validate: ValidateConfig,
    /// `[runner]`: defaults of `switchyard run`.
    pub runner: RunnerConfig,
    /// `[models.<name>]`: the named models, by name.
    pub models: BTreeMap<String, ModelConfig>,
    /// Where each value set by someone came from, by `home` or `section.name`; read it through
    /// [`Config::origin`].
    pub origins: BTreeMap<String, Origin>,
}

/// `[audit]` of `switchyard.toml`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AuditConfig {
    /// `audit_min_confidence`, 0.0 to 1.0: a `blocked` audit finding with less confidence than
    /// this is downgraded to a warning and does not block the step.
    pub min_confidence: f64,
}

impl Default for AuditConfig {
    fn default() -> Self {
        Self { min_confidence: 0.8 }
    }
}

/// Refuses a `[project] test_command` switchyard could not run: empty, or naming a project
/// command itself.
fn check_test_command(command: &CommandLine, named: &str) -> Result<(), Error> {
    let problem = match command {
        CommandLine::Argv(argv) if argv.first().is_none_or(|program| program.trim().is_empty()) => "names no program",
        CommandLine::Shell(line) if line.trim().is_empty() => "is an empty line",
        CommandLine::Project { .. } => "names a project command itself",
        CommandLine::Argv(_) | CommandLine::Shell(_) => return Ok(()),
    };
    Err(Error::invalid(format!(
        "{named} sets [project] test_command, which {problem}: give the command that runs the project's tests, as a shell line (\"cargo test\") or a list of words ([\"cargo\", \"test\"])"
    )))
}

/// `[evidence]` of `switchyard.toml`: the commands workflows' evidence checks run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceConfig {
    /// `commands`: whether `command` checks may run at all (default true). Off, a workflow
    /// asking for one is refused when a run of it starts.
    pub commands: bool,
    /// `trusted_workspaces`: the workspaces (and the folders below them) where `switchyard serve`
    /// runs commands; a server runs none elsewhere, as its clients may be anyone the token
    /// reaches. The CLI, the runner and stdio MCP run them wherever `commands` allows.
    pub trusted_workspaces: Vec<PathBuf>,
    /// `max_timeout_seconds`: the longest a check's command may run, whatever its `timeout`
    /// says (default 3600).
    pub max_timeout_seconds: u64,
    /// `max_output_bytes`: the end of each output stream kept while a command runs (default
    /// 1 MiB); the rest is counted and hashed.
    pub max_output_bytes: u64,
}

impl Default for EvidenceConfig {
    fn default() -> Self {
        Self { commands: true, trusted_workspaces: Vec::new(), max_timeout_seconds: 3600, max_output_bytes: 1 << 20 }
    }
}

/// `[execution]` of `switchyard.toml`: defaults for the limits a workflow may set itself; a
/// workflow's own `limits` win.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutionConfig {
    /// `max_revision_attempts`: rejected or revised results of one step before a human decides.
    pub max_revision_attempts: u32,
    /// `max_replan_attempts`: replans of a run before a human decides.
    pub max_replan_attempts: u32,
}

impl Default for ExecutionConfig {
    fn default() -> Self {
        let limits = Limits::default();
        Self { max_revision_attempts: limits.max_revision_attempts, max_replan_attempts: limits.max_replan_attempts }
    }
}

/// `[validate]` of `switchyard.toml`. Globs and folders are relative to the project root.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ValidateConfig {
    /// `[[validate.prompts]]`: rule sets for Markdown prompt files, by glob; the whole list of
    /// the first file that sets it.
    pub prompts: Option<Vec<PromptRules>>,
    /// `[[validate.mirrors]]`: folders that must hold the same files; like `prompts`.
    pub mirrors: Option<Vec<MirrorPair>>,
    /// `keep_presets`: the presets apply at their conventional places after the `prompts` rule
    /// sets, instead of only when none is configured (default false).
    pub keep_presets: bool,
}

/// One `[[validate.prompts]]` entry: the files its glob matches get its field rules.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PromptRules {
    /// Files it applies to, relative to the project root (`commands/**/*.md`).
    pub glob: String,
    /// A built-in rule set to start from (`claude-command`, `claude-agent`, `claude-skill`,
    /// `spw-command`); `fields` add to it or replace its rules of the same name.
    #[serde(default)]
    pub preset: Option<String>,
    #[serde(default)]
    pub fields: Vec<FieldRule>,
}

/// A rule on one frontmatter field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldRule {
    pub name: String,
    #[serde(default)]
    pub required: bool,
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// The allowed values of an `enum` field.
    #[serde(default)]
    pub values: Vec<String>,
    /// A regular expression a `string` value (or each item of a `string_array`) must match.
    #[serde(default)]
    pub pattern: Option<String>,
}

/// The type a frontmatter field must have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    String,
    StringArray,
    Enum,
    Number,
    Boolean,
}

impl FieldType {
    /// The types as `switchyard.toml` names them, in the order of the variants.
    pub const NAMES: [&'static str; 5] = ["string", "string_array", "enum", "number", "boolean"];
}

/// One `[[validate.mirrors]]` entry: `mirror` must hold exactly the files of `source`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MirrorPair {
    pub source: PathBuf,
    pub mirror: PathBuf,
}

/// `[serve]` of `switchyard.toml`; each field comes from the first file that sets it.
#[derive(Debug, Clone, Default)]
pub struct ServeConfig {
    /// The address to bind (`host`).
    pub host: Option<IpAddr>,
    /// The port (`port`).
    pub port: Option<u16>,
    /// Where the bearer token comes from (`token_file` or `token`).
    pub token: Option<ServeTokenSource>,
    /// `Host` values to accept besides loopback names (`allowed_hosts`); the whole list of the
    /// first file that sets it, never a merge of several files.
    pub allowed_hosts: Option<Vec<String>>,
    /// Browser origins to accept besides loopback origins (`allowed_origins`), like `allowed_hosts`.
    pub allowed_origins: Option<Vec<String>>,
    /// What clients may hold (`max_connections`, `max_pending_connections`,
    /// `header_timeout_seconds`, `body_timeout_seconds`, `max_sessions`, `session_idle_seconds`);
    /// each from the first file that sets it, the defaults are `serve`'s.
    pub limits: ServeLimits,
}

/// The resource bounds of `[serve]`; `None` leaves `serve`'s default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ServeLimits {
    pub max_connections: Option<usize>,
    pub max_pending_connections: Option<usize>,
    pub header_timeout_seconds: Option<u64>,
    pub body_timeout_seconds: Option<u64>,
    pub max_sessions: Option<usize>,
    pub session_idle_seconds: Option<u64>,
}

impl ServeLimits {
    /// Each bound from `self`, else from `fallback`.
    fn or(self, fallback: Self) -> Self {
        Self {
            max_connections: self.max_connections.or(fallback.max_connections),
            max_pending_connections: self.max_pending_connections.or(fallback.max_pending_connections),
            header_timeout_seconds: self.header_timeout_seconds.or(fallback.header_timeout_seconds),
            body_timeout_seconds: self.body_timeout_seconds.or(fallback.body_timeout_seconds),
            max_sessions: self.max_sessions.or(fallback.max_sessions),
            session_idle_seconds: self.session_idle_seconds.or(fallback.session_idle_seconds),
        }
    }

    /// Refuses a zero bound: it would refuse every client. `named` says who set a bound.
    fn check(&self, named: impl Fn(&str) -> String) -> Result<(), Error> {
        let bounds = [
            ("max_connections", self.max_connections.map(|value| value as u64)),
            ("max_pending_connections", self.max_pending_connections.map(|value| value as u64)),
            ("header_timeout_seconds", self.header_timeout_seconds),
            ("body_timeout_seconds", self.body_timeout_seconds),
            ("max_sessions", self.max_sessions.map(|value| value as u64)),
            ("session_idle_seconds", self.session_idle_seconds),
        ];
        match bounds.iter().find(|(_, value)| *value == Some(0)) {
            Some((name, _)) => Err(Error::invalid(format!(
                "{} sets [serve] {name} = 0, which would refuse every client: set a positive number, or remove the line for the default",
                named(name)
            ))),
            None => Ok(()),
        }
    }
}

/// Where `[serve]` says the bearer token is.
#[derive(Clone)]
pub enum ServeTokenSource {
    /// `token_file = "…"` (or `serve --token-file`): the file's content, surrounding whitespace
    /// trimmed.
    File(PathBuf),
    /// `token = "…"`, written in `config_file` itself.
    Inline { token: Secret, config_file: PathBuf },
    /// `SWITCHYARD_SERVE_TOKEN`: the secret itself, from the environment.
    Environment { token: Secret, variable: String },
}

/// A secret string: its `Debug` never shows it, so it cannot leak through a logged struct.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(text: impl Into<String>) -> Self {
        Self(text.into())
    }

    /// The secret itself, for comparing; never print it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("Secret(<redacted>)")
    }
}

impl fmt::Debug for ServeTokenSource {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.describe())
    }
}

impl ServeTokenSource {
    /// Where the token is, for messages (never the token).
    pub fn describe(&self) -> String {
        match self {
            Self::File(path) => format!("token_file {}", path.display()),
            Self::Inline { config_file, .. } => format!("[serve] token in {}", config_file.display()),
            Self::Environment { variable, .. } => variable.clone(),
        }
    }

    /// The token, once the file holding it is known to be private to this user: a secret that
    /// other users can read (or change) is refused with the command that fixes it.
    pub fn read(&self) -> Result<Secret, Error> {
        match self {
            Self::File(path) => {
                if let Some(mode) = open_to_others(path)? {
                    return Err(Error::ServeTokenExposed { path: path.clone(), mode, inline: false });
                }
                let text = fs::read_to_string(path)
                    .map_err(|source| Error::ServeTokenUnreadable { path: path.clone(), source })?;
                let token = text.trim();
                if token.is_empty() {
                    return Err(Error::ServeTokenEmpty { path: path.clone() });
                }
                Ok(Secret::new(token))
            }
            Self::Inline { token, config_file } => {
                if let Some(mode) = open_to_others(config_file)? {
                    return Err(Error::ServeTokenExposed { path: config_file.clone(), mode, inline: true });
                }
                Ok(token.clone())
            }
            Self::Environment { token, .. } => Ok(token.clone()),
        }
    }
}

/// Checks the entries of an allowed-hosts list: each must be a `Host` header value as clients
/// send it, a name or `name:port`. `named_by` says where the list was written, for the message
/// (`/home/me/switchyard.toml [serve] allowed_hosts`, `--allowed-host`).
pub fn check_allowed_hosts(entries: &[String], named_by: &str) -> Result<(), Error> {
    for entry in entries {
        if let Some(problem) = allowed_host_problem(entry) {
            return Err(Error::invalid(format!("{named_by}: {problem}")));
        }
    }
    Ok(())
}

/// Checks the entries of an allowed-origins list: each must be an origin as browsers send it,
/// `scheme://host[:port]`, because the guard compares them byte for byte with `Origin`.
pub fn check_allowed_origins(entries: &[String], named_by: &str) -> Result<(), Error> {
    for entry in entries {
        if let Some(problem) = allowed_origin_problem(entry) {
            return Err(Error::invalid(format!("{named_by}: {problem}")));
        }
    }
    Ok(())
}

fn allowed_host_problem(entry: &str) -> Option<String> {
    if entry.trim().is_empty() {
        return Some(
            "an empty entry matches no request: remove it, or write a host name such as `app.example`".to_owned(),
        );
    }
    if let Some((_, rest)) = entry.split_once("://") {
        let authority = rest.split('/').next().unwrap_or(rest);
        return Some(format!(
            "`{entry}` is a URL, but a Host header holds only the name and port: write `{authority}`"
        ));
    }
    if entry.contains(|character: char| character.is_whitespace() || character == '/') {
        return Some(format!(
            "`{entry}` is not a host: write a name or name:port, such as `app.example` or `app.example:7878`"
        ));
    }
    None
}

fn allowed_origin_problem(entry: &str) -> Option<String> {
    if entry.trim().is_empty() {
        return Some(
            "an empty entry matches no browser: remove it, or write an origin such as `https://app.example`".to_owned(),
        );
    }
    let Some((scheme, authority)) = entry.split_once("://") else {
        return Some(format!(
            "`{entry}` has no scheme: write the origin as browsers send it, scheme://host[:port], such as `https://{}`",
            entry.trim_end_matches('/')
        ));
    };
    let scheme_ok = scheme.starts_with(|character: char| character.is_ascii_alphabetic())
        && scheme.chars().all(|character| character.is_ascii_alphanumeric() || "+-.".contains(character));
    if !scheme_ok || authority.is_empty() || entry.contains(char::is_whitespace) {
        return Some(format!("`{entry}` is not an origin: write scheme://host[:port], such as `https://app.example`"));
    }
    if let Some((host, _)) = authority.split_once('/') {
        return Some(format!(
            "`{entry}` has a path, but browsers send an origin without one: write `{scheme}://{host}`"
        ));
    }
    None
}

/// The file's permission bits when users other than its owner may read or write it.
fn open_to_others(path: &Path) -> Result<Option<u32>, Error> {
    let mode = fs::metadata(path)
        .map_err(|source| Error::ServeTokenUnreadable { path: path.to_owned(), source })?
        .permissions()
        .mode();
    Ok((mode & 0o077 != 0).then_some(mode & 0o777))
}

/// The places the file tools must never change, whatever their mounts say, because what they
/// hold decides what the sandbox allows or what a later run loads; and the places they must not
/// even read, because they hold secrets.
///
/// These are paths as the configuration names them; the file door opens them once, when it is
/// built, and compares what an agent names with them by file identity (device and inode), never
/// by path text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProtectedPlaces {
    /// Never written (nor created): configuration files, workflow and routine folders, `{core-root}`.
    pub unwritable: Vec<PathBuf>,
    /// Never read, listed into or written: the key folder, the store and its side files, the
    /// serve token.
    pub secret: Vec<PathBuf>,
}

impl ProtectedPlaces {
    /// The places of a home, a store file and a project, as [`Config::resolve`] would find them.
    pub fn of(home: &Path, store_path: &Path, project_root: Option<&Path>) -> Self {
        let mut unwritable = Vec::new();
        if let Some(project) = project_root {
            unwritable.extend([project.join(CONFIG_FILE), project.join(PROJECT_FOLDER)]);
        }
        unwritable.extend([
            home.join(CONFIG_FILE),
            home.join("workflows"),
            home.join("routines"),
            home.join(ATTACHED_SOURCES_FILE),
        ]);
        let mut secret = vec![home.join("keys")];
        // SQLite's side files hold the same data as the store (and the journal an older state).
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut name = store_path.as_os_str().to_owned();
            name.push(suffix);
            secret.push(PathBuf::from(name));
        }
        Self { unwritable, secret }
    }
}

/// What the caller says explicitly; anything left `None` comes from files or defaults.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub home: Option<PathBuf>,
    pub store: Option<PathBuf>,
    pub project_root: Option<PathBuf>,
}

impl Config {
    /// The configuration of `overrides`, the files and the defaults, without the environment:
    /// what tests and embedders that pass everything explicitly want. The CLI reads the process's
    /// environment too, with [`Config::resolve_with`]. The home defaults to the user's data
    /// folder (`~/.local/share/switchyard` on Linux); the store to `<home>/switchyard.sqlite3`.
    ///
    /// ```
    /// use switchyard_config::{Config, Overrides};
    ///
    /// let home = tempfile::tempdir().unwrap();
    /// let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?;
    /// assert_eq!(config.store_path, home.path().join("switchyard.sqlite3"));
    /// # Ok::<(), switchyard_config::Error>(())
    /// ```
    pub fn resolve(overrides: Overrides) -> Result<Self, Error> {
        Self::resolve_with(overrides, &Environment::default())
    }

    /// The configuration of `overrides` (the flags), then `environment`, then the project's file,
    /// then the user's, then the defaults. Every file is read and checked, also one a nearer layer
    /// shadows: a broken file is reported before the day it stops being shadowed. Every error is
    /// [`Error::Invalid`].
    pub fn resolve_with(overrides: Overrides, environment: &Environment) -> Result<Self, Error> {
        Self::layered(overrides, environment)
    }

    fn layered(overrides: Overrides, environment: &Environment) -> Result<Self, Error> {
        let mut origins = BTreeMap::new();
        let home = match (overrides.home, environment.get(keys::HOME_VARIABLE)) {
            (Some(home), _) => {
                origins.insert("home".to_owned(), Origin::Flag("--home"));
                home
            }
            (None, Some(home)) => {
                origins.insert("home".to_owned(), Origin::Environment(keys::HOME_VARIABLE.to_owned()));
                PathBuf::from(home)
            }
            (None, None) => dirs::data_dir().map(|data| data.join("switchyard")).ok_or_else(|| {
                Error::invalid("cannot find a data directory for this user; set SWITCHYARD_HOME or pass --home")
            })?,
        };
        let project_file = overrides.project_root.as_deref().map(|root| root.join(CONFIG_FILE));
        let mut layers = vec![Layer::environment(environment)?];
        for file in project_file.iter().chain(std::iter::once(&home.join(CONFIG_FILE))) {
            layers.push(Layer::file(file)?);
        }
        let (mut store_path, mut output_root, mut project_writable, mut core_root) = (None, None, None, None);
        let mut store_url: Option<Secret> = None;
        let mut serve = ServeConfig::default();
        let (mut min_confidence, mut max_revision_attempts, mut max_replan_attempts) = (None, None, None);
        let (mut evidence_commands, mut trusted_workspaces, mut max_timeout_seconds, mut max_output_bytes) =
            (None, None, None, None);
        let mut validate = ValidateConfig::default();
        let mut test_command = None;
        let mut keep_presets = None;
        let mut runner_layers = Vec::new();
        let mut models: BTreeMap<String, ModelConfig> = BTreeMap::new();
        for mut layer in layers {
            let read = &layer.config;
            // The store is one choice, a file or a database: the nearest layer naming either decides.
            let store_chosen = store_path.is_some() || store_url.is_some();
            if let Some(url) = read.store.url.as_deref().filter(|url| !url.is_empty()) {
                store_url::check(url, &format!("{} [store] url", layer.named("store.url")))?;
                if !store_chosen {
                    store_url = Some(Secret::new(url));
                }
            }
            if !store_chosen {
                store_path = read.store.path.clone().map(|path| layer.path(path));
            }
            output_root = output_root.or_else(|| read.runs.output_root.clone().map(|path| layer.path(path)));
            project_writable = project_writable.or(read.files.project_writable);
            core_root = core_root.or_else(|| read.files.core_root.clone().map(|path| layer.path(path)));
            let limits = read.serve.limits();
            limits.check(|name| layer.named(&format!("serve.{name}")))?;
            serve.limits = serve.limits.or(limits);
            serve.host = serve.host.or(read.serve.host);
            serve.port = serve.port.or(read.serve.port);
            let token = serve_token(&layer)?;
            if serve.token.is_none() {
                serve.token = token;
            }
            if let Some(hosts) = &read.serve.allowed_hosts {
                check_allowed_hosts(hosts, &format!("{} [serve] allowed_hosts", layer.named("serve.allowed_hosts")))?;
            }
            if let Some(origins) = &read.serve.allowed_origins {
                let named = layer.named("serve.allowed_origins");
                check_allowed_origins(origins, &format!("{named} [serve] allowed_origins"))?;
            }
            serve.allowed_hosts = serve.allowed_hosts.or_else(|| read.serve.allowed_hosts.clone());
            serve.allowed_origins = serve.allowed_origins.or_else(|| read.serve.allowed_origins.clone());
            if let Some(confidence) = read.audit.audit_min_confidence
                && !(0.0..=1.0).contains(&confidence)
            {
                return Err(Error::invalid(format!(
                    "{} sets [audit] audit_min_confidence = {confidence}, but a confidence is between 0.0 and 1.0: set a value in that range, or remove the line for the default 0.8",
                    layer.named("audit.audit_min_confidence")
                )));
            }
            min_confidence = min_confidence.or(read.audit.audit_min_confidence);
            for (name, value) in [
                ("max_timeout_seconds", read.evidence.max_timeout_seconds),
                ("max_output_bytes", read.evidence.max_output_bytes),
            ] {
                if value == Some(0) {
                    return Err(Error::invalid(format!(
                        "{} sets [evidence] {name} = 0, which no command could meet: set a positive number, or remove the line for the default",
                        layer.named(&format!("evidence.{name}"))
                    )));
                }
            }
            evidence_commands = evidence_commands.or(read.evidence.commands);
            trusted_workspaces = trusted_workspaces.or_else(|| {
                let places = read.evidence.trusted_workspaces.clone()?;
                Some(places.into_iter().map(|place| layer.path(place)).collect::<Vec<_>>())
            });
            max_timeout_seconds = max_timeout_seconds.or(read.evidence.max_timeout_seconds);
            max_output_bytes = max_output_bytes.or(read.evidence.max_output_bytes);
            if let Some(command) = &read.project.test_command {
                check_test_command(command, &layer.named("project.test_command"))?;
            }
            test_command = test_command.or_else(|| read.project.test_command.clone());
            max_revision_attempts = max_revision_attempts.or(read.execution.max_revision_attempts);
            max_replan_attempts = max_replan_attempts.or(read.execution.max_replan_attempts);
            validate.prompts = validate.prompts.or_else(|| read.validate.prompts.clone());
            validate.mirrors = validate.mirrors.or_else(|| read.validate.mirrors.clone());
            keep_presets = keep_presets.or(read.validate.keep_presets);
            read.runner.check(|dotted| layer.at(dotted))?;
            for (name, model) in &read.models {
                runner::check_model(name, model, |dotted| layer.at(dotted))?;
                let merged = models.remove(name).unwrap_or_default().or(model);
                models.insert(name.clone(), merged);
            }
            runner_layers.push(std::mem::take(&mut layer.config.runner));
            if store_chosen {
                layer.origins.retain(|key, _| !key.starts_with("store."));
            }
            for (key, origin) in layer.origins {
                origins.entry(key).or_insert(origin);
            }
        }
        validate.keep_presets = keep_presets.unwrap_or(false);
        let execution_defaults = ExecutionConfig::default();
        let execution = ExecutionConfig {
            max_revision_attempts: max_revision_attempts.unwrap_or(execution_defaults.max_revision_attempts),
            max_replan_attempts: max_replan_attempts.unwrap_or(execution_defaults.max_replan_attempts),
        };
        let audit = AuditConfig { min_confidence: min_confidence.unwrap_or(AuditConfig::default().min_confidence) };
        let evidence_defaults = EvidenceConfig::default();
        let evidence = EvidenceConfig {
            commands: evidence_commands.unwrap_or(evidence_defaults.commands),
            trusted_workspaces: trusted_workspaces.unwrap_or_default(),
            max_timeout_seconds: max_timeout_seconds.unwrap_or(evidence_defaults.max_timeout_seconds),
            max_output_bytes: max_output_bytes.unwrap_or(evidence_defaults.max_output_bytes),
        };
        let project: ProjectCommands =
            test_command.map(|command| (ProjectCommand::TestCommand, command)).into_iter().collect();
        // The farthest layer first, so each nearer one overrides what it sets.
        let runner = runner_layers.iter().rev().fold(RunnerConfig::default(), |farther, nearer| nearer.over(farther));
        // `--store` names a file, or a database by its URL.
        let (flag_path, flag_url) = match overrides.store {
            Some(store) => match store.to_str().filter(|text| store_url::is_url(text)) {
                Some(url) => {
                    store_url::check(url, "--store")?;
                    (None, Some(Secret::new(url)))
                }
                None => (Some(store), None),
            },
            None => (None, None),
        };
        if flag_path.is_some() {
            origins.insert("store.path".to_owned(), Origin::Flag("--store"));
            origins.remove("store.url");
        }
        if flag_url.is_some() {
            origins.insert("store.url".to_owned(), Origin::Flag("--store"));
        }
        // `--store` decides the store whatever the files and variables name: a file flag leaves
        // no database URL behind.
        let store_url = if flag_path.is_some() { None } else { flag_url.or(store_url) };
        let store_path = flag_path.or(store_path).unwrap_or_else(|| home.join(DEFAULT_STORE_FILE));
        // Under the home, not the project: a run folder never lands in a repository by surprise.
        let output_root = output_root.unwrap_or_else(|| home.join("runs"));
        let core_root = core_root.unwrap_or_else(|| home.join("core"));
        Ok(Self {
            home,
            store_path,
            store_url,
            project_root: overrides.project_root,
            output_root,
            project_writable: project_writable.unwrap_or(false),
            core_root,
            serve,
            audit,
            execution,
            evidence,
            project,
            validate,
            runner,
            models,
            origins,
        })
    }

    /// Where the effective value of `key` (`home`, or `section.name` as in [`keys::KEYS`]) came
    /// from. Of `serve.token` and `serve.token_file`, only the one in effect has one.
    pub fn origin(&self, key: &str) -> Origin {
        let token_key = match &self.serve.token {
            Some(ServeTokenSource::File(_)) => Some("serve.token_file"),
            Some(ServeTokenSource::Inline { .. } | ServeTokenSource::Environment { .. }) => Some("serve.token"),
            None => None,
        };
        if key.starts_with("serve.token") && token_key != Some(key) {
            return Origin::Default;
        }
        self.origins.get(key).cloned().unwrap_or(Origin::Default)
    }
}

impl Config {
    /// What the file tools must never change or read under this configuration: see
    /// [`ProtectedPlaces`]. The core root is unwritable too (built-in assets), and the serve
    /// token secret, wherever it is kept.
    pub fn protected_places(&self) -> ProtectedPlaces {
        let mut places = ProtectedPlaces::of(&self.home, &self.store_path, self.project_root.as_deref());
        places.unwritable.push(self.core_root.clone());
        match &self.serve.token {
            Some(ServeTokenSource::File(path)) => places.secret.push(path.clone()),
            Some(ServeTokenSource::Inline { config_file, .. }) => places.secret.push(config_file.clone()),
            Some(ServeTokenSource::Environment { .. }) | None => {}
        }
        places
    }
}

/// The serve token a layer names, if it names one: a file, or the secret itself.
fn serve_token(layer: &Layer) -> Result<Option<ServeTokenSource>, Error> {
    let serve = &layer.config.serve;
    match (&serve.token_file, &serve.token, &layer.file) {
        (Some(_), Some(_), Some(file)) => Err(Error::invalid(format!(
            "{} sets both [serve] token_file and [serve] token: keep token_file (a file only you can read) and remove token",
            file.display()
        ))),
        (Some(_), Some(_), None) => Err(Error::invalid(
            "both SWITCHYARD_SERVE_TOKEN_FILE and SWITCHYARD_SERVE_TOKEN are set: unset one of them",
        )),
        (Some(path), None, _) => Ok(Some(ServeTokenSource::File(layer.path(path.clone())))),
        (None, Some(token), _) if token.trim().is_empty() => Err(Error::invalid(format!(
            "{} sets an empty [serve] token: set a long random secret, or remove the line",
            layer.named("serve.token")
        ))),
        (None, Some(token), Some(file)) => {
            Ok(Some(ServeTokenSource::Inline { token: Secret::new(token.clone()), config_file: file.clone() }))
        }
        (None, Some(token), None) => Ok(Some(ServeTokenSource::Environment {
            token: Secret::new(token.clone()),
            variable: layer.named("serve.token"),
        })),
        (None, None, _) => Ok(None),
    }
}
#[cfg(test)]
mod tests;
