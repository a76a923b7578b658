//! The checks every draft goes through, whatever its source format, and the lowering of a clean
//! draft to the IR. Every check reports and goes on, so one run shows every problem.

use std::collections::{BTreeMap, HashMap, VecDeque};

use switchyard_core::evidence::{CommandCheck, CommandLine, EvidenceCheck};
use switchyard_core::workflow::{
    Edge, EdgeKind, EdgeTarget, IR_VERSION, OutputCheck, Step, StepId, StepRules, ValueType, Variable, Workflow,
    validate_workflow_id,
};

use crate::diagnostic::{Report, codes, did_you_mean};
use crate::draft::{DraftStep, DraftTarget, DraftWorkflow};
use crate::expressions::{self, CONDITION_RESERVED, TEMPLATE_RESERVED};
use crate::located::Located;

/// Runs every check on the draft; returns the IR when none of them found an error.
pub(crate) fn check(draft: &DraftWorkflow, report: &mut Report) -> Option<Workflow> {
    check_ids(draft, report);
    check_steps_exist(draft, report);
    check_variables(draft, report);
    let declared: Vec<&str> = draft.variables.iter().map(|variable| variable.name.value.as_str()).collect();
    let typed: Vec<(&str, ValueType)> =
        draft.variables.iter().map(|variable| (variable.name.value.as_str(), variable.value_type)).collect();
    for step in &draft.steps {
        check_step(draft, step, &declared, report);
        for condition in step_conditions(step) {
            expressions::check_condition_types(condition, &typed, report);
        }
    }
    // The graph checks need unique step ids; with duplicates they would only repeat that error.
    let unique_ids =
        draft.steps.iter().map(|step| step.id.value.as_str()).collect::<std::collections::HashSet<_>>().len()
            == draft.steps.len();
    let graph = Graph::new(draft);
    if let Some(entry) = graph.entry(draft, report)
        && unique_ids
    {
        check_reachability(draft, &graph, entry, report);
        check_ends(draft, &graph, report);
        check_cycles(draft, &graph, report);
    }
    if report.has_errors() { None } else { Some(lower(draft)) }
}

/// Every CEL expression of a step that decides a path: its edges' conditions and assignments,
/// its run condition and its gate condition.
fn step_conditions(step: &DraftStep) -> impl Iterator<Item = &Located<String>> {
    let edges = step.edges.iter().flat_map(|edge| edge.condition.iter().chain(edge.set.iter().map(|(_, value)| value)));
    edges.chain(step.rules.run_when.iter()).chain(step.rules.gate_when.iter())
}

/// A run starts at the first step (or `start`), so a workflow with an empty step list is refused
/// here as `start` would refuse it. A format reader that already said so is not repeated.
fn check_steps_exist(draft: &DraftWorkflow, report: &mut Report) {
    if draft.steps.is_empty() && !report.diagnostics.iter().any(|diagnostic| diagnostic.code == codes::NO_STEPS) {
        report.error(
            draft.id.at,
            codes::NO_STEPS,
            format!("the workflow `{}` has no steps, so a run of it would have no step to start at", draft.id.value),
            Some("add at least one step under `steps:`".into()),
        );
    }
}

/// `[A-Za-z0-9][A-Za-z0-9_.-]*`
pub(crate) fn is_valid_step_id(id: &str) -> bool {
    let mut bytes = id.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphanumeric())
        && bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// Names usable in both CEL and minijinja: `[A-Za-z_][A-Za-z0-9_]*`.
fn is_valid_variable_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn check_ids(draft: &DraftWorkflow, report: &mut Report) {
    // An empty id was already reported as missing.
    if let Err(message) = validate_workflow_id(&draft.id.value)
        && !draft.id.value.is_empty()
    {
        report.error(draft.id.at, codes::INVALID_ID, message, Some("for example `bug-investigation`".into()));
    }
    let mut seen: HashMap<&str, &DraftStep> = HashMap::new();
    for step in &draft.steps {
        let id = step.id.value.as_str();
        if !is_valid_step_id(id) {
            report.error(
                step.id.at,
                codes::INVALID_ID,
                format!("`{}` is not a valid step id", id.escape_debug()),
                Some("use letters, digits, `_`, `.`, `-`, starting with a letter or digit".into()),
            );
        }
        if let Some(first) = seen.get(id) {
            report.error(
                step.id.at,
                codes::DUPLICATE_STEP,
                format!("step id `{id}` is used twice"),
                Some(format!("the first step `{id}` is at line {}; rename one of them", first.id.at.line)),
            );
        } else {
            seen.insert(id, step);
        }
    }
}

fn check_variables(draft: &DraftWorkflow, report: &mut Report) {
    for variable in &draft.variables {
        let name = variable.name.value.as_str();
        if !is_valid_variable_name(name) {
            report.error(
                variable.name.at,
                codes::INVALID_ID,
                format!("`{}` is not a valid variable name", name.escape_debug()),
                Some("use letters, digits and `_`, starting with a letter or `_`, so conditions and templates can name it".into()),
            );
        }
        if CONDITION_RESERVED.contains(&name) || TEMPLATE_RESERVED.contains(&name) {
            report.error(
                variable.name.at,
                codes::RESERVED_VARIABLE,
                format!("`{name}` is reserved: the engine provides it to conditions and templates"),
                Some(format!("rename the variable, e.g. `{name}_value`")),
            );
        }
        if let Some(default) = &variable.default
            && !variable.value_type.admits(&default.value)
        {
            report.error(
                default.at,
                codes::DEFAULT_TYPE_MISMATCH,
                format!("the default of `{name}` is not of its declared type `{}`", variable.value_type.name()),
                Some("change the default or the `type` so they agree".into()),
            );
        }
    }
}

fn check_step(draft: &DraftWorkflow, step: &DraftStep, declared: &[&str], report: &mut Report) {
    let id = &step.id.value;
    // The edges of a step switchyard runs itself also read its command's exit code.
    let mut names = declared.to_vec();
    if step.rules.run.is_some() {
        names.push("exit_code");
    }
    let declared = names.as_slice();
    if let (Some(end), Some(_)) = (step.end, step.next_at) {
        report.error(
            end,
            codes::END_WITH_NEXT,
            format!("step `{id}` says `end: true` but also has `next`"),
            Some("an end step has no edges: remove `end: true` or remove `next`".into()),
        );
    }
    expressions::check_template(&step.prompt, declared, report);
    if let Some(output) = &step.output {
        check_output_schema(id, output, &step.output_locations, report);
    }
    let step_ids: Vec<&str> = draft.steps.iter().map(|step| step.id.value.as_str()).collect();
    let mut labels: HashMap<&str, u32> = HashMap::new();
    let mut first_default = None;
    for edge in &step.edges {
        if let DraftTarget::Step(target) = &edge.target
            && !step_ids.contains(&target.value.as_str())
        {
            report.error(
                target.at,
                codes::UNKNOWN_TARGET,
                format!("step `{id}` has an edge to `{}`, which is not a step", target.value),
                did_you_mean(&target.value, step_ids.iter().copied())
                    .or_else(|| Some(format!("steps are: {}", step_ids.join(", ")))),
            );
        }
        if let Some(line) = labels.get(edge.label.value.as_str()) {
            report.error(
                edge.label.at,
                codes::DUPLICATE_LABEL,
                format!("step `{id}` has two edges labelled `{}`", edge.label.value),
                Some(format!("the first is at line {line}; give each edge its own `label`")),
            );
        } else {
            labels.insert(&edge.label.value, edge.label.at.line);
        }
        if let Some(default_line) = first_default {
            if edge.default {
                report.error(
                    edge.at,
                    codes::MULTIPLE_DEFAULTS,
                    format!("step `{id}` has more than one default edge"),
                    Some(format!("the first default edge is at line {default_line}; keep one `default: true`")),
                );
            } else {
                report.warning(
                    edge.at,
                    codes::EDGE_AFTER_DEFAULT,
                    format!("edge `{}` of step `{id}` comes after the default edge", edge.label.value),
                    Some("edges are evaluated in order: put the default edge last".into()),
                );
            }
        }
        if edge.default {
            first_default.get_or_insert(edge.at.line);
            if edge.condition.is_some() {
                report.warning(
                    edge.at,
                    codes::CONDITIONAL_DEFAULT,
                    format!("the default edge `{}` of step `{id}` also has a condition", edge.label.value),
                    Some(
                        "a default edge is taken when no condition matches: drop `when` or drop `default: true`".into(),
                    ),
                );
            }
        }
        if let Some(condition) = &edge.condition {
            expressions::check_condition(condition, declared, report);
        }
        for (name, expression) in &edge.set {
            if !is_valid_variable_name(&name.value) {
                report.error(
                    name.at,
                    codes::INVALID_ID,
                    format!("`{}` cannot be assigned: it is not a valid variable name", name.value.escape_debug()),
                    Some("use letters, digits and `_`, starting with a letter or `_`".into()),
                );
            }
            expressions::check_condition(expression, declared, report);
        }
    }
    for condition in [&step.rules.run_when, &step.rules.gate_when].into_iter().flatten() {
        expressions::check_condition(condition, declared, report);
    }
    if let Some(at) = step.rules.checks_at {
        for problem in check_output_checks(&step.rules.checks) {
            report.error(at, codes::INVALID_VALUE, format!("an output check of step `{id}` {problem}"), None);
        }
    }
    check_run(step, report);
    if let Some(at) = step.rules.evidence_at {
        for (index, problem) in check_evidence(&step.rules.evidence) {
            let message = format!("evidence {} of step `{id}` {problem}", index + 1);
            report.error(at, codes::EVIDENCE_INVALID, message, None);
        }
    }
}

/// A step switchyard runs itself: a command it can run, and nothing an agent would report.
fn check_run(step: &DraftStep, report: &mut Report) {
    let id = &step.id.value;
    let Some(command) = &step.rules.run else {
        if let Some(at) = step.rules.on_failure_at {
            let help = Some("add `run: [program, arguments...]`, or send the run on with a conditional edge".into());
            report.error(at, codes::RUN_STEP, format!("step `{id}` has `on_failure` but no `run`"), help);
        }
        return;
    };
    let at = step.rules.run_at.unwrap_or(step.id.at);
    for problem in command_problems(command) {
        report.error(at, codes::RUN_STEP, format!("the `run` of step `{id}` {problem}"), None);
    }
    let reported: [(&str, bool); 3] = [
        ("evidence", step.rules.evidence_at.is_some()),
        ("output", step.output.is_some()),
        ("checks", step.rules.checks_at.is_some()),
    ];
    for (field, written) in reported {
        if written {
            report.error(
                at,
                codes::RUN_STEP,
                format!("step `{id}` has `run` and `{field}`: switchyard writes a `run` step's report itself"),
                Some(format!("remove `{field}`, or route on the command's result with `exit_code` in the edges")),
            );
        }
    }
}

/// Problems with evidence checks the runtime could not carry out as written, by the check's
/// position: paths that are absolute or climb out of the workspace, globs that do not compile,
/// empty commands, a shell line without `shell: true` (or the reverse), timeouts that do not
/// read, and a test report no command before it could have written.
fn check_evidence(checks: &[EvidenceCheck]) -> Vec<(usize, String)> {
    let mut problems = Vec::new();
    let mut commands_before = 0;
    for (index, check) in checks.iter().enumerate() {
        let mut problem = |text: String| problems.push((index, text));
        match check {
            EvidenceCheck::Files { paths } => {
                if paths.is_empty() {
                    problem("(files) lists no path: give `paths` one glob or more, like `src/**/*.rs`".to_owned());
                }
                for path in paths {
                    if let Some(wrong) = workspace_path_problem(path) {
                        problem(format!("(files) has the path `{path}`, which {wrong}"));
                    } else if let Err(error) = globset::Glob::new(path) {
                        problem(format!("(files) has `{path}`, which is not a glob: {}", error.kind()));
                    }
                }
            }
            EvidenceCheck::Changed { paths } => {
                for path in paths {
                    if let Some(wrong) = workspace_path_problem(path) {
                        problem(format!("(changed) has the path `{path}`, which {wrong}"));
                    }
                }
            }
            EvidenceCheck::Command(command) => {
                commands_before += 1;
                for wrong in command_problems(command) {
                    problem(format!("(command) {wrong}"));
                }
                if let Some(project) = command.project_command() {
                    problem(format!(
                        "(command) runs the project's `{}`, which only a step's `run` may: a check cannot be skipped when the project sets none, so name the command here, or move it to a step with `run: {{project: {}}}`",
                        project.key(),
                        project.key()
                    ));
                }
            }
            EvidenceCheck::TestReport { path, .. } => {
                if let Some(wrong) = workspace_path_problem(path) {
                    problem(format!("(test_report) has the path `{path}`, which {wrong}"));
                }
                if commands_before == 0 {
                    problem(format!(
                        "(test_report) comes before any `command` check: put the command that writes `{path}` before it, so switchyard sees the report written by a run it started"
                    ));
                }
            }
            EvidenceCheck::ArtifactPaths { field, .. } => {
                if field.trim().is_empty() {
                    problem("(artifact_paths) names no `field` of the artifacts".to_owned());
                }
            }
        }
    }
    problems
}

/// Why switchyard could not run `command` as written: no program, a shell line without
/// `shell: true` (or a list with it), a timeout that does not read.
fn command_problems(command: &CommandCheck) -> Vec<String> {
    let mut problems = Vec::new();
    match (&command.run, command.shell) {
        (CommandLine::Argv(argv), false) if argv.first().is_none_or(|program| program.trim().is_empty()) => {
            problems.push("has no program: write `run: [program, arguments...]`".to_owned());
        }
        (CommandLine::Shell(line), true) if line.trim().is_empty() => problems.push("has an empty shell line".to_owned()),
        (CommandLine::Argv(_), false) | (CommandLine::Shell(_), true) => {}
        (CommandLine::Shell(line), false) => problems.push(format!(
            "gives `run` as one string, `{line}`, which switchyard would not split: write it as a list of words (`[make, test]`), or add `shell: true` to run it with `sh -c`"
        )),
        (CommandLine::Argv(_), true) => problems
            .push("says `shell: true` but gives `run` as a list: give the shell line as one string".to_owned()),
        (CommandLine::Project { .. }, false) => {}
        (CommandLine::Project { project }, true) => problems.push(format!(
            "says `shell: true` for the project's `{}`: remove it (a string set in `[project]` runs with `sh -c`, a list as it is)",
            project.key()
        )),
    }
    if let Some(Err(error)) = command.timeout.as_deref().map(switchyard_core::evidence::parse_timeout) {
        problems.push(format!("has a `timeout` that does not read: {error}"));
    }
    problems
}

/// Why a path written in a workflow cannot name a place inside the workspace, if it cannot.
fn workspace_path_problem(path: &str) -> Option<&'static str> {
    let path = std::path::Path::new(path);
    if path.as_os_str().is_empty() {
        Some("is empty")
    } else if path.is_absolute() {
        Some("is absolute: write it relative to the workspace")
    } else if path.components().any(|part| matches!(part, std::path::Component::ParentDir)) {
        Some("climbs out with `..`: name a place inside the workspace")
    } else {
        None
    }
}

/// Parses a check's regex as the engine does (`fancy-regex`, with a size budget).
fn output_regex(pattern: &str) -> Result<fancy_regex::Regex, fancy_regex::Error> {
    fancy_regex::RegexBuilder::new(pattern).delegate_size_limit(1 << 20).build()
}

/// Why the engine would refuse a condition of an output check: past the bounds
/// ([`switchyard_core::limits::check_condition_bounds`]) or not parsing.
fn condition_problem(condition: &str) -> Option<String> {
    if let Err(error) = switchyard_core::limits::check_condition_bounds(condition) {
        return Some(format!("is refused: {error}"));
    }
    expressions::parse_condition(condition)
        .as_ref()
        .as_ref()
        .err()
        .map(|errors| format!("does not parse: {}", errors.all))
}

/// Problems with output checks the engine would refuse: regexes and schemas that do not compile,
/// conditions that do not parse.
fn check_output_checks(checks: &[OutputCheck]) -> Vec<String> {
    let mut problems = Vec::new();
    for check in checks {
        if let Some(problem) = check.when().and_then(condition_problem) {
            problems.push(format!("has a `when` that {problem}"));
        }
        match check {
            OutputCheck::Regex { pattern, .. } => {
                if let Err(error) = output_regex(pattern) {
                    problems.push(format!("has a pattern that is not a valid regex: {error}"));
                }
            }
            OutputCheck::Schema { schema, .. } => {
                if let Err(error) = jsonschema::validator_for(schema) {
                    problems.push(format!("has an invalid schema: {error}"));
                }
            }
            OutputCheck::Condition { condition, .. } => {
                if let Some(problem) = condition_problem(condition) {
                    problems.push(format!("has a `condition` that {problem}"));
                }
            }
            OutputCheck::All { checks, .. } | OutputCheck::Any { checks, .. } => {
                problems.extend(check_output_checks(checks));
            }
            OutputCheck::Not { check, .. } => problems.extend(check_output_checks(std::slice::from_ref(check))),
            OutputCheck::Contains { .. } | OutputCheck::Length { .. } => {}
        }
    }
    problems
}

fn check_output_schema(
    id: &str,
    output: &Located<serde_json::Value>,
    locations: &[(String, crate::diagnostic::Loc)],
    report: &mut Report,
) {
    let schema = &output.value;
    if !schema.is_object() && !schema.is_boolean() {
        report.error(
            output.at,
            codes::OUTPUT_SCHEMA_INVALID,
            format!("the output contract of step `{id}` must be a JSON Schema object"),
            Some("write e.g. `output: {type: object, required: [summary]}`".into()),
        );
        return;
    }
    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
        let pointer = error.instance_path().to_string();
        let at = locations.iter().find(|(path, _)| *path == pointer).map_or(output.at, |(_, at)| *at);
        report.error(
            at,
            codes::OUTPUT_SCHEMA_INVALID,
            format!(
                "the output contract of step `{id}` is not a valid JSON Schema (draft 2020-12): {error} at `{}`",
                error.instance_path()
            ),
            Some("fix the schema keyword named in the message".into()),
        );
        return;
    }
    for (pointer, keyword) in unknown_schema_keywords(schema, "") {
        let at = locations.iter().find(|(path, _)| *path == pointer).map_or(output.at, |(_, at)| *at);
        let suggestion = did_you_mean(&keyword, SCHEMA_KEYWORDS.iter().copied());
        report.warning(
            at,
            codes::OUTPUT_SCHEMA_UNKNOWN_KEYWORD,
            format!("the output contract of step `{id}` has `{keyword}`, which is not a JSON Schema keyword, at `{pointer}`"),
            Some(suggestion.unwrap_or_else(|| {
                "JSON Schema ignores unknown keywords, so this constrains nothing; in YAML, a comma inside an unquoted flow value (`{description: a, b}`) starts a new key".into()
            })),
        );
    }
    if let Err(error) = jsonschema::draft202012::options().should_validate_formats(true).build(schema) {
        report.error(
            output.at,
            codes::OUTPUT_SCHEMA_INVALID,
            format!("the output contract of step `{id}` cannot be used: {error}"),
            Some("references must point inside the schema; patterns must be valid regular expressions".into()),
        );
    }
}

/// The keywords of JSON Schema draft 2020-12 (core, applicator, validation, unevaluated, format,
/// content and meta-data vocabularies), plus `definitions` and `dependencies` from older drafts.
const SCHEMA_KEYWORDS: &[&str] = &[
    "$schema",
    "$id",
    "$ref",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "$defs",
    "definitions",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "dependencies",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "format",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "title",
    "description",
    "default",
    "deprecated",
    "readOnly",
    "writeOnly",
    "examples",
];

/// Keys of schema objects that are not JSON Schema keywords, as (JSON pointer, key). Walks only
/// positions that hold schemas, so property names and `enum` values are never mistaken for keywords.
fn unknown_schema_keywords(schema: &serde_json::Value, pointer: &str) -> Vec<(String, String)> {
    let serde_json::Value::Object(map) = schema else { return Vec::new() };
    let mut found = Vec::new();
    for (key, value) in map {
        let here = format!("{pointer}/{}", key.replace('~', "~0").replace('/', "~1"));
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
                if let serde_json::Value::Object(schemas) = value {
                    for (name, subschema) in schemas {
                        let name = name.replace('~', "~0").replace('/', "~1");
                        found.extend(unknown_schema_keywords(subschema, &format!("{here}/{name}")));
                    }
                }
            }
            "allOf" | "anyOf" | "oneOf" | "prefixItems" => {
                if let serde_json::Value::Array(schemas) = value {
                    for (index, subschema) in schemas.iter().enumerate() {
                        found.extend(unknown_schema_keywords(subschema, &format!("{here}/{index}")));
                    }
                }
            }
            "not"
            | "if"
            | "then"
            | "else"
            | "items"
            | "contains"
            | "additionalProperties"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contentSchema" => {
                found.extend(unknown_schema_keywords(value, &here));
            }
            known if SCHEMA_KEYWORDS.contains(&known) => {}
            unknown => found.push((here, unknown.to_owned())),
        }
    }
    found
}

/// Step indexes and their outgoing edges to known steps.
#[derive(Debug)]
struct Graph {
    /// For each step, (target index, edge is bounded).
    successors: Vec<Vec<(usize, bool)>>,
    completes: Vec<bool>,
}

impl Graph {
    fn new(draft: &DraftWorkflow) -> Self {
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (position, step) in draft.steps.iter().enumerate() {
            index.entry(step.id.value.as_str()).or_insert(position);
        }
        let mut successors = Vec::with_capacity(draft.steps.len());
        let mut completes = Vec::with_capacity(draft.steps.len());
        for step in &draft.steps {
            let mut out = Vec::new();
            let mut complete = step.edges.is_empty();
            for edge in &step.edges {
                match &edge.target {
                    DraftTarget::Complete => complete = true,
                    DraftTarget::Step(target) => {
                        if let Some(&target) = index.get(target.value.as_str()) {
                            let bounded = edge.max_traversals.is_some() || edge.kind != EdgeKind::Normal;
                            out.push((target, bounded));
                        }
                    }
                }
            }
            successors.push(out);
            completes.push(complete);
        }
        Self { successors, completes }
    }

    fn entry(&self, draft: &DraftWorkflow, report: &mut Report) -> Option<usize> {
        match &draft.start {
            None => (!draft.steps.is_empty()).then_some(0),
            Some(start) => {
                let found = draft.steps.iter().position(|step| step.id.value == start.value);
                if found.is_none() && !draft.steps.is_empty() {
                    report.error(
                        start.at,
                        codes::UNKNOWN_TARGET,
                        format!("`start` names `{}`, which is not a step", start.value),
                        did_you_mean(&start.value, draft.steps.iter().map(|step| step.id.value.as_str())),
                    );
                }
                // Keep checking the graph from the first step so one typo does not hide the rest.
                found.or((!draft.steps.is_empty()).then_some(0))
            }
        }
    }
}

fn check_reachability(draft: &DraftWorkflow, graph: &Graph, entry: usize, report: &mut Report) {
    let reached = flood(draft.steps.len(), [entry], |step| graph.successors[step].iter().map(|&(next, _)| next));
    for (step, reached) in draft.steps.iter().zip(reached) {
        if !reached {
            report.error(
                step.id.at,
                codes::UNREACHABLE_STEP,
                format!(
                    "step `{}` cannot be reached from the start step `{}`",
                    step.id.value, draft.steps[entry].id.value
                ),
                Some("add an edge to it from another step, or remove it".into()),
            );
        }
    }
}

/// Which of `count` steps are reached from `starts` by following `next`.
fn flood<Next: IntoIterator<Item = usize>>(
    count: usize,
    starts: impl IntoIterator<Item = usize>,
    next: impl Fn(usize) -> Next,
) -> Vec<bool> {
    let mut reached = vec![false; count];
    let mut queue = VecDeque::new();
    for start in starts {
        reached[start] = true;
        queue.push_back(start);
    }
    while let Some(current) = queue.pop_front() {
        for step in next(current) {
            if !reached[step] {
                reached[step] = true;
                queue.push_back(step);
            }
        }
    }
    reached
}

fn check_ends(draft: &DraftWorkflow, graph: &Graph, report: &mut Report) {
    let count = draft.steps.len();
    let mut predecessors: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (from, out) in graph.successors.iter().enumerate() {
        for &(to, _) in out {
            predecessors[to].push(from);
        }
    }
    let ends =
        flood(count, (0..count).filter(|&step| graph.completes[step]), |step| predecessors[step].iter().copied());
    for (step, ends) in draft.steps.iter().zip(ends) {
        if !ends {
            report.error(
                step.id.at,
                codes::NO_PATH_TO_END,
                format!("from step `{}` no path leads to an end of the run", step.id.value),
                Some("add an edge towards an end step (one with no `next`) or an edge with `end: true`".into()),
            );
        }
    }
}

/// Every cycle needs a bounded edge, so the graph of unbounded edges must have no cycle: each
/// strongly connected component of it with more than one step (or a self-loop) is reported.
fn check_cycles(draft: &DraftWorkflow, graph: &Graph, report: &mut Report) {
    let unbounded: Vec<Vec<usize>> = graph
        .successors
        .iter()
        .map(|out| out.iter().filter(|(_, bounded)| !bounded).map(|(to, _)| *to).collect())
        .collect();
    let mut components: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (step, component) in strongly_connected(&unbounded).into_iter().enumerate() {
        components.entry(component).or_default().push(step);
    }
    let mut cycles: Vec<Vec<usize>> = components
        .into_values()
        .filter(|members| members.len() > 1 || unbounded[members[0]].contains(&members[0]))
        .collect();
    cycles.sort();
    for members in cycles {
        let names: Vec<String> = members.iter().map(|&step| format!("`{}`", draft.steps[step].id.value)).collect();
        let first = &draft.steps[members[0]];
        report.error(
            first.id.at,
            codes::UNBOUNDED_CYCLE,
            format!("the cycle through {} has no bound", names.join(" → ")),
            Some("give one edge of the cycle `max_traversals: <n>`, or `kind: loop` (counted by `max_cycles`) or `kind: replan`".into()),
        );
    }
}

/// Tarjan's algorithm, iterative so deep graphs cannot overflow the stack. Returns, for each
/// node, the id of its strongly connected component.
fn strongly_connected(successors: &[Vec<usize>]) -> Vec<usize> {
    let count = successors.len();
    let unvisited = usize::MAX;
    let mut index = vec![unvisited; count];
    let mut lowlink = vec![0; count];
    let mut on_stack = vec![false; count];
    let mut component = vec![unvisited; count];
    let mut stack = Vec::new();
    let mut next_index = 0;
    for root in 0..count {
        if index[root] != unvisited {
            continue;
        }
        let mut work: Vec<(usize, usize)> = vec![(root, 0)];
        while let Some(&mut (node, ref mut child)) = work.last_mut() {
            if *child == 0 && index[node] == unvisited {
                index[node] = next_index;
                lowlink[node] = next_index;
                next_index += 1;
                stack.push(node);
                on_stack[node] = true;
            }
            if let Some(&next) = successors[node].get(*child) {
                *child += 1;
                if index[next] == unvisited {
                    work.push((next, 0));
                } else if on_stack[next] {
                    lowlink[node] = lowlink[node].min(index[next]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                lowlink[parent] = lowlink[parent].min(lowlink[node]);
            }
            if lowlink[node] == index[node] {
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component[member] = node;
                    if member == node {
                        break;
                    }
                }
            }
        }
    }
    component
}

fn lower(draft: &DraftWorkflow) -> Workflow {
    let entry = match &draft.start {
        Some(start) => StepId::new(start.value.clone()),
        None => StepId::new(draft.steps.first().map(|step| step.id.value.clone()).unwrap_or_default()),
    };
    Workflow {
        ir_version: IR_VERSION,
        id: draft.id.value.clone(),
        version: draft.version.clone(),
        title: draft.title.clone(),
        description: draft.description.clone(),
        tags: draft.tags.clone(),
        entry,
        steps: draft.steps.iter().map(lower_step).collect(),
        variables: draft
            .variables
            .iter()
            .map(|variable| Variable {
                name: variable.name.value.clone(),
                value_type: variable.value_type,
                default: variable.default.as_ref().map(|default| default.value.clone()),
                layer: variable.layer,
                description: variable.description.clone(),
            })
            .collect(),
        limits: draft.limits,
        rules: draft
            .steps
            .iter()
            .map(|step| (StepId::new(step.id.value.clone()), lower_rules(step)))
            .filter(|(_, rules)| !rules.is_empty())
            .collect(),
    }
}

fn lower_rules(step: &DraftStep) -> StepRules {
    let mut assign: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for edge in &step.edges {
        for (name, expression) in &edge.set {
            assign.entry(edge.label.value.clone()).or_default().insert(name.value.clone(), expression.value.clone());
        }
    }
    StepRules {
        run_when: step.rules.run_when.as_ref().map(|condition| condition.value.clone()),
        gate_when: step.rules.gate_when.as_ref().map(|condition| condition.value.clone()),
        checks: step.rules.checks.clone(),
        assign,
        status_report: step.rules.status_report,
        audit: step.rules.audit,
        evidence: step.rules.evidence.clone(),
        run: step.rules.run.clone(),
    }
}

fn lower_step(step: &DraftStep) -> Step {
    Step {
        id: StepId::new(step.id.value.clone()),
        title: step.title.clone(),
        prompt: step.prompt.value.clone(),
        role: step.role.clone(),
        model: step.model.clone(),
        notes: step.notes,
        output_schema: step.output.as_ref().map(|output| output.value.clone()),
        gate: step.gate,
        context_reset: step.context_reset,
        phase: step.phase.clone(),
        max_attempts: step.max_attempts,
        edges: step
            .edges
            .iter()
            .map(|edge| Edge {
                target: match &edge.target {
                    DraftTarget::Step(target) => EdgeTarget::Step(StepId::new(target.value.clone())),
                    DraftTarget::Complete => EdgeTarget::Complete,
                },
                label: edge.label.value.clone(),
                default: edge.default,
                condition: edge.condition.as_ref().map(|condition| condition.value.clone()),
                condition_text: edge.condition_text.clone(),
                max_traversals: edge.max_traversals,
                kind: edge.kind,
            })
            .collect(),
    }
}
