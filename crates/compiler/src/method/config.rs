//! A BMad Method workflow's configuration: `workflow.yaml`'s variables and the module config
//! they name (`{config_source}:key`), resolved at compile time into values, run variables and
//! the prompt's variables section.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value as Json;

use switchyard_core::workflow::{Layer, ValueType};

use super::located;
use crate::bundle::{Bundle, FileReference, ReferenceRole, resolve_module_path};
use crate::diagnostic::{Loc, Report, codes};
use crate::draft::DraftVariable;
use crate::expressions::{CONDITION_RESERVED, TEMPLATE_RESERVED};

/// Values a `workflow.yaml` reads from its module config (`{config_source}:key`), resolved at
/// compile time because the config file is in the bundle.
#[derive(Debug, Default)]
pub(super) struct ModuleValues {
    /// The config file, bundle-relative.
    pub(super) file: String,
    /// workflow.yaml key → (config key, value with the config's own `{placeholders}` filled).
    pub(super) values: BTreeMap<String, (String, Json)>,
}

/// Replaces single-brace `{name}` placeholders (`-` and `_` alike) with known values, repeating
/// until nothing changes, at most 8 rounds so a cycle stops; unknown names and double-brace
/// `{{runtime}}` values stay as written.
pub(super) fn expand(text: &str, values: &BTreeMap<String, String>) -> String {
    let pattern = regex!(r"\{+([A-Za-z_][A-Za-z0-9_-]*)\}+");
    let mut current = text.to_owned();
    for _ in 0..8 {
        let next = pattern
            .replace_all(&current, |captures: &regex::Captures<'_>| {
                let whole = &captures[0];
                let single = !whole.starts_with("{{") && !whole.ends_with("}}");
                let name = &captures[1];
                let value = values.get(name).or_else(|| values.get(&name.replace('-', "_")));
                match value {
                    Some(value) if single => value.clone(),
                    _ => whole.to_owned(),
                }
            })
            .into_owned();
        if next == current {
            break;
        }
        current = next;
    }
    current
}

/// A scalar YAML value as text (for placeholder expansion).
pub(super) fn scalar_text(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.clone()),
        Json::Number(number) => Some(number.to_string()),
        Json::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// Resolves `{config_source}:key` values against the module config when the bundle holds it;
/// otherwise warns, naming the keys and the file, and leaves them for the agent.
pub(super) fn resolve_config(
    bundle: &Bundle,
    dir: &str,
    config_path: &str,
    config: &serde_json::Map<String, Json>,
    report: &mut Report,
    references: &mut Vec<FileReference>,
) -> Option<ModuleValues> {
    let keys: Vec<(String, String)> = config
        .iter()
        .filter_map(|(key, value)| {
            Some((key.clone(), value.as_str()?.strip_prefix("{config_source}:")?.trim().to_owned()))
        })
        .collect();
    if keys.is_empty() {
        return None;
    }
    let names = keys.iter().map(|(key, _)| format!("`{key}`")).collect::<Vec<_>>().join(", ");
    let Some(written) = config.get("config_source").and_then(Json::as_str) else {
        report.warning(
            Loc::START,
            codes::METHOD_CONFIG_SOURCE,
            format!("`{config_path}` reads {names} from `{{config_source}}` but sets no `config_source`; the agent is told to resolve them"),
            Some("add `config_source: \"{project-root}/bmad/<module>/config.yaml\"` to workflow.yaml".into()),
        );
        return None;
    };
    let Some(file) = resolve_module_path(bundle, dir, written) else {
        report.warning(
            Loc::START,
            codes::METHOD_CONFIG_SOURCE,
            format!(
                "`{config_path}` reads {names} from `config_source: {written}`, which is not in the bundle; the agent is told to resolve them"
            ),
            Some("put the module's config.yaml in the bundle (at the path config_source names, e.g. `bmad/<module>/config.yaml`) to resolve them when the workflow is compiled".into()),
        );
        references.push(FileReference::missing(written.to_owned(), ReferenceRole::Config, None));
        return None;
    };
    references.push(FileReference::found(file.clone(), ReferenceRole::Config, None));
    let module = serde_saphyr::from_str::<Json>(&bundle.files[&file]).ok().and_then(|value| value.as_object().cloned());
    let Some(module) = module else {
        report.warning(
            Loc::START,
            codes::METHOD_CONFIG_SOURCE,
            format!("the module config `{file}` is not a YAML mapping; {names} are left for the agent to resolve"),
            Some("make the config a flat mapping of `key: value`".into()),
        );
        return None;
    };
    let texts: BTreeMap<String, String> =
        module.iter().filter_map(|(key, value)| Some((key.clone(), scalar_text(value)?))).collect();
    let mut resolved = ModuleValues { file: file.clone(), values: BTreeMap::new() };
    for (key, module_key) in keys {
        match module.get(&module_key) {
            Some(Json::String(text)) => {
                resolved.values.insert(key, (module_key, Json::String(expand(text, &texts))));
            }
            Some(value) => {
                resolved.values.insert(key, (module_key, value.clone()));
            }
            None => report.warning(
                Loc::START,
                codes::METHOD_CONFIG_SOURCE,
                format!("`{key}` reads `{module_key}` from the module config `{file}`, which has no such key; the agent is told to resolve it"),
                Some(format!("add `{module_key}: <value>` to `{file}`")),
            ),
        }
    }
    Some(resolved)
}

/// Resolved config values as variable defaults; names that cannot be variables stay prompt
/// text only.
pub(super) fn config_variables(module: &ModuleValues) -> Vec<DraftVariable> {
    module
        .values
        .iter()
        .filter(|(name, _)| {
            let mut bytes = name.bytes();
            bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !CONDITION_RESERVED.contains(&name.as_str())
                && !TEMPLATE_RESERVED.contains(&name.as_str())
        })
        .map(|(name, (module_key, value))| DraftVariable {
            name: located(name.clone()),
            value_type: if value.is_string() { ValueType::String } else { ValueType::Any },
            default: Some(located(value.clone())),
            layer: Layer::Important,
            description: Some(format!("`{module_key}` of the module config `{}`", module.file)),
        })
        .collect()
}

/// Variables a `workflow.yaml` declares: the resolved config values, and those for the agent to
/// resolve (`{config_source}:key` without the config, `system-generated`, `variables`).
pub(super) fn variables_section(config: &serde_json::Map<String, Json>, module: Option<&ModuleValues>) -> String {
    let mut lines = Vec::new();
    for (key, value) in config {
        let Some(text) = value.as_str() else { continue };
        if let Some((module_key, resolved)) = module.and_then(|module| module.values.get(key)) {
            let shown = resolved.as_str().map_or_else(|| resolved.to_string(), str::to_owned);
            let file = module.map(|module| module.file.as_str()).unwrap_or_default();
            lines.push(format!("- `{{{key}}}`: `{shown}` (`{module_key}` of `{file}`; context variable `{key}`)"));
        } else if let Some(config_key) = text.strip_prefix("{config_source}:") {
            lines.push(format!("- `{{{key}}}`: the `{config_key}` value of the module config (`{{config_source}}`)"));
        } else if text == "system-generated" {
            lines.push(format!("- `{{{key}}}`: generated now (today's date for `date`)"));
        }
    }
    if let Some(Json::Object(variables)) = config.get("variables") {
        for (key, value) in variables {
            lines.push(format!("- `{{{key}}}`: {}", value.as_str().map_or_else(|| value.to_string(), str::to_owned)));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "## Variables\nResolve these before you start (`{{project-root}}` is the project's root folder, `{{installed_path}}` this workflow's folder):\n{}",
        lines.join("\n")
    )
}
