//! Properties of the MCP door over arbitrary input, in bounded time on stable: any JSON object at
//! any tool is answered or refused as a tool error (never a panic or a protocol fault), and any
//! lines on stdio are answered with JSON-RPC frames while the server keeps serving.

use std::sync::Arc;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_mcp::{ServerOptions, SwitchyardServer};
use switchyard_runtime::Runtime;
use switchyard_test_support::TestHome;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// JSON values of any shape, with the names the tools use as keys half of the time.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
        Just(json!("ct_AAAAAAAAAAAAAAAAAAAAAAAA")),
        Just(json!("run_00000000000000000000000000")),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(key(), inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec![
            "workflowId",
            "goal",
            "workspacePath",
            "continueToken",
            "intent",
            "output",
            "notes",
            "artifacts",
            "context",
            "choice",
            "checkpointToken",
            "runId",
            "query",
            "limit",
            "sessionId",
        ])
        .prop_map(str::to_owned),
        "[a-zA-Z]{0,8}",
    ]
}

fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::btree_map(key(), json_value(), 0..6).prop_map(|map| map.into_iter().collect())
}

struct Fixture {
    _home: TestHome,
    runtime: tokio::runtime::Runtime,
    server: SwitchyardServer,
}

fn fixture() -> Fixture {
    let home = TestHome::new();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let config = Config::resolve(Overrides {
        home: Some(home.path().to_owned()),
        store: None,
        project_root: Some(home.path().to_owned()),
    })
    .unwrap();
    let switchyard = runtime.block_on(Runtime::open(&config)).unwrap();
    let server = SwitchyardServer::new(Arc::new(switchyard), Catalog::configured(&config), &ServerOptions::default());
    Fixture { _home: home, runtime, server }
}

#[test]
fn any_arguments_at_any_tool_get_an_answer_or_a_tool_error() {
    let fixture = fixture();
    let tools: Vec<String> = fixture.server.tool_list().into_iter().map(|tool| tool.name.to_string()).collect();
    proptest!(ProptestConfig::with_cases(300), |(tool in prop::sample::select(tools), arguments in arguments())| {
        let answer = fixture.runtime.block_on(fixture.server.call(&tool, Some(arguments.clone()), None));
        let result = answer.map_err(|error| TestCaseError::fail(format!("{tool} {arguments:?}: protocol fault {error:?}")))?;
        if result.is_error == Some(true) {
            let text = result.content.first().and_then(|content| content.as_text()).map(|text| text.text.clone());
            let envelope: Value = serde_json::from_str(&text.unwrap_or_default()).unwrap_or_default();
            prop_assert!(envelope["code"].is_string(), "{tool}: a tool error carries a code: {envelope}");
        }
    });
}

/// Lines of every kind: JSON-RPC-shaped frames with odd fields, other JSON, and raw text.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        (
            json_value(),
            prop::sample::select(vec!["ping", "tools/list", "tools/call", "initialize", "nope"]),
            json_value()
        )
            .prop_map(|(id, method, params)| json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
                .to_string()),
        json_value().prop_map(|value| value.to_string()),
        "[^\n]{0,40}",
    ]
}

#[test]
fn any_lines_on_stdio_are_answered_with_frames_and_serving_goes_on() {
    let fixture = fixture();
    proptest!(ProptestConfig::with_cases(48), |(lines in proptest::collection::vec(line(), 0..6))| {
        let server = fixture.server.clone();
        let output = fixture.runtime.block_on(async move {
            let (mut client, server_side) = tokio::io::duplex(1 << 20);
            let (input, output) = tokio::io::split(server_side);
            let serving = tokio::spawn(switchyard_mcp::stdio::serve_io(server, input, output));
            let initialize = json!({ "jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "properties", "version": "1" } } });
            let mut text = format!("{initialize}\n{}\n", json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
            for line in &lines {
                text.push_str(line);
                text.push('\n');
            }
            text.push_str(&json!({ "jsonrpc": "2.0", "id": "last", "method": "ping" }).to_string());
            text.push('\n');
            client.write_all(text.as_bytes()).await.unwrap();
            client.shutdown().await.unwrap();
            let mut output = String::new();
            client.read_to_string(&mut output).await.unwrap();
            let served = serving.await.unwrap();
            (output, served.is_ok())
        });
        let (output, served) = output;
        prop_assert!(served, "serve_io ends cleanly");
        let frames: Vec<Value> = output
            .lines()
            .map(|line| serde_json::from_str(line).map_err(|error| TestCaseError::fail(format!("not a frame ({error}): {line}"))))
            .collect::<Result<_, _>>()?;
        prop_assert!(frames.iter().any(|frame| frame["id"] == "last"), "the last ping is answered:\n{output}");
    });
}
