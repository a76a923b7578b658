//! The MCP door in process: the golden `tools/list`, the generated tool reference, and bad input
//! (wrong types, missing and unknown fields, tokens of another kind, tampered tokens, advancing a
//! finished run, huge payloads), each with a precise error and nothing half-written.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use switchyard_mcp::{ServerOptions, SwitchyardServer};
use switchyard_runtime::{Config, Overrides, Runtime};

struct Fixture {
    _home: tempfile::TempDir,
    workspace: tempfile::TempDir,
    server: SwitchyardServer,
}

async fn fixture() -> Fixture {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let config = Config::resolve(Overrides {
        home: Some(home.path().to_owned()),
        store: None,
        project_root: Some(workspace.path().to_owned()),
    })
    .unwrap();
    let runtime = Runtime::open(&config).await.unwrap();
    Fixture {
        _home: home,
        workspace,
        server: SwitchyardServer::new(std::sync::Arc::new(runtime), &ServerOptions::default()),
    }
}

impl Fixture {
    fn path(&self) -> String {
        self.workspace.path().display().to_string()
    }

    async fn call(&self, tool: &str, arguments: Value) -> (bool, Value, String) {
        let Value::Object(arguments) = arguments else { panic!("arguments must be an object") };
        let result = self.server.call(tool, Some(arguments), None).await.expect("no protocol error");
        let text = result
            .content
            .first()
            .and_then(|content| content.as_text())
            .map(|text| text.text.clone())
            .unwrap_or_default();
        let is_error = result.is_error == Some(true);
        let value = if is_error {
            serde_json::from_str(&text).expect("errors are JSON")
        } else {
            result.structured_content.expect("structured content")
        };
        (is_error, value, text)
    }

    async fn ok(&self, tool: &str, arguments: Value) -> Value {
        let (is_error, value, _) = self.call(tool, arguments).await;
        assert!(!is_error, "{tool} failed: {value}");
        value
    }

    async fn error(&self, tool: &str, arguments: Value) -> Value {
        let (is_error, value, _) = self.call(tool, arguments).await;
        assert!(is_error, "{tool} should have failed: {value}");
        value
    }

    async fn start(&self) -> Value {
        self.ok(
            "start_workflow",
            json!({ "workflowId": "dev-cycle", "workspacePath": self.path(), "goal": "Add a verbose flag" }),
        )
        .await
    }

    async fn event_count(&self, run: &str) -> usize {
        let run = self.server.runtime().run(&run.parse().unwrap()).await.unwrap();
        self.server.runtime().events(run.session, 0, 10_000).await.unwrap().len()
    }
}

#[tokio::test]
async fn tools_list_matches_the_golden_snapshot() {
    let fixture = fixture().await;
    let tools = serde_json::to_value(fixture.server.tool_list()).unwrap();
    insta::assert_json_snapshot!("tools_list", tools);
}

#[tokio::test]
async fn tools_reference_is_current() {
    let fixture = fixture().await;
    let generated = switchyard_mcp::tools_reference(&fixture.server);
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/mcp-tools.md");
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    if on_disk != generated {
        std::fs::write(&path, &generated).unwrap();
        panic!("docs/mcp-tools.md was out of date and has been regenerated; review and commit it");
    }
}

#[tokio::test]
async fn conformance_fixtures_are_off_by_default() {
    let fixture = fixture().await;
    let names: Vec<String> = fixture.server.tool_list().iter().map(|tool| tool.name.to_string()).collect();
    assert!(names.iter().all(|name| !name.starts_with("test_")), "{names:?}");
    let error = fixture.server.call("test_simple_text", Some(Map::new()), None).await.unwrap_err();
    assert!(error.message.contains("Unknown tool: test_simple_text"), "{}", error.message);
}

#[tokio::test]
async fn unknown_tool_is_a_protocol_error_with_a_suggestion() {
    let fixture = fixture().await;
    let error = fixture.server.call("continue_workflw", Some(Map::new()), None).await.unwrap_err();
    assert!(error.message.contains("did you mean `continue_workflow`"), "{}", error.message);
}

#[tokio::test]
async fn arguments_are_checked_against_the_schema_naming_the_field() {
    let fixture = fixture().await;
    let path = fixture.path();
    let wrong_type =
        fixture.error("start_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": path, "goal": 42 })).await;
    assert_eq!(wrong_type["code"], "VALIDATION_ERROR");
    assert!(wrong_type["message"].as_str().unwrap().contains("/goal"), "{wrong_type}");
    let missing = fixture.error("start_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": path })).await;
    assert!(missing["message"].as_str().unwrap().contains("\"goal\" is a required property"), "{missing}");
    let unknown =
        fixture.error("start_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": path, "gaol": "x" })).await;
    assert!(unknown["message"].as_str().unwrap().contains("`gaol` (did you mean `goal`?)"), "{unknown}");
    assert_eq!(unknown["details"]["unknownFields"][0]["didYouMean"], "goal");
    let relative = fixture.error("list_workflows", json!({ "workspacePath": "relative/dir" })).await;
    assert!(relative["message"].as_str().unwrap().contains("absolute"), "{relative}");
    let reserved = fixture
        .error(
            "start_workflow",
            json!({ "workflowId": "dev-cycle", "workspacePath": path, "goal": "x", "context": { "eat_token": "x" } }),
        )
        .await;
    assert!(reserved["message"].as_str().unwrap().contains("reserved"), "{reserved}");
}

#[tokio::test]
async fn tokens_of_another_kind_tampered_or_unknown_are_refused_with_their_code() {
    let fixture = fixture().await;
    let started = fixture.start().await;
    let run = started["runId"].as_str().unwrap().to_owned();
    let before = fixture.event_count(&run).await;
    let resume = started["resumeToken"].as_str().unwrap();
    let scope = fixture
        .error("continue_workflow", json!({ "continueToken": resume, "output": { "notesMarkdown": "x" } }))
        .await;
    assert_eq!(scope["code"], "TOKEN_SCOPE_MISMATCH", "{scope}");
    assert_eq!(scope["details"]["nextCall"]["params"]["intent"], "rehydrate");
    let checkpoint = started["checkpointToken"].as_str().unwrap();
    let wrong_kind = fixture
        .error("continue_workflow", json!({ "continueToken": checkpoint, "output": { "notesMarkdown": "x" } }))
        .await;
    assert_eq!(wrong_kind["code"], "TOKEN_SCOPE_MISMATCH", "{wrong_kind}");
    let token = started["continueToken"].as_str().unwrap();
    let mut tampered: Vec<char> = token.chars().collect();
    let last = tampered.len() - 3;
    tampered[last] = if tampered[last] == 'A' { 'B' } else { 'A' };
    let tampered: String = tampered.into_iter().collect();
    let bad = fixture
        .error("continue_workflow", json!({ "continueToken": tampered, "output": { "notesMarkdown": "x" } }))
        .await;
    assert_eq!(bad["code"], "TOKEN_BAD_SIGNATURE", "{bad}");
    let garbage = fixture
        .error("continue_workflow", json!({ "continueToken": "ct_nonsense", "output": { "notesMarkdown": "x" } }))
        .await;
    assert_eq!(garbage["code"], "TOKEN_INVALID_FORMAT", "{garbage}");
    let aliases = fixture
        .error("continue_workflow", json!({ "continueToken": token, "notes": "a", "output": { "notesMarkdown": "b" } }))
        .await;
    assert!(aliases["message"].as_str().unwrap().contains("not both"), "{aliases}");
    assert_eq!(fixture.event_count(&run).await, before, "refused calls write nothing");
}

#[tokio::test]
async fn huge_payloads_are_refused_and_write_nothing() {
    let fixture = fixture().await;
    let started = fixture.start().await;
    let run = started["runId"].as_str().unwrap().to_owned();
    let before = fixture.event_count(&run).await;
    let huge = "x".repeat(8 * 1024 * 1024);
    let (is_error, answer, _) = fixture
        .call(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": huge } }),
        )
        .await;
    assert!(is_error || answer["kind"] == "blocked", "{}", &answer.to_string()[..200.min(answer.to_string().len())]);
    if is_error {
        assert_eq!(fixture.event_count(&run).await, before, "a refused advance writes nothing");
    }
}

#[tokio::test]
async fn advancing_a_finished_run_is_refused_and_gates_wait_for_a_human() {
    let fixture = fixture().await;
    let started = fixture.start().await;
    let run: switchyard_core::RunId = started["runId"].as_str().unwrap().parse().unwrap();
    let waiting = fixture
        .ok(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "the plan" } }),
        )
        .await;
    assert_eq!(waiting["kind"], "waiting_for_human_gate");
    assert_eq!(waiting["retryable"], true);
    assert!(waiting["gate"]["approveWith"].as_str().unwrap().starts_with("switchyard approve run_"));
    assert_eq!(waiting["continueToken"], Value::Null, "an agent gets no token that could approve");
    let again = fixture.ok("continue_workflow", waiting["nextCall"]["params"].clone()).await;
    assert_eq!(
        (again["kind"].as_str(), again["nodeId"].as_str()),
        (Some("waiting_for_human_gate"), waiting["nodeId"].as_str())
    );
    fixture.server.runtime().stop(run, Some("done here".to_owned())).await.unwrap();
    let finished = fixture
        .error(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "other" } }),
        )
        .await;
    assert_eq!(finished["code"], "REPLAY_MISMATCH", "a used token with another payload: {finished}");
    let stopped = fixture.ok("continue_workflow", waiting["nextCall"]["params"].clone()).await;
    assert_eq!(stopped["kind"], "stopped");
    assert_eq!(stopped["continueToken"], Value::Null);
}

#[tokio::test]
async fn checkpoint_and_resume_by_a_goal_word() {
    let fixture = fixture().await;
    let started = fixture.start().await;
    let checkpoint = fixture
        .ok("checkpoint_workflow", json!({ "checkpointToken": started["checkpointToken"], "output": { "notesMarkdown": "halfway through the narwhal parser" } }))
        .await;
    assert_eq!(checkpoint["replayed"], false);
    let replayed = fixture
        .ok("checkpoint_workflow", json!({ "checkpointToken": started["checkpointToken"], "output": { "notesMarkdown": "halfway through the narwhal parser" } }))
        .await;
    assert_eq!(replayed["replayed"], true);
    let found = fixture.ok("resume_session", json!({ "workspacePath": fixture.path(), "query": "narwhal" })).await;
    assert_eq!(found["candidates"][0]["runId"], started["runId"], "{found}");
    let by_goal = fixture.ok("resume_session", json!({ "workspacePath": fixture.path(), "query": "verbose" })).await;
    assert_eq!(by_goal["candidates"][0]["confidence"], "strong", "{by_goal}");
    let rehydrated = fixture.ok("continue_workflow", by_goal["candidates"][0]["nextCall"]["params"].clone()).await;
    let recap = rehydrated["recap"]["text"].as_str().unwrap();
    assert!(recap.contains("narwhal"), "the recap carries the checkpoint notes: {recap}");
}

#[tokio::test]
async fn list_and_inspect_show_the_whole_graph() {
    let fixture = fixture().await;
    let listed = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path() })).await;
    let ids: Vec<&str> =
        listed["workflows"].as_array().unwrap().iter().map(|entry| entry["workflowId"].as_str().unwrap()).collect();
    assert!(ids.contains(&"dev-cycle") && ids.contains(&"code-review"), "{ids:?}");
    let tagged = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "tags": ["review"] })).await;
    assert!(
        tagged["workflows"].as_array().unwrap().iter().all(|entry| entry["tags"]
            .as_array()
            .unwrap()
            .iter()
            .any(|tag| tag == "review"))
    );
    let inspected =
        fixture.ok("inspect_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": fixture.path() })).await;
    assert!(inspected["workflowHash"].as_str().unwrap().starts_with("sha256:"));
    assert!(inspected["compiled"]["steps"].as_array().unwrap().len() >= 3, "{inspected}");
    let project: PathBuf = fixture.workspace.path().join(".switchyard/workflows");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("broken.yaml"), "name: broken\nstages: 7\n").unwrap();
    let listed = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path() })).await;
    assert_eq!(listed["validationWarnings"][0]["workflowId"], "broken", "{listed}");
}
