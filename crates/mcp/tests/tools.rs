//! The MCP door in process: the golden `tools/list`, the generated tool reference, bad input
//! (wrong types, missing and unknown fields, tokens of another kind or store, tampered tokens,
//! advancing a finished run, huge payloads), each with a precise error and nothing half-written,
//! and the facts the tools promise: git branch and HEAD, resume ranking tier by tier, context
//! deltas that delete keys, bounded recaps and listings, human gates and decisions.

use std::path::{Path, PathBuf};

mod common;

use common::{Fixture, fixture};
use serde_json::{Map, Value, json};
use switchyard_config::{Config, Overrides};
use switchyard_test_support::git_repository;

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
    let hand_written_at = on_disk.find(switchyard_mcp::HAND_WRITTEN_HEADING).unwrap_or(on_disk.len());
    let (generated_part, hand_written) = on_disk.split_at(hand_written_at);
    if generated_part != format!("{generated}\n") {
        std::fs::write(&path, format!("{generated}\n{hand_written}")).unwrap();
        panic!("docs/mcp-tools.md was out of date and has been regenerated; review and commit it");
    }
    // The hand-written part names only tools and arguments the server has.
    let tools = fixture.server.tool_list();
    for name in ["manage_workflow_source", "list_workflows", "tagSummary", "listAll", "REPLAY_MISMATCH"] {
        assert!(hand_written.contains(name), "the differences from WorkRail mention `{name}`");
    }
    let list = tools.iter().find(|tool| tool.name == "list_workflows").unwrap();
    assert!(list.input_schema["properties"].get("listAll").is_some(), "the documented `listAll` exists");
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
    let refused = fixture
        .error(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": huge } }),
        )
        .await;
    assert_eq!(
        (refused["code"].as_str(), refused["details"]["cause"].as_str()),
        (Some("VALIDATION_ERROR"), Some("INPUT_TOO_LARGE")),
        "{refused}"
    );
    assert!(refused["message"].as_str().unwrap().contains("MAX_NOTES_BYTES"), "names the limit: {refused}");
    assert_eq!(fixture.event_count(&run).await, before, "a refused advance writes nothing");
    let retried = fixture
        .ok(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "the plan" } }),
        )
        .await;
    assert_eq!(retried["kind"], "waiting_for_human_gate", "the token still works after the refusal: {retried}");
}

#[tokio::test]
async fn a_signed_token_this_store_does_not_know_is_refused_with_its_code() {
    let fixture = fixture().await;
    let started = fixture.start().await;
    // Same home, so the same signing key, but another store: the token verifies and is unknown.
    let home = fixture.home.path().to_owned();
    let config = Config::resolve(Overrides {
        home: Some(home.clone()),
        store: Some(home.join("other.sqlite3")),
        project_root: Some(fixture.workspace.path().to_owned()),
    })
    .unwrap();
    let other = common::server(&config).await;
    let arguments = json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "x" } });
    let Value::Object(arguments) = arguments else { unreachable!() };
    let result = other.call("continue_workflow", Some(arguments), None).await.unwrap();
    assert_eq!(result.is_error, Some(true));
    let text = &result.content[0].as_text().unwrap().text;
    let error: Value = serde_json::from_str(text).unwrap();
    assert_eq!(error["code"], "TOKEN_UNKNOWN_NODE", "{error}");
}

/// Writes a workflow into the fixture's project folder.
fn project_workflow(fixture: &Fixture, name: &str, yaml: &str) {
    let folder = fixture.workspace.path().join(".switchyard/workflows");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join(format!("{name}.yaml")), yaml).unwrap();
}

/// A project workflow `id` of one step, `count`.
fn one_step_workflow(fixture: &Fixture, id: &str) {
    let yaml = format!(
        "id: {id}\nversion: \"1\"\ntitle: Field count\ndescription: One step.\nsteps:\n  - {{id: count, title: Count, prompt: Count them.}}\n"
    );
    project_workflow(fixture, id, &yaml);
}

/// Runs git in the fixture's workspace and returns its trimmed stdout.
fn git(fixture: &Fixture, arguments: &[&str]) -> String {
    switchyard_test_support::git(fixture.workspace.path(), arguments)
}

#[tokio::test]
async fn start_records_the_workspace_git_branch_and_head() {
    let fixture = fixture().await;
    git_repository(fixture.workspace.path(), "feature/okapi");
    let head = git(&fixture, &["rev-parse", "HEAD"]);
    let started = fixture.start().await;
    let found = fixture.ok("resume_session", json!({ "workspacePath": fixture.path() })).await;
    let candidate = &found["candidates"][0];
    assert_eq!(candidate["runId"], started["runId"], "{found}");
    assert_eq!(
        (candidate["gitBranch"].as_str(), candidate["gitHeadSha"].as_str()),
        (Some("feature/okapi"), Some(head.as_str())),
        "{candidate}"
    );
    assert!(candidate["whyMatched"].as_array().unwrap().contains(&json!("matched_head_sha")), "{candidate}");
}

#[tokio::test]
async fn resume_session_puts_explicit_ids_first_and_offers_at_most_five() {
    let fixture = fixture().await;
    let mut runs = Vec::new();
    for index in 0..7 {
        let started = fixture
            .ok("start_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": fixture.path(), "goal": format!("Task number {index}") }))
            .await;
        runs.push(started["runId"].as_str().unwrap().to_owned());
    }
    let recent = fixture.ok("resume_session", json!({ "workspacePath": fixture.path() })).await;
    assert_eq!(recent["candidates"].as_array().unwrap().len(), 5, "{recent}");
    assert_eq!(recent["candidates"][0]["confidence"], "weak", "only recency matched: {recent}");
    let by_run = fixture
        .ok("resume_session", json!({ "workspacePath": fixture.path(), "runId": runs[0], "query": "number 3" }))
        .await;
    let first = &by_run["candidates"][0];
    assert_eq!(
        (first["runId"].as_str(), first["confidence"].as_str()),
        (Some(runs[0].as_str()), Some("strong")),
        "{by_run}"
    );
    assert_eq!(first["whyMatched"][0], "matched_run_id", "{first}");
    assert_eq!(by_run["candidates"][1]["runId"], runs[3].as_str(), "then the words: {by_run}");
    assert!(by_run["candidates"].as_array().unwrap().len() <= 5);
    let unknown =
        fixture.error("resume_session", json!({ "workspacePath": fixture.path(), "runId": "run_nope" })).await;
    assert_eq!(unknown["code"], "VALIDATION_ERROR", "{unknown}");
}

/// The run ids of a resume answer's candidates, best first, each with its first reason.
fn ranked(found: &Value) -> Vec<(String, String)> {
    found["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|candidate| {
            (candidate["runId"].as_str().unwrap().to_owned(), candidate["whyMatched"][0].as_str().unwrap().to_owned())
        })
        .collect()
}

#[tokio::test]
async fn resume_session_without_a_query_puts_the_current_branch_above_a_more_recent_session() {
    let fixture = fixture().await;
    let start = |goal: &str| {
        fixture
            .ok("start_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": fixture.path(), "goal": goal }))
    };
    git_repository(fixture.workspace.path(), "feature/okapi");
    let ours = start("Tidy the parser").await["runId"].as_str().unwrap().to_owned();
    git(&fixture, &["checkout", "--quiet", "-b", "feature/zebra"]);
    git(&fixture, &["commit", "--quiet", "--allow-empty", "-m", "second"]);
    let theirs = start("Speed up the lexer").await["runId"].as_str().unwrap().to_owned();
    // Back on the first branch at a commit neither session saw, so no HEAD matches.
    git(&fixture, &["checkout", "--quiet", "feature/okapi"]);
    git(&fixture, &["commit", "--quiet", "--allow-empty", "-m", "third"]);
    let by_recency =
        fixture.ok("resume_session", json!({ "workspacePath": fixture.path(), "gitBranch": "feature/none" })).await;
    assert_eq!(
        ranked(&by_recency),
        [(theirs.clone(), "recency".to_owned()), (ours.clone(), "recency".to_owned())],
        "recency alone puts the other branch's session first: {by_recency}"
    );
    let found = fixture.ok("resume_session", json!({ "workspacePath": fixture.path() })).await;
    assert_eq!(
        ranked(&found),
        [(ours, "matched_branch".to_owned()), (theirs, "recency".to_owned())],
        "the workspace's branch wins over recency: {found}"
    );
    assert_eq!(found["candidates"][0]["confidence"], "medium", "{found}");
}

/// Regression: the git, workflow-id and recency tiers and `sameWorkspaceOnly` looked only at the
/// 200 most recent sessions of the whole store, so a project left alone while others started 200
/// sessions was not found.
#[tokio::test]
async fn resume_session_finds_a_branch_and_a_workspace_however_many_sessions_came_since() {
    let fixture = fixture().await;
    git_repository(fixture.workspace.path(), "feature/okapi");
    one_step_workflow(&fixture, "zebra-survey");
    let ours = fixture
        .ok(
            "start_workflow",
            json!({ "workflowId": "zebra-survey", "workspacePath": fixture.path(), "goal": "Tidy the parser task" }),
        )
        .await["runId"]
        .as_str()
        .unwrap()
        .to_owned();
    let elsewhere = tempfile::tempdir().unwrap();
    let elsewhere = elsewhere.path().display().to_string();
    for index in 0..205 {
        let goal = format!("Another project's task {index}");
        fixture
            .ok("start_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": elsewhere, "goal": goal }))
            .await;
    }
    let by_branch =
        fixture.ok("resume_session", json!({ "workspacePath": elsewhere, "gitBranch": "feature/okapi" })).await;
    assert_eq!(ranked(&by_branch)[0], (ours.clone(), "matched_branch".to_owned()), "{by_branch}");
    let by_workflow = fixture
        .ok("resume_session", json!({ "workspacePath": elsewhere, "gitBranch": "feature/none", "query": "zebra" }))
        .await;
    assert_eq!(ranked(&by_workflow)[0], (ours.clone(), "matched_workflow_id".to_owned()), "{by_workflow}");
    let same_workspace = fixture
        .ok(
            "resume_session",
            json!({ "workspacePath": fixture.path(), "gitBranch": "feature/none", "sameWorkspaceOnly": true }),
        )
        .await;
    assert_eq!(ranked(&same_workspace), [(ours.clone(), "recency".to_owned())], "{same_workspace}");
    let by_words = fixture
        .ok("resume_session", json!({ "workspacePath": fixture.path(), "query": "task", "sameWorkspaceOnly": true }))
        .await;
    // 205 newer sessions elsewhere hold the word as well, and rank above ours store-wide.
    assert_eq!(ranked(&by_words), [(ours, "matched_goal".to_owned())], "only this project's sessions: {by_words}");
}

#[tokio::test]
async fn resume_session_puts_a_query_word_in_the_workflow_id_above_a_more_recent_session() {
    let fixture = fixture().await;
    one_step_workflow(&fixture, "okapi-survey");
    let start = |workflow: &str, goal: &str| {
        fixture.ok("start_workflow", json!({ "workflowId": workflow, "workspacePath": fixture.path(), "goal": goal }))
    };
    let ours = start("okapi-survey", "Count the animals").await["runId"].as_str().unwrap().to_owned();
    let theirs = start("dev-cycle", "Count the birds").await["runId"].as_str().unwrap().to_owned();
    let by_recency = fixture.ok("resume_session", json!({ "workspacePath": fixture.path() })).await;
    assert_eq!(
        ranked(&by_recency),
        [(theirs.clone(), "recency".to_owned()), (ours.clone(), "recency".to_owned())],
        "{by_recency}"
    );
    // No title, goal or notes holds the word, so only the workflow id can match it.
    let found = fixture.ok("resume_session", json!({ "workspacePath": fixture.path(), "query": "okapi" })).await;
    assert_eq!(
        ranked(&found),
        [(ours, "matched_workflow_id".to_owned()), (theirs, "recency".to_owned())],
        "the workflow id wins over recency: {found}"
    );
    assert_eq!(found["candidates"][0]["confidence"], "medium", "{found}");
}

#[tokio::test]
async fn a_null_in_a_context_delta_deletes_the_key_and_reserved_keys_are_refused() {
    let fixture = fixture().await;
    project_workflow(
        &fixture,
        "context-keys",
        "id: context-keys\nversion: \"1\"\ntitle: Context keys\ndescription: The second step shows the context.\nvariables:\n  draft: string\nsteps:\n  - {id: write, title: Write, prompt: Write it., next: review}\n  - id: review\n    title: Review\n    prompt: \"draft={{ context.draft | default('gone') }} scratch={{ context.scratch | default('gone') }} keep={{ context.keep }} added={{ context.added }}\"\n",
    );
    let started = fixture
        .ok(
            "start_workflow",
            json!({ "workflowId": "context-keys", "workspacePath": fixture.path(), "goal": "Review the draft",
                "context": { "draft": "v1", "scratch": 7, "keep": "stay" } }),
        )
        .await;
    let run = started["runId"].as_str().unwrap().to_owned();
    let before = fixture.event_count(&run).await;
    for (field, key, value) in [
        ("context", "eat_token", json!("x")),
        ("contextVariables", "metrics_harness", json!({ "on": true })),
        ("context", "parent_eat_token", Value::Null),
    ] {
        let refused = fixture
            .error(
                "continue_workflow",
                json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "written" },
                    field: { key: value, "draft": null } }),
            )
            .await;
        assert_eq!(refused["code"], "VALIDATION_ERROR", "{refused}");
        assert!(
            refused["message"].as_str().unwrap().contains(&format!("context key `{key}` is reserved")),
            "{refused}"
        );
        assert_eq!(refused["details"]["field"], format!("/context/{key}"), "{refused}");
    }
    assert_eq!(fixture.event_count(&run).await, before, "a refused delta writes nothing");

    let review = fixture
        .ok(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "written" },
                "context": { "draft": null, "scratch": null, "added": "new" } }),
        )
        .await;
    assert_eq!(
        review["pending"]["prompt"], "draft=gone scratch=gone keep=stay added=new",
        "the deleted keys are gone, the others stay: {review}"
    );
    let rehydrated =
        fixture.ok("continue_workflow", json!({ "continueToken": review["resumeToken"], "intent": "rehydrate" })).await;
    let recap = rehydrated["recap"]["text"].as_str().unwrap();
    assert!(recap.contains("context `keep` = stay") && recap.contains("context `added` = new"), "{recap}");
    assert!(!recap.contains("context `draft`") && !recap.contains("context `scratch`"), "{recap}");
    let nodes = fixture.server.runtime().run_nodes(run.parse().unwrap()).await.unwrap();
    let tip = nodes.iter().find(|node| node.id.to_string() == review["nodeId"].as_str().unwrap()).unwrap();
    let keys: Vec<&str> = tip.state.context.keys().map(String::as_str).collect();
    assert_eq!(keys, ["added", "keep"], "the run's context at the tip");
}

#[tokio::test]
async fn a_long_branch_recap_is_trimmed_with_a_visible_marker() {
    let fixture = fixture().await;
    project_workflow(
        &fixture,
        "long-haul",
        "id: long-haul\nversion: \"1\"\ntitle: Long haul\ndescription: Four plain steps.\nsteps:\n  - {id: one, title: One, prompt: Do one., next: two}\n  - {id: two, title: Two, prompt: Do two., next: three}\n  - {id: three, title: Three, prompt: Do three., next: four}\n  - {id: four, title: Four, prompt: Do four.}\n",
    );
    let mut answer = fixture
        .ok(
            "start_workflow",
            json!({ "workflowId": "long-haul", "workspacePath": fixture.path(), "goal": "Haul the yak" }),
        )
        .await;
    for step in ["one", "two", "three"] {
        let notes = format!("notes of {step}: {}", "y".repeat(20 * 1024));
        answer = fixture
            .ok(
                "continue_workflow",
                json!({ "continueToken": answer["continueToken"], "output": { "notesMarkdown": notes } }),
            )
            .await;
    }
    assert_eq!(answer["pending"]["stepId"], "four", "{answer}");
    let rehydrated =
        fixture.ok("continue_workflow", json!({ "continueToken": answer["resumeToken"], "intent": "rehydrate" })).await;
    let recap = rehydrated["recap"]["text"].as_str().unwrap();
    assert!(recap.len() < 3 * 20 * 1024, "bounded: {} bytes", recap.len());
    assert!(recap.contains("[TRUNCATED:"), "a visible marker: {}", &recap[recap.len().saturating_sub(200)..]);
    assert!(recap.contains("notes of three"), "the latest notes stay, the oldest go first");
    assert!(!recap.contains("notes of one"), "the oldest notes went first");
}

#[tokio::test]
async fn a_completed_run_offers_no_token_and_its_last_report_only_replays() {
    let fixture = fixture().await;
    project_workflow(
        &fixture,
        "two-step",
        "id: two-step\nversion: \"1\"\ntitle: Two steps\ndescription: Short.\nsteps:\n  - {id: one, title: One, prompt: Do one., next: two}\n  - {id: two, title: Two, prompt: Do two.}\n",
    );
    let started = fixture
        .ok(
            "start_workflow",
            json!({ "workflowId": "two-step", "workspacePath": fixture.path(), "goal": "Finish twice" }),
        )
        .await;
    let second = fixture
        .ok(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "one" } }),
        )
        .await;
    let last = json!({ "continueToken": second["continueToken"], "output": { "notesMarkdown": "two" } });
    let done = fixture.ok("continue_workflow", last.clone()).await;
    assert_eq!((done["kind"].as_str(), done["continueToken"].as_str()), (Some("complete"), None), "{done}");
    let run = started["runId"].as_str().unwrap().to_owned();
    let before = fixture.event_count(&run).await;
    let replayed = fixture.ok("continue_workflow", last).await;
    assert_eq!((replayed["replayed"].as_bool(), replayed["nodeId"].as_str()), (Some(true), done["nodeId"].as_str()));
    let other = fixture
        .error(
            "continue_workflow",
            json!({ "continueToken": second["continueToken"], "output": { "notesMarkdown": "more" } }),
        )
        .await;
    assert_eq!(other["code"], "REPLAY_MISMATCH", "{other}");
    assert_eq!(fixture.event_count(&run).await, before, "neither call wrote anything");
    // Said in words, with the way to a fresh token; the hashes only in the details.
    let message = other["message"].as_str().unwrap();
    assert!(message.contains("continue token was already used, with different notes"), "{message}");
    assert!(message.contains(&format!("`switchyard show {run}`")), "{message}");
    assert!(!message.contains(other["details"]["recordedSha256"].as_str().unwrap()), "{message}");
    assert_eq!(other["details"]["differs"], json!(["notes"]));
}

#[tokio::test]
async fn a_human_decision_waits_and_the_agent_cannot_take_it() {
    let fixture = fixture().await;
    project_workflow(
        &fixture,
        "strict-gate",
        "id: strict-gate\nversion: \"1\"\ntitle: Strict gate\ndescription: One rejection and a human decides.\nlimits: {max_revision_attempts: 0}\nsteps:\n  - {id: draft, title: Draft, prompt: Draft it., gate: true, next: done}\n  - {id: done, title: Done, prompt: Finish.}\n",
    );
    let started = fixture
        .ok(
            "start_workflow",
            json!({ "workflowId": "strict-gate", "workspacePath": fixture.path(), "goal": "Draft the memo" }),
        )
        .await;
    let waiting = fixture
        .ok(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "a draft" } }),
        )
        .await;
    assert_eq!(waiting["kind"], "waiting_for_human_gate", "{waiting}");
    let run: switchyard_core::RunId = started["runId"].as_str().unwrap().parse().unwrap();
    fixture.server.runtime().reject(run, "not yet".to_owned()).await.unwrap();
    let deciding = fixture.ok("continue_workflow", waiting["nextCall"]["params"].clone()).await;
    assert_eq!(deciding["kind"], "waiting_for_human_decision", "{deciding}");
    assert_eq!((deciding["retryable"].as_bool(), deciding["continueToken"].as_str()), (Some(true), None), "{deciding}");
    assert!(deciding["decision"]["decideWith"].as_str().unwrap().starts_with("switchyard decide run_"), "{deciding}");
    let again = fixture.ok("continue_workflow", deciding["nextCall"]["params"].clone()).await;
    assert_eq!(
        (again["kind"].as_str(), again["nodeId"].as_str()),
        (Some("waiting_for_human_decision"), deciding["nodeId"].as_str())
    );
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
async fn a_next_call_sent_verbatim_is_refused_before_anything_is_recorded() {
    let fixture = fixture().await;
    let started = fixture.start().await;
    let run = started["runId"].as_str().unwrap().to_owned();
    let params = started["nextCall"]["params"].clone();
    let notes = params["output"]["notesMarkdown"].as_str().unwrap_or_default();
    assert!(notes.starts_with("<fill in: "), "the report to fill in is part of the call: {params}");
    let events = fixture.event_count(&run).await;
    let refused = fixture.error("continue_workflow", params).await;
    assert_eq!(refused["code"], "VALIDATION_ERROR", "{refused}");
    assert_eq!(refused["details"]["cause"], "REPORT_NOT_FILLED_IN");
    assert_eq!(refused["details"]["placeholders"], json!(["notes"]));
    assert_eq!(fixture.event_count(&run).await, events, "nothing is recorded");
    let (_, _, text) = fixture
        .call("continue_workflow", json!({ "continueToken": started["continueToken"], "intent": "rehydrate" }))
        .await;
    assert!(text.contains("Replace each `<fill in: …>`"), "the text says what to fill in: {text}");
}

#[tokio::test]
async fn a_run_id_sent_as_continue_token_is_named_with_where_its_token_comes_from() {
    let fixture = fixture().await;
    let started = fixture.start().await;
    let run = started["runId"].as_str().unwrap().to_owned();
    for arguments in
        [json!({ "continueToken": run }), json!({ "continueToken": run, "output": { "notesMarkdown": "done" } })]
    {
        let refused = fixture.error("continue_workflow", arguments).await;
        assert_eq!(refused["code"], "TOKEN_INVALID_FORMAT", "{refused}");
        assert_eq!(refused["details"]["cause"], "ID_NOT_TOKEN");
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains("is a run id, not a continue token"), "{message}");
        assert!(message.contains(&format!("`switchyard show {run}`")), "{message}");
    }
}

#[tokio::test]
async fn an_agent_cannot_start_a_workflow_file_by_naming_its_path() {
    let fixture = fixture().await;
    let file = fixture.workspace.path().join("wf.yaml");
    std::fs::write(&file, "id: by-path\ntitle: T\nsteps:\n  - id: only\n    title: Only\n    prompt: Do it.\n")
        .unwrap();
    let start = |name: String| {
        fixture.error("start_workflow", json!({ "workflowId": name, "workspacePath": fixture.path(), "goal": "x" }))
    };
    assert_eq!(start(file.display().to_string()).await["code"], "VALIDATION_ERROR", "no id has a separator");
    let refused = start("wf.yaml".to_owned()).await;
    assert_eq!(refused["details"]["cause"], "INVALID_NAME", "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("not a workflow name"), "{refused}");
}

#[tokio::test]
async fn the_next_call_carries_the_artifacts_the_schema_requires_and_filled_in_it_advances() {
    let fixture = fixture().await;
    let started = fixture
        .ok(
            "start_workflow",
            json!({ "workflowId": "code-review", "workspacePath": fixture.path(), "goal": "Review the parser" }),
        )
        .await;
    let next = &started["nextCall"];
    assert_eq!(
        next["params"]["output"]["artifacts"],
        json!({ "intent": "<fill in: string>", "files": ["<fill in: string>"] }),
        "{next}"
    );
    let paths: Vec<&str> = next["fillIn"].as_array().unwrap().iter().filter_map(|fill| fill["path"].as_str()).collect();
    assert_eq!(paths, ["notes", "/artifacts/intent", "/artifacts/files/0"]);
    let mut params = next["params"].clone();
    params["output"] =
        json!({ "notesMarkdown": "Read it.", "artifacts": { "intent": "faster parsing", "files": ["parser.rs"] } });
    let advanced = fixture.ok("continue_workflow", params).await;
    assert_eq!(advanced["kind"], "ok", "{advanced}");
    assert_eq!(advanced["pending"]["stepId"], "assess");
    let severity = &advanced["nextCall"]["params"]["output"]["artifacts"]["findings"][0]["severity"];
    assert_eq!(severity, "<fill in: one of blocker, major, minor, nit>");
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
    let listed = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "listAll": true })).await;
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
    assert_eq!(listed["validationWarnings"][0]["workflowId"], "broken", "the summary step reports it too: {listed}");
}

#[tokio::test]
async fn a_workrail_tag_catalog_adds_tags_descriptions_and_hides_workflows() {
    let fixture = fixture().await;
    project_workflow(
        &fixture,
        "audit-trail",
        "id: audit-trail\nversion: \"1\"\ntitle: Audit\ndescription: Audits.\nsteps:\n  - {id: only, title: Only, prompt: Do it.}\n",
    );
    project_workflow(
        &fixture,
        "scratch-test",
        "id: scratch-test\nversion: \"1\"\ntitle: Scratch\ndescription: A test.\nsteps:\n  - {id: only, title: Only, prompt: Do it.}\n",
    );
    let catalog = json!({
        "version": 1,
        "tags": [{ "id": "review_audit", "displayName": "Review & Audit", "when": ["before a merge"], "examples": [] }],
        "workflows": { "audit-trail": { "tags": ["review_audit"] }, "scratch-test": { "tags": ["coding"], "hidden": true } }
    });
    let folder = fixture.workspace.path().join(".switchyard/workflows");
    std::fs::write(folder.join("workflow-tags.json"), catalog.to_string()).unwrap();

    let summary = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path() })).await;
    let tags = summary["tagSummary"].as_array().expect("a tag summary");
    let review = tags.iter().find(|tag| tag["id"] == "review_audit").unwrap_or_else(|| panic!("{summary}"));
    assert_eq!((&review["displayName"], &review["when"]), (&json!("Review & Audit"), &json!(["before a merge"])));
    assert_eq!(review["examples"], json!(["audit-trail"]), "{summary}");
    assert!(!summary.to_string().contains("scratch-test"), "a hidden workflow is not discovered by tag: {summary}");

    let listed =
        fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "tags": ["review_audit"] })).await;
    assert_eq!(listed["workflows"][0]["workflowId"], "audit-trail", "{listed}");
    assert_eq!(listed["workflows"][0]["tags"], json!(["review_audit"]));
    let all = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "listAll": true })).await;
    assert!(all.to_string().contains("scratch-test"), "the plain list still shows it: {all}");
}

#[tokio::test]
async fn list_workflows_without_tags_answers_a_tag_summary_then_lists_by_tag() {
    let fixture = fixture().await;
    project_workflow(
        &fixture,
        "audit-trail",
        "id: audit-trail\nversion: \"1\"\ntitle: Audit\ndescription: Audits.\ntags: [Review, security]\nsteps:\n  - {id: only, title: Only, prompt: Do it.}\n",
    );
    one_step_workflow(&fixture, "plain-one");
    let summary = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path() })).await;
    assert_eq!(summary["workflows"], json!([]), "the first step lists no workflow: {summary}");
    let tags = summary["tagSummary"].as_array().expect("a tag summary");
    let tag = |id: &str| tags.iter().find(|tag| tag["id"] == id).unwrap_or_else(|| panic!("no `{id}`: {summary}"));
    assert!(tag("review")["examples"].as_array().unwrap().contains(&json!("audit-trail")), "{summary}");
    assert!(tag("review")["count"].as_u64().unwrap() >= 2, "code-review is tagged review too: {summary}");
    assert_eq!(tag("security")["count"], 1);
    assert!(tag("untagged")["examples"].as_array().unwrap().contains(&json!("plain-one")), "{summary}");
    let review = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "tags": ["SECURITY"] })).await;
    let ids: Vec<&Value> = review["workflows"].as_array().unwrap().iter().map(|entry| &entry["workflowId"]).collect();
    assert_eq!(ids, [&json!("audit-trail")], "{review}");
    assert!(review.get("tagSummary").is_none(), "{review}");
    let untagged = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "tags": ["untagged"] })).await;
    assert!(untagged["workflows"].as_array().unwrap().iter().any(|entry| entry["workflowId"] == "plain-one"));
    assert!(untagged["workflows"].as_array().unwrap().iter().all(|entry| entry["tags"] == json!([])), "{untagged}");
}

#[tokio::test]
async fn list_workflows_is_bounded_and_inspect_has_a_metadata_mode() {
    let fixture = fixture().await;
    for index in 0..switchyard_mcp::tools::MAX_LISTED_WORKFLOWS {
        let name = format!("bulk-{index:03}");
        project_workflow(
            &fixture,
            &name,
            &format!(
                "id: {name}\nversion: \"1\"\ntitle: Bulk\ndescription: Filler.\nsteps:\n  - {{id: only, title: Only, prompt: Do it.}}\n"
            ),
        );
    }
    let listed = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "listAll": true })).await;
    assert_eq!(listed["workflows"].as_array().unwrap().len(), switchyard_mcp::tools::MAX_LISTED_WORKFLOWS);
    assert_eq!(listed["truncated"], true, "the built-ins did not fit and the answer says so");
    let metadata = fixture
        .ok(
            "inspect_workflow",
            json!({ "workflowId": "dev-cycle", "workspacePath": fixture.path(), "mode": "metadata" }),
        )
        .await;
    assert_eq!(metadata["mode"], "metadata");
    assert!(metadata["compiled"]["steps"].is_u64(), "metadata counts steps, not the graph: {metadata}");
}

/// A WorkRail file in the project whose JSON `id` is not its file name.
fn workrail_workflow(fixture: &Fixture, file_name: &str, id: &str) {
    let folder = fixture.workspace.path().join(".switchyard/workflows");
    std::fs::create_dir_all(&folder).unwrap();
    let json = format!(
        r#"{{"id": "{id}", "name": "Listed by id", "version": "1.0.0", "description": "One step.",
        "steps": [{{"id": "only", "title": "The only step", "prompt": "Do the work."}}]}}"#
    );
    std::fs::write(folder.join(format!("{file_name}.json")), json).unwrap();
}

#[tokio::test]
async fn a_workflow_id_the_server_listed_is_accepted_by_inspect_and_start() {
    let fixture = fixture().await;
    workrail_workflow(&fixture, "saved-under-another-name", "listed-id");
    let listed = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "listAll": true })).await;
    let ids: Vec<&str> =
        listed["workflows"].as_array().unwrap().iter().map(|entry| entry["workflowId"].as_str().unwrap()).collect();
    assert!(ids.contains(&"listed-id"), "{ids:?}");

    for name in ["listed-id", "saved-under-another-name"] {
        let inspected =
            fixture.ok("inspect_workflow", json!({ "workflowId": name, "workspacePath": fixture.path() })).await;
        assert_eq!(inspected["workflowId"], "listed-id", "{inspected}");
        let started = fixture
            .ok("start_workflow", json!({ "workflowId": name, "workspacePath": fixture.path(), "goal": "Try it" }))
            .await;
        assert!(started["continueToken"].is_string(), "{started}");
    }
}

#[tokio::test]
async fn a_workflow_id_two_files_share_is_refused_as_ambiguous_naming_both() {
    let fixture = fixture().await;
    workrail_workflow(&fixture, "first-copy", "shared-id");
    workrail_workflow(&fixture, "second-copy", "shared-id");
    let refused =
        fixture.error("inspect_workflow", json!({ "workflowId": "shared-id", "workspacePath": fixture.path() })).await;
    assert_eq!(refused["details"]["cause"], "WORKFLOW_AMBIGUOUS", "{refused}");
    let message = refused["message"].as_str().unwrap();
    assert!(message.contains("first-copy") && message.contains("second-copy"), "{message}");
    // Each is still reachable by its file name.
    fixture.ok("inspect_workflow", json!({ "workflowId": "first-copy", "workspacePath": fixture.path() })).await;
}

#[tokio::test]
async fn manage_workflow_source_attaches_a_folder_idempotently_and_keeps_it_across_restarts() {
    let fixture = fixture().await;
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("shared-flow.yaml"),
        "id: shared-flow\nversion: \"1\"\ntitle: Shared\ndescription: From an attached folder.\nsteps:\n  - {id: only, title: Only, prompt: Do it.}\n",
    )
    .unwrap();
    let link = fixture.workspace.path().join("flows-link");
    std::os::unix::fs::symlink(folder.path(), &link).unwrap();
    let attach = json!({ "action": "attach", "path": link.display().to_string() });
    let attached = fixture.ok("manage_workflow_source", attach.clone()).await;
    let canonical = std::fs::canonicalize(folder.path()).unwrap().display().to_string();
    assert_eq!(attached["path"], canonical.as_str(), "recorded by its canonical path: {attached}");
    assert_eq!((&attached["action"], &attached["changed"]), (&json!("attach"), &json!(true)));
    let again = fixture.ok("manage_workflow_source", attach).await;
    assert_eq!(again["changed"], false, "attaching twice changes nothing: {again}");
    let listed = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "listAll": true })).await;
    let entry = listed["workflows"].as_array().unwrap().iter().find(|entry| entry["workflowId"] == "shared-flow");
    assert_eq!(entry.expect("listed")["source"]["kind"], "attached", "{listed}");
    fixture
        .ok("start_workflow", json!({ "workflowId": "shared-flow", "workspacePath": fixture.path(), "goal": "Share" }))
        .await;

    let config =
        Config::resolve(Overrides { home: Some(fixture.home.path().to_owned()), store: None, project_root: None })
            .unwrap();
    let restarted = common::server(&config).await;
    let other_workspace = tempfile::tempdir().unwrap();
    let Value::Object(arguments) =
        json!({ "workspacePath": other_workspace.path().display().to_string(), "tags": ["untagged"] })
    else {
        unreachable!()
    };
    let relisted = restarted.call("list_workflows", Some(arguments), None).await.unwrap().structured_content.unwrap();
    assert!(
        relisted["workflows"].to_string().contains("shared-flow"),
        "kept across restarts, in any workspace: {relisted}"
    );

    let detach = json!({ "action": "detach", "path": canonical });
    assert_eq!(fixture.ok("manage_workflow_source", detach.clone()).await["changed"], true);
    assert_eq!(fixture.ok("manage_workflow_source", detach).await["changed"], false);
    let listed = fixture.ok("list_workflows", json!({ "workspacePath": fixture.path(), "listAll": true })).await;
    assert!(!listed["workflows"].to_string().contains("shared-flow"), "{listed}");
}

#[tokio::test]
async fn manage_workflow_source_refuses_what_is_not_an_absolute_directory() {
    let fixture = fixture().await;
    let file = fixture.workspace.path().join("notes.txt");
    std::fs::write(&file, "not a folder").unwrap();
    for (path, expected) in [
        (file.display().to_string(), "not a directory"),
        ("relative/flows".to_owned(), "absolute"),
        (fixture.workspace.path().join("missing").display().to_string(), "cannot attach"),
    ] {
        let refused = fixture.error("manage_workflow_source", json!({ "action": "attach", "path": path })).await;
        assert_eq!(refused["code"], "VALIDATION_ERROR", "{refused}");
        assert!(refused["message"].as_str().unwrap().contains(expected), "{refused}");
    }
    let wrong = fixture.error("manage_workflow_source", json!({ "action": "mount", "path": "/tmp" })).await;
    assert!(wrong["message"].as_str().unwrap().contains("/action"), "{wrong}");
    assert!(!fixture.home.path().join("attached-sources.json").exists(), "nothing written");
}

#[tokio::test]
async fn an_audit_advance_answers_with_its_downgraded_finding() {
    let fixture = fixture().await;
    project_workflow(
        &fixture,
        "audited",
        "id: audited\nsteps:\n  - {id: audit, prompt: Audit the change., notes: optional, audit: true, next: ship}\n  - {id: ship, prompt: Ship.}\n",
    );
    let started = fixture
        .ok(
            "start_workflow",
            json!({ "workflowId": "audited", "workspacePath": fixture.path(), "goal": "Audit", "strictStatus": false }),
        )
        .await;
    let report = json!({
        "status": "blocked", "summary": "Potential logic error in wave resume", "confidence": 0.65,
        "validated": false, "skills_used": [], "skills_missing": [], "model_override_reason": null
    });
    let (is_error, answer, text) = fixture
        .call(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "artifacts": report } }),
        )
        .await;
    assert!(!is_error, "{answer}");
    assert_eq!(answer["kind"], "ok", "a downgraded finding does not block: {answer}");
    let section = &text[text.find("## Report warnings").expect("the text shows the warning")..];
    let section = section.split("\n\n").next().unwrap();
    insta::assert_json_snapshot!(
        "audit_downgrade",
        json!({ "reportWarnings": answer["reportWarnings"], "text": section })
    );
}

#[tokio::test]
async fn a_continue_answer_says_why_the_run_went_where_it_went() {
    let fixture = fixture().await;
    project_workflow(
        &fixture,
        "reviewed",
        "id: reviewed\nversion: \"1\"\ntitle: Reviewed\ndescription: Checked until stable.\nvariables:\n  stable: {type: boolean, default: false}\nsteps:\n  - id: check\n    title: Check\n    prompt: Check it.\n    next:\n      - {to: done, label: ship, when: \"stable == true\"}\n      - {to: check, label: again, when: \"!stable\", kind: loop}\n  - {id: done, title: Done, prompt: Done.}\n",
    );
    let started = fixture
        .ok(
            "start_workflow",
            json!({ "workflowId": "reviewed", "workspacePath": fixture.path(), "goal": "Check the parser" }),
        )
        .await;
    assert!(started.get("why").is_none(), "nothing was decided at start: {started}");
    let again = fixture
        .ok(
            "continue_workflow",
            json!({ "continueToken": started["continueToken"], "output": { "notesMarkdown": "not yet" } }),
        )
        .await;
    let why = &again["why"];
    assert_eq!(why["sentence"], "took `again` because `!stable` held; not `ship`", "{again}");
    assert_eq!(why["rule"], json!({"kind": "condition", "label": "again"}));
    assert_eq!(
        why["evaluated"][0],
        json!({
            "step": "check",
            "subject": {"kind": "edge", "label": "ship"},
            "text": "stable == true",
            "read": {"stable": false},
            "result": "not_held",
            "nearest": "set stable to true",
        })
    );
    assert_eq!(why["evaluated"][1]["result"], "held");
    // A step with one way on and no condition has nothing to explain.
    let done = fixture
        .ok(
            "continue_workflow",
            json!({ "continueToken": again["continueToken"], "output": { "notesMarkdown": "stable now" },
                "context": { "stable": true } }),
        )
        .await;
    assert_eq!(done["why"]["rule"], json!({"kind": "condition", "label": "ship"}), "{done}");
    let finished = fixture
        .ok("continue_workflow", json!({ "continueToken": done["continueToken"], "output": { "notesMarkdown": "ok" } }))
        .await;
    assert!(finished.get("why").is_none(), "{finished}");
}
