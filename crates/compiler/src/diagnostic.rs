//! Diagnostics: what the compiler reports, where, and how to fix it.

use std::fmt;

use serde::Serialize;

/// How serious a diagnostic is. Any error withholds the compiled workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn name(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
        }
    }
}

/// One problem found in a workflow source, located in its file (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code a program or an agent can react to; see [`codes::ALL`].
    pub code: &'static str,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub help: Option<String>,
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl Diagnostic {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}[{}]: {}",
            self.file,
            self.line,
            self.column,
            self.severity.name(),
            self.code,
            self.message
        )?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// The stable diagnostic codes, each with a one-line fix (the same list is in
/// `docs/workflow-format.md`).
pub mod codes {
    pub const SOURCE_TOO_LARGE: &str = "source-too-large";
    pub const YAML_SYNTAX: &str = "yaml-syntax";
    pub const JSON_SYNTAX: &str = "json-syntax";
    pub const DUPLICATE_KEY: &str = "duplicate-key";
    pub const INVALID_TYPE: &str = "invalid-type";
    pub const INVALID_VALUE: &str = "invalid-value";
    pub const MISSING_FIELD: &str = "missing-field";
    pub const UNKNOWN_FIELD: &str = "unknown-field";
    pub const INVALID_ID: &str = "invalid-id";
    pub const DUPLICATE_STEP: &str = "duplicate-step";
    pub const DUPLICATE_VARIABLE: &str = "duplicate-variable";
    pub const RESERVED_VARIABLE: &str = "reserved-variable";
    pub const DEFAULT_TYPE_MISMATCH: &str = "default-type-mismatch";
    pub const NO_STEPS: &str = "no-steps";
    pub const UNKNOWN_TARGET: &str = "unknown-target";
    pub const EDGE_TARGET: &str = "edge-target";
    pub const END_WITH_NEXT: &str = "end-with-next";
    pub const DUPLICATE_LABEL: &str = "duplicate-label";
    pub const MULTIPLE_DEFAULTS: &str = "multiple-defaults";
    pub const EDGE_AFTER_DEFAULT: &str = "edge-after-default";
    pub const CONDITIONAL_DEFAULT: &str = "conditional-default";
    pub const UNREACHABLE_STEP: &str = "unreachable-step";
    pub const NO_PATH_TO_END: &str = "no-path-to-end";
    pub const UNBOUNDED_CYCLE: &str = "unbounded-cycle";
    pub const CONDITION_SYNTAX: &str = "condition-syntax";
    pub const CONDITION_UNKNOWN_VARIABLE: &str = "condition-unknown-variable";
    pub const CONDITION_TYPE_MISMATCH: &str = "condition-type-mismatch";
    pub const TEMPLATE_SYNTAX: &str = "template-syntax";
    pub const TEMPLATE_UNKNOWN_VARIABLE: &str = "template-unknown-variable";
    pub const OUTPUT_SCHEMA_INVALID: &str = "output-schema-invalid";
    pub const OUTPUT_SCHEMA_UNKNOWN_KEYWORD: &str = "output-schema-unknown-keyword";
    pub const EVIDENCE_INVALID: &str = "evidence-invalid";
    pub const RUN_STEP: &str = "run-step";
    pub const ON_COMPLETE_IGNORED: &str = "on-complete-ignored";
    pub const LOOP_DISABLED: &str = "loop-disabled";
    pub const WORKRAIL_SCHEMA: &str = "workrail-schema";
    pub const WORKRAIL_CONDITION: &str = "workrail-condition";
    pub const WORKRAIL_LOOP: &str = "workrail-loop";
    pub const WORKRAIL_PROMPT: &str = "workrail-prompt";
    pub const WORKRAIL_VALIDATION: &str = "workrail-validation";
    pub const WORKRAIL_TEMPLATE: &str = "workrail-template";
    pub const WORKRAIL_UNSUPPORTED: &str = "workrail-unsupported";
    pub const UNKNOWN_BUNDLE: &str = "unknown-bundle";
    pub const METHOD_CONFIG: &str = "method-config";
    pub const METHOD_MISSING_FILE: &str = "method-missing-file";
    pub const METHOD_GOTO: &str = "method-goto";
    pub const METHOD_CONFIG_SOURCE: &str = "method-config-source";
    pub const METHOD_INVOKE: &str = "method-invoke";
    pub const CREWAGENT_MISSING_FILE: &str = "crewagent-missing-file";
    pub const CREWAGENT_SCHEMA: &str = "crewagent-schema";
    pub const CREWAGENT_GRAPH: &str = "crewagent-graph";
    pub const CREWAGENT_CONDITION: &str = "crewagent-condition";
    pub const CREWAGENT_SUBWORKFLOW: &str = "crewagent-subworkflow";

    /// Every code with a one-line fix.
    pub const ALL: &[(&str, &str)] = &[
        (SOURCE_TOO_LARGE, "split the workflow or shorten its prompts; sources are limited to 2 MiB"),
        (YAML_SYNTAX, "fix the YAML at the location shown (indentation, quotes, brackets, tags, aliases)"),
        (JSON_SYNTAX, "fix the JSON at the location shown"),
        (DUPLICATE_KEY, "remove or rename one of the two keys"),
        (INVALID_TYPE, "give the field a value of the type named in the message"),
        (INVALID_VALUE, "use one of the values the message lists, or a number in range"),
        (MISSING_FIELD, "add the field named in the message"),
        (UNKNOWN_FIELD, "remove the field or fix its spelling (see the suggestion)"),
        (INVALID_ID, "use letters, digits, `.`, `_`, `-` as the message says"),
        (DUPLICATE_STEP, "give every step a unique id"),
        (DUPLICATE_VARIABLE, "declare each variable once"),
        (RESERVED_VARIABLE, "rename the variable; the name is provided by the engine"),
        (DEFAULT_TYPE_MISMATCH, "change the default or the declared type so they agree"),
        (NO_STEPS, "add at least one step"),
        (UNKNOWN_TARGET, "point the edge (or `start`) at an existing step id"),
        (EDGE_TARGET, "give the edge exactly one of `to: <step>` or `end: true`"),
        (END_WITH_NEXT, "remove `end: true` or remove `next`"),
        (DUPLICATE_LABEL, "give each edge of a step its own label"),
        (MULTIPLE_DEFAULTS, "mark at most one edge per step `default: true`"),
        (EDGE_AFTER_DEFAULT, "move the default edge last so edges read in evaluation order"),
        (CONDITIONAL_DEFAULT, "drop `when` from the default edge or drop `default: true`"),
        (UNREACHABLE_STEP, "add an edge to the step or remove it"),
        (NO_PATH_TO_END, "add an edge towards an end step or an `end: true` edge"),
        (UNBOUNDED_CYCLE, "give one edge of the cycle `max_traversals`, or `kind: loop` / `kind: replan`"),
        (CONDITION_SYNTAX, "fix the CEL expression at the location shown"),
        (CONDITION_UNKNOWN_VARIABLE, "declare the variable under `variables` or use a reserved name"),
        (CONDITION_TYPE_MISMATCH, "compare the variable with a value of its declared type"),
        (TEMPLATE_SYNTAX, "fix the minijinja template at the location shown"),
        (TEMPLATE_UNKNOWN_VARIABLE, "declare the variable under `variables` or use a reserved name"),
        (OUTPUT_SCHEMA_INVALID, "make `output` a valid JSON Schema (draft 2020-12)"),
        (OUTPUT_SCHEMA_UNKNOWN_KEYWORD, "fix the keyword's spelling, or quote a YAML flow value that contains a comma"),
        (EVIDENCE_INVALID, "fix the evidence check as the message says (docs/evidence.md lists each kind)"),
        (RUN_STEP, "give a `run` step a command switchyard can run, and no report fields of an agent's step"),
        (ON_COMPLETE_IGNORED, "move `on_complete` to the last stage"),
        (LOOP_DISABLED, "set `loop_on_changes: true` or drop `loop` from `on_complete`"),
        (WORKRAIL_SCHEMA, "make the file match WorkRail's spec/workflow.schema.json at the location shown"),
        (WORKRAIL_CONDITION, "write the condition as `{\"var\": name, <operator>: value}` or and/or/not"),
        (WORKRAIL_LOOP, "give the loop a known type, a body that exists, and no loop inside its body"),
        (WORKRAIL_PROMPT, "give the step one of `prompt` and `promptBlocks`"),
        (
            WORKRAIL_VALIDATION,
            "use validation rules of type contains, regex, length or schema, composed with and/or/not",
        ),
        (WORKRAIL_TEMPLATE, "give `templateCall.args` every argument the routine uses"),
        (
            WORKRAIL_UNSUPPORTED,
            "the workflow runs; the feature named is shown as text or left out, as the message says",
        ),
        (UNKNOWN_BUNDLE, "give the folder a bmad.json (CrewAgent), a workflow.yaml, or a workflow.md with step files"),
        (METHOD_CONFIG, "make workflow.yaml a valid YAML mapping"),
        (METHOD_MISSING_FILE, "add the file the workflow names, or fix the path"),
        (METHOD_GOTO, "point the goto at an existing step `n` or anchor id"),
        (
            METHOD_CONFIG_SOURCE,
            "put the module config that `config_source` names in the bundle, or give it the key the workflow reads",
        ),
        (METHOD_INVOKE, "put the invoked workflow in the bundle, or fix it so it compiles on its own"),
        (CREWAGENT_MISSING_FILE, "add the file the package names, or fix the path in bmad.json or the graph"),
        (CREWAGENT_SCHEMA, "make the file match its CrewAgent v1.1 schema at the location shown"),
        (
            CREWAGENT_GRAPH,
            "fix the graph: known node ids, an entry node, a reachable end, decisions with two branches and a default",
        ),
        (CREWAGENT_CONDITION, "use JSONLogic operators var, ==, !=, ===, !==, <, <=, >, >=, and, or, !, !!, in"),
        (
            CREWAGENT_SUBWORKFLOW,
            "name a workflow of the same package (step frontmatter `subworkflowRef`, or the node's `file`)",
        ),
    ];
}

/// A 1-based position in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub(crate) struct Loc {
    pub line: u32,
    pub column: u32,
}

impl Loc {
    pub const START: Loc = Loc { line: 1, column: 1 };
}

/// Collects diagnostics for one source file.
#[derive(Debug)]
pub(crate) struct Report {
    file: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    pub fn new(file: &str) -> Self {
        Self { file: file.to_owned(), diagnostics: Vec::new() }
    }

    pub fn error(&mut self, at: Loc, code: &'static str, message: impl Into<String>, help: Option<String>) {
        self.push(Severity::Error, at, code, message.into(), help);
    }

    pub fn warning(&mut self, at: Loc, code: &'static str, message: impl Into<String>, help: Option<String>) {
        self.push(Severity::Warning, at, code, message.into(), help);
    }

    fn push(&mut self, severity: Severity, at: Loc, code: &'static str, message: String, help: Option<String>) {
        self.diagnostics.push(Diagnostic {
            severity,
            code,
            message,
            help,
            file: self.file.clone(),
            line: at.line.max(1),
            column: at.column.max(1),
        });
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// The first error's message, when there is one.
    pub fn first_error(&self) -> Option<String> {
        self.diagnostics.iter().find(|diagnostic| diagnostic.is_error()).map(|error| error.message.clone())
    }
}

pub(crate) use switchyard_core::suggest::closest;

/// `did you mean `x`?` help text, when a close candidate exists.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<String> {
    closest(word, candidates).map(|candidate| format!("did you mean `{candidate}`?"))
}
