//! Files inside the workspace: which globs match a regular file, and where a listed path leads.
//! Symbolic links are never followed by the walk, and a listed path is resolved by the kernel
//! (`canonicalize`) and must stay below the workspace's own resolved path.

use std::path::{Component, Path, PathBuf};

use globset::{Glob, GlobMatcher};
use switchyard_core::evidence::Observation;

use super::MAX_WALKED;

/// The most paths of an `artifact_paths` field that are looked at.
pub(super) const MAX_LISTED_ARTIFACTS: usize = 1_000;

/// The globs of `paths` that match no regular file below `workspace`, as an observation.
pub(super) async fn unmatched(workspace: &Path, paths: &[String]) -> Observation {
    let workspace = workspace.to_owned();
    let paths = paths.to_vec();
    let walked = tokio::task::spawn_blocking(move || walk(&workspace, &paths)).await;
    match walked {
        Ok(Ok(unmatched)) => Observation::Files { unmatched },
        Ok(Err(reason)) => Observation::Unavailable { reason },
        Err(error) => Observation::Unavailable { reason: format!("the walk of the workspace failed: {error}") },
    }
}

fn walk(workspace: &Path, paths: &[String]) -> Result<Vec<String>, String> {
    let mut waiting: Vec<(&String, GlobMatcher)> = Vec::new();
    for path in paths {
        let glob = Glob::new(path).map_err(|error| format!("`{path}` is not a glob: {}", error.kind()))?;
        waiting.push((path, glob.compile_matcher()));
    }
    let entries = walkdir::WalkDir::new(workspace)
        .follow_links(false)
        .into_iter()
        // git's own folder is no work of the step's.
        .filter_entry(|entry| entry.depth() == 0 || entry.file_name() != ".git");
    for (visited, entry) in entries.enumerate() {
        if waiting.is_empty() {
            break;
        }
        if visited >= MAX_WALKED {
            return Err(format!(
                "the workspace holds more than {MAX_WALKED} entries and {} still matched nothing: name narrower globs",
                listed(waiting.iter().map(|(path, _)| path.as_str()))
            ));
        }
        // An unreadable folder is skipped, as its files could not be the step's anyway.
        let Ok(entry) = entry else { continue };
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(workspace) else { continue };
        waiting.retain(|(_, matcher)| !matcher.is_match(relative));
    }
    Ok(waiting.into_iter().map(|(path, _)| path.clone()).collect())
}

fn listed<'a>(paths: impl Iterator<Item = &'a str>) -> String {
    paths.map(|path| format!("`{path}`")).collect::<Vec<_>>().join(", ")
}

/// Where a path the agent listed leads.
pub(super) enum Located {
    /// Inside the workspace; the path relative to it, with `/` between parts.
    Inside(String),
    Missing,
    Outside,
}

/// Where `path`, relative to `workspace` (or absolute), leads once the kernel resolved it.
pub(super) async fn locate(workspace: &Path, path: &str) -> Located {
    let (workspace, path) = (workspace.to_owned(), PathBuf::from(path));
    tokio::task::spawn_blocking(move || locate_now(&workspace, &path)).await.unwrap_or(Located::Missing)
}

fn locate_now(workspace: &Path, path: &Path) -> Located {
    let Ok(root) = std::fs::canonicalize(workspace) else { return Located::Missing };
    let joined = if path.is_absolute() { path.to_owned() } else { root.join(path) };
    match std::fs::canonicalize(&joined) {
        Ok(real) => match real.strip_prefix(&root) {
            Ok(relative) => Located::Inside(slashed(relative)),
            Err(_) => Located::Outside,
        },
        // What does not exist is judged by its words: it would be outside if they climb out.
        Err(_) if stays_below(&root, &joined) => Located::Missing,
        Err(_) => Located::Outside,
    }
}

/// Whether `path`, read as written (`..` taking back one part), stays below `root`.
fn stays_below(root: &Path, path: &Path) -> bool {
    let mut parts: Vec<Component<'_>> = Vec::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                parts.pop();
            }
            Component::CurDir => {}
            other => parts.push(other),
        }
    }
    parts.iter().collect::<PathBuf>().starts_with(root)
}

fn slashed(relative: &Path) -> String {
    relative.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_regular_files_only_and_never_through_links() {
        let workspace = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(workspace.path().join("src/deep")).unwrap();
        std::fs::write(workspace.path().join("src/deep/a.py"), "x").unwrap();
        std::fs::write(outside.path().join("b.rs"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path(), workspace.path().join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("b.rs"), workspace.path().join("c.rs")).unwrap();
        let globs = ["src/**/*.py", "linked/*.rs", "*.rs", "src"].map(str::to_owned);
        let unmatched = walk(workspace.path(), &globs).unwrap();
        assert_eq!(unmatched, ["linked/*.rs", "*.rs", "src"], "a folder, a link and a file behind a link are no files");
    }

    #[test]
    fn listed_paths_are_resolved_by_the_kernel() {
        let workspace = tempfile::tempdir().unwrap();
        std::fs::create_dir(workspace.path().join("src")).unwrap();
        std::fs::write(workspace.path().join("src/a.rs"), "x").unwrap();
        std::os::unix::fs::symlink("/etc", workspace.path().join("escape")).unwrap();
        let at = |path: &str| match locate_now(workspace.path(), Path::new(path)) {
            Located::Inside(relative) => relative,
            Located::Missing => "missing".to_owned(),
            Located::Outside => "outside".to_owned(),
        };
        assert_eq!(at("src/a.rs"), "src/a.rs");
        assert_eq!(at("./src/../src/a.rs"), "src/a.rs");
        assert_eq!(at("src/b.rs"), "missing");
        assert_eq!(at("src/../b.rs"), "missing");
        assert_eq!(at("escape/passwd"), "outside");
        assert_eq!(at("../elsewhere"), "outside");
        assert_eq!(at("/etc/passwd"), "outside");
        assert_eq!(at(&workspace.path().join("src/a.rs").display().to_string()), "src/a.rs");
    }
}
