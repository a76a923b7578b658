//! `switchyard inspect --format text|json|mermaid|dot|source` through the binary: each format
//! writes what the runtime's writers give, `--format json` is `--json`, a broken workflow fails
//! the same way in every format, and `--builtin … --format source` vendors a built-in again.

mod support;

use std::io::Write;
use std::process::{Command, Stdio};

use switchyard_catalog::{Catalog, to_dot, to_mermaid};

use support::Sandbox;

fn dev_cycle(sandbox: &Sandbox) -> switchyard_core::Workflow {
    let found = Catalog::new(None, sandbox.home.path()).find("dev-cycle").unwrap();
    found.compiled.workflow.unwrap()
}

#[test]
fn mermaid_and_dot_write_the_workflow_graph_for_a_readme() {
    let sandbox = Sandbox::new();
    let workflow = dev_cycle(&sandbox);

    let mermaid = sandbox.run_text(&["inspect", "dev-cycle", "--format", "mermaid"]);
    assert_eq!(mermaid.code, 0, "{}", mermaid.stderr);
    assert_eq!(mermaid.stdout, to_mermaid(&workflow));
    assert!(mermaid.stdout.starts_with("flowchart TD\n"));
    assert!(mermaid.stdout.contains("s0{{\"plan\"}}"), "the gate is a hexagon:\n{}", mermaid.stdout);

    let dot = sandbox.run_text(&["inspect", "dev-cycle", "--format", "dot"]);
    assert_eq!(dot.code, 0, "{}", dot.stderr);
    assert_eq!(dot.stdout, to_dot(&workflow));
    let mut graphviz = Command::new("dot")
        .arg("-Tsvg")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("Graphviz's `dot` runs (apt-get install graphviz; `cargo xtask test` does)");
    graphviz.stdin.take().unwrap().write_all(dot.stdout.as_bytes()).unwrap();
    let drawn = graphviz.wait_with_output().unwrap();
    assert!(drawn.status.success());
    assert!(String::from_utf8(drawn.stdout).unwrap().contains("<svg"));
}

#[test]
fn format_json_is_the_json_flag_and_format_text_the_default() {
    let sandbox = Sandbox::new();
    let flag = sandbox.run(&["inspect", "code-review"]);
    let format = sandbox.run_text(&["inspect", "code-review", "--format", "json"]);
    assert_eq!(flag.code, 0);
    assert_eq!(format.code, 0);
    assert_eq!(format.stdout, flag.stdout);
    let plain = sandbox.run_text(&["inspect", "code-review"]);
    let text = sandbox.run_text(&["inspect", "code-review", "--format", "text"]);
    assert_eq!(text.stdout, plain.stdout);
    assert!(text.stdout.contains("steps"), "{}", text.stdout);
}

#[test]
fn json_flag_with_another_format_is_a_usage_error() {
    let sandbox = Sandbox::new();
    let refused = sandbox.run(&["inspect", "dev-cycle", "--format", "mermaid"]);
    let error = refused.expect(2);
    assert_eq!(error["error"]["code"], "USAGE", "{error}");
    assert!(error["error"]["message"].as_str().unwrap().contains("--format asks for mermaid"), "{error}");
    assert!(sandbox.run(&["inspect", "dev-cycle", "--format", "json"]).code == 0);
}

#[test]
fn a_broken_workflow_fails_alike_in_every_format() {
    let sandbox = Sandbox::new();
    let broken = sandbox.write_workflow(
        "broken.yaml",
        "id: broken\ntitle: Broken\nsteps:\n  - id: a\n    title: A\n    prompt: p\n    next: nowhere\n",
    );
    let broken = broken.display().to_string();
    let text = sandbox.run_text(&["inspect", "--file", &broken]);
    assert_ne!(text.code, 0);
    for format in ["mermaid", "dot"] {
        let ran = sandbox.run_text(&["inspect", "--file", &broken, "--format", format]);
        assert_eq!(
            (ran.code, ran.stdout.as_str(), ran.stderr.as_str()),
            (text.code, "", text.stderr.as_str()),
            "{format}"
        );
    }
}

#[test]
fn the_readme_example_in_the_workflow_format_docs_is_what_inspect_writes() {
    const DOCS: &str = include_str!("../../../docs/workflow-format.md");
    let section = DOCS.split("## Drawing a workflow").nth(1).unwrap();
    let block = section.split("```mermaid\n").nth(1).unwrap().split("\n```").next().unwrap();
    let sandbox = Sandbox::new();
    let written = sandbox.run_text(&["inspect", "code-review", "--format", "mermaid"]);
    assert_eq!(written.code, 0, "{}", written.stderr);
    let lines: Vec<&str> = written.stdout.lines().collect();
    for line in block.lines() {
        assert!(lines.contains(&line), "the docs show a line inspect does not write: {line:?}\n{}", written.stdout);
    }
}

#[test]
fn inspect_says_the_limits_a_run_would_get_and_which_come_from_the_configuration() {
    let sandbox = Sandbox::new();
    std::fs::write(sandbox.home.path().join("switchyard.toml"), "[execution]\nmax_revision_attempts = 5\n").unwrap();
    let text = sandbox.run_text(&["inspect", "dev-cycle"]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains(
            "limits: max_cycles 10 · max_revision_attempts 5 ([execution]) · max_replan_attempts 2 ([execution])"
        ),
        "{}",
        text.stdout
    );
    let json = sandbox.run(&["inspect", "dev-cycle", "--json"]).ok();
    assert_eq!(json["run_limits"]["max_revision_attempts"], 5, "{json:#}");
    assert_eq!(json["workflow"]["limits"]["max_revision_attempts"], 3, "the workflow itself is unchanged: {json:#}");

    // A workflow's own limit wins, and is not marked.
    let own = sandbox.write_workflow(
        "own-limits.yaml",
        "id: own-limits\ntitle: Own limits\nsteps:\n  - id: only\n    prompt: Do it.\n    next:\n      - {end: true}\nlimits:\n  max_revision_attempts: 1\n",
    );
    let text = sandbox.run_text(&["inspect", "--file", own.to_str().unwrap()]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains("max_revision_attempts 1 · max_replan_attempts 2 ([execution])"), "{}", text.stdout);
}

#[test]
fn a_stale_vendored_builtin_is_vendored_again_with_the_command_validate_names() {
    let sandbox = Sandbox::new();
    let root = sandbox.project.path();
    let vendored = root.join(".switchyard/workflows/code-review.yaml");
    std::fs::create_dir_all(vendored.parent().unwrap()).unwrap();
    let builtin = switchyard_compiler::builtins().find(|builtin| builtin.name == "code-review").unwrap();
    std::fs::write(&vendored, builtin.source.text.replace("title:", "title: (old)")).unwrap();
    let stale = sandbox.run(&["validate", "--strict"]).expect(1);
    let divergent = stale["violations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|violation| violation["code"] == "builtin-divergent")
        .unwrap();
    let help = divergent["help"].as_str().unwrap();
    let command = "switchyard inspect --builtin code-review --format source > .switchyard/workflows/code-review.yaml";
    assert!(help.contains(command), "{help}");
    // The project's copy shadows the built-in by name; --builtin reaches the embedded one, byte for byte.
    let source = sandbox.run_text(&["inspect", "--builtin", "code-review", "--format", "source"]);
    assert_eq!(source.code, 0, "{}", source.stderr);
    assert_eq!(source.stdout, builtin.source.text);
    let shadowing = sandbox.run_text(&["inspect", "code-review", "--format", "source"]);
    assert_ne!(shadowing.stdout, builtin.source.text, "the name finds the project's copy");
    std::fs::write(&vendored, &source.stdout).unwrap();
    let fresh = sandbox.run(&["validate", "--strict"]).expect(0);
    assert_eq!(fresh["errors"], 0, "{fresh:#}");
    let unknown = sandbox.run_text(&["inspect", "--builtin", "code-reviews", "--format", "source"]);
    assert_ne!(unknown.code, 0);
    assert!(unknown.stderr.contains("code-review"), "the built-ins are named: {}", unknown.stderr);
}
