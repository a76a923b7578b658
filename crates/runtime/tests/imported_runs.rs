//! A scripted agent drives every WorkRail workflow of the corpus (the corpora's `workrail/`) to
//! completion through the runtime: loops iterate and exit, run conditions skip steps, `forEach`
//! walks arrays, contracts block until the right artifact arrives, confirmations stop at gates.
//! The step sequence of every run is snapshotted.

mod common;

use std::path::{Path, PathBuf};

use common::runtime;
use serde_json::{Map, Value, json};
use switchyard_catalog::Catalog;
use switchyard_core::state::RunStatus;
use switchyard_core::workflow::OutputCheck;
use switchyard_runtime::{AdvanceInput, Runtime, StartRequest, StepResponse};
use switchyard_test_support::{assessments, corpora};

fn corpus() -> PathBuf {
    corpora().join("workrail")
}

fn workflow_files() -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![corpus()];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|extension| extension == "json")
                && !path.ends_with("workflow.schema.json")
                && !path.ends_with("invalid-workflow.json")
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// What the scripted run starts with: every `forEach` gets a two-item array and every `for`
/// count variable 2, so loops have something to walk.
fn starting_context(document: &Value) -> Map<String, Value> {
    let mut context = Map::new();
    let mut steps: Vec<&Value> = document["steps"].as_array().into_iter().flatten().collect();
    while let Some(step) = steps.pop() {
        steps.extend(step["body"].as_array().into_iter().flatten());
        let config = &step["loop"];
        if let Some(items) = config["items"].as_str() {
            context.insert(items.to_owned(), json!([{"name": "first"}, {"name": "second"}]));
        }
        if let Some(count) = config["count"].as_str() {
            context.insert(count.to_owned(), json!(2));
        }
    }
    context
}

/// Notes that pass every check the corpus writes (`contains`, `regex`, `length`).
fn notes_for(checks: &[OutputCheck]) -> String {
    let mut notes = String::from(
        "Summary: requirements reviewed, edge cases listed. Unit test, integration test and \
         end-to-end coverage: describe it test spec. The design pattern and architecture hold. \
         A 401 unauthorized reply comes from /auth/login. ",
    );
    let mut pending: Vec<&OutputCheck> = checks.iter().collect();
    while let Some(check) = pending.pop() {
        match check {
            OutputCheck::Contains { value, .. } => {
                notes.push_str(value);
                notes.push(' ');
            }
            OutputCheck::All { checks, .. } | OutputCheck::Any { checks, .. } => pending.extend(checks),
            _ => {}
        }
    }
    while notes.len() < 900 {
        notes.push_str("More detail on the work done. ");
    }
    notes
}

/// Artifacts that satisfy the step's output schema: one object per required `kind` (for an
/// assessment, one per assessment the workflow defines). A loop
/// control asks for another iteration the first time and stops the second.
fn artifacts_for(schema: Option<&Value>, document: &Value, loop_decisions: &mut u32) -> Option<Value> {
    let schema = schema?;
    let mut kinds = Vec::new();
    let mut pending = vec![schema];
    while let Some(schema) = pending.pop() {
        if let Some(kind) = schema["contains"]["properties"]["kind"]["const"].as_str() {
            kinds.push(kind.to_owned());
        }
        pending.extend(schema["allOf"].as_array().into_iter().flatten());
    }
    let artifacts: Vec<Value> = kinds
        .into_iter()
        .flat_map(|kind| match kind.as_str() {
            "wr.loop_control" => {
                *loop_decisions += 1;
                let decision = if *loop_decisions % 2 == 1 { "continue" } else { "stop" };
                vec![json!({"kind": kind, "decision": decision})]
            }
            "wr.assessment" => assessments(document, None),
            _ => vec![json!({"kind": kind})],
        })
        .collect();
    Some(Value::Array(artifacts))
}

async fn drive(runtime: &Runtime, file: &Path) -> String {
    let document: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let request = StartRequest {
        file: Some(file.to_owned()),
        goal: "scripted run".to_owned(),
        context: starting_context(&document),
        ..StartRequest::default()
    };
    let mut response: StepResponse = runtime.start(&Catalog::builtins_only(), request).await.unwrap();
    let mut trace = Vec::new();
    let mut loop_decisions = 0;
    for _ in 0..400 {
        match response.status {
            RunStatus::Completed => {
                trace.push("(completed)".to_owned());
                return trace.join(" ");
            }
            RunStatus::WaitingGate => {
                trace.push("(approved)".to_owned());
                response = runtime.approve(response.run, None).await.unwrap();
            }
            RunStatus::Active | RunStatus::Blocked => {
                let step = response.step.clone().expect("an active run hands out a step");
                if response.status == RunStatus::Blocked {
                    let validation = response.validation.clone().or(step.validation.clone());
                    panic!("{}: step `{}` blocked: {validation:?}", file.display(), step.step);
                }
                trace.push(step.step.to_string());
                let token = response.tokens.continue_token.clone().expect("a continue token");
                let choice = step.needs_choice.then(|| step.allowed_next[0].label.clone());
                let input = AdvanceInput {
                    notes: Some(notes_for(&step.checks)),
                    artifacts: artifacts_for(step.output_schema.as_ref(), &document, &mut loop_decisions),
                    context: None,
                    choice,
                };
                response = runtime.advance(&token, None, input).await.unwrap();
            }
            other => panic!("{}: the run ended {other:?}: {:?}", file.display(), response.failure),
        }
    }
    panic!("{}: the run did not complete in 400 commands: {}", file.display(), trace.join(" "));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scripted_agent_completes_every_workrail_workflow() {
    let dir = common::TestHome::new();
    let runtime = runtime(&dir).await;
    let mut runs = String::new();
    for file in workflow_files() {
        let name = file.strip_prefix(corpus()).unwrap().display().to_string();
        let trace = drive(&runtime, &file).await;
        runs.push_str(&format!("{name}: {trace}\n"));
    }
    insta::assert_snapshot!("workrail_runs", runs);
}
