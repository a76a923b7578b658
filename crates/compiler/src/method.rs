//! The BMad Method front-ends (this crate loads BMad Method workflows; it is not one): classic
//! bundles (`workflow.yaml` + `instructions.md|xml`) and step-file bundles (`workflow.md` +
//! `steps/step-NN-*.md`), read from an in-memory [`Bundle`].
//!
//! Classic instructions are read with a lenient tag scanner: only the known tags are structure
//! (`step`, `check`, `goto`, `anchor`, `invoke-workflow`, `invoke-task`, `template-output`),
//! everything else is text, so the third of files that are not valid XML still load. Each
//! `<step n>` becomes a step in document order; `goto` adds an edge (bounded when it goes back),
//! `repeat`/`for-each` a bounded self-edge, and `if`/`optional` on a step a decision at the step
//! before it (do it, or skip it). Conditions in plain language reach the agent as the edge's
//! text; `name == 'value'` and `name != 'value'` become evaluated conditions.

use regex::Regex;
use switchyard_core::workflow::{EdgeKind, Limits};

use crate::diagnostic::Loc;
use crate::draft::{DraftEdge, DraftRules, DraftStep, DraftTarget, DraftWorkflow};
use crate::located::Located;

/// A regex compiled on first use and kept for the process: compiling one costs far more than
/// running it, and the front-end runs its patterns on every tag of every step.
macro_rules! regex {
    ($pattern:expr) => {{
        static REGEX: std::sync::LazyLock<Regex> =
            std::sync::LazyLock::new(|| Regex::new($pattern).expect("valid regex"));
        &*REGEX
    }};
}

/// How often a backward `goto` or a `repeat` may be taken in one branch.
pub(crate) const LOOP_BOUND: u32 = 10;

/// An edge being built: label, target step index (`None`: the run completes), default,
/// condition (CEL), condition text.
type BuildingEdge = (String, Option<usize>, bool, Option<String>, Option<String>);

/// A step of the graph being built: its id, prompt and edges.
struct Building {
    id: String,
    title: String,
    prompt: String,
    run_when: Option<String>,
    /// The method waits for the user at this step: a human approves its result.
    gate: bool,
    /// The method waits for the user only when this (evaluated) condition holds.
    gate_when: Option<String>,
    edges: Vec<BuildingEdge>,
}

mod classic;
mod config;
mod step_files;
mod tags;
mod waits;

pub(crate) use classic::read_classic;
pub(crate) use step_files::read_step_files;

fn located<T>(value: T) -> Located<T> {
    Located::new(value, Loc::START)
}

/// Turns built steps into a draft: edges to earlier steps (or to themselves) are bounded.
fn draft(id: String, title: String, description: String, steps: Vec<Building>) -> DraftWorkflow {
    let ids: Vec<String> = steps.iter().map(|step| step.id.clone()).collect();
    let steps = steps
        .into_iter()
        .enumerate()
        .map(|(index, step)| DraftStep {
            gate: step.gate,
            edges: step
                .edges
                .into_iter()
                .map(|(label, target, default, condition, text)| DraftEdge {
                    at: Loc::START,
                    target: match target {
                        Some(target) => DraftTarget::Step(located(ids[target].clone())),
                        None => DraftTarget::Complete,
                    },
                    label: located(label),
                    default,
                    condition: condition.map(located),
                    condition_text: text,
                    max_traversals: target.filter(|&target| target <= index).map(|_| LOOP_BOUND),
                    kind: EdgeKind::Normal,
                    set: Vec::new(),
                })
                .collect(),
            rules: DraftRules {
                run_when: step.run_when.map(located),
                gate_when: step.gate_when.map(located),
                ..DraftRules::default()
            },
            ..DraftStep::new(located(step.id), step.title, located(step.prompt))
        })
        .collect();
    DraftWorkflow {
        id: located(id),
        version: "1".to_owned(),
        title,
        description,
        tags: Vec::new(),
        start: None,
        steps,
        variables: Vec::new(),
        limits: Limits::default(),
    }
}

/// A workflow id from a name: lowercase, `a-z0-9._-` only.
pub(crate) fn workflow_id(name: &str) -> String {
    let id: String = name
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-') { c } else { '-' })
        .collect();
    let id = id.trim_matches(|c: char| !c.is_ascii_alphanumeric()).to_owned();
    if id.is_empty() { "workflow".to_owned() } else { id.chars().take(64).collect() }
}

/// A step id from a source label: kept when valid, else made valid.
fn step_id(label: &str, used: &mut Vec<String>) -> String {
    let mut id: String = label
        .trim()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') { c } else { '-' })
        .collect();
    if !id.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        id = format!("step-{id}");
    }
    let mut unique = id.clone();
    let mut counter = 2;
    while used.contains(&unique) {
        unique = format!("{id}-{counter}");
        counter += 1;
    }
    used.push(unique.clone());
    unique
}

/// `name == 'value'` or `name != 'value'` (braces allowed) as an evaluated CEL condition.
fn expression(condition: &str) -> Option<String> {
    let pattern = regex!(r#"^\s*\{*\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}*\s*(==|!=)\s*['"]?([^'"]*?)['"]?\s*$"#);
    let captures = pattern.captures(condition)?;
    let operator = if &captures[2] == "==" { "equals" } else { "not_equals" };
    Some(format!(
        "loose(value_of(context, {}), \"{operator}\", {})",
        serde_json::to_string(&captures[1]).ok()?,
        serde_json::to_string(&captures[3]).ok()?
    ))
}

fn parent(path: &str) -> String {
    match path.rfind('/') {
        Some(slash) => path[..=slash].to_owned(),
        None => String::new(),
    }
}

fn stem(path: &str) -> String {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name).to_owned()
}

#[cfg(test)]
mod tests {
    use super::{expression, workflow_id};

    #[test]
    fn only_simple_comparisons_are_evaluated() {
        assert!(expression("mode == 'fast'").is_some());
        assert!(expression("{{mode}} != \"slow\"").is_some());
        assert!(expression("user selects 2").is_none());
        assert_eq!(workflow_id("Story Done!"), "story-done");
    }
}
