//! Compiles workflow sources (native YAML or JSON, and seed-004 stage lists) into the one
//! workflow IR, reporting every problem at once with its location and a fix.
//!
//! Pure: the text comes in as an argument; no file system, no clock.

mod builtins;
mod bundle;
mod checks;
mod crewagent;
mod diagnostic;
mod draft;
mod export;
mod expressions;
mod fields;
mod method;
mod native;
mod schema;
mod stages;
mod subworkflow;
mod tree;
mod workrail;

use serde::Serialize;
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;
use switchyard_core::workflow::Workflow;

pub use crate::builtins::{Builtin, builtins};
pub use crate::bundle::{
    Bundle, BundleWorkflow, FileReference, MAX_BUNDLE_BYTES, MAX_BUNDLE_FILES, ReferenceRole, compile_bundle,
    compile_bundle_as, detect_bundle,
};
pub use crate::diagnostic::{Diagnostic, Severity, codes};
pub use crate::export::{ExportError, to_native, to_native_yaml};
pub use crate::expressions::{CONDITION_RESERVED, TEMPLATE_RESERVED};
pub use crate::schema::{
    NativeEdge, NativeEdgeItem, NativeEdgeKind, NativeLayer, NativeLimits, NativeNext, NativeNotes, NativeStep,
    NativeValueType, NativeVariable, NativeWorkflow, VariableDeclaration, native_schema,
};
pub use crate::workrail::Routines;

use crate::diagnostic::{Loc, Report};

/// A workflow source: its text and the name (a file path) diagnostics point at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub name: String,
    pub text: String,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self { name: name.into(), text: text.into() }
    }
}

/// The source format, detected from the content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Format {
    /// The native format, YAML or JSON.
    Native,
    /// A seed-004 stage list (a top-level `stages:` list).
    Stages,
    /// A WorkRail workflow (JSON with `name` and `steps`).
    Workrail,
    /// A classic BMad Method bundle: `workflow.yaml` + `instructions.md|xml`.
    MethodClassic,
    /// A step-file BMad Method bundle: `workflow.md` + `steps/step-NN-*.md`.
    MethodSteps,
    /// A CrewAgent v1.1 package (`bmad.json`, `workflow.graph.json`, step files, agents).
    #[serde(rename = "crewagent")]
    CrewAgent,
}

/// What the compiler made of a source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compiled {
    /// The IR; present exactly when no diagnostic is an error.
    pub workflow: Option<Workflow>,
    /// Every problem found, errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    pub format: Format,
    /// The files the workflow refers to (bundles only; empty for single-file sources):
    /// instructions, step files, templates, checklists, data, agents, invoked workflows and
    /// tasks, including conditional ones, each flagged when missing from the bundle.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub references: Vec<FileReference>,
}

impl Compiled {
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|diagnostic| diagnostic.is_error())
    }

    pub fn warnings(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|diagnostic| !diagnostic.is_error())
    }
}

/// Compiles one source. Never panics and never stops at the first problem.
pub fn compile(source: &Source) -> Compiled {
    compile_with(source, &Routines::new())
}

/// Compiles one source with the WorkRail routines found next to it (for `templateCall`), as
/// [`routines_from`] reads them.
pub fn compile_with(source: &Source, routines: &Routines) -> Compiled {
    let mut report = Report::new(&source.name);
    let mut format = Format::Native;
    let mut workflow = None;
    if source.text.len() > MAX_WORKFLOW_SOURCE_BYTES {
        report.error(
            Loc::START,
            codes::SOURCE_TOO_LARGE,
            format!("the source is {} bytes; the limit is {MAX_WORKFLOW_SOURCE_BYTES} bytes", source.text.len()),
            Some("split the workflow or shorten its prompts".into()),
        );
    } else if let Some(root) = tree::parse(&source.text, &mut report) {
        format = detect(&root);
        let draft = match format {
            Format::Native => native::read(&root, &source.text, &mut report),
            Format::Stages => stages::read(&root, &source.text, &mut report),
            Format::Workrail => workrail::read(&root, &mut report, routines),
            // Bundle formats are never detected from one text; see `compile_bundle`.
            Format::MethodClassic | Format::MethodSteps | Format::CrewAgent => None,
        };
        if let Some(draft) = draft {
            workflow = checks::check(&draft, &mut report);
        }
    }
    let workflow = if report.has_errors() { None } else { workflow };
    let mut diagnostics = report.diagnostics;
    diagnostics.sort_by_key(|diagnostic| (diagnostic.line, diagnostic.column));
    Compiled { workflow, diagnostics, format, references: Vec::new() }
}

/// The format a single-file source would compile as, or `None` when the text is meant as no
/// workflow at all: it parses, but is not a mapping with a top-level `steps` or `stages` (or a
/// near spelling: `step`, `stage`, any case), which every single-file format has. Folders of
/// workflows also hold configs, agent definitions and manifests; those are told apart from
/// broken workflows this way, while a text that does not parse, or that has `steps` but is
/// wrong, is a workflow [`compile`] gives diagnostics for.
pub fn detect_format(text: &str) -> Option<Format> {
    let Some(root) = tree::parse(text, &mut Report::new("")) else { return Some(Format::Native) };
    let tree::Value::Mapping(entries) = &root.value else { return None };
    let marked = entries
        .iter()
        .filter_map(|(key, _)| key.as_str())
        .any(|key| ["steps", "step", "stages", "stage"].iter().any(|mark| key.eq_ignore_ascii_case(mark)));
    marked.then(|| detect(&root))
}

/// A top-level `stages:` list and no `steps:` make a stages file; `name` and `steps` (and no
/// `title`) a WorkRail workflow; everything else is native.
fn detect(root: &tree::Node) -> Format {
    let stages = root.get("stages").is_some_and(|node| matches!(node.value, tree::Value::Sequence(_)));
    if stages && root.get("steps").is_none() {
        Format::Stages
    } else if workrail::detect(root) {
        Format::Workrail
    } else {
        Format::Native
    }
}

/// Reads WorkRail routine workflows (JSON texts) into the template table `templateCall` uses:
/// each registers as `wr.templates.routine.<name>`. Texts that are not routines are skipped.
pub fn routines_from<'a>(texts: impl IntoIterator<Item = &'a str>) -> Routines {
    let mut routines = Routines::new();
    for text in texts {
        let Ok(document) = serde_json::from_str::<serde_json::Value>(text) else { continue };
        let Some(id) = document["id"].as_str() else { continue };
        let name = id.rsplit('.').next().unwrap_or(id);
        if name.starts_with("routine-") || id.starts_with("wr.routine-") {
            routines.insert(workrail::routine_template_id(name.strip_prefix("wr.").unwrap_or(name)), document);
        }
    }
    routines
}
