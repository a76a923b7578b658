//! A workflow's graph as SVG: steps as boxes (gates and end steps set apart), edges with their
//! labels and conditions, loop and replan edges drawn apart from the rest.

use std::collections::HashMap;

use maud::{Markup, html};

use switchyard_core::Workflow;
use switchyard_core::why::{Subject, Why};
use switchyard_core::workflow::{Edge, EdgeKind, EdgeTarget, Step};

use crate::diagram::layout::{self, Point};
use crate::diagram::shapes::{EDGE_LABEL_CHARACTERS, Outline, SPACING, arrow_head, box_text, outline, path, shorten};

const ARROW: &str = "sy-arrow-workflow";

/// How one decision went on an edge, marked on the graph of the node page that explains it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EdgeMark {
    /// The run went along it.
    Taken,
    /// Its condition held (an edge not taken only when one before it held too).
    Pass,
    /// Its condition did not hold, could not be evaluated, or it was used up.
    Skip,
}

/// Marks by step id and edge label.
pub(crate) type EdgeMarks = HashMap<(String, String), EdgeMark>;

/// The marks of a decision's why: each edge it evaluated PASS or SKIP, the edge it took as taken.
pub(crate) fn edge_marks(step: &str, why: &Why) -> EdgeMarks {
    let mut marks = EdgeMarks::new();
    for evaluated in &why.evaluated {
        if let Subject::Edge { label } = &evaluated.subject {
            let mark = if evaluated.result.held() { EdgeMark::Pass } else { EdgeMark::Skip };
            marks.insert((evaluated.step.to_string(), label.clone()), mark);
        }
    }
    if let Some(label) = why.rule.edge() {
        marks.insert((step.to_owned(), label.to_owned()), EdgeMark::Taken);
    }
    marks
}

/// The graph of `workflow`: every step, and a "complete" box when an edge completes the run.
pub(crate) fn workflow_graph(workflow: &Workflow) -> Markup {
    marked_workflow_graph(workflow, &EdgeMarks::new())
}

/// The graph of `workflow` with `marks` on the edges a decision evaluated or took.
pub(crate) fn marked_workflow_graph(workflow: &Workflow, marks: &EdgeMarks) -> Markup {
    let index_of: HashMap<&str, usize> =
        workflow.steps.iter().enumerate().map(|(index, step)| (step.id.as_str(), index)).collect();
    let completes = workflow.steps.iter().flat_map(|step| &step.edges).any(|edge| edge.target == EdgeTarget::Complete);
    let complete_index = workflow.steps.len();
    let box_count = workflow.steps.len() + usize::from(completes);
    // Each drawn edge: its step, the edge, and the box indices it joins. An edge to a step the
    // workflow lacks (the compiler refuses those) is not drawn.
    let mut drawn: Vec<(&Step, &Edge, usize, usize)> = Vec::new();
    for (from, step) in workflow.steps.iter().enumerate() {
        for edge in &step.edges {
            let to = match &edge.target {
                EdgeTarget::Step(target) => index_of.get(target.as_str()).copied(),
                EdgeTarget::Complete => Some(complete_index),
            };
            if let Some(to) = to {
                drawn.push((step, edge, from, to));
            }
        }
    }
    let pairs: Vec<(usize, usize)> = drawn.iter().map(|(_, _, from, to)| (*from, *to)).collect();
    let entry = index_of.get(workflow.entry.as_str()).copied().unwrap_or(0);
    let placed = layout::layered(box_count, &pairs, entry, SPACING);
    let mark_of = |step: &Step, edge: &Edge| marks.get(&(step.id.to_string(), edge.label.clone())).copied();
    let shown: Vec<String> = drawn.iter().map(|(step, edge, _, _)| shown_label(edge, mark_of(step, edge))).collect();
    let (label_places, labels_right) = place_labels(&placed.routes, &shown, &placed.boxes);
    // A label beside an edge on the right may reach past the boxes.
    let width = placed.width.max(labels_right + SPACING.margin);
    let height = placed.height;
    let gates = workflow.steps.iter().filter(|step| step.gate).count();
    let label = format!(
        "Workflow {}: {} steps, {} edges, {} gates; starts at {}",
        workflow.id,
        workflow.steps.len(),
        drawn.len(),
        gates,
        workflow.entry
    );
    html! {
        div.sy-diagram.sy-diagram--workflow {
            svg.sy-graph xmlns="http://www.w3.org/2000/svg" role="img" aria-label=(label)
                width=(width) height=(height) viewBox={ "0 0 " (width) " " (height) } {
                (arrow_head(ARROW))
                g.sy-edges {
                    @for (number, (step, edge, _, _)) in drawn.iter().enumerate() {
                        (edge_line(step, edge, mark_of(step, edge), &placed.routes[number], placed.back_edges[number], label_places[number]))
                    }
                }
                g.sy-nodes {
                    @for (index, step) in workflow.steps.iter().enumerate() {
                        (step_box(step, placed.boxes[index], step.id == workflow.entry))
                    }
                    @if completes {
                        g.sy-step.sy-step--complete {
                            title { "the run completes" }
                            (outline(Outline::Pill, placed.boxes[complete_index]))
                            (box_text(placed.boxes[complete_index], "complete", "the run ends"))
                        }
                    }
                }
            }
        }
    }
}

fn step_box(step: &Step, at: Point, entry: bool) -> Markup {
    let end = step.is_end();
    let mut facts = Vec::new();
    if entry {
        facts.push("start");
    }
    if step.gate {
        facts.push("gate");
    }
    if end {
        facts.push("end");
    }
    let detail =
        if facts.is_empty() { step.title.clone() } else { format!("{} · {}", facts.join(" · "), step.title) };
    let mut title = format!("{}\n{}", step.id, step.title);
    if !facts.is_empty() {
        title.push_str(&format!("\n{}", facts.join(", ")));
    }
    if let Some(phase) = &step.phase {
        title.push_str(&format!("\nphase {phase}"));
    }
    let shape = if step.gate { Outline::Hexagon } else { Outline::Rectangle };
    html! {
        g.sy-step.sy-step--entry[entry].sy-step--gate[step.gate].sy-step--end[end] data-step=(step.id.as_str()) {
            title { (title) }
            (outline(shape, at))
            (box_text(at, step.id.as_str(), &detail))
        }
    }
}

fn edge_line(step: &Step, edge: &Edge, mark: Option<EdgeMark>, route: &[Point], back: bool, label_at: Point) -> Markup {
    let kind = match (&edge.target, edge.kind) {
        (EdgeTarget::Complete, _) => "sy-edge--complete",
        (_, EdgeKind::Normal) => "sy-edge--normal",
        (_, EdgeKind::Loop) => "sy-edge--loop",
        (_, EdgeKind::Replan) => "sy-edge--replan",
    };
    let kind_word = match edge.kind {
        EdgeKind::Normal => "",
        EdgeKind::Loop => " (loop)",
        EdgeKind::Replan => " (replan)",
    };
    let target = match &edge.target {
        EdgeTarget::Step(target) => target.to_string(),
        EdgeTarget::Complete => "complete".to_owned(),
    };
    let mut title = format!("{} → {target}: {}{kind_word}", step.id, edge.label);
    if edge.default {
        title.push_str("\ndefault");
    }
    if let Some(text) = &edge.condition_text {
        title.push_str(&format!("\nwhen {text}"));
    }
    if let Some(condition) = &edge.condition {
        title.push_str(&format!("\nif {condition}"));
    }
    if let Some(limit) = edge.max_traversals {
        title.push_str(&format!("\nat most {limit} times"));
    }
    match mark {
        Some(EdgeMark::Taken) => title.push_str("\ntaken by this decision"),
        Some(EdgeMark::Pass) => title.push_str("\nPASS: its condition held"),
        Some(EdgeMark::Skip) => title.push_str("\nSKIP: its condition did not hold"),
        None => {}
    }
    let shown = shown_label(edge, mark);
    let taken = mark == Some(EdgeMark::Taken);
    let passed = mark == Some(EdgeMark::Pass);
    let skipped = mark == Some(EdgeMark::Skip);
    html! {
        g.sy-edge-group {
            title { (title) }
            path.sy-edge.(kind).sy-edge--back[back].sy-edge--taken[taken].sy-edge--pass[passed].sy-edge--skip[skipped]
                d=(path(route)) marker-end={ "url(#" (ARROW) ")" } {}
            text.sy-edge-label x=(label_at.x) y=(label_at.y) text-anchor="middle" dominant-baseline="central" {
                (shown)
            }
        }
    }
}

/// What an edge's label shows: its mark, its label, and its condition in words (or as written)
/// when it has one, shortened; the tooltip has them whole.
fn shown_label(edge: &Edge, mark: Option<EdgeMark>) -> String {
    let condition = edge.condition_text.as_deref().or(edge.condition.as_deref());
    let whole = condition.map_or_else(|| edge.label.clone(), |condition| format!("{}: {condition}", edge.label));
    let mark = match mark {
        Some(EdgeMark::Taken) => "TAKEN ",
        Some(EdgeMark::Pass) => "PASS ",
        Some(EdgeMark::Skip) => "SKIP ",
        None => "",
    };
    shorten(&format!("{mark}{whole}"), EDGE_LABEL_CHARACTERS)
}

/// The width of one character of an edge label at the stylesheet's 11px monospace, and a line's
/// height: what label placement reserves.
const LABEL_CHARACTER_WIDTH: i64 = 7;
const LABEL_HEIGHT: i64 = 14;

/// Where each edge's label goes: the first of a few places along its route (halfway down each
/// segment, then a quarter and three quarters of the way; on the line, then beside it) where it
/// covers no box and no label placed before it; halfway down the first segment when there is no
/// such place.
///
/// Returns the places and how far right the labels reach.
fn place_labels(routes: &[Vec<Point>], labels: &[String], boxes: &[Point]) -> (Vec<Point>, i64) {
    let box_areas: Vec<Area> = boxes
        .iter()
        .map(|corner| Area {
            left: corner.x,
            top: corner.y,
            right: corner.x + SPACING.node_width,
            bottom: corner.y + SPACING.node_height,
        })
        .collect();
    let mut taken: Vec<Area> = Vec::new();
    let mut places = Vec::with_capacity(routes.len());
    for (route, label) in routes.iter().zip(labels) {
        let half_width = label.chars().count() as i64 * LABEL_CHARACTER_WIDTH / 2 + 3;
        let area_at = |at: Point| Area {
            left: at.x - half_width,
            top: at.y - LABEL_HEIGHT / 2,
            right: at.x + half_width,
            bottom: at.y + LABEL_HEIGHT / 2,
        };
        let candidates: Vec<Point> = route
            .windows(2)
            .flat_map(|segment| {
                [2, 1, 3].map(|quarter| Point {
                    x: segment[0].x + (segment[1].x - segment[0].x) * quarter / 4,
                    y: segment[0].y + (segment[1].y - segment[0].y) * quarter / 4,
                })
            })
            // On the line, then beside it on its right, then on its left.
            .flat_map(|on_line| {
                [0, half_width + 4, -half_width - 4].map(|aside| Point { x: on_line.x + aside, y: on_line.y })
            })
            .collect();
        let free = candidates.iter().copied().find(|candidate| {
            let area = area_at(*candidate);
            area.left >= 0 && !box_areas.iter().chain(&taken).any(|other| other.meets(&area))
        });
        let place = free.or(candidates.first().copied()).unwrap_or(Point { x: 0, y: 0 });
        taken.push(area_at(place));
        places.push(place);
    }
    let right = taken.iter().map(|area| area.right).max().unwrap_or(0);
    (places, right)
}

/// A rectangle a label or a box covers.
#[derive(Debug, Clone, Copy)]
struct Area {
    left: i64,
    top: i64,
    right: i64,
    bottom: i64,
}

impl Area {
    fn meets(&self, other: &Area) -> bool {
        self.left < other.right && other.left < self.right && self.top < other.bottom && other.top < self.bottom
    }
}
