//! What a person names on the command line, read: a run by anything that leads to it (a run,
//! session or node id, a token), a workflow by its name or its file, a JSON argument inline or
//! from `@FILE`.

use std::path::PathBuf;

use serde_json::{Map, Value};
use switchyard_core::RunId;
use switchyard_runtime::{Runtime, Target};

use crate::output::Failure;

/// A workflow named by an existing file's path (`./wf.yaml`, `dir/wf.json`) is that file, as if
/// given with `--file`.
pub(crate) fn name_or_file(name: Option<String>, file: Option<PathBuf>) -> (Option<String>, Option<PathBuf>) {
    match name.as_deref().and_then(switchyard_catalog::file_named_as_workflow) {
        Some(path) if file.is_none() => (None, Some(path)),
        _ => (name, file),
    }
}

/// The run that a run, session or node id or a token names.
pub(crate) async fn run_id(runtime: &Runtime, text: &str) -> Result<RunId, Failure> {
    Ok(runtime.run(&text.parse::<Target>()?).await?.id)
}

/// A JSON argument given inline or as `@FILE`.
pub(crate) fn json_value(flag: &str, text: &str) -> Result<Value, Failure> {
    let (origin, body) = match text.strip_prefix('@') {
        Some(path) => (
            format!("{flag} file {path}"),
            std::fs::read_to_string(path)
                .map_err(|error| Failure::usage(format!("cannot read {flag} file {path}: {error}")))?,
        ),
        None => (flag.to_owned(), text.to_owned()),
    };
    serde_json::from_str(&body).map_err(|error| Failure::usage(format!("{origin} is not valid JSON: {error}")))
}

pub(crate) fn json_object(flag: &str, text: &str) -> Result<Map<String, Value>, Failure> {
    match json_value(flag, text)? {
        Value::Object(map) => Ok(map),
        other => Err(Failure::usage(format!(
            "{flag} must be a JSON object like {{\"key\": \"value\"}}, not {}",
            kind_of(&other)
        ))),
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
