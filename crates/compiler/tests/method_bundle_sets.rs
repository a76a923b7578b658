//! BMad Method bundles that carry more than one workflow folder: module configs resolved at
//! compile time (`{config_source}:key`), invoked workflows run as steps of the caller, recursion
//! bounded; and the points where the method waits for the user becoming gates.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::json;
use switchyard_compiler::{Bundle, Compiled, ReferenceRole, compile_bundle};
use switchyard_core::workflow::{EdgeTarget, Workflow};
use switchyard_test_support::{corpora, text_files};

fn alpha7() -> PathBuf {
    corpora().join("bmad/6.0.0-alpha.7")
}

/// A bundle: the workflow folder at the root, plus other files of the corpus at their
/// installed paths (`(corpus path, bundle path)`).
fn bundle(workflow: &str, extra: &[(&str, &str)]) -> Bundle {
    let mut files = text_files(&alpha7().join(workflow));
    for (from, to) in extra {
        let source = alpha7().join(from);
        if source.is_dir() {
            files.extend(text_files(&source).into_iter().map(|(path, text)| (format!("{to}{path}"), text)));
        } else {
            files.insert((*to).to_owned(), std::fs::read_to_string(source).unwrap());
        }
    }
    Bundle { name: workflow.to_owned(), files }
}

fn compile_one(bundle: &Bundle) -> Compiled {
    let mut compiled = compile_bundle(bundle);
    assert_eq!(compiled.len(), 1);
    let result = compiled.remove(0).compiled;
    let errors: Vec<String> = result.errors().map(ToString::to_string).collect();
    assert!(errors.is_empty(), "{}: {errors:#?}", bundle.name);
    result
}

fn warnings(compiled: &Compiled, code: &str) -> Vec<String> {
    compiled.warnings().filter(|warning| warning.code == code).map(|warning| warning.message.clone()).collect()
}

fn shape(workflow: &Workflow) -> String {
    let mut text = String::new();
    for step in &workflow.steps {
        let edges: Vec<String> = step
            .edges
            .iter()
            .map(|edge| {
                let target = match &edge.target {
                    EdgeTarget::Step(step) => step.to_string(),
                    EdgeTarget::Complete => "(end)".to_owned(),
                };
                let default = if edge.default { " default" } else { "" };
                format!("{}->{target}{default}", edge.label)
            })
            .collect();
        let gate = if step.gate { " [gate]" } else { "" };
        text.push_str(&format!("{}{gate}: {}\n", step.id, edges.join(", ")));
    }
    text
}

const CONVERT_LEGACY: &str = "src/modules/bmb/workflows/convert-legacy";

#[test]
fn config_source_values_become_variable_defaults_when_the_config_is_in_the_bundle() {
    let compiled = compile_one(&bundle(CONVERT_LEGACY, &[("bmad/bmb/config.yaml", "bmad/bmb/config.yaml")]));
    let workflow = compiled.workflow.as_ref().unwrap();
    let defaults: BTreeMap<&str, serde_json::Value> = workflow
        .variables
        .iter()
        .map(|variable| (variable.name.as_str(), variable.default.clone().unwrap_or_default()))
        .collect();
    assert_eq!(defaults.get("user_name"), Some(&json!("BMad")));
    assert_eq!(defaults.get("communication_language"), Some(&json!("English")));
    // Placeholders of other config values are filled; `{project-root}` stays for the agent.
    assert_eq!(defaults.get("output_folder"), Some(&json!("{project-root}/docs")));
    assert!(warnings(&compiled, "method-config-source").is_empty(), "{:?}", compiled.diagnostics);
    assert!(compiled.references.iter().any(|reference| reference.role == ReferenceRole::Config
        && reference.path == "bmad/bmb/config.yaml"
        && !reference.missing));
    assert!(workflow.steps[0].prompt.contains("`{user_name}`: `BMad`"), "{}", workflow.steps[0].prompt);
}

#[test]
fn an_unreachable_config_source_is_left_to_the_agent_with_a_warning_naming_keys_and_file() {
    let compiled = compile_one(&bundle(CONVERT_LEGACY, &[]));
    let workflow = compiled.workflow.as_ref().unwrap();
    assert!(workflow.variables.is_empty());
    let found = warnings(&compiled, "method-config-source");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`user_name`") && found[0].contains("{project-root}/bmad/bmb/config.yaml"), "{found:?}");
    assert!(workflow.steps[0].prompt.contains("the `user_name` value of the module config"));
}

#[test]
fn a_config_missing_a_key_names_that_key_and_the_file() {
    let mut with_config = bundle(CONVERT_LEGACY, &[("bmad/bmb/config.yaml", "bmad/bmb/config.yaml")]);
    let config = with_config.files.get_mut("bmad/bmb/config.yaml").unwrap();
    *config = config.replace("communication_language: English\n", "");
    let compiled = compile_one(&with_config);
    let found = warnings(&compiled, "method-config-source");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("`communication_language`") && found[0].contains("bmad/bmb/config.yaml"));
    let workflow = compiled.workflow.unwrap();
    assert!(workflow.variable("communication_language").is_none());
    assert!(workflow.variable("user_name").is_some());
}

const BRAINSTORM_PROJECT: &str = "src/modules/bmm/workflows/1-analysis/brainstorm-project";

#[test]
fn an_invoked_workflow_in_the_bundle_runs_as_steps_between_the_invoking_step_and_the_next() {
    let compiled = compile_one(&bundle(
        BRAINSTORM_PROJECT,
        &[
            ("src/core/workflows/brainstorming", "bmad/core/workflows/brainstorming/"),
            ("bmad/core/config.yaml", "bmad/cis/config.yaml"),
        ],
    ));
    assert!(warnings(&compiled, "method-invoke").is_empty(), "{:?}", compiled.diagnostics);
    let workflow = compiled.workflow.as_ref().unwrap();
    // The invoked workflow's own config values come along as variables.
    assert!(workflow.variable("user_name").is_some());
    insta::assert_snapshot!("brainstorm_project_with_brainstorming", shape(workflow));
}

#[test]
fn an_invoked_workflow_missing_from_the_bundle_stays_a_reference_with_a_warning() {
    let compiled = compile_one(&bundle(BRAINSTORM_PROJECT, &[]));
    let found = warnings(&compiled, "method-invoke");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("step `3`") && found[0].contains("{core_brainstorming}"), "{found:?}");
    let workflow = compiled.workflow.unwrap();
    assert_eq!(workflow.steps.len(), 4);
}

/// A classic workflow in `dir` whose only step invokes `target`.
fn invoking(dir: &str, name: &str, target: &str) -> [(String, String); 2] {
    [
        (
            format!("{dir}workflow.yaml"),
            format!("name: {name}\ninstructions: \"{{installed_path}}/instructions.md\"\n"),
        ),
        (
            format!("{dir}instructions.md"),
            format!(
                "<workflow>\n<step n=\"1\" goal=\"Call\">\n<invoke-workflow path=\"{target}\" />\n</step>\n<step n=\"2\" goal=\"After\">wrap up</step>\n</workflow>\n"
            ),
        ),
    ]
}

#[test]
fn workflows_invoking_each_other_are_inlined_once_and_the_cycle_is_reported() {
    let mut files = BTreeMap::new();
    files.extend(invoking("", "ping", "{project-root}/bmad/x/workflows/pong/workflow.yaml"));
    files.extend(invoking("bmad/x/workflows/pong/", "pong", "{project-root}/bmad/x/workflows/ping/workflow.yaml"));
    // `ping` at the root is also installed under its module path, so `pong` can find it.
    files.extend(invoking("bmad/x/workflows/ping/", "ping", "{project-root}/bmad/x/workflows/pong/workflow.yaml"));
    let compiled = compile_one(&Bundle { name: "ping".to_owned(), files });
    let workflow = compiled.workflow.as_ref().unwrap();
    let ids: Vec<&str> = workflow.steps.iter().map(|step| step.id.as_str()).collect();
    // ping → pong → ping (installed copy) → pong again is refused: it is already running.
    assert_eq!(ids, ["1", "1.pong.1", "1.pong.1.ping.1", "1.pong.1.ping.2", "1.pong.2", "2"]);
    let found = warnings(&compiled, "method-invoke");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("already running"), "{found:?}");
}

#[test]
fn a_workflow_invoking_itself_compiles_with_a_warning() {
    let files = BTreeMap::from(invoking("", "selfish", "{installed_path}/workflow.yaml"));
    let compiled = compile_one(&Bundle { name: "selfish".to_owned(), files });
    assert_eq!(compiled.workflow.as_ref().unwrap().steps.len(), 2);
    assert!(warnings(&compiled, "method-invoke").iter().any(|warning| warning.contains("already running")));
}

#[test]
fn asks_and_template_outputs_gate_a_step_and_evaluable_conditions_gate_it_conditionally() {
    let instructions = "<workflow>\n\
        <step n=\"1\" goal=\"Plain\"><action>just work</action></step>\n\
        <step n=\"2\" goal=\"Ask\"><ask>Which one?</ask></step>\n\
        <step n=\"3\" goal=\"Write\"><template-output>summary</template-output></step>\n\
        <step n=\"4\" goal=\"Maybe\"><check if=\"mode == 'guided'\"><ask>Confirm?</ask></check></step>\n\
        <step n=\"5\" goal=\"Prose\"><check if=\"the user seems unsure\"><ask>Sure?</ask></check></step>\n\
        <step n=\"6\" goal=\"Elicit\"><invoke-task halt=\"true\">{project-root}/bmad/core/tasks/adv-elicit.xml</invoke-task></step>\n\
        </workflow>\n";
    let files = BTreeMap::from([
        ("workflow.yaml".to_owned(), "name: waits\nvariables:\n  mode: guided\n".to_owned()),
        ("instructions.md".to_owned(), instructions.to_owned()),
    ]);
    let compiled = compile_one(&Bundle { name: "waits".to_owned(), files });
    let workflow = compiled.workflow.unwrap();
    let gates: Vec<(String, bool, Option<String>)> = workflow
        .steps
        .iter()
        .map(|step| (step.id.to_string(), step.gate, workflow.rules(&step.id).gate_when.clone()))
        .collect();
    let when = "loose(value_of(context, \"mode\"), \"equals\", \"guided\")".to_owned();
    assert_eq!(
        gates,
        [
            ("1".to_owned(), false, None),
            ("2".to_owned(), true, None),
            ("3".to_owned(), true, None),
            ("4".to_owned(), false, Some(when)),
            ("5".to_owned(), false, None),
            ("6".to_owned(), true, None),
        ]
    );
    assert!(workflow.steps[1].prompt.contains("the run waits for a human to approve"));
}
