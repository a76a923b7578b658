//! IR to diagram text: Mermaid flowcharts and Graphviz DOT, what `switchyard inspect --format
//! mermaid|dot` writes for READMEs and design docs.
//!
//! Steps get generated node names (`s0`, `s1`, …, and `done` for the run's completion), so
//! no step id can collide with a keyword of either language (Mermaid's `end`, DOT's `node`);
//! ids, titles, labels and conditions appear only inside quoted labels, escaped by the one
//! function per language below.

use std::fmt::Write;

use switchyard_core::workflow::{Edge, EdgeKind, EdgeTarget, Step, Workflow};

/// How long an edge's condition may grow in a label before it is cut (with `…`); the tooltip
/// (DOT) keeps it whole.
const CONDITION_CHARACTERS: usize = 60;

/// The workflow as a Mermaid `flowchart TD`: gates as hexagons, end steps as stadiums, the run's
/// completion as a circle, loop edges dotted and replan edges thick, each edge labelled with its
/// label and condition; gates, end steps and the entry styled by class.
pub fn to_mermaid(workflow: &Workflow) -> String {
    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(text, "flowchart TD");
    let _ = writeln!(text, "    %% {} {}: {}", one_line(&workflow.id), one_line(&workflow.version), workflow.hash());
    for (index, step) in workflow.steps.iter().enumerate() {
        let label = mermaid_text(&step_label(step), "<br/>");
        let (open, close) = match (step.gate, step.is_end()) {
            (true, _) => ("{{", "}}"),
            (false, true) => ("([", "])"),
            (false, false) => ("[", "]"),
        };
        let _ = writeln!(text, "    s{index}{open}\"{label}\"{close}");
    }
    if completes(workflow) {
        let _ = writeln!(text, "    done((\"complete\"))");
    }
    for (from, step) in workflow.steps.iter().enumerate() {
        for edge in &step.edges {
            let Some(to) = target_name(workflow, edge) else { continue };
            let arrow = match edge.kind {
                EdgeKind::Normal => "-->",
                EdgeKind::Loop => "-.->",
                EdgeKind::Replan => "==>",
            };
            let label = mermaid_text(&edge_label(edge), "<br/>");
            let _ = writeln!(text, "    s{from} {arrow}|\"{label}\"| {to}");
        }
    }
    let _ = writeln!(text, "    classDef gate fill:#fff8c5,stroke:#9a6700,stroke-width:2px");
    let _ = writeln!(text, "    classDef endStep stroke-width:3px");
    let _ = writeln!(text, "    classDef entry stroke:#1a7f37,stroke-width:2px");
    let _ = writeln!(text, "    classDef complete fill:#dafbe1,stroke:#1a7f37");
    let named = |keep: &dyn Fn(&Step) -> bool| -> Vec<String> {
        workflow.steps.iter().enumerate().filter(|(_, step)| keep(step)).map(|(index, _)| format!("s{index}")).collect()
    };
    for (class, members) in [
        ("gate", named(&|step: &Step| step.gate)),
        ("endStep", named(&|step: &Step| step.is_end())),
        ("entry", named(&|step: &Step| step.id == workflow.entry)),
    ] {
        if !members.is_empty() {
            let _ = writeln!(text, "    class {} {class}", members.join(","));
        }
    }
    if completes(workflow) {
        let _ = writeln!(text, "    class done complete");
    }
    text
}

/// The workflow as a Graphviz `digraph`: gates as hexagons, end steps with a double outline, the
/// run's completion as a double circle, loop edges dashed and replan edges dotted, each edge
/// labelled with its label and condition and its whole condition as a tooltip.
pub fn to_dot(workflow: &Workflow) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "digraph {} {{", dot_string(&workflow.id));
    let _ = writeln!(
        text,
        "    graph [rankdir=TB, labelloc=t, fontname=\"Helvetica\", label={}];",
        dot_string(&format!("{} {} ({})", workflow.id, workflow.version, workflow.title))
    );
    let _ = writeln!(
        text,
        "    node [shape=box, style=\"rounded,filled\", fillcolor=\"#ffffff\", color=\"#57606a\", fontname=\"Helvetica\"];"
    );
    let _ = writeln!(text, "    edge [color=\"#57606a\", fontname=\"Helvetica\", fontsize=10];");
    for (index, step) in workflow.steps.iter().enumerate() {
        let mut attributes = vec![format!("label={}", dot_string(&step_label(step)))];
        if step.gate {
            attributes.push("shape=hexagon, style=filled, fillcolor=\"#fff8c5\", color=\"#9a6700\"".to_owned());
        }
        if step.is_end() {
            attributes.push("peripheries=2".to_owned());
        }
        if step.id == workflow.entry {
            attributes.push("penwidth=2, color=\"#1a7f37\"".to_owned());
        }
        let _ = writeln!(text, "    s{index} [{}];", attributes.join(", "));
    }
    if completes(workflow) {
        let _ = writeln!(
            text,
            "    done [label=\"complete\", shape=doublecircle, style=filled, fillcolor=\"#dafbe1\", color=\"#1a7f37\"];"
        );
    }
    for (from, step) in workflow.steps.iter().enumerate() {
        for edge in &step.edges {
            let Some(to) = target_name(workflow, edge) else { continue };
            let mut attributes = vec![format!("label={}", dot_string(&edge_label(edge)))];
            if let Some(condition) = &edge.condition {
                attributes.push(format!("tooltip={}", dot_string(condition)));
            }
            match edge.kind {
                EdgeKind::Normal => {}
                EdgeKind::Loop => attributes.push("style=dashed, color=\"#0969da\"".to_owned()),
                EdgeKind::Replan => attributes.push("style=dotted, penwidth=2, color=\"#bc4c00\"".to_owned()),
            }
            let _ = writeln!(text, "    s{from} -> {to} [{}];", attributes.join(", "));
        }
    }
    let _ = writeln!(text, "}}");
    text
}

/// A step's label: its id, and its title below when it says more.
fn step_label(step: &Step) -> String {
    if step.title.trim().is_empty() || step.title == step.id.as_str() {
        step.id.to_string()
    } else {
        format!("{}\n{}", step.id, step.title)
    }
}

/// An edge's label: its label (marked when it is the default), with its condition below (in
/// words when it has them).
fn edge_label(edge: &Edge) -> String {
    let condition = edge.condition_text.as_deref().or(edge.condition.as_deref());
    let mut label = edge.label.clone();
    if edge.default {
        label.push_str(" (default)");
    }
    if let Some(condition) = condition {
        let mut short: String = condition.chars().take(CONDITION_CHARACTERS).collect();
        if condition.chars().count() > CONDITION_CHARACTERS {
            short.pop();
            short.push('…');
        }
        label.push_str(&format!("\nif {short}"));
    }
    label
}

fn completes(workflow: &Workflow) -> bool {
    workflow.steps.iter().flat_map(|step| &step.edges).any(|edge| edge.target == EdgeTarget::Complete)
}

/// The node name an edge leads to; `None` for a step the workflow lacks (the compiler refuses
/// those, so only a hand-built IR has one).
fn target_name(workflow: &Workflow, edge: &Edge) -> Option<String> {
    match &edge.target {
        EdgeTarget::Complete => Some("done".to_owned()),
        EdgeTarget::Step(target) => {
            workflow.steps.iter().position(|step| &step.id == target).map(|index| format!("s{index}"))
        }
    }
}

/// Text for inside a Mermaid quoted label: every character Mermaid could read as syntax (the
/// quote, the entity mark `#`, HTML's `<`, `>` and `&`, the edge label's `|`, markdown's
/// backtick, comment's `%`, the shapes' brackets and braces) as a Mermaid entity code (`#35;`),
/// line breaks as `line_break`, other control characters as spaces.
fn mermaid_text(text: &str, line_break: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '\n' => escaped.push_str(line_break),
            '"' => escaped.push_str("#quot;"),
            '#' | '<' | '>' | '&' | '|' | '`' | '%' | '[' | ']' | '{' | '}' => {
                let _ = write!(escaped, "#{};", u32::from(character));
            }
            control if control.is_control() => escaped.push(' '),
            other => escaped.push(other),
        }
    }
    escaped
}

/// A DOT double-quoted string: quotes and backslashes escaped (so none of DOT's `\N`, `\G`, `\l`
/// escapes can arise), line breaks as `\n`, other control characters as spaces.
fn dot_string(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for character in text.chars() {
        match character {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            control if control.is_control() => quoted.push(' '),
            other => quoted.push(other),
        }
    }
    quoted.push('"');
    quoted
}

/// `text` on one line, for a Mermaid comment.
fn one_line(text: &str) -> String {
    text.chars().map(|character| if character.is_control() { ' ' } else { character }).collect()
}
