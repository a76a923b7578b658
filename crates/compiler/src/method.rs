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

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value as Json;
use switchyard_core::workflow::{EdgeKind, Layer, Limits, ValueType};

use crate::bundle::{Bundle, FileReference, ReferenceRole, frontmatter, resolve_module_path, resolve_path};
use crate::diagnostic::{Loc, Report, codes};
use crate::draft::{DraftEdge, DraftRules, DraftStep, DraftTarget, DraftVariable, DraftWorkflow};
use crate::expressions::{CONDITION_RESERVED, TEMPLATE_RESERVED};
use crate::fields::Located;
use crate::subworkflow::{CallStack, MAX_DEPTH, Refusal, compiles_alone, splice};
use crate::workrail::escape;

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

/// The value of the attribute `name` in a tag's attributes (`name="value"` or `name='value'`).
/// Attributes are read left to right, so text inside another attribute's quotes never counts.
fn attribute(attributes: &str, name: &str) -> Option<String> {
    let pattern = regex!(r#"(?:^|\s)([A-Za-z_][A-Za-z0-9_:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')"#);
    pattern
        .captures_iter(attributes)
        .find(|captures| &captures[1] == name)
        .and_then(|captures| captures.get(2).or_else(|| captures.get(3)))
        .map(|value| value.as_str().to_owned())
}

/// One `<step>` of classic instructions.
struct ClassicStep {
    n: String,
    goal: String,
    optional: bool,
    condition: Option<String>,
    repeat: Option<String>,
    body: String,
    /// Byte offset of the body in the instructions.
    start: usize,
}

/// Splits instructions into steps: `<step n=…>` tags, else `## Step N` headings, else one step.
fn classic_steps(text: &str) -> Vec<ClassicStep> {
    let open = regex!(r"(?s)<step\s+([^>]*?)/?>");
    let close = regex!(r"</step\s*>|</workflow\s*>");
    let opens: Vec<(usize, usize, String)> = open
        .captures_iter(text)
        .filter_map(|captures| {
            let whole = captures.get(0)?;
            let attributes = captures[1].to_owned();
            attribute(&attributes, "n").map(|_| (whole.start(), whole.end(), attributes))
        })
        .collect();
    if !opens.is_empty() {
        return opens
            .iter()
            .enumerate()
            .map(|(index, (_, end, attributes))| {
                let limit = opens.get(index + 1).map_or(text.len(), |next| next.0);
                let body_end = close.find(&text[*end..limit]).map_or(limit, |found| end + found.start());
                ClassicStep {
                    n: attribute(attributes, "n").unwrap_or_default(),
                    goal: attribute(attributes, "goal").unwrap_or_default(),
                    optional: attribute(attributes, "optional").as_deref() == Some("true"),
                    condition: attribute(attributes, "if"),
                    repeat: attribute(attributes, "repeat").or_else(|| attribute(attributes, "for-each")),
                    body: text[*end..body_end].trim().to_owned(),
                    start: *end,
                }
            })
            .collect();
    }
    let heading = regex!(r"(?m)^#{2,3}\s+Step\s+([0-9A-Za-z.]+)[:.)]?\s*(.*)$");
    let headings: Vec<(usize, usize, String, String)> = heading
        .captures_iter(text)
        .filter_map(|captures| {
            let whole = captures.get(0)?;
            Some((whole.start(), whole.end(), captures[1].to_owned(), captures[2].trim().to_owned()))
        })
        .collect();
    if !headings.is_empty() {
        return headings
            .iter()
            .enumerate()
            .map(|(index, (_, end, n, goal))| {
                let limit = headings.get(index + 1).map_or(text.len(), |next| next.0);
                ClassicStep {
                    n: n.clone(),
                    goal: goal.clone(),
                    optional: false,
                    condition: None,
                    repeat: None,
                    body: text[*end..limit].trim().to_owned(),
                    start: *end,
                }
            })
            .collect();
    }
    vec![ClassicStep {
        n: "1".to_owned(),
        goal: "Follow the instructions".to_owned(),
        optional: false,
        condition: None,
        repeat: None,
        body: text.trim().to_owned(),
        start: 0,
    }]
}

/// The `if` of the innermost `<check if>` open at `offset` in `body`.
fn enclosing_check(body: &str, offset: usize) -> Option<String> {
    let tag = regex!(r"<check\s+([^>]*)>|</check\s*>");
    let mut stack = Vec::new();
    for captures in tag.captures_iter(&body[..offset]) {
        match captures.get(1) {
            Some(attributes) => stack.push(attribute(attributes.as_str(), "if")),
            None => {
                stack.pop();
            }
        }
    }
    stack.into_iter().rev().flatten().next()
}

/// Values a `workflow.yaml` reads from its module config (`{config_source}:key`), resolved at
/// compile time because the config file is in the bundle.
#[derive(Debug, Default)]
struct ModuleValues {
    /// The config file, bundle-relative.
    file: String,
    /// workflow.yaml key → (config key, value with the config's own `{placeholders}` filled).
    values: BTreeMap<String, (String, Json)>,
}

/// Replaces single-brace `{name}` placeholders (`-` and `_` alike) with known values, repeating
/// until nothing changes, at most 8 rounds so a cycle stops; unknown names and double-brace
/// `{{runtime}}` values stay as written.
fn expand(text: &str, values: &BTreeMap<String, String>) -> String {
    let pattern = regex!(r"\{+([A-Za-z_][A-Za-z0-9_-]*)\}+");
    let mut current = text.to_owned();
    for _ in 0..8 {
        let next = pattern
            .replace_all(&current, |captures: &regex::Captures<'_>| {
                let whole = &captures[0];
                let single = !whole.starts_with("{{") && !whole.ends_with("}}");
                let name = &captures[1];
                let value = values.get(name).or_else(|| values.get(&name.replace('-', "_")));
                match value {
                    Some(value) if single => value.clone(),
                    _ => whole.to_owned(),
                }
            })
            .into_owned();
        if next == current {
            break;
        }
        current = next;
    }
    current
}

/// A scalar YAML value as text (for placeholder expansion).
fn scalar_text(value: &Json) -> Option<String> {
    match value {
        Json::String(text) => Some(text.clone()),
        Json::Number(number) => Some(number.to_string()),
        Json::Bool(flag) => Some(flag.to_string()),
        _ => None,
    }
}

/// Resolves `{config_source}:key` values against the module config when the bundle holds it;
/// otherwise warns, naming the keys and the file, and leaves them for the agent.
fn resolve_config(
    bundle: &Bundle,
    dir: &str,
    config_path: &str,
    config: &serde_json::Map<String, Json>,
    report: &mut Report,
    references: &mut Vec<FileReference>,
) -> Option<ModuleValues> {
    let keys: Vec<(String, String)> = config
        .iter()
        .filter_map(|(key, value)| {
            Some((key.clone(), value.as_str()?.strip_prefix("{config_source}:")?.trim().to_owned()))
        })
        .collect();
    if keys.is_empty() {
        return None;
    }
    let names = keys.iter().map(|(key, _)| format!("`{key}`")).collect::<Vec<_>>().join(", ");
    let Some(written) = config.get("config_source").and_then(Json::as_str) else {
        report.warning(
            Loc::START,
            codes::METHOD_CONFIG_SOURCE,
            format!("`{config_path}` reads {names} from `{{config_source}}` but sets no `config_source`; the agent is told to resolve them"),
            Some("add `config_source: \"{project-root}/bmad/<module>/config.yaml\"` to workflow.yaml".into()),
        );
        return None;
    };
    let Some(file) = resolve_module_path(bundle, dir, written) else {
        report.warning(
            Loc::START,
            codes::METHOD_CONFIG_SOURCE,
            format!(
                "`{config_path}` reads {names} from `config_source: {written}`, which is not in the bundle; the agent is told to resolve them"
            ),
            Some("put the module's config.yaml in the bundle (at the path config_source names, e.g. `bmad/<module>/config.yaml`) to resolve them when the workflow is compiled".into()),
        );
        references.push(FileReference::missing(written.to_owned(), ReferenceRole::Config, None));
        return None;
    };
    references.push(FileReference::found(file.clone(), ReferenceRole::Config, None));
    let module = serde_saphyr::from_str::<Json>(&bundle.files[&file]).ok().and_then(|value| value.as_object().cloned());
    let Some(module) = module else {
        report.warning(
            Loc::START,
            codes::METHOD_CONFIG_SOURCE,
            format!("the module config `{file}` is not a YAML mapping; {names} are left for the agent to resolve"),
            Some("make the config a flat mapping of `key: value`".into()),
        );
        return None;
    };
    let texts: BTreeMap<String, String> =
        module.iter().filter_map(|(key, value)| Some((key.clone(), scalar_text(value)?))).collect();
    let mut resolved = ModuleValues { file: file.clone(), values: BTreeMap::new() };
    for (key, module_key) in keys {
        match module.get(&module_key) {
            Some(Json::String(text)) => {
                resolved.values.insert(key, (module_key, Json::String(expand(text, &texts))));
            }
            Some(value) => {
                resolved.values.insert(key, (module_key, value.clone()));
            }
            None => report.warning(
                Loc::START,
                codes::METHOD_CONFIG_SOURCE,
                format!("`{key}` reads `{module_key}` from the module config `{file}`, which has no such key; the agent is told to resolve it"),
                Some(format!("add `{module_key}: <value>` to `{file}`")),
            ),
        }
    }
    Some(resolved)
}

/// Resolved config values as variable defaults; names that cannot be variables stay prompt
/// text only.
fn config_variables(module: &ModuleValues) -> Vec<DraftVariable> {
    module
        .values
        .iter()
        .filter(|(name, _)| {
            let mut bytes = name.bytes();
            bytes.next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
                && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !CONDITION_RESERVED.contains(&name.as_str())
                && !TEMPLATE_RESERVED.contains(&name.as_str())
        })
        .map(|(name, (module_key, value))| DraftVariable {
            name: located(name.clone()),
            value_type: if value.is_string() { ValueType::String } else { ValueType::Any },
            default: Some(located(value.clone())),
            layer: Layer::Important,
            description: Some(format!("`{module_key}` of the module config `{}`", module.file)),
        })
        .collect()
}

/// Variables a `workflow.yaml` declares: the resolved config values, and those for the agent to
/// resolve (`{config_source}:key` without the config, `system-generated`, `variables`).
fn variables_section(config: &serde_json::Map<String, Json>, module: Option<&ModuleValues>) -> String {
    let mut lines = Vec::new();
    for (key, value) in config {
        let Some(text) = value.as_str() else { continue };
        if let Some((module_key, resolved)) = module.and_then(|module| module.values.get(key)) {
            let shown = resolved.as_str().map_or_else(|| resolved.to_string(), str::to_owned);
            let file = module.map(|module| module.file.as_str()).unwrap_or_default();
            lines.push(format!("- `{{{key}}}`: `{shown}` (`{module_key}` of `{file}`; context variable `{key}`)"));
        } else if let Some(config_key) = text.strip_prefix("{config_source}:") {
            lines.push(format!("- `{{{key}}}`: the `{config_key}` value of the module config (`{{config_source}}`)"));
        } else if text == "system-generated" {
            lines.push(format!("- `{{{key}}}`: generated now (today's date for `date`)"));
        }
    }
    if let Some(Json::Object(variables)) = config.get("variables") {
        for (key, value) in variables {
            lines.push(format!("- `{{{key}}}`: {}", value.as_str().map_or_else(|| value.to_string(), str::to_owned)));
        }
    }
    if lines.is_empty() {
        return String::new();
    }
    format!(
        "## Variables\nResolve these before you start (`{{project-root}}` is the project's root folder, `{{installed_path}}` this workflow's folder):\n{}",
        lines.join("\n")
    )
}

/// Where a classic step waits for the user: `<ask>`, `<template-output>` (the method's
/// checkpoint after writing a section), `<elicit-required>` and `<invoke-task halt="true">`
/// (elicitation). Unconditional ones make the step a gate; ones under a condition that is a
/// real expression make a conditional gate; ones under a plain-language condition are left to
/// the agent (the condition cannot be judged before the step runs). Returns the gate, the
/// conditional gate and the reasons, for the prompt.
fn waits_for_user(body: &str) -> (bool, Option<String>, Vec<&'static str>) {
    let tag = regex!(r"<(ask|template-output|elicit-required|invoke-task)\b([^>]*)>");
    let mut gate = false;
    let mut when = Vec::new();
    let mut reasons = Vec::new();
    for captures in tag.captures_iter(body) {
        let attributes = &captures[2];
        let reason = match &captures[1] {
            "ask" => "it asks the user",
            "template-output" => "it writes a template section for the user to review",
            "elicit-required" => "it runs elicitation with the user",
            _ if attribute(attributes, "halt").as_deref() == Some("true") => "it runs a task that halts for the user",
            _ => continue,
        };
        let offset = captures.get(0).map_or(0, |found| found.start());
        match attribute(attributes, "if").or_else(|| enclosing_check(body, offset)) {
            None => gate = true,
            Some(condition) => match expression(&condition) {
                Some(evaluated) => when.push(evaluated),
                None => continue,
            },
        }
        if !reasons.contains(&reason) {
            reasons.push(reason);
        }
    }
    when.dedup();
    let gate_when = (!gate && !when.is_empty()).then(|| when.join(" || "));
    (gate, gate_when, reasons)
}

/// An `<invoke-workflow>` found in a step, to be run as steps of this workflow.
struct Invocation {
    step: String,
    n: String,
    written: String,
    /// The bundle path of the invoked workflow's definition, when the bundle holds it.
    found: Option<String>,
    /// The enclosing `<check if>` (or the tag's own `if`), when the call is conditional.
    condition: Option<String>,
}

/// Reads a classic bundle (`<dir>workflow.yaml`).
pub(crate) fn read_classic(
    bundle: &Bundle,
    dir: &str,
    report: &mut Report,
    references: &mut Vec<FileReference>,
) -> Option<DraftWorkflow> {
    read_classic_called(bundle, dir, report, references, &CallStack::root(&format!("{dir}workflow.yaml")))
}

/// Reads a classic workflow called from the workflows on `stack`.
fn read_classic_called(
    bundle: &Bundle,
    dir: &str,
    report: &mut Report,
    references: &mut Vec<FileReference>,
    stack: &CallStack,
) -> Option<DraftWorkflow> {
    let config_path = format!("{dir}workflow.yaml");
    let config_text = bundle.files.get(&config_path)?;
    let config: Json = match serde_saphyr::from_str::<Json>(config_text) {
        Ok(config) => config,
        Err(error) => {
            report.error(
                Loc::START,
                codes::METHOD_CONFIG,
                format!("`{config_path}` is not valid YAML: {error}"),
                Some("fix the YAML; a workflow.yaml is a flat mapping of settings".into()),
            );
            return None;
        }
    };
    let Some(config) = config.as_object() else {
        report.error(Loc::START, codes::METHOD_CONFIG, format!("`{config_path}` must be a mapping"), None);
        return None;
    };
    references.push(FileReference::found(config_path.clone(), ReferenceRole::Workflow, None));
    let module = resolve_config(bundle, dir, &config_path, config, report, references);
    // The workflow's own settings, with resolved config values, for `{name}` in paths.
    let mut settings: BTreeMap<String, String> = config
        .iter()
        .filter_map(|(key, value)| Some((key.clone(), scalar_text(value)?)))
        .filter(|(_, value)| !value.starts_with("{config_source}:"))
        .collect();
    for (key, (_, value)) in module.iter().flat_map(|module| &module.values) {
        if let Some(text) = scalar_text(value) {
            settings.insert(key.clone(), text);
        }
    }
    let text_of = |key: &str| config.get(key).and_then(Json::as_str).map(str::to_owned);
    let name = text_of("name")
        .unwrap_or_else(|| dir.trim_end_matches('/').rsplit('/').next().unwrap_or("workflow").to_owned());
    let description = text_of("description").unwrap_or_default();
    let instructions_text = text_of("instructions").unwrap_or_else(|| "{installed_path}/instructions.md".to_owned());
    let Some(instructions_path) = resolve_path(bundle, dir, &instructions_text) else {
        report.error(
            Loc::START,
            codes::METHOD_MISSING_FILE,
            format!("`instructions: {instructions_text}` names a file that is not in the bundle"),
            Some("put the instructions file (instructions.md or instructions.xml) next to workflow.yaml".into()),
        );
        references.push(FileReference::missing(instructions_text, ReferenceRole::Instructions, None));
        return None;
    };
    references.push(FileReference::found(instructions_path.clone(), ReferenceRole::Instructions, None));
    for (key, role) in [("template", ReferenceRole::Template), ("validation", ReferenceRole::Checklist)] {
        if let Some(path) = text_of(key).filter(|path| path != "false" && !path.is_empty()) {
            references.push(match resolve_path(bundle, dir, &path) {
                Some(found) => FileReference::found(found, role, None),
                None => FileReference::missing(path, role, None),
            });
        }
    }
    for (key, value) in config {
        if matches!(key.as_str(), "instructions" | "template" | "validation" | "installed_path" | "config_source") {
            continue;
        }
        if let Some(path) = value.as_str().filter(|path| path.contains("{installed_path}"))
            && let Some(found) = resolve_path(bundle, dir, path)
        {
            references.push(FileReference::found(found, ReferenceRole::Data, None));
        }
    }
    let instructions = &bundle.files[&instructions_path];
    let parsed = classic_steps(instructions);
    let mut used = Vec::new();
    let ids: Vec<String> = parsed.iter().map(|step| step_id(&step.n, &mut used)).collect();
    let index_of = |label: &str| parsed.iter().position(|step| step.n == label);
    let anchor = regex!(r#"<anchor\s+id\s*=\s*["']([^"']+)["']"#);
    let mut anchors: BTreeMap<String, usize> = BTreeMap::new();
    for (index, step) in parsed.iter().enumerate() {
        for captures in anchor.captures_iter(&step.body) {
            anchors.insert(captures[1].to_owned(), index);
        }
    }
    let goto = regex!(r"(?s)<goto\s*([^>]*?)/?>([^<]*)");
    let invoke = regex!(r"(?s)<invoke-(workflow|task)\s*([^>]*?)/?>([^<]*)");
    let output = regex!(r"<template-output[^>]*>\s*([^<\s][^<]*?)\s*</template-output>");
    let path_key = regex!(r"^(?:workflow|path)\s*:\s*");
    let mut steps = Vec::new();
    let mut invocations = Vec::new();
    for (index, step) in parsed.iter().enumerate() {
        let mut edges = Vec::new();
        let mut labels: Vec<String> = Vec::new();
        for captures in goto.captures_iter(&step.body) {
            let attributes = &captures[1];
            let text = captures[2].trim();
            let target_label = attribute(attributes, "step")
                .or_else(|| attribute(attributes, "anchor"))
                .unwrap_or_else(|| text.split_whitespace().next().unwrap_or_default().to_owned());
            let target = index_of(&target_label).or_else(|| anchors.get(&target_label).copied());
            let Some(target) = target else {
                report.warning(
                    Loc::START,
                    codes::METHOD_GOTO,
                    format!(
                        "step `{}` says goto `{target_label}`, which is no step or anchor of `{instructions_path}`",
                        step.n
                    ),
                    Some("the goto stays in the step's text; fix its target to make it an edge".into()),
                );
                continue;
            };
            let label = format!("goto-{}", ids[target]);
            if labels.contains(&label) {
                continue;
            }
            let offset = captures.get(0).map_or(0, |found| found.start());
            let when = attribute(attributes, "if").or_else(|| enclosing_check(&step.body, offset));
            let text = match when {
                Some(condition) => format!("if {condition}"),
                None => format!("when the instructions say to go to step {target_label}"),
            };
            labels.push(label.clone());
            edges.push((label, Some(target), false, None, Some(text)));
        }
        for captures in invoke.captures_iter(&step.body) {
            let kind = &captures[1];
            let offset = captures.get(0).map_or(0, |found| found.start());
            // The path is an attribute, or the body's first line (`workflow: <path>` in some files).
            let path = attribute(&captures[2], "path").unwrap_or_else(|| {
                let line = captures[3].trim().lines().next().unwrap_or_default().trim();
                path_key.replace(line, "").trim().to_owned()
            });
            if path.is_empty() {
                continue;
            }
            let check = attribute(&captures[2], "if").or_else(|| enclosing_check(&step.body, offset));
            let conditional = check.is_some() || step.optional || step.condition.is_some();
            let (role, found) = if kind == "workflow" {
                // `{installed_path}` is this workflow's own folder, wherever it is installed.
                let local = path.strip_prefix("{installed_path}/").map(|rest| format!("{dir}{rest}"));
                let found = local.filter(|local| bundle.files.contains_key(local));
                (
                    ReferenceRole::InvokedWorkflow,
                    found.or_else(|| resolve_module_path(bundle, dir, &expand(&path, &settings))),
                )
            } else {
                (ReferenceRole::Task, resolve_path(bundle, dir, &path))
            };
            // A missing invoked workflow is recorded with workflow.yaml's variables filled in
            // (`{core_brainstorming}` becomes `{project-root}/bmad/core/…/workflow.yaml`), so
            // whoever reads the bundle can fetch it from the project.
            let written = if kind == "workflow" { expand(&path, &settings) } else { path.clone() };
            let mut reference = match &found {
                Some(found) => FileReference::found(found.clone(), role, Some(ids[index].clone())),
                None => FileReference::missing(written, role, Some(ids[index].clone())),
            };
            reference.conditional = conditional;
            references.push(reference);
            if kind == "workflow" {
                invocations.push(Invocation {
                    step: ids[index].clone(),
                    n: step.n.clone(),
                    written: path,
                    found,
                    condition: check,
                });
            }
        }
        if let Some(repeat) = &step.repeat {
            edges.push(("repeat".to_owned(), Some(index), false, None, Some(format!("repeat this step ({repeat})"))));
        }
        let outputs: Vec<String> =
            output.captures_iter(&step.body).map(|captures| format!("`{{{{{}}}}}`", &captures[1])).collect();
        let (gate, gate_when, reasons) = waits_for_user(&step.body);
        let mut prompt = format!("# Step {}: {}\n", step.n, step.goal);
        if step.optional {
            prompt.push_str("\nThis step is optional: ask the user whether to do it (skip it in #yolo mode).\n");
        }
        prompt.push('\n');
        prompt.push_str(&escape(&step.body));
        if !outputs.is_empty() {
            prompt.push_str(&escape(&format!("\n\nWrite these template sections: {}.", outputs.join(", "))));
        }
        if gate || gate_when.is_some() {
            let when = if gate { "" } else { " (when its condition holds)" };
            prompt.push_str(&format!(
                "\n\nThe method waits for the user at this step{when}: {}. Put what the user must see or answer in your notes; when you advance, the run waits for a human to approve, and a rejection brings you back here with their answer.",
                reasons.join("; ")
            ));
        }
        let _ = step.start;
        steps.push(Building {
            id: ids[index].clone(),
            title: step.goal.clone(),
            prompt,
            run_when: None,
            gate,
            gate_when,
            edges,
        });
    }
    let count = steps.len();
    for index in 0..count {
        // The way on: the next step, or a choice between doing a conditional next step and skipping it.
        let next = index + 1;
        let mut way_on = Vec::new();
        if next < count {
            let upcoming = &parsed[next];
            let condition = upcoming
                .condition
                .clone()
                .or_else(|| upcoming.optional.then(|| "the user wants this optional step".to_owned()));
            match condition.as_deref().map(|text| (text, expression(text))) {
                Some((_, Some(evaluated))) => {
                    steps[next].run_when = Some(evaluated);
                    way_on.push(("next".to_owned(), Some(next), true, None, None));
                }
                Some((text, None)) => {
                    way_on.push((format!("step-{}", ids[next]), Some(next), true, None, Some(format!("if {text}"))));
                    let skip_to = (next + 1 < count).then_some(next + 1);
                    way_on.push((format!("skip-{}", ids[next]), skip_to, false, None, Some(format!("unless {text}"))));
                }
                None => way_on.push(("next".to_owned(), Some(next), true, None, None)),
            }
        } else if !steps[index].edges.is_empty() {
            way_on.push(("done".to_owned(), None, true, None, Some("the workflow is complete".to_owned())));
        }
        steps[index].edges.extend(way_on);
    }
    if let Some(first) = steps.first_mut() {
        let mut preamble = format!("# {name}\n{description}\n");
        let variables = variables_section(config, module.as_ref());
        if !variables.is_empty() {
            preamble.push_str(&format!("\n{}\n", escape(&variables)));
        }
        for reference in references
            .iter()
            .filter(|reference| matches!(reference.role, ReferenceRole::Template | ReferenceRole::Checklist))
        {
            let what = if reference.role == ReferenceRole::Template {
                "Output template"
            } else {
                "Checklist to run at the end"
            };
            preamble.push_str(&format!("\n{what}: `{}`\n", reference.path));
        }
        first.prompt = format!("{preamble}\n{}", first.prompt);
    }
    let mut workflow = draft(workflow_id(&name), name, description, steps);
    if let Some(module) = &module {
        workflow.variables = config_variables(module);
    }
    // Later calls first, so calls in one step run in document order.
    for invocation in invocations.into_iter().rev() {
        run_invoked(bundle, &mut workflow, invocation, stack, report, references);
    }
    Some(workflow)
}

/// Splices an invoked workflow's steps in after the invoking step, or explains with a warning
/// why the step only asks the agent to run it.
fn run_invoked(
    bundle: &Bundle,
    workflow: &mut DraftWorkflow,
    invocation: Invocation,
    stack: &CallStack,
    report: &mut Report,
    references: &mut Vec<FileReference>,
) {
    let Invocation { step, n, written, found, condition } = invocation;
    let left = "the step asks the agent to run it";
    let Some(path) = found else {
        report.warning(
            Loc::START,
            codes::METHOD_INVOKE,
            format!("step `{n}` invokes the workflow `{written}`, which is not in the bundle; {left}"),
            Some("put the invoked workflow's folder in the bundle (e.g. under `bmad/<module>/workflows/`) to run its steps as part of this workflow".into()),
        );
        return;
    };
    let inner = match stack.enter(&path) {
        Ok(inner) => inner,
        Err(Refusal::Recursive) => {
            report.warning(
                Loc::START,
                codes::METHOD_INVOKE,
                format!("step `{n}` invokes `{path}`, which is already running further out (a workflow invoking itself); {left}"),
                Some("remove the recursive invoke-workflow, or accept that the agent runs it".into()),
            );
            return;
        }
        Err(Refusal::TooDeep) => {
            report.warning(
                Loc::START,
                codes::METHOD_INVOKE,
                format!("step `{n}` invokes `{path}`, but invoked workflows already nest {MAX_DEPTH} deep; {left}"),
                Some("flatten the chain of invoked workflows".into()),
            );
            return;
        }
    };
    let child_dir = parent(&path);
    let file_name = path.rsplit('/').next().unwrap_or_default();
    let mut child_report = Report::new(&path);
    let mut child_references = Vec::new();
    let child = match file_name {
        "workflow.yaml" => read_classic_called(bundle, &child_dir, &mut child_report, &mut child_references, &inner),
        name if name.ends_with(".md") => {
            read_step_files(bundle, &child_dir, name, &mut child_report, &mut child_references)
        }
        _ => None,
    };
    let problem = match &child {
        _ if child_report.has_errors() => child_report.first_error(),
        None => Some(format!("`{file_name}` is not a workflow.yaml or a step-file workflow.md")),
        Some(child) => compiles_alone(child, &path).err(),
    };
    if let Some(problem) = problem {
        report.warning(
            Loc::START,
            codes::METHOD_INVOKE,
            format!("step `{n}` invokes `{path}`, which does not compile on its own ({problem}); {left}"),
            Some("fix the invoked workflow (run `switchyard validate` on its folder)".into()),
        );
        return;
    }
    let Some(child) = child else { return };
    report.diagnostics.extend(child_report.diagnostics);
    for mut reference in child_references {
        reference.conditional |= condition.is_some();
        references.push(reference);
    }
    splice(workflow, &step, child, condition.as_deref());
}

/// Reads a step-file bundle (`<dir><entry>` = `workflow.md` or `workflow-*.md`).
pub(crate) fn read_step_files(
    bundle: &Bundle,
    dir: &str,
    entry: &str,
    report: &mut Report,
    references: &mut Vec<FileReference>,
) -> Option<DraftWorkflow> {
    let entry_path = format!("{dir}{entry}");
    let entry_text = bundle.files.get(&entry_path)?;
    let (front, body) = frontmatter(entry_text);
    references.push(FileReference::found(entry_path.clone(), ReferenceRole::Workflow, None));
    let name = front
        .get("name")
        .and_then(Json::as_str)
        .map_or_else(|| dir.trim_end_matches('/').rsplit('/').next().unwrap_or("workflow").to_owned(), str::to_owned);
    let description = front.get("description").and_then(Json::as_str).unwrap_or_default().to_owned();
    let step_file = regex!(r"[A-Za-z0-9_./{}-]*step-[0-9][A-Za-z0-9_-]*\.md");
    let first = step_file.find_iter(body).find_map(|found| resolve_path(bundle, dir, found.as_str())).or_else(|| {
        bundle
            .files
            .keys()
            .filter(|path| path.starts_with(dir) && path[dir.len()..].starts_with("steps") && path.contains("/step-"))
            .min()
            .cloned()
    });
    let Some(first) = first else {
        report.error(
            Loc::START,
            codes::METHOD_MISSING_FILE,
            format!("`{entry_path}` names no step file and the bundle has no `steps/step-*.md`"),
            Some("add `steps/step-01-<name>.md` and point the workflow file at it".into()),
        );
        return None;
    };
    // Walk the chain of step files from the first, breadth first.
    let mut order: Vec<String> = vec![first];
    let mut branches: Vec<Vec<(String, String, bool)>> = Vec::new();
    let mut position = 0;
    while position < order.len() {
        let path = order[position].clone();
        let (front, _) = frontmatter(&bundle.files[&path]);
        let mut out = Vec::new();
        for (key, value) in &front {
            let Some(text) = value.as_str() else { continue };
            let is_step_link = key.ends_with("StepFile") || key.contains("StepFile_") || key == "nextStep";
            if !is_step_link || key == "thisStepFile" {
                if key != "thisStepFile"
                    && let Some(found) = resolve_path(bundle, &parent(&path), text)
                    && !found.ends_with(".md")
                {
                    references.push(FileReference::found(found, ReferenceRole::Data, Some(stem(&path))));
                }
                continue;
            }
            match resolve_path(bundle, &parent(&path), text) {
                Some(target) => {
                    let label = match key.as_str() {
                        "nextStepFile" | "nextStep" => "next".to_owned(),
                        other => other.trim_end_matches("StepFile").replace("StepFile_", "").replace('_', "-"),
                    };
                    let default = label == "next";
                    out.push((label, target.clone(), default));
                    if !order.contains(&target) {
                        order.push(target);
                    }
                }
                None => {
                    report.warning(
                        Loc::START,
                        codes::METHOD_MISSING_FILE,
                        format!("`{key}: {text}` in `{path}` names a step file that is not in the bundle"),
                        Some("the step ends the workflow there; add the file or fix the path".into()),
                    );
                    references.push(FileReference::missing(text.to_owned(), ReferenceRole::Step, Some(stem(&path))));
                }
            }
        }
        out.sort_by_key(|(label, _, default)| (!*default, label.clone()));
        if out.len() > 1 && out.iter().all(|(_, _, default)| !default) {
            // A branch with no plain next: the agent chooses.
        }
        branches.push(out);
        position += 1;
    }
    let index: BTreeMap<String, usize> =
        order.iter().enumerate().map(|(position, path)| (path.clone(), position)).collect();
    let mut used = Vec::new();
    let mut steps = Vec::new();
    for (position, path) in order.iter().enumerate() {
        references.push(FileReference::found(path.clone(), ReferenceRole::Step, None));
        let (front, body) = frontmatter(&bundle.files[path]);
        let id = step_id(&stem(path), &mut used);
        let title = front
            .get("description")
            .or_else(|| front.get("name"))
            .and_then(Json::as_str)
            .map_or_else(|| id.clone(), str::to_owned);
        let mut prompt = String::new();
        if position == 0 {
            prompt.push_str(&format!("# {name}\n{description}\n\n"));
        }
        prompt.push_str(&format!("(step file `{path}`)\n\n{}", escape(body.trim())));
        let gate = has_menu(body);
        if gate {
            prompt.push_str(
                "\n\nThis step ends at a menu, where the method waits for the user: show the menu in your notes and advance. The run then waits for a human: approving is [C] Continue; a rejection (for [A] Advanced Elicitation, [P] Party Mode or any other answer) brings you back to this step with their answer.",
            );
        }
        let edges = branches[position]
            .iter()
            .map(|(label, target, default)| {
                let text = (!default).then(|| format!("the step's `{label}` branch"));
                (label.clone(), index.get(target).copied(), *default, None, text)
            })
            .collect();
        steps.push(Building { id, title, prompt, run_when: None, gate, gate_when: None, edges });
    }
    for path in
        bundle.files.keys().filter(|path| path.starts_with(dir) && path.contains("/step-") && path.ends_with(".md"))
    {
        if !index.contains_key(path) {
            references.push(FileReference::found(path.clone(), ReferenceRole::Other, None));
        }
    }
    Some(draft(workflow_id(&name), name, description, steps))
}

/// A step-file menu, where the method halts for the user: a `[C] Continue` option, or two or
/// more options such as `[A] Advanced Elicitation [P] Party Mode` or `[P] Plan first [E] Execute`.
fn has_menu(body: &str) -> bool {
    let continue_option = regex!(r"(?i)\[C\]\**\s*continue");
    let option = regex!(r"\[([A-Z0-9])\]\**\s*[A-Za-z]");
    let mut letters: Vec<&str> =
        option.captures_iter(body).filter_map(|captures| captures.get(1)).map(|m| m.as_str()).collect();
    letters.sort_unstable();
    letters.dedup();
    continue_option.is_match(body) || letters.len() >= 2
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
    use super::{attribute, classic_steps, expression, workflow_id};

    #[test]
    fn attributes_are_read_whole_in_either_quotes() {
        // `n='1'` inside the goal is text, not the step's number.
        let attributes = r#"goal="Check that n='1' holds" n="3" if='mode == "fast"' for-each="item""#;
        assert_eq!(attribute(attributes, "n").as_deref(), Some("3"));
        assert_eq!(attribute(attributes, "goal").as_deref(), Some("Check that n='1' holds"));
        assert_eq!(attribute(attributes, "if").as_deref(), Some(r#"mode == "fast""#));
        assert_eq!(attribute(attributes, "for-each").as_deref(), Some("item"));
        assert_eq!(attribute(r#"goal="a" n = '2'"#, "n").as_deref(), Some("2"), "spaces around `=`");
        assert_eq!(attribute(attributes, "repeat"), None);
        assert_eq!(attribute(r#"xn="1""#, "n"), None, "a name ends where the attribute's does");
    }

    #[test]
    fn the_scanner_finds_steps_in_files_that_are_not_xml() {
        let text = "<workflow>\n<step n=\"1\" goal=\"Ask\">if x < 3 then <ask>go?</ask>\n<step n=\"2a\" goal=\"Next\" optional=\"true\">b</step></workflow>";
        let steps = classic_steps(text);
        assert_eq!(steps.iter().map(|step| step.n.as_str()).collect::<Vec<_>>(), ["1", "2a"]);
        assert!(steps[1].optional);
        assert!(steps[0].body.contains("x < 3"));
        let markdown = classic_steps("intro\n## Step 1: Plan\nplan it\n## Step 2. Do\ndo it\n");
        assert_eq!(markdown.len(), 2);
        assert_eq!(markdown[1].goal, "Do");
    }

    #[test]
    fn only_simple_comparisons_are_evaluated() {
        assert!(expression("mode == 'fast'").is_some());
        assert!(expression("{{mode}} != \"slow\"").is_some());
        assert!(expression("user selects 2").is_none());
        assert_eq!(workflow_id("Story Done!"), "story-done");
    }
}
