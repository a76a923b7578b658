//! One layer of configuration, a `switchyard.toml` or the environment, read into the same
//! sections, with where each key it sets was written.

use std::collections::BTreeMap;
use std::fmt;
use std::fs;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::keys::{self, KEYS, Kind, Positions, STORE_VARIABLE};
use super::runner::{ModelConfig, RunnerSection};
use super::{MirrorPair, PromptRules, ServeLimits};
use crate::error::Error;

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// Nobody set it.
    Default,
    /// A `switchyard.toml`, at the key's line and column.
    File { path: PathBuf, line: usize, column: usize },
    /// An environment variable.
    Environment(String),
    /// A command-line option (`--home`, `--store`).
    Flag(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Default => formatter.write_str("default"),
            Self::File { path, line, .. } => write!(formatter, "{}:{line}", path.display()),
            Self::Environment(variable) => write!(formatter, "env {variable}"),
            Self::Flag(flag) => formatter.write_str(flag),
        }
    }
}

/// The `SWITCHYARD_*` variables of an environment, the layer between the files and the flags.
/// Its `Debug` shows the names only: a variable may hold the serve token.
#[derive(Clone, Default)]
pub struct Environment {
    variables: BTreeMap<String, String>,
}

impl Environment {
    /// The process's `SWITCHYARD_*` variables.
    pub fn of_process() -> Self {
        Self::from_pairs(std::env::vars_os().filter_map(|(name, value)| {
            let name = name.into_string().ok().filter(|name| name.starts_with("SWITCHYARD_"))?;
            Some((name, value.to_string_lossy().into_owned()))
        }))
    }

    /// An environment of these variables only (tests, embedders).
    pub fn from_pairs(pairs: impl IntoIterator<Item = (impl Into<String>, impl Into<String>)>) -> Self {
        Self { variables: pairs.into_iter().map(|(name, value)| (name.into(), value.into())).collect() }
    }

    /// The names of the variables set (the values stay inside: a variable may hold a secret).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.variables.keys().map(String::as_str)
    }

    /// The variable's value; an empty one counts as unset.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.variables.get(name).map(String::as_str).filter(|value| !value.is_empty())
    }
}

impl fmt::Debug for Environment {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_set().entries(self.variables.keys()).finish()
    }
}

/// A file or the environment, read.
#[derive(Debug, Default)]
pub(super) struct Layer {
    pub(super) config: FileConfig,
    /// Where each key it sets (`section.name`) was set.
    pub(super) origins: BTreeMap<String, Origin>,
    /// The file, for paths relative to it and for messages; `None` for the environment.
    pub(super) file: Option<PathBuf>,
}

impl Layer {
    /// Reads `path`; a missing file is an empty layer.
    pub(super) fn file(path: &Path) -> Result<Self, Error> {
        let text = match fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(error) => return Err(Error::Invalid(format!("cannot read {}: {error}", path.display()))),
        };
        let written = keys::check_keys(path, &text)?;
        let positions = written.keys;
        let config: FileConfig = toml::from_str(&text).map_err(|error| {
            let at = error.span().map_or((1, 1), |span| keys::position(&text, span.start));
            let message = in_plain_words(error.message().trim_end());
            keys::located(path, at, &format!("{}{message}", key_on_line(&positions, at.0)))
        })?;
        check_prompt_rules(path, &config, &written.entries)?;
        let origins = positions
            .into_iter()
            .map(|(key, (line, column))| (key, Origin::File { path: path.to_owned(), line, column }))
            .collect();
        Ok(Self { config, origins, file: Some(path.to_owned()) })
    }

    /// Reads the `SWITCHYARD_<SECTION>_<KEY>` variables of `environment`: strings as they are,
    /// numbers and `true`/`false` parsed, lists split at commas.
    pub(super) fn environment(environment: &Environment) -> Result<Self, Error> {
        let mut sections = toml::Table::new();
        let mut origins = BTreeMap::new();
        for key in KEYS {
            let Some(variable) = key.variable() else { continue };
            let Some((variable, text)) = store_alias(key, &variable, environment)? else { continue };
            let value =
                env_value(key.kind, text).ok_or_else(|| bad_variable(&variable, key, text, expected(key.kind)))?;
            let mut one = toml::Table::new();
            insert_at(&mut one, key.section, key.name, value.clone());
            // Each variable alone first, so a value out of range names its own variable.
            if let Err(error) = toml::Value::Table(one).try_into::<FileConfig>() {
                return Err(bad_variable(&variable, key, text, &in_plain_words(error.message().trim_end())));
            }
            insert_at(&mut sections, key.section, key.name, value);
            origins.insert(key.dotted(), Origin::Environment(variable));
        }
        let config = toml::Value::Table(sections).try_into().map_err(|error: toml::de::Error| {
            Error::Invalid(format!("the SWITCHYARD_ variables: {}", error.message()))
        })?;
        Ok(Self { config, origins, file: None })
    }

    /// A path as this layer wrote it: relative to its file, or as the variable says.
    pub(super) fn path(&self, path: PathBuf) -> PathBuf {
        match &self.file {
            Some(file) if path.is_relative() => file.parent().unwrap_or(Path::new(".")).join(path),
            _ => path,
        }
    }

    /// Where `section.name` is set in this layer, for messages: `file:line:column`, or the
    /// variable.
    pub(super) fn at(&self, dotted: &str) -> String {
        match self.origins.get(dotted) {
            Some(Origin::File { path, line, column }) => format!("{}:{line}:{column}", path.display()),
            _ => self.named(dotted),
        }
    }

    /// Who set `section.name` in this layer, for messages: the file, or the variable.
    pub(super) fn named(&self, dotted: &str) -> String {
        match (&self.file, self.origins.get(dotted)) {
            (Some(file), _) => file.display().to_string(),
            (None, Some(Origin::Environment(variable))) => variable.clone(),
            (None, _) => "the environment".to_owned(),
        }
    }
}

/// Sets `name` in the table of `section` (`runner.commands`: the `commands` table within
/// `runner`) of `root`, making the tables on the way.
fn insert_at(root: &mut toml::Table, section: &str, name: &str, value: toml::Value) {
    let mut table = root;
    for part in section.split('.') {
        let entry = table.entry(part.to_owned()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        let toml::Value::Table(inner) = entry else { return };
        table = inner;
    }
    table.insert(name.to_owned(), value);
}

/// `SWITCHYARD_STORE` is kept as an alias of `SWITCHYARD_STORE_PATH`; both set, they must agree.
fn store_alias<'a>(
    key: &keys::Key,
    variable: &str,
    environment: &'a Environment,
) -> Result<Option<(String, &'a str)>, Error> {
    let own = environment.get(variable).map(|text| (variable.to_owned(), text));
    if (key.section, key.name) != ("store", "path") {
        return Ok(own);
    }
    match (own, environment.get(STORE_VARIABLE)) {
        (Some((_, own_text)), Some(alias_text)) if own_text != alias_text => Err(Error::Invalid(format!(
            "{variable} and {STORE_VARIABLE} name different stores (`{own_text}` and `{alias_text}`): unset one of them"
        ))),
        (Some(own), _) => Ok(Some(own)),
        (None, Some(alias_text)) => Ok(Some((STORE_VARIABLE.to_owned(), alias_text))),
        (None, None) => Ok(None),
    }
}

fn env_value(kind: Kind, text: &str) -> Option<toml::Value> {
    let trimmed = text.trim();
    match kind {
        Kind::Text | Kind::Path | Kind::Secret => Some(toml::Value::String(text.to_owned())),
        Kind::Integer => trimmed.parse().ok().map(toml::Value::Integer),
        Kind::Float => trimmed.parse().ok().filter(|number: &f64| number.is_finite()).map(toml::Value::Float),
        Kind::Boolean => match trimmed.to_ascii_lowercase().as_str() {
            "true" => Some(toml::Value::Boolean(true)),
            "false" => Some(toml::Value::Boolean(false)),
            _ => None,
        },
        Kind::List => {
            Some(toml::Value::Array(text.split(',').map(|item| toml::Value::String(item.trim().to_owned())).collect()))
        }
        Kind::Tables => None,
    }
}

fn expected(kind: Kind) -> &'static str {
    match kind {
        Kind::Integer => "expected a whole number",
        Kind::Float => "expected a number such as 0.8",
        Kind::Boolean => "expected `true` or `false`",
        _ => "expected text",
    }
}

fn bad_variable(variable: &str, key: &keys::Key, text: &str, problem: &str) -> Error {
    let shown = if key.kind == Kind::Secret { "<redacted>" } else { text };
    Error::Invalid(format!(
        "the environment variable {variable} = `{shown}` is not a valid [{}] {}: {problem}; fix or unset it",
        key.section, key.name
    ))
}

/// Refuses a `[[validate.prompts]]` entry that gives no rule set (an unknown preset, a glob or a
/// pattern that does not compile, an enum without values), located at the key that is wrong, so
/// every command stops on it, not only `validate`.
fn check_prompt_rules(path: &Path, config: &FileConfig, entries: &Positions) -> Result<(), Error> {
    for (index, entry) in config.validate.prompts.iter().flatten().enumerate() {
        let Err(problem) = crate::prompt_rules::RuleSet::configured(entry) else { continue };
        let (dotted, label) = match problem.field {
            Some(field) => (format!("validate.prompts.{index}.fields.{field}"), "[[validate.prompts.fields]]"),
            None => (format!("validate.prompts.{index}"), "[[validate.prompts]]"),
        };
        let at = entries.get(&format!("{dotted}.{}", problem.key)).or_else(|| entries.get(&dotted)).copied();
        return Err(keys::located(
            path,
            at.unwrap_or((1, 1)),
            &format!("{label} {}: {}", problem.key, problem.message),
        ));
    }
    Ok(())
}

/// A value error of serde's (`invalid value: integer `70000`, expected u16`) in switchyard's
/// words: what the value is, and what the key takes. The types are checked before serde sees
/// them ([`keys::check_keys`]), so what is left is mostly a number out of range.
fn in_plain_words(message: &str) -> String {
    let Some((problem, expected)) = message.split_once(", expected ") else { return message.to_owned() };
    let takes = match expected {
        "u8" => "a whole number from 0 to 255",
        "u16" => "a whole number from 0 to 65535",
        "u32" => "a whole number from 0 to 4294967295",
        "u64" | "usize" => "a whole number from 0 up",
        "i64" => "a whole number",
        "f64" | "f32" => "a number such as 0.8",
        "a boolean" => "`true` or `false`",
        "a string" => "text in quotes",
        other => other,
    };
    let is = match problem.split_once(": ") {
        Some(("invalid value", value)) => format!("{} is out of range", value.replace("integer ", "")),
        Some(("invalid type", value)) => format!("the value is {value}"),
        _ => problem.to_owned(),
    };
    format!("{is}: it takes {takes}")
}

/// `[section] key: ` for the key written on `line`, to name it in a type error.
fn key_on_line(positions: &Positions, line: usize) -> String {
    positions
        .iter()
        .find(|(_, (key_line, _))| *key_line == line)
        .and_then(|(dotted, _)| dotted.rsplit_once('.'))
        .map_or_else(String::new, |(section, name)| format!("[{section}] {name}: "))
}

/// One layer's sections, every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileConfig {
    #[serde(default)]
    pub(super) store: StoreSection,
    #[serde(default)]
    pub(super) runs: RunsSection,
    #[serde(default)]
    pub(super) files: FilesSection,
    #[serde(default)]
    pub(super) serve: ServeSection,
    #[serde(default)]
    pub(super) audit: AuditSection,
    #[serde(default)]
    pub(super) execution: ExecutionSection,
    #[serde(default)]
    pub(super) project: ProjectSection,
    #[serde(default)]
    pub(super) evidence: EvidenceSection,
    #[serde(default)]
    pub(super) runner: RunnerSection,
    #[serde(default)]
    pub(super) models: BTreeMap<String, ModelConfig>,
    #[serde(default)]
    pub(super) validate: ValidateSection,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AuditSection {
    pub(super) audit_min_confidence: Option<f64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EvidenceSection {
    pub(super) commands: Option<bool>,
    pub(super) trusted_workspaces: Option<Vec<PathBuf>>,
    pub(super) max_timeout_seconds: Option<u64>,
    pub(super) max_output_bytes: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProjectSection {
    pub(super) test_command: Option<switchyard_core::evidence::CommandLine>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ExecutionSection {
    pub(super) max_revision_attempts: Option<u32>,
    pub(super) max_replan_attempts: Option<u32>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ValidateSection {
    pub(super) prompts: Option<Vec<PromptRules>>,
    pub(super) mirrors: Option<Vec<MirrorPair>>,
    pub(super) keep_presets: Option<bool>,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServeSection {
    pub(super) host: Option<IpAddr>,
    pub(super) port: Option<u16>,
    pub(super) token_file: Option<PathBuf>,
    pub(super) token: Option<String>,
    pub(super) allowed_hosts: Option<Vec<String>>,
    pub(super) allowed_origins: Option<Vec<String>>,
    pub(super) max_connections: Option<usize>,
    pub(super) max_pending_connections: Option<usize>,
    pub(super) header_timeout_seconds: Option<u64>,
    pub(super) body_timeout_seconds: Option<u64>,
    pub(super) max_sessions: Option<usize>,
    pub(super) session_idle_seconds: Option<u64>,
}

impl fmt::Debug for ServeSection {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("ServeSection")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("token_file", &self.token_file)
            .field("token", &self.token.as_ref().map(|_| "<redacted>"))
            .finish_non_exhaustive()
    }
}

impl ServeSection {
    pub(super) fn limits(&self) -> ServeLimits {
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
pub(super) struct RunsSection {
    pub(super) output_root: Option<PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FilesSection {
    pub(super) project_writable: Option<bool>,
    pub(super) core_root: Option<PathBuf>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct StoreSection {
    pub(super) path: Option<PathBuf>,
    pub(super) url: Option<String>,
}
