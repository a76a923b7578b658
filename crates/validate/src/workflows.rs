//! Workflow files and bundles, found and compiled as discovery does (`Catalog::sources`), their
//! compiler diagnostics turned into violations.

use std::path::Path;

use switchyard_compiler::Severity;

use crate::report::{Checked, CheckedFile, FileKind, NotAWorkflow, Violation};
use switchyard_catalog::{Catalog, Sourced, is_bundle_path};

/// The code of a source that could not be read or was refused (a FIFO, a bundle climbing out).
pub const UNREADABLE: &str = "workflow-unreadable";

/// Every workflow source under `path`; what is no workflow goes to `not_workflows`.
pub(crate) fn check(path: &Path, checked: &mut Vec<Checked>, not_workflows: &mut Vec<NotAWorkflow>) {
    for (source, result) in Catalog::sources(path) {
        let bundle = source.is_dir() || is_bundle_path(&source);
        let shown = source.display().to_string();
        match result {
            Ok(Sourced::Workflows(found)) => {
                for found in found {
                    let workflow = bundle.then(|| found.name.clone());
                    let mut file = CheckedFile::new(shown.clone(), FileKind::Workflow);
                    file.workflow = workflow.clone();
                    file.format = Some(found.compiled.format);
                    file.valid = found.compiled.workflow.is_some();
                    file.hash = found.compiled.workflow.as_ref().map(|workflow| workflow.hash().to_string());
                    let violations = found
                        .compiled
                        .diagnostics
                        .iter()
                        .map(|diagnostic| Violation::from_diagnostic(diagnostic, workflow.as_deref()))
                        .collect();
                    checked.push(Checked { file, violations });
                }
            }
            Ok(Sourced::NotAWorkflow(reason)) => not_workflows.push(NotAWorkflow { path: shown, reason }),
            Err(error) => {
                let mut file = CheckedFile::new(shown.clone(), FileKind::Workflow);
                file.error = Some(error.to_string());
                let violation = Violation {
                    file: shown,
                    kind: FileKind::Workflow,
                    workflow: None,
                    field: None,
                    rule: UNREADABLE,
                    code: UNREADABLE,
                    severity: Severity::Error,
                    line: None,
                    column: None,
                    message: error.to_string(),
                    help: Some("make it a readable workflow file or bundle, or move it out of the folder".to_owned()),
                    related: None,
                };
                checked.push(Checked { file, violations: vec![violation] });
            }
        }
    }
}
