//! `[runner]` and `[models.<name>]`: what the agent runner (`switchyard run`) drives a model with,
//! and the resolution of a named model or the command line's flags into where requests go, the
//! model id, the variable holding the key, the parameters and the price.
//!
//! The configuration never holds an API key, only the name of the environment variable holding
//! it (`api_key_env`): a key written in a file is refused ([`super::keys`]), and a value of
//! `api_key_env` that is not a variable name is refused without being shown, since it may be the
//! key itself. Resolution checks that the variable is set, naming it, and never reads its value
//! into anything it returns.

use std::path::PathBuf;
use std::time::Duration;

use serde::Deserialize;

use super::Config;
use crate::error::Error;

/// `[runner]`: defaults of `switchyard run`; its flags win over them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerConfig {
    /// `model`: the model a run uses when `--model` does not say: a name of `[models.<name>]`, or
    /// else the model id itself, sent to `base_url`.
    pub model: Option<String>,
    /// `base_url`: the server for models whose table names none (up to `/v1`).
    pub base_url: Option<String>,
    /// `api_key_env`: the variable holding the key, for models whose table names none.
    pub api_key_env: Option<String>,
    /// `max_turns`: model requests per drive of a run (one `switchyard run`) before it pauses.
    pub max_turns: u32,
    /// `max_tokens`: tokens (prompt and completion, as the server counts them) per drive of a run
    /// before it pauses.
    pub max_tokens: u64,
    /// `max_time_seconds`: working time per drive of a run (waiting for people excluded) before
    /// it pauses.
    pub max_time_seconds: u64,
    /// `step_max_turns`: model requests one step may take before the run pauses; none by default.
    pub step_max_turns: Option<u32>,
    /// `step_max_tokens`: tokens one step may use before the run pauses; none by default.
    pub step_max_tokens: Option<u64>,
    /// `step_max_time_seconds`: working time one step may take before the run pauses; none by
    /// default.
    pub step_max_time_seconds: Option<u64>,
    /// `request_timeout_seconds`: how long one model request may take.
    pub request_timeout_seconds: u64,
    /// `max_retries`: retries of a request that failed in a way a retry may mend (429, 5xx,
    /// timeouts); 0 never retries.
    pub max_retries: u32,
    /// `stuck_repeats`: the same tool call with the same arguments this many times in a row
    /// pauses the run.
    pub stuck_repeats: u32,
    /// `stuck_turns`: this many turns without a file change, a checkpoint or a completed step
    /// pauses the run.
    pub stuck_turns: u32,
    /// `max_tool_errors`: tool errors in a row (malformed arguments, an unknown tool, text instead
    /// of a tool call) before the run pauses.
    pub max_tool_errors: u32,
    /// `auto_approve`: whether the runner approves human gates itself (and records that it did).
    pub auto_approve: bool,
    /// `[runner.commands]`: the project's commands the model may run.
    pub commands: CommandsConfig,
}

/// `[runner.commands]`: the commands the model may run with its `run_command` tool. Empty
/// `allow` (the default) offers no such tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandsConfig {
    /// `allow`: argv prefixes, each written as its words separated by spaces (`"cargo test"`,
    /// `"python3 -m unittest"`); a command runs only when its first words are one of them.
    pub allow: Vec<Vec<String>>,
    /// `timeout_seconds`: how long one command may run before its process group is killed.
    pub timeout_seconds: u64,
    /// `max_output_bytes`: the tail of each of stdout and stderr the model reads.
    pub max_output_bytes: usize,
    /// `network`: whether commands may open TCP connections.
    pub network: bool,
    /// `writable`: places beside the workspace commands may write (a toolchain's cache).
    pub writable: Vec<PathBuf>,
    /// `env`: names of environment variables passed to commands beside the base set (never a
    /// key's, a token's or switchyard's own).
    pub env: Vec<String>,
}

impl Default for CommandsConfig {
    fn default() -> Self {
        Self {
            allow: Vec::new(),
            timeout_seconds: 600,
            max_output_bytes: 32 * 1024,
            network: false,
            writable: Vec::new(),
            env: Vec::new(),
        }
    }
}

impl CommandsConfig {
    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_seconds)
    }
}

impl Default for RunnerConfig {
    fn default() -> Self {
        Self {
            model: None,
            base_url: None,
            api_key_env: None,
            max_turns: 200,
            max_tokens: 2_000_000,
            max_time_seconds: 4 * 3600,
            step_max_turns: None,
            step_max_tokens: None,
            step_max_time_seconds: None,
            request_timeout_seconds: 300,
            max_retries: 6,
            stuck_repeats: 3,
            stuck_turns: 12,
            max_tool_errors: 5,
            auto_approve: false,
            commands: CommandsConfig::default(),
        }
    }
}

impl RunnerConfig {
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.request_timeout_seconds)
    }

    pub fn max_time(&self) -> Duration {
        Duration::from_secs(self.max_time_seconds)
    }

    pub fn step_max_time(&self) -> Option<Duration> {
        self.step_max_time_seconds.map(Duration::from_secs)
    }
}

/// `[models.<name>]`: one named model. Every key is optional; [`Config::named_model`] fills the
/// gaps from `[runner]` and defaults.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// `base_url`: the server (up to `/v1`); else `[runner] base_url`.
    pub base_url: Option<String>,
    /// `model`: the id sent to the server; else the table's name.
    pub model: Option<String>,
    /// `api_key_env`: the NAME of the environment variable holding the key; else
    /// `[runner] api_key_env`; none sends no key (local servers).
    pub api_key_env: Option<String>,
    /// `temperature`, 0.0 to 2.0; else the server's default.
    pub temperature: Option<f64>,
    /// `max_tokens`: the most tokens one answer may have; else the server's default.
    pub max_tokens: Option<u32>,
    /// `context_window`: the tokens the model can read, to which the runner trims a conversation.
    pub context_window: Option<u64>,
    /// `input_price_per_mtok`: US dollars per million prompt tokens, for cost estimates.
    pub input_price_per_mtok: Option<f64>,
    /// `output_price_per_mtok`: US dollars per million completion tokens.
    pub output_price_per_mtok: Option<f64>,
    /// `stream`: ask for the answer as server-sent events (servers and gateways that only
    /// stream); else one JSON answer.
    pub stream: Option<bool>,
    /// `send_reasoning`: whether the reasoning a server sent beside an answer goes back with the
    /// conversation; else `auto`.
    pub send_reasoning: Option<SendReasoning>,
}

/// What happens to a reasoning model's reasoning (`reasoning_content`) in later requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SendReasoning {
    /// Sent back as the server sent it (DeepSeek's thinking mode refuses a tool-call history
    /// without it), until a server refuses the field: then never again to that model.
    #[default]
    Auto,
    /// Always sent back.
    Always,
    /// Never sent back (a server that refuses the field on the first try).
    Never,
}

impl SendReasoning {
    /// The value as `switchyard.toml` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Always => "always",
            Self::Never => "never",
        }
    }
}

impl ModelConfig {
    /// Each key from `self`, else from `fallback` (a farther layer).
    pub(super) fn or(self, fallback: &Self) -> Self {
        Self {
            base_url: self.base_url.or_else(|| fallback.base_url.clone()),
            model: self.model.or_else(|| fallback.model.clone()),
            api_key_env: self.api_key_env.or_else(|| fallback.api_key_env.clone()),
            temperature: self.temperature.or(fallback.temperature),
            max_tokens: self.max_tokens.or(fallback.max_tokens),
            context_window: self.context_window.or(fallback.context_window),
            input_price_per_mtok: self.input_price_per_mtok.or(fallback.input_price_per_mtok),
            output_price_per_mtok: self.output_price_per_mtok.or(fallback.output_price_per_mtok),
            stream: self.stream.or(fallback.stream),
            send_reasoning: self.send_reasoning.or(fallback.send_reasoning),
        }
    }
}

/// One layer's `[runner]`, every key optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RunnerSection {
    pub(super) model: Option<String>,
    pub(super) base_url: Option<String>,
    pub(super) api_key_env: Option<String>,
    pub(super) max_turns: Option<u32>,
    pub(super) max_tokens: Option<u64>,
    pub(super) max_time_seconds: Option<u64>,
    pub(super) step_max_turns: Option<u32>,
    pub(super) step_max_tokens: Option<u64>,
    pub(super) step_max_time_seconds: Option<u64>,
    pub(super) request_timeout_seconds: Option<u64>,
    pub(super) max_retries: Option<u32>,
    pub(super) stuck_repeats: Option<u32>,
    pub(super) stuck_turns: Option<u32>,
    pub(super) max_tool_errors: Option<u32>,
    pub(super) auto_approve: Option<bool>,
    #[serde(default)]
    pub(super) commands: CommandsSection,
}

/// `[runner.commands]` as one layer writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CommandsSection {
    pub(super) allow: Option<Vec<String>>,
    pub(super) timeout_seconds: Option<u64>,
    pub(super) max_output_bytes: Option<usize>,
    pub(super) network: Option<bool>,
    pub(super) writable: Option<Vec<PathBuf>>,
    pub(super) env: Option<Vec<String>>,
}

impl RunnerSection {
    /// Each key from `self`, else from `fallback` (a farther layer, or the defaults).
    pub(super) fn over(&self, fallback: RunnerConfig) -> RunnerConfig {
        RunnerConfig {
            model: self.model.clone().or(fallback.model),
            base_url: self.base_url.clone().or(fallback.base_url),
            api_key_env: self.api_key_env.clone().or(fallback.api_key_env),
            max_turns: self.max_turns.unwrap_or(fallback.max_turns),
            max_tokens: self.max_tokens.unwrap_or(fallback.max_tokens),
            max_time_seconds: self.max_time_seconds.unwrap_or(fallback.max_time_seconds),
            step_max_turns: self.step_max_turns.or(fallback.step_max_turns),
            step_max_tokens: self.step_max_tokens.or(fallback.step_max_tokens),
            step_max_time_seconds: self.step_max_time_seconds.or(fallback.step_max_time_seconds),
            request_timeout_seconds: self.request_timeout_seconds.unwrap_or(fallback.request_timeout_seconds),
            max_retries: self.max_retries.unwrap_or(fallback.max_retries),
            stuck_repeats: self.stuck_repeats.unwrap_or(fallback.stuck_repeats),
            stuck_turns: self.stuck_turns.unwrap_or(fallback.stuck_turns),
            max_tool_errors: self.max_tool_errors.unwrap_or(fallback.max_tool_errors),
            auto_approve: self.auto_approve.unwrap_or(fallback.auto_approve),
            commands: CommandsConfig {
                allow: self.commands.allow.as_ref().map_or(fallback.commands.allow, |allow| {
                    allow.iter().map(|prefix| prefix.split_whitespace().map(str::to_owned).collect()).collect()
                }),
                timeout_seconds: self.commands.timeout_seconds.unwrap_or(fallback.commands.timeout_seconds),
                max_output_bytes: self.commands.max_output_bytes.unwrap_or(fallback.commands.max_output_bytes),
                network: self.commands.network.unwrap_or(fallback.commands.network),
                writable: self.commands.writable.clone().unwrap_or(fallback.commands.writable),
                env: self.commands.env.clone().unwrap_or(fallback.commands.env),
            },
        }
    }

    /// Refuses what no run could use; `at` says where a key is written (`file:line:column`, or
    /// the variable).
    pub(super) fn check(&self, at: impl Fn(&str) -> String) -> Result<(), Error> {
        let positive = [
            ("max_turns", self.max_turns.map(u64::from)),
            ("max_tokens", self.max_tokens),
            ("max_time_seconds", self.max_time_seconds),
            ("step_max_turns", self.step_max_turns.map(u64::from)),
            ("step_max_tokens", self.step_max_tokens),
            ("step_max_time_seconds", self.step_max_time_seconds),
            ("request_timeout_seconds", self.request_timeout_seconds),
            ("stuck_turns", self.stuck_turns.map(u64::from)),
            ("max_tool_errors", self.max_tool_errors.map(u64::from)),
        ];
        if let Some((name, _)) = positive.iter().find(|(_, value)| *value == Some(0)) {
            return Err(Error::invalid(format!(
                "{}: [runner] {name} = 0 would stop every run before it starts: set a positive number, or remove the line for the default",
                at(&format!("runner.{name}"))
            )));
        }
        if let Some(repeats @ 0..=1) = self.stuck_repeats {
            return Err(Error::invalid(format!(
                "{}: [runner] stuck_repeats = {repeats} would call any tool call a repeat: set 2 or more, or remove the line for the default 3",
                at("runner.stuck_repeats")
            )));
        }
        let commands = &self.commands;
        for (name, value) in [
            ("timeout_seconds", commands.timeout_seconds),
            ("max_output_bytes", commands.max_output_bytes.map(|bytes| bytes as u64)),
        ] {
            if value == Some(0) {
                return Err(Error::invalid(format!(
                    "{}: [runner.commands] {name} = 0 leaves a command nothing: set a positive number, or remove the line for the default",
                    at(&format!("runner.commands.{name}"))
                )));
            }
        }
        if commands.allow.iter().flatten().any(|prefix| prefix.trim().is_empty()) {
            return Err(Error::invalid(format!(
                "{}: [runner.commands] allow holds an empty command, which would allow every command: write each as its words, such as \"cargo test\"",
                at("runner.commands.allow")
            )));
        }
        check_text(self.model.as_deref(), "[runner] model", || at("runner.model"))?;
        check_base_url(self.base_url.as_deref(), "[runner] base_url", || at("runner.base_url"))?;
        check_key_variable(self.api_key_env.as_deref(), "[runner] api_key_env", || at("runner.api_key_env"))
    }
}

/// Refuses what no request could use in `[models.<name>]`; `at` says where a key is written.
pub(super) fn check_model(name: &str, model: &ModelConfig, at: impl Fn(&str) -> String) -> Result<(), Error> {
    let key = |key: &str| format!("[models.{name}] {key}");
    let at_key = |key: &str| at(&format!("models.{name}.{key}"));
    check_text(model.model.as_deref(), &key("model"), || at_key("model"))?;
    check_base_url(model.base_url.as_deref(), &key("base_url"), || at_key("base_url"))?;
    check_key_variable(model.api_key_env.as_deref(), &key("api_key_env"), || at_key("api_key_env"))?;
    if let Some(temperature) = model.temperature
        && !(0.0..=2.0).contains(&temperature)
    {
        return Err(Error::invalid(format!(
            "{}: {} = {temperature} is out of range: a temperature is between 0.0 and 2.0",
            at_key("temperature"),
            key("temperature")
        )));
    }
    for (field, value) in [("max_tokens", model.max_tokens.map(u64::from)), ("context_window", model.context_window)] {
        if value == Some(0) {
            return Err(Error::invalid(format!(
                "{}: {} = 0 leaves no room for an answer: set a positive number of tokens, or remove the line",
                at_key(field),
                key(field)
            )));
        }
    }
    for (field, value) in
        [("input_price_per_mtok", model.input_price_per_mtok), ("output_price_per_mtok", model.output_price_per_mtok)]
    {
        if let Some(price) = value
            && !(price.is_finite() && price >= 0.0)
        {
            return Err(Error::invalid(format!(
                "{}: {} = {price} is not a price: write US dollars per million tokens, 0 or more (such as 2.5)",
                at_key(field),
                key(field)
            )));
        }
    }
    Ok(())
}

fn check_text(value: Option<&str>, key: &str, at: impl Fn() -> String) -> Result<(), Error> {
    match value {
        Some(text) if text.trim().is_empty() => {
            Err(Error::invalid(format!("{}: {key} is empty: name a model, or remove the line", at())))
        }
        _ => Ok(()),
    }
}

fn check_base_url(value: Option<&str>, key: &str, at: impl Fn() -> String) -> Result<(), Error> {
    let Some(url) = value else { return Ok(()) };
    let authority = url.strip_prefix("http://").or_else(|| url.strip_prefix("https://"));
    let Some(authority) = authority.map(|rest| rest.split('/').next().unwrap_or_default()) else {
        return Err(Error::invalid(format!(
            "{}: {key} = `{url}` is not an http:// or https:// URL: write the server's address up to `/v1`, such as `http://localhost:11434/v1`",
            at()
        )));
    };
    if authority.contains('@') {
        // The URL holds credentials: not shown, and not accepted.
        return Err(Error::invalid(format!(
            "{}: {key} holds credentials (`user:password@`): remove them from the URL and put the key in an environment variable named by `api_key_env`",
            at()
        )));
    }
    if authority.is_empty() || url.contains(char::is_whitespace) {
        return Err(Error::invalid(format!(
            "{}: {key} = `{url}` names no host: write the server's address up to `/v1`, such as `http://localhost:11434/v1`",
            at()
        )));
    }
    Ok(())
}

/// Whether `name` can be an environment variable's name.
fn is_variable_name(name: &str) -> bool {
    name.starts_with(|character: char| character.is_ascii_alphabetic() || character == '_')
        && name.chars().all(|character| character.is_ascii_alphanumeric() || character == '_')
}

fn check_key_variable(value: Option<&str>, key: &str, at: impl Fn() -> String) -> Result<(), Error> {
    match value {
        // The value is not shown: what was written may be the key itself.
        Some(name) if !is_variable_name(name) => Err(Error::invalid(format!(
            "{}: {key} names the environment variable that holds the key (letters, digits and `_`, such as OPENAI_API_KEY), and what is written there is not a variable name; if it is the key itself, remove it from the file (and revoke it if the file was shared), put it in a variable and name the variable here",
            at()
        ))),
        _ => Ok(()),
    }
}

/// What the command line says about the model of a run; each flag wins over the configuration.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ModelFlags {
    /// `--model`: a name of `[models.<name>]`, or else a model id sent to the base URL.
    pub model: Option<String>,
    /// `--base-url`.
    pub base_url: Option<String>,
    /// `--api-key-env`: the name of the variable holding the key.
    pub api_key_env: Option<String>,
}

/// A model's price in US dollars per million tokens; a price not configured counts as 0.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrice {
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

/// Everything needed to talk to one model, with no secret in it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedModel {
    /// The name of its `[models.<name>]` table; `None` for a model id given directly.
    pub name: Option<String>,
    /// Where requests go, up to `/v1`.
    pub base_url: String,
    /// The model id sent to the server.
    pub model: String,
    /// The NAME of the environment variable holding the key; `None` sends no key.
    pub api_key_env: Option<String>,
    pub temperature: Option<f64>,
    /// The most tokens one answer may have (the request's `max_tokens`).
    pub max_tokens: Option<u32>,
    /// The tokens the model can read.
    pub context_window: Option<u64>,
    /// `None` when neither price is configured: no cost estimate.
    pub price: Option<ModelPrice>,
    /// Ask for streamed answers.
    pub stream: bool,
    pub send_reasoning: SendReasoning,
}

impl ResolvedModel {
    /// How messages name it: `local (llama3.1)`, or the model id alone.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) if *name != self.model => format!("{name} ({})", self.model),
            _ => self.model.clone(),
        }
    }

    /// Checks that the key's variable, if the model has one, is set and not empty; `is_set` says
    /// whether a variable is ([`ResolvedModel::check_key_in_environment`] asks the process).
    pub fn check_key(&self, is_set: impl Fn(&str) -> bool) -> Result<(), Error> {
        match &self.api_key_env {
            Some(variable) if !is_set(variable) => {
                Err(Error::MissingApiKey { model: self.label(), variable: variable.clone() })
            }
            _ => Ok(()),
        }
    }

    /// [`ResolvedModel::check_key`] against the process's environment.
    pub fn check_key_in_environment(&self) -> Result<(), Error> {
        self.check_key(|variable| {
            std::env::var_os(variable).is_some_and(|value| !value.to_string_lossy().trim().is_empty())
        })
    }
}

impl Config {
    /// The names of the configured models, sorted.
    pub fn model_names(&self) -> Vec<&str> {
        self.models.keys().map(String::as_str).collect()
    }

    /// The model a run talks to by default: `--model`, else `[runner] model`, which is a name of
    /// `[models.<name>]` or else a model id sent to the base URL. The flags win over the model's
    /// table, which wins over `[runner]`. Does not check the key's variable
    /// ([`ResolvedModel::check_key`]).
    pub fn run_model(&self, flags: &ModelFlags) -> Result<ResolvedModel, Error> {
        let chosen = flags.model.as_deref().or(self.runner.model.as_deref()).ok_or_else(|| {
            Error::NoModel(match self.model_names().as_slice() {
                [] => "no model to run with: pass --model <id> with --base-url <server up to /v1>, or configure one in switchyard.toml ([models.<name>] and [runner] model)".to_owned(),
                names => format!(
                    "no model to run with: pass --model with one of the configured models ({}), or set [runner] model",
                    names.join(", ")
                ),
            })
        })?;
        let base_url_flag = flags.base_url.as_deref().or(self.runner.base_url.as_deref());
        let (name, table) = match self.models.get(chosen) {
            Some(table) => (Some(chosen), table.clone()),
            // Not a configured name: a model id, when there is a server to send it to.
            None if base_url_flag.is_some() => (None, ModelConfig::default()),
            None => return Err(self.unknown_model(chosen, true)),
        };
        let overridden = ModelConfig {
            base_url: flags.base_url.clone(),
            api_key_env: flags.api_key_env.clone(),
            ..ModelConfig::default()
        };
        self.complete_model(name, chosen, overridden.or(&table))
    }

    /// The model a step names (a step's `model`): a name of `[models.<name>]`, nothing else, so a
    /// run checks every step's model when it starts. The table wins over the flags, which stand
    /// in for `[runner]`'s `base_url` and `api_key_env`.
    pub fn named_model(&self, name: &str, flags: &ModelFlags) -> Result<ResolvedModel, Error> {
        let table = self.models.get(name).ok_or_else(|| self.unknown_model(name, false))?;
        let fallback = ModelConfig {
            base_url: flags.base_url.clone().or_else(|| self.runner.base_url.clone()),
            api_key_env: flags.api_key_env.clone().or_else(|| self.runner.api_key_env.clone()),
            ..ModelConfig::default()
        };
        self.complete_model(Some(name), name, table.clone().or(&fallback))
    }

    fn complete_model(&self, name: Option<&str>, chosen: &str, table: ModelConfig) -> Result<ResolvedModel, Error> {
        let table = table.or(&ModelConfig {
            base_url: self.runner.base_url.clone(),
            api_key_env: self.runner.api_key_env.clone(),
            ..ModelConfig::default()
        });
        let base_url = table.base_url.ok_or_else(|| {
            Error::Invalid(match name {
                Some(name) => format!(
                    "the model `{name}` has no server: set base_url in [models.{name}] (or [runner] base_url), or pass --base-url"
                ),
                None => format!("the model `{chosen}` has no server: pass --base-url, or set [runner] base_url"),
            })
        })?;
        // Flags are checked like the files (whose values were checked when read): a bad one would
        // otherwise fail only at the first request.
        check_base_url(Some(&base_url), "the base URL", || "--base-url".to_owned())?;
        check_key_variable(table.api_key_env.as_deref(), "the API key variable", || "--api-key-env".to_owned())?;
        let price =
            (table.input_price_per_mtok.is_some() || table.output_price_per_mtok.is_some()).then(|| ModelPrice {
                input_per_mtok: table.input_price_per_mtok.unwrap_or(0.0),
                output_per_mtok: table.output_price_per_mtok.unwrap_or(0.0),
            });
        Ok(ResolvedModel {
            name: name.map(str::to_owned),
            base_url,
            model: table.model.unwrap_or_else(|| chosen.to_owned()),
            api_key_env: table.api_key_env,
            temperature: table.temperature,
            max_tokens: table.max_tokens,
            context_window: table.context_window,
            price,
            stream: table.stream.unwrap_or(false),
            send_reasoning: table.send_reasoning.unwrap_or_default(),
        })
    }

    fn unknown_model(&self, name: &str, id_allowed: bool) -> Error {
        Error::UnknownModel {
            name: name.to_owned(),
            configured: self.model_names().into_iter().map(str::to_owned).collect(),
            id_allowed,
        }
    }
}
