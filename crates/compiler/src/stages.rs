//! The stages front-end (seed 004): a linear list of stages with optional human gates and a
//! loop-or-close decision after the last stage, compiled to the same draft as native files.
//! The format is the types below, read through `located` as the native format is.

use serde::Deserialize;
use switchyard_core::workflow::{EdgeKind, Limits};

use crate::diagnostic::{Loc, Report, codes, did_you_mean};
use crate::draft::{DraftEdge, DraftRules, DraftStep, DraftTarget, DraftWorkflow};
use crate::located::{self, Count, Located, Maybe, Required, Scalar, lenient};
use crate::tree::Node;

const ON_COMPLETE_WORDS: &[&str] = &["loop", "close"];

/// A stages workflow as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StagesWorkflow {
    #[serde(default)]
    name: Required<Located<String>>,
    #[serde(default, deserialize_with = "lenient")]
    description: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    loop_on_changes: Option<bool>,
    #[serde(default, deserialize_with = "lenient")]
    max_cycles: Option<Count<1>>,
    /// Each stage as written, `None` where it could not be read (and was reported).
    #[serde(default, deserialize_with = "lenient")]
    stages: Option<Vec<Maybe<Located<StageFields>>>>,
}

/// One stage as written; without a `name` it is left out.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StageFields {
    name: Located<String>,
    #[serde(default)]
    role: Required<String>,
    #[serde(default)]
    model: Required<String>,
    #[serde(default, deserialize_with = "lenient")]
    human_gate: Option<bool>,
    #[serde(default, deserialize_with = "lenient")]
    context_reset: Option<bool>,
    #[serde(default, deserialize_with = "lenient")]
    on_complete: Option<Vec<Located<Scalar>>>,
    /// The stage is an audit: its artifacts are the audit-extended status report.
    #[serde(default, deserialize_with = "lenient")]
    audit: Option<bool>,
}

/// How diagnostics name each section of the format.
fn section_name(section: &'static str, _: &Node, _: Option<&str>) -> String {
    match section {
        "StageFields" => "a stage".to_owned(),
        _ => "the stages workflow".to_owned(),
    }
}

/// Reads a stages workflow. Returns `None` only when the document is too broken to hold stages.
pub(crate) fn read(root: &Node, source: &str, report: &mut Report) -> Option<DraftWorkflow> {
    let workflow: StagesWorkflow = located::read(root, source, section_name, report)?;
    let id = workflow
        .name
        .given("the stages workflow", "name", root.at, report)
        .unwrap_or_else(|| Located::new(String::new(), root.at));
    let description = workflow.description.unwrap_or_default();
    let loop_on_changes = workflow.loop_on_changes.unwrap_or(false);
    let max_cycles = workflow.max_cycles.map_or(Limits::default().max_cycles, |count| count.0);
    let items = workflow.stages.unwrap_or_default();
    if items.is_empty() {
        report.error(root.at, codes::NO_STEPS, "the workflow has no stages", Some("add a `stages:` list".into()));
    }
    let stages: Vec<Stage> =
        items.into_iter().filter_map(|stage| stage.0).map(|stage| read_stage(stage, report)).collect();

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
    at: Loc,
    name: Located<String>,
    role: String,
    model: String,
    human_gate: bool,
    context_reset: bool,
    /// The stage is an audit: its artifacts are the audit-extended status report.
    audit: bool,
    on_complete: Vec<Located<String>>,
}

fn read_stage(stage: Located<StageFields>, report: &mut Report) -> Stage {
    let at = stage.at;
    let stage = stage.value;
    let what = format!("stage `{}`", stage.name.value);
    let role = stage.role.given(&what, "role", at, report).unwrap_or_default();
    let model = stage.model.given(&what, "model", at, report).unwrap_or_default();
    let mut on_complete = Vec::new();
    for word in stage.on_complete.unwrap_or_default() {
        let text = word.value.text().unwrap_or_default().to_owned();
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
    Stage {
        at,
        role,
        model,
        human_gate: stage.human_gate.unwrap_or(false),
        context_reset: stage.context_reset.unwrap_or(false),
        audit: stage.audit.unwrap_or(false),
        on_complete,
        name: stage.name,
    }
}

fn edge(target: DraftTarget, label: Located<String>, default: bool, kind: EdgeKind) -> DraftEdge {
    DraftEdge { default, kind, ..DraftEdge::new(label.at, target, label) }
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
