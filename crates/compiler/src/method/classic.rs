//! Classic BMad Method bundles (`workflow.yaml` + `instructions.md|xml`): each `<step n>` a step
//! in document order, `goto` an edge (bounded when it goes back), `repeat`/`for-each` a bounded
//! self-edge, `if`/`optional` a decision at the step before; invoked workflows run as steps of
//! the caller.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value as Json;

use super::config::{config_variables, expand, resolve_config, scalar_text, variables_section};
use super::step_files::read_step_files;
use super::tags::{attribute, classic_steps, enclosing_check};
use super::waits::waits_for_user;
use super::{Building, draft, expression, parent, step_id, workflow_id};
use crate::bundle::{Bundle, FileReference, ReferenceRole, resolve_module_path, resolve_path};
use crate::diagnostic::{Loc, Report, codes};
use crate::draft::DraftWorkflow;
use crate::subworkflow::{CallStack, MAX_DEPTH, Refusal, compiles_alone, splice};
use crate::workrail::escape;

/// An `<invoke-workflow>` found in a step, to be run as steps of this workflow.
pub(super) struct Invocation {
    pub(super) step: String,
    pub(super) n: String,
    pub(super) written: String,
    /// The bundle path of the invoked workflow's definition, when the bundle holds it.
    pub(super) found: Option<String>,
    /// The enclosing `<check if>` (or the tag's own `if`), when the call is conditional.
    pub(super) condition: Option<String>,
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
pub(super) fn read_classic_called(
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
pub(super) fn run_invoked(
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
