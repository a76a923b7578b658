//! Representative imported workflows driven end to end through the MCP server's stdio transport
//! (`stdio::serve_io`, the code `switchyard mcp` runs) by an rmcp client: a `forEach` loop, run
//! conditions that skip steps, a loop-control contract and an assessment consequence that block
//! first, confirmation gates approved by a human through the runtime, a CrewAgent package and a
//! BMad Method step-file workflow. Tokens come only from the answers (`nextCall`).
//!
//! Each run's step sequence is snapshotted, and with its `(blocked)` marks left out it must equal
//! the sequence the runtime-level scripted runs recorded for the same workflow
//! (`crates/runtime/tests/snapshots`), so the door adds nothing and loses nothing.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};
use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_mcp::{ServerOptions, SwitchyardServer};
use switchyard_runtime::Runtime;
use switchyard_test_support::{TestHome, assessments, copy_folder as copy_tree};

/// The folder a case's `source` is relative to: the repository's fixtures for `crewagent/…`,
/// the shared corpora for `workrail/…` and `bmad/…`.
fn testdata(source: &str) -> PathBuf {
    if source.starts_with("crewagent/") {
        switchyard_test_support::testdata()
    } else {
        switchyard_test_support::corpora()
    }
}

/// The step sequences the runtime-level runs recorded, by the name each snapshot line starts with.
fn runtime_sequences() -> Map<String, Value> {
    let snapshots = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/tests/snapshots");
    let mut sequences = Map::new();
    for file in ["imported_runs__workrail_runs.snap", "bundles__bundle_runs.snap"] {
        let text = std::fs::read_to_string(snapshots.join(file)).unwrap();
        let body = text.splitn(3, "---\n").nth(2).expect("an insta snapshot has a header");
        for line in body.lines() {
            if let Some((name, sequence)) = line.split_once(": ") {
                sequences.insert(name.to_owned(), Value::String(sequence.to_owned()));
            }
        }
    }
    sequences
}

/// One workflow of the subset: the name it is installed under, where it comes from, and the
/// runtime-level run it must match.
struct Case {
    name: &'static str,
    source: &'static str,
    runtime_run: &'static str,
}

const CASES: [Case; 6] = [
    Case {
        name: "simple-batch",
        source: "workrail/workflows/examples/loops/simple-batch.json",
        runtime_run: "workflows/examples/loops/simple-batch.json",
    },
    Case {
        name: "document-creation",
        source: "workrail/workflows/document-creation-workflow.json",
        runtime_run: "workflows/document-creation-workflow.json",
    },
    Case {
        name: "test-artifact-loop-control",
        source: "workrail/workflows/test-artifact-loop-control.json",
        runtime_run: "workflows/test-artifact-loop-control.json",
    },
    Case {
        name: "bug-investigation",
        source: "workrail/workflows/bug-investigation.agentic.v2.json",
        runtime_run: "workflows/bug-investigation.agentic.v2.json",
    },
    Case { name: "hello-branch", source: "crewagent/hello-branch", runtime_run: "hello-branch default" },
    Case {
        name: "quick-dev",
        source: "bmad/6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev",
        runtime_run: "bmad/6.0.4/src/bmm/workflows/bmad-quick-flow/quick-dev",
    },
];

struct Door {
    _home: TestHome,
    workspace: tempfile::TempDir,
    /// The same runtime the server uses: a human approves gates through it, as the CLI does.
    runtime: Arc<Runtime>,
    client: RunningService<RoleClient, ()>,
}

async fn door() -> Door {
    let home = TestHome::new();
    let workspace = tempfile::tempdir().unwrap();
    let workflows = workspace.path().join(".switchyard/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    for case in &CASES {
        let source = testdata(case.source).join(case.source);
        if source.is_dir() {
            copy_tree(&source, &workflows.join(case.name));
        } else {
            std::fs::copy(&source, workflows.join(format!("{}.json", case.name))).unwrap();
        }
    }
    let config = Config::resolve(Overrides {
        home: Some(home.path().to_owned()),
        store: None,
        project_root: Some(workspace.path().to_owned()),
    })
    .unwrap();
    let runtime = Arc::new(Runtime::open(&config).await.unwrap());
    let server = SwitchyardServer::new(Arc::clone(&runtime), Catalog::configured(&config), &ServerOptions::default());
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_end);
    tokio::spawn(switchyard_mcp::stdio::serve_io(server, server_read, server_write));
    let client = ().serve(client_end).await.expect("the MCP handshake over stdio framing");
    Door { _home: home, workspace, runtime, client }
}

impl Door {
    /// Calls a tool; a tool error fails the test with its message.
    async fn call(&self, tool: &'static str, arguments: Value) -> Value {
        let Value::Object(arguments) = arguments else { panic!("arguments must be an object") };
        let result = self
            .client
            .call_tool(CallToolRequestParams::new(tool).with_arguments(arguments.clone()))
            .await
            .unwrap_or_else(|error| panic!("{tool} {arguments:?}: protocol error {error}"));
        assert_ne!(result.is_error, Some(true), "{tool} {arguments:?} failed: {:?}", result.content);
        result.structured_content.expect("execution answers carry structured content")
    }

    /// Calls what the answer's `nextCall` says, with `output` (and a choice) in place of the
    /// placeholder when the call advances.
    async fn follow(&self, answer: &Value, output: Option<Value>, choice: Option<String>) -> Value {
        let next = &answer["nextCall"];
        assert_eq!(next["tool"], "continue_workflow", "{answer:#}");
        let mut params = next["params"].as_object().cloned().expect("nextCall has params");
        match output {
            Some(output) => {
                params.insert("output".to_owned(), output);
                if let Some(choice) = choice {
                    params.insert("choice".to_owned(), Value::String(choice));
                }
            }
            None => assert_eq!(params.get("intent"), Some(&json!("rehydrate")), "{answer:#}"),
        }
        self.call("continue_workflow", Value::Object(params)).await
    }
}

/// Notes long enough for every notes rule these workflows have.
fn notes() -> String {
    "Summary of the work done on this step, with the evidence and the open questions. ".repeat(12)
}

/// What the run starts with: a two-item array for every `forEach`, as in the runtime-level run.
fn starting_context(source: &Path) -> Map<String, Value> {
    let mut context = Map::new();
    let Ok(text) = std::fs::read_to_string(source) else { return context };
    let document: Value = serde_json::from_str(&text).unwrap();
    let mut steps: Vec<&Value> = document["steps"].as_array().into_iter().flatten().collect();
    while let Some(step) = steps.pop() {
        steps.extend(step["body"].as_array().into_iter().flatten());
        if let Some(items) = step["loop"]["items"].as_str() {
            context.insert(items.to_owned(), json!([{"name": "first"}, {"name": "second"}]));
        }
    }
    context
}

/// The assessment consequences of a WorkRail step, found in the source by the pending step id.
fn consequence_levels(source: &Path, step: &str) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(source) else { return Vec::new() };
    let document: Value = serde_json::from_str(&text).unwrap();
    let mut steps: Vec<&Value> = document["steps"].as_array().into_iter().flatten().collect();
    while let Some(candidate) = steps.pop() {
        steps.extend(candidate["body"].as_array().into_iter().flatten());
        if candidate["id"] == step {
            return candidate["assessmentConsequences"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|consequence| consequence["when"]["anyEqualsLevel"].as_str().map(str::to_owned))
                .collect();
        }
    }
    Vec::new()
}

/// The workflow document of a WorkRail source; other sources (bundles) have no assessments.
fn document(source: &Path) -> Value {
    std::fs::read_to_string(source).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or(Value::Null)
}

/// The artifact kinds an output schema asks for (`contains.properties.kind.const`, under `allOf`).
fn required_kinds(schema: &Value) -> Vec<String> {
    let mut kinds = Vec::new();
    let mut pending = vec![schema];
    while let Some(schema) = pending.pop() {
        if let Some(kind) = schema["contains"]["properties"]["kind"]["const"].as_str() {
            kinds.push(kind.to_owned());
        }
        pending.extend(schema["allOf"].as_array().into_iter().flatten());
    }
    kinds
}

fn blocked_issue(answer: &Value, code: &str, text: &str) {
    assert_eq!(answer["kind"], "blocked", "{answer:#}");
    let issues = answer["validation"]["issues"].as_array().expect("a blocked answer lists issues");
    assert!(
        issues
            .iter()
            .any(|issue| issue["code"] == code && issue["message"].as_str().unwrap_or_default().contains(text)),
        "no {code} issue mentioning {text:?}: {issues:#?}"
    );
    assert!(answer["retryContinueToken"].is_string(), "a blocked answer offers a retry: {answer:#}");
}

/// Drives one run. Steps with an output schema are first advanced without artifacts (refused),
/// steps with an assessment consequence then get an assessment at its level (refused with the
/// guidance), and finally the artifacts the runtime-level agent sends. Gates are approved by a
/// human through the runtime; the agent then rehydrates as `nextCall` says.
async fn drive(door: &Door, case: &Case) -> String {
    let source = testdata(case.source).join(case.source);
    let start = json!({
        "workflowId": case.name,
        "workspacePath": door.workspace.path().display().to_string(),
        "goal": "scripted run",
        "context": starting_context(&source),
    });
    let mut answer = door.call("start_workflow", start).await;
    let mut trace = Vec::new();
    let mut loop_decisions = 0;
    for _ in 0..200 {
        match answer["kind"].as_str().unwrap_or_default() {
            "complete" => {
                trace.push("(completed)".to_owned());
                return trace.join(" ");
            }
            "waiting_for_human_gate" => {
                trace.push("(approved)".to_owned());
                let run = answer["runId"].as_str().unwrap().parse().unwrap();
                door.runtime.approve(run, None).await.unwrap();
                answer = door.follow(&answer, None, None).await;
            }
            "ok" => {
                let pending = answer["pending"].clone();
                let step = pending["stepId"].as_str().unwrap().to_owned();
                trace.push(step.clone());
                let choice = (pending["needsChoice"] == true)
                    .then(|| pending["allowedNext"][0]["label"].as_str().unwrap().to_owned());
                let kinds = pending["outputSchema"].as_object().map(|_| required_kinds(&pending["outputSchema"]));
                if let Some(kinds) = &kinds {
                    let refused = door.follow(&answer, Some(json!({"notesMarkdown": notes()})), choice.clone()).await;
                    blocked_issue(&refused, "OUTPUT_SCHEMA", "artifacts");
                    trace.push("(blocked)".to_owned());
                    answer = refused;
                    if kinds.iter().any(|kind| kind == "wr.assessment") {
                        for level in consequence_levels(&source, &step) {
                            let low = Value::Array(assessments(&document(&source), Some(&level)));
                            let output = json!({"notesMarkdown": notes(), "artifacts": low});
                            let refused = door.follow(&answer, Some(output), choice.clone()).await;
                            blocked_issue(&refused, "OUTPUT_CHECK", "Assessment follow-up required");
                            trace.push("(blocked)".to_owned());
                            answer = refused;
                        }
                    }
                }
                let artifacts = kinds.map(|kinds| {
                    let artifacts: Vec<Value> = kinds
                        .iter()
                        .flat_map(|kind| match kind.as_str() {
                            "wr.loop_control" => {
                                loop_decisions += 1;
                                let decision = if loop_decisions % 2 == 1 { "continue" } else { "stop" };
                                vec![json!({"kind": kind, "decision": decision})]
                            }
                            "wr.assessment" => assessments(&document(&source), None),
                            _ => vec![json!({"kind": kind})],
                        })
                        .collect();
                    Value::Array(artifacts)
                });
                let mut output = json!({"notesMarkdown": notes()});
                if let Some(artifacts) = artifacts {
                    output["artifacts"] = artifacts;
                }
                answer = door.follow(&answer, Some(output), choice).await;
            }
            other => panic!("{}: the run ended `{other}`: {answer:#}", case.name),
        }
    }
    panic!("{}: no completion in 200 calls: {}", case.name, trace.join(" "));
}

#[tokio::test(flavor = "multi_thread")]
async fn representative_imported_runs_through_mcp_match_the_runtime_runs() {
    let door = door().await;
    let expected = runtime_sequences();
    let mut runs = String::new();
    for case in &CASES {
        let trace = drive(&door, case).await;
        let without_blocks: Vec<&str> = trace.split(' ').filter(|part| *part != "(blocked)").collect();
        let runtime_run = expected[case.runtime_run].as_str().expect("the runtime-level run is snapshotted");
        assert_eq!(without_blocks.join(" "), runtime_run, "{} differs from its runtime-level run", case.name);
        runs.push_str(&format!("{}: {trace}\n", case.name));
    }
    // The subset covers what it claims to: loops, skips, refusals and gates.
    assert!(runs.contains("(blocked)") && runs.contains("(approved)"), "{runs}");
    insta::assert_snapshot!("representative_runs", runs);
    door.client.cancel().await.unwrap();
}
