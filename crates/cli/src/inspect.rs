//! `switchyard inspect --format text|json|mermaid|dot|source`: a workflow's compiled graph for
//! people (`text`), programs (`json`, as `--json`), or READMEs and design docs (`mermaid`,
//! `dot`); or its source as written (`source`), byte for byte, so a built-in can be vendored
//! again (`inspect --builtin code-review --format source > …`).

use switchyard_catalog::{Found, to_dot, to_mermaid};
use switchyard_config::ExecutionConfig;
use switchyard_core::Workflow;

use crate::args::{ColorChoice, InspectFormat};
use crate::output::{Failure, Outcome, Printer};

/// Writes `found`'s workflow in `format` (by default `json` under `--json`, `text` otherwise); the
/// text and JSON say the limits a run would get under `execution`.
pub fn run(
    printer: &Printer,
    found: &Found,
    execution: &ExecutionConfig,
    format: Option<InspectFormat>,
) -> Result<Outcome, Failure> {
    let format = match (format, printer.json) {
        (None, false) => InspectFormat::Text,
        (None, true) | (Some(InspectFormat::Json), _) => InspectFormat::Json,
        (Some(format), false) => format,
        (Some(format), true) => {
            return Err(Failure::usage(format!(
                "--json asks for JSON but --format asks for {}: pass one of them",
                format.name()
            )));
        }
    };
    match format {
        InspectFormat::Text => crate::commands::inspect(printer, found, execution),
        // `--format json` is `--json`: the same document, never coloured.
        InspectFormat::Json => crate::commands::inspect(&Printer::new(true, ColorChoice::Never), found, execution),
        InspectFormat::Mermaid => {
            printer.line(to_mermaid(compiled_workflow(found)?).trim_end())?;
            Ok(Outcome::Success)
        }
        InspectFormat::Dot => {
            printer.line(to_dot(compiled_workflow(found)?).trim_end())?;
            Ok(Outcome::Success)
        }
        InspectFormat::Source => {
            printer.verbatim(&found.source()?)?;
            Ok(Outcome::Success)
        }
    }
}

/// The workflow `found` compiled to, or the error saying why it did not.
pub fn compiled_workflow(found: &Found) -> Result<&Workflow, Failure> {
    found.compiled.workflow.as_ref().ok_or_else(|| {
        switchyard_runtime::Error::InvalidWorkflow {
            name: found.name.clone(),
            source_path: found.location.path.clone(),
            diagnostics: found.compiled.diagnostics.clone(),
        }
        .into()
    })
}
