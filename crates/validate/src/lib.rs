//! `switchyard validate`: workflows, Markdown prompt files, mirrored folders and (later)
//! standalone status reports, checked here so every door only asks and prints.
//!
//! - [`workflows`]: workflow files and bundles, compiled as discovery compiles them.
//! - [`prompts`]: prompt files' frontmatter against rule sets (configured, or the presets).
//! - [`mirrors`]: `--strict` only: `[[validate.mirrors]]` pairs and vendored built-ins.
//! - [`report`]: the one report shape, and the GitHub annotations; [`sarif`]: SARIF 2.1.0.
//! - [`status_files`]: standalone status reports (`status.json`, `*.status.json`) named or found
//!   in named folders, checked by the engine's status rules and audit gate.
//!
//! Named paths are checked as they are; with none, the project is: its
//! `.switchyard/workflows/`, the files of every prompt rule set, and with `--strict` the mirrors.
//! Only a problem that stops the check itself (a named path that does not exist, a rule set that
//! does not compile, nothing to check at all) is an [`Error`]; everything found in the files is a
//! violation in the [`Report`].

mod error;
pub mod mirrors;
pub mod prompts;
pub mod report;
pub mod sarif;
pub mod status_files;
pub mod workflows;

use std::path::{Path, PathBuf};

use rayon::iter::{IntoParallelIterator, ParallelIterator};

pub use crate::error::Error;
pub use crate::report::{Checked, CheckedFile, FileKind, NotAWorkflow, Report, Stats, Violation};
use switchyard_config::prompt_rules::RuleSet;
use switchyard_config::{PROJECT_FOLDER, ValidateConfig};

/// What to validate.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Globs and mirror folders are relative to it; reports name its files relative to it.
    pub project_root: &'a Path,
    /// Files and folders to check; none, or only the project root itself (`validate .` there):
    /// the project.
    pub paths: &'a [PathBuf],
    /// Unknown prompt fields are errors, and (for the project) the mirrors are compared.
    pub strict: bool,
    pub config: &'a ValidateConfig,
    /// `[audit] audit_min_confidence`: where status files' audit findings stop blocking.
    pub min_confidence: f64,
}

/// Checks what `request` names and reports every violation.
pub fn validate(request: &Request<'_>) -> Result<Report, Error> {
    let sets = RuleSet::of(request.config)?;
    let root = std::fs::canonicalize(request.project_root).unwrap_or_else(|_| request.project_root.to_owned());
    let paths = if names_only(request.paths, &root) { &[] } else { request.paths };
    let mut checked = Vec::new();
    let mut not_workflows = Vec::new();
    let mut prompt_files: Vec<(PathBuf, String, usize)> = Vec::new();
    let mut status_files: Vec<(PathBuf, String)> = Vec::new();
    if paths.is_empty() {
        let workflows = request.project_root.join(PROJECT_FOLDER).join("workflows");
        if workflows.is_dir() {
            workflows::check(&workflows, &mut checked, &mut not_workflows);
            // An empty workflow folder is no problem of the project's.
            not_workflows.retain(|skipped| Path::new(&skipped.path) != workflows);
        }
        for (path, set) in prompts::project_files(&root, &sets) {
            let shown = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
            prompt_files.push((path, shown, set));
        }
    } else {
        for path in paths {
            std::fs::metadata(path).map_err(|source| Error::Unreadable { path: path.clone(), source })?;
            if status_files::is_status_file(path) && !path.is_dir() {
                status_files.push((path.clone(), path.display().to_string()));
                continue;
            }
            named_path(path, &root, &sets, &mut prompt_files, &mut checked, &mut not_workflows);
        }
        // Status reports found in named folders are no workflows but reports of their own.
        let found = not_workflows.extract_if(.., |skipped| {
            let path = Path::new(&skipped.path);
            status_files::is_status_file(path) && path.is_file()
        });
        status_files.extend(found.map(|skipped| (PathBuf::from(&skipped.path), skipped.path)));
    }
    let prompts_checked: Vec<Checked> = prompt_files
        .into_par_iter()
        .map(|(path, shown, set)| prompts::check_file(&path, &shown, &sets[set], request.strict))
        .collect();
    checked.extend(prompts_checked);
    checked.extend(
        status_files
            .into_iter()
            .map(|(path, shown)| status_files::check_file(&path, &shown, request.strict, request.min_confidence)),
    );
    if paths.is_empty() && request.strict {
        let shown = |path: &Path| relative_to(request.project_root, &path.display().to_string());
        checked.extend(mirrors::check_pairs(
            request.project_root,
            request.config.mirrors.as_deref().unwrap_or(&[]),
            &shown,
        ));
        let workflows = request.project_root.join(PROJECT_FOLDER).join("workflows");
        checked.extend(mirrors::check_builtins(&workflows, &shown));
    }
    if paths.is_empty() {
        for checked in &mut checked {
            relativize(request.project_root, checked);
        }
        for skipped in &mut not_workflows {
            skipped.path = relative_to(request.project_root, &skipped.path);
        }
    }
    if checked.is_empty() {
        return Err(nothing_to_check(request, paths, &sets, &not_workflows));
    }
    Ok(Report::new(checked, not_workflows))
}

/// Whether every named path is `root` (the project root, canonical): naming the project is
/// asking for the project's whole check, mirrors included.
fn names_only(paths: &[PathBuf], root: &Path) -> bool {
    !paths.is_empty() && paths.iter().all(|path| std::fs::canonicalize(path).is_ok_and(|path| path == root))
}

/// One named path: a prompt file a rule set matches, a Markdown file none matches (skipped), or
/// workflow sources; a folder is searched for both.
fn named_path(
    path: &Path,
    root: &Path,
    sets: &[RuleSet],
    prompt_files: &mut Vec<(PathBuf, String, usize)>,
    checked: &mut Vec<Checked>,
    not_workflows: &mut Vec<NotAWorkflow>,
) {
    let canonical = canonical_keeping_name(path);
    if path.is_dir() {
        let mut found = Vec::new();
        prompts::find(root, &canonical, sets, &mut found);
        for (file, set) in &found {
            let below = file.strip_prefix(&canonical).unwrap_or(file);
            prompt_files.push((file.clone(), path.join(below).display().to_string(), *set));
        }
        let mut workflow_sources = Vec::new();
        let mut skipped = Vec::new();
        workflows::check(path, &mut workflow_sources, &mut skipped);
        // A folder holding only prompt files is no empty workflow folder.
        if !found.is_empty() && workflow_sources.is_empty() {
            skipped.retain(|skipped| Path::new(&skipped.path) != path);
        }
        checked.extend(workflow_sources);
        not_workflows.extend(skipped);
        return;
    }
    if let Some(set) = prompts::set_of(root, &canonical, sets) {
        prompt_files.push((canonical, path.display().to_string(), set));
    } else if path.extension().is_some_and(|extension| extension == "md") && !is_bundle_entry(path) {
        let globs: Vec<&str> = sets.iter().map(|set| set.glob.as_str()).collect();
        not_workflows.push(NotAWorkflow {
            path: path.display().to_string(),
            reason: format!(
                "a Markdown file no prompt rule set matches (their globs, relative to the project root: {})",
                globs.join(", ")
            ),
        });
    } else {
        workflows::check(path, checked, not_workflows);
    }
}

/// A bundle's Markdown entry file (`workflow.md`, `workflow-*.md`), which stands for its folder.
fn is_bundle_entry(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| name == "workflow.md" || name.starts_with("workflow-") && name.ends_with(".md"))
}

/// `path` with its folder made canonical but its own name kept, so a symlinked prompt file is
/// matched by where it is, not by where it points.
fn canonical_keeping_name(path: &Path) -> PathBuf {
    if path.is_dir() {
        return std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    }
    let parent = path.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match (std::fs::canonicalize(parent), path.file_name()) {
        (Ok(parent), Some(name)) => parent.join(name),
        _ => path.to_owned(),
    }
}

fn nothing_to_check(
    request: &Request<'_>,
    paths: &[PathBuf],
    sets: &[RuleSet],
    not_workflows: &[NotAWorkflow],
) -> Error {
    if !paths.is_empty() {
        let skipped = if not_workflows.is_empty() {
            String::new()
        } else {
            let listed: Vec<String> =
                not_workflows.iter().map(|skipped| format!("{} ({})", skipped.path, skipped.reason)).collect();
            format!("; not workflows: {}", listed.join(", "))
        };
        return Error::NothingToCheck(format!(
            "no workflow files (.yaml, .yml, .json), bundle folders, .bmad/.zip archives or prompt files found under the given paths{skipped}"
        ));
    }
    let globs: Vec<&str> = sets.iter().map(|set| set.glob.as_str()).collect();
    let mirrors = request.config.mirrors.as_deref().unwrap_or_default();
    let fix = if !request.strict && !mirrors.is_empty() {
        format!(
            "the {} [[validate.mirrors]] pair(s) of switchyard.toml are compared only with --strict: run `switchyard validate --strict`",
            mirrors.len()
        )
    } else {
        "pass files or folders, or configure [[validate.prompts]] in switchyard.toml".to_owned()
    };
    Error::NothingToCheck(format!(
        "nothing to validate in {}: no {PROJECT_FOLDER}/workflows/ folder and no prompt files matching {}; {fix}",
        request.project_root.display(),
        globs.join(", ")
    ))
}

/// `file` relative to `root` when it lies below it, else as it is: how reports name the
/// project's files, and how SARIF and GitHub annotations name every file.
pub fn relative_to(root: &Path, file: &str) -> String {
    let mut prefixes = vec![root.display().to_string()];
    if let Ok(canonical) = std::fs::canonicalize(root) {
        prefixes.push(canonical.display().to_string());
    }
    for prefix in prefixes {
        let prefix = prefix.trim_end_matches('/');
        if let Some(rest) = file.strip_prefix(prefix).and_then(|rest| rest.strip_prefix('/')) {
            return rest.to_owned();
        }
    }
    file.to_owned()
}

fn relativize(root: &Path, checked: &mut Checked) {
    checked.file.path = relative_to(root, &checked.file.path);
    for violation in &mut checked.violations {
        violation.file = relative_to(root, &violation.file);
        violation.related = violation.related.as_deref().map(|related| relative_to(root, related));
    }
}

/// The one-line fix of a violation code: the compiler's for workflow diagnostics, else
/// validate's own.
pub fn describe(code: &str) -> Option<&'static str> {
    let unreadable = [(workflows::UNREADABLE, "make it a readable workflow file or bundle")];
    switchyard_compiler::codes::ALL
        .iter()
        .chain(prompts::codes::ALL)
        .chain(mirrors::codes::ALL)
        .chain(&unreadable)
        .find(|(known, _)| *known == code)
        .map(|(_, fix)| *fix)
}
