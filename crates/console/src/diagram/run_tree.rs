//! A run's tree of nodes as SVG: one linked box per engine node, the main line to the tip
//! straight down, each fork's branch in a lane beside it.

use std::collections::{HashMap, HashSet};

use maud::{Markup, html};

use switchyard_core::event::NodeCause;
use switchyard_core::state::NodeKind;
use switchyard_core::{NodeId, RunStatus};
use switchyard_runtime::NodeRecord;
use switchyard_runtime::clock::rfc3339;

use crate::diagram::layout;
use crate::diagram::shapes::{Outline, SPACING, arrow_head, box_text, outline, path};

const ARROW: &str = "sy-arrow-run";

/// The run tree of `nodes` (a run's nodes, as `Runtime::run_nodes` lists them), with `tip`
/// marked, the nodes in `checkpoints` marked as checkpointed, and each node a link to
/// `href(node)`.
pub(crate) fn run_tree(
    nodes: &[NodeRecord],
    tip: NodeId,
    checkpoints: &[NodeId],
    href: &dyn Fn(NodeId) -> String,
) -> Markup {
    let mut ordered: Vec<&NodeRecord> = nodes.iter().collect();
    ordered.sort_by_key(|node| node.created_seq);
    let index_of: HashMap<NodeId, usize> = ordered.iter().enumerate().map(|(index, node)| (node.id, index)).collect();
    let parents: Vec<Option<usize>> =
        ordered.iter().map(|node| node.parent.and_then(|parent| index_of.get(&parent).copied())).collect();
    let tip_index = index_of.get(&tip).copied();
    let checkpoints: HashSet<NodeId> = checkpoints.iter().copied().collect();
    let answered = answered_nodes(nodes);
    let placed = layout::tree(&parents, tip_index, SPACING);
    let edges = layout::tree_edges(&parents);
    // Branches end in leaves: nodes no other node drawn here has as its parent.
    let mut has_child = vec![false; ordered.len()];
    for (parent, _) in &edges {
        has_child[*parent] = true;
    }
    let branches = has_child.iter().filter(|has_child| !**has_child).count();
    let label = match tip_index.map(|index| ordered[index]) {
        _ if ordered.is_empty() => "Run tree: no nodes".to_owned(),
        Some(tip) => format!(
            "Run tree: {} nodes in {branches} branches; the tip is at step {} ({})",
            ordered.len(),
            tip.step,
            tip.status
        ),
        None => format!("Run tree: {} nodes in {branches} branches", ordered.len()),
    };
    html! {
        div.sy-diagram.sy-diagram--run {
            svg.sy-graph xmlns="http://www.w3.org/2000/svg" role="group" aria-label=(label)
                width=(placed.width) height=(placed.height) viewBox={ "0 0 " (placed.width) " " (placed.height) } {
                (arrow_head(ARROW))
                g.sy-edges {
                    @for ((_, child), route) in edges.iter().zip(&placed.routes) {
                        @let fork = ordered[*child].cause == NodeCause::Fork;
                        path.sy-edge.sy-edge--fork[fork] d=(path(route)) marker-end={ "url(#" (ARROW) ")" } {}
                    }
                }
                g.sy-nodes {
                    @for (index, node) in ordered.iter().enumerate() {
                        (node_box(node, placed.boxes[index], tip, checkpoints.contains(&node.id), &answered, href))
                    }
                }
            }
        }
    }
}

/// The nodes a run went on from: those with a child that is not a fork. A fork copies the run's
/// past into a branch; it neither advances nor answers the node it starts from.
pub(crate) fn answered_nodes(nodes: &[NodeRecord]) -> HashSet<NodeId> {
    nodes.iter().filter(|node| node.cause != NodeCause::Fork).filter_map(|node| node.parent).collect()
}

/// Where a gate node stands now, as the run tree and the node list both say it (not the run's
/// status when it waited there).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GateState {
    /// At the run's tip, for a person to answer.
    Waiting,
    /// The run went on from it.
    Decided,
    /// In a branch the run left by a fork before anyone answered.
    Undecided,
}

impl GateState {
    /// Of a gate `node` in a run at `tip`; `answered` from [`answered_nodes`].
    pub(crate) fn of(node: &NodeRecord, tip: NodeId, answered: &HashSet<NodeId>) -> Self {
        if node.id == tip && node.status == RunStatus::WaitingGate {
            Self::Waiting
        } else if answered.contains(&node.id) {
            Self::Decided
        } else {
            Self::Undecided
        }
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Waiting => "waiting",
            Self::Decided => "decided",
            Self::Undecided => "undecided",
        }
    }
}

fn node_box(
    node: &NodeRecord,
    at: layout::Point,
    tip: NodeId,
    checkpointed: bool,
    answered: &HashSet<NodeId>,
    href: &dyn Fn(NodeId) -> String,
) -> Markup {
    let (kind_class, kind_words, shape) = match node.kind {
        NodeKind::Start => ("sy-node--start", "start", Outline::Pill),
        NodeKind::Step => ("sy-node--step", "step", Outline::Rectangle),
        NodeKind::BlockedAttempt => ("sy-node--blocked", "blocked attempt", Outline::Octagon),
        NodeKind::Gate => ("sy-node--gate", "gate", Outline::Hexagon),
        NodeKind::Decision => ("sy-node--decision", "decision", Outline::Rectangle),
    };
    let is_tip = node.id == tip;
    let gate = (node.kind == NodeKind::Gate).then(|| GateState::of(node, tip, answered));
    let waiting = gate == Some(GateState::Waiting);
    let fork = node.cause == NodeCause::Fork;
    let detail = match gate {
        Some(state) => format!("gate · {}", state.as_str()),
        None => format!("{kind_words} · {}", node.status),
    };
    let mut title = format!("step {}\n{kind_words} · {}\n{}", node.step, node.status, rfc3339(node.created_at_ms));
    if fork {
        title.push_str("\nstarts a branch (fork)");
    }
    if checkpointed {
        title.push_str("\ncheckpointed");
    }
    if is_tip {
        title.push_str("\nthe run's tip");
    }
    title.push_str(&format!("\nnode {}", node.id));
    let spoken = format!(
        "step {}, {detail}{}{}{}",
        node.step,
        if fork { ", starts a branch" } else { "" },
        if checkpointed { ", checkpointed" } else { "" },
        if is_tip { ", the tip" } else { "" }
    );
    html! {
        a.sy-node.(kind_class).{ "sy-status--" (node.status.as_str()) }
            .sy-node--waiting[waiting].sy-node--fork[fork].sy-node--checkpoint[checkpointed].sy-node--tip[is_tip]
            href=(href(node.id)) aria-label=(spoken) data-node=(node.id.to_string()) {
            title { (title) }
            (outline(shape, at))
            (box_text(at, node.step.as_str(), &detail))
            @if checkpointed {
                circle.sy-checkpoint-mark cx=(at.x + SPACING.node_width - 8) cy=(at.y + 8) r="4" {}
            }
        }
    }
}
