//! Bundles inside a project: a BMad Method workflow installed under `{project-root}/bmad/` (or
//! `_bmad/`) names its module config and the workflows it invokes by `{project-root}` paths,
//! outside its own folder. The compiler sees only the bundle it is given, so the catalog adds
//! those files from the project at their project-relative paths (`bmad/bmm/config.yaml`), where
//! the compiler's path resolution finds them. Which files are wanted comes from the compiler
//! itself (the references it reports missing), so the catalog parses nothing of the format.
//! What is added stays within the bundle reader's limits, and no path leaves the project root.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use switchyard_compiler::{Bundle, BundleWorkflow, MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, ReferenceRole, compile_bundle};
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;

use super::bundle::read_folder;
use super::read::read_bounded;

/// The folders a BMad Method installation lives in, right under the project root.
const INSTALL_FOLDERS: [&str; 2] = ["bmad", "_bmad"];
/// Most configs and invoked workflows added to one bundle.
pub const MAX_PROJECT_FILES_ADDED: usize = 16;
/// Compile passes: each may reveal what an added workflow invokes in turn. One more than the
/// compiler's call depth, so the deepest call it splices in can be found.
const MAX_PASSES: usize = 6;

/// The project root of a bundle: the folder holding the nearest `bmad/` or `_bmad/` folder the
/// bundle lies in.
pub(super) fn root_of(path: &Path) -> Option<PathBuf> {
    let absolute = std::fs::canonicalize(path).ok()?;
    absolute
        .ancestors()
        .skip(1)
        .find(|ancestor| {
            ancestor.file_name().and_then(|name| name.to_str()).is_some_and(|name| INSTALL_FOLDERS.contains(&name))
        })
        .and_then(Path::parent)
        .map(Path::to_owned)
}

/// Compiles a bundle that lies in the project at `root`, adding the module configs and invoked
/// workflows it names under `{project-root}` until nothing more is found.
pub(super) fn compile_in_project(mut bundle: Bundle, root: &Path) -> Vec<BundleWorkflow> {
    let Ok(root) = std::fs::canonicalize(root) else { return compile_bundle(&bundle) };
    let mut compiled = compile_bundle(&bundle);
    let mut tried = BTreeSet::new();
    for _ in 0..MAX_PASSES {
        let wanted: Vec<(String, ReferenceRole)> = compiled
            .iter()
            .flat_map(|workflow| &workflow.compiled.references)
            .filter(|reference| {
                reference.missing && matches!(reference.role, ReferenceRole::Config | ReferenceRole::InvokedWorkflow)
            })
            .filter_map(|reference| Some((reference.path.strip_prefix("{project-root}/")?.to_owned(), reference.role)))
            .filter(|(relative, _)| tried.insert(relative.clone()))
            .collect();
        let mut added = false;
        for (relative, role) in wanted {
            if tried.len() > MAX_PROJECT_FILES_ADDED {
                break;
            }
            added |= add(&mut bundle, &root, &relative, role);
        }
        if !added {
            break;
        }
        compiled = compile_bundle(&bundle);
    }
    compiled
}

/// Adds one config file, or the folder of one invoked workflow, at its project-relative path.
/// Returns whether anything was added; a path that is not plainly inside the project, a file
/// that is not there, or one that would take the bundle past its limits adds nothing (the
/// compiler's warning about the missing file stands).
fn add(bundle: &mut Bundle, root: &Path, relative: &str, role: ReferenceRole) -> bool {
    let plain = Path::new(relative)
        .components()
        .all(|component| matches!(component, Component::Normal(part) if !part.to_string_lossy().contains('{')));
    if !plain || relative.is_empty() {
        return false;
    }
    let Ok(target) = std::fs::canonicalize(root.join(relative)) else { return false };
    if !target.starts_with(root) || !target.is_file() {
        return false;
    }
    let files = match role {
        ReferenceRole::Config => {
            let Some(text) =
                read_bounded(&target, MAX_WORKFLOW_SOURCE_BYTES).ok().and_then(|bytes| String::from_utf8(bytes).ok())
            else {
                return false;
            };
            vec![(relative.to_owned(), text)]
        }
        _ => {
            // The invoked workflow's folder, never the project root or the install folder itself.
            let (Some(folder), Some(written_folder)) = (target.parent(), Path::new(relative).parent()) else {
                return false;
            };
            if written_folder.components().count() < 2 || !folder.starts_with(root) || folder == root {
                return false;
            }
            let Ok(files) = read_folder(folder) else { return false };
            let prefix = written_folder.to_string_lossy().replace('\\', "/");
            files.into_iter().map(|(path, text)| (format!("{prefix}/{path}"), text)).collect()
        }
    };
    let files: Vec<(String, String)> = files.into_iter().filter(|(path, _)| !bundle.files.contains_key(path)).collect();
    let count = bundle.files.len() + files.len();
    let bytes =
        bundle.files.values().map(String::len).sum::<usize>() + files.iter().map(|(_, text)| text.len()).sum::<usize>();
    if files.is_empty() || count > MAX_BUNDLE_FILES || bytes > MAX_BUNDLE_BYTES {
        return false;
    }
    bundle.files.extend(files);
    true
}
