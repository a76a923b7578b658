//! `LoadedWorkflow`: a workflow IR checked once and compiled for the engine (CEL programs per
//! edge, a JSON Schema validator per step, a minijinja environment holding every prompt).
//!
//! The runtime caches one `Arc<LoadedWorkflow>` per workflow hash, so this type is `Send + Sync`
//! and immutable after `new`.

use std::collections::{HashMap, HashSet};
use std::fmt;

use switchyard_core::evidence::{CommandCheck, ProjectCommands};
use switchyard_core::why::{Evaluated, Subject, Verdict};
use switchyard_core::workflow::{EdgeTarget, Step, StepId, StepRules, Workflow, WorkflowHash};

use crate::conditions::{Conditions, compile_condition};
use crate::error::Error;
use crate::output_checks::CompiledCheck;

/// A workflow ready to run.
pub struct LoadedWorkflow {
    pub workflow: Workflow,
    pub hash: WorkflowHash,
    compiled: Vec<CompiledStep>,
    index: HashMap<StepId, usize>,
    templates: minijinja::Environment<'static>,
    /// Some step's evidence compares with the workspace as it was handed out.
    compares_workspace: bool,
    /// Some step runs a project command (`run: {project: test_command}`).
    runs_project_commands: bool,
}

struct CompiledStep {
    /// One entry per edge, in edge order; `None` for an unconditional edge.
    conditions: Vec<Option<cel::Program>>,
    schema: Option<jsonschema::Validator>,
    /// `StepRules::run_when`: the step is skipped when it is false.
    run_when: Option<cel::Program>,
    /// `StepRules::gate_when`.
    gate_when: Option<cel::Program>,
    /// One entry per edge, in edge order: the edge's assignments, by variable name.
    assignments: Vec<Vec<(String, cel::Program)>>,
    checks: Vec<CompiledCheck>,
}

impl fmt::Debug for LoadedWorkflow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedWorkflow")
            .field("id", &self.workflow.id)
            .field("version", &self.workflow.version)
            .field("hash", &self.hash)
            .finish_non_exhaustive()
    }
}

impl LoadedWorkflow {
    /// Checks the graph (entry, targets, unique ids and labels) and compiles every condition,
    /// output schema and prompt template. Any failure is `INVALID_WORKFLOW`.
    pub fn new(workflow: Workflow) -> Result<Self, Error> {
        let invalid = |message: String| Error::InvalidWorkflow { workflow: workflow.id.clone(), message };
        let mut index = HashMap::new();
        for (position, step) in workflow.steps.iter().enumerate() {
            if index.insert(step.id.clone(), position).is_some() {
                return Err(invalid(format!("step id `{}` is used twice", step.id)));
            }
        }
        if !index.contains_key(&workflow.entry) {
            return Err(invalid(format!("the entry step `{}` does not exist", workflow.entry)));
        }
        let mut templates = minijinja::Environment::new();
        // Prompts are markdown for an agent, never HTML, whatever the step id looks like.
        templates.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        crate::functions::register_templates(&mut templates);
        let mut compiled = Vec::with_capacity(workflow.steps.len());
        for step in &workflow.steps {
            compiled.push(compile_step(step, workflow.rules(&step.id), &index).map_err(&invalid)?);
            templates.add_template_owned(step.id.0.clone(), step.prompt.clone()).map_err(|error| {
                invalid(format!("the prompt of step `{}` is not a valid template: {error}", step.id))
            })?;
        }
        for id in workflow.rules.keys() {
            if !index.contains_key(id) {
                return Err(invalid(format!("rules are given for step `{id}`, which does not exist")));
            }
        }
        let hash = workflow.hash();
        let compares_workspace = workflow.steps.iter().any(|step| workflow.needs_snapshot(&step.id));
        let runs_project_commands = !workflow.project_commands().is_empty();
        Ok(Self { workflow, hash, compiled, index, templates, compares_workspace, runs_project_commands })
    }

    /// Whether some step runs a project command, so a run keeps the ones it was started with.
    pub fn runs_project_commands(&self) -> bool {
        self.runs_project_commands
    }

    /// Whether some step's evidence compares with the workspace as it was when the step was
    /// handed out: only then can a command land on a node that needs a snapshot.
    pub fn compares_workspace(&self) -> bool {
        self.compares_workspace
    }

    pub(crate) fn step(&self, id: &StepId) -> Result<&Step, Error> {
        self.index
            .get(id)
            .map(|&position| &self.workflow.steps[position])
            .ok_or_else(|| Error::UnknownStep { workflow: self.workflow.id.clone(), step: id.to_string() })
    }

    pub(crate) fn conditions(&self, id: &StepId) -> &[Option<cel::Program>] {
        self.index.get(id).map(|&position| self.compiled[position].conditions.as_slice()).unwrap_or_default()
    }

    pub(crate) fn schema(&self, id: &StepId) -> Option<&jsonschema::Validator> {
        self.index.get(id).and_then(|&position| self.compiled[position].schema.as_ref())
    }

    fn compiled(&self, id: &StepId) -> Option<&CompiledStep> {
        self.index.get(id).map(|&position| &self.compiled[position])
    }

    /// Whether the step runs when the run arrives at it: its run condition holds (or it has
    /// none) and, for a step that runs a project command, the run was started with that command.
    pub(crate) fn runs(&self, id: &StepId, conditions: &Conditions, project: &ProjectCommands) -> bool {
        let unset = self
            .workflow
            .run_of(id)
            .and_then(CommandCheck::project_command)
            .filter(|command| !project.contains_key(command));
        if let Some(command) = unset {
            conditions.note(|| Evaluated {
                step: id.clone(),
                subject: Subject::RunWhen,
                text: format!("[project] {} is set in switchyard.toml", command.key()),
                read: Default::default(),
                result: Verdict::NotHeld,
                nearest: None,
            });
            return false;
        }
        self.compiled(id).and_then(|step| step.run_when.as_ref()).is_none_or(|program| {
            let text = self.workflow.rules(id).run_when.as_deref().unwrap_or_default();
            conditions.decide(id, Subject::RunWhen, text, program)
        })
    }

    /// Whether an advance of the step waits for a human: `gate`, or `gate_when` holding.
    pub(crate) fn is_gate(&self, step: &Step, conditions: &Conditions) -> bool {
        step.gate
            || self.compiled(&step.id).and_then(|step| step.gate_when.as_ref()).is_some_and(|program| {
                let text = self.workflow.rules(&step.id).gate_when.as_deref().unwrap_or_default();
                conditions.decide(&step.id, Subject::GateWhen, text, program)
            })
    }

    /// The assignments of edge number `edge` of the step.
    pub(crate) fn assignments(&self, id: &StepId, edge: usize) -> &[(String, cel::Program)] {
        self.compiled(id).and_then(|step| step.assignments.get(edge)).map(Vec::as_slice).unwrap_or_default()
    }

    pub(crate) fn checks(&self, id: &StepId) -> &[CompiledCheck] {
        self.compiled(id).map(|step| step.checks.as_slice()).unwrap_or_default()
    }

    pub(crate) fn templates(&self) -> &minijinja::Environment<'static> {
        &self.templates
    }
}

fn compile_program(source: &str, what: impl FnOnce() -> String) -> Result<cel::Program, String> {
    compile_condition(source).map_err(|error| format!("{} {error}", what()))
}

fn compile_step(step: &Step, rules: &StepRules, index: &HashMap<StepId, usize>) -> Result<CompiledStep, String> {
    let mut labels = HashSet::new();
    let mut conditions = Vec::with_capacity(step.edges.len());
    for edge in &step.edges {
        if !labels.insert(edge.label.as_str()) {
            return Err(format!("step `{}` has two edges labelled `{}`", step.id, edge.label));
        }
        if let EdgeTarget::Step(target) = &edge.target
            && !index.contains_key(target)
        {
            return Err(format!("edge `{}` of step `{}` leads to unknown step `{target}`", edge.label, step.id));
        }
        let program = match &edge.condition {
            Some(source) => Some(
                compile_condition(source)
                    .map_err(|error| format!("the condition of edge `{}` of step `{}` {error}", edge.label, step.id))?,
            ),
            None => None,
        };
        conditions.push(program);
    }
    let schema = match &step.output_schema {
        Some(schema) => Some(
            jsonschema::validator_for(schema)
                .map_err(|error| format!("the output schema of step `{}` is invalid: {error}", step.id))?,
        ),
        None => None,
    };
    for label in rules.assign.keys() {
        if !step.edges.iter().any(|edge| &edge.label == label) {
            return Err(format!("step `{}` assigns on edge `{label}`, which it does not have", step.id));
        }
    }
    let mut assignments = Vec::with_capacity(step.edges.len());
    for edge in &step.edges {
        let mut programs = Vec::new();
        for (name, source) in rules.assign.get(&edge.label).into_iter().flatten() {
            let program = compile_program(source, || {
                format!("the assignment of `{name}` on edge `{}` of step `{}`", edge.label, step.id)
            })?;
            programs.push((name.clone(), program));
        }
        assignments.push(programs);
    }
    let run_when = rules
        .run_when
        .as_deref()
        .map(|source| compile_program(source, || format!("the run condition of step `{}`", step.id)))
        .transpose()?;
    let gate_when = rules
        .gate_when
        .as_deref()
        .map(|source| compile_program(source, || format!("the gate condition of step `{}`", step.id)))
        .transpose()?;
    let checks = rules.checks.iter().map(CompiledCheck::compile).collect::<Result<Vec<_>, _>>()?;
    Ok(CompiledStep { conditions, schema, run_when, gate_when, assignments, checks })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::Scope;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn a_condition_nested_past_the_bound_is_refused_before_parsing() {
        // Deep enough to overflow the CEL parser's stack if it were parsed.
        let deep = format!("{}true{}", "(".repeat(500), ")".repeat(500));
        let mut workflow = crate::fixture::workflow("step a\nedge on -> complete if true");
        workflow.steps[0].edges[0].condition = Some(deep);
        let error = LoadedWorkflow::new(workflow).unwrap_err();
        assert_eq!(error.code(), "INVALID_WORKFLOW");
        assert!(error.to_string().contains("500 levels deep"), "{error}");
    }

    #[test]
    fn loaded_workflows_can_be_shared_between_threads() {
        assert_send_sync::<LoadedWorkflow>();
    }

    #[test]
    fn json_integers_do_arithmetic_with_cel_literals() {
        let context: serde_json::Map<String, serde_json::Value> =
            serde_json::from_value(serde_json::json!({"count": 2})).unwrap();
        let workflow: Workflow = serde_json::from_value(serde_json::json!({
            "ir_version": 1, "id": "w", "version": "1", "title": "", "description": "", "entry": "a",
            "steps": [], "variables": [], "limits": {"max_cycles": 1, "max_revision_attempts": 1, "max_replan_attempts": 1}
        }))
        .unwrap();
        let scope = Scope { context: &context, artifacts: None, goal: "g", cycle: 0, attempt: 1, run_step: false };
        let conditions = Conditions::new(&workflow, &scope);
        let program = cel::Program::compile("context.count + 1 == 3 && attempt - 1 == 0").unwrap();
        assert!(conditions.holds(&program));
        let broken = cel::Program::compile("context.missing > 1").unwrap();
        assert!(!conditions.holds(&broken));
    }
}
