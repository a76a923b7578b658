//! Multi-file workflow sources: a [`Bundle`] is a folder (or an unpacked zip) as relative path →
//! text, read by the runtime and handed in, so the compiler stays pure. Detection is by layout
//! and content: `bmad.json` makes a CrewAgent package, `workflow.md` (or `workflow-*.md`) with
//! `step-*.md` files a step-file bundle, `workflow.yaml` a classic bundle.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value as Json;

use crate::diagnostic::{Loc, Report, codes};
use crate::frontmatter::split_frontmatter;
use crate::{Compiled, Format, checks, crewagent, method};

/// Largest bundle the compiler accepts, in bytes over all files.
pub const MAX_BUNDLE_BYTES: usize = 16 * 1024 * 1024;
/// Most files a bundle may hold.
pub const MAX_BUNDLE_FILES: usize = 4096;

/// A multi-file source: its name (a folder or zip path, for diagnostics) and its text files by
/// relative POSIX path (`steps/step-01.md`). Binary files are left out by the reader.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Bundle {
    pub name: String,
    pub files: BTreeMap<String, String>,
}

/// A file a compiled workflow refers to: its instructions, step files, templates, checklists,
/// data, agents, and the workflows and tasks it invokes (also those only used under a
/// condition). The file tools preload these.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileReference {
    /// Bundle-relative path when found; the path as written when missing.
    pub path: String,
    pub role: ReferenceRole,
    /// The step that uses it, when one step does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// Used only when a condition holds (inside `<check if>`, an optional step, a branch).
    pub conditional: bool,
    /// Not in the bundle: outside it (e.g. under `{project-root}`) or absent.
    pub missing: bool,
}

impl FileReference {
    pub(crate) fn found(path: String, role: ReferenceRole, step: Option<String>) -> Self {
        Self { path, role, step, conditional: false, missing: false }
    }

    pub(crate) fn missing(path: String, role: ReferenceRole, step: Option<String>) -> Self {
        Self { path, role, step, conditional: false, missing: true }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReferenceRole {
    /// The workflow's own definition (`workflow.yaml`, `workflow.md`, `workflow.graph.json`).
    Workflow,
    Instructions,
    Step,
    Template,
    Checklist,
    Data,
    InvokedWorkflow,
    Task,
    Agents,
    /// A module configuration a classic workflow reads values from (`config_source`).
    Config,
    Other,
}

/// One workflow found in a bundle, compiled.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BundleWorkflow {
    /// The name discovery lists it under: the bundle's, or `<package>.<workflow id>` for the
    /// workflows of a multi-workflow package.
    pub name: String,
    pub compiled: Compiled,
}

/// The format of a bundle, from its layout and content; `None` when it is none of them.
pub fn detect_bundle(bundle: &Bundle) -> Option<Format> {
    if bundle.files.contains_key("bmad.json") {
        return Some(Format::CrewAgent);
    }
    if step_file_entry(bundle).is_some() {
        return Some(Format::MethodSteps);
    }
    bundle.files.contains_key("workflow.yaml").then_some(Format::MethodClassic)
}

/// The entry file of a step-file bundle: `workflow.md`, else the first `workflow-*.md`, when
/// the bundle also has `step-*.md` files.
fn step_file_entry(bundle: &Bundle) -> Option<String> {
    let has_steps =
        bundle.files.keys().any(|path| path.contains("step-") && path.ends_with(".md") && path.contains('/'));
    if !has_steps {
        return None;
    }
    if bundle.files.contains_key("workflow.md") {
        return Some("workflow.md".to_owned());
    }
    bundle.files.keys().find(|path| path.starts_with("workflow-") && path.ends_with(".md")).cloned()
}

/// Compiles every workflow of a bundle (several for a multi-workflow package).
pub fn compile_bundle(bundle: &Bundle) -> Vec<BundleWorkflow> {
    compile_bundle_as(bundle, detect_bundle(bundle))
}

/// Compiles a bundle as the given format (a folder may hold a classic and a step-file workflow).
pub fn compile_bundle_as(bundle: &Bundle, format: Option<Format>) -> Vec<BundleWorkflow> {
    let mut report = Report::new(&bundle.name);
    let total: usize = bundle.files.values().map(String::len).sum();
    let fallback = bundle.name.rsplit(['/', '\\']).next().unwrap_or("bundle");
    let fallback = method::workflow_id(fallback.trim_end_matches(".bmad").trim_end_matches(".zip"));
    if total > MAX_BUNDLE_BYTES || bundle.files.len() > MAX_BUNDLE_FILES {
        report.error(
            Loc::START,
            codes::SOURCE_TOO_LARGE,
            format!(
                "the bundle holds {} files and {total} bytes; the limits are {MAX_BUNDLE_FILES} files and {MAX_BUNDLE_BYTES} bytes",
                bundle.files.len()
            ),
            Some("split the bundle or remove large data files".into()),
        );
        return vec![finish(fallback, format.unwrap_or(Format::MethodClassic), None, report, Vec::new())];
    }
    let mut references = Vec::new();
    match format {
        Some(Format::CrewAgent) => crewagent::compile(bundle, &fallback),
        Some(Format::MethodSteps) => {
            let entry = step_file_entry(bundle).unwrap_or_else(|| "workflow.md".to_owned());
            let draft = method::read_step_files(bundle, "", &entry, &mut report, &mut references);
            vec![finish(fallback, Format::MethodSteps, draft, report, references)]
        }
        Some(Format::MethodClassic) => {
            let draft = method::read_classic(bundle, "", &mut report, &mut references);
            vec![finish(fallback, Format::MethodClassic, draft, report, references)]
        }
        _ => {
            report.error(
                Loc::START,
                codes::UNKNOWN_BUNDLE,
                "this folder is not a workflow bundle: it has no `bmad.json`, no `workflow.yaml` and no `workflow.md` with step files",
                Some("a CrewAgent package needs bmad.json; a BMad Method workflow needs workflow.yaml or workflow.md".into()),
            );
            vec![finish(fallback, Format::MethodClassic, None, report, Vec::new())]
        }
    }
}

/// Runs the shared checks and assembles the result.
pub(crate) fn finish(
    fallback_name: String,
    format: Format,
    draft: Option<crate::draft::DraftWorkflow>,
    mut report: Report,
    references: Vec<FileReference>,
) -> BundleWorkflow {
    let workflow = draft.and_then(|draft| checks::check(&draft, &mut report));
    let workflow = if report.has_errors() { None } else { workflow };
    let name = workflow.as_ref().map_or(fallback_name, |workflow| workflow.id.clone());
    let mut references = references;
    let mut seen = std::collections::BTreeSet::new();
    references.retain(|reference| seen.insert((reference.path.clone(), reference.role, reference.step.clone())));
    BundleWorkflow {
        name,
        compiled: Compiled {
            workflow,
            diagnostics: report.diagnostics,
            format,
            references,
            declared_limits: crate::DeclaredLimits::default(),
        },
    }
}

/// Splits `---` YAML frontmatter from a markdown file; a broken or missing one is empty.
pub(crate) fn frontmatter(text: &str) -> (serde_json::Map<String, Json>, &str) {
    let Some((yaml, body)) = split_frontmatter(text) else {
        return (serde_json::Map::new(), text.strip_prefix('\u{feff}').unwrap_or(text));
    };
    let map =
        serde_saphyr::from_str::<Json>(yaml).ok().and_then(|value| value.as_object().cloned()).unwrap_or_default();
    (map, body.trim_start_matches(['\r', '\n']))
}

/// Resolves a path as written in a bundle file (`{installed_path}/x.md`, `./step-02.md`,
/// `{project-root}/_bmad/…/steps/step-03.md`, `{workflow_path}/steps/x.md`) to a bundle file:
/// variables are dropped and the longest matching tail of the path wins.
pub(crate) fn resolve_path(bundle: &Bundle, base: &str, written: &str) -> Option<String> {
    resolve_path_keeping(bundle, base, written, 1)
}

/// Like [`resolve_path`], but a tail match keeps at least the file and its folder
/// (`bmm/config.yaml`, `brainstorming/workflow.yaml`), so a module's `config.yaml` or a named
/// workflow is never mistaken for another module's file of the same name.
pub(crate) fn resolve_module_path(bundle: &Bundle, base: &str, written: &str) -> Option<String> {
    resolve_path_keeping(bundle, base, written, 2)
}

fn resolve_path_keeping(bundle: &Bundle, base: &str, written: &str, keep: usize) -> Option<String> {
    let written = written.trim().trim_matches(['"', '\'', '`']);
    if written.is_empty() || written.contains("{{") {
        return None;
    }
    let relative = written.strip_prefix("./").unwrap_or(written);
    let direct = normalize(&format!("{base}{relative}"));
    if let Some(direct) = direct.filter(|path| bundle.files.contains_key(path)) {
        return Some(direct);
    }
    let parts: Vec<&str> = written
        .split('/')
        .filter(|part| !part.is_empty() && !part.starts_with('{') && *part != "." && *part != "..")
        .collect();
    if parts.len() < keep.max(1) {
        return None;
    }
    for skip in 0..=parts.len() - keep.max(1) {
        let tail = parts[skip..].join("/");
        // Beside the file that names it first (`{installed_path}/x.md` of a nested workflow).
        let local = format!("{base}{tail}");
        if !base.is_empty() && bundle.files.contains_key(&local) {
            return Some(local);
        }
        if bundle.files.contains_key(&tail) {
            return Some(tail);
        }
        if let Some(found) = bundle.files.keys().find(|path| path.ends_with(&format!("/{tail}"))) {
            return Some(found.clone());
        }
    }
    None
}

/// Resolves `.` and `..` in a relative path; `None` when it climbs out.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}
