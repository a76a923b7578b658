//! The stages front-end (seed 004): a linear list of stages with optional human gates and a
//! loop-or-close decision after the last stage, compiled to the same draft as native files.

use switchyard_core::workflow::{EdgeKind, Limits};

use crate::diagnostic::{Report, codes, did_you_mean};
use crate::draft::{DraftEdge, DraftRules, DraftStep, DraftTarget, DraftWorkflow};
use crate::fields::{Fields, Located};
use crate::tree::Node;

pub(crate) const WORKFLOW_FIELDS: &[&str] = &["name", "description", "loop_on_changes", "max_cycles", "stages"];
pub(crate) const STAGE_FIELDS: &[&str] =
    &["name", "role", "model", "human_gate", "context_reset", "on_complete", "audit"];
const ON_COMPLETE_WORDS: &[&str] = &["loop", "close"];

/// Reads a stages workflow. Returns `None` only when the document is too broken to hold stages.
pub(crate) fn read(root: &Node, source: &str, report: &mut Report) -> Option<DraftWorkflow> {
    let fields = Fields::read(root, "the stages workflow", WORKFLOW_FIELDS, source, report)?;
    let id = fields
        .required_string("name", "the stages workflow", report)
        .unwrap_or_else(|| Located::new(String::new(), fields.at));
    let description = fields.string("description", report).map(|v| v.value).unwrap_or_default();
    let loop_on_changes = fields.boolean("loop_on_changes", report).is_some_and(|v| v.value);
    let max_cycles = fields.count("max_cycles", 1, report).map_or(Limits::default().max_cycles, |v| v.value);
    let items = fields.list("stages", report).unwrap_or_default();
    if items.is_empty() {
        report.error(fields.at, codes::NO_STEPS, "the workflow has no stages", Some("add a `stages:` list".into()));
    }
    let stages: Vec<Stage> = items.iter().filter_map(|item| read_stage(item, source, report)).collect();

    let first = stages.first().map(|stage| stage.name.clone());
    let count = stages.len();
    let mut steps = Vec::with_capacity(count);
    for (index, stage) in stages.iter().enumerate() {
        let is_last = index + 1 == count;
        let wants_loop = stage.on_complete.iter().any(|word| word.value == "loop");
        if !is_last && let Some(word) = stage.on_complete.first() {
            report.warning(
                word.at,
                codes::ON_COMPLETE_IGNORED,
                format!(
                    "`on_complete` on stage `{}` is ignored: only the last stage decides to loop or close",
                    stage.name.value
                ),
                Some("move `on_complete` to the last stage".into()),
            );
        }
        if is_last && wants_loop && !loop_on_changes {
            let at = stage.on_complete.iter().find(|word| word.value == "loop").map_or(stage.at, |word| word.at);
            report.warning(
                at,
                codes::LOOP_DISABLED,
                "`on_complete` asks to loop but `loop_on_changes` is not true, so the last stage ends the run",
                Some("set `loop_on_changes: true` or drop `loop`".into()),
            );
        }
        let loops = is_last && wants_loop && loop_on_changes;
        let edges = match (&first, stages.get(index + 1)) {
            (_, Some(next)) if !is_last => {
                vec![edge(DraftTarget::Step(next.name.clone()), next.name.clone(), true, EdgeKind::Normal)]
            }
            (Some(first), _) if loops => vec![
                edge(DraftTarget::Step(first.clone()), Located::new("loop".into(), stage.at), false, EdgeKind::Loop),
                edge(DraftTarget::Complete, Located::new("close".into(), stage.at), true, EdgeKind::Normal),
            ],
            _ => Vec::new(),
        };
        let prompt = stage_prompt(&id.value, stage, first.as_ref().map(|first| first.value.as_str()), loops);
        steps.push(DraftStep {
            rules: DraftRules { audit: stage.audit, ..DraftRules::default() },
            role: Some(stage.role.clone()),
            model: Some(stage.model.clone()),
            gate: stage.human_gate,
            context_reset: stage.context_reset,
            edges,
            ..DraftStep::new(stage.name.clone(), stage.name.value.clone(), Located::new(prompt, stage.at))
        });
    }
    Some(DraftWorkflow {
        title: id.value.clone(),
        id,
        version: "1".to_owned(),
        description,
        tags: Vec::new(),
        start: None,
        steps,
        variables: Vec::new(),
        limits: Limits { max_cycles, ..Limits::default() },
    })
}

#[derive(Debug)]
struct Stage {
    at: crate::diagnostic::Loc,
    name: Located<String>,
    role: String,
    model: String,
    human_gate: bool,
    context_reset: bool,
    /// The stage is an audit: its artifacts are the audit-extended status report.
    audit: bool,
    on_complete: Vec<Located<String>>,
}

fn read_stage(node: &Node, source: &str, report: &mut Report) -> Option<Stage> {
    let fields = Fields::read(node, "a stage", STAGE_FIELDS, source, report)?;
    let name = fields.required_string("name", "a stage", report)?;
    let what = format!("stage `{}`", name.value);
    let role = fields.required_string("role", &what, report).map(|v| v.value).unwrap_or_default();
    let model = fields.required_string("model", &what, report).map(|v| v.value).unwrap_or_default();
    let mut on_complete = Vec::new();
    for word in fields.list("on_complete", report).unwrap_or_default() {
        let text = word.scalar_text().unwrap_or_default();
        if ON_COMPLETE_WORDS.contains(&text.as_str()) {
            on_complete.push(Located::new(text, word.at));
        } else {
            report.error(
                word.at,
                codes::INVALID_VALUE,
                format!("`on_complete` accepts `loop` and `close`, found `{text}`"),
                did_you_mean(&text, ON_COMPLETE_WORDS.iter().copied()),
            );
        }
    }
    Some(Stage {
        at: fields.at,
        role,
        model,
        human_gate: fields.boolean("human_gate", report).is_some_and(|v| v.value),
        context_reset: fields.boolean("context_reset", report).is_some_and(|v| v.value),
        audit: fields.boolean("audit", report).is_some_and(|v| v.value),
        on_complete,
        name,
    })
}

fn edge(target: DraftTarget, label: Located<String>, default: bool, kind: EdgeKind) -> DraftEdge {
    DraftEdge {
        at: label.at,
        target,
        label,
        default,
        condition: None,
        condition_text: None,
        max_traversals: None,
        kind,
        set: Vec::new(),
    }
}

/// The prompt of a stage: who the agent is, the goal, any rejection to address, and how to finish.
fn stage_prompt(workflow: &str, stage: &Stage, first: Option<&str>, loops: bool) -> String {
    let mut prompt = format!(
        "You are the {role} in the `{workflow}` workflow, working on the `{name}` stage.\n\
         \n\
         Goal: {{{{ goal }}}}\n\
         {{% if rejection %}}\n\
         A reviewer rejected the previous result of this stage:\n\
         {{{{ rejection }}}}\n\
         Address that feedback before anything else.\n\
         {{% endif %}}\n\
         Do the work of the `{name}` stage as a {role} would, and only that stage.\n\
         When you advance, write notes that say what you did, what you decided and why, \
         and what the next stage needs to know.",
        role = stage.role,
        name = stage.name.value,
    );
    if loops {
        prompt.push_str(&format!(
            "\n\nThen choose how the cycle ends: `loop` to start another cycle at `{}` because changes are still needed, \
             or `close` when the work is done.",
            first.unwrap_or_default()
        ));
    }
    prompt
}
