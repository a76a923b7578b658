//! The native front-end: reads a native YAML or JSON workflow into its `format` types (the one
//! definition of the format, which the schema is derived from) and turns them into a draft,
//! reporting what the types alone cannot: missing fields the reader goes on without, edges
//! without exactly one target, repeated or unknown variable types, `set` and `checks` entries of
//! the wrong shape.

pub(crate) mod format;

use std::collections::{HashMap, HashSet};

use serde::Deserialize;
use serde::de::IntoDeserializer;
use switchyard_core::evidence::CommandCheck;
use switchyard_core::workflow::{
    DEFAULT_MAX_ATTEMPTS, EdgeKind, Layer, Limits, NotesPolicy, StatusReportMode, ValueType,
};

use self::format::{
    Assignment, Assignments, Listed, NativeEdgeItem, NativeNext, NativeStep, NativeValueType, NativeWorkflow,
    VariableDeclaration, VariableEntry, Variables,
};
use crate::diagnostic::{Loc, Report, codes, did_you_mean};
use crate::draft::{DraftEdge, DraftRules, DraftStep, DraftTarget, DraftVariable, DraftWorkflow};
use crate::located::{self, Items, Located, Required, Scalar};
use crate::tree::{Node, Value};

/// Reads a native workflow. Returns `None` only when the document is too broken to hold steps.
pub(crate) fn read(root: &Node, source: &str, report: &mut Report) -> Option<DraftWorkflow> {
    let workflow: NativeWorkflow = located::read(root, source, section_name, report)?;
    if let Some(schema) = &workflow.schema
        && !matches!(schema.value, Scalar::String(_))
    {
        report.error(schema.at, codes::INVALID_TYPE, "`$schema` must be a string", None);
    }
    let id = workflow
        .id
        .given("the workflow", "id", root.at, report)
        .unwrap_or_else(|| Located::new(String::new(), root.at));
    let version = workflow.version.unwrap_or_else(|| "1".to_owned());
    let title = workflow.title.unwrap_or_else(|| id.value.clone());
    let description = workflow.description.unwrap_or_default();
    let tags = read_tags(workflow.tags.unwrap_or_default(), report);
    let variables = workflow.variables.map(|variables| read_variables(variables, report)).unwrap_or_default();
    let defaults = Limits::default();
    let limits = workflow.limits.map_or(defaults, |limits| Limits {
        max_cycles: limits.max_cycles.map_or(defaults.max_cycles, |count| count.0),
        max_revision_attempts: limits.max_revision_attempts.map_or(defaults.max_revision_attempts, |count| count.0),
        max_replan_attempts: limits.max_replan_attempts.map_or(defaults.max_replan_attempts, |count| count.0),
    });
    let strict_status = workflow.strict_status.unwrap_or(false);
    let mut steps: Vec<DraftStep> = match workflow.steps {
        Required::Given(Items(steps)) => {
            let nodes = Nodes::items_of(root.get("steps"));
            steps
                .into_iter()
                .map(|step| {
                    let node = nodes.at(step.at);
                    read_step(step, node, report)
                })
                .collect()
        }
        Required::Missing => {
            report.error(root.at, codes::NO_STEPS, "the workflow has no `steps`", Some("add a `steps:` list".into()));
            Vec::new()
        }
        Required::Wrong => Vec::new(),
    };
    if strict_status {
        // Workflow-wide strictness is written into each reporting step, so the IR says it once.
        for rules in
            steps.iter_mut().map(|step| &mut step.rules).filter(|rules| rules.status_report.is_some() || rules.audit)
        {
            rules.status_report = Some(StatusReportMode::Strict);
        }
    }
    Some(DraftWorkflow { id, version, title, description, tags, start: workflow.start, steps, variables, limits })
}

/// How diagnostics name each section of the format.
fn section_name(section: &'static str, node: &Node, key: Option<&str>) -> String {
    match section {
        "NativeStep" => match node.get("id").and_then(Node::as_str) {
            Some(id) => format!("step `{id}`"),
            None => "a step".to_owned(),
        },
        "NativeEdge" => "an edge".to_owned(),
        "NativeLimits" => "`limits`".to_owned(),
        "NativeVariable" => format!("variable `{}`", key.unwrap_or_default()),
        _ => "the workflow".to_owned(),
    }
}

/// Which limits `[execution]` may default the source's `limits` sets.
pub(crate) fn declared_limits(root: &Node) -> crate::DeclaredLimits {
    let limits = root.get("limits");
    let declared = |name: &str| limits.and_then(|limits| limits.get(name)).is_some();
    crate::DeclaredLimits {
        max_revision_attempts: declared("max_revision_attempts"),
        max_replan_attempts: declared("max_replan_attempts"),
    }
}

/// `tags: [review, security]`: scalars, returned sorted and without repeats.
fn read_tags(written: Vec<Located<Scalar>>, report: &mut Report) -> Vec<String> {
    let mut tags = Vec::new();
    for tag in written {
        match tag.value.text().map(str::trim) {
            Some(text) if !text.is_empty() => tags.push(text.to_owned()),
            _ => report.error(tag.at, codes::INVALID_TYPE, "each tag must be a non-empty string", None),
        }
    }
    tags.sort();
    tags.dedup();
    tags
}

fn read_variables(variables: Located<Variables>, report: &mut Report) -> Vec<DraftVariable> {
    let entries = match variables.value {
        Variables::Declared(entries) => entries,
        Variables::NotMapping(kind) => {
            report.error(
                variables.at,
                codes::INVALID_TYPE,
                format!("`variables` must be a mapping of name to declaration, found {kind}"),
                Some("write `variables:` then one `name: {type: string}` per line".into()),
            );
            return Vec::new();
        }
    };
    let mut read = Vec::new();
    for entry in entries {
        match entry {
            VariableEntry::NameNotScalar { at } => {
                report.error(at, codes::INVALID_TYPE, "a variable name must be a string", None);
            }
            VariableEntry::Repeated { name, first } => report.error(
                name.at,
                codes::DUPLICATE_VARIABLE,
                format!("variable `{}` is declared twice", name.value),
                Some(format!("the first declaration is at line {}; keep one", first.line)),
            ),
            VariableEntry::Unread => {}
            VariableEntry::Declared { name, declaration: VariableDeclaration::Type(word) } => {
                read.push(DraftVariable {
                    name,
                    value_type: shorthand_type(&word, report),
                    default: None,
                    layer: Layer::default(),
                    description: None,
                });
            }
            VariableEntry::Declared { name, declaration: VariableDeclaration::Full(declaration) } => {
                read.push(DraftVariable {
                    name,
                    value_type: declaration.value_type.map_or(ValueType::Any, ValueType::from),
                    default: declaration.default.map(|default| Located::new(default.value.0, default.at)),
                    layer: declaration.layer.map(Layer::from).unwrap_or_default(),
                    description: declaration.description,
                });
            }
        }
    }
    read
}

/// `name: string` declares the type only; an unknown word reads as `any` once reported.
fn shorthand_type(word: &Located<String>, report: &mut Report) -> ValueType {
    let read: Result<NativeValueType, serde::de::value::Error> =
        NativeValueType::deserialize(word.value.as_str().into_deserializer());
    if let Ok(value_type) = read {
        return value_type.into();
    }
    let words = located::words::<NativeValueType>();
    let help = match words.split_last() {
        Some((last, others)) => format!("use {} or {last}", others.join(", ")),
        None => String::new(),
    };
    report.error(
        word.at,
        codes::INVALID_VALUE,
        format!("`{}` is not a variable type", word.value),
        did_you_mean(&word.value, words.iter().copied()).or(Some(help)),
    );
    ValueType::Any
}

/// The items of a list in the tree, by where each is written: what a step's messages call it,
/// where each part of its `output` is written, and what an edge holds come from the tree.
struct Nodes<'a>(HashMap<Loc, &'a Node>);

impl<'a> Nodes<'a> {
    fn items_of(list: Option<&'a Node>) -> Self {
        match list.map(|list| &list.value) {
            Some(Value::Sequence(items)) => Self(items.iter().map(|item| (item.at, item)).collect()),
            _ => Self(HashMap::new()),
        }
    }

    fn at(&self, at: Loc) -> Option<&'a Node> {
        self.0.get(&at).copied()
    }
}

fn read_step(step: Located<NativeStep>, node: Option<&Node>, report: &mut Report) -> DraftStep {
    let at = step.at;
    let step = step.value;
    let label = node.map_or_else(|| "a step".to_owned(), |node| section_name("NativeStep", node, None));
    let id = step.id;
    let run_at = step.run.as_ref().map(|run| run.at);
    let on_failure_at = step.on_failure.as_ref().map(|target| target.at);
    let run = step.run.map(|run| CommandCheck {
        run: run.value,
        shell: step.shell.unwrap_or(false),
        timeout: step.timeout.as_ref().map(|timeout| timeout.value.clone()),
        expect_exit: 0,
    });
    let prompt = match (step.prompt, &run) {
        (Required::Missing, Some(command)) => {
            Located::new(format!("switchyard runs `{}` itself.", command.display()), at)
        }
        (prompt, _) => prompt.given(&label, "prompt", at, report).unwrap_or_else(|| Located::new(String::new(), at)),
    };
    let next_at = node.and_then(|node| key_at(node, "next")).filter(|_| step.next.is_some());
    let mut edges = match step.next {
        None => Vec::new(),
        // `next: review` is one default edge.
        Some(NativeNext::Step(target)) => {
            vec![DraftEdge { default: true, ..DraftEdge::new(target.at, DraftTarget::Step(target.clone()), target) }]
        }
        Some(NativeNext::Edges(Items(items))) => {
            let nodes = Nodes::items_of(node.and_then(|node| node.get("next")));
            items.into_iter().filter_map(|item| read_edge(item, &nodes, report)).collect()
        }
        Some(NativeNext::Neither(at, kind)) => {
            report.error(
                at,
                codes::INVALID_TYPE,
                format!("`next` must be a step id or a list of edges, found {kind}"),
                None,
            );
            Vec::new()
        }
    };
    // Without `run` there is no exit code to fail on: the checks report it, without this edge.
    if let Some(target) = step.on_failure.filter(|_| run.is_some()) {
        // Tried first: a failed command goes there whatever the other edges say.
        let failed = DraftEdge {
            condition: Some(Located::new("exit_code != 0".to_owned(), target.at)),
            condition_text: Some("the command failed".to_owned()),
            // Bounded as a loop: failing and fixing again is another cycle (`max_cycles`).
            kind: EdgeKind::Loop,
            ..DraftEdge::new(
                target.at,
                DraftTarget::Step(target.clone()),
                Located::new("on_failure".to_owned(), target.at),
            )
        };
        edges.insert(0, failed);
    }
    let mut rules = DraftRules {
        run_when: step.when,
        gate_when: step.gate_when,
        status_report: step.status_report.and_then(Option::<StatusReportMode>::from),
        audit: step.audit.unwrap_or(false),
        run_at,
        on_failure_at,
        run,
        ..DraftRules::default()
    };
    if let Some(checks) = step.checks {
        rules.checks_at = Some(checks.at);
        match checks.value {
            Listed::Read(checks) => rules.checks = checks,
            Listed::NotRead(error) => report.error(
                checks.at,
                codes::INVALID_VALUE,
                format!("`checks` of {label} is not a list of output checks: {error}"),
                Some("each check is a mapping with `kind: contains|regex|length|schema|condition|all|any|not`".into()),
            ),
        }
    }
    if let Some(evidence) = step.evidence {
        rules.evidence_at = Some(evidence.at);
        match evidence.value {
            Listed::Read(checks) => rules.evidence = checks,
            Listed::NotRead(error) => report.error(
                evidence.at,
                codes::INVALID_VALUE,
                format!("`evidence` of {label} is not a list of evidence checks: {error}"),
                Some("each check is a mapping with `kind: files|changed|command|test_report|artifact_paths`".into()),
            ),
        }
    }
    let output_locations = match (&step.output, node.and_then(|node| node.get("output"))) {
        (Some(_), Some(output)) => output.pointer_locations(),
        _ => Vec::new(),
    };
    DraftStep {
        title: step.title.unwrap_or_else(|| id.value.clone()),
        prompt,
        role: step.role,
        model: step.model,
        // A command's report has no notes: switchyard writes it.
        notes: if rules.run.is_some() {
            NotesPolicy::Optional
        } else {
            step.notes.map_or(NotesPolicy::Required, NotesPolicy::from)
        },
        output: step.output.map(|output| Located::new(output.value.0, output.at)),
        output_locations,
        gate: step.gate.unwrap_or(false),
        context_reset: step.context_reset.unwrap_or(false),
        phase: step.phase,
        max_attempts: step.max_attempts.map_or(DEFAULT_MAX_ATTEMPTS, |count| count.0),
        end: step.end.filter(|end| end.value).map(|end| end.at),
        next_at,
        edges,
        id,
        rules,
    }
}

/// Where the first `key` of a mapping is written.
fn key_at(node: &Node, key: &str) -> Option<Loc> {
    match &node.value {
        Value::Mapping(entries) => entries.iter().find(|(name, _)| name.as_str() == Some(key)).map(|(name, _)| name.at),
        _ => None,
    }
}

fn read_edge(item: NativeEdgeItem, nodes: &Nodes<'_>, report: &mut Report) -> Option<DraftEdge> {
    let edge = match item {
        // `- review` in a list is an edge to `review`, chosen by its label.
        NativeEdgeItem::Step(target) => {
            return Some(DraftEdge::new(target.at, DraftTarget::Step(target.clone()), target));
        }
        NativeEdgeItem::Edge(edge) => edge,
    };
    let at = edge.at;
    let edge = edge.value;
    let target = match (edge.to, edge.end.filter(|end| *end)) {
        (Some(to), None) => DraftTarget::Step(to),
        (None, Some(_)) => DraftTarget::Complete,
        (Some(_), Some(_)) => {
            left_unjudged(nodes.at(at), report);
            report.error(
                at,
                codes::EDGE_TARGET,
                "an edge has both `to` and `end: true`",
                Some("keep one of them".into()),
            );
            return None;
        }
        (None, None) => {
            left_unjudged(nodes.at(at), report);
            report.error(
                at,
                codes::EDGE_TARGET,
                "an edge has neither `to` nor `end: true`",
                Some("add `to: <step id>`, or `end: true` to complete the run".into()),
            );
            return None;
        }
    };
    let label = edge.label.unwrap_or_else(|| match &target {
        DraftTarget::Step(to) => to.clone(),
        DraftTarget::Complete => Located::new("complete".to_owned(), at),
    });
    Some(DraftEdge {
        default: edge.default.unwrap_or(false),
        condition: edge.when,
        condition_text: edge.when_text,
        max_traversals: edge.max_traversals.map(|count| count.0),
        kind: edge.kind.map_or(EdgeKind::Normal, EdgeKind::from),
        set: read_set(edge.set, report),
        ..DraftEdge::new(at, target, label)
    })
}

/// An edge without exactly one target is left out with that one error: what its other fields
/// hold is moot until it leads somewhere, so what the reader said of them is taken back.
fn left_unjudged(edge: Option<&Node>, report: &mut Report) {
    let Some(Value::Mapping(entries)) = edge.map(|edge| &edge.value) else { return };
    let unjudged: HashSet<Loc> = entries
        .iter()
        .filter(|(key, _)| !matches!(key.as_str(), Some("to" | "end")))
        .flat_map(|(_, value)| value.pointer_locations())
        .map(|(_, at)| at)
        .collect();
    report.diagnostics.retain(|said| !unjudged.contains(&Loc { line: said.line, column: said.column }));
}

/// `set: {name: <cel>}` on an edge.
fn read_set(set: Option<Located<Assignments>>, report: &mut Report) -> Vec<(Located<String>, Located<String>)> {
    let Some(set) = set else { return Vec::new() };
    let assignments = match set.value {
        Assignments::Written(assignments) => assignments,
        Assignments::NotMapping(kind) => {
            report.error(
                set.at,
                codes::INVALID_TYPE,
                format!("`set` must be a mapping of variable name to CEL expression, found {kind}"),
                Some("write `set: {attempts: \"context.attempts + 1\"}`".into()),
            );
            return Vec::new();
        }
    };
    let mut read = Vec::new();
    for assignment in assignments {
        match assignment {
            Assignment::Set { name, expression } => read.push((name, expression)),
            Assignment::NotText { at } => {
                report.error(at, codes::INVALID_TYPE, "each `set` entry maps a name to a CEL expression", None);
            }
        }
    }
    read
}

#[cfg(test)]
mod tests {
    use crate::{Source, compile};

    /// `section_name` knows the sections by the struct names serde passes; renaming a struct must
    /// not leave its messages naming the workflow.
    #[test]
    fn every_section_is_named_in_its_messages() {
        let text = "id: demo\nbogus: 1\nlimits: {bogus: 1}\nvariables:\n  n: {bogus: 1}\nsteps:\n  - id: a\n    bogus: 1\n    prompt: x\n    next: [{end: true, bogus: 1}]\n";
        let compiled = compile(&Source::new("test.yaml", text));
        let messages: Vec<&str> = compiled.diagnostics.iter().map(|diagnostic| diagnostic.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unknown field `bogus` in the workflow",
                "unknown field `bogus` in `limits`",
                "unknown field `bogus` in variable `n`",
                "unknown field `bogus` in step `a`",
                "unknown field `bogus` in an edge",
            ]
        );
    }
}
