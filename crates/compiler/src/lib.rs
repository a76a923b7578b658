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
mod frontmatter;
mod located;
mod method;
mod native;
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
pub use crate::export::{ExportError, to_dot, to_mermaid, to_native_yaml};
pub use crate::expressions::{CONDITION_RESERVED, TEMPLATE_RESERVED};
pub use crate::frontmatter::split_frontmatter;
pub use crate::native::format::native_schema;
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
    /// Which limits the source set itself; not part of the IR, nor of its hash.
    #[serde(skip)]
    pub declared_limits: DeclaredLimits,
}

/// Which of the limits a configuration may give a default (`[execution]` of `switchyard.toml`)
/// a source declared itself. The IR always holds every limit (the engine's defaults for the
/// others), so its hash does not depend on any configuration; whoever starts a run fills the
/// limits not declared from its configuration before pinning the run's copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeclaredLimits {
    pub max_revision_attempts: bool,
    pub max_replan_attempts: bool,
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
    let mut declared_limits = DeclaredLimits::default();
    if source.text.len() > MAX_WORKFLOW_SOURCE_BYTES {
        report.error(
            Loc::START,
            codes::SOURCE_TOO_LARGE,
            format!("the source is {} bytes; the limit is {MAX_WORKFLOW_SOURCE_BYTES} bytes", source.text.len()),
            Some("split the workflow or shorten its prompts".into()),
        );
    } else if let Some(root) = tree::parse(&source.text, &mut report) {
        format = detect(&root);
        if format == Format::Native {
            declared_limits = native::declared_limits(&root);
        }
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
    Compiled { workflow, diagnostics, format, references: Vec::new(), declared_limits }
}

/// The format a single-file source would compile as, or `None` when the text is meant as no
/// workflow at all: it parses, but is not a mapping with a top-level `steps` or `stages` (or a
/// near spelling: `step`, `stage`, any case), which every single-file format has. Folders of
/// workflows also hold configs, agent definitions and manifests; those are told apart from
/// broken workflows this way, while a text that does not parse, or that has `steps` but is
/// wrong, is a workflow [`compile`] gives diagnostics for.
///
/// A JSON text (one that starts with `{`) is read with `serde_json`, skipping every value but a
/// top-level `stages`: far cheaper than the spanned parse a compile needs, and discovery asks
/// this of every file it lists.
pub fn detect_format(text: &str) -> Option<Format> {
    let top = if text.trim_start().starts_with('{') {
        match serde_json::from_str::<TopLevel>(text) {
            Ok(top) => top,
            Err(_) => return Some(Format::Native),
        }
    } else {
        match tree::parse(text, &mut Report::new("")) {
            Some(root) => TopLevel::of(&root)?,
            None => return Some(Format::Native),
        }
    };
    top.marked().then(|| top.format())
}

/// The format a parsed document compiles as (see [`TopLevel::format`]).
fn detect(root: &tree::Node) -> Format {
    TopLevel::of(root).map_or(Format::Native, |top| top.format())
}

/// What telling the formats apart reads of a document: its top-level keys, in order, and whether
/// the first `stages` holds a list.
#[derive(Debug, Default)]
struct TopLevel {
    keys: Vec<String>,
    stages_is_list: bool,
}

impl TopLevel {
    /// `None` when the document is no mapping.
    fn of(root: &tree::Node) -> Option<Self> {
        let tree::Value::Mapping(entries) = &root.value else { return None };
        let keys = entries.iter().filter_map(|(key, _)| key.as_str().map(str::to_owned)).collect();
        let stages_is_list = root.get("stages").is_some_and(|node| matches!(node.value, tree::Value::Sequence(_)));
        Some(Self { keys, stages_is_list })
    }

    /// A top-level `steps` or `stages`, or a near spelling (`step`, `stage`, any case).
    fn marked(&self) -> bool {
        self.keys
            .iter()
            .any(|key| ["steps", "step", "stages", "stage"].iter().any(|mark| key.eq_ignore_ascii_case(mark)))
    }

    fn has(&self, key: &str) -> bool {
        self.keys.iter().any(|found| found == key)
    }

    /// A top-level `stages:` list and no `steps:` make a stages file; `name` and `steps` (and no
    /// `title`) a WorkRail workflow; everything else is native.
    fn format(&self) -> Format {
        if self.stages_is_list && !self.has("steps") {
            Format::Stages
        } else if self.has("steps") && self.has("name") && !self.has("title") {
            Format::Workrail
        } else {
            Format::Native
        }
    }
}

impl<'de> serde::Deserialize<'de> for TopLevel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = TopLevel;

            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("a mapping")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
                let mut top = TopLevel::default();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "stages" && !top.has("stages") {
                        top.stages_is_list = map.next_value::<serde_json::Value>()?.is_array();
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                    top.keys.push(key);
                }
                Ok(top)
            }
        }
        deserializer.deserialize_map(Visitor)
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// What [`detect_format`] answers from the spanned parse a compile makes, for any text.
    fn detected_by_the_compile_parse(text: &str) -> Option<Format> {
        match tree::parse(text, &mut Report::new("")) {
            Some(root) => TopLevel::of(&root).and_then(|top| top.marked().then(|| top.format())),
            None => Some(Format::Native),
        }
    }

    /// A JSON object written out key by key, so keys may repeat.
    fn object(entries: &[(String, &str)]) -> String {
        let fields: Vec<String> =
            entries.iter().map(|(key, value)| format!("{}: {value}", serde_json::json!(key))).collect();
        format!("{{{}}}", fields.join(", "))
    }

    proptest! {
        #[test]
        fn json_is_detected_as_the_compile_parse_detects_it(
            entries in prop::collection::vec(
                (
                    prop::sample::select(vec!["steps", "Steps", "step", "STAGE", "stages", "name", "title", "id", "other"]),
                    prop::sample::select(vec!["[]", "[{\"id\": \"a\"}]", "\"text\"", "{\"steps\": []}", "3", "null"]),
                ),
                0..6,
            ),
            broken in any::<bool>(),
        ) {
            let entries: Vec<(String, &str)> = entries.into_iter().map(|(key, value)| (key.to_owned(), value)).collect();
            let mut text = object(&entries);
            if broken {
                text.pop();
            }
            prop_assert_eq!(detect_format(&text), detected_by_the_compile_parse(&text), "{}", text);
        }
    }

    #[test]
    fn every_corpus_file_is_detected_as_the_compile_parse_detects_it() {
        let mut checked = 0;
        let mut folders = vec![switchyard_test_support::testdata(), switchyard_test_support::corpora()];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else if path
                    .extension()
                    .is_some_and(|extension| ["json", "yaml", "yml"].iter().any(|e| extension == *e))
                {
                    let text = std::fs::read_to_string(&path).unwrap();
                    assert_eq!(detect_format(&text), detected_by_the_compile_parse(&text), "{}", path.display());
                    checked += 1;
                }
            }
        }
        assert!(checked > 50, "only {checked} corpus files found");
    }
}
