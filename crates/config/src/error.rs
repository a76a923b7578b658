//! The configuration's error: what is wrong, where it was written, and how to fix it, each kind
//! with the stable code a door shows.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A `switchyard.toml`, a `SWITCHYARD_*` variable or a flag says something switchyard cannot
    /// use; the message names where it was written and how to fix it. Doors add which command it
    /// stopped.
    #[error("{0}")]
    Invalid(String),
    /// Nothing names a model to run with (no `--model`, no `[runner] model`).
    #[error("{0}")]
    NoModel(String),
    /// A model name that no `[models.<name>]` table defines (a step's `model`, `--model`,
    /// `[runner] model`).
    #[error(
        "no model named `{name}` in the configuration; {}{}",
        match configured.as_slice() {
            [] => "no model is configured: add a [models.<name>] table to switchyard.toml (docs/configuration.md)".to_owned(),
            names => format!("the configured models are {} (`switchyard config` shows them)", names.join(", ")),
        },
        if *id_allowed { format!("; or pass --base-url to send `{name}` to a server as a model id") } else { String::new() }
    )]
    UnknownModel { name: String, configured: Vec<String>, id_allowed: bool },
    /// The environment variable a model's key is read from is not set. Names the variable, never
    /// a value.
    #[error(
        "the model {model} reads its API key from the environment variable {variable}, which is not set (or empty): export {variable}=<your key> in the shell that runs switchyard, or name another variable with `api_key_env` (or --api-key-env)"
    )]
    MissingApiKey { model: String, variable: String },
    /// The serve token's file, or the `switchyard.toml` holding it inline (`inline`), can be read
    /// or changed by other users: `serve` refuses to start with it.
    #[error("{}", exposed_message(path, *mode, *inline))]
    ServeTokenExposed { path: PathBuf, mode: u32, inline: bool },
    /// The serve token's file cannot be read.
    #[error("cannot read the serve token file {}: {source}", path.display())]
    ServeTokenUnreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The serve token's file holds no token.
    #[error(
        "the serve token file {} is empty: write a long random secret into it (`openssl rand -hex 32 > {}`)",
        path.display(),
        path.display()
    )]
    ServeTokenEmpty { path: PathBuf },
}

fn exposed_message(path: &std::path::Path, mode: u32, inline: bool) -> String {
    let path = path.display();
    if inline {
        format!(
            "{path} holds [serve] token but is open to other users (mode {mode:o}): run `chmod 600 {path}`, or move the secret to a file only you can read and name it with [serve] token_file"
        )
    } else {
        format!("the serve token file {path} is open to other users (mode {mode:o}); run `chmod 600 {path}`")
    }
}

impl Error {
    pub(crate) fn invalid(message: impl Into<String>) -> Self {
        Self::Invalid(message.into())
    }

    /// Stable code a program or agent can react to.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid(_) => "CONFIG_INVALID",
            Self::NoModel(_) => "INVALID_INPUT",
            Self::UnknownModel { .. } => "MODEL_UNKNOWN",
            Self::MissingApiKey { .. } => "API_KEY_MISSING",
            Self::ServeTokenExposed { .. } | Self::ServeTokenUnreadable { .. } | Self::ServeTokenEmpty { .. } => {
                "ENVIRONMENT"
            }
        }
    }
}
