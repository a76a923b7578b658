//! Where switchyard keeps its data, and `switchyard.toml`.
//!
//! Precedence, highest first: explicit options (`--home`, `--store`), the project's
//! `switchyard.toml`, the user's `$SWITCHYARD_HOME/switchyard.toml`, then defaults
//! (`$SWITCHYARD_HOME` defaults to the user's data directory plus `switchyard`).
//!
//! `[serve]` (`host`, `port`, `token_file` or `token`, `allowed_hosts`, `allowed_origins`) is what
//! `switchyard serve` falls back to when neither its flags nor `SWITCHYARD_SERVE_TOKEN` say
//! otherwise. The token itself is read only by `serve` ([`ServeTokenSource::read`]), so a missing
//! token file never stops other commands; the allowed lists are checked when the file is read
//! ([`check_allowed_hosts`], [`check_allowed_origins`]), the same checks `serve` runs on its flags.
//! Its resource bounds ([`ServeLimits`]) are read here and given their defaults by `serve`.

use std::fmt;
use std::fs;
use std::net::IpAddr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::Error;

/// The file name of the store inside the home folder.
pub const DEFAULT_STORE_FILE: &str = "switchyard.sqlite3";
/// The configuration file's name, in the project root and in the home folder.
pub const CONFIG_FILE: &str = "switchyard.toml";
/// The project's own folder (`.switchyard/workflows/`, routines) below the project root.
pub const PROJECT_FOLDER: &str = ".switchyard";

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
    /// `[serve]`: defaults for `switchyard serve`.
    pub serve: ServeConfig,
    /// `[audit]`: how audit steps' findings are weighed.
    pub audit: AuditConfig,
    /// `[execution]`: the limits a workflow gets when it does not set its own.
    pub execution: ExecutionConfig,
    /// `[validate]`: what `switchyard validate` checks besides workflows.
    pub validate: ValidateConfig,
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
        let limits = switchyard_core::workflow::Limits::default();
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
}

/// One `[[validate.prompts]]` entry: the files its glob matches get its field rules.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FieldType {
    String,
    StringArray,
    Enum,
    Number,
    Boolean,
}

/// One `[[validate.mirrors]]` entry: `mirror` must hold exactly the files of `source`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
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

    /// Refuses a zero bound: it would refuse every client.
    fn check(&self, file: &Path) -> Result<(), Error> {
        let bounds = [
            ("max_connections", self.max_connections.map(|value| value as u64)),
            ("max_pending_connections", self.max_pending_connections.map(|value| value as u64)),
            ("header_timeout_seconds", self.header_timeout_seconds),
            ("body_timeout_seconds", self.body_timeout_seconds),
            ("max_sessions", self.max_sessions.map(|value| value as u64)),
            ("session_idle_seconds", self.session_idle_seconds),
        ];
        match bounds.iter().find(|(_, value)| *value == Some(0)) {
            Some((name, _)) => Err(Error::environment(format!(
                "{} sets [serve] {name} = 0, which would refuse every client: set a positive number, or remove the line for the default",
                file.display()
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
        }
    }

    /// The token, once the file holding it is known to be private to this user: a secret that
    /// other users can read (or change) is refused with the command that fixes it.
    pub fn read(&self) -> Result<Secret, Error> {
        match self {
            Self::File(path) => {
                if let Some(mode) = open_to_others(path)? {
                    return Err(Error::environment(format!(
                        "the serve token file {} is open to other users (mode {mode:o}); run `chmod 600 {}`",
                        path.display(),
                        path.display()
                    )));
                }
                let text = fs::read_to_string(path).map_err(|error| {
                    Error::environment(format!("cannot read the serve token file {}: {error}", path.display()))
                })?;
                let token = text.trim();
                if token.is_empty() {
                    return Err(Error::environment(format!(
                        "the serve token file {} is empty: write a long random secret into it (`openssl rand -hex 32 > {}`)",
                        path.display(),
                        path.display()
                    )));
                }
                Ok(Secret::new(token))
            }
            Self::Inline { token, config_file } => {
                if let Some(mode) = open_to_others(config_file)? {
                    return Err(Error::environment(format!(
                        "{} holds [serve] token but is open to other users (mode {mode:o}): run `chmod 600 {}`, or move the secret to a file only you can read and name it with [serve] token_file",
                        config_file.display(),
                        config_file.display()
                    )));
                }
                Ok(token.clone())
            }
        }
    }
}

/// Checks the entries of an allowed-hosts list: each must be a `Host` header value as clients
/// send it, a name or `name:port`. `named_by` says where the list was written, for the message
/// (`/home/me/switchyard.toml [serve] allowed_hosts`, `--allowed-host`).
pub fn check_allowed_hosts(entries: &[String], named_by: &str) -> Result<(), Error> {
    for entry in entries {
        if let Some(problem) = allowed_host_problem(entry) {
            return Err(Error::environment(format!("{named_by}: {problem}")));
        }
    }
    Ok(())
}

/// Checks the entries of an allowed-origins list: each must be an origin as browsers send it,
/// `scheme://host[:port]`, because the guard compares them byte for byte with `Origin`.
pub fn check_allowed_origins(entries: &[String], named_by: &str) -> Result<(), Error> {
    for entry in entries {
        if let Some(problem) = allowed_origin_problem(entry) {
            return Err(Error::environment(format!("{named_by}: {problem}")));
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
        .map_err(|error| Error::environment(format!("cannot read {}: {error}", path.display())))?
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
            home.join(crate::attached::ATTACHED_SOURCES_FILE),
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

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    #[serde(default)]
    store: StoreSection,
    #[serde(default)]
    runs: RunsSection,
    #[serde(default)]
    files: FilesSection,
    #[serde(default)]
    serve: ServeSection,
    #[serde(default)]
    audit: AuditSection,
    #[serde(default)]
    execution: ExecutionSection,
    #[serde(default)]
    validate: ValidateSection,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct AuditSection {
    audit_min_confidence: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExecutionSection {
    max_revision_attempts: Option<u32>,
    max_replan_attempts: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ValidateSection {
    prompts: Option<Vec<PromptRules>>,
    mirrors: Option<Vec<MirrorPair>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServeSection {
    host: Option<IpAddr>,
    port: Option<u16>,
    token_file: Option<PathBuf>,
    token: Option<String>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    max_connections: Option<usize>,
    max_pending_connections: Option<usize>,
    header_timeout_seconds: Option<u64>,
    body_timeout_seconds: Option<u64>,
    max_sessions: Option<usize>,
    session_idle_seconds: Option<u64>,
}

impl ServeSection {
    fn limits(&self) -> ServeLimits {
        ServeLimits {
            max_connections: self.max_connections,
            max_pending_connections: self.max_pending_connections,
            header_timeout_seconds: self.header_timeout_seconds,
            body_timeout_seconds: self.body_timeout_seconds,
            max_sessions: self.max_sessions,
            session_idle_seconds: self.session_idle_seconds,
        }
    }
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
    /// The configuration in force: `overrides` first, then the project's `switchyard.toml`, then
    /// the home's, then defaults. The home defaults to the user's data folder
    /// (`~/.local/share/switchyard` on Linux); the store to `<home>/switchyard.sqlite3`.
    ///
    /// ```
    /// use switchyard_runtime::{Config, Overrides};
    ///
    /// let home = tempfile::tempdir().unwrap();
    /// let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() })?;
    /// assert_eq!(config.store_path, home.path().join("switchyard.sqlite3"));
    /// # Ok::<(), switchyard_runtime::Error>(())
    /// ```
    pub fn resolve(overrides: Overrides) -> Result<Self, Error> {
        let home = match overrides.home {
            Some(home) => home,
            None => dirs::data_dir().map(|data| data.join("switchyard")).ok_or_else(|| {
                Error::environment("cannot find a data directory for this user; set SWITCHYARD_HOME or pass --home")
            })?,
        };
        let (mut store_path, mut output_root, mut project_writable, mut core_root) = (None, None, None, None);
        let mut serve = ServeConfig::default();
        let (mut min_confidence, mut max_revision_attempts, mut max_replan_attempts) = (None, None, None);
        let mut validate = ValidateConfig::default();
        let project_file = overrides.project_root.as_deref().map(|root| root.join(CONFIG_FILE));
        for file in project_file.iter().chain(std::iter::once(&home.join(CONFIG_FILE))) {
            let read = read_file_config(file)?;
            store_path = store_path.or_else(|| read.store.path.map(|path| relative_to(file, path)));
            output_root = output_root.or_else(|| read.runs.output_root.map(|path| relative_to(file, path)));
            project_writable = project_writable.or(read.files.project_writable);
            core_root = core_root.or_else(|| read.files.core_root.map(|path| relative_to(file, path)));
            let limits = read.serve.limits();
            limits.check(file)?;
            serve.limits = serve.limits.or(limits);
            serve.host = serve.host.or(read.serve.host);
            serve.port = serve.port.or(read.serve.port);
            if serve.token.is_none() {
                serve.token = serve_token(file, read.serve.token_file, read.serve.token)?;
            }
            // Checked in every file, also one a nearer file shadows: a broken file is reported
            // before the day it stops being shadowed.
            if let Some(hosts) = &read.serve.allowed_hosts {
                check_allowed_hosts(hosts, &format!("{} [serve] allowed_hosts", file.display()))?;
            }
            if let Some(origins) = &read.serve.allowed_origins {
                check_allowed_origins(origins, &format!("{} [serve] allowed_origins", file.display()))?;
            }
            serve.allowed_hosts = serve.allowed_hosts.or(read.serve.allowed_hosts);
            serve.allowed_origins = serve.allowed_origins.or(read.serve.allowed_origins);
            if let Some(confidence) = read.audit.audit_min_confidence
                && !(0.0..=1.0).contains(&confidence)
            {
                return Err(Error::environment(format!(
                    "{} sets [audit] audit_min_confidence = {confidence}, but a confidence is between 0.0 and 1.0: set a value in that range, or remove the line for the default 0.8",
                    file.display()
                )));
            }
            min_confidence = min_confidence.or(read.audit.audit_min_confidence);
            max_revision_attempts = max_revision_attempts.or(read.execution.max_revision_attempts);
            max_replan_attempts = max_replan_attempts.or(read.execution.max_replan_attempts);
            validate.prompts = validate.prompts.or(read.validate.prompts);
            validate.mirrors = validate.mirrors.or(read.validate.mirrors);
        }
        let execution_defaults = ExecutionConfig::default();
        let execution = ExecutionConfig {
            max_revision_attempts: max_revision_attempts.unwrap_or(execution_defaults.max_revision_attempts),
            max_replan_attempts: max_replan_attempts.unwrap_or(execution_defaults.max_replan_attempts),
        };
        let audit = AuditConfig { min_confidence: min_confidence.unwrap_or(AuditConfig::default().min_confidence) };
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
            serve,
            audit,
            execution,
            validate,
        })
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
            None => {}
        }
        places
    }
}

fn serve_token(
    config_file: &Path,
    token_file: Option<PathBuf>,
    token: Option<String>,
) -> Result<Option<ServeTokenSource>, Error> {
    match (token_file, token) {
        (Some(_), Some(_)) => Err(Error::environment(format!(
            "{} sets both [serve] token_file and [serve] token: keep token_file (a file only you can read) and remove token",
            config_file.display()
        ))),
        (Some(path), None) => Ok(Some(ServeTokenSource::File(relative_to(config_file, path)))),
        (None, Some(token)) if token.trim().is_empty() => Err(Error::environment(format!(
            "{} sets an empty [serve] token: set a long random secret, or remove the line",
            config_file.display()
        ))),
        (None, Some(token)) => {
            Ok(Some(ServeTokenSource::Inline { token: Secret::new(token), config_file: config_file.to_owned() }))
        }
        (None, None) => Ok(None),
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
    fn protected_places_name_the_configuration_the_workflow_folders_the_keys_the_store_and_the_token() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        write_private(&home.path().join("switchyard.toml"), "[serve]\ntoken_file = \"serve-token\"\n");
        let config = resolve_in(home.path(), Some(project.path())).unwrap();
        let places = config.protected_places();
        let (home, project) = (home.path(), project.path());
        let unwritable = [
            project.join("switchyard.toml"),
            project.join(".switchyard"),
            home.join("switchyard.toml"),
            home.join("workflows"),
            home.join("routines"),
            home.join(crate::attached::ATTACHED_SOURCES_FILE),
            home.join("core"),
        ];
        assert_eq!(places.unwritable, unwritable);
        let store = home.join(DEFAULT_STORE_FILE).display().to_string();
        let secret = [
            home.join("keys"),
            PathBuf::from(&store),
            PathBuf::from(format!("{store}-wal")),
            PathBuf::from(format!("{store}-shm")),
            PathBuf::from(format!("{store}-journal")),
            home.join("serve-token"),
        ];
        assert_eq!(places.secret, secret);
    }

    #[test]
    fn audit_execution_and_validate_sections_are_read_with_their_defaults() {
        let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let config = resolve_in(home.path(), Some(project.path())).unwrap();
        assert_eq!(config.audit, AuditConfig { min_confidence: 0.8 });
        assert_eq!(config.execution, ExecutionConfig { max_revision_attempts: 3, max_replan_attempts: 2 });
        assert_eq!(config.validate, ValidateConfig::default());
        fs::write(home.path().join("switchyard.toml"), "[execution]\nmax_replan_attempts = 5\n").unwrap();
        fs::write(
            project.path().join("switchyard.toml"),
            r#"
[audit]
audit_min_confidence = 0.75
[execution]
max_revision_attempts = 4
[[validate.prompts]]
glob = "commands/**/*.md"
preset = "spw-command"
[[validate.prompts.fields]]
name = "model"
required = true
type = "enum"
values = ["haiku", "sonnet", "opus"]
[[validate.mirrors]]
source = "commands"
mirror = "copy-ready/commands"
"#,
        )
        .unwrap();
        let config = resolve_in(home.path(), Some(project.path())).unwrap();
        assert_eq!(config.audit.min_confidence, 0.75);
        assert_eq!(config.execution, ExecutionConfig { max_revision_attempts: 4, max_replan_attempts: 5 });
        let prompts = config.validate.prompts.unwrap();
        assert_eq!((prompts[0].glob.as_str(), prompts[0].preset.as_deref()), ("commands/**/*.md", Some("spw-command")));
        assert_eq!(prompts[0].fields[0].kind, FieldType::Enum);
        assert_eq!(config.validate.mirrors.unwrap()[0].mirror, PathBuf::from("copy-ready/commands"));
        fs::write(project.path().join("switchyard.toml"), "[audit]\naudit_min_confidence = 1.5\n").unwrap();
        let error = resolve_in(home.path(), Some(project.path())).unwrap_err().to_string();
        assert!(error.contains("between 0.0 and 1.0"), "{error}");
    }

    #[test]
    fn a_misspelled_key_is_an_error_naming_the_file() {
        let home = tempfile::tempdir().unwrap();
        fs::write(home.path().join("switchyard.toml"), "[store]\npaht = \"x\"\n").unwrap();
        let error =
            Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() }).unwrap_err();
        assert!(error.to_string().contains("switchyard.toml"), "{error}");
    }

    fn resolve_in(home: &Path, project: Option<&Path>) -> Result<Config, Error> {
        Config::resolve(Overrides {
            home: Some(home.to_owned()),
            store: None,
            project_root: project.map(Path::to_owned),
        })
    }

    fn write_private(path: &Path, text: &str) {
        fs::write(path, text).unwrap();
        fs::set_permissions(path, fs::Permissions::from_mode(0o600)).unwrap();
    }

    #[test]
    fn serve_limits_come_key_by_key_from_the_nearest_file_and_zero_is_refused() {
        let (home, project) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fs::write(home.path().join("switchyard.toml"), "[serve]\nmax_connections = 50\nmax_sessions = 9\n").unwrap();
        fs::write(project.path().join("switchyard.toml"), "[serve]\nmax_sessions = 4\n").unwrap();
        let limits = resolve_in(home.path(), Some(project.path())).unwrap().serve.limits;
        assert_eq!(
            (limits.max_connections, limits.max_sessions, limits.header_timeout_seconds),
            (Some(50), Some(4), None)
        );
        fs::write(project.path().join("switchyard.toml"), "[serve]\nheader_timeout_seconds = 0\n").unwrap();
        let error = resolve_in(home.path(), Some(project.path())).unwrap_err().to_string();
        assert!(error.contains("header_timeout_seconds = 0") && error.contains("positive"), "{error}");
    }

    #[test]
    fn serve_settings_come_from_the_project_file_before_the_user_file() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        fs::write(
            home.path().join("switchyard.toml"),
            "[serve]\nhost = \"0.0.0.0\"\nport = 9000\ntoken_file = \"user-token\"\n",
        )
        .unwrap();
        let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
        assert_eq!(serve.host, Some("0.0.0.0".parse().unwrap()));
        assert_eq!(serve.port, Some(9000));
        assert!(
            matches!(&serve.token, Some(ServeTokenSource::File(path)) if *path == home.path().join("user-token")),
            "a relative token_file is relative to its switchyard.toml: {serve:?}"
        );
        fs::write(project.path().join("switchyard.toml"), "[serve]\nport = 9100\ntoken_file = \"/etc/sy-token\"\n")
            .unwrap();
        let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
        assert_eq!((serve.host, serve.port), (Some("0.0.0.0".parse().unwrap()), Some(9100)));
        assert!(matches!(&serve.token, Some(ServeTokenSource::File(path)) if *path == Path::new("/etc/sy-token")));
    }

    #[test]
    fn a_token_file_is_read_trimmed_and_refused_when_open_to_others_or_empty() {
        let home = tempfile::tempdir().unwrap();
        let token_file = home.path().join("serve-token");
        write_private(&token_file, "  file-secret-1234\n");
        fs::write(home.path().join("switchyard.toml"), "[serve]\ntoken_file = \"serve-token\"\n").unwrap();
        let source = resolve_in(home.path(), None).unwrap().serve.token.unwrap();
        assert_eq!(source.read().unwrap().expose(), "file-secret-1234");
        fs::set_permissions(&token_file, fs::Permissions::from_mode(0o640)).unwrap();
        let open = source.read().unwrap_err().to_string();
        assert!(open.contains("open to other users (mode 640)") && open.contains("chmod 600"), "{open}");
        assert!(!open.contains("file-secret-1234"), "{open}");
        write_private(&token_file, "\n");
        let empty = source.read().unwrap_err().to_string();
        assert!(empty.contains("is empty"), "{empty}");
        fs::remove_file(&token_file).unwrap();
        assert!(source.read().unwrap_err().to_string().contains("cannot read"));
        assert!(resolve_in(home.path(), None).is_ok(), "a missing token file stops only `serve`");
    }

    #[test]
    fn an_inline_token_needs_a_config_file_only_its_owner_can_read() {
        let home = tempfile::tempdir().unwrap();
        let config_file = home.path().join("switchyard.toml");
        fs::write(&config_file, "[serve]\ntoken = \"inline-secret-5678\"\n").unwrap();
        fs::set_permissions(&config_file, fs::Permissions::from_mode(0o644)).unwrap();
        let source = resolve_in(home.path(), None).unwrap().serve.token.unwrap();
        let refused = source.read().unwrap_err().to_string();
        assert!(refused.contains("open to other users (mode 644)"), "{refused}");
        assert!(refused.contains("chmod 600") && refused.contains("token_file"), "says how to fix it: {refused}");
        assert!(!refused.contains("inline-secret-5678"), "{refused}");
        fs::set_permissions(&config_file, fs::Permissions::from_mode(0o600)).unwrap();
        assert_eq!(source.read().unwrap().expose(), "inline-secret-5678");
    }

    #[test]
    fn serve_token_and_token_file_together_or_an_empty_token_are_refused() {
        let home = tempfile::tempdir().unwrap();
        let config_file = home.path().join("switchyard.toml");
        write_private(&config_file, "[serve]\ntoken = \"a\"\ntoken_file = \"b\"\n");
        let both = resolve_in(home.path(), None).unwrap_err().to_string();
        assert!(both.contains("both [serve] token_file and [serve] token"), "{both}");
        write_private(&config_file, "[serve]\ntoken = \" \"\n");
        let empty = resolve_in(home.path(), None).unwrap_err().to_string();
        assert!(empty.contains("empty [serve] token"), "{empty}");
    }

    #[test]
    fn serve_allowed_lists_come_whole_from_the_nearest_file_that_sets_them() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        fs::write(
            home.path().join("switchyard.toml"),
            "[serve]\nallowed_hosts = [\"user.example\", \"user.example:7878\"]\nallowed_origins = [\"https://user.example\"]\n",
        )
        .unwrap();
        let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
        assert_eq!(
            serve.allowed_hosts.as_deref(),
            Some(&["user.example".to_owned(), "user.example:7878".to_owned()][..])
        );
        assert_eq!(serve.allowed_origins.as_deref(), Some(&["https://user.example".to_owned()][..]));
        fs::write(project.path().join("switchyard.toml"), "[serve]\nallowed_hosts = [\"project.example\"]\n").unwrap();
        let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
        assert_eq!(serve.allowed_hosts.as_deref(), Some(&["project.example".to_owned()][..]), "replaced, not merged");
        assert_eq!(serve.allowed_origins.as_deref(), Some(&["https://user.example".to_owned()][..]), "field by field");
        fs::write(project.path().join("switchyard.toml"), "[serve]\nallowed_hosts = []\n").unwrap();
        let serve = resolve_in(home.path(), Some(project.path())).unwrap().serve;
        assert_eq!(serve.allowed_hosts.as_deref(), Some(&[][..]), "an empty list is a setting too");
    }

    /// Resolves a home whose `switchyard.toml` holds `serve_section`, and returns the error.
    fn serve_error(serve_section: &str) -> String {
        let home = tempfile::tempdir().unwrap();
        fs::write(home.path().join("switchyard.toml"), format!("[serve]\n{serve_section}\n")).unwrap();
        let error = resolve_in(home.path(), None).unwrap_err().to_string();
        let file = home.path().join("switchyard.toml").display().to_string();
        error.strip_prefix(&file).unwrap_or_else(|| panic!("the message starts with the file: {error}")).to_owned()
    }

    #[test]
    fn allowed_entries_that_can_never_match_are_refused_naming_the_file_the_key_and_the_fix() {
        let check = |serve_section: &str, expected: &str| assert_eq!(serve_error(serve_section), expected);
        check(
            r#"allowed_hosts = [""]"#,
            " [serve] allowed_hosts: an empty entry matches no request: remove it, or write a host name such as `app.example`",
        );
        check(
            r#"allowed_hosts = ["https://app.example:8443/mcp"]"#,
            " [serve] allowed_hosts: `https://app.example:8443/mcp` is a URL, but a Host header holds only the name and port: write `app.example:8443`",
        );
        check(
            r#"allowed_hosts = ["app example"]"#,
            " [serve] allowed_hosts: `app example` is not a host: write a name or name:port, such as `app.example` or `app.example:7878`",
        );
        check(
            r#"allowed_origins = [" "]"#,
            " [serve] allowed_origins: an empty entry matches no browser: remove it, or write an origin such as `https://app.example`",
        );
        check(
            r#"allowed_origins = ["app.example:5173"]"#,
            " [serve] allowed_origins: `app.example:5173` has no scheme: write the origin as browsers send it, scheme://host[:port], such as `https://app.example:5173`",
        );
        check(
            r#"allowed_origins = ["https://app.example/"]"#,
            " [serve] allowed_origins: `https://app.example/` has a path, but browsers send an origin without one: write `https://app.example`",
        );
        check(
            r#"allowed_origins = ["://app.example"]"#,
            " [serve] allowed_origins: `://app.example` is not an origin: write scheme://host[:port], such as `https://app.example`",
        );
    }

    #[test]
    fn allowed_entries_as_clients_send_them_pass() {
        let hosts = ["app.example", "app.example:7878", "[::1]:7878", "10.0.0.5"].map(str::to_owned);
        let origins = ["https://app.example", "http://10.0.0.5:5173", "vscode-webview://abc123"].map(str::to_owned);
        check_allowed_hosts(&hosts, "--allowed-host").unwrap();
        check_allowed_origins(&origins, "--allowed-origin").unwrap();
        let flag = check_allowed_origins(&["app.example".to_owned()], "--allowed-origin").unwrap_err().to_string();
        assert!(flag.contains("--allowed-origin: `app.example` has no scheme"), "{flag}");
    }

    #[test]
    fn debug_output_of_the_config_never_shows_the_token() {
        let home = tempfile::tempdir().unwrap();
        write_private(&home.path().join("switchyard.toml"), "[serve]\ntoken = \"inline-secret-5678\"\n");
        let config = resolve_in(home.path(), None).unwrap();
        let debug = format!("{config:?}");
        assert!(!debug.contains("inline-secret-5678"), "{debug}");
        assert!(debug.contains("[serve] token in"), "{debug}");
    }
}
