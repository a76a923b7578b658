//! Where each box of a diagram goes: a lane layout for run trees and a layered (Sugiyama-style)
//! layout for workflow graphs with cycles, both in whole pixels.
//!
//! Both lay boxes of one size on a grid of ranks (rows, top to bottom), so no two boxes can
//! overlap as long as two boxes of one rank keep a slot apart; each edge is a polyline that
//! starts on its source's box and ends on its target's.

use std::collections::VecDeque;

/// A point in the diagram, in pixels from its top left corner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Point {
    pub x: i64,
    pub y: i64,
}

/// The sizes every box and gap of a diagram shares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Spacing {
    pub node_width: i64,
    pub node_height: i64,
    /// Between two boxes of one rank.
    pub column_gap: i64,
    /// Between two ranks: room for the edges and their labels.
    pub rank_gap: i64,
    /// Around the whole drawing.
    pub margin: i64,
}

impl Spacing {
    fn column_width(&self) -> i64 {
        self.node_width + self.column_gap
    }

    fn rank_height(&self) -> i64 {
        self.node_height + self.rank_gap
    }
}

/// Where the boxes and edges of a diagram go.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    /// The top left corner of each box, in the order the boxes were given.
    pub boxes: Vec<Point>,
    /// Each box's rank: its row, counted from 0 at the top.
    pub ranks: Vec<usize>,
    /// For each edge, in the order the edges were given: the points its line passes through,
    /// from a point on its source's box to a point on its target's.
    pub routes: Vec<Vec<Point>>,
    /// For each edge: whether it goes back up (it closes a cycle), so it is drawn apart and its
    /// target's rank need not be below its source's.
    pub back_edges: Vec<bool>,
    pub width: i64,
    pub height: i64,
}

/// A tree (or forest) in lanes: each box sits one rank below its parent, the path from the
/// root to `spine_leaf` runs straight down the first lane, and every other branch gets a lane of
/// its own beside the lanes before it (a lane is reused once the branch in it has ended).
///
/// `parents[i]` is the index of box `i`'s parent; children keep the order they are given in, so
/// callers pass boxes in the order they were made. A parent index out of range, or a cycle of
/// parents, makes the boxes involved roots rather than failing.
pub(crate) fn tree(parents: &[Option<usize>], spine_leaf: Option<usize>, spacing: Spacing) -> Layout {
    let count = parents.len();
    let parent_of = |index: usize| parents[index].filter(|parent| *parent < count && *parent != index);
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); count];
    for index in 0..count {
        if let Some(parent) = parent_of(index) {
            children[parent].push(index);
        }
    }
    // The spine's child comes first wherever the spine passes, so it continues its parent's lane.
    if let Some(leaf) = spine_leaf.filter(|leaf| *leaf < count) {
        let mut current = leaf;
        let mut steps = 0;
        while let Some(parent) = parent_of(current) {
            if let Some(position) = children[parent].iter().position(|child| *child == current) {
                let child = children[parent].remove(position);
                children[parent].insert(0, child);
            }
            current = parent;
            steps += 1;
            if steps > count {
                break;
            }
        }
    }
    let mut roots: Vec<usize> = (0..count).filter(|index| parent_of(*index).is_none()).collect();
    if let Some(leaf) = spine_leaf.filter(|leaf| *leaf < count) {
        let mut root = leaf;
        let mut steps = 0;
        while let Some(parent) = parent_of(root) {
            root = parent;
            steps += 1;
            if steps > count {
                break;
            }
        }
        if let Some(position) = roots.iter().position(|candidate| *candidate == root) {
            roots.remove(position);
            roots.insert(0, root);
        }
    }

    // Chains: a box and its first child, its first child's first child, ...; every other child
    // starts a chain of its own. Depth-first, so a branch's chain comes right after its fork's.
    let mut depth = vec![usize::MAX; count];
    let mut chains: Vec<Vec<usize>> = Vec::new();
    let mut chain_starts: Vec<usize> = Vec::new();
    let mut stack: Vec<(usize, usize)> = roots.iter().rev().map(|root| (*root, 0)).collect();
    while let Some((start, start_depth)) = stack.pop() {
        let mut chain = Vec::new();
        let mut current = Some(start);
        let mut current_depth = start_depth;
        let mut branches = Vec::new();
        while let Some(index) = current {
            if depth[index] != usize::MAX {
                break;
            }
            depth[index] = current_depth;
            chain.push(index);
            branches.extend(children[index].iter().skip(1).map(|child| (*child, current_depth + 1)));
            current = children[index].first().copied();
            current_depth += 1;
        }
        // Later branches first onto the stack, so the nearest fork's branch is laid out next.
        stack.extend(branches.into_iter().rev());
        if !chain.is_empty() {
            chain_starts.push(start_depth);
            chains.push(chain);
        }
    }
    // Boxes on a cycle of parents are reached by no root: each becomes a chain of its own.
    for (index, reached) in depth.iter_mut().enumerate() {
        if *reached == usize::MAX {
            *reached = 0;
            chain_starts.push(0);
            chains.push(vec![index]);
        }
    }

    // Lanes: each chain takes the first lane right of its parent's lane that is free from the
    // rank of its parent to its own last rank, so no box sits right above a branch it did not
    // start, and lanes are reused down the page.
    let mut lane_of = vec![0usize; count];
    let mut lane_busy_until: Vec<Option<usize>> = Vec::new();
    for (chain, start) in chains.iter().zip(&chain_starts) {
        let end = start + chain.len() - 1;
        let parent_lane = parent_of(chain[0]).map(|parent| lane_of[parent]);
        let first_rank_needed = parent_lane.map_or(*start, |_| start.saturating_sub(1));
        let first_lane = parent_lane.map_or(0, |lane| lane + 1);
        let lane = (first_lane..)
            .find(|lane| match lane_busy_until.get(*lane) {
                None | Some(None) => true,
                Some(Some(busy)) => *busy < first_rank_needed,
            })
            .unwrap_or(first_lane);
        if lane_busy_until.len() <= lane {
            lane_busy_until.resize(lane + 1, None);
        }
        lane_busy_until[lane] = Some(end.max(lane_busy_until[lane].unwrap_or(0)));
        for index in chain {
            lane_of[*index] = lane;
        }
    }

    let boxes: Vec<Point> = (0..count)
        .map(|index| Point {
            x: spacing.margin + lane_of[index] as i64 * spacing.column_width(),
            y: spacing.margin + depth[index] as i64 * spacing.rank_height(),
        })
        .collect();
    let routes: Vec<Vec<Point>> = tree_edges(parents)
        .into_iter()
        .map(|(parent, child)| downward_route(boxes[parent], boxes[child], spacing))
        .collect();
    let lanes = lane_busy_until.len().max(1) as i64;
    let ranks = depth.iter().copied().max().map_or(0, |deepest| deepest + 1) as i64;
    Layout {
        boxes,
        ranks: depth,
        back_edges: vec![false; routes.len()],
        routes,
        width: 2 * spacing.margin + lanes * spacing.column_width() - spacing.column_gap,
        height: 2 * spacing.margin + ranks.max(1) * spacing.rank_height() - spacing.rank_gap,
    }
}

/// The edges of a tree layout, in the order of `parents`: one per box with a parent.
pub(crate) fn tree_edges(parents: &[Option<usize>]) -> Vec<(usize, usize)> {
    let count = parents.len();
    (0..count)
        .filter_map(|index| parents[index].filter(|parent| *parent < count && *parent != index).map(|p| (p, index)))
        .collect()
}

/// From the bottom middle of `from` to the top middle of `to` one rank below, with a bend
/// halfway down the gap when they sit in different lanes.
fn downward_route(from: Point, to: Point, spacing: Spacing) -> Vec<Point> {
    let start = Point { x: from.x + spacing.node_width / 2, y: from.y + spacing.node_height };
    let end = Point { x: to.x + spacing.node_width / 2, y: to.y };
    if start.x == end.x || end.y <= start.y {
        return vec![start, end];
    }
    let bend = start.y + (end.y - start.y) / 2;
    vec![start, Point { x: start.x, y: bend }, Point { x: end.x, y: bend }, end]
}

/// A directed graph in ranks: edges that close a cycle (found depth-first from `entry`, then
/// from every box not yet reached) are marked as back edges and left out of the ranking; every
/// other edge goes down at least one rank (the longest path from a source decides a box's
/// rank). Edges across several ranks pass through placeholders in the ranks between, and a few
/// barycenter sweeps order each rank to cut crossings.
pub(crate) fn layered(count: usize, edges: &[(usize, usize)], entry: usize, spacing: Spacing) -> Layout {
    let edges: Vec<(usize, usize)> =
        edges.iter().map(|(from, to)| (*from, *to)).filter(|(from, to)| *from < count && *to < count).collect();
    let back_edges = find_back_edges(count, &edges, entry);
    let ranks = longest_path_ranks(count, &edges, &back_edges);

    // Placeholders: an edge spanning several ranks becomes a chain through one placeholder per
    // rank between its ends. Back edges are laid out upside down (from target to source).
    let mut rank_of: Vec<usize> = ranks.clone();
    let mut is_placeholder: Vec<bool> = vec![false; count];
    let mut segments: Vec<(usize, usize)> = Vec::new();
    let mut chains: Vec<Vec<usize>> = Vec::with_capacity(edges.len());
    for (edge, (from, to)) in edges.iter().enumerate() {
        let (top, bottom) = if back_edges[edge] { (*to, *from) } else { (*from, *to) };
        let mut chain = vec![top];
        if top != bottom {
            for rank in ranks[top] + 1..ranks[bottom] {
                let placeholder = rank_of.len();
                rank_of.push(rank);
                is_placeholder.push(true);
                chain.push(placeholder);
            }
            chain.push(bottom);
            for pair in chain.windows(2) {
                segments.push((pair[0], pair[1]));
            }
        }
        chains.push(chain);
    }
    let total = rank_of.len();
    let rank_count = rank_of.iter().copied().max().map_or(1, |deepest| deepest + 1);
    let mut above: Vec<Vec<usize>> = vec![Vec::new(); total];
    let mut below: Vec<Vec<usize>> = vec![Vec::new(); total];
    for (top, bottom) in &segments {
        below[*top].push(*bottom);
        above[*bottom].push(*top);
    }

    // First order: depth-first discovery from the entry, so a chain of steps starts aligned.
    let discovery = discovery_order(count, &edges, entry);
    let mut layers: Vec<Vec<usize>> = vec![Vec::new(); rank_count];
    for index in discovery {
        layers[rank_of[index]].push(index);
    }
    for (placeholder, rank) in rank_of.iter().enumerate().skip(count) {
        layers[*rank].push(placeholder);
    }
    let mut position = vec![0f64; total];
    let record = |layers: &Vec<Vec<usize>>, position: &mut Vec<f64>| {
        for layer in layers {
            for (slot, index) in layer.iter().enumerate() {
                position[*index] = slot as f64;
            }
        }
    };
    record(&layers, &mut position);
    const SWEEPS: usize = 4;
    for _ in 0..SWEEPS {
        for rank in 1..rank_count {
            sort_by_barycenter(&mut layers[rank], &above, &position);
            record(&layers, &mut position);
        }
        for rank in (0..rank_count.saturating_sub(1)).rev() {
            sort_by_barycenter(&mut layers[rank], &below, &position);
            record(&layers, &mut position);
        }
    }

    // Coordinates: each box as near as it can get to the middle of its neighbours above, in
    // its rank's order, a slot apart; placeholders take a narrow slot.
    let placeholder_width = spacing.column_gap.max(8);
    let width_of = |index: usize| if is_placeholder[index] { placeholder_width } else { spacing.node_width };
    let mut left = vec![0i64; total];
    for layer in &layers {
        let mut next_free = 0i64;
        for index in layer {
            let wanted = if above[*index].is_empty() {
                next_free
            } else {
                let centres: i64 = above[*index].iter().map(|parent| left[*parent] + width_of(*parent) / 2).sum();
                centres / above[*index].len() as i64 - width_of(*index) / 2
            };
            left[*index] = wanted.max(next_free);
            next_free = left[*index] + width_of(*index) + spacing.column_gap;
        }
    }
    let shift = spacing.margin - left.iter().copied().min().unwrap_or(0);
    let centre_x = |index: usize, left: &[i64]| left[index] + shift + width_of(index) / 2;
    let top_y = |index: usize| spacing.margin + rank_of[index] as i64 * spacing.rank_height();

    let boxes: Vec<Point> = (0..count).map(|index| Point { x: left[index] + shift, y: top_y(index) }).collect();
    let routes: Vec<Vec<Point>> = chains
        .iter()
        .enumerate()
        .map(|(edge, chain)| {
            let (from, to) = edges[edge];
            if from == to {
                return self_loop_route(boxes[from], spacing);
            }
            let mut points = Vec::with_capacity(chain.len() * 2);
            for (step, index) in chain.iter().enumerate() {
                let x = centre_x(*index, &left);
                if step == 0 {
                    points.push(Point { x, y: top_y(*index) + spacing.node_height });
                } else if step == chain.len() - 1 {
                    points.push(Point { x, y: top_y(*index) });
                } else {
                    points.push(Point { x, y: top_y(*index) });
                    points.push(Point { x, y: top_y(*index) + spacing.node_height });
                }
            }
            if back_edges[edge] {
                points.reverse();
            }
            points
        })
        .collect();
    let mut routes = routes;
    spread_ports(&mut routes, &edges, &boxes, spacing);
    let right = (0..total).map(|index| left[index] + shift + width_of(index)).max().unwrap_or(spacing.margin);
    // A self loop reaches past its box's right side.
    let right = right
        + if routes.iter().enumerate().any(|(edge, _)| edges[edge].0 == edges[edge].1) {
            spacing.column_gap
        } else {
            0
        };
    Layout {
        boxes,
        ranks,
        routes,
        back_edges,
        width: right + spacing.margin,
        height: 2 * spacing.margin + rank_count as i64 * spacing.rank_height() - spacing.rank_gap,
    }
}

/// A loop from a box's right side back into it.
fn self_loop_route(node: Point, spacing: Spacing) -> Vec<Point> {
    let right = node.x + spacing.node_width;
    let out = right + spacing.column_gap / 2;
    let upper = node.y + spacing.node_height / 3;
    let lower = node.y + 2 * spacing.node_height / 3;
    vec![
        Point { x: right, y: lower },
        Point { x: out, y: lower },
        Point { x: out, y: upper },
        Point { x: right, y: upper },
    ]
}

/// Orders a rank by the mean position of each box's neighbours in the rank just swept; a box
/// without neighbours there keeps its place relative to the others.
fn sort_by_barycenter(layer: &mut [usize], neighbours: &[Vec<usize>], position: &[f64]) {
    let keys: Vec<(f64, usize)> = layer
        .iter()
        .map(|index| {
            let around = &neighbours[*index];
            let key = if around.is_empty() {
                position[*index]
            } else {
                around.iter().map(|neighbour| position[*neighbour]).sum::<f64>() / around.len() as f64
            };
            (key, *index)
        })
        .collect();
    let mut ordered = keys;
    ordered.sort_by(|left, right| left.0.total_cmp(&right.0).then(position[left.1].total_cmp(&position[right.1])));
    for (slot, (_, index)) in ordered.into_iter().enumerate() {
        layer[slot] = index;
    }
}

/// Which edges close a cycle: depth-first from `entry`, then from each box not yet reached in
/// order, an edge to a box still on the path (or to itself) is a back edge.
fn find_back_edges(count: usize, edges: &[(usize, usize)], entry: usize) -> Vec<bool> {
    let mut outgoing: Vec<Vec<(usize, usize)>> = vec![Vec::new(); count];
    for (edge, (from, to)) in edges.iter().enumerate() {
        outgoing[*from].push((edge, *to));
    }
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        OnPath,
        Done,
    }
    let mut mark = vec![Mark::New; count];
    let mut back = vec![false; edges.len()];
    let starts = std::iter::once(entry).filter(|entry| *entry < count).chain(0..count);
    for start in starts {
        if mark[start] != Mark::New {
            continue;
        }
        mark[start] = Mark::OnPath;
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            if let Some((edge, to)) = outgoing[node].get(*next).copied() {
                *next += 1;
                match mark[to] {
                    Mark::OnPath => back[edge] = true,
                    Mark::New => {
                        mark[to] = Mark::OnPath;
                        stack.push((to, 0));
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                stack.pop();
            }
        }
    }
    back
}

/// Each box's rank: the longest path to it over the edges that are not back edges.
fn longest_path_ranks(count: usize, edges: &[(usize, usize)], back_edges: &[bool]) -> Vec<usize> {
    let mut incoming = vec![0usize; count];
    let mut outgoing: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (edge, (from, to)) in edges.iter().enumerate() {
        if !back_edges[edge] && from != to {
            outgoing[*from].push(*to);
            incoming[*to] += 1;
        }
    }
    let mut rank = vec![0usize; count];
    let mut ready: VecDeque<usize> = (0..count).filter(|index| incoming[*index] == 0).collect();
    while let Some(node) = ready.pop_front() {
        for to in &outgoing[node] {
            rank[*to] = rank[*to].max(rank[node] + 1);
            incoming[*to] -= 1;
            if incoming[*to] == 0 {
                ready.push_back(*to);
            }
        }
    }
    rank
}

/// Boxes in depth-first order from `entry`, then the rest in order.
fn discovery_order(count: usize, edges: &[(usize, usize)], entry: usize) -> Vec<usize> {
    let mut outgoing: Vec<Vec<usize>> = vec![Vec::new(); count];
    for (from, to) in edges {
        outgoing[*from].push(*to);
    }
    let mut seen = vec![false; count];
    let mut order = Vec::with_capacity(count);
    let starts = std::iter::once(entry).filter(|entry| *entry < count).chain(0..count);
    for start in starts {
        if seen[start] {
            continue;
        }
        let mut stack = vec![start];
        while let Some(node) = stack.pop() {
            if seen[node] {
                continue;
            }
            seen[node] = true;
            order.push(node);
            stack.extend(outgoing[node].iter().rev().filter(|to| !seen[**to]));
        }
    }
    order
}

/// Spreads the ends of the edges that meet one side of a box along that side, ordered by where
/// each edge comes from, so edges (and their labels) leaving one box do not start on one point.
fn spread_ports(routes: &mut [Vec<Point>], edges: &[(usize, usize)], boxes: &[Point], spacing: Spacing) {
    /// An edge's end on a box's side: the edge, whether it is the route's first point, and the x
    /// of the route's point next to it.
    type End = (usize, bool, i64);
    // Keyed by the box and whether the side is its bottom.
    let mut sides: std::collections::BTreeMap<(usize, bool), Vec<End>> = Default::default();
    for (edge, (from, to)) in edges.iter().enumerate() {
        let route = &routes[edge];
        if from == to || route.len() < 2 {
            continue;
        }
        let first = route[0];
        let last = route[route.len() - 1];
        sides.entry((*from, first.y > boxes[*from].y)).or_default().push((edge, true, route[1].x));
        sides.entry((*to, last.y > boxes[*to].y)).or_default().push((edge, false, route[route.len() - 2].x));
    }
    for ((node, _), mut ends) in sides {
        ends.sort_by_key(|(edge, _, neighbour)| (*neighbour, *edge));
        let count = ends.len() as i64;
        for (slot, (edge, is_first, _)) in ends.into_iter().enumerate() {
            let x = boxes[node].x + spacing.node_width * (slot as i64 + 1) / (count + 1);
            let route = &mut routes[edge];
            let end = if is_first { 0 } else { route.len() - 1 };
            route[end].x = x;
        }
    }
}
