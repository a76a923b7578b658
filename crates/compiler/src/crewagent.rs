//! The CrewAgent v1.1 package front-end: `bmad.json`, `workflow.graph.json`, `workflow.md`,
//! `steps/<node>.md`, `agents.json`, single- or multi-workflow, validated against JSON Schemas
//! written for switchyard from the format description (`formats/crewagent/`) plus the graph
//! rules, then compiled node by node.
//!
//! An edge's JSONLogic `conditionExpr` is translated to CEL over `context` (a missing variable
//! reads as null, as in JSONLogic); `conditionText` reaches the agent as the edge's text; a
//! decision node is chosen by label; an agent's persona becomes the step's role. Edges that close
//! a cycle (CrewAgent's builder refuses cycles, hand-written graphs may have them) are bounded.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use serde_json::Value as Json;
use switchyard_core::workflow::{EdgeKind, Limits};

use crate::Format;
use crate::bundle::{Bundle, BundleWorkflow, FileReference, ReferenceRole, finish, frontmatter};
use crate::diagnostic::{Loc, Report, codes};
use crate::draft::{DraftEdge, DraftStep, DraftTarget, DraftWorkflow};
use crate::located::Located;
use crate::method::{LOOP_BOUND, workflow_id};
use crate::subworkflow::{CallStack, MAX_DEPTH, Refusal, compiles_alone, splice};
use crate::workrail::escape;

/// A schema of the package format, compiled on first use and kept for the process (a package
/// validates every step file against the same one). `None` only if the bundled schema is broken,
/// which a unit test rules out.
type Schema = LazyLock<Option<jsonschema::Validator>>;

fn compile_schema(text: &str) -> Option<jsonschema::Validator> {
    jsonschema::validator_for(&serde_json::from_str::<Json>(text).ok()?).ok()
}

static MANIFEST_SCHEMA: Schema =
    LazyLock::new(|| compile_schema(include_str!("../formats/crewagent/bmad.schema.json")));
static GRAPH_SCHEMA: Schema =
    LazyLock::new(|| compile_schema(include_str!("../formats/crewagent/workflow-graph.schema.json")));
static AGENTS_SCHEMA: Schema =
    LazyLock::new(|| compile_schema(include_str!("../formats/crewagent/agents.schema.json")));
static STEP_SCHEMA: Schema =
    LazyLock::new(|| compile_schema(include_str!("../formats/crewagent/step-frontmatter.schema.json")));

fn located<T>(value: T) -> Located<T> {
    Located::new(value, Loc::START)
}

/// The step id of a node: CrewAgent ids may hold `:`, step ids may not, so it becomes `-`.
fn step_id(node: &str) -> String {
    node.replace(':', "-")
}

/// Parses a JSON file of the package and validates it against its schema, reporting errors with
/// the file, the JSON pointer and the line.
fn load_json(bundle: &Bundle, path: &str, schema: &Schema, report: &mut Report) -> Option<Json> {
    let Some(text) = bundle.files.get(path) else {
        report.error(
            Loc::START,
            codes::CREWAGENT_MISSING_FILE,
            format!("the package has no `{path}`"),
            Some(format!("add `{path}` at the path bmad.json names")),
        );
        return None;
    };
    let value: Json = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(error) => {
            report.error(
                Loc {
                    line: u32::try_from(error.line()).unwrap_or(1),
                    column: u32::try_from(error.column()).unwrap_or(1),
                },
                codes::JSON_SYNTAX,
                format!("`{path}` is not valid JSON: {error}"),
                None,
            );
            return None;
        }
    };
    validate(path, &value, schema, report, text);
    Some(value)
}

fn validate(path: &str, value: &Json, schema: &Schema, report: &mut Report, text: &str) -> bool {
    let Some(validator) = schema.as_ref() else { return true };
    let mut valid = true;
    for error in validator.iter_errors(value) {
        valid = false;
        let pointer = error.instance_path().as_str().to_owned();
        report.error(
            line_of(text, &pointer),
            codes::CREWAGENT_SCHEMA,
            format!("`{path}`{}: {error}", if pointer.is_empty() { String::new() } else { format!(" at `{pointer}`") }),
            Some("see docs/formats.md (CrewAgent packages) for the fields of this file".into()),
        );
    }
    valid
}

/// The line of the last key of a JSON pointer in the text (best effort).
fn line_of(text: &str, pointer: &str) -> Loc {
    let Some(key) = pointer.rsplit('/').find(|part| part.parse::<usize>().is_err() && !part.is_empty()) else {
        return Loc::START;
    };
    let needle = format!("\"{key}\"");
    text.lines()
        .position(|line| line.contains(&needle))
        .map_or(Loc::START, |line| Loc { line: u32::try_from(line + 1).unwrap_or(1), column: 1 })
}

/// Compiles every workflow of a package.
pub(crate) fn compile(bundle: &Bundle, fallback: &str) -> Vec<BundleWorkflow> {
    let mut report = Report::new(&format!("{}/bmad.json", bundle.name));
    let Some(manifest) = load_json(bundle, "bmad.json", &MANIFEST_SCHEMA, &mut report) else {
        return vec![finish(fallback.to_owned(), Format::CrewAgent, None, report, Vec::new())];
    };
    let package = workflow_id(manifest["name"].as_str().unwrap_or(fallback));
    let agents_path = manifest["entry"]["agents"].as_str().unwrap_or("agents.json").to_owned();
    let agents = load_json(bundle, &agents_path, &AGENTS_SCHEMA, &mut report).unwrap_or(Json::Null);
    let roles: BTreeMap<String, String> = agents["agents"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|agent| Some((agent["id"].as_str()?.to_owned(), persona(agent))))
        .collect();
    let mut workflows: Vec<PackageWorkflow> = Vec::new();
    match manifest["workflows"].as_array().filter(|workflows| !workflows.is_empty()) {
        Some(listed) => {
            for workflow in listed {
                let id = workflow["id"].as_str().unwrap_or("workflow").to_owned();
                workflows.push(PackageWorkflow {
                    name: format!("{package}.{}", workflow_id(&id)),
                    graph: workflow["graph"].as_str().unwrap_or_default().to_owned(),
                    workflow: workflow["workflow"].as_str().unwrap_or_default().to_owned(),
                    title: workflow["displayName"].as_str().unwrap_or(&id).to_owned(),
                    id,
                });
            }
        }
        None => workflows.push(PackageWorkflow {
            name: package.clone(),
            id: package.clone(),
            graph: manifest["entry"]["graph"].as_str().unwrap_or("workflow.graph.json").to_owned(),
            workflow: manifest["entry"]["workflow"].as_str().unwrap_or("workflow.md").to_owned(),
            title: manifest["name"].as_str().unwrap_or(&package).to_owned(),
        }),
    }
    let shared = report.diagnostics;
    let package = Package { bundle, roles, workflows };
    package
        .workflows
        .iter()
        .map(|target| {
            let mut report = Report::new(&format!("{}/{}", bundle.name, target.graph));
            report.diagnostics.extend(shared.iter().cloned());
            let mut references = vec![
                FileReference::found("bmad.json".to_owned(), ReferenceRole::Other, None),
                FileReference::found(agents_path.clone(), ReferenceRole::Agents, None),
            ];
            let stack = CallStack::root(&target.graph);
            let draft = read_workflow(&package, target, &stack, &mut report, &mut references);
            finish(target.name.clone(), Format::CrewAgent, draft, report, references)
        })
        .collect()
}

/// What every workflow of a package shares: its files, its agents' personas, its workflows.
struct Package<'a> {
    bundle: &'a Bundle,
    roles: BTreeMap<String, String>,
    workflows: Vec<PackageWorkflow>,
}

/// One workflow of a package, as `bmad.json` lists it.
struct PackageWorkflow {
    /// The name discovery lists it under.
    name: String,
    /// The id in `bmad.json` (the package name for a single-workflow package).
    id: String,
    graph: String,
    workflow: String,
    title: String,
}

impl Package<'_> {
    /// The workflow a `subworkflow` node calls: the one its step file's `subworkflowRef` names
    /// (CrewAgent's v1.2 field; step frontmatter is open in v1.1), else the one whose
    /// `workflow.md` or `workflow.graph.json` the node's `file` is.
    fn called(&self, node_file: &str, front: &serde_json::Map<String, Json>) -> Result<&PackageWorkflow, String> {
        if let Some(reference) = front.get("subworkflowRef").and_then(Json::as_str) {
            let wanted = workflow_id(reference);
            return self
                .workflows
                .iter()
                .find(|workflow| workflow_id(&workflow.id) == wanted || workflow.name == wanted)
                .ok_or_else(|| format!("`subworkflowRef: {reference}` names no workflow of this package"));
        }
        self.workflows.iter().find(|workflow| workflow.workflow == node_file || workflow.graph == node_file).ok_or_else(
            || {
                format!(
                    "its file `{node_file}` is no workflow of this package and its step file sets no `subworkflowRef`"
                )
            },
        )
    }
}

fn persona(agent: &Json) -> String {
    let persona = &agent["persona"];
    let principles = match &persona["principles"] {
        Json::Array(items) => items.iter().filter_map(Json::as_str).collect::<Vec<_>>().join("; "),
        Json::String(text) => text.clone(),
        _ => String::new(),
    };
    format!(
        "{} {} ({}). {} Communication: {} Principles: {}",
        agent["metadata"]["icon"].as_str().unwrap_or_default(),
        agent["metadata"]["name"].as_str().unwrap_or_default(),
        persona["role"].as_str().unwrap_or_default(),
        persona["identity"].as_str().unwrap_or_default(),
        persona["communication_style"].as_str().unwrap_or_default(),
        principles
    )
    .trim()
    .to_owned()
}

fn read_workflow(
    package: &Package<'_>,
    target: &PackageWorkflow,
    stack: &CallStack,
    report: &mut Report,
    references: &mut Vec<FileReference>,
) -> Option<DraftWorkflow> {
    let bundle = package.bundle;
    let roles = &package.roles;
    let (name, graph_path, workflow_path, title) =
        (target.name.as_str(), target.graph.as_str(), target.workflow.as_str(), target.title.as_str());
    let graph = load_json(bundle, graph_path, &GRAPH_SCHEMA, report)?;
    references.push(FileReference::found(graph_path.to_owned(), ReferenceRole::Workflow, None));
    let description = match bundle.files.get(workflow_path) {
        Some(text) => {
            references.push(FileReference::found(workflow_path.to_owned(), ReferenceRole::Instructions, None));
            frontmatter(text).1.trim().to_owned()
        }
        None => {
            report.warning(
                Loc::START,
                codes::CREWAGENT_MISSING_FILE,
                format!("the package has no `{workflow_path}`; the workflow has no goal text"),
                None,
            );
            references.push(FileReference::missing(workflow_path.to_owned(), ReferenceRole::Instructions, None));
            String::new()
        }
    };
    let nodes: Vec<&Json> = graph["nodes"].as_array().into_iter().flatten().collect();
    let edges: Vec<&Json> = graph["edges"].as_array().into_iter().flatten().collect();
    let ids: Vec<String> = nodes.iter().map(|node| node["id"].as_str().unwrap_or_default().to_owned()).collect();
    let entry = graph["entryNodeId"].as_str().unwrap_or_default().to_owned();
    if !ids.contains(&entry) {
        report.error(
            line_of(&bundle.files[graph_path], "/entryNodeId"),
            codes::CREWAGENT_GRAPH,
            format!("`entryNodeId` is `{entry}`, which is not a node of `{graph_path}`"),
            Some(format!("use one of: {}", ids.join(", "))),
        );
    }
    let back_edges = back_edges(&entry, &ids, &edges);
    let mut steps = Vec::new();
    // Subworkflow nodes and the graph of the workflow each calls.
    let mut calls: Vec<(String, Result<String, String>)> = Vec::new();
    for node in &nodes {
        let id = node["id"].as_str().unwrap_or_default().to_owned();
        let kind = node["type"].as_str().unwrap_or("step");
        let file = node["file"].as_str().unwrap_or_default();
        let out: Vec<&&Json> = edges.iter().filter(|edge| edge["from"].as_str() == Some(id.as_str())).collect();
        if kind == "decision" && (out.len() < 2 || !out.iter().any(|edge| edge["isDefault"].as_bool() == Some(true))) {
            report.error(
                line_of(&bundle.files[graph_path], "/nodes"),
                codes::CREWAGENT_GRAPH,
                format!(
                    "decision node `{id}` needs at least 2 outgoing edges and one with `isDefault: true` (it has {})",
                    out.len()
                ),
                Some("add the missing branch, or mark one branch `\"isDefault\": true`".into()),
            );
        }
        if kind == "end" && !out.is_empty() {
            report.warning(
                Loc::START,
                codes::CREWAGENT_GRAPH,
                format!("end node `{id}` has outgoing edges; they are kept"),
                None,
            );
        }
        let body = match bundle.files.get(file) {
            Some(text) => {
                references.push(FileReference::found(file.to_owned(), ReferenceRole::Step, Some(id.clone())));
                let (front, body) = frontmatter(text);
                let names_workflow = package.workflows.iter().any(|workflow| workflow.workflow == file);
                if kind == "subworkflow" {
                    calls.push((id.clone(), package.called(file, &front).map(|workflow| workflow.graph.clone())));
                }
                // A subworkflow node's file may be the called workflow's own `workflow.md`.
                let called_workflow_file = kind == "subworkflow" && names_workflow;
                if !front.is_empty() && !called_workflow_file {
                    validate(file, &Json::Object(front.clone()), &STEP_SCHEMA, report, text);
                    if front.get("nodeId").and_then(Json::as_str).is_some_and(|node_id| node_id != id) {
                        report.error(
                            Loc::START,
                            codes::CREWAGENT_GRAPH,
                            format!(
                                "`{file}` says `nodeId: {}`, but the graph node using it is `{id}`",
                                front["nodeId"]
                            ),
                            Some("make the step file's nodeId equal the graph node id".into()),
                        );
                    }
                }
                body.trim().to_owned()
            }
            None => {
                report.error(
                    Loc::START,
                    codes::CREWAGENT_MISSING_FILE,
                    format!("node `{id}` names step file `{file}`, which is not in the package"),
                    Some("add the file or fix the node's `file`".into()),
                );
                references.push(FileReference::missing(file.to_owned(), ReferenceRole::Step, Some(id.clone())));
                String::new()
            }
        };
        // A node's `inputs` and `outputs` are artifact paths the agent reads and writes while the
        // run goes on, not files of the package: only an input the package itself holds is a
        // reference, so a preload never reports the agent's future outputs as missing files.
        for path in node["inputs"].as_array().into_iter().flatten().filter_map(Json::as_str) {
            if bundle.files.contains_key(path) {
                references.push(FileReference::found(path.to_owned(), ReferenceRole::Data, Some(id.clone())));
            }
        }
        let mut prompt = format!("# {}\n", node["title"].as_str().unwrap_or(&id));
        if let Some(text) = node["description"].as_str() {
            prompt.push_str(&format!("{text}\n"));
        }
        if kind == "subworkflow" {
            prompt.push_str("\nThis node runs a sub-workflow: its steps follow this one when the package holds it; otherwise follow the step file, then continue here.\n");
        }
        if kind == "decision" {
            prompt.push_str("\nThis is a decision: choose one of the branches by its label.\n");
        }
        if let Some(outputs) = node["outputs"].as_array().filter(|outputs| !outputs.is_empty()) {
            let list: Vec<String> = outputs.iter().filter_map(Json::as_str).map(|path| format!("`{path}`")).collect();
            prompt.push_str(&format!("\nWrite: {}\n", list.join(", ")));
        }
        prompt.push('\n');
        prompt.push_str(&escape(&body));
        let role = node["agentId"].as_str().and_then(|agent| {
            let role = roles.get(agent).cloned();
            if role.is_none() {
                report.warning(
                    Loc::START,
                    codes::CREWAGENT_GRAPH,
                    format!("node `{id}` names agent `{agent}`, which agents.json does not define"),
                    None,
                );
            }
            role
        });
        let mut draft_edges = Vec::new();
        let defaults = out.iter().filter(|edge| edge["isDefault"].as_bool() == Some(true)).count();
        for edge in &out {
            let to = edge["to"].as_str().unwrap_or_default().to_owned();
            if !ids.contains(&to) {
                report.error(
                    line_of(&bundle.files[graph_path], "/edges"),
                    codes::CREWAGENT_GRAPH,
                    format!(
                        "edge `{}` from `{id}` leads to `{to}`, which is not a node",
                        edge["label"].as_str().unwrap_or_default()
                    ),
                    Some(format!("use one of: {}", ids.join(", "))),
                );
                continue;
            }
            let is_default = edge["isDefault"].as_bool() == Some(true) || (out.len() == 1 && defaults == 0);
            let condition = match edge.get("conditionExpr") {
                Some(expression) if !is_default => match json_logic(expression) {
                    Ok(cel) => Some(located(cel)),
                    Err(message) => {
                        report.warning(
                            Loc::START,
                            codes::CREWAGENT_CONDITION,
                            format!("the conditionExpr of edge `{}` from `{id}` is not evaluated: {message}; the agent chooses by label", edge["label"].as_str().unwrap_or_default()),
                            None,
                        );
                        None
                    }
                },
                _ => None,
            };
            let bounded = back_edges.contains(&(id.clone(), to.clone()));
            draft_edges.push(DraftEdge {
                at: Loc::START,
                target: DraftTarget::Step(located(step_id(&to))),
                label: located(edge["label"].as_str().unwrap_or("next").to_owned()),
                default: is_default,
                condition,
                condition_text: edge["conditionText"].as_str().map(str::to_owned),
                max_traversals: bounded.then_some(LOOP_BOUND),
                kind: EdgeKind::Normal,
                set: Vec::new(),
            });
        }
        // Conditional edges are evaluated first, so they go before the others.
        draft_edges.sort_by_key(|edge| (edge.condition.is_none(), edge.default));
        steps.push(DraftStep {
            role,
            edges: draft_edges,
            ..DraftStep::new(
                located(step_id(&id)),
                node["title"].as_str().unwrap_or_default().to_owned(),
                located(prompt),
            )
        });
    }
    let reachable_end = reaches_end(&entry, &ids, &nodes, &edges);
    if !reachable_end && ids.contains(&entry) {
        report.error(
            Loc::START,
            codes::CREWAGENT_GRAPH,
            format!("no `end` node can be reached from the entry node `{entry}`"),
            Some("add an `end` node and an edge to it".into()),
        );
    }
    let mut workflow = DraftWorkflow {
        id: located(workflow_id(name)),
        version: "1".to_owned(),
        title: title.to_owned(),
        description: description.lines().next().unwrap_or_default().trim_start_matches('#').trim().to_owned(),
        tags: Vec::new(),
        start: Some(located(step_id(&entry))),
        steps,
        variables: Vec::new(),
        limits: Limits::default(),
    };
    for (node, called) in calls.into_iter().rev() {
        run_subworkflow(package, &mut workflow, &node, called, stack, report, references);
    }
    Some(workflow)
}

/// Splices the workflow a `subworkflow` node calls in after the node, or explains with a
/// warning why the node only asks the agent to run it.
fn run_subworkflow(
    package: &Package<'_>,
    workflow: &mut DraftWorkflow,
    node: &str,
    called: Result<String, String>,
    stack: &CallStack,
    report: &mut Report,
    references: &mut Vec<FileReference>,
) {
    let left = "the node asks the agent to run the sub-workflow";
    let warn = |report: &mut Report, why: String, help: &str| {
        report.warning(
            Loc::START,
            codes::CREWAGENT_SUBWORKFLOW,
            format!("subworkflow node `{node}`: {why}; {left}"),
            Some(help.to_owned()),
        );
    };
    let graph = match called {
        Ok(graph) => graph,
        Err(why) => {
            let help = "set `subworkflowRef: <workflow id>` in the node's step file, or point the node's `file` at the called workflow's workflow.md";
            return warn(report, why, help);
        }
    };
    let Some(target) = package.workflows.iter().find(|workflow| workflow.graph == graph) else { return };
    let inner = match stack.enter(&graph) {
        Ok(inner) => inner,
        Err(Refusal::Recursive) => {
            let why = format!("`{}` is already running further out (a workflow calling itself)", target.id);
            return warn(report, why, "remove the recursive subworkflow node, or accept that the agent runs it");
        }
        Err(Refusal::TooDeep) => {
            let why = format!("sub-workflows already nest {MAX_DEPTH} deep");
            return warn(report, why, "flatten the chain of sub-workflows");
        }
    };
    let mut child_report = Report::new(&format!("{}/{graph}", package.bundle.name));
    let mut child_references = Vec::new();
    let child = read_workflow(package, target, &inner, &mut child_report, &mut child_references);
    let problem = match &child {
        _ if child_report.has_errors() => child_report.first_error(),
        None => Some(format!("`{graph}` does not load")),
        Some(child) => compiles_alone(child, &graph).err(),
    };
    if let Some(problem) = problem {
        let why = format!("the workflow `{}` does not compile on its own ({problem})", target.id);
        return warn(report, why, "fix the called workflow (run `switchyard validate` on the package)");
    }
    let Some(mut child) = child else { return };
    // Inside the caller, the called workflow is named by its id, not by its listed name.
    child.id = located(workflow_id(&target.id));
    report.diagnostics.extend(child_report.diagnostics.into_iter().filter(|diagnostic| !diagnostic.is_error()));
    references.extend(child_references);
    splice(workflow, &step_id(node), child, None);
}

/// Edges that close a cycle in a depth-first walk from the entry.
fn back_edges(entry: &str, ids: &[String], edges: &[&Json]) -> BTreeSet<(String, String)> {
    let successors = |node: &str| -> Vec<String> {
        edges
            .iter()
            .filter(|edge| edge["from"].as_str() == Some(node))
            .filter_map(|edge| edge["to"].as_str().map(str::to_owned))
            .collect()
    };
    let mut found = BTreeSet::new();
    let mut state: BTreeMap<String, u8> = BTreeMap::new();
    let mut roots: Vec<String> = vec![entry.to_owned()];
    roots.extend(ids.iter().cloned());
    for root in roots {
        if state.contains_key(&root) {
            continue;
        }
        let mut stack: Vec<(String, Vec<String>)> = vec![(root.clone(), successors(&root))];
        state.insert(root, 1);
        while let Some((node, children)) = stack.last_mut() {
            match children.pop() {
                Some(child) => match state.get(&child) {
                    Some(1) => {
                        found.insert((node.clone(), child));
                    }
                    Some(_) => {}
                    None => {
                        state.insert(child.clone(), 1);
                        let next = successors(&child);
                        stack.push((child, next));
                    }
                },
                None => {
                    state.insert(node.clone(), 2);
                    stack.pop();
                }
            }
        }
    }
    found
}

fn reaches_end(entry: &str, ids: &[String], nodes: &[&Json], edges: &[&Json]) -> bool {
    let mut seen = BTreeSet::new();
    let mut pending = vec![entry.to_owned()];
    while let Some(node) = pending.pop() {
        if !seen.insert(node.clone()) {
            continue;
        }
        let position = ids.iter().position(|id| id == &node);
        if position.is_some_and(|position| nodes[position]["type"].as_str() == Some("end")) {
            return true;
        }
        pending.extend(
            edges
                .iter()
                .filter(|edge| edge["from"].as_str() == Some(node.as_str()))
                .filter_map(|edge| edge["to"].as_str().map(str::to_owned)),
        );
    }
    false
}

/// Translates JSONLogic into CEL over `context`: `var` (a dotted path, optionally with a default),
/// `==`/`!=` (loose, as JSONLogic), `===`/`!==`, `<`, `<=`, `>`, `>=`, `and`, `or`, `!`, `!!`,
/// `in`. A missing variable is null, as in JSONLogic.
pub(crate) fn json_logic(expression: &Json) -> Result<String, String> {
    match expression {
        Json::Object(object) if object.len() == 1 => {
            let (operator, arguments) = object.iter().next().expect("one entry");
            let arguments: Vec<&Json> = match arguments {
                Json::Array(items) => items.iter().collect(),
                single => vec![single],
            };
            let translate = |index: usize| -> Result<String, String> {
                arguments.get(index).map_or(Ok("null".to_owned()), |argument| json_logic(argument))
            };
            match operator.as_str() {
                "var" => {
                    let path = arguments.first().and_then(|path| path.as_str()).ok_or("`var` needs a path")?;
                    let mut cel = "context".to_owned();
                    for part in path.split('.').filter(|part| !part.is_empty()) {
                        let part = part.strip_prefix("variables").filter(|rest| rest.is_empty()).map_or(part, |_| "");
                        if part.is_empty() {
                            continue;
                        }
                        cel = format!(
                            "value_of({cel}, {})",
                            serde_json::to_string(part).map_err(|error| error.to_string())?
                        );
                    }
                    match arguments.get(1) {
                        Some(default) => Ok(format!("({cel} == null ? {} : {cel})", json_logic(default)?)),
                        None => Ok(cel),
                    }
                }
                "==" | "!=" => {
                    let operator = if operator == "==" { "equals" } else { "not_equals" };
                    Ok(format!("loose({}, \"{operator}\", {})", translate(0)?, translate(1)?))
                }
                "===" => Ok(format!("({} == {})", translate(0)?, translate(1)?)),
                "!==" => Ok(format!("({} != {})", translate(0)?, translate(1)?)),
                "<" | "<=" | ">" | ">=" => {
                    let name = match operator.as_str() {
                        "<" => "lt",
                        "<=" => "lte",
                        ">" => "gt",
                        _ => "gte",
                    };
                    Ok(format!("loose({}, \"{name}\", {})", translate(0)?, translate(1)?))
                }
                "and" | "or" => {
                    let joiner = if operator == "and" { " && " } else { " || " };
                    let parts = (0..arguments.len()).map(translate).collect::<Result<Vec<_>, _>>()?;
                    Ok(format!("({})", parts.join(joiner)))
                }
                "!" => Ok(format!("!loose({}, \"truthy\", null)", translate(0)?)),
                "!!" => Ok(format!("loose({}, \"truthy\", null)", translate(0)?)),
                "in" => Ok(format!("loose({}, \"in\", {})", translate(0)?, translate(1)?)),
                other => Err(format!("JSONLogic operator `{other}` is not supported")),
            }
        }
        Json::Object(_) => Err("a JSONLogic rule has exactly one operator".to_owned()),
        Json::Array(items) => {
            let parts = items.iter().map(json_logic).collect::<Result<Vec<_>, _>>()?;
            Ok(format!("[{}]", parts.join(", ")))
        }
        Json::String(text) => serde_json::to_string(text).map_err(|error| error.to_string()),
        Json::Null => Ok("null".to_owned()),
        other => Ok(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{AGENTS_SCHEMA, GRAPH_SCHEMA, MANIFEST_SCHEMA, STEP_SCHEMA, json_logic};

    #[test]
    fn the_bundled_package_schemas_compile() {
        for (name, schema) in [
            ("bmad.json", &MANIFEST_SCHEMA),
            ("graph", &GRAPH_SCHEMA),
            ("agents", &AGENTS_SCHEMA),
            ("step", &STEP_SCHEMA),
        ] {
            let validator = schema.as_ref().unwrap_or_else(|| panic!("the {name} schema does not compile"));
            assert!(!validator.is_valid(&json!(7)), "the {name} schema refuses a number");
        }
    }

    #[test]
    fn json_logic_becomes_cel_with_missing_variables_null() {
        assert_eq!(
            json_logic(&json!({"==": [{"var": "projectType"}, "greenfield"]})).unwrap(),
            "loose(value_of(context, \"projectType\"), \"equals\", \"greenfield\")"
        );
        assert_eq!(
            json_logic(&json!({"and": [{">": [{"var": "variables.score"}, 3]}, {"!": {"var": "done"}}]})).unwrap(),
            "(loose(value_of(context, \"score\"), \"gt\", 3) && !loose(value_of(context, \"done\"), \"truthy\", null))"
        );
        assert!(json_logic(&json!({"reduce": []})).is_err());
    }
}
