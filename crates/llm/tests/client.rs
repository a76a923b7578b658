//! The client against the fake model server over real HTTP: what it sends, what it reads, which
//! failures it retries and how long it waits. That the key never leaks is `key_redaction.rs`.

mod common;

use std::time::Duration;

use common::{KEY, client, quick, request, with_retries};
use serde_json::json;
use switchyard_llm::{ApiKey, Client, Endpoint, ErrorKind, Finish};
use switchyard_test_support::fake_llm::{FakeLlm, Reply};

fn client_with_timeout(server: &FakeLlm, timeout: Duration) -> Client {
    Client::new(Endpoint { base_url: server.base_url(), api_key: Some(ApiKey::new(KEY)), timeout }).expect("a client")
}

#[tokio::test]
async fn sends_the_request_with_the_key_and_reads_the_tool_calls() {
    let server = FakeLlm::start();
    server.push(Reply::tool_call("read_file", json!({"path": "a.md"})).usage(21, 7));

    let response = client(&server).complete(&request()).await.expect("a completion");

    let choice = &response.choices[0];
    assert_eq!(choice.finish(), Finish::ToolCalls);
    assert_eq!(choice.message.tool_calls[0].id, "call_1_0");
    assert_eq!(choice.message.tool_calls[0].function.name, "read_file");
    assert_eq!(choice.message.tool_calls[0].function.arguments, r#"{"path":"a.md"}"#);
    assert_eq!(response.usage.map(|usage| usage.total()), Some(28));
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(sent.body["model"], "test-model");
    assert_eq!(sent.body["temperature"], 0.2);
    assert_eq!(sent.body["max_tokens"], 256);
    assert_eq!(sent.body["messages"][1], json!({"role": "user", "content": "Go."}));
    assert_eq!(sent.body["tools"][0]["function"]["name"], "read_file");
}

#[tokio::test]
async fn sends_no_authorization_header_without_a_key() {
    let server = FakeLlm::start();
    server.push(Reply::text("hi"));
    let client = Client::new(Endpoint { base_url: server.base_url(), api_key: None, timeout: Duration::from_secs(30) })
        .expect("a client");
    client.complete(&request()).await.expect("a completion");
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn reads_each_servers_variations_over_http() {
    let server = FakeLlm::start();
    // Ollama: arguments as an object, no call id, empty content.
    server.push(Reply::json(json!({
        "model": "llama", "system_fingerprint": "fp_ollama",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "checkpoint", "arguments": {"notes": "n"}}}]}}],
    })));
    // Content missing, usage missing, an unknown finish reason, extra fields.
    server.push(Reply::json(json!({
        "choices": [{"finish_reason": "eos", "message": {"role": "assistant",
            "tool_calls": [{"id": "x", "type": "function", "function": {"name": "list_files", "arguments": "{}"}}]},
            "x_vendor": {"a": 1}}],
        "timings": {"prompt_n": 3},
    })));
    // Content null and text parts.
    server.push(Reply::json(json!({"choices": [{"message": {"content": null}}]})));
    let client = client(&server);

    let ollama = client.complete(&request()).await.expect("the Ollama-shaped answer");
    let call = &ollama.choices[0].message.tool_calls[0];
    assert_eq!((call.id.as_str(), call.function.arguments.as_str()), ("call_0", r#"{"notes":"n"}"#));
    assert_eq!(ollama.usage, None);

    let bare = client.complete(&request()).await.expect("the bare answer");
    assert_eq!(bare.choices[0].message.content, None);
    assert_eq!(bare.choices[0].finish(), Finish::Stop);
    assert_eq!(bare.extra["timings"], json!({"prompt_n": 3}));

    let empty = client.complete(&request()).await.expect("the empty answer");
    assert_eq!(empty.choices[0].message.content, None);
    assert!(empty.choices[0].message.tool_calls.is_empty());
}

#[tokio::test]
async fn an_answer_that_is_not_a_completion_is_malformed_and_not_retried() {
    let server = FakeLlm::start();
    server.push(Reply::error_text(200, "<html>a login page</html>"));
    server.push(Reply::json(json!({"error": {"message": "upstream said no"}})));
    let client = client(&server);

    let (result, retries) = with_retries(&client, &quick(3)).await;
    let error = result.expect_err("not a completion");
    assert_eq!(error.kind, ErrorKind::Malformed);
    assert!(error.message.contains("<html>a login page</html>"), "{}", error.message);
    assert!(retries.is_empty());

    // A 200 with an error body is the error it stands for, not a malformed answer.
    let error = client.complete(&request()).await.expect_err("no choices");
    assert_eq!(error.kind, ErrorKind::Rejected);
    assert!(error.message.contains("upstream said no") && error.message.contains("200 with an error body"));
    server.push(Reply::json(json!({"error": {"message": "This model's maximum context length is 4096 tokens. However, your messages resulted in 5210 tokens.", "code": 400}})));
    let error = client.complete(&request()).await.expect_err("too long");
    assert_eq!(error.kind, ErrorKind::ContextExceeded, "{}", error.message);
    server.push(Reply::json(json!({"choices": []})));
    assert_eq!(client.complete(&request()).await.expect_err("no choices").kind, ErrorKind::Malformed);
}

#[tokio::test]
async fn a_429_waits_as_long_as_retry_after_says_then_succeeds() {
    let server = FakeLlm::start();
    server.push(
        Reply::error(429, json!({"error": {"message": "Rate limit reached", "type": "requests"}}))
            .header("Retry-After", "1"),
    );
    server.push(Reply::text("after the wait"));

    let (result, retries) = with_retries(&client(&server), &quick(3)).await;

    let response = result.expect("success after one retry");
    assert_eq!(response.choices[0].message.content.as_deref(), Some("after the wait"));
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].attempt, 1);
    assert_eq!(retries[0].delay, Duration::from_secs(1));
    assert_eq!(retries[0].error.kind, ErrorKind::RateLimited);
    assert_eq!(retries[0].error.status, Some(429));
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let waited = requests[1].arrived.duration_since(requests[0].arrived);
    assert!(waited >= Duration::from_secs(1), "the client retried after {waited:?}, not the 1 s the server asked for");
}

#[tokio::test]
async fn server_errors_are_retried_until_the_limit_then_reported() {
    let server = FakeLlm::start();
    for _ in 0..3 {
        server.push(Reply::error(503, json!({"error": "overloaded"})));
    }
    server.push(Reply::text("never reached"));

    let (result, retries) = with_retries(&client(&server), &quick(2)).await;

    let error = result.expect_err("the retries run out");
    assert_eq!(error.kind, ErrorKind::Server);
    assert_eq!(error.status, Some(503));
    assert!(error.message.contains("overloaded"), "{}", error.message);
    assert!(error.message.contains("gave up after 2 retries"), "{}", error.message);
    assert_eq!(retries.iter().map(|retry| retry.attempt).collect::<Vec<_>>(), [1, 2]);
    assert!(retries.iter().all(|retry| retry.delay <= Duration::from_millis(2)));
    assert_eq!(server.requests().len(), 3);
    assert_eq!(server.remaining(), 1);
}

#[tokio::test]
async fn a_401_stops_at_once() {
    let server = FakeLlm::start();
    server.push(Reply::error(
        401,
        json!({"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}),
    ));
    server.push(Reply::text("never reached"));

    let (result, retries) = with_retries(&client(&server), &quick(5)).await;

    let error = result.expect_err("unauthorized");
    assert_eq!(error.kind, ErrorKind::Unauthorized);
    assert!(error.message.contains("Incorrect API key provided"), "{}", error.message);
    assert!(error.message.contains("api_key_env"), "{}", error.message);
    assert!(retries.is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn an_unknown_model_stops_at_once_and_names_the_model() {
    let server = FakeLlm::start();
    server.push(Reply::error(404, json!({"error": "model \"test-model\" not found, try pulling it first"})));
    server.push(Reply::text("never reached"));

    let (result, retries) = with_retries(&client(&server), &quick(5)).await;

    let error = result.expect_err("unknown model");
    assert_eq!(error.kind, ErrorKind::UnknownModel);
    assert!(error.message.contains("`test-model`"), "{}", error.message);
    assert!(retries.is_empty());
    assert_eq!(server.remaining(), 1);
}

#[tokio::test]
async fn a_wrong_base_url_says_where_requests_go() {
    let server = FakeLlm::start();
    let base_url = server.base_url().trim_end_matches("/v1").to_owned();
    let client = Client::new(Endpoint { base_url, api_key: None, timeout: Duration::from_secs(30) }).expect("a client");
    let error = client.complete(&request()).await.expect_err("404");
    assert_eq!(error.kind, ErrorKind::Rejected);
    assert!(error.message.contains("check the base URL"), "{}", error.message);
}

#[tokio::test]
async fn a_request_that_outlasts_its_timeout_fails_as_a_timeout_and_is_retried() {
    let server = FakeLlm::start();
    server.push(Reply::text("too late").delayed(Duration::from_secs(30)));
    server.push(Reply::text("in time"));
    server.push(Reply::text("too late again").delayed(Duration::from_secs(30)));
    let client = client_with_timeout(&server, Duration::from_millis(300));

    let (result, retries) = with_retries(&client, &quick(1)).await;
    assert_eq!(result.expect("the retry answers").choices[0].message.content.as_deref(), Some("in time"));
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].error.kind, ErrorKind::Timeout);

    let error = client.complete(&request()).await.expect_err("a timeout");
    assert_eq!(error.kind, ErrorKind::Timeout);
    assert!(error.message.contains("request_timeout_seconds"), "{}", error.message);
}

#[tokio::test]
async fn a_server_that_cannot_be_reached_is_a_transport_error_and_retried() {
    let address = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
        listener.local_addr().expect("its address")
    };
    let client = Client::new(Endpoint {
        base_url: format!("http://{address}/v1"),
        api_key: None,
        timeout: Duration::from_secs(30),
    })
    .expect("a client");
    let (result, retries) = with_retries(&client, &quick(1)).await;
    let error = result.expect_err("nothing listens");
    assert_eq!(error.kind, ErrorKind::Transport);
    assert!(error.message.contains("cannot reach"), "{}", error.message);
    assert_eq!(retries.len(), 1);
}
