//! `preload_workflow`: every file a workflow needs, read in parallel, bounded in total size.
//!
//! Which files a workflow needs depends on its format. Native and stage-list workflows are one
//! file; multi-file formats (WorkRail, CrewAgent, BMad Method bundles) name instructions,
//! templates, step files, checklists, invoked workflows and elicitation tasks. The compiler
//! lists them in `Compiled::references`; [`references_of`] reads them for a run, and
//! [`References`] is the seam for any other list ([`crate::FileHost::preload`]). A workflow from
//! a folder is read through the `{bundle-root}` mount; one from a zip bundle from the archive
//! ([`BundleArchive`]), with the same bounds and the same report of missing references.

use std::sync::Arc;

use serde::Serialize;
use switchyard_compiler::Compiled;

use crate::archive::BundleArchive;
use crate::error::{ToolError, codes};
use crate::sandbox::{MountName, Mounts};

/// One file a workflow refers to, as a path argument (`{bundle-root}/steps/step-01.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    pub path: String,
    /// Referenced only on some branches (invoked workflows, elicitation tasks).
    pub conditional: bool,
}

/// The references of a workflow.
pub trait References {
    fn references(&self) -> Vec<Reference>;
}

impl References for Vec<Reference> {
    fn references(&self) -> Vec<Reference> {
        self.clone()
    }
}

/// The references of the workflow a run was started from (`RunRecord::source` and
/// `workflow_id`): the workflow file itself, then what the compiler lists in
/// `Compiled::references` (bundles: instructions, step files, templates, checklists, invoked
/// workflows, tasks; conditional ones flagged) for that workflow of the bundle. A zip bundle is
/// compiled from `archive`, the contents preload reads, so both agree. Built-in workflows have
/// no files.
pub fn references_of(source: &str, workflow_id: &str, archive: Option<&BundleArchive>) -> Vec<Reference> {
    if source.starts_with("builtin") {
        return Vec::new();
    }
    let Some((_, path)) = source.split_once(':') else { return Vec::new() };
    let path = std::path::Path::new(path);
    let mut references = Vec::new();
    let compiled = if let Some(archive) = archive {
        pick(switchyard_compiler::compile_bundle(&archive.bundle).into_iter().map(|found| found.compiled), workflow_id)
    } else if switchyard_runtime::catalog::is_bundle_path(path) {
        switchyard_runtime::Catalog::bundle(path)
            .ok()
            .and_then(|found| pick(found.into_iter().map(|found| found.compiled), workflow_id))
    } else {
        if let Some(name) = path.file_name().filter(|_| path.is_file()) {
            references.push(Reference {
                path: format!("{}/{}", MountName::Bundle.variable(), name.to_string_lossy()),
                conditional: false,
            });
        }
        switchyard_runtime::Catalog::file(path).ok().map(|found| found.compiled)
    };
    for reference in compiled.map(|compiled| compiled.references).unwrap_or_default() {
        let shown = if reference.path.starts_with('{') {
            reference.path.clone()
        } else {
            format!("{}/{}", MountName::Bundle.variable(), reference.path)
        };
        if !references.iter().any(|known| known.path == shown) {
            references.push(Reference { path: shown, conditional: reference.conditional });
        }
    }
    references
}

/// The compiled workflow of a bundle that the run started: the one with the run's workflow id
/// (a multi-workflow package holds several), else the first.
fn pick(compiled: impl Iterator<Item = Compiled>, workflow_id: &str) -> Option<Compiled> {
    let mut all: Vec<Compiled> = compiled.collect();
    let position = all
        .iter()
        .position(|compiled| compiled.workflow.as_ref().is_some_and(|workflow| workflow.id == workflow_id))
        .unwrap_or(0);
    (position < all.len()).then(|| all.swap_remove(position))
}

/// One preloaded file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preloaded {
    pub path: String,
    pub bytes: u64,
    pub conditional: bool,
    pub content: String,
}

/// What a preload returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Preload {
    pub files: Vec<Preloaded>,
    /// References that point at files that do not exist (or cannot be read), with why.
    pub missing: Vec<Missing>,
    pub total_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Missing {
    pub path: String,
    pub code: &'static str,
    pub message: String,
}

/// Reads every reference in parallel (blocking threads), at most `max_total` bytes in all.
/// References under `{bundle-root}` of a zip bundle are read from `archive`, already in memory.
pub async fn preload(
    mounts: Arc<Mounts>,
    archive: Option<Arc<BundleArchive>>,
    references: Vec<Reference>,
    max_file: u64,
    max_total: u64,
) -> Result<Preload, ToolError> {
    let mut tasks = tokio::task::JoinSet::new();
    for (index, reference) in references.into_iter().enumerate() {
        let (mounts, archive) = (Arc::clone(&mounts), archive.clone());
        tasks.spawn_blocking(move || {
            let read = match (mounts.in_bundle_archive(&reference.path), archive) {
                (Some(checked), Some(archive)) => checked.and_then(|(_, relative)| {
                    let text = archive.read(&relative, max_file)?;
                    Ok((format!("{}/{}", MountName::Bundle.variable(), relative.display()), text.as_bytes().to_vec()))
                }),
                _ => mounts
                    .resolve(&reference.path, MountName::Bundle, false)
                    .and_then(|resolved| resolved.read(max_file).map(|bytes| (resolved.display(), bytes))),
            };
            (index, reference, read)
        });
    }
    let mut results = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        results.push(joined.map_err(|error| ToolError::new(codes::IO, format!("a preload read failed: {error}")))?);
    }
    results.sort_by_key(|(index, _, _)| *index);
    let mut preload = Preload { files: Vec::new(), missing: Vec::new(), total_bytes: 0 };
    for (_, reference, read) in results {
        match read {
            Ok((path, bytes)) => {
                preload.total_bytes += bytes.len() as u64;
                if preload.total_bytes > max_total {
                    return Err(ToolError::new(
                        codes::TOO_LARGE,
                        format!(
                            "the workflow's files exceed the preload limit of {max_total} bytes (at {path}); read the files you need one by one with read_file"
                        ),
                    ));
                }
                preload.files.push(Preloaded {
                    path,
                    bytes: bytes.len() as u64,
                    conditional: reference.conditional,
                    content: String::from_utf8_lossy(&bytes).into_owned(),
                });
            }
            Err(error) => {
                preload.missing.push(Missing { path: reference.path, code: error.code, message: error.message })
            }
        }
    }
    Ok(preload)
}
