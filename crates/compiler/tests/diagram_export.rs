//! Mermaid and DOT export: golden files for the built-ins, a WorkRail corpus workflow and a BMad
//! Method one, each accepted by Graphviz's `dot`; and any step id, title, label or condition
//! (arbitrary Unicode, quotes, brackets, backslashes, line breaks) comes back whole from a
//! parse of the output.

use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

use proptest::prelude::*;

use switchyard_compiler::{
    Bundle, Source, builtins, compile, compile_bundle, compile_with, routines_from, to_dot, to_mermaid,
};
use switchyard_core::workflow::{EdgeTarget, StepId, Workflow};
use switchyard_test_support::{corpora, text_files};

fn builtin(name: &str) -> Workflow {
    let builtin = builtins().find(|builtin| builtin.name == name).unwrap();
    compile(&builtin.source).workflow.unwrap()
}

fn workrail(name: &str) -> Workflow {
    let folder = corpora().join("workrail/workflows");
    let routine_texts: Vec<String> = std::fs::read_dir(folder.join("routines"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "json"))
        .map(|path| std::fs::read_to_string(path).unwrap())
        .collect();
    let routines = routines_from(routine_texts.iter().map(String::as_str));
    let text = std::fs::read_to_string(folder.join(name)).unwrap();
    compile_with(&Source::new(name, text), &routines).workflow.unwrap()
}

fn method(relative: &str) -> Workflow {
    let folder = corpora().join("bmad").join(relative);
    let bundle = Bundle { name: relative.to_owned(), files: text_files(&folder) };
    let mut compiled = compile_bundle(&bundle);
    compiled.remove(0).compiled.workflow.unwrap()
}

/// Graphviz's own verdict on `dot` text: it must lay it out as SVG without an error.
fn graphviz_accepts(dot: &str) -> Result<(), String> {
    let mut child = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| {
            format!("cannot run Graphviz's `dot` ({error}): install it (`apt-get install graphviz`; `cargo xtask test` does)")
        })?;
    child.stdin.take().unwrap().write_all(dot.as_bytes()).map_err(|error| error.to_string())?;
    let output = child.wait_with_output().map_err(|error| error.to_string())?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("dot refused:\n{}\n{dot}", String::from_utf8_lossy(&output.stderr)))
    }
}

#[test]
fn built_in_corpus_and_method_workflows_export_to_golden_mermaid_and_dot_that_graphviz_draws() {
    let workflows = [
        ("dev-cycle", builtin("dev-cycle")),
        ("bug-investigation", builtin("bug-investigation")),
        ("code-review", builtin("code-review")),
        ("workrail-bug-investigation", workrail("bug-investigation.agentic.v2.json")),
        ("bmad-quick-dev", method("6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev")),
    ];
    for (name, workflow) in &workflows {
        let mermaid = to_mermaid(workflow);
        let dot = to_dot(workflow);
        insta::assert_snapshot!(format!("mermaid_{name}"), mermaid);
        insta::assert_snapshot!(format!("dot_{name}"), dot);
        graphviz_accepts(&dot).unwrap();
        let parsed = parse_dot(&dot).unwrap_or_else(|error| panic!("{name}: {error}\n{dot}"));
        let edges: usize = workflow.steps.iter().map(|step| step.edges.len()).sum();
        assert_eq!(parsed.edges.len(), edges, "{name}");
    }
    let dev_cycle = to_mermaid(&workflows[0].1);
    assert!(dev_cycle.starts_with("flowchart TD\n"));
    assert!(dev_cycle.contains("-.->|\"loop"), "loop edges are dotted: {dev_cycle}");
    assert!(dev_cycle.contains("s0{{\"plan"), "gates are hexagons: {dev_cycle}");
}

#[test]
fn labels_with_quotes_newlines_angle_brackets_and_square_brackets_are_escaped() {
    let mut workflow = builtin("dev-cycle");
    workflow.steps[0].title = "Say \"hi\"\nthen <b>go</b> [now] | {x} #1 `tick` 100% a\\nb".into();
    workflow.steps[0].edges[0].condition_text = Some("score > 3 && name == \"]\"".into());
    let mermaid = to_mermaid(&workflow);
    let first = mermaid.lines().find(|line| line.trim_start().starts_with("s0")).unwrap();
    assert_eq!(
        first.trim(),
        "s0{{\"plan<br/>Say #quot;hi#quot;<br/>then #60;b#62;go#60;/b#62; #91;now#93; #124; #123;x#125; #35;1 #96;tick#96; 100#37; a\\nb\"}}"
    );
    let edge = mermaid.lines().find(|line| line.contains("s0 -->")).unwrap();
    assert_eq!(edge.trim(), "s0 -->|\"implement (default)<br/>if score #62; 3 #38;#38; name == #quot;#93;#quot;\"| s1");
    let dot = to_dot(&workflow);
    assert!(dot.contains(r#"label="plan\nSay \"hi\"\nthen <b>go</b> [now] | {x} #1 `tick` 100% a\\nb""#), "{dot}");
    graphviz_accepts(&dot).unwrap();
}

/// A step id, title or label: anything printable, with a good share of the characters each
/// language gives a meaning to.
fn any_text() -> impl Strategy<Value = String> {
    let special = prop::sample::select(vec![
        "\"", "\\", "\n", "\r\n", "<", ">", "&", "[", "]", "{", "}", "(", ")", "|", "#", ";", "%%", "`", "-->", "->",
        "end", "node", "é", "日本", "🚂", "\u{202e}", "\\n", "\\\"", "#quot;", "&amp;",
    ]);
    prop::collection::vec(prop_oneof![2 => "\\PC{0,6}", 1 => special.prop_map(str::to_owned)], 0..6)
        .prop_map(|pieces| pieces.concat())
}

/// dev-cycle with every id, title, label and condition replaced: ids stay unique (a suffix).
fn hostile_workflow() -> impl Strategy<Value = Workflow> {
    (prop::collection::vec(any_text(), 3), prop::collection::vec(any_text(), 3), prop::collection::vec(any_text(), 4))
        .prop_map(|(ids, titles, labels)| {
            let mut workflow = builtin("dev-cycle");
            let renamed: BTreeMap<StepId, StepId> = workflow
                .steps
                .iter()
                .zip(&ids)
                .enumerate()
                .map(|(index, (step, id))| (step.id.clone(), StepId::new(format!("{id}{index}"))))
                .collect();
            workflow.entry = renamed[&workflow.entry].clone();
            let mut label = labels.iter().cycle();
            for (step, title) in workflow.steps.iter_mut().zip(&titles) {
                step.id = renamed[&step.id].clone();
                step.title = title.clone();
                for edge in &mut step.edges {
                    if let EdgeTarget::Step(target) = &mut edge.target {
                        *target = renamed[target].clone();
                    }
                    edge.label = label.next().unwrap().clone();
                    edge.condition_text = Some(label.next().unwrap().clone());
                }
            }
            workflow
        })
}

/// What a label shows once the writer has put it on lines: control characters other than the
/// line break become spaces.
fn shown(text: &str) -> String {
    text.chars().map(|character| if character.is_control() && character != '\n' { ' ' } else { character }).collect()
}

fn step_label(workflow: &Workflow, index: usize) -> String {
    let step = &workflow.steps[index];
    if step.title.trim().is_empty() || step.title == step.id.as_str() {
        shown(step.id.as_str())
    } else {
        shown(&format!("{}\n{}", step.id, step.title))
    }
}

proptest! {
    #[test]
    fn any_names_give_dot_that_parses_back_to_the_same_labels(workflow in hostile_workflow()) {
        let dot = to_dot(&workflow);
        let parsed = parse_dot(&dot).map_err(|error| TestCaseError::fail(format!("{error}\n{dot}")))?;
        for index in 0..workflow.steps.len() {
            prop_assert_eq!(&parsed.labels[&format!("s{index}")], &step_label(&workflow, index));
        }
        let edges: Vec<_> = workflow.steps.iter().flat_map(|step| &step.edges).collect();
        prop_assert_eq!(parsed.edges.len(), edges.len());
        for (edge, (_, _, label)) in edges.iter().zip(&parsed.edges) {
            let default = if edge.default { " (default)" } else { "" };
            prop_assert!(label.starts_with(&format!("{}{default}\nif ", shown(&edge.label))), "{label:?}");
        }
    }

    #[test]
    fn any_names_give_mermaid_whose_labels_decode_back_and_never_close_early(workflow in hostile_workflow()) {
        let mermaid = to_mermaid(&workflow);
        for (index, line) in mermaid.lines().enumerate().skip(1) {
            let line = line.trim();
            if line.starts_with("%%") {
                continue;
            }
            // One quoted label per line at most, and nothing inside it that ends it.
            let quotes = line.matches('"').count();
            prop_assert!(quotes == 0 || quotes == 2, "line {index}: {line}");
            if quotes == 2 {
                let inside = line[line.find('"').unwrap() + 1..line.rfind('"').unwrap()].replace("<br/>", "");
                for forbidden in ['|', '[', ']', '{', '}', '<', '>', '`', '%'] {
                    prop_assert!(!inside.contains(forbidden), "{forbidden} in {inside}");
                }
            }
        }
        for index in 0..workflow.steps.len() {
            let line = mermaid.lines().find(|line| line.trim_start().starts_with(&format!("s{index}{{{{")) || line.trim_start().starts_with(&format!("s{index}[")) || line.trim_start().starts_with(&format!("s{index}(["))).unwrap();
            let inside = &line[line.find('"').unwrap() + 1..line.rfind('"').unwrap()];
            prop_assert_eq!(decode_mermaid(inside), step_label(&workflow, index));
        }
    }
}

#[test]
fn graphviz_draws_dot_written_for_hostile_names() {
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig { cases: 24, ..ProptestConfig::default() });
    runner
        .run(&hostile_workflow(), |workflow| {
            graphviz_accepts(&to_dot(&workflow)).map_err(TestCaseError::fail)?;
            Ok(())
        })
        .unwrap();
}

/// A Mermaid label's text: entity codes and `<br/>` decoded.
fn decode_mermaid(label: &str) -> String {
    let label = label.replace("<br/>", "\n");
    let mut decoded = String::new();
    let mut rest = label.as_str();
    while let Some(start) = rest.find('#') {
        decoded.push_str(&rest[..start]);
        let end = rest[start..].find(';').map(|end| start + end).expect("an entity code ends with `;`");
        let code = &rest[start + 1..end];
        let character = match code {
            "quot" => '"',
            number => char::from_u32(number.parse().expect("a decimal entity code")).unwrap(),
        };
        decoded.push(character);
        rest = &rest[end + 1..];
    }
    decoded.push_str(rest);
    decoded
}

/// What the DOT checker read: each node's label and each edge's ends and label.
#[derive(Debug)]
struct ParsedDot {
    labels: BTreeMap<String, String>,
    edges: Vec<(String, String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Name(String),
    Quoted(String),
    Symbol(&'static str),
}

/// Reads the DOT the writer produces: `digraph NAME { statement* }`, each statement an attribute
/// list for `graph`, `node` or `edge`, a node, or an edge, with attributes `key=value`. Quoted
/// strings are unescaped as Graphviz does (`\"`, `\\`, `\n`); anything else is an error.
fn parse_dot(text: &str) -> Result<ParsedDot, String> {
    let tokens = tokenize(text)?;
    let mut at = 0;
    let mut next = || {
        let token = tokens.get(at).cloned();
        at += 1;
        token
    };
    let expect = |token: Option<Token>, wanted: Token| {
        if token.as_ref() == Some(&wanted) { Ok(()) } else { Err(format!("expected {wanted:?}, found {token:?}")) }
    };
    expect(next(), Token::Name("digraph".into()))?;
    match next() {
        Some(Token::Name(_) | Token::Quoted(_)) => {}
        other => return Err(format!("expected the graph's name, found {other:?}")),
    }
    expect(next(), Token::Symbol("{"))?;
    let mut parsed = ParsedDot { labels: BTreeMap::new(), edges: Vec::new() };
    loop {
        let first = match next() {
            Some(Token::Symbol("}")) => break,
            Some(Token::Name(name)) => name,
            other => return Err(format!("expected a statement, found {other:?}")),
        };
        let mut token = next();
        let mut target = None;
        if token == Some(Token::Symbol("->")) {
            match next() {
                Some(Token::Name(name)) => target = Some(name),
                other => return Err(format!("expected an edge's target, found {other:?}")),
            }
            token = next();
        }
        expect(token, Token::Symbol("["))?;
        let mut attributes = BTreeMap::new();
        loop {
            let key = match next() {
                Some(Token::Name(key)) => key,
                other => return Err(format!("expected an attribute, found {other:?}")),
            };
            expect(next(), Token::Symbol("="))?;
            let value = match next() {
                Some(Token::Name(value) | Token::Quoted(value)) => value,
                other => return Err(format!("expected a value, found {other:?}")),
            };
            attributes.insert(key, value);
            match next() {
                Some(Token::Symbol(",")) => {}
                Some(Token::Symbol("]")) => break,
                other => return Err(format!("expected `,` or `]`, found {other:?}")),
            }
        }
        expect(next(), Token::Symbol(";"))?;
        let label = attributes.get("label").cloned().unwrap_or_default();
        match target {
            Some(target) => parsed.edges.push((first, target, label)),
            None if ["graph", "node", "edge"].contains(&first.as_str()) => {}
            None => {
                parsed.labels.insert(first, label);
            }
        }
    }
    if next().is_some() {
        return Err("text after the graph's closing brace".into());
    }
    Ok(parsed)
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut characters = text.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            ' ' | '\n' | '\t' => {}
            '{' => tokens.push(Token::Symbol("{")),
            '}' => tokens.push(Token::Symbol("}")),
            '[' => tokens.push(Token::Symbol("[")),
            ']' => tokens.push(Token::Symbol("]")),
            '=' => tokens.push(Token::Symbol("=")),
            ',' => tokens.push(Token::Symbol(",")),
            ';' => tokens.push(Token::Symbol(";")),
            '-' if characters.peek() == Some(&'>') => {
                characters.next();
                tokens.push(Token::Symbol("->"));
            }
            '"' => {
                let mut value = String::new();
                loop {
                    match characters.next() {
                        None => return Err("a quoted string never ends".into()),
                        Some('"') => break,
                        Some('\\') => match characters.next() {
                            Some('"') => value.push('"'),
                            Some('\\') => value.push('\\'),
                            Some('n') => value.push('\n'),
                            other => return Err(format!("an escape Graphviz would read otherwise: \\{other:?}")),
                        },
                        Some('\n') => return Err("a raw line break inside a quoted string".into()),
                        Some(other) => value.push(other),
                    }
                }
                tokens.push(Token::Quoted(value));
            }
            first if first.is_ascii_alphanumeric() || first == '_' || first == '.' => {
                let mut name = first.to_string();
                while let Some(next) = characters
                    .peek()
                    .copied()
                    .filter(|next| next.is_ascii_alphanumeric() || *next == '_' || *next == '.')
                {
                    name.push(next);
                    characters.next();
                }
                tokens.push(Token::Name(name));
            }
            other => return Err(format!("unexpected character {other:?}")),
        }
    }
    Ok(tokens)
}

#[test]
fn the_dot_checker_refuses_what_graphviz_would_misread() {
    assert!(parse_dot("digraph g { s0 [label=\"a\\lb\"]; }").is_err(), "\\l is a Graphviz escape");
    assert!(parse_dot("digraph g { s0 [label=\"a\"b\"]; }").is_err(), "an unescaped quote ends the string");
    assert!(parse_dot("digraph g { s0 [label=\"a\nb\"]; }").is_err());
    let parsed = parse_dot("digraph g { s0 [label=\"a\\\"b\\\\c\\nd\"]; s0 -> s1 [label=\"x\"]; }").unwrap();
    assert_eq!(parsed.labels["s0"], "a\"b\\c\nd");
    assert_eq!(parsed.edges, [("s0".to_owned(), "s1".to_owned(), "x".to_owned())]);
}
