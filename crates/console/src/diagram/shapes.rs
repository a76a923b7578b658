//! What both diagrams draw alike: box outlines, edge lines, arrow heads and shortened labels.

use std::fmt::Write;

use maud::{Markup, html};

use crate::diagram::layout::{Point, Spacing};

/// Boxes wide enough for a step id of 20 characters at the stylesheet's 13px, and high
/// enough for two lines: what stays readable however large the diagram grows (it scrolls).
pub(crate) const SPACING: Spacing =
    Spacing { node_width: 176, node_height: 46, column_gap: 36, rank_gap: 40, margin: 16 };

/// The characters of a box's first line; longer names end in `…` (the tooltip has them whole).
pub(crate) const LABEL_CHARACTERS: usize = 20;
/// The characters of a box's second line and of an edge's label.
pub(crate) const DETAIL_CHARACTERS: usize = 24;
pub(crate) const EDGE_LABEL_CHARACTERS: usize = 20;

/// The outline a box is drawn with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outline {
    Rectangle,
    /// Rounded ends: starts and the run's completion.
    Pill,
    /// Pointed sides: gates.
    Hexagon,
    /// Cut corners: blocked attempts.
    Octagon,
}

/// `text` cut to `limit` characters, ending in `…` when cut.
pub(crate) fn shorten(text: &str, limit: usize) -> String {
    let single_line: String =
        text.chars().map(|character| if character.is_control() { ' ' } else { character }).collect();
    if single_line.chars().count() <= limit {
        return single_line;
    }
    let mut short: String = single_line.chars().take(limit.saturating_sub(1)).collect();
    short.push('…');
    short
}

/// A box's outline at `at`, of the diagram's size.
pub(crate) fn outline(outline: Outline, at: Point) -> Markup {
    let (x, y, width, height) = (at.x, at.y, SPACING.node_width, SPACING.node_height);
    let inset = height / 4;
    match outline {
        Outline::Rectangle => html! { rect.sy-node-box x=(x) y=(y) width=(width) height=(height) rx="4" {} },
        Outline::Pill => html! { rect.sy-node-box x=(x) y=(y) width=(width) height=(height) rx=(height / 2) {} },
        Outline::Hexagon => {
            let points = polygon(&[
                (x + inset, y),
                (x + width - inset, y),
                (x + width, y + height / 2),
                (x + width - inset, y + height),
                (x + inset, y + height),
                (x, y + height / 2),
            ]);
            html! { polygon.sy-node-box points=(points) {} }
        }
        Outline::Octagon => {
            let cut = inset / 2 + 2;
            let points = polygon(&[
                (x + cut, y),
                (x + width - cut, y),
                (x + width, y + cut),
                (x + width, y + height - cut),
                (x + width - cut, y + height),
                (x + cut, y + height),
                (x, y + height - cut),
                (x, y + cut),
            ]);
            // Dashed even where no stylesheet says so: a blocked attempt must not read as a step.
            html! { polygon.sy-node-box points=(points) stroke-dasharray="6 4" {} }
        }
    }
}

/// A box's two lines of text, centred.
pub(crate) fn box_text(at: Point, label: &str, detail: &str) -> Markup {
    let centre = at.x + SPACING.node_width / 2;
    html! {
        text.sy-node-label x=(centre) y=(at.y + SPACING.node_height * 2 / 5) text-anchor="middle" dominant-baseline="central" {
            (shorten(label, LABEL_CHARACTERS))
        }
        text.sy-node-detail x=(centre) y=(at.y + SPACING.node_height * 3 / 4) text-anchor="middle" dominant-baseline="central" {
            (shorten(detail, DETAIL_CHARACTERS))
        }
    }
}

/// An SVG path through `points`.
pub(crate) fn path(points: &[Point]) -> String {
    let mut data = String::new();
    for (index, point) in points.iter().enumerate() {
        let command = if index == 0 { 'M' } else { 'L' };
        // Writing to a String cannot fail.
        let _ = write!(data, "{}{command}{} {}", if index == 0 { "" } else { " " }, point.x, point.y);
    }
    data
}

/// The arrow head every edge of one diagram ends in, under `id` (unique per diagram kind, so a
/// page showing both kinds has each once).
pub(crate) fn arrow_head(id: &str) -> Markup {
    html! {
        defs {
            marker id=(id) viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse" {
                path.sy-arrow d="M0 0 L10 5 L0 10 z" {}
            }
        }
    }
}

fn polygon(points: &[(i64, i64)]) -> String {
    points.iter().map(|(x, y)| format!("{x},{y}")).collect::<Vec<_>>().join(" ")
}
