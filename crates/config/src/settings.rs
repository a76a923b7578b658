//! The effective value of every key with where it came from: what `switchyard config` prints.

use std::path::Path;

use serde_json::{Value, json};
use switchyard_core::evidence::ProjectCommand;

use super::keys::{self, KEYS};
use super::{Config, Origin, SendReasoning, ServeTokenSource};

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
    /// `home`, then every key of [`KEYS`] in order; a family of named tables (`models.<name>`)
    /// with every key of each table configured (`models.local.base_url`, ...), table by table.
    /// `describe_store_url` shows a store URL without its password: the configuration does not
    /// read Postgres URLs, the runtime does (`switchyard_runtime::store::describe_url`).
    pub fn settings(&self, describe_store_url: &dyn Fn(&str) -> String) -> Vec<Setting> {
        let home = Setting {
            key: "home".to_owned(),
            value: path(&self.home),
            origin: self.origin("home"),
            variable: Some(keys::HOME_VARIABLE.to_owned()),
        };
        let mut dotted_keys = Vec::new();
        for (index, key) in KEYS.iter().enumerate() {
            match key.family() {
                None => dotted_keys.push((key.dotted(), key.variable())),
                // At the family's first key, all of its keys for each table.
                Some(family) if index == 0 || KEYS[index - 1].section != key.section => {
                    for name in self.models.keys() {
                        let family_keys = KEYS.iter().filter(|other| other.section == key.section);
                        dotted_keys.extend(family_keys.map(|other| (format!("{family}.{name}.{}", other.name), None)));
                    }
                }
                Some(_) => {}
            }
        }
        let keys = dotted_keys.into_iter().map(|(dotted, variable)| Setting {
            value: self.value_of(&dotted, describe_store_url),
            origin: self.origin(&dotted),
            variable,
            key: dotted,
        });
        std::iter::once(home).chain(keys).collect()
    }

    fn value_of(&self, dotted: &str, describe_store_url: &dyn Fn(&str) -> String) -> Value {
        let serve = &self.serve;
        let limits = &serve.limits;
        match dotted {
            "store.path" => path(&self.store_path),
            "store.url" => json!(self.store_url.as_ref().map(|url| describe_store_url(url.expose()))),
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
            "evidence.commands" => json!(self.evidence.commands),
            "evidence.trusted_workspaces" => {
                json!(
                    self.evidence
                        .trusted_workspaces
                        .iter()
                        .map(|place| place.display().to_string())
                        .collect::<Vec<_>>()
                )
            }
            "evidence.max_timeout_seconds" => json!(self.evidence.max_timeout_seconds),
            "evidence.max_output_bytes" => json!(self.evidence.max_output_bytes),
            "project.test_command" => json!(self.project.get(&ProjectCommand::TestCommand)),
            "execution.max_revision_attempts" => json!(self.execution.max_revision_attempts),
            "execution.max_replan_attempts" => json!(self.execution.max_replan_attempts),
            "validate.prompts" => json!(self.validate.prompts),
            "validate.keep_presets" => json!(self.validate.keep_presets),
            "validate.mirrors" => json!(self.validate.mirrors),
            "runner.model" => json!(self.runner.model),
            "runner.commands.allow" => {
                json!(self.runner.commands.allow.iter().map(|prefix| prefix.join(" ")).collect::<Vec<_>>())
            }
            "runner.commands.timeout_seconds" => json!(self.runner.commands.timeout_seconds),
            "runner.commands.max_output_bytes" => json!(self.runner.commands.max_output_bytes),
            "runner.commands.network" => json!(self.runner.commands.network),
            "runner.commands.writable" => {
                json!(self.runner.commands.writable.iter().map(|place| place.display().to_string()).collect::<Vec<_>>())
            }
            "runner.commands.env" => json!(self.runner.commands.env),
            "runner.base_url" => json!(self.runner.base_url),
            "runner.api_key_env" => json!(self.runner.api_key_env),
            "runner.max_turns" => json!(self.runner.max_turns),
            "runner.max_tokens" => json!(self.runner.max_tokens),
            "runner.max_time_seconds" => json!(self.runner.max_time_seconds),
            "runner.step_max_turns" => json!(self.runner.step_max_turns),
            "runner.step_max_tokens" => json!(self.runner.step_max_tokens),
            "runner.step_max_time_seconds" => json!(self.runner.step_max_time_seconds),
            "runner.request_timeout_seconds" => json!(self.runner.request_timeout_seconds),
            "runner.max_retries" => json!(self.runner.max_retries),
            "runner.stuck_repeats" => json!(self.runner.stuck_repeats),
            "runner.stuck_turns" => json!(self.runner.stuck_turns),
            "runner.max_tool_errors" => json!(self.runner.max_tool_errors),
            "runner.auto_approve" => json!(self.runner.auto_approve),
            other => self.model_value(other),
        }
    }

    /// The value of `models.<name>.<key>`; `null` for any other key.
    fn model_value(&self, dotted: &str) -> Value {
        let Some((name, key)) = dotted.strip_prefix("models.").and_then(|rest| rest.rsplit_once('.')) else {
            return Value::Null;
        };
        let Some(model) = self.models.get(name) else { return Value::Null };
        match key {
            "base_url" => json!(model.base_url),
            "model" => json!(model.model),
            "api_key_env" => json!(model.api_key_env),
            "temperature" => json!(model.temperature),
            "max_tokens" => json!(model.max_tokens),
            "context_window" => json!(model.context_window),
            "input_price_per_mtok" => json!(model.input_price_per_mtok),
            "output_price_per_mtok" => json!(model.output_price_per_mtok),
            "stream" => json!(model.stream),
            "send_reasoning" => json!(model.send_reasoning.map(SendReasoning::as_str)),
            _ => Value::Null,
        }
    }
}

fn path(path: &Path) -> Value {
    Value::String(path.display().to_string())
}
