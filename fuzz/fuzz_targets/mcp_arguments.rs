//! MCP tool arguments: any JSON object at any tool of the in-process server is answered or
//! refused as a tool error, never a panic or a protocol fault.

#![no_main]

use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use switchyard_mcp::{ServerOptions, SwitchyardServer};
use switchyard_runtime::{Config, Overrides, Runtime};

struct Fixture {
    _home: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
    server: SwitchyardServer,
    tools: Vec<String>,
}

static FIXTURE: LazyLock<Fixture> = LazyLock::new(|| {
    let home = tempfile::tempdir().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let config = Config::resolve(Overrides {
        home: Some(home.path().to_owned()),
        store: None,
        project_root: Some(home.path().to_owned()),
    })
    .unwrap();
    let switchyard = runtime.block_on(Runtime::open(&config)).unwrap();
    let server = SwitchyardServer::new(Arc::new(switchyard), &ServerOptions::default());
    let tools = server.tool_list().into_iter().map(|tool| tool.name.to_string()).collect();
    Fixture { _home: home, runtime, server, tools }
});

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(Value::Object(arguments)) = serde_json::from_slice::<Value>(rest) else { return };
    let fixture = &*FIXTURE;
    let tool = &fixture.tools[usize::from(selector) % fixture.tools.len()];
    let answer = fixture.runtime.block_on(fixture.server.call(tool, Some(arguments), None));
    assert!(answer.is_ok(), "{tool} answered a protocol fault: {answer:?}");
});
