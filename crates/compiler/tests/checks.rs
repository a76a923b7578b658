//! One test per check: a small source and the diagnostics it must yield (`line:column code`).

use switchyard_compiler::{Compiled, Format, Source, compile};
use switchyard_core::workflow::{EdgeKind, EdgeTarget, Layer, NotesPolicy, StepId, ValueType};

fn compile_text(text: &str) -> Compiled {
    compile(&Source::new("test.yaml", text))
}

/// Compiles `text` and compares its diagnostics, one `line:column severity[code]` per entry.
fn check(text: &str, expected: &[&str]) -> Compiled {
    let compiled = compile_text(text);
    let actual: Vec<String> = compiled
        .diagnostics
        .iter()
        .map(|d| format!("{}:{} {}[{}]", d.line, d.column, d.severity.name(), d.code))
        .collect();
    let all: Vec<String> = compiled.diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(actual, expected, "\n{}", all.join("\n"));
    assert_eq!(compiled.workflow.is_some(), compiled.errors().next().is_none());
    compiled
}

fn help_of(compiled: &Compiled, code: &str) -> String {
    compiled.diagnostics.iter().find(|d| d.code == code).and_then(|d| d.help.clone()).unwrap_or_default()
}

const MINIMAL: &str = "id: demo\nsteps:\n  - id: only\n    prompt: Do it for {{ goal }}.\n";

#[test]
fn minimal_native_workflow_compiles_with_defaults() {
    let compiled = check(MINIMAL, &[]);
    assert_eq!(compiled.format, Format::Native);
    let workflow = compiled.workflow.unwrap();
    assert_eq!((workflow.version.as_str(), workflow.title.as_str()), ("1", "demo"));
    assert_eq!(workflow.entry, StepId::new("only"));
    let step = &workflow.steps[0];
    assert_eq!((step.notes, step.max_attempts, step.gate), (NotesPolicy::Required, 3, false));
    assert!(step.is_end());
    assert_eq!(workflow.limits, Default::default());
}

#[test]
fn full_native_workflow_maps_every_field_to_the_ir() {
    let text = r#"
id: full
version: 2.0
title: Full
description: All fields.
variables:
  score: {type: number, default: 0.5, layer: useful, description: How good.}
  tags: array
limits: {max_cycles: 4, max_revision_attempts: 1, max_replan_attempts: 0}
start: b
steps:
  - id: a
    title: A
    prompt: "{{ score }} {{ tags }}"
    role: planner
    model: m1
    notes: optional
    output: {type: object}
    gate: true
    context_reset: true
    phase: one
    max_attempts: 5
    next:
      - {to: b, label: again, when: score < 0.8, when_text: not good yet, max_traversals: 2}
      - {end: true, default: true}
  - id: b
    prompt: b
    next: a
"#;
    let workflow = check(text, &[]).workflow.unwrap();
    assert_eq!(workflow.version, "2.0");
    assert_eq!(workflow.entry, StepId::new("b"));
    assert_eq!(workflow.limits.max_cycles, 4);
    assert_eq!(workflow.variables[0].value_type, ValueType::Number);
    assert_eq!(workflow.variables[0].layer, Layer::Useful);
    assert_eq!(workflow.variables[1].value_type, ValueType::Array);
    let a = &workflow.steps[0];
    assert_eq!((a.notes, a.gate, a.context_reset, a.max_attempts), (NotesPolicy::Optional, true, true, 5));
    assert_eq!(a.edges[0].condition.as_deref(), Some("score < 0.8"));
    assert_eq!(a.edges[0].max_traversals, Some(2));
    assert_eq!(a.edges[1].target, EdgeTarget::Complete);
    assert_eq!(a.edges[1].label, "complete");
    assert_eq!(workflow.steps[1].edges[0].label, "a");
    assert!(workflow.steps[1].edges[0].default);
}

#[test]
fn unknown_fields_are_reported_everywhere_with_suggestions() {
    let text = "id: demo\ntitel: x\nsteps:\n  - id: a\n    promt: x\n    prompt: y\n    next:\n      - {to: a, lable: x, max_traversals: 1}\nlimits: {max_cycle: 2}\n";
    let compiled = check(
        text,
        &[
            "2:1 error[unknown-field]",
            "4:9 error[no-path-to-end]",
            "5:5 error[unknown-field]",
            "8:17 error[unknown-field]",
            "9:10 error[unknown-field]",
        ],
    );
    let helps: Vec<String> = compiled.diagnostics.iter().filter_map(|d| d.help.clone()).collect();
    assert_eq!(helps[0], "did you mean `title`?");
    assert_eq!(helps[2], "did you mean `prompt`?");
    assert_eq!(helps[3], "did you mean `label`?");
    assert_eq!(helps[4], "did you mean `max_cycles`?");
}

#[test]
fn duplicate_step_ids_are_reported_at_the_second() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next: a2\n  - id: a2\n    prompt: y\n  - id: a\n    prompt: z\n",
        &["8:9 error[duplicate-step]"],
    );
}

#[test]
fn duplicate_variables_and_keys_are_reported() {
    check(
        "id: demo\nvariables:\n  x: string\n  x: integer\nsteps:\n  - id: a\n    prompt: p\n    prompt: q\n",
        &["4:3 error[duplicate-variable]", "8:5 error[duplicate-key]"],
    );
}

#[test]
fn invalid_workflow_step_and_variable_ids_are_reported() {
    check(
        "id: Bad/Id\nvariables:\n  my-var: string\nsteps:\n  - id: -a\n    prompt: x\n",
        &["1:5 error[invalid-id]", "3:3 error[invalid-id]", "5:9 error[invalid-id]"],
    );
}

#[test]
fn unknown_edge_targets_suggest_the_closest_step() {
    let compiled = check(
        "id: demo\nsteps:\n  - id: review\n    prompt: x\n    next: reveiw\n",
        &["3:9 error[no-path-to-end]", "5:11 error[unknown-target]"],
    );
    assert_eq!(help_of(&compiled, "unknown-target"), "did you mean `review`?");
}

#[test]
fn unknown_start_is_reported() {
    check("id: demo\nstart: begin\nsteps:\n  - id: begun\n    prompt: x\n", &["2:8 error[unknown-target]"]);
}

#[test]
fn unreachable_steps_are_reported() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n  - id: orphan\n    prompt: y\n",
        &["5:9 error[unreachable-step]"],
    );
}

#[test]
fn steps_that_cannot_reach_an_end_are_reported() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {to: b, default: true}\n      - {to: c}\n  - id: b\n    prompt: y\n    next: {to: b}\n  - id: c\n    prompt: z\n",
        &["7:9 warning[edge-after-default]", "10:11 error[invalid-type]"],
    );
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {to: b, max_traversals: 2}\n  - id: b\n    prompt: y\n    next:\n      - {to: a, max_traversals: 2}\n",
        &["3:9 error[no-path-to-end]", "7:9 error[no-path-to-end]"],
    );
}

#[test]
fn unbounded_cycles_name_their_steps_and_bounded_ones_pass() {
    let compiled = check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next: b\n  - id: b\n    prompt: y\n    next:\n      - a\n      - {end: true}\n",
        &["3:9 error[unbounded-cycle]"],
    );
    assert!(compiled.diagnostics[0].message.contains("`a` → `b`"), "{}", compiled.diagnostics[0].message);
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next: a\n",
        &["3:9 error[no-path-to-end]", "3:9 error[unbounded-cycle]"],
    );
    for bound in ["max_traversals: 2", "kind: loop", "kind: replan"] {
        let text = format!(
            "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next: b\n  - id: b\n    prompt: y\n    next:\n      - {{to: a, {bound}}}\n      - {{end: true}}\n"
        );
        check(&text, &[]);
    }
}

#[test]
fn several_default_edges_and_duplicate_labels_are_reported() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {end: true, default: true}\n      - {end: true, label: complete, default: true}\n",
        &["7:9 error[multiple-defaults]", "7:28 error[duplicate-label]"],
    );
}

#[test]
fn several_unconditional_edges_without_default_are_a_choice_by_label() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next: [b, c]\n  - id: b\n    prompt: y\n  - id: c\n    prompt: z\n",
        &[],
    );
}

#[test]
fn edges_after_the_default_and_conditional_defaults_are_warnings() {
    let compiled = check(
        "id: demo\nvariables:\n  ok: boolean\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {end: true, default: true, when: ok}\n      - {end: true, label: other}\n",
        &["8:9 warning[conditional-default]", "9:9 warning[edge-after-default]"],
    );
    assert!(compiled.workflow.is_some());
}

#[test]
fn edges_need_exactly_one_target() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {label: x}\n      - {to: a, end: true}\n",
        &["6:9 error[edge-target]", "7:9 error[edge-target]"],
    );
}

#[test]
fn end_steps_cannot_have_next() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    end: true\n    next: b\n  - id: b\n    prompt: y\n",
        &["5:10 error[end-with-next]"],
    );
    check("id: demo\nsteps:\n  - id: a\n    prompt: x\n    end: true\n", &[]);
}

#[test]
fn conditions_must_parse() {
    let compiled = check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {end: true, when: 'context.x >'}\n      - {end: true, label: b, default: true}\n",
        &["6:39 error[condition-syntax]"],
    );
    assert!(compiled.diagnostics[0].message.contains("does not parse"));
}

#[test]
fn conditions_may_only_name_declared_or_reserved_variables() {
    let compiled = check(
        "id: demo\nvariables:\n  score: number\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {end: true, when: 'scor > 1 && context.y && artifacts.z && cycle < 2 && attempt > 0 && goal != \"\"'}\n      - {end: true, label: b, default: true}\n",
        &["8:27 error[condition-unknown-variable]"],
    );
    assert_eq!(help_of(&compiled, "condition-unknown-variable"), "did you mean `score`?");
}

#[test]
fn conditions_compare_declared_variables_only_with_literals_of_their_type() {
    let compiled = check(
        "id: demo\nvariables:\n  count: integer\n  ready: boolean\n  name: string\n  anything: any\nsteps:\n  - id: a\n    prompt: x\n    when: 'ready == \"yes\"'\n    next:\n      - {end: true, when: 'count == \"three\"'}\n      - {end: true, label: b, when: '2.5 < count && name != null && anything == 1 && loose(count, \"==\", \"3\")'}\n      - {end: true, label: c, default: true, set: {name: 'name == 3 ? \"x\" : name'}}\n",
        &[
            "10:11 error[condition-type-mismatch]",
            "12:27 error[condition-type-mismatch]",
            "14:58 error[condition-type-mismatch]",
        ],
    );
    let message = &compiled.diagnostics[1].message;
    assert!(message.contains("`count` (declared `integer`) == a string"), "{message}");
    assert_eq!(
        compiled.diagnostics[1].help.as_deref(),
        Some("compare `count` with a value of type `integer`, or change its declared `type`")
    );
}

#[test]
fn templates_must_parse_and_name_known_variables() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: |\n      line one\n      {{ goal \n",
        &["6:7 error[template-syntax]"],
    );
    let compiled = check(
        "id: demo\nvariables:\n  severity: string\nsteps:\n  - id: a\n    prompt: '{{ severty }} {{ goal }} {{ context.x }} {{ rejection }} {{ cycle }} {{ attempt }} {{ step }} {% for i in range(3) %}{{ i }}{% endfor %}'\n",
        &["6:13 error[template-unknown-variable]"],
    );
    assert_eq!(help_of(&compiled, "template-unknown-variable"), "did you mean `severity`?");
}

#[test]
fn variables_cannot_take_reserved_names() {
    check(
        "id: demo\nvariables:\n  goal: string\nsteps:\n  - id: a\n    prompt: x\n",
        &["3:3 error[reserved-variable]"],
    );
}

#[test]
fn defaults_must_match_their_declared_type() {
    check(
        "id: demo\nvariables:\n  n: {type: integer, default: 1.5}\n  s: {type: string, default: [1]}\n  ok: {type: number, default: 2}\nsteps:\n  - id: a\n    prompt: x\n",
        &["3:31 error[default-type-mismatch]", "4:30 error[default-type-mismatch]"],
    );
}

#[test]
fn output_schemas_must_be_valid_json_schemas() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    output: {type: objekt}\n  - id: b\n    prompt: y\n    output: [1]\n  - id: c\n    prompt: z\n    output: {type: string, pattern: '('}\n",
        &[
            "5:20 error[output-schema-invalid]",
            "6:9 error[unreachable-step]",
            "8:13 error[output-schema-invalid]",
            "9:9 error[unreachable-step]",
            "11:13 error[output-schema-invalid]",
        ],
    );
}

#[test]
fn wrong_types_and_values_are_reported_at_the_value() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    gate: yes\n    notes: sometimes\n    max_attempts: 0\n    next:\n      - {end: true, kind: lop}\n",
        &[
            "5:11 error[invalid-type]",
            "6:12 error[invalid-value]",
            "7:19 error[invalid-value]",
            "9:27 error[invalid-value]",
        ],
    );
}

#[test]
fn missing_required_fields_are_reported() {
    check(
        "steps:\n  - prompt: x\n  - id: b\n",
        &["1:1 error[missing-field]", "2:5 error[missing-field]", "3:5 error[missing-field]"],
    );
    check("id: demo\n", &["1:1 error[no-steps]"]);
}

#[test]
fn an_empty_step_list_is_refused_as_start_refuses_it() {
    let compiled = check("id: demo\nsteps: []\n", &["1:5 error[no-steps]"]);
    assert!(help_of(&compiled, "no-steps").contains("add at least one step"));
    check("{\"id\": \"demo\", \"steps\": []}\n", &["1:8 error[no-steps]"]);
}

#[test]
fn yaml_errors_are_located() {
    check("id: demo\nsteps: [\n", &["2:8 error[yaml-syntax]"]);
    check("id: !secret demo\nsteps: []\n", &["1:13 error[yaml-syntax]"]);
    check("{\"id\": \"demo\",\n \"steps\": [}\n", &["2:12 error[json-syntax]"]);
}

#[test]
fn alias_bombs_hit_the_budget_instead_of_memory() {
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..10 {
        let previous = level - 1;
        text.push_str(&format!(
            "a{level}: &a{level} [*a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}, *a{previous}]\n"
        ));
    }
    let compiled = compile_text(&text);
    assert_eq!(compiled.diagnostics[0].code, "yaml-syntax", "{:?}", compiled.diagnostics);
}

#[test]
fn oversized_sources_are_rejected_before_parsing() {
    let text = format!("id: demo\n#{}\n", "x".repeat(switchyard_core::limits::MAX_WORKFLOW_SOURCE_BYTES));
    check(&text, &["1:1 error[source-too-large]"]);
}

#[test]
fn stages_format_is_detected_and_compiled() {
    let compiled = check(
        "name: mini\nstages:\n  - {name: write, role: writer, model: m}\n  - {name: check, role: checker, model: m, human_gate: true}\n",
        &[],
    );
    assert_eq!(compiled.format, Format::Stages);
    let workflow = compiled.workflow.unwrap();
    assert!(workflow.steps[1].is_end());
    assert!(workflow.steps[1].gate);
    assert!(workflow.steps[0].edges[0].default);
}

#[test]
fn stages_report_unknown_fields_values_and_misplaced_on_complete() {
    let compiled = check(
        "name: mini\nloop_on_change: true\nstages:\n  - {name: a, role: r, model: m, human_gat: true, on_complete: [loop]}\n  - {name: b, role: r, model: m, on_complete: [lop, close]}\n",
        &[
            "2:1 error[unknown-field]",
            "4:34 error[unknown-field]",
            "4:65 warning[on-complete-ignored]",
            "5:48 error[invalid-value]",
        ],
    );
    assert_eq!(help_of(&compiled, "unknown-field"), "did you mean `loop_on_changes`?");
    check(
        "name: mini\nstages:\n  - {name: a, role: r, model: m, on_complete: [loop, close]}\n",
        &["3:48 warning[loop-disabled]"],
    );
}

#[test]
fn stages_check_names_and_ids() {
    check(
        "name: Mini\nstages:\n  - {name: a b, role: r, model: m}\n  - {name: a b, role: r}\n",
        &[
            "1:7 error[invalid-id]",
            "3:12 error[invalid-id]",
            "4:5 error[missing-field]",
            "4:12 error[invalid-id]",
            "4:12 error[duplicate-step]",
        ],
    );
}

#[test]
fn diagnostics_render_with_file_location_code_and_help() {
    let compiled = compile_text("id: demo\nsteps:\n  - id: a\n    promt: x\n    prompt: y\n");
    assert_eq!(
        compiled.diagnostics[0].to_string(),
        "test.yaml:4:5: error[unknown-field]: unknown field `promt` in step `a`\n  help: did you mean `prompt`?"
    );
    let json = serde_json::to_value(&compiled.diagnostics[0]).unwrap();
    assert_eq!(json["severity"], "error");
    assert_eq!(json["line"], 4);
}

#[test]
fn loops_in_native_files_use_edge_kinds() {
    let workflow = check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {to: a, kind: loop, label: again}\n      - {end: true, default: true}\n",
        &[],
    )
    .workflow
    .unwrap();
    assert_eq!(workflow.steps[0].edges[0].kind, EdgeKind::Loop);
}

#[test]
fn an_output_check_condition_past_the_bounds_is_refused_as_start_refuses_it() {
    let nested = format!("{}true{}", "(".repeat(10), ")".repeat(10));
    let text = format!(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    checks:\n      - {{kind: contains, value: x, when: '{nested}'}}\n"
    );
    let compiled = check(&text, &["6:7 error[invalid-value]"]);
    assert!(compiled.diagnostics[0].message.contains("nests brackets"), "{:?}", compiled.diagnostics);
}

#[test]
fn an_output_schema_whose_reference_cannot_be_resolved_is_refused_as_start_refuses_it() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    output: {$ref: '#/$defs/missing'}\n",
        &["5:13 error[output-schema-invalid]"],
    );
}

#[test]
fn status_reports_and_audits_compile_into_step_rules_and_round_trip() {
    use switchyard_core::workflow::StatusReportMode;
    let text = "id: demo\nsteps:\n  - id: work\n    prompt: Work.\n    status_report: true\n    next: review\n  - id: review\n    prompt: Review.\n    audit: true\n    next: ship\n  - id: ship\n    prompt: Ship.\n    status_report: strict\n";
    let workflow = check(text, &[]).workflow.unwrap();
    let rules = |id: &str| workflow.rules(&StepId::new(id)).clone();
    assert_eq!((rules("work").status_report, rules("work").audit), (Some(StatusReportMode::Graduated), false));
    assert_eq!((rules("review").status_report, rules("review").audit), (None, true));
    assert_eq!(rules("ship").status_report, Some(StatusReportMode::Strict));
    let exported = switchyard_compiler::to_native_yaml(&workflow).unwrap();
    assert_eq!(compile_text(&exported).workflow.unwrap().hash(), workflow.hash(), "{exported}");
}

#[test]
fn strict_status_makes_every_reporting_step_strict_and_leaves_the_others_alone() {
    use switchyard_core::workflow::StatusReportMode;
    let text = "id: demo\nstrict_status: true\nsteps:\n  - id: work\n    prompt: Work.\n    status_report: true\n    next: review\n  - id: review\n    prompt: Review.\n    audit: true\n    next: ship\n  - id: ship\n    prompt: Ship.\n";
    let workflow = check(text, &[]).workflow.unwrap();
    assert_eq!(workflow.rules(&StepId::new("work")).status_report, Some(StatusReportMode::Strict));
    assert_eq!(workflow.rules(&StepId::new("review")).status_report, Some(StatusReportMode::Strict));
    assert!(!workflow.rules.contains_key(&StepId::new("ship")), "a step without a report has no rules");
    // Without the new fields, the workflow is what it always was.
    let plain = check(
        &text
            .replace("strict_status: true\n", "")
            .replace("    status_report: true\n", "")
            .replace("    audit: true\n", ""),
        &[],
    );
    assert!(plain.workflow.unwrap().rules.is_empty());
}

#[test]
fn status_report_values_are_checked() {
    let compiled = check(
        "id: demo\nsteps:\n  - id: work\n    prompt: Work.\n    status_report: strcit\n    audit: yes\n",
        &["5:20 error[invalid-value]", "6:12 error[invalid-type]"],
    );
    assert_eq!(help_of(&compiled, "invalid-value"), "did you mean `strict`?");
}

#[test]
fn stages_map_audit_to_an_audit_step() {
    let workflow = check(
        "name: mini\nstages:\n  - {name: write, role: writer, model: m}\n  - {name: check, role: auditor, model: m, audit: true}\n",
        &[],
    )
    .workflow
    .unwrap();
    assert!(workflow.rules(&StepId::new("check")).audit);
    assert!(!workflow.rules.contains_key(&StepId::new("write")));
}

#[test]
fn an_edge_without_one_target_is_judged_by_its_target_alone() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next:\n      - {label: [x], kind: lop, bogus: 1}\n      - {to: [a]}\n",
        &["6:9 error[edge-target]", "6:33 error[unknown-field]", "7:9 error[edge-target]", "7:14 error[invalid-type]"],
    );
}

#[test]
fn a_step_without_an_id_reports_its_key_problems_and_the_missing_id_alone() {
    check(
        "id: demo\nsteps:\n  - id: a\n    prompt: x\n  - prompt: [y]\n    promt: z\n    next: [{to: a, kind: lop}]\n",
        &["5:5 error[missing-field]", "6:5 error[unknown-field]"],
    );
}

#[test]
fn a_step_id_written_as_a_number_is_its_spelling_and_next_follows_it() {
    let workflow =
        check("id: demo\nsteps:\n  - id: a\n    prompt: x\n    next: 1.10\n  - id: 1.10\n    prompt: y\n", &[])
            .workflow
            .unwrap();
    assert_eq!(workflow.steps[1].id, StepId::new("1.10"));
}

#[test]
fn evidence_compiles_into_the_steps_rules_and_keeps_other_workflows_hashes() {
    let plain = compile_text(MINIMAL).workflow.unwrap();
    let text = r#"
id: demo
steps:
  - id: only
    prompt: Do it.
    evidence:
      - {kind: files, paths: ["src/**/*.py"]}
      - {kind: changed, paths: ["src/", "tests/"]}
      - {kind: command, run: ["python3", "-m", "pytest", "-q", "--junitxml=report.xml"], timeout: "5m"}
      - {kind: test_report, path: report.xml, min_tests: 3}
      - {kind: artifact_paths, field: files_changed, changed: true}
"#;
    let workflow = check(text, &[]).workflow.unwrap();
    let evidence = &workflow.rules(&StepId::new("only")).evidence;
    let kinds: Vec<&str> = evidence.iter().map(|check| check.kind()).collect();
    assert_eq!(kinds, ["files", "changed", "command", "test_report", "artifact_paths"]);
    assert!(workflow.needs_snapshot(&StepId::new("only")));
    assert_ne!(workflow.hash(), plain.hash());
    // A workflow without evidence encodes no `evidence` key, so its hash is what it always was.
    assert!(!serde_json::to_string(&plain).unwrap().contains("evidence"));
}

#[test]
fn evidence_the_runtime_could_not_carry_out_is_refused_at_compile_time() {
    let text = r#"
id: demo
steps:
  - id: only
    prompt: Do it.
    evidence:
      - {kind: test_report, path: report.xml}
      - {kind: files, paths: ["/etc/passwd", "../x", "src/[z-a]"]}
      - {kind: files, paths: []}
      - {kind: command, run: "make test"}
      - {kind: command, run: ["make"], shell: true}
      - {kind: command, run: [], timeout: "soon"}
      - {kind: changed, paths: ["../elsewhere"]}
      - {kind: artifact_paths, field: ""}
"#;
    let compiled = check(text, &["7:7 error[evidence-invalid]"; 11]);
    let messages: Vec<&str> = compiled.diagnostics.iter().map(|d| d.message.as_str()).collect();
    let expected = [
        "evidence 1 of step `only` (test_report) comes before any `command` check",
        "evidence 2 of step `only` (files) has the path `/etc/passwd`, which is absolute",
        "evidence 2 of step `only` (files) has the path `../x`, which climbs out with `..`",
        "evidence 2 of step `only` (files) has `src/[z-a]`, which is not a glob",
        "evidence 3 of step `only` (files) lists no path",
        "evidence 4 of step `only` (command) gives `run` as one string, `make test`",
        "evidence 5 of step `only` (command) says `shell: true` but gives `run` as a list",
        "evidence 6 of step `only` (command) has no program",
        "evidence 6 of step `only` (command) has a `timeout` that does not read",
        "evidence 7 of step `only` (changed) has the path `../elsewhere`, which climbs out",
        "evidence 8 of step `only` (artifact_paths) names no `field`",
    ];
    for (message, start) in messages.iter().zip(expected) {
        assert!(message.starts_with(start), "{message:?} does not start with {start:?}");
    }
    let wrong_shape = "id: demo\nsteps:\n  - id: only\n    prompt: x\n    evidence: [{kind: tests}]\n";
    let compiled = check(wrong_shape, &["5:15 error[invalid-value]"]);
    assert!(help_of(&compiled, "invalid-value").contains("files|changed|command|test_report|artifact_paths"));
}

#[test]
fn a_run_step_needs_no_prompt_and_its_edges_read_the_exit_code() {
    let text = r#"
id: demo
steps:
  - id: implement
    prompt: Implement.
    next: tests
  - id: tests
    run: [make, test]
    timeout: 10m
    on_failure: implement
    next:
      - {to: review, when: "exit_code == 0"}
      - {end: true, default: true}
  - id: review
    prompt: Review.
"#;
    let workflow = check(text, &[]).workflow.unwrap();
    let tests = workflow.step(&StepId::new("tests")).unwrap();
    assert_eq!(tests.notes, NotesPolicy::Optional, "switchyard writes a run step's report");
    assert!(tests.prompt.contains("make test"));
    let labels: Vec<&str> = tests.edges.iter().map(|edge| edge.label.as_str()).collect();
    assert_eq!(labels, ["on_failure", "review", "complete"], "on_failure is tried first");
    assert_eq!(tests.edges[0].condition.as_deref(), Some("exit_code != 0"));
    assert_eq!(tests.edges[0].kind, EdgeKind::Loop, "failing and fixing again is a cycle");
    assert_eq!(workflow.run_of(&StepId::new("tests")).unwrap().display(), "make test");
    // Elsewhere `exit_code` is no name a condition may read.
    let elsewhere = "id: demo\nsteps:\n  - id: a\n    prompt: x\n    next: [{to: b, when: \"exit_code == 0\"}, {to: b, label: other, default: true}]\n  - id: b\n    prompt: y\n";
    check(elsewhere, &["5:26 error[condition-unknown-variable]"]);
}

#[test]
fn a_run_step_with_an_agents_report_fields_or_no_command_is_refused() {
    let text = r#"
id: demo
steps:
  - id: a
    prompt: Do it.
    on_failure: b
    next: b
  - id: b
    run: "make test"
    output: {type: object}
    evidence: [{kind: changed}]
"#;
    let compiled =
        check(text, &["6:17 error[run-step]", "9:10 error[run-step]", "9:10 error[run-step]", "9:10 error[run-step]"]);
    let messages: Vec<&str> = compiled.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert!(messages[0].contains("has `on_failure` but no `run`"), "{}", messages[0]);
    assert!(messages[1].contains("gives `run` as one string"), "{}", messages[1]);
    assert!(messages[2].contains("has `run` and `evidence`"), "{}", messages[2]);
    assert!(messages[3].contains("has `run` and `output`"), "{}", messages[3]);
}
