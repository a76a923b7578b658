//! The SVG of a real run with a blocked attempt, a gate, a checkpoint and a fork, made through
//! the runtime over a real SQLite store; of the built-in workflows; and of hostile names.

use maud::Markup;

use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_core::NodeId;
use switchyard_core::event::NodeCause;
use switchyard_core::state::NodeKind;
use switchyard_core::workflow::EdgeTarget;
use switchyard_runtime::{AdvanceInput, NodeRecord, Runtime, StartRequest, Target};

use crate::diagram::{STYLESHEET, run_tree, workflow_graph};

fn link(node: NodeId) -> String {
    format!("/nodes/{node}")
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

fn notes(text: &str) -> AdvanceInput {
    AdvanceInput { notes: Some(text.to_owned()), ..AdvanceInput::default() }
}

/// A dev-cycle run: plan blocked once (no notes), then sent to its gate and approved; implement
/// checkpointed and advanced to review; then implement advanced again from the same node, which
/// forks a second review branch. Returns the run's nodes, its tip and the checkpointed node.
async fn forked_run(runtime: &Runtime) -> (Vec<NodeRecord>, NodeId, NodeId) {
    let request =
        StartRequest { workflow: Some("dev-cycle".into()), goal: "Draw the tree".into(), ..StartRequest::default() };
    let started = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    let run = started.run;
    let blocked = runtime
        .advance(started.tokens.continue_token.as_deref().unwrap(), Some(run), AdvanceInput::default())
        .await
        .unwrap();
    let retry = blocked.tokens.continue_token.unwrap();
    runtime.advance(&retry, Some(run), notes("The plan.")).await.unwrap();
    let approved = runtime.approve(run, Some("Go.".into())).await.unwrap();
    let implement = approved.node;
    let checkpoint = approved.tokens.checkpoint_token.clone().unwrap();
    runtime.checkpoint(&checkpoint, Some(run), Some("Half way.".into())).await.unwrap();
    runtime.advance(approved.tokens.continue_token.as_deref().unwrap(), Some(run), notes("Built it.")).await.unwrap();
    let again = runtime.show(&Target::Node(implement)).await.unwrap();
    let forked = runtime
        .advance(again.tokens.continue_token.as_deref().unwrap(), Some(run), notes("Built it again."))
        .await
        .unwrap();
    assert!(forked.forked, "advancing an old node starts a branch");
    let checkpointed = runtime.checkpointed_nodes(run).await.unwrap();
    assert_eq!(checkpointed, [implement], "the runtime finds the one checkpointed node");
    (runtime.run_nodes(run).await.unwrap(), forked.node, implement)
}

async fn open_runtime(home: &std::path::Path) -> Runtime {
    let config = Config::resolve(Overrides { home: Some(home.to_owned()), ..Overrides::default() }).unwrap();
    Runtime::open(&config).await.unwrap()
}

#[tokio::test]
async fn a_forked_runs_tree_has_a_linked_box_per_node_with_the_tip_and_kinds_marked() {
    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path()).await;
    let (nodes, tip, checkpointed) = forked_run(&runtime).await;
    let svg = run_tree(&nodes, tip, &[checkpointed], &link).into_string();

    assert_eq!(count(&svg, "<a "), nodes.len(), "one link per node: {svg}");
    for node in &nodes {
        assert!(svg.contains(&format!("href=\"/nodes/{}\"", node.id)), "node {} has no link", node.id);
    }
    assert_eq!(count(&svg, "sy-node--tip"), 1);
    let tip_box = svg.split("<a ").find(|piece| piece.contains("sy-node--tip")).unwrap();
    assert!(tip_box.contains(&format!("/nodes/{tip}")), "the tip's box links to the tip: {tip_box}");
    assert!(tip_box.contains("sy-node--fork"), "the tip starts the fork's branch");
    let kinds = |kind: NodeKind| nodes.iter().filter(|node| node.kind == kind).count();
    assert_eq!(count(&svg, "sy-node--blocked"), kinds(NodeKind::BlockedAttempt));
    assert_eq!(kinds(NodeKind::BlockedAttempt), 1);
    assert_eq!(count(&svg, "class=\"sy-node sy-node--gate"), kinds(NodeKind::Gate));
    assert_eq!(count(&svg, "sy-node--decision"), kinds(NodeKind::Decision));
    assert_eq!(count(&svg, "sy-node--checkpoint"), 1);
    assert_eq!(count(&svg, "<path class=\"sy-edge"), nodes.len() - 1, "one edge per node but the start");
    assert_eq!(count(&svg, "sy-edge--fork"), 1);
    assert!(svg.contains("role=\"group\""), "a group, so its links stay reachable by screen readers");
    assert!(
        svg.contains(&format!("aria-label=\"Run tree: {} nodes in 2 branches; the tip is at step review", nodes.len()))
    );
    assert!(svg.contains("<title>step plan\nblocked attempt · blocked\n"), "tooltips say step, status and time");
    // The fork's branch has a lane of its own: two x positions among the boxes' outlines.
    assert!(svg.contains("stroke-dasharray"), "blocked attempts are dashed");
}

#[tokio::test]
async fn hostile_step_names_come_out_escaped_in_the_run_tree() {
    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path()).await;
    let (mut nodes, tip, _) = forked_run(&runtime).await;
    let hostile = ["<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "javascript:alert(1)", "a]b'c&d"];
    for (node, name) in nodes.iter_mut().zip(hostile.iter().cycle()) {
        node.step = switchyard_core::workflow::StepId::new(*name);
    }
    let svg = run_tree(&nodes, tip, &[], &link).into_string();
    assert_escaped(&svg);
    assert_eq!(count(&svg, "<a "), nodes.len());
    // Every link is the caller's, whatever the names say.
    for piece in svg.split("href=\"").skip(1) {
        assert!(piece.starts_with("/nodes/node_"), "a link not made by the caller: {piece}");
    }
}

#[test]
fn hostile_titles_labels_and_conditions_come_out_escaped_in_the_workflow_graph() {
    let mut workflow = builtin("dev-cycle");
    for step in &mut workflow.steps {
        step.title = "<script>alert(1)</script> \"quoted\" & 'single'".into();
        for edge in &mut step.edges {
            edge.label = "\"><img src=x onerror=alert(1)>".into();
            edge.condition_text = Some("javascript:alert(1) <b>".into());
            edge.condition = Some("context.x < 3 && context.y == \"]\"".into());
        }
    }
    let svg = workflow_graph(&workflow).into_string();
    assert_escaped(&svg);
    assert!(!svg.contains("href"), "a workflow graph has no links: {svg}");
}

fn assert_escaped(svg: &str) {
    assert!(!svg.contains("<script"), "a script element: {svg}");
    assert!(!svg.contains("<img"), "an img element: {svg}");
    assert!(!svg.contains("<b>"), "a b element: {svg}");
    assert!(
        svg.contains("&lt;script&gt;") || svg.contains("&lt;img") || svg.contains("&lt;scri"),
        "names are shown escaped: {svg}"
    );
    // No attribute is broken out of: every quote inside a value is escaped.
    assert!(!svg.contains("\" onerror"), "an attribute closed early: {svg}");
    assert!(svg.contains("&quot;"), "quotes are shown escaped: {svg}");
}

fn builtin(name: &str) -> switchyard_core::Workflow {
    let builtin = Catalog::builtin(name).unwrap();
    builtin.compiled.workflow.unwrap()
}

#[test]
fn workflow_graphs_of_the_built_ins_show_every_step_gate_and_edge() {
    for name in ["dev-cycle", "bug-investigation", "code-review"] {
        let workflow = builtin(name);
        let svg: Markup = workflow_graph(&workflow);
        let svg = svg.into_string();
        let edges: usize = workflow.steps.iter().map(|step| step.edges.len()).sum();
        let completes =
            workflow.steps.iter().flat_map(|step| &step.edges).any(|edge| edge.target == EdgeTarget::Complete);
        let boxes = workflow.steps.len() + usize::from(completes);
        assert_eq!(count(&svg, "class=\"sy-step"), boxes, "{name}: steps and the completion");
        assert_eq!(count(&svg, "<path class=\"sy-edge "), edges, "{name}");
        assert_eq!(count(&svg, "sy-step--gate"), workflow.steps.iter().filter(|step| step.gate).count(), "{name}");
        assert_eq!(count(&svg, "sy-step--entry"), 1, "{name}");
        assert!(svg.contains(&format!("aria-label=\"Workflow {name}: {} steps", workflow.steps.len())), "{name}");
    }
    let dev_cycle = workflow_graph(&builtin("dev-cycle")).into_string();
    assert!(dev_cycle.contains("sy-edge--loop sy-edge--back"), "dev-cycle's loop goes back up: {dev_cycle}");
}

#[tokio::test]
async fn the_stylesheet_styles_every_class_the_diagrams_draw_with() {
    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path()).await;
    let (nodes, tip, checkpointed) = forked_run(&runtime).await;
    let mut drawn = run_tree(&nodes, tip, &[checkpointed], &link).into_string();
    for name in ["dev-cycle", "bug-investigation", "code-review"] {
        drawn.push_str(&workflow_graph(&builtin(name)).into_string());
    }
    // Classes that only group or name what is styled through other classes.
    let structural = [
        "sy-edges",
        "sy-nodes",
        "sy-edge-group",
        "sy-node",
        "sy-node--step",
        "sy-step",
        "sy-diagram--run",
        "sy-diagram--workflow",
        "sy-edge--normal",
        "sy-status--active",
        "sy-status--waiting_gate",
        "sy-status--blocked",
    ];
    let mut unstyled = Vec::new();
    for attribute in drawn.split("class=\"").skip(1) {
        let classes = attribute.split('"').next().unwrap();
        for class in classes.split(' ') {
            if !structural.contains(&class)
                && !STYLESHEET.contains(&format!(".{class} "))
                && !STYLESHEET.contains(&format!(".{class},"))
                && !unstyled.contains(&class)
            {
                unstyled.push(class);
            }
        }
    }
    assert!(unstyled.is_empty(), "classes without a rule in diagram.css: {unstyled:?}");
}

/// `count` nodes shaped like a long run: copies of a real run's nodes (so every field is one the
/// store wrote), renumbered into a main line with `branches` forks off it.
fn long_run(model: &[NodeRecord], count: usize, branches: usize) -> (Vec<NodeRecord>, NodeId) {
    let id = |index: usize| NodeId::from_bytes((index as u128 + 1).to_be_bytes());
    let main_length = count - branches * (count / (branches + 2));
    let branch_length = count / (branches + 2);
    let mut nodes: Vec<NodeRecord> = Vec::with_capacity(count);
    let push = |nodes: &mut Vec<NodeRecord>, parent: Option<usize>, fork: bool| {
        let index = nodes.len();
        let mut node = model[index % model.len()].clone();
        node.id = id(index);
        node.parent = parent.map(id);
        node.created_seq = index as u64 + 1;
        node.cause = if fork {
            NodeCause::Fork
        } else if parent.is_some() {
            NodeCause::Advance
        } else {
            NodeCause::Start
        };
        nodes.push(node);
    };
    for index in 0..main_length {
        push(&mut nodes, index.checked_sub(1), false);
    }
    for branch in 0..branches {
        let fork_at = (branch + 1) * (main_length / (branches + 1));
        push(&mut nodes, Some(fork_at), true);
        for _ in 1..branch_length {
            let previous = nodes.len() - 1;
            push(&mut nodes, Some(previous), false);
        }
    }
    for node in &mut nodes {
        node.child_count = 0;
    }
    let parents: Vec<Option<NodeId>> = nodes.iter().map(|node| node.parent).collect();
    for parent in parents.into_iter().flatten() {
        let index = nodes.iter().position(|node| node.id == parent).unwrap();
        nodes[index].child_count += 1;
    }
    (nodes, id(main_length - 1))
}

#[tokio::test]
async fn a_thousand_node_run_with_forks_is_drawn_whole() {
    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path()).await;
    let (model, _, _) = forked_run(&runtime).await;
    let (nodes, tip) = long_run(&model, 1_000, 8);
    let svg = run_tree(&nodes, tip, &[], &link).into_string();
    assert_eq!(count(&svg, "<a "), 1_000);
    assert_eq!(count(&svg, "sy-edge--fork"), 8);
    assert_eq!(count(&svg, "sy-node--tip"), 1);
}

#[tokio::test]
async fn a_two_hundred_node_run_keeps_its_boxes_full_size_and_names_whole_in_tooltips() {
    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path()).await;
    let (mut model, _, _) = forked_run(&runtime).await;
    let long_name = "a-step-name-much-longer-than-any-box-could-show";
    model[1].step = switchyard_core::workflow::StepId::new(long_name);
    let (nodes, tip) = long_run(&model, 200, 5);
    let svg = run_tree(&nodes, tip, &[], &link).into_string();
    // Drawn at its natural size: a wide tree scrolls in its container rather than shrinking.
    let width: i64 = svg.split("width=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
    assert!(svg.contains(&format!("viewBox=\"0 0 {width} ")));
    assert!(width >= 3 * 176, "branches side by side in lanes of full-size boxes: {width}");
    assert!(svg.contains(&format!("<title>step {long_name}\n")), "the whole name in the tooltip");
    assert!(svg.contains(">a-step-name-much-lo…</text>"), "the box shows it shortened");
    if let Some(folder) = std::env::var_os("SWITCHYARD_DIAGRAM_DUMP") {
        let page = format!(
            "<!doctype html><meta charset=utf-8><style>{STYLESHEET}</style><h1>run</h1>{svg}<h1>dev-cycle</h1>{}<h1>bug-investigation</h1>{}",
            workflow_graph(&builtin("dev-cycle")).into_string(),
            workflow_graph(&builtin("bug-investigation")).into_string()
        );
        std::fs::write(std::path::Path::new(&folder).join("diagrams.html"), page).unwrap();
    }
}

/// Every workflow of the WorkRail corpus (found as `Catalog::file` finds a file, routines and
/// all) and every BMad Method bundle.
fn corpus_workflows() -> Vec<(String, switchyard_core::Workflow)> {
    let corpora = switchyard_test_support::corpora();
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir(corpora.join("workrail/workflows"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "json"))
        .collect();
    paths.extend(switchyard_test_support::method_bundles());
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let found = Catalog::file(&path).ok()?;
            Some((path.display().to_string(), found.compiled.workflow?))
        })
        .collect()
}

#[test]
fn every_corpus_workflow_is_drawn_with_a_box_per_step_and_a_line_per_edge() {
    let workflows = corpus_workflows();
    assert!(workflows.len() >= 20, "the corpora hold at least 20 workflows that compile: {}", workflows.len());
    for (name, workflow) in &workflows {
        let svg = workflow_graph(workflow).into_string();
        let completes =
            workflow.steps.iter().flat_map(|step| &step.edges).any(|edge| edge.target == EdgeTarget::Complete);
        let edges: usize = workflow.steps.iter().map(|step| step.edges.len()).sum();
        assert_eq!(count(&svg, "class=\"sy-step"), workflow.steps.len() + usize::from(completes), "{name}");
        assert_eq!(count(&svg, "<path class=\"sy-edge "), edges, "{name}");
    }
    if let Some(folder) = std::env::var_os("SWITCHYARD_DIAGRAM_DUMP") {
        let mut page = format!("<!doctype html><meta charset=utf-8><style>{STYLESHEET}</style>");
        for (name, workflow) in &workflows {
            page.push_str(&format!("<h2>{name}</h2>{}", workflow_graph(workflow).into_string()));
        }
        std::fs::write(std::path::Path::new(&folder).join("corpus.html"), page).unwrap();
    }
}

#[test]
fn a_run_without_nodes_is_an_empty_drawing_that_says_so() {
    let svg = run_tree(&[], NodeId::from_bytes([7; 16]), &[], &link).into_string();
    assert!(svg.contains("aria-label=\"Run tree: no nodes\""), "{svg}");
    assert_eq!(count(&svg, "<a "), 0);
}

/// Checks that `markup` is balanced: every element opened is closed in order, and no `<` or `>`
/// stands outside a tag (text and attribute values carry them escaped).
fn assert_well_formed(markup: &str) {
    let mut open: Vec<&str> = Vec::new();
    let mut rest = markup;
    while let Some(start) = rest.find('<') {
        assert!(!rest[..start].contains('>'), "a bare `>` in text: {}", &rest[..start]);
        let end = start + rest[start..].find('>').expect("a tag ends");
        let tag = &rest[start + 1..end];
        assert!(!tag.contains('<'), "a `<` inside a tag: {tag}");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(open.pop(), Some(name), "`</{name}>` closes another element");
        } else {
            let name = tag.split([' ', '\n']).next().unwrap();
            open.push(name);
        }
        rest = &rest[end + 1..];
    }
    assert!(!rest.contains('>'));
    assert!(open.is_empty(), "elements left open: {open:?}");
}

#[tokio::test]
async fn diagrams_are_balanced_markup_even_with_hostile_names() {
    let home = tempfile::tempdir().unwrap();
    let runtime = open_runtime(home.path()).await;
    let (mut nodes, tip, checkpointed) = forked_run(&runtime).await;
    assert_well_formed(&run_tree(&nodes, tip, &[checkpointed], &link).into_string());
    for node in &mut nodes {
        node.step = switchyard_core::workflow::StepId::new("</svg><script>alert(1)</script><svg>");
    }
    assert_well_formed(&run_tree(&nodes, tip, &[checkpointed], &link).into_string());
    let mut workflow = builtin("code-review");
    assert_well_formed(&workflow_graph(&workflow).into_string());
    for step in &mut workflow.steps {
        step.title = "</g></svg><a href=\"javascript:alert(1)\">x</a>".into();
    }
    assert_well_formed(&workflow_graph(&workflow).into_string());
}
