//! The API key never leaks: not in an error's message or `Debug`, a reported retry or a log line,
//! even when the server echoes the `Authorization` header back in its error bodies. Its own test
//! binary, because it installs the global `tracing` subscriber that collects the log lines.

mod common;

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{KEY, client, quick, request, with_retries};
use serde_json::json;
use switchyard_llm::{ApiKey, Endpoint, ErrorKind};
use switchyard_test_support::fake_llm::{FakeLlm, Reply};

/// Collects what a `tracing` subscriber writes.
#[derive(Clone, Default)]
struct Logs(Arc<Mutex<Vec<u8>>>);

impl Write for Logs {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("the log buffer").extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_key_never_leaks_even_when_the_server_echoes_it() {
    let logs = Logs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    // The global subscriber, not a scoped one: a scoped one misses the events of callsites other
    // threads registered first, and this binary runs this one test that logs.
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber of this test binary");

    let server = FakeLlm::start();
    let echo = |status: u16| {
        Reply::computed(move |request| {
            let authorization = request.header("authorization").unwrap_or_default().to_owned();
            Reply::error(
                status,
                json!({"error": {"message": format!("bad request, you sent {authorization}"), "headers": request.headers}}),
            )
        })
    };
    server.push(echo(500));
    server.push(echo(502));
    server.push(echo(401));
    server.push(Reply::computed(|request| {
        Reply::error_text(
            200,
            format!("not json; Authorization: {}", request.header("authorization").unwrap_or_default()),
        )
    }));
    server.push(echo(400));
    server.push(echo(404));
    let client = client(&server);

    let mut seen: Vec<String> = vec![format!("{client:?}"), format!("{:?}", client.endpoint())];
    let (result, retries) = with_retries(&client, &quick(3)).await;
    let error = result.expect_err("401 after two server errors");
    assert_eq!(error.kind, ErrorKind::Unauthorized);
    assert_eq!(retries.len(), 2);
    seen.extend(retries.iter().flat_map(|retry| [format!("{retry:?}"), retry.error.to_string()]));
    seen.extend([error.to_string(), format!("{error:?}")]);
    for _ in 0..3 {
        let error = client.complete(&request()).await.expect_err("an error");
        seen.extend([error.to_string(), format!("{error:?}")]);
    }
    seen.push(String::from_utf8_lossy(&logs.0.lock().expect("the log buffer")).into_owned());

    assert!(seen.iter().any(|text| text.contains("you sent Bearer <redacted>")), "{seen:#?}");
    assert!(seen.last().is_some_and(|logs| logs.contains("retrying")), "{seen:#?}");
    for text in &seen {
        assert!(!text.contains(KEY), "the key leaked: {text}");
        assert!(!text.contains("SECRET"), "part of the key leaked: {text}");
    }
    assert_eq!(server.remaining(), 0);
    assert!(server.requests().iter().all(|request| !request.body_text.contains(KEY)));
}

#[test]
fn api_key_debug_is_redacted() {
    let key = ApiKey::new(KEY);
    assert_eq!(format!("{key:?}"), "ApiKey(<redacted>)");
    assert_eq!(key.redact(&format!("a {KEY} b {KEY}")), "a <redacted> b <redacted>");
    assert_eq!(ApiKey::new("").redact("text"), "text");
    let quoted = ApiKey::new(r#"sk-"quoted"\key"#);
    let echoed = serde_json::json!({"authorization": r#"Bearer sk-"quoted"\key"#}).to_string();
    assert_eq!(quoted.redact(&echoed), r#"{"authorization":"Bearer <redacted>"}"#);
    let endpoint = Endpoint { base_url: "http://x/v1".to_owned(), api_key: Some(key), timeout: Duration::from_secs(1) };
    assert!(!format!("{endpoint:?}").contains(KEY));
}
