//! Test-only text fixtures: a compact way to write workflow IR and drive the engine in tests.
//!
//! ```text
//! limits <max_cycles> <max_revision_attempts> <max_replan_attempts>
//! var <name> <type> [<default as JSON>]
//! step <id> [gate] [notes] [phase=<name>] [attempts=<n>]
//! prompt <template, rest of line>
//! schema <JSON Schema, rest of line>
//! edge <label> -> <step id | complete> [default] [loop | replan] [max=<n>] [if <CEL, rest of line>]
//! report [strict]
//! audit
//! evidence <JSON evidence check, rest of line>
//! run <JSON command, rest of line>
//! ```
//! `prompt`, `schema` and `edge` apply to the step above them. The first step is the entry.

use serde_json::{Map, Value};
use switchyard_core::evidence::Snapshot;
use switchyard_core::id::{AttemptId, NodeId};
use switchyard_core::state::{Control, NodeState, ReportPolicy};
use switchyard_core::workflow::{
    DEFAULT_MAX_ATTEMPTS, Edge, EdgeKind, EdgeTarget, IR_VERSION, Layer, Limits, NotesPolicy, StatusReportMode, Step,
    StepId, ValueType, Variable, Workflow,
};

use crate::{Advance, Command, Error, Fresh, LoadedWorkflow, RunView, Transition};

pub(crate) fn workflow(text: &str) -> Workflow {
    let mut workflow = Workflow {
        ir_version: IR_VERSION,
        id: "fixture".to_owned(),
        version: "1".to_owned(),
        title: "Fixture".to_owned(),
        description: String::new(),
        tags: Vec::new(),
        entry: StepId::new(""),
        steps: Vec::new(),
        variables: Vec::new(),
        limits: Limits::default(),
        rules: std::collections::BTreeMap::new(),
    };
    for line in text.lines().map(str::trim).filter(|line| !line.is_empty()) {
        let (keyword, rest) = line.split_once(' ').unwrap_or((line, ""));
        match keyword {
            "limits" => {
                let numbers: Vec<u32> = rest.split_whitespace().map(|n| n.parse().unwrap()).collect();
                workflow.limits = Limits {
                    max_cycles: numbers[0],
                    max_revision_attempts: numbers[1],
                    max_replan_attempts: numbers[2],
                };
            }
            "var" => {
                let mut parts = rest.splitn(3, ' ');
                let name = parts.next().unwrap().to_owned();
                let value_type =
                    serde_json::from_value::<ValueType>(Value::String(parts.next().unwrap().to_owned())).unwrap();
                let default = parts.next().map(|json| serde_json::from_str(json).unwrap());
                workflow.variables.push(Variable {
                    name,
                    value_type,
                    default,
                    layer: Layer::Important,
                    description: None,
                });
            }
            "step" => {
                let mut words = rest.split_whitespace();
                let id = words.next().unwrap();
                let mut step = Step {
                    id: StepId::new(id),
                    title: format!("Step {id}"),
                    prompt: format!("Do {id}."),
                    role: None,
                    model: None,
                    notes: NotesPolicy::Optional,
                    output_schema: None,
                    gate: false,
                    context_reset: false,
                    phase: None,
                    max_attempts: DEFAULT_MAX_ATTEMPTS,
                    edges: Vec::new(),
                };
                for word in words {
                    match word.split_once('=') {
                        None if word == "gate" => step.gate = true,
                        None if word == "notes" => step.notes = NotesPolicy::Required,
                        Some(("phase", phase)) => step.phase = Some(phase.to_owned()),
                        Some(("attempts", n)) => step.max_attempts = n.parse().unwrap(),
                        _ => panic!("unknown step option `{word}`"),
                    }
                }
                if workflow.steps.is_empty() {
                    workflow.entry = step.id.clone();
                }
                workflow.steps.push(step);
            }
            "prompt" => workflow.steps.last_mut().unwrap().prompt = rest.to_owned(),
            // `runs <cel>`: the last step's run condition.
            "runs" => {
                let id = workflow.steps.last().unwrap().id.clone();
                workflow.rules.entry(id).or_default().run_when = Some(rest.to_owned());
            }
            // `gate_when <cel>`: the last step is a gate when the condition holds.
            "gate_when" => {
                let id = workflow.steps.last().unwrap().id.clone();
                workflow.rules.entry(id).or_default().gate_when = Some(rest.to_owned());
            }
            // `run <json CommandCheck>`: the last step is one switchyard runs itself.
            "run" => {
                let id = workflow.steps.last().unwrap().id.clone();
                workflow.rules.entry(id).or_default().run = Some(serde_json::from_str(rest).unwrap());
            }
            // `evidence <json EvidenceCheck>`: an evidence check on the last step.
            "evidence" => {
                let id = workflow.steps.last().unwrap().id.clone();
                workflow.rules.entry(id).or_default().evidence.push(serde_json::from_str(rest).unwrap());
            }
            // `check <json OutputCheck>`: an output check on the last step.
            "check" => {
                let id = workflow.steps.last().unwrap().id.clone();
                workflow.rules.entry(id).or_default().checks.push(serde_json::from_str(rest).unwrap());
            }
            // `set <name> <cel>`: an assignment on the last edge of the last step.
            "set" => {
                let (name, expression) = rest.split_once(' ').unwrap();
                let step = workflow.steps.last().unwrap();
                let label = step.edges.last().unwrap().label.clone();
                let id = step.id.clone();
                workflow
                    .rules
                    .entry(id)
                    .or_default()
                    .assign
                    .entry(label)
                    .or_default()
                    .insert(name.to_owned(), expression.to_owned());
            }
            // `report [strict]`: the last step's artifacts are a status report.
            "report" => {
                let id = workflow.steps.last().unwrap().id.clone();
                let mode = if rest == "strict" { StatusReportMode::Strict } else { StatusReportMode::Graduated };
                workflow.rules.entry(id).or_default().status_report = Some(mode);
            }
            // `audit`: the last step is an audit.
            "audit" => {
                let id = workflow.steps.last().unwrap().id.clone();
                workflow.rules.entry(id).or_default().audit = true;
            }
            "schema" => workflow.steps.last_mut().unwrap().output_schema = Some(serde_json::from_str(rest).unwrap()),
            "edge" => {
                let (head, condition) = match rest.split_once(" if ") {
                    Some((head, condition)) => (head, Some(condition.to_owned())),
                    None => (rest, None),
                };
                let mut words = head.split_whitespace();
                let label = words.next().unwrap().to_owned();
                assert_eq!(words.next(), Some("->"), "edge `{label}` needs `->`");
                let target = match words.next().unwrap() {
                    "complete" => EdgeTarget::Complete,
                    step => EdgeTarget::Step(StepId::new(step)),
                };
                let mut edge = Edge {
                    target,
                    label,
                    default: false,
                    condition_text: condition.as_ref().map(|c| format!("`{c}`")),
                    condition,
                    max_traversals: None,
                    kind: EdgeKind::Normal,
                };
                for word in words {
                    match word.split_once('=') {
                        None if word == "default" => edge.default = true,
                        None if word == "loop" => edge.kind = EdgeKind::Loop,
                        None if word == "replan" => edge.kind = EdgeKind::Replan,
                        Some(("max", n)) => edge.max_traversals = Some(n.parse().unwrap()),
                        _ => panic!("unknown edge option `{word}`"),
                    }
                }
                workflow.steps.last_mut().unwrap().edges.push(edge);
            }
            other => panic!("unknown fixture keyword `{other}`"),
        }
    }
    workflow
}

pub(crate) fn load(text: &str) -> LoadedWorkflow {
    LoadedWorkflow::new(workflow(text)).unwrap()
}

pub(crate) fn node_id(n: u64) -> NodeId {
    let mut bytes = [0; 16];
    bytes[8..].copy_from_slice(&n.to_be_bytes());
    NodeId::from_bytes(bytes)
}

pub(crate) fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

pub(crate) fn advance() -> Advance {
    Advance {
        attempt: AttemptId::from_bytes([9; 16]),
        notes: None,
        artifacts: None,
        context: None,
        choice: None,
        evidence: Vec::new(),
    }
}

pub(crate) fn choose(label: &str) -> Command {
    Command::Advance(Advance { choice: Some(label.to_owned()), ..advance() })
}

/// An advance to step `to` (`complete`: the end of the run), the edge left to the engine.
pub(crate) fn toward(to: &str) -> Command {
    let to = if to == "complete" { EdgeTarget::Complete } else { EdgeTarget::Step(StepId::new(to)) };
    Command::AdvanceTo { advance: advance(), to }
}

pub(crate) fn plain() -> Command {
    Command::Advance(advance())
}

/// A linear run driven through the engine: each accepted command moves the tip.
#[derive(Debug)]
pub(crate) struct Run {
    pub loaded: LoadedWorkflow,
    pub goal: String,
    pub control: Control,
    pub tip: NodeId,
    pub state: NodeState,
    /// The run's report policy, handed to every transition.
    pub reports: ReportPolicy,
    /// The snapshot handed to every transition, as the runtime would for a step that needs one.
    pub snapshot: Option<Snapshot>,
    text: String,
    next_id: u64,
}

impl Run {
    pub(crate) fn start(text: &str) -> Self {
        Self::start_with(text, Map::new())
    }

    pub(crate) fn start_with(text: &str, context: Map<String, Value>) -> Self {
        let loaded = load(text);
        let started = crate::start(&loaded, "ship it", context, &Default::default(), Fresh::node(node_id(1))).unwrap();
        let (tip, state) = started.node.unwrap();
        Self {
            loaded,
            goal: "ship it".to_owned(),
            control: Control::Running,
            tip,
            state,
            reports: ReportPolicy::default(),
            snapshot: None,
            text: text.to_owned(),
            next_id: 2,
        }
    }

    /// A copy of the run at its tip, to try another command there (ids continue from here).
    pub(crate) fn branch(&self) -> Self {
        Self {
            loaded: load(&self.text),
            goal: self.goal.clone(),
            control: self.control,
            tip: self.tip,
            state: self.state.clone(),
            reports: self.reports,
            snapshot: self.snapshot.clone(),
            text: self.text.clone(),
            next_id: self.next_id + 1000,
        }
    }

    pub(crate) fn try_apply(&mut self, command: Command) -> Result<Transition, Error> {
        let view = RunView {
            control: self.control,
            node: self.tip,
            state: &self.state,
            has_children: false,
            goal: &self.goal,
            reports: self.reports,
            project: &Default::default(),
        };
        let fresh = Fresh { node: node_id(self.next_id), snapshot: self.snapshot.clone() };
        let transition = crate::transition(&self.loaded, view, command, fresh)?;
        self.next_id += 1;
        self.control = transition.control;
        if let Some((node, state)) = &transition.node {
            self.tip = *node;
            self.state = state.clone();
        }
        Ok(transition)
    }

    pub(crate) fn apply(&mut self, command: Command) -> Transition {
        self.try_apply(command).unwrap()
    }

    pub(crate) fn step(&self) -> &str {
        self.state.step.as_str()
    }

    pub(crate) fn status(&self) -> switchyard_core::state::RunStatus {
        self.state.status()
    }
}

/// The event names of a transition, for compact assertions.
pub(crate) fn names(transition: &Transition) -> Vec<&'static str> {
    transition.events.iter().map(|event| event.name()).collect()
}
