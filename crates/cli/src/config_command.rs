//! `switchyard config`: every effective setting and where it came from.

use serde_json::{Map, Value, json};
use switchyard_config::settings::Setting;
use switchyard_config::{Origin, Overrides};

use crate::output::{Failure, Outcome, Printer};

/// The widest value the text output aligns the sources after.
const MAX_ALIGNED_VALUE: usize = 48;

/// Prints every setting: key, value and where it came from, or the same as one JSON object.
pub fn run(printer: &Printer, overrides: Overrides) -> Result<Outcome, Failure> {
    let mut settings = crate::opened::resolve(overrides)?.settings(&switchyard_runtime::store::describe_url);
    // `serve`'s own defaults, where the configuration leaves a key to it: what `serve` would use.
    for setting in settings.iter_mut().filter(|setting| setting.value.is_null()) {
        if let Some(value) = crate::serve::default_of(&setting.key) {
            setting.value = value;
        }
    }
    if printer.json {
        printer.json(&as_json(&settings))?;
        return Ok(Outcome::Success);
    }
    let shown: Vec<String> = settings
        .iter()
        .map(|setting| match &setting.value {
            Value::Null => "(unset)".to_owned(),
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect();
    let key_width = settings.iter().map(|setting| setting.key.len()).max().unwrap_or(0);
    // Values line up unless one is very long (a list of rule sets); that one just pushes its source out.
    let value_width = shown.iter().map(String::len).filter(|width| *width <= MAX_ALIGNED_VALUE).max().unwrap_or(0);
    for (setting, value) in settings.iter().zip(&shown) {
        printer.line(&format!("{:<key_width$}  {value:<value_width$}  ({})", setting.key, setting.origin))?;
    }
    Ok(Outcome::Success)
}

/// `{"settings": {key: {value, source, kind, variable}}}`: `source` as the text prints it,
/// `kind` one of `default`, `file`, `env`, `flag`.
fn as_json(settings: &[Setting]) -> Value {
    let entries: Map<String, Value> = settings
        .iter()
        .map(|setting| {
            let kind = match &setting.origin {
                Origin::Default => "default",
                Origin::File { .. } => "file",
                Origin::Environment(_) => "env",
                Origin::Flag(_) => "flag",
            };
            let entry = json!({
                "value": setting.value,
                "source": setting.origin.to_string(),
                "kind": kind,
                "variable": setting.variable,
            });
            (setting.key.clone(), entry)
        })
        .collect();
    json!({ "settings": entries })
}
