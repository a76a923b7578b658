//! `switchyard import <path> [--to native]`: compiles a workflow in any supported format and
//! writes it as native YAML. Compiling the output gives the same IR (the same workflow hash);
//! what the source format had that switchyard does not keep is reported on stderr, never dropped
//! silently. A package of several workflows converts each one: `--output` then names a folder
//! that gets one `<name>.yaml` per workflow.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use switchyard_catalog::{Catalog, Diagnostic};
use switchyard_catalog::{Found, is_bundle_path};

use crate::output::{Failure, Outcome, Printer};

#[derive(Debug, Serialize)]
struct Imported<'a> {
    source: String,
    /// The workflow's name: the file's, or `<package>.<workflow id>` in a multi-workflow package.
    name: &'a str,
    format: &'a switchyard_catalog::Format,
    /// The hash of the YAML written, as compiling it gives.
    hash: String,
    /// What the conversion could not keep as it was (the source's warnings).
    lossy: Vec<&'a Diagnostic>,
    yaml: String,
}

pub(crate) fn run(printer: &Printer, path: &Path, to: &str, output: Option<&Path>) -> Result<Outcome, Failure> {
    if to != "native" {
        return Err(Failure::usage(format!("`--to {to}` is not a target format: the only one is `native`")));
    }
    let found = if is_bundle_path(path) { Catalog::bundle(path)? } else { vec![Catalog::file(path)?] };
    let mut stderr = std::io::stderr().lock();
    let several = found.len() > 1;
    if several {
        let names: Vec<&str> = found.iter().map(|found| found.name.as_str()).collect();
        let _ = writeln!(
            stderr,
            "{} holds {} workflows; converting each: {}",
            path.display(),
            names.len(),
            names.join(", ")
        );
        if let Some(output) = output {
            std::fs::create_dir_all(output).map_err(|error| {
                Failure::environment(format!(
                    "cannot make the folder {} for the package's workflows: {error}",
                    output.display()
                ))
            })?;
        }
    }
    let mut imported = Vec::with_capacity(found.len());
    let mut outcome = Outcome::Success;
    for found in &found {
        let compiled = &found.compiled;
        let Some(workflow) = &compiled.workflow else {
            for diagnostic in &compiled.diagnostics {
                let _ = writeln!(stderr, "{diagnostic}");
            }
            if printer.json && !several {
                printer.json(&compiled.diagnostics)?;
            }
            outcome = Outcome::RuleViolation;
            continue;
        };
        let yaml =
            switchyard_catalog::to_native_yaml(workflow).map_err(|error| Failure::environment(error.to_string()))?;
        let lossy: Vec<&Diagnostic> = compiled.warnings().collect();
        for diagnostic in &lossy {
            let _ = writeln!(stderr, "lossy: {diagnostic}");
        }
        let target = output.map(|output| target_path(output, found, several));
        let hash = written_hash(target.as_deref().unwrap_or(path), &yaml);
        if hash != workflow.hash().to_string() {
            let _ = writeln!(
                stderr,
                "warning: the YAML written for `{}` hashes to {hash}, not to the source's {}; please report this",
                found.name,
                workflow.hash()
            );
        }
        if let Some(target) = &target {
            std::fs::write(target, &yaml)
                .map_err(|error| Failure::environment(format!("cannot write {}: {error}", target.display())))?;
            let _ = writeln!(stderr, "wrote {} ({hash})", target.display());
        }
        imported.push(Imported {
            source: path.display().to_string(),
            name: &found.name,
            format: &compiled.format,
            hash,
            lossy,
            yaml,
        });
    }
    if printer.json {
        match imported.as_slice() {
            [one] if !several => printer.json(one)?,
            [] if !several => {}
            all => printer.json(&all)?,
        }
    } else if output.is_none() {
        let documents: Vec<String> = imported
            .iter()
            .map(|imported| {
                let yaml = imported.yaml.trim_end();
                if several { format!("# {}\n{yaml}", imported.name) } else { yaml.to_owned() }
            })
            .collect();
        printer.line(&documents.join("\n---\n"))?;
    }
    Ok(outcome)
}

/// Where a workflow's YAML goes: `output` itself, or `<output>/<name>.yaml` for each workflow of
/// a package of several.
fn target_path(output: &Path, found: &Found, several: bool) -> PathBuf {
    if several { output.join(format!("{}.yaml", found.name)) } else { output.to_owned() }
}

/// The hash of the workflow the YAML compiles to, which is what a run of the written file pins.
fn written_hash(path: &Path, yaml: &str) -> String {
    Catalog::hash_of_text(&format!("{}.yaml", path.display()), yaml)
        .map_or_else(|| "(the written YAML does not compile)".to_owned(), |hash| hash.to_string())
}
