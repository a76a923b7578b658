//! The layouts' properties: no two boxes overlap, every edge runs from its source's box to its
//! target's, ranks follow the edges but for marked back edges; and big trees stay readable and
//! are laid out whole. How long a big run takes to draw is measured by the console bench
//! (`session_1000_nodes`), not asserted here.

use proptest::prelude::*;

use crate::diagram::layout::{self, Layout, Point, Spacing};
use crate::diagram::shapes::SPACING;

fn overlaps(left: Point, right: Point, spacing: Spacing) -> bool {
    (left.x - right.x).abs() < spacing.node_width && (left.y - right.y).abs() < spacing.node_height
}

fn on_outline(point: Point, corner: Point, spacing: Spacing) -> bool {
    let (left, right) = (corner.x, corner.x + spacing.node_width);
    let (top, bottom) = (corner.y, corner.y + spacing.node_height);
    let within_x = (left..=right).contains(&point.x);
    let within_y = (top..=bottom).contains(&point.y);
    (within_x && (point.y == top || point.y == bottom)) || (within_y && (point.x == left || point.x == right))
}

/// What every layout must hold, whatever the graph: boxes apart and inside the drawing, each
/// route from its source's outline to its target's, ranks down every edge but back edges.
fn check_layout(placed: &Layout, edges: &[(usize, usize)], spacing: Spacing) -> Result<(), TestCaseError> {
    for (first, left) in placed.boxes.iter().enumerate() {
        prop_assert!(left.x >= 0 && left.y >= 0, "box {first} at {left:?} is outside the drawing");
        prop_assert!(left.x + spacing.node_width <= placed.width, "box {first} passes the right edge");
        prop_assert!(left.y + spacing.node_height <= placed.height, "box {first} passes the bottom");
        for (second, right) in placed.boxes.iter().enumerate().skip(first + 1) {
            prop_assert!(!overlaps(*left, *right, spacing), "boxes {first} {left:?} and {second} {right:?} overlap");
        }
    }
    prop_assert_eq!(placed.routes.len(), edges.len());
    prop_assert_eq!(placed.back_edges.len(), edges.len());
    for (edge, (from, to)) in edges.iter().enumerate() {
        let route = &placed.routes[edge];
        prop_assert!(route.len() >= 2, "edge {edge} has a route of {} points", route.len());
        prop_assert!(on_outline(route[0], placed.boxes[*from], spacing), "edge {edge} does not start on box {from}");
        let end = route[route.len() - 1];
        prop_assert!(on_outline(end, placed.boxes[*to], spacing), "edge {edge} does not end on box {to}");
        if placed.back_edges[edge] {
            prop_assert!(placed.ranks[*to] <= placed.ranks[*from], "back edge {edge} goes down");
        } else {
            prop_assert!(placed.ranks[*to] > placed.ranks[*from], "edge {edge} {from}→{to} does not go down a rank");
        }
    }
    Ok(())
}

/// Parents for a tree of `count` boxes: each box's parent made before it.
fn tree_strategy() -> impl Strategy<Value = (Vec<Option<usize>>, usize)> {
    (1usize..60).prop_flat_map(|count| {
        let parents = (0..count)
            .map(|index| if index == 0 { Just(None).boxed() } else { (0..index).prop_map(Some).boxed() })
            .collect::<Vec<_>>();
        (parents, 0..count)
    })
}

/// A directed graph of `count` boxes with any edges, self loops and cycles included.
fn graph_strategy() -> impl Strategy<Value = (usize, Vec<(usize, usize)>, usize)> {
    (1usize..30).prop_flat_map(|count| (Just(count), prop::collection::vec((0..count, 0..count), 0..60), 0..count))
}

proptest! {
    #[test]
    fn tree_layouts_keep_boxes_apart_and_edges_on_their_ends((parents, tip) in tree_strategy()) {
        let placed = layout::tree(&parents, Some(tip), SPACING);
        let edges = layout::tree_edges(&parents);
        check_layout(&placed, &edges, SPACING)?;
        for (parent, child) in &edges {
            prop_assert_eq!(placed.ranks[*child], placed.ranks[*parent] + 1);
        }
        // The main line to the tip runs straight down one lane.
        let mut current = tip;
        while let Some(parent) = parents[current] {
            prop_assert_eq!(placed.boxes[parent].x, placed.boxes[tip].x);
            current = parent;
        }
    }

    #[test]
    fn layered_layouts_keep_boxes_apart_and_rank_all_but_back_edges((count, edges, entry) in graph_strategy()) {
        let placed = layout::layered(count, &edges, entry, SPACING);
        check_layout(&placed, &edges, SPACING)?;
        // Without its back edges the graph has no cycle: ranks strictly grow along every edge left.
        for (edge, (from, to)) in edges.iter().enumerate() {
            if from == to {
                prop_assert!(placed.back_edges[edge], "a self loop is a back edge");
            }
        }
    }
}

/// A run tree of `count` nodes: a main line with `branches` forks off it, each branch as long
/// as the part of the main line after its fork point, so the branches run side by side.
fn forked_tree(count: usize, branches: usize) -> (Vec<Option<usize>>, usize) {
    let main_length = count / (branches + 1) + count % (branches + 1);
    let mut parents: Vec<Option<usize>> = (0..main_length).map(|index| index.checked_sub(1)).collect();
    let branch_length = count / (branches + 1);
    for branch in 0..branches {
        let fork_at = (branch + 1) * main_length / (branches + 2);
        let mut previous = fork_at;
        for _ in 0..branch_length {
            parents.push(Some(previous));
            previous = parents.len() - 1;
        }
    }
    (parents, main_length - 1)
}

#[test]
fn a_two_hundred_node_tree_with_five_branches_lies_in_six_lanes_with_the_main_line_straight() {
    let (parents, tip) = forked_tree(200, 5);
    assert_eq!(parents.len(), 200);
    let placed = layout::tree(&parents, Some(tip), SPACING);
    check_layout(&placed, &layout::tree_edges(&parents), SPACING).unwrap();
    let mut lanes: Vec<i64> = placed.boxes.iter().map(|corner| corner.x).collect();
    lanes.sort_unstable();
    lanes.dedup();
    assert_eq!(lanes.len(), 6, "one lane for the main line and one per branch");
    assert!(placed.boxes[..=tip].iter().all(|corner| corner.x == placed.boxes[0].x), "the main line is straight");
    assert_eq!(placed.width, 2 * SPACING.margin + 6 * (SPACING.node_width + SPACING.column_gap) - SPACING.column_gap);
}

#[test]
fn branches_that_ended_give_their_lane_to_later_branches() {
    // A main line of 20 with a branch of 2 off box 2 and another off box 15: the second branch
    // starts below the first's end, so both use the second lane.
    let mut parents: Vec<Option<usize>> = (0..20).map(|index: usize| index.checked_sub(1)).collect();
    parents.extend([Some(2), Some(20), Some(15), Some(22)]);
    let placed = layout::tree(&parents, Some(19), SPACING);
    check_layout(&placed, &layout::tree_edges(&parents), SPACING).unwrap();
    assert_eq!(placed.boxes[20].x, placed.boxes[22].x);
    assert!(placed.boxes[20].x > placed.boxes[0].x);
}

#[test]
fn a_thousand_node_run_and_a_thousand_step_graph_are_laid_out_whole() {
    let (parents, tip) = forked_tree(1_000, 12);
    let placed = layout::tree(&parents, Some(tip), SPACING);
    assert_eq!(placed.boxes.len(), 1_000);
    // A long chain with a loop edge back every ten steps and a skip edge forward every seven.
    let mut edges: Vec<(usize, usize)> = (1..1_000).map(|index| (index - 1, index)).collect();
    edges.extend((10..1_000).step_by(10).map(|index| (index, index - 9)));
    edges.extend((0..990).step_by(7).map(|index| (index, index + 3)));
    let graph = layout::layered(1_000, &edges, 0, SPACING);
    check_layout(&graph, &edges, SPACING).unwrap();
}
