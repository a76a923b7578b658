//! Compiles workflow sources (native YAML or JSON, and seed-004 stage lists) into the one
//! workflow IR, reporting every problem at once with its location and a fix.
//!
//! Pure: the text comes in as an argument; no file system, no clock.

mod builtins;
mod checks;
mod diagnostic;
mod draft;
mod expressions;
mod fields;
mod native;
mod schema;
mod stages;
mod tree;

use serde::Serialize;
use switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES;
use switchyard_core::workflow::Workflow;

pub use crate::builtins::{Builtin, builtins};
pub use crate::diagnostic::{Diagnostic, Severity, codes};
pub use crate::expressions::{CONDITION_RESERVED, TEMPLATE_RESERVED};
pub use crate::schema::{
    NativeEdge, NativeEdgeItem, NativeEdgeKind, NativeLayer, NativeLimits, NativeNext, NativeNotes, NativeStep,
    NativeValueType, NativeVariable, NativeWorkflow, VariableDeclaration, native_schema,
};

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
}

/// What the compiler made of a source.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compiled {
    /// The IR; present exactly when no diagnostic is an error.
    pub workflow: Option<Workflow>,
    /// Every problem found, errors and warnings, in the order found.
    pub diagnostics: Vec<Diagnostic>,
    pub format: Format,
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
        };
        if let Some(draft) = draft {
            workflow = checks::check(&draft, &mut report);
        }
    }
    let workflow = if report.has_errors() { None } else { workflow };
    let mut diagnostics = report.diagnostics;
    diagnostics.sort_by_key(|diagnostic| (diagnostic.line, diagnostic.column));
    Compiled { workflow, diagnostics, format }
}

/// A top-level `stages:` list and no `steps:` make a stages file; everything else is native.
fn detect(root: &tree::Node) -> Format {
    let stages = root.get("stages").is_some_and(|node| matches!(node.value, tree::Value::Sequence(_)));
    if stages && root.get("steps").is_none() { Format::Stages } else { Format::Native }
}
