//! The native front-end: reads the located tree of a native YAML or JSON workflow into a draft.
//! The field lists here and the serde types in `schema` describe the same format; a test keeps
//! them in step.

use switchyard_core::workflow::{
    DEFAULT_MAX_ATTEMPTS, EdgeKind, Layer, Limits, NotesPolicy, OutputCheck, StatusReportMode, ValueType,
};

use crate::diagnostic::{Report, codes};
use crate::draft::{DraftEdge, DraftRules, DraftStep, DraftTarget, DraftVariable, DraftWorkflow};
use crate::fields::{Fields, Located};
use crate::tree::{Node, Value};

pub(crate) const WORKFLOW_FIELDS: &[&str] = &[
    "$schema",
    "id",
    "version",
    "title",
    "description",
    "tags",
    "variables",
    "limits",
    "start",
    "strict_status",
    "steps",
];
pub(crate) const VARIABLE_FIELDS: &[&str] = &["type", "default", "layer", "description"];
pub(crate) const LIMITS_FIELDS: &[&str] = &["max_cycles", "max_revision_attempts", "max_replan_attempts"];
pub(crate) const STEP_FIELDS: &[&str] = &[
    "id",
    "title",
    "prompt",
    "role",
    "model",
    "notes",
    "output",
    "gate",
    "context_reset",
    "phase",
    "max_attempts",
    "end",
    "next",
    "when",
    "gate_when",
    "checks",
    "status_report",
    "audit",
];
pub(crate) const EDGE_FIELDS: &[&str] =
    &["to", "end", "label", "default", "when", "when_text", "max_traversals", "kind", "set"];

pub(crate) const VALUE_TYPES: &[(&str, ValueType)] = &[
    ("string", ValueType::String),
    ("integer", ValueType::Integer),
    ("number", ValueType::Number),
    ("boolean", ValueType::Boolean),
    ("array", ValueType::Array),
    ("object", ValueType::Object),
    ("any", ValueType::Any),
];
const LAYERS: &[(&str, Layer)] = &[
    ("critical", Layer::Critical),
    ("important", Layer::Important),
    ("useful", Layer::Useful),
    ("ephemeral", Layer::Ephemeral),
];
/// `status_report: true | false | strict`.
const STATUS_REPORTS: &[(&str, Option<StatusReportMode>)] =
    &[("true", Some(StatusReportMode::Graduated)), ("false", None), ("strict", Some(StatusReportMode::Strict))];
const NOTES: &[(&str, NotesPolicy)] = &[("required", NotesPolicy::Required), ("optional", NotesPolicy::Optional)];
const EDGE_KINDS: &[(&str, EdgeKind)] =
    &[("normal", EdgeKind::Normal), ("loop", EdgeKind::Loop), ("replan", EdgeKind::Replan)];

/// Reads a native workflow. Returns `None` only when the document is too broken to hold steps.
pub(crate) fn read(root: &Node, source: &str, report: &mut Report) -> Option<DraftWorkflow> {
    let fields = Fields::read(root, "the workflow", WORKFLOW_FIELDS, source, report)?;
    if let Some(schema) = fields.get("$schema")
        && schema.as_str().is_none()
    {
        report.error(schema.at, codes::INVALID_TYPE, "`$schema` must be a string", None);
    }
    let id =
        fields.required_string("id", "the workflow", report).unwrap_or_else(|| Located::new(String::new(), fields.at));
    let version = fields.string("version", report).map_or_else(|| "1".to_owned(), |v| v.value);
    let title = fields.string("title", report).map_or_else(|| id.value.clone(), |v| v.value);
    let description = fields.string("description", report).map(|v| v.value).unwrap_or_default();
    let start = fields.string("start", report);
    let tags = read_tags(&fields, report);
    let variables = fields.get("variables").map(|node| read_variables(node, source, report)).unwrap_or_default();
    let limits = fields.get("limits").map(|node| read_limits(node, source, report)).unwrap_or_default();
    let strict_status = fields.boolean("strict_status", report).is_some_and(|strict| strict.value);
    let mut steps: Vec<DraftStep> = match fields.list("steps", report) {
        Some(items) => items.iter().filter_map(|item| read_step(item, source, report)).collect(),
        None => {
            if fields.get("steps").is_none() {
                report.error(
                    fields.at,
                    codes::NO_STEPS,
                    "the workflow has no `steps`",
                    Some("add a `steps:` list".into()),
                );
            }
            Vec::new()
        }
    };
    if strict_status {
        // Workflow-wide strictness is written into each reporting step, so the IR says it once.
        for rules in
            steps.iter_mut().map(|step| &mut step.rules).filter(|rules| rules.status_report.is_some() || rules.audit)
        {
            rules.status_report = Some(StatusReportMode::Strict);
        }
    }
    Some(DraftWorkflow { id, version, title, description, tags, start, steps, variables, limits })
}

/// `tags: [review, security]`: strings, returned sorted and without repeats.
fn read_tags(fields: &Fields<'_>, report: &mut Report) -> Vec<String> {
    let mut tags = Vec::new();
    for item in fields.list("tags", report).unwrap_or_default() {
        match item.scalar_text() {
            Some(tag) if !tag.trim().is_empty() => tags.push(tag.trim().to_owned()),
            _ => report.error(item.at, codes::INVALID_TYPE, "each tag must be a non-empty string", None),
        }
    }
    tags.sort();
    tags.dedup();
    tags
}

fn read_variables(node: &Node, source: &str, report: &mut Report) -> Vec<DraftVariable> {
    let Value::Mapping(entries) = &node.value else {
        report.error(
            node.at,
            codes::INVALID_TYPE,
            format!("`variables` must be a mapping of name to declaration, found {}", node.value.kind()),
            Some("write `variables:` then one `name: {type: string}` per line".into()),
        );
        return Vec::new();
    };
    let mut variables: Vec<DraftVariable> = Vec::new();
    for (key, spec) in entries {
        let Some(name) = key.scalar_text() else {
            report.error(key.at, codes::INVALID_TYPE, "a variable name must be a string", None);
            continue;
        };
        if let Some(first) = variables.iter().find(|variable| variable.name.value == name) {
            report.error(
                key.at,
                codes::DUPLICATE_VARIABLE,
                format!("variable `{name}` is declared twice"),
                Some(format!("the first declaration is at line {}; keep one", first.name.at.line)),
            );
            continue;
        }
        let name = Located::new(name, key.at);
        // Shorthand: `name: string` declares the type only.
        if let Value::String(word) = &spec.value {
            let value_type = match VALUE_TYPES.iter().find(|(candidate, _)| candidate == word) {
                Some((_, value_type)) => *value_type,
                None => {
                    let words = VALUE_TYPES.iter().map(|(word, _)| *word);
                    report.error(
                        spec.at,
                        codes::INVALID_VALUE,
                        format!("`{word}` is not a variable type"),
                        crate::diagnostic::did_you_mean(word, words)
                            .or_else(|| Some("use string, integer, number, boolean, array, object or any".into())),
                    );
                    ValueType::Any
                }
            };
            variables.push(DraftVariable {
                name,
                value_type,
                default: None,
                layer: Layer::default(),
                description: None,
            });
            continue;
        }
        let what = format!("variable `{}`", name.value);
        let Some(fields) = Fields::read(spec, &what, VARIABLE_FIELDS, source, report) else {
            continue;
        };
        let value_type = fields.choice("type", VALUE_TYPES, report).map_or(ValueType::Any, |v| v.value);
        let default = fields.get("default").map(|node| Located::new(node.to_json(report), node.at));
        let layer = fields.choice("layer", LAYERS, report).map(|v| v.value).unwrap_or_default();
        let description = fields.string("description", report).map(|v| v.value);
        variables.push(DraftVariable { name, value_type, default, layer, description });
    }
    variables
}

/// Which of the limits `[execution]` may default the source's `limits` sets.
pub(crate) fn declared_limits(root: &Node) -> crate::DeclaredLimits {
    let limits = root.get("limits");
    let declared = |name: &str| limits.and_then(|limits| limits.get(name)).is_some();
    crate::DeclaredLimits {
        max_revision_attempts: declared("max_revision_attempts"),
        max_replan_attempts: declared("max_replan_attempts"),
    }
}

fn read_limits(node: &Node, source: &str, report: &mut Report) -> Limits {
    let defaults = Limits::default();
    let Some(fields) = Fields::read(node, "`limits`", LIMITS_FIELDS, source, report) else {
        return defaults;
    };
    Limits {
        max_cycles: fields.count("max_cycles", 1, report).map_or(defaults.max_cycles, |v| v.value),
        max_revision_attempts: fields
            .count("max_revision_attempts", 0, report)
            .map_or(defaults.max_revision_attempts, |v| v.value),
        max_replan_attempts: fields
            .count("max_replan_attempts", 0, report)
            .map_or(defaults.max_replan_attempts, |v| v.value),
    }
}

fn read_step(node: &Node, source: &str, report: &mut Report) -> Option<DraftStep> {
    let label = match node.get("id").and_then(Node::as_str) {
        Some(id) => format!("step `{id}`"),
        None => "a step".to_owned(),
    };
    let fields = Fields::read(node, &label, STEP_FIELDS, source, report)?;
    let id = fields.required_string("id", &label, report)?;
    let prompt =
        fields.required_string("prompt", &label, report).unwrap_or_else(|| Located::new(String::new(), fields.at));
    let title = fields.string("title", report).map_or_else(|| id.value.clone(), |v| v.value);
    let end = fields.boolean("end", report).filter(|end| end.value).map(|end| end.at);
    let next_at = fields.key_at("next").filter(|_| fields.get("next").is_some());
    let edges = match fields.get("next") {
        None => Vec::new(),
        Some(next) => read_next(next, source, report),
    };
    let mut rules = DraftRules {
        run_when: fields.string("when", report),
        gate_when: fields.string("gate_when", report),
        status_report: fields.choice("status_report", STATUS_REPORTS, report).and_then(|mode| mode.value),
        audit: fields.boolean("audit", report).is_some_and(|audit| audit.value),
        ..DraftRules::default()
    };
    if let Some(node) = fields.get("checks") {
        rules.checks_at = Some(node.at);
        match serde_json::from_value::<Vec<OutputCheck>>(node.to_json(report)) {
            Ok(checks) => rules.checks = checks,
            Err(error) => report.error(
                node.at,
                codes::INVALID_VALUE,
                format!("`checks` of {label} is not a list of output checks: {error}"),
                Some("each check is a mapping with `kind: contains|regex|length|schema|all|any|not`".into()),
            ),
        }
    }

    Some(DraftStep {
        title,
        prompt,
        role: fields.string("role", report).map(|v| v.value),
        model: fields.string("model", report).map(|v| v.value),
        notes: fields.choice("notes", NOTES, report).map_or(NotesPolicy::Required, |v| v.value),
        output: fields.get("output").map(|node| Located::new(node.to_json(report), node.at)),
        output_locations: fields.get("output").map(Node::pointer_locations).unwrap_or_default(),
        gate: fields.boolean("gate", report).is_some_and(|v| v.value),
        context_reset: fields.boolean("context_reset", report).is_some_and(|v| v.value),
        phase: fields.string("phase", report).map(|v| v.value),
        max_attempts: fields.count("max_attempts", 1, report).map_or(DEFAULT_MAX_ATTEMPTS, |v| v.value),
        end,
        next_at,
        edges,
        id,
        rules,
    })
}

fn read_next(next: &Node, source: &str, report: &mut Report) -> Vec<DraftEdge> {
    match &next.value {
        Value::Sequence(items) => items.iter().filter_map(|item| read_edge(item, source, report)).collect(),
        _ => match next.spelled_text(source) {
            // `next: review` is one default edge.
            Some(target) => vec![DraftEdge {
                at: next.at,
                label: Located::new(target.clone(), next.at),
                target: DraftTarget::Step(Located::new(target, next.at)),
                default: true,
                condition: None,
                condition_text: None,
                max_traversals: None,
                kind: EdgeKind::Normal,
                set: Vec::new(),
            }],
            None => {
                report.error(
                    next.at,
                    codes::INVALID_TYPE,
                    format!("`next` must be a step id or a list of edges, found {}", next.value.kind()),
                    None,
                );
                Vec::new()
            }
        },
    }
}

fn read_edge(node: &Node, source: &str, report: &mut Report) -> Option<DraftEdge> {
    // `- review` in a list is an edge to `review`, chosen by its label.
    if let Some(target) = node.as_str() {
        return Some(DraftEdge {
            at: node.at,
            label: Located::new(target.to_owned(), node.at),
            target: DraftTarget::Step(Located::new(target.to_owned(), node.at)),
            default: false,
            condition: None,
            condition_text: None,
            max_traversals: None,
            kind: EdgeKind::Normal,
            set: Vec::new(),
        });
    }
    let fields = Fields::read(node, "an edge", EDGE_FIELDS, source, report)?;
    let to = fields.string("to", report);
    let end = fields.boolean("end", report).filter(|end| end.value);
    let target = match (to, end) {
        (Some(to), None) => DraftTarget::Step(to),
        (None, Some(_)) => DraftTarget::Complete,
        (Some(_), Some(_)) => {
            report.error(
                fields.at,
                codes::EDGE_TARGET,
                "an edge has both `to` and `end: true`",
                Some("keep one of them".into()),
            );
            return None;
        }
        (None, None) => {
            report.error(
                fields.at,
                codes::EDGE_TARGET,
                "an edge has neither `to` nor `end: true`",
                Some("add `to: <step id>`, or `end: true` to complete the run".into()),
            );
            return None;
        }
    };
    let label = fields.string("label", report).unwrap_or_else(|| match &target {
        DraftTarget::Step(to) => to.clone(),
        DraftTarget::Complete => Located::new("complete".to_owned(), fields.at),
    });
    Some(DraftEdge {
        at: fields.at,
        target,
        label,
        default: fields.boolean("default", report).is_some_and(|v| v.value),
        condition: fields.string("when", report),
        condition_text: fields.string("when_text", report).map(|v| v.value),
        max_traversals: fields.count("max_traversals", 1, report).map(|v| v.value),
        kind: fields.choice("kind", EDGE_KINDS, report).map_or(EdgeKind::Normal, |v| v.value),
        set: read_set(fields.get("set"), report),
    })
}

/// `set: {name: <cel>}` on an edge.
fn read_set(node: Option<&Node>, report: &mut Report) -> Vec<(Located<String>, Located<String>)> {
    let Some(node) = node else { return Vec::new() };
    let Value::Mapping(entries) = &node.value else {
        report.error(
            node.at,
            codes::INVALID_TYPE,
            format!("`set` must be a mapping of variable name to CEL expression, found {}", node.value.kind()),
            Some("write `set: {attempts: \"context.attempts + 1\"}`".into()),
        );
        return Vec::new();
    };
    let mut assignments = Vec::new();
    for (key, value) in entries {
        match (key.scalar_text(), value.scalar_text()) {
            (Some(name), Some(expression)) => {
                assignments.push((Located::new(name, key.at), Located::new(expression, value.at)));
            }
            _ => report.error(value.at, codes::INVALID_TYPE, "each `set` entry maps a name to a CEL expression", None),
        }
    }
    assignments
}
