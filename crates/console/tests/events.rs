//! `/events` over real HTTP: a run started through another runtime on the same store, as another
//! process sharing the file would, reaches an open stream as a `change` event naming its session.

use std::sync::Arc;
use std::time::Duration;

use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};

use switchyard_runtime::{Runtime, StartRequest};

/// Generous: an event arrives in milliseconds; this only keeps a broken stream from hanging.
const PATIENCE: Duration = Duration::from_secs(10);

async fn runtime(home: &std::path::Path) -> Runtime {
    let config = Config::resolve(Overrides { home: Some(home.to_owned()), ..Overrides::default() }).expect("config");
    Runtime::open(&config).await.expect("open the runtime")
}

/// Reads the stream until one whole event of `kind` has arrived, and returns that event's lines.
async fn next_event(response: &mut reqwest::Response, buffer: &mut String, kind: &str) -> String {
    let wanted = format!("event: {kind}\n");
    loop {
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            if event.starts_with(&wanted) {
                return event;
            }
        }
        let chunk = tokio::time::timeout(PATIENCE, response.chunk())
            .await
            .expect("an event within the patience bound")
            .expect("reading the stream")
            .expect("the stream stays open");
        buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_started_by_another_runtime_on_the_store_reaches_an_open_stream() {
    let home = tempfile::tempdir().expect("a temporary home");
    let serving = Arc::new(runtime(home.path()).await);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(axum::serve(listener, switchyard_console::router(serving, Catalog::builtins_only())).into_future());

    let mut response =
        reqwest::get(format!("http://{address}/events")).await.expect("GET /events").error_for_status().unwrap();
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let mut buffer = String::new();
    // The stream's first frame says it is open; the subscription exists from here on.
    while !buffer.contains("\n\n") {
        let chunk = response.chunk().await.expect("reading").expect("the first frame");
        buffer.push_str(std::str::from_utf8(&chunk).expect("UTF-8"));
    }

    let other = runtime(home.path()).await;
    let started = other
        .start(
            &Catalog::builtins_only(),
            StartRequest {
                workflow: Some("dev-cycle".to_owned()),
                goal: "watch me".to_owned(),
                ..StartRequest::default()
            },
        )
        .await
        .expect("start a run");

    let event = next_event(&mut response, &mut buffer, "change").await;
    let data = event.lines().find_map(|line| line.strip_prefix("data: ")).expect("a data line");
    let data: serde_json::Value = serde_json::from_str(data).expect("JSON data");
    assert_eq!(data["session"], started.session.to_string(), "{event}");
    assert!(data["seq"].as_u64().is_some_and(|seq| seq > 0), "{event}");
    assert!(event.lines().any(|line| line.starts_with("id: ")), "{event}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_script_is_served_as_javascript() {
    let home = tempfile::tempdir().expect("a temporary home");
    let serving = Arc::new(runtime(home.path()).await);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(axum::serve(listener, switchyard_console::router(serving, Catalog::builtins_only())).into_future());

    let response = reqwest::get(format!("http://{address}/assets/live.js")).await.expect("GET /assets/live.js");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/javascript; charset=utf-8");
    assert!(response.text().await.expect("the body").contains("new EventSource(\"/events\")"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn open_streams_end_when_the_server_shuts_down() {
    let home = tempfile::tempdir().expect("a temporary home");
    let serving = Arc::new(runtime(home.path()).await);
    let shutdown = tokio_util::sync::CancellationToken::new();
    let options = switchyard_console::ConsoleOptions { shutdown: shutdown.clone(), ..Default::default() };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let address = listener.local_addr().expect("address");
    tokio::spawn(
        axum::serve(listener, switchyard_console::router_with(serving, Catalog::builtins_only(), options))
            .into_future(),
    );
    let mut response =
        reqwest::get(format!("http://{address}/events")).await.expect("GET /events").error_for_status().unwrap();
    let first = response.chunk().await.expect("reading").expect("the first frame");
    assert!(first.starts_with(b": live"), "{first:?}");

    shutdown.cancel();

    let end = tokio::time::timeout(PATIENCE, async {
        while let Some(chunk) = response.chunk().await.expect("reading") {
            assert!(chunk.starts_with(b":"), "only keep-alives until the end: {chunk:?}");
        }
    });
    end.await.expect("the stream ends once the server shuts down");
}
