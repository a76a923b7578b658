//! `switchyard tool <name> '<json arguments>' --run <run>`: the file tools from the command line,
//! through the same `FileHost::call` the MCP server and the agent runner use.

use serde_json::Value;
use switchyard_config::Config;
use switchyard_files::tool_definitions;
use switchyard_runtime::{ErrorClass, Target};

use crate::output::{Failure, Outcome, Printer};

pub async fn run(
    printer: &Printer,
    config: &Config,
    name: &str,
    arguments: &str,
    run: Option<&str>,
) -> Result<Outcome, Failure> {
    if name == "list" {
        if printer.json {
            printer.json(&tool_definitions())?;
        } else {
            printer.tools(&tool_definitions())?;
        }
        return Ok(Outcome::Success);
    }
    let arguments: Value = serde_json::from_str(arguments)
        .map_err(|error| Failure::usage(format!("the tool arguments are not JSON: {error}")))?;
    let opened = crate::opened::Opened::open(config).await?;
    let run = match run {
        Some(text) => Some(opened.runtime.run(&text.parse::<Target>()?).await?.id),
        None => None,
    };
    let host = opened.file_host(config);
    match host.call(name, arguments, run).await {
        Ok(content) => {
            if printer.json {
                printer.json(&serde_json::json!({ "content": content }))?;
            } else {
                printer.line(content.trim_end_matches('\n'))?;
            }
            Ok(Outcome::Success)
        }
        Err(error) => Err(Failure {
            code: error.code.to_owned(),
            message: error.message,
            class: ErrorClass::Rule,
            retryable: false,
            details: error.details,
        }),
    }
}
