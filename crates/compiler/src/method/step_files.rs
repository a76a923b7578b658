//! Step-file BMad Method bundles (`workflow.md` + `steps/step-NN-*.md`): each step file a step,
//! in the order the files lead to one another.

use std::collections::BTreeMap;

use regex::Regex;
use serde_json::Value as Json;

use super::waits::has_menu;
use super::{Building, draft, parent, stem, step_id, workflow_id};
use crate::bundle::{Bundle, FileReference, ReferenceRole, frontmatter, resolve_path};
use crate::diagnostic::{Loc, Report, codes};
use crate::draft::DraftWorkflow;
use crate::workrail::escape;

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
