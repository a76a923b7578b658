//! The effective value of every key with where it came from: what `switchyard config` prints.

use std::path::Path;

use serde_json::{Value, json};

use super::keys::{self, KEYS};
use super::{Config, Origin, ServeTokenSource};

/// What a secret's value shows.
pub const REDACTED: &str = "<redacted>";

/// One key's effective value.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// `home`, or `section.name`.
    pub key: String,
    /// The value as JSON; `null` when nobody set it and the command using it has its own
    /// default (`serve`'s port, say); [`REDACTED`] for a secret.
    pub value: Value,
    pub origin: Origin,
    /// The environment variable that sets it.
    pub variable: Option<String>,
}

impl Config {
    /// `home`, then every key of [`KEYS`] in order.
    pub fn settings(&self) -> Vec<Setting> {
        let home = Setting {
            key: "home".to_owned(),
            value: path(&self.home),
            origin: self.origin("home"),
            variable: Some(keys::HOME_VARIABLE.to_owned()),
        };
        let keys = KEYS.iter().map(|key| {
            let dotted = key.dotted();
            Setting {
                value: self.value_of(&dotted),
                origin: self.origin(&dotted),
                variable: key.variable(),
                key: dotted,
            }
        });
        std::iter::once(home).chain(keys).collect()
    }

    fn value_of(&self, dotted: &str) -> Value {
        let serve = &self.serve;
        let limits = &serve.limits;
        match dotted {
            "store.path" => path(&self.store_path),
            "store.url" => json!(self.store_url.as_ref().map(|url| crate::store::describe_url(url.expose()))),
            "runs.output_root" => path(&self.output_root),
            "files.project_writable" => json!(self.project_writable),
            "files.core_root" => path(&self.core_root),
            "serve.host" => json!(serve.host.map(|host| host.to_string())),
            "serve.port" => json!(serve.port),
            "serve.token_file" => match &serve.token {
                Some(ServeTokenSource::File(file)) => path(file),
                _ => Value::Null,
            },
            "serve.token" => match &serve.token {
                Some(ServeTokenSource::Inline { .. } | ServeTokenSource::Environment { .. }) => json!(REDACTED),
                _ => Value::Null,
            },
            "serve.allowed_hosts" => json!(serve.allowed_hosts),
            "serve.allowed_origins" => json!(serve.allowed_origins),
            "serve.max_connections" => json!(limits.max_connections),
            "serve.max_pending_connections" => json!(limits.max_pending_connections),
            "serve.header_timeout_seconds" => json!(limits.header_timeout_seconds),
            "serve.body_timeout_seconds" => json!(limits.body_timeout_seconds),
            "serve.max_sessions" => json!(limits.max_sessions),
            "serve.session_idle_seconds" => json!(limits.session_idle_seconds),
            "audit.audit_min_confidence" => json!(self.audit.min_confidence),
            "execution.max_revision_attempts" => json!(self.execution.max_revision_attempts),
            "execution.max_replan_attempts" => json!(self.execution.max_replan_attempts),
            "validate.prompts" => json!(self.validate.prompts),
            "validate.mirrors" => json!(self.validate.mirrors),
            _ => Value::Null,
        }
    }
}

fn path(path: &Path) -> Value {
    Value::String(path.display().to_string())
}
