//! The located draft: what a front-end read from its source, before the checks turn it into
//! the IR. Every name and expression keeps its location for the checks' diagnostics.

use switchyard_core::evidence::{CommandCheck, EvidenceCheck};
use switchyard_core::workflow::{
    DEFAULT_MAX_ATTEMPTS, EdgeKind, Layer, Limits, NotesPolicy, OutputCheck, StatusReportMode, ValueType,
};

use crate::diagnostic::Loc;
use crate::located::Located;

#[derive(Debug, Clone)]
pub(crate) struct DraftWorkflow {
    pub id: Located<String>,
    pub version: String,
    pub title: String,
    pub description: String,
    pub tags: Vec<String>,
    pub start: Option<Located<String>>,
    pub steps: Vec<DraftStep>,
    pub variables: Vec<DraftVariable>,
    pub limits: Limits,
}

#[derive(Debug, Clone)]
pub(crate) struct DraftStep {
    pub id: Located<String>,
    pub title: String,
    pub prompt: Located<String>,
    pub role: Option<String>,
    pub model: Option<String>,
    pub notes: NotesPolicy,
    pub output: Option<Located<serde_json::Value>>,
    /// JSON pointer of every value inside `output`, with where it is written.
    pub output_locations: Vec<(String, Loc)>,
    pub gate: bool,
    pub context_reset: bool,
    pub phase: Option<String>,
    pub max_attempts: u32,
    /// Where `end: true` was written, if it was.
    pub end: Option<Loc>,
    /// Where `next` was written, if it was.
    pub next_at: Option<Loc>,
    pub edges: Vec<DraftEdge>,
    pub rules: DraftRules,
}

impl DraftStep {
    /// A step with what every front-end must say, and the native format's defaults for the rest:
    /// notes required, no gate, no output contract, no edges (an end step), no rules.
    pub fn new(id: Located<String>, title: String, prompt: Located<String>) -> Self {
        Self {
            id,
            title,
            prompt,
            role: None,
            model: None,
            notes: NotesPolicy::Required,
            output: None,
            output_locations: Vec::new(),
            gate: false,
            context_reset: false,
            phase: None,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            end: None,
            next_at: None,
            edges: Vec::new(),
            rules: DraftRules::default(),
        }
    }
}

/// The step's `StepRules` (edge assignments live on the edges), located for the checks.
#[derive(Debug, Clone, Default)]
pub(crate) struct DraftRules {
    pub run_when: Option<Located<String>>,
    pub gate_when: Option<Located<String>>,
    pub checks: Vec<OutputCheck>,
    pub checks_at: Option<Loc>,
    pub status_report: Option<StatusReportMode>,
    pub audit: bool,
    pub evidence: Vec<EvidenceCheck>,
    pub evidence_at: Option<Loc>,
    /// The command of a step switchyard runs itself, where `run` and `on_failure` are written.
    pub run: Option<CommandCheck>,
    pub run_at: Option<Loc>,
    pub on_failure_at: Option<Loc>,
}

#[derive(Debug, Clone)]
pub(crate) enum DraftTarget {
    Step(Located<String>),
    Complete,
}

#[derive(Debug, Clone)]
pub(crate) struct DraftEdge {
    pub at: Loc,
    pub target: DraftTarget,
    pub label: Located<String>,
    pub default: bool,
    pub condition: Option<Located<String>>,
    pub condition_text: Option<String>,
    pub max_traversals: Option<u32>,
    pub kind: EdgeKind,
    /// Assignments made when the edge is taken: (variable, CEL expression).
    pub set: Vec<(Located<String>, Located<String>)>,
}

impl DraftEdge {
    /// An edge with what every front-end must say, and the native format's defaults for the rest:
    /// not the default edge, no condition, no bound, normal, no assignments.
    pub fn new(at: Loc, target: DraftTarget, label: Located<String>) -> Self {
        Self {
            at,
            target,
            label,
            default: false,
            condition: None,
            condition_text: None,
            max_traversals: None,
            kind: EdgeKind::Normal,
            set: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct DraftVariable {
    pub name: Located<String>,
    pub value_type: ValueType,
    pub default: Option<Located<serde_json::Value>>,
    pub layer: Layer,
    pub description: Option<String>,
}
