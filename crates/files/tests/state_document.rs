//! The state document: seed 000's cases (invalid transition with allowedNext, unknown node,
//! schema-invalid frontmatter, stepsCompleted regression, no write on any failure), an agent
//! walking a built-in workflow purely by editing the document, and two concurrent writers.

mod common;

use serde_json::{Value, json};
use switchyard_core::RunId;
use switchyard_core::event::EventKind;
use switchyard_core::state::{NodeKind, Phase, ValidationIssue};
use switchyard_files::{FileHost, HostConfig, ToolResult, codes};
use switchyard_runtime::{AdvanceInput, ResponseKind, Runtime};

const DOCUMENT: &str = "{output-root}/state/workflow.md";

struct Agent {
    world: common::World,
    host: FileHost,
    run: RunId,
    document: std::path::PathBuf,
    session: switchyard_core::SessionId,
}

async fn agent(workflow: &str) -> Agent {
    let world = common::World::new().await;
    let started = world.start(workflow).await;
    let document = world.folder(&started).join("state/workflow.md");
    let host = world.host(HostConfig::default());
    Agent { host, run: started.run, session: started.session, document, world }
}

impl Agent {
    async fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        self.host.call(tool, arguments, Some(self.run)).await
    }

    async fn set(&self, operations: Value) -> ToolResult {
        self.call("update_frontmatter", json!({ "path": DOCUMENT, "operations": operations })).await
    }

    fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.document).unwrap()
    }

    fn frontmatter(&self) -> Value {
        let text = String::from_utf8(self.bytes()).unwrap();
        let yaml = text.strip_prefix("---\n").unwrap().split("\n---\n").next().unwrap();
        serde_saphyr::from_str(yaml).unwrap()
    }

    /// Refused with `code`, and the file is byte-for-byte what it was.
    async fn refused(&self, result: ToolResult, code: &str) -> switchyard_files::ToolError {
        let error = result.expect_err("the write must be refused");
        assert_eq!(error.code, code, "{error}");
        error
    }

    async fn advances(&self) -> usize {
        let events = self.world.runtime.events(self.session, 0, 1000).await.unwrap();
        events.iter().filter(|event| matches!(event.kind, EventKind::AdvanceRecorded { .. })).count()
    }
}

#[tokio::test]
async fn the_state_document_mirrors_a_new_run() {
    let agent = agent("code-review").await;
    let frontmatter = agent.frontmatter();
    assert_eq!(frontmatter["schemaVersion"], 1);
    assert_eq!(frontmatter["workflowType"], "code-review");
    assert_eq!(frontmatter["runId"], agent.run.to_string());
    assert_eq!(frontmatter["currentNodeId"], "scope");
    assert_eq!(frontmatter["stepsCompleted"], json!([]));
    assert_eq!(frontmatter["variables"]["blocking_findings"], 0);
    let text = agent.call("read_file", json!({ "path": DOCUMENT })).await.unwrap();
    assert!(text.contains("## Goal") && text.contains("Review PR 42") && text.contains("## Steps"), "{text}");
    assert!(text.contains("`assess`"), "{text}");
    let schema = switchyard_run_folder::state_schema();
    assert!(jsonschema::draft202012::new(&schema).unwrap().is_valid(&frontmatter));
}

#[tokio::test]
async fn seed_000_refusals_leave_the_file_unchanged_and_record_nothing() {
    let agent = agent("code-review").await;
    let before = agent.bytes();

    let error = agent
        .refused(
            agent.set(json!([{ "op": "set", "key": "currentNodeId", "value": "decide" }])).await,
            codes::INVALID_TRANSITION,
        )
        .await;
    let details = error.details.unwrap();
    assert_eq!(details["from"], "scope");
    assert_eq!(details["to"], "decide");
    let allowed = details["allowedNext"].as_array().unwrap();
    assert_eq!(allowed.len(), 1, "{details}");
    assert_eq!(allowed[0]["to"], "assess");
    assert!(
        allowed[0].get("label").is_some()
            && allowed[0].get("isDefault").is_some()
            && allowed[0].get("conditionText").is_some()
    );

    agent
        .refused(
            agent.set(json!([{ "op": "set", "key": "currentNodeId", "value": "nowhere" }])).await,
            codes::INVALID_TRANSITION,
        )
        .await;
    agent
        .refused(
            agent.set(json!([{ "op": "set", "key": "stepsCompleted", "value": "scope" }])).await,
            codes::SCHEMA_VALIDATION,
        )
        .await;
    agent
        .refused(agent.set(json!([{ "op": "set", "key": "surprise", "value": 1 }])).await, codes::SCHEMA_VALIDATION)
        .await;
    agent.refused(agent.set(json!([{ "op": "remove", "key": "decisionLog" }])).await, codes::SCHEMA_VALIDATION).await;
    agent
        .refused(
            agent.set(json!([{ "op": "set", "key": "runId", "value": "run_00000000000000000000000000" }])).await,
            codes::SCHEMA_VALIDATION,
        )
        .await;
    let broken = "---\ncurrentNodeId: [unclosed\n---\nbody\n";
    agent
        .refused(
            agent.call("write_file", json!({ "path": DOCUMENT, "content": broken })).await,
            codes::SCHEMA_VALIDATION,
        )
        .await;
    let error = agent
        .refused(
            agent.call("write_file", json!({ "path": DOCUMENT, "content": "x", "ifMatchSha256": "00" })).await,
            codes::PRECONDITION_FAILED,
        )
        .await;
    assert!(error.message.contains("read it again"), "{error}");
    assert_eq!(agent.bytes(), before, "a refused write changed the file");
    assert_eq!(agent.advances().await, 0, "a refused write became an event");
}

#[tokio::test]
async fn steps_completed_cannot_regress_through_write_file() {
    let agent = agent("code-review").await;
    agent
        .set(json!([
            { "op": "set", "key": "currentNodeId", "value": "assess" },
            { "op": "append", "key": "stepsCompleted", "value": "scope" },
            { "op": "append", "key": "decisionLog", "value": { "notes": "scoped", "artifacts": { "intent": "fix", "files": ["a.rs"] } } }
        ]))
        .await
        .unwrap();
    let before = agent.bytes();
    let text = String::from_utf8(before.clone()).unwrap();
    let regressed = text
        .replace("stepsCompleted:\n- scope\n", "stepsCompleted: []\n")
        .replace("currentNodeId: assess", "currentNodeId: decide");
    assert_ne!(regressed, text, "the fixture must change the document: {text}");
    let error = agent
        .refused(
            agent.call("write_file", json!({ "path": DOCUMENT, "content": regressed })).await,
            codes::INVALID_TRANSITION,
        )
        .await;
    assert_eq!(error.details.unwrap()["missing"], json!(["scope"]));
    assert_eq!(agent.bytes(), before);
    assert_eq!(agent.advances().await, 1);
}

#[tokio::test]
async fn an_agent_walks_code_review_by_editing_the_state_document() {
    let agent = agent("code-review").await;
    // Illegal: skipping ahead.
    agent
        .refused(
            agent.set(json!([{ "op": "set", "key": "currentNodeId", "value": "approve" }])).await,
            codes::INVALID_TRANSITION,
        )
        .await;
    // The output contract applies exactly as through any other door: a move without the
    // required artifacts is recorded as blocked.
    let blocked = agent.set(json!([{ "op": "set", "key": "currentNodeId", "value": "assess" }])).await.unwrap_err();
    assert_eq!(blocked.code, codes::STEP_BLOCKED, "{blocked}");
    assert_eq!(agent.frontmatter()["status"], "blocked");
    let moved = agent
        .set(json!([
            { "op": "set", "key": "currentNodeId", "value": "assess" },
            { "op": "append", "key": "decisionLog", "value": { "notes": "scoped", "artifacts": { "intent": "fix the bug", "files": ["a.rs"] } } }
        ]))
        .await
        .unwrap();
    assert!(moved.contains("assess"), "{moved}");
    // Through a patch this time.
    let text = String::from_utf8(agent.bytes()).unwrap();
    assert!(text.contains("currentNodeId: assess"), "{text}");
    let blocked = agent
        .call(
            "apply_patch",
            json!({ "path": DOCUMENT, "hunks": [{ "search": "currentNodeId: assess", "replace": "currentNodeId: decide" }] }),
        )
        .await
        .unwrap_err();
    assert_eq!(blocked.code, codes::STEP_BLOCKED, "assess requires notes and findings: {blocked}");
    agent
        .set(json!([
            { "op": "set", "key": "currentNodeId", "value": "decide" },
            { "op": "set", "key": "variables.blocking_findings", "value": 0 },
            { "op": "append", "key": "decisionLog", "value": { "notes": "no findings", "artifacts": { "findings": [] } } }
        ]))
        .await
        .unwrap();
    assert_eq!(agent.frontmatter()["currentNodeId"], "decide");
    agent
        .refused(
            agent.set(json!([{ "op": "set", "key": "currentNodeId", "value": "assess" }])).await,
            codes::INVALID_TRANSITION,
        )
        .await;
    agent.set(json!([{ "op": "set", "key": "currentNodeId", "value": "approve" }])).await.unwrap();
    assert_eq!(agent.frontmatter()["currentNodeId"], "approve");
    agent
        .set(json!([
            { "op": "append", "key": "stepsCompleted", "value": "approve" },
            { "op": "append", "key": "decisionLog", "value": { "notes": "approved", "artifacts": { "comment": "LGTM" } } }
        ]))
        .await
        .unwrap();
    let frontmatter = agent.frontmatter();
    assert_eq!(frontmatter["status"], "completed");
    assert_eq!(frontmatter["stepsCompleted"], json!(["scope", "assess", "decide", "approve"]));
    assert_eq!(frontmatter["decisionLog"].as_array().unwrap().last().unwrap()["to"], "$complete");
    let events = agent.world.runtime.events(agent.session, 0, 1000).await.unwrap();
    assert!(events.iter().any(|event| matches!(event.kind, EventKind::RunCompleted { .. })));
    assert_eq!(agent.advances().await, 6, "four moves and two blocked attempts");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_concurrent_writers_one_wins_the_other_gets_a_precondition_error() {
    for _ in 0..5 {
        let agent = agent("code-review").await;
        let second = agent.world.host(HostConfig::default());
        let text = String::from_utf8(agent.bytes()).unwrap();
        let write = |notes: &str| {
            text.replace("currentNodeId: scope", "currentNodeId: assess").replace(
                "decisionLog: []",
                &format!("decisionLog:\n- notes: {notes}\n  artifacts:\n    intent: x\n    files: []"),
            )
        };
        let (first_text, second_text) = (write("first"), write("second"));
        let document = agent.document.clone();
        let reader = tokio::task::spawn_blocking(move || {
            for _ in 0..200 {
                let read = std::fs::read_to_string(&document).unwrap();
                assert!(read.starts_with("---\n") && read.contains("\n## Steps\n"), "torn: {read}");
            }
        });
        let (one, two) = tokio::join!(
            agent.call("write_file", json!({ "path": DOCUMENT, "content": first_text })),
            second.call("write_file", json!({ "path": DOCUMENT, "content": second_text }), Some(agent.run)),
        );
        reader.await.unwrap();
        let outcomes = [one, two];
        assert_eq!(outcomes.iter().filter(|outcome| outcome.is_ok()).count(), 1, "{outcomes:?}");
        let loser = outcomes.iter().find_map(|outcome| outcome.as_ref().err()).unwrap();
        assert_eq!(loser.code, codes::PRECONDITION_FAILED, "{loser}");
        assert_eq!(agent.advances().await, 1);
        assert_eq!(agent.frontmatter()["currentNodeId"], "assess");
    }
}

/// The validation issues of the run's blocked attempts, oldest first.
async fn blocked_issues(runtime: &Runtime, run: RunId) -> Vec<Vec<ValidationIssue>> {
    let mut nodes = runtime.run_nodes(run).await.unwrap();
    nodes.sort_by_key(|node| node.created_seq);
    nodes
        .into_iter()
        .filter(|node| node.kind == NodeKind::BlockedAttempt)
        .map(|node| match node.state.phase {
            Phase::Blocked { validation } => validation.issues,
            other => panic!("a blocked attempt that is not blocked: {other:?}"),
        })
        .collect()
}

#[tokio::test]
async fn a_mistyped_variable_is_the_same_blocked_attempt_through_continue_and_the_state_document() {
    let notes = "scoped";
    let artifacts = json!({ "intent": "fix", "files": ["a.rs"] });
    // `continue_workflow` (MCP) and `switchyard continue` (CLI) both make this call.
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let token = started.tokens.continue_token.clone().unwrap();
    let input = AdvanceInput {
        notes: Some(notes.to_owned()),
        artifacts: Some(artifacts.clone()),
        context: Some(json!({ "blocking_findings": "three" }).as_object().unwrap().clone()),
        ..AdvanceInput::default()
    };
    let response = world.runtime.advance(&token, Some(started.run), input).await.unwrap();
    assert_eq!(response.kind, ResponseKind::Blocked);
    let through_continue = blocked_issues(&world.runtime, started.run).await;

    let agent = agent("code-review").await;
    let error = agent
        .set(json!([
            { "op": "set", "key": "currentNodeId", "value": "assess" },
            { "op": "set", "key": "variables.blocking_findings", "value": "three" },
            { "op": "append", "key": "decisionLog", "value": { "notes": notes, "artifacts": artifacts } }
        ]))
        .await
        .unwrap_err();
    assert_eq!(error.code, codes::STEP_BLOCKED, "{error}");
    assert!(error.message.contains("CONTEXT_TYPE at /context/blocking_findings"), "{error}");
    let through_document = blocked_issues(&agent.world.runtime, agent.run).await;
    assert_eq!(through_document, through_continue);
    let codes: Vec<&str> = through_document.iter().flatten().map(|issue| issue.code.as_str()).collect();
    assert_eq!(codes, ["CONTEXT_TYPE"]);
    assert_eq!(agent.frontmatter()["status"], "blocked");
    assert_eq!(agent.frontmatter()["variables"]["blocking_findings"], 0, "a blocked attempt keeps the context");
}
