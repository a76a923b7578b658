//! `switchyard import <path> [--to native]`: compiles a workflow in any supported format and
//! writes it as native YAML. Compiling the output gives the same IR (the same workflow hash);
//! what the source format had that switchyard does not keep is reported on stderr, never dropped
//! silently.

use std::io::Write;
use std::path::Path;

use serde::Serialize;
use switchyard_runtime::{Catalog, Diagnostic};

use crate::output::{Failure, Outcome, Printer};

#[derive(Debug, Serialize)]
struct Imported<'a> {
    source: String,
    format: &'a switchyard_runtime::Format,
    hash: String,
    /// What the conversion could not keep as it was (the source's warnings).
    lossy: Vec<&'a Diagnostic>,
    yaml: &'a str,
}

pub(crate) fn run(printer: &Printer, path: &Path, to: &str, output: Option<&Path>) -> Result<Outcome, Failure> {
    if to != "native" {
        return Err(Failure::usage(format!("`--to {to}` is not a target format: the only one is `native`")));
    }
    let found = Catalog::file(path)?;
    let compiled = &found.compiled;
    let mut stderr = std::io::stderr().lock();
    let Some(workflow) = &compiled.workflow else {
        for diagnostic in &compiled.diagnostics {
            let _ = writeln!(stderr, "{diagnostic}");
        }
        if printer.json {
            printer.json(&compiled.diagnostics)?;
        }
        return Ok(Outcome::RuleViolation);
    };
    let yaml = switchyard_runtime::to_native_yaml(workflow).map_err(|error| Failure::environment(error.to_string()))?;
    let lossy: Vec<&Diagnostic> = compiled.warnings().collect();
    for diagnostic in &lossy {
        let _ = writeln!(stderr, "lossy: {diagnostic}");
    }
    if let Some(output) = output {
        std::fs::write(output, &yaml)
            .map_err(|error| Failure::environment(format!("cannot write {}: {error}", output.display())))?;
        let _ = writeln!(stderr, "wrote {} ({})", output.display(), workflow.hash());
    }
    if printer.json {
        printer.json(&Imported {
            source: path.display().to_string(),
            format: &compiled.format,
            hash: workflow.hash().to_string(),
            lossy,
            yaml: &yaml,
        })?;
    } else if output.is_none() {
        printer.line(yaml.trim_end())?;
    }
    Ok(Outcome::Success)
}
