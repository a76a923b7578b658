//! `/sessions/{id}`: one session: its run graph (the nodes as a tree, forks side by side, the tip
//! marked), the pending step, counters and limits, the status and the controls (pause, resume,
//! stop, and the gate or decision when the run waits for a human).

use std::collections::{HashMap, HashSet};

use axum::Extension;
use axum::extract::{Path, State};
use maud::{Markup, html};

use switchyard_core::state::{NodeKind, Phase};
use switchyard_core::{NodeId, RunStatus, SessionId};
use switchyard_runtime::{NodeRecord, Target};

use crate::ConsoleState;
use crate::diagram::{self, GateState};
use crate::error::PageError;
use crate::layout::{self, Frame, Section};
use crate::pages::{gates, parse_id};
use crate::security::BrowserSession;
use switchyard_core::wire_name;

pub(crate) async fn show(
    State(state): State<ConsoleState>,
    Extension(browser): Extension<BrowserSession>,
    Path(session): Path<String>,
) -> Result<Markup, PageError> {
    let session: SessionId = parse_id("session", &session)?;
    let record = state.runtime.session(session).await?;
    let run = match record.run {
        Some(run) => Some(state.runtime.run(&Target::Run(run)).await?),
        None => None,
    };
    let nodes = match &run {
        Some(run) => state.runtime.run_nodes(run.id).await?,
        None => Vec::new(),
    };
    let workflow = match &run {
        Some(run) => Some(state.runtime.pinned_workflow(run.workflow_hash).await?),
        None => None,
    };
    let tip = run.as_ref().and_then(|run| nodes.iter().find(|node| node.id == run.tip));
    let pending = match (tip, record.status) {
        (Some(tip), Some(RunStatus::Active | RunStatus::Blocked | RunStatus::Paused)) => {
            state.runtime.pending_at(tip.id).await?
        }
        _ => None,
    };
    let checkpoints = match &run {
        Some(run) => state.runtime.checkpointed_nodes(run.id).await?,
        None => Vec::new(),
    };
    let now = state.runtime.now_ms();
    let frame = Frame::load(&state, &browser, Section::Sessions).await;
    let title = if record.title.trim().is_empty() { record.goal.clone() } else { record.title.clone() };
    let body = html! {
        nav.breadcrumbs aria-label="Breadcrumbs" { a href="/" { "Sessions" } " › " span { (session) } }
        h1 data-testid="session-title" { (title) }
        section id="session-summary" data-live aria-labelledby="summary-heading" {
            h2 id="summary-heading" { "Summary" }
            dl.facts {
                dt { "Status" } dd data-testid="session-status" { (layout::status_badge(record.status)) }
                dt { "Goal" } dd data-testid="session-goal" { (record.goal) }
                @if let Some(run) = &run {
                    dt { "Workflow" } dd { a href={ "/workflows/" (run.workflow_id) } { (run.workflow_id) } " " small { "from " code { (run.source) } } }
                    dt { "Workflow hash" } dd { code.hash { (run.workflow_hash) } }
                    dt { "Run" } dd { code { (run.id) } " · control " (run.control.as_str()) " · " (run.node_count) " nodes" }
                }
                @if let Some(workspace) = &record.workspace { dt { "Workspace" } dd { code.path { (workspace) } } }
                @if let Some(branch) = &record.git_branch { dt { "Branch" } dd { code { (branch) } @if let Some(head) = &record.git_head { " at " code.hash { (head) } } } }
                dt { "Started" } dd { (layout::time(now, record.created_at_ms)) }
                dt { "Last activity" } dd { (layout::time(now, record.updated_at_ms)) }
            }
            @if let (Some(run), Some(tip)) = (&run, tip) {
                (gates::waiting_forms(&browser.csrf, session, run.id, tip, record.status, "session"))
                (controls(&browser.csrf, session, run.id, record.status, run.control))
            }
        }
        @if let Some(tip) = tip {
            section id="counters" data-live aria-labelledby="counters-heading" {
                h2 id="counters-heading" { "Counters and limits" }
                @let counters = &tip.state.counters;
                @let limits = workflow.as_ref().map(|loaded| loaded.workflow.limits);
                @let max_attempts = workflow.as_ref().and_then(|loaded| loaded.workflow.step(&tip.state.step)).map(|step| step.max_attempts);
                dl.facts.counters data-testid="counters" {
                    dt { "Steps completed" } dd { (counters.steps_completed) }
                    dt { "Failed attempts at this step" } dd { (counters.attempts) @if let Some(max) = max_attempts { " of " (max) } }
                    dt { "Cycles" } dd { (counters.cycles) @if let Some(limits) = limits { " of " (limits.max_cycles) } }
                    dt { "Revisions" } dd { (counters.revisions) @if let Some(limits) = limits { " of " (limits.max_revision_attempts) } }
                    dt { "Replans" } dd { (counters.replans) @if let Some(limits) = limits { " of " (limits.max_replan_attempts) } }
                }
            }
        }
        section id="pending" data-live aria-labelledby="pending-heading" {
            h2 id="pending-heading" { "Pending step" }
            @if let Some(step) = &pending {
                p { strong { (step.title) } " " small { "(" code { (step.step) } ")" } @if step.gate { " · gated: a human approves its result" } }
                @if let Some(rejection) = &step.rejection { p.warning { "Sent back by a human: " (rejection) } }
                @if let Some(validation) = &step.validation {
                    (validation_list("The last attempt was blocked", &validation.issues))
                }
                details { summary { "Prompt" } pre.prompt { (step.prompt) } }
                @if !step.allowed_next.is_empty() {
                    p { "Next: " @for (index, edge) in step.allowed_next.iter().enumerate() {
                        @if index > 0 { ", " }
                        code { (edge.label) } " → " (edge.to.as_ref().map_or("end", |to| to.as_str()))
                    } }
                }
            } @else if let Some(tip) = tip {
                p { (phase_sentence(&tip.state.phase, record.status)) }
            } @else {
                p { "This session has no run." }
            }
        }
        section id="run-graph" data-live aria-labelledby="graph-heading" {
            h2 id="graph-heading" { "Run graph" }
            @if let Some(run) = &run {
                figure.diagram id="run-diagram" data-testid="run-diagram" {
                    (diagram::run_tree(&nodes, run.tip, &checkpoints, &|node| format!("/sessions/{session}/nodes/{node}")))
                }
                // The same nodes as lists, for screen readers and whoever prefers text.
                details.node-list open[nodes.len() <= 20] {
                    summary { "The nodes as a list" }
                    (node_tree(session, &nodes, run.tip))
                }
            }
        }
    };
    Ok(layout::page(&title, &frame, &body))
}

/// One sentence on where a run stands when no step is pending.
fn phase_sentence(phase: &Phase, status: Option<RunStatus>) -> String {
    match (phase, status) {
        (_, Some(RunStatus::Stopped)) => "The run was stopped.".to_owned(),
        (Phase::WaitingGate { .. }, _) => "The step's result waits for a human to approve or reject it.".to_owned(),
        (Phase::WaitingForHumanDecision { reason, .. }, _) => {
            format!("A limit was reached ({}): a human must decide how to go on.", wire_name(reason))
        }
        (Phase::Completed, _) => "The run is complete.".to_owned(),
        (Phase::Failed { code, message }, _) => format!("The run failed ({}): {message}", code.as_str()),
        _ => "Nothing is pending.".to_owned(),
    }
}

/// Validation issues as a list.
pub(crate) fn validation_list(heading: &str, issues: &[switchyard_core::state::ValidationIssue]) -> Markup {
    html! {
        div.validation data-testid="validation" {
            p { strong { (heading) } ":" }
            ul {
                @for issue in issues {
                    li { code { (issue.code) } @if !issue.path.is_empty() { " at " code { (issue.path) } } ": " (issue.message) }
                }
            }
        }
    }
}

/// Pause, resume and stop, as the run's control allows.
fn controls(
    csrf: &str,
    session: SessionId,
    run: switchyard_core::RunId,
    status: Option<RunStatus>,
    control: switchyard_core::Control,
) -> Markup {
    let finished = status.is_none_or(RunStatus::is_terminal) || control == switchyard_core::Control::Stopped;
    html! {
        @if !finished {
            div.controls data-testid="run-controls" {
                @let action = format!("/sessions/{session}/control");
                @if control == switchyard_core::Control::Paused {
                    form method="post" action=(action) {
                        input type="hidden" name="csrf" value=(csrf);
                        input type="hidden" name="run" value=(run);
                        input type="hidden" name="action" value="resume";
                        button type="submit" data-testid="resume-button" { "Resume" }
                    }
                } @else {
                    form method="post" action=(action) {
                        input type="hidden" name="csrf" value=(csrf);
                        input type="hidden" name="run" value=(run);
                        input type="hidden" name="action" value="pause";
                        button type="submit" data-testid="pause-button" { "Pause" }
                    }
                }
                form method="post" action=(action) {
                    input type="hidden" name="csrf" value=(csrf);
                    input type="hidden" name="run" value=(run);
                    input type="hidden" name="action" value="stop";
                    label for="stop-reason" { "Reason to stop (optional)" }
                    input type="text" id="stop-reason" name="reason" data-testid="stop-reason";
                    // Stopping is for good: the form asks first, and Enter in the reason cannot
                    // submit it while the box is unticked (the server checks it too).
                    label for="stop-confirm" {
                        input type="checkbox" id="stop-confirm" name="confirm" value="stop" required data-testid="stop-confirm";
                        " Stopping is permanent: the run cannot go on"
                    }
                    button.danger type="submit" data-testid="stop-button" { "Stop the run" }
                }
            }
        }
    }
}

/// The nodes as nested lists: a chain of nodes is one ordered list; where a node has several
/// children, each branch is a list of its own beside the others.
fn node_tree(session: SessionId, nodes: &[NodeRecord], tip: NodeId) -> Markup {
    let mut children: HashMap<NodeId, Vec<&NodeRecord>> = HashMap::new();
    let mut roots = Vec::new();
    for node in nodes {
        match node.parent {
            Some(parent) => children.entry(parent).or_default().push(node),
            None => roots.push(node),
        }
    }
    let tree = Tree { session, children, answered: diagram::answered_nodes(nodes), tip };
    html! {
        div.tree data-testid="node-tree" {
            @for root in roots { (branch(&tree, root)) }
        }
    }
}

/// What drawing a branch of the node list needs of the whole run.
struct Tree<'a> {
    session: SessionId,
    children: HashMap<NodeId, Vec<&'a NodeRecord>>,
    /// Nodes the run went on from ([`diagram::answered_nodes`]).
    answered: HashSet<NodeId>,
    tip: NodeId,
}

fn branch(tree: &Tree, start: &NodeRecord) -> Markup {
    let children = &tree.children;
    let mut chain = vec![start];
    let mut forks: &[&NodeRecord] = &[];
    while let Some(last) = chain.last() {
        match children.get(&last.id).map(Vec::as_slice) {
            Some([only]) => chain.push(only),
            Some(several) => {
                forks = several;
                break;
            }
            None => break,
        }
    }
    html! {
        ol.branch {
            @for node in &chain {
                li {
                    (node_link(tree, node))
                    @if node.id == chain[chain.len() - 1].id && !forks.is_empty() {
                        ul.forks aria-label={ (forks.len()) " branches" } {
                            @for child in forks { li { (branch(tree, child)) } }
                        }
                    }
                }
            }
        }
    }
}

fn node_link(tree: &Tree, node: &NodeRecord) -> Markup {
    let (session, kind, is_tip) = (tree.session, wire_name(&node.kind), node.id == tree.tip);
    // A gate says where it stands now (waiting, decided, undecided), not the run's status when it
    // waited there; the run tree's box says the same.
    let gate = (node.kind == NodeKind::Gate).then(|| GateState::of(node, tree.tip, &tree.answered).as_str());
    html! {
        a href={ "/sessions/" (session) "/nodes/" (node.id) } id={ "node-" (node.id) }
            class={ "node node-" (kind) } data-testid="node-link" data-node=(node.id) aria-current=[is_tip.then_some("step")] {
            span.step { (node.step) }
            " " span.kind { (kind.replace('_', " ")) }
            @if wire_name(&node.cause) == "fork" { " " span.fork { "fork" } }
            @if let Some(state) = gate { " " span class={ "status status-gate-" (state) } { (state) } }
            @else { " " (layout::status_badge(Some(node.status))) }
            @if is_tip { " " strong.tip { "tip" } }
        }
    }
}
