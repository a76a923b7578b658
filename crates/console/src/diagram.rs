//! Graphs drawn as SVG on the server: a run's tree of nodes ([`run_tree`]) and a workflow's steps
//! and edges ([`workflow_graph`]).
//!
//! # Layout
//!
//! Our own, in `diagram/layout.rs`, rather than a crate. `layout-rs` (0.1.x, a Graphviz-like
//! renderer) draws its own SVG with its own styling and sees a release every year or two;
//! the dagre ports (`dagre_rust`, `dagre-dgl-rs`) are young and unproven. What we need is
//! small: run trees are trees (lanes: the main line straight down, each fork's branch in a lane
//! beside it), and workflow graphs are a few dozen steps with loop and replan edges back up (a
//! layered layout: back edges found depth-first and set aside, ranks by longest path, placeholders
//! on long edges, four barycenter sweeps, boxes pulled under their parents). Both are property
//! tested (no two boxes overlap, every edge runs from its source's box to its target's, ranks
//! follow the edges but for marked back edges).
//!
//! # Markup
//!
//! maud escapes every text and attribute value, so step ids, titles, labels and conditions
//! (written by workflow authors, or imported) cannot open an element or a script. Links are
//! made by the caller (`href`), never from stored text. No inline script and no colours: the
//! console's stylesheet styles the classes below ([`STYLESHEET`] is a starting point).
//!
//! Every diagram is a `div.sy-diagram` (the scrolling container: a wide tree scrolls sideways
//! rather than shrinking its labels) around an `svg.sy-graph` drawn at its natural size with an
//! `aria-label` saying what it shows: `role="group"` for a run tree, whose boxes are links a
//! screen reader must reach, `role="img"` for a workflow graph, which has none.
//!
//! Run trees (`.sy-diagram--run`): each node is an `a.sy-node` (focusable, `aria-label`,
//! `<title>` tooltip with step, status, kind, time and id) with `sy-node--start`, `--step`,
//! `--blocked` (an octagon, dashed), `--gate` (a hexagon; `sy-node--waiting` while its
//! human has not acted), `--decision`, plus `sy-node--fork` (the first node of a branch),
//! `sy-node--checkpoint` (with a `circle.sy-checkpoint-mark`), `sy-node--tip` and
//! `sy-status--<status>` (`active`, `blocked`, `waiting_gate`, ...); edges are
//! `path.sy-edge` with `sy-edge--fork` into a fork.
//!
//! Workflow graphs (`.sy-diagram--workflow`): each step is a `g.sy-step` with `sy-step--entry`,
//! `sy-step--gate` (a hexagon), `sy-step--end` (a step without edges), and `sy-step--complete`
//! for the run's completion; edges are `path.sy-edge` with `sy-edge--normal`, `--loop`,
//! `--replan`, `--complete`, and `sy-edge--back` where the edge goes back up; on a node page's
//! graph, the edges its decision evaluated are `sy-edge--pass` or `sy-edge--skip` and the one it
//! took `sy-edge--taken`, their labels starting PASS, SKIP or TAKEN; edge labels are
//! `text.sy-edge-label`. Boxes are `.sy-node-box`, their texts `.sy-node-label` and
//! `.sy-node-detail`.

// The console's pages call these; until they do, only the tests here do.
#![cfg_attr(not(test), allow(dead_code, unused_imports))]

mod layout;
mod run_tree;
mod shapes;
mod workflow_graph;

#[cfg(test)]
mod tests;

pub(crate) use self::run_tree::{GateState, answered_nodes, run_tree};
pub(crate) use self::workflow_graph::{edge_marks, marked_workflow_graph, workflow_graph};

/// A starting point for the console's stylesheet: colours and strokes for every class the
/// diagrams use, light and dark.
pub(crate) const STYLESHEET: &str = include_str!("diagram/diagram.css");
