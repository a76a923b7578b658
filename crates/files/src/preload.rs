//! `preload_workflow`: every file a workflow needs, read in parallel, bounded in total size.
//!
//! Which files a workflow needs depends on its format. Native and stage-list workflows are one
//! file; multi-file formats (WorkRail, CrewAgent, BMad Method bundles) name instructions,
//! templates, step files, checklists, invoked workflows and elicitation tasks. The compiler
//! lists them in `Compiled::references`, and the runtime records them with the run when it
//! starts, so a preload lists what the run was started from, whatever the source on disk says
//! since; [`references_of`] turns them into path arguments, and [`References`] is the seam for
//! any other list ([`crate::FileHost::preload`]). A workflow from a folder is read through the
//! `{bundle-root}` mount; one from a zip bundle from the archive ([`BundleArchive`]), with the
//! same bounds and the same report of missing references.

use std::sync::Arc;

use serde::Serialize;
use switchyard_core::event::WorkflowFile;

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

/// The references of a workflow. `Send + Sync`, so a preload holding one can be awaited on any
/// of a multi-threaded runtime's workers.
pub trait References: Send + Sync {
    fn references(&self) -> Vec<Reference>;
}

impl References for Vec<Reference> {
    fn references(&self) -> Vec<Reference> {
        self.clone()
    }
}

/// The references of a run's workflow as path arguments, from the files the runtime recorded
/// when the run started (`Runtime::workflow_files`): bundle-relative paths are read under
/// `{bundle-root}`, paths that start with a variable (`{project-root}/…`) where they say.
pub fn references_of(files: &[WorkflowFile]) -> Vec<Reference> {
    files
        .iter()
        .map(|file| Reference {
            path: if file.path.starts_with('{') {
                file.path.clone()
            } else {
                format!("{}/{}", MountName::Bundle.variable(), file.path)
            },
            conditional: file.conditional,
        })
        .collect()
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
