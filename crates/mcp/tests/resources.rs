//! Runs as MCP resources, in process: what a run's resource holds at each stage (golden), that
//! reading one writes nothing, the errors for URIs that name no run, paging through the list, and
//! which URIs a `subscriptions/listen` filter keeps. Following runs over the real protocols, across
//! processes and servers, is tested with the Python SDK in the CLI's tests.

mod common;

use common::{Fixture, fixture};
use rmcp::model::{ErrorCode, ResourceContents, SubscriptionFilter};
use serde_json::{Value, json};
use switchyard_mcp::resources::{self, RUN_URI_PREFIX};

impl Fixture {
    async fn tool(&self, name: &str, arguments: Value) -> Value {
        let Value::Object(arguments) = arguments else { panic!("arguments are an object") };
        let result = self.server.call(name, Some(arguments), None).await.unwrap();
        assert_ne!(result.is_error, Some(true), "{name}: {result:?}");
        result.structured_content.unwrap()
    }

    async fn start(&self, goal: &str) -> Value {
        let workspace = self.workspace.path().display().to_string();
        self.tool("start_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": workspace, "goal": goal }))
            .await
    }

    async fn read(&self, uri: &str) -> Value {
        let result = resources::read(self.server.runtime(), uri).await.unwrap();
        let [ResourceContents::TextResourceContents { uri: read_uri, mime_type, text, .. }] =
            result.contents.as_slice()
        else {
            panic!("one text content: {result:?}")
        };
        assert_eq!((read_uri.as_str(), mime_type.as_deref()), (uri, Some("application/json")));
        serde_json::from_str(text).unwrap()
    }
}

/// The ids and times of a resource, replaced so a golden file can hold it.
fn redacted(mut resource: Value) -> Value {
    let run = resource["runId"].as_str().unwrap().to_owned();
    resource["next"] = json!(resource["next"].as_str().unwrap().replace(&run, "[runId]"));
    for key in ["uri", "runId", "sessionId", "nodeId", "createdAtMs", "updatedAtMs"] {
        resource[key] = json!(format!("[{key}]"));
    }
    resource
}

#[tokio::test]
async fn a_runs_resource_says_where_it_stands_and_reading_it_writes_nothing() {
    let fixture = fixture().await;
    let started = fixture.start("Add a verbose flag").await;
    let run = started["runId"].as_str().unwrap();
    let uri = format!("{RUN_URI_PREFIX}{run}");

    let active = fixture.read(&uri).await;
    assert_eq!((active["runId"].as_str(), active["nodeId"].as_str()), (Some(run), started["nodeId"].as_str()));
    let session = started["sessionId"].as_str().unwrap().parse().unwrap();
    let before = fixture.server.runtime().session(session).await.unwrap();
    fixture.read(&uri).await;
    assert_eq!(fixture.server.runtime().session(session).await.unwrap(), before, "a read records nothing");

    let token = started["continueToken"].as_str().unwrap();
    let notes = "Plan: add the flag, test it, document it.";
    fixture.tool("continue_workflow", json!({ "continueToken": token, "output": { "notesMarkdown": notes } })).await;
    let at_gate = fixture.read(&uri).await;

    fixture.server.runtime().stop(run.parse().unwrap(), Some("enough".to_owned())).await.unwrap();
    let stopped = fixture.read(&uri).await;
    assert_eq!(stopped["step"], Value::Null, "an ended run stands at no step");

    insta::assert_json_snapshot!(
        "run_resource",
        json!({ "active": redacted(active), "at_gate": redacted(at_gate), "stopped": redacted(stopped) })
    );
}

#[tokio::test]
async fn a_uri_that_names_no_run_is_refused_with_what_names_one() {
    let fixture = fixture().await;
    let runtime = fixture.server.runtime();
    let unknown = format!("{RUN_URI_PREFIX}run_aaaaaaaaaaaaaaaaaaaaaaaaaa");
    for (uri, code, says) in [
        ("file:///etc/passwd", ErrorCode::INVALID_PARAMS, "is not a switchyard resource"),
        ("switchyard://runs/sess_x", ErrorCode::INVALID_PARAMS, "names no run"),
        ("switchyard://runs/", ErrorCode::INVALID_PARAMS, "names no run"),
        (unknown.as_str(), ErrorCode::RESOURCE_NOT_FOUND, "run_aaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ] {
        let error = resources::read(runtime, uri).await.unwrap_err();
        assert_eq!(error.code, code, "{uri}: {error:?}");
        assert!(error.message.contains(says), "{uri}: {}", error.message);
    }
}

#[tokio::test]
async fn the_list_names_every_run_newest_first_a_page_at_a_time() {
    let fixture = fixture().await;
    let mut runs = Vec::new();
    for index in 0..57 {
        runs.push(fixture.start(&format!("Goal number {index}")).await["runId"].as_str().unwrap().to_owned());
    }
    let runtime = fixture.server.runtime();
    let first = resources::list(runtime, None).await.unwrap();
    assert_eq!(first.resources.len(), 50);
    let cursor = first.next_cursor.clone().expect("a full page has a next one");
    let second = resources::list(runtime, Some(&cursor)).await.unwrap();
    assert_eq!((second.resources.len(), second.next_cursor.as_deref()), (7, None));

    let listed: Vec<String> =
        first.resources.iter().chain(&second.resources).map(|resource| resource.uri.clone()).collect();
    let expected: Vec<String> = runs.iter().rev().map(|run| format!("{RUN_URI_PREFIX}{run}")).collect();
    assert_eq!(listed, expected);
    let newest = &first.resources[0];
    assert_eq!(newest.title.as_deref(), Some("Goal number 56"));
    assert_eq!(newest.description.as_deref(), Some("dev-cycle, active"));

    let error = resources::list(runtime, Some("yesterday")).await.unwrap_err();
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
    assert!(error.message.contains("not a cursor this server gave"), "{}", error.message);
}

#[test]
fn a_listen_filter_keeps_the_run_uris_and_nothing_else() {
    let run = format!("{RUN_URI_PREFIX}run_aaaaaaaaaaaaaaaaaaaaaaaaaa");
    let requested = SubscriptionFilter::builder()
        .tools_list_changed()
        .resources_list_changed()
        .resource_subscriptions([run.as_str(), "file:///etc/passwd", "switchyard://runs/nonsense"])
        .build();
    let accepted = resources::accepted_filter(&requested);
    assert_eq!(accepted, SubscriptionFilter::builder().resource_subscriptions([run]).build());
}
