//! The fake model server of the test support crate, exercised over real HTTP: what every runner
//! test relies on it to do.

use std::time::Duration;

use serde_json::json;
use switchyard_test_support::fake_llm::{FakeLlm, Reply};

fn post(server: &FakeLlm, body: &serde_json::Value) -> (u16, serde_json::Value) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let response = reqwest::Client::new()
            .post(format!("{}/chat/completions", server.base_url()))
            .header("x-test", "yes")
            .json(body)
            .send()
            .await
            .expect("the fake server answers");
        let status = response.status().as_u16();
        let body = response.json().await.unwrap_or(serde_json::Value::Null);
        (status, body)
    })
}

#[test]
fn plays_the_script_in_order_and_records_every_request() {
    let server = FakeLlm::start();
    server.push(Reply::tool_calls(&[("read_file", json!({"path": "a.md"})), ("checkpoint", json!({"notes": "n"}))]));
    server.push(Reply::text("done").usage(7, 3));

    let (status, first) = post(&server, &json!({"model": "m1", "messages": [{"role": "user", "content": "hi"}]}));
    assert_eq!(status, 200);
    assert_eq!(first["model"], "m1");
    assert_eq!(first["choices"][0]["finish_reason"], "tool_calls");
    let calls = &first["choices"][0]["message"]["tool_calls"];
    assert_eq!(calls[0]["id"], "call_1_0");
    assert_eq!(calls[1]["id"], "call_1_1");
    assert_eq!(calls[0]["function"]["arguments"], r#"{"path":"a.md"}"#);

    let (_, second) = post(&server, &json!({"model": "m2", "messages": []}));
    assert_eq!(second["choices"][0]["message"]["content"], "done");
    assert_eq!(second["usage"]["total_tokens"], 10);
    assert_eq!(server.remaining(), 0);
    server.push(Reply::raw_tool_call("write_file", "{\"path\": "));
    let (_, third) = post(&server, &json!({"model": "m3", "messages": []}));
    assert_eq!(third["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"], "{\"path\": ");
    assert_eq!(third["choices"][0]["message"]["tool_calls"][0]["id"], "call_3_0");

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].method, "POST");
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("X-Test"), Some("yes"));
    assert_eq!(requests[0].messages()[0]["content"], "hi");
    assert_eq!(requests[1].model(), "m2");
    assert!(requests[1].arrived >= requests[0].arrived);
}

#[test]
fn finds_a_secret_in_any_request_but_not_in_authorization() {
    let server = FakeLlm::start();
    server.otherwise(|_| Reply::text("ok"));
    post(&server, &json!({"model": "m", "messages": [{"role": "user", "content": "clean"}]}));
    server.assert_never_sent(&["ct_secret", ""]);
    post(&server, &json!({"model": "m", "messages": [{"role": "user", "content": "here is ct_secret"}]}));
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| server.assert_never_sent(&["ct_secret"])));
    let message = caught.expect_err("the second request holds the secret");
    let message = message.downcast_ref::<String>().expect("a formatted message");
    assert!(message.contains("request 2") && message.contains("body"), "{message}");
}

#[test]
fn says_when_its_script_ran_out() {
    let server = FakeLlm::start();
    let (status, body) = post(&server, &json!({"model": "m", "messages": []}));
    assert_eq!(status, 500);
    let message = body["error"]["message"].as_str().expect("a message");
    assert!(message.contains("script is exhausted"), "{message}");
}

#[test]
fn computes_a_reply_from_the_request_and_falls_back_when_told() {
    let server = FakeLlm::start();
    server.push(Reply::computed(|request| Reply::text(format!("{} messages", request.messages().len()))));
    server.otherwise(|request| Reply::text(format!("fallback for {}", request.model())));
    let (_, computed) = post(&server, &json!({"model": "m", "messages": [{"role": "user", "content": "x"}]}));
    assert_eq!(computed["choices"][0]["message"]["content"], "1 messages");
    let (_, fallback) = post(&server, &json!({"model": "other", "messages": []}));
    assert_eq!(fallback["choices"][0]["message"]["content"], "fallback for other");
}

#[test]
fn serves_errors_with_their_headers_and_waits_for_requests() {
    let server = FakeLlm::start();
    server.push(Reply::error(429, json!({"error": {"message": "slow down"}})).header("Retry-After", "3"));
    let base_url = server.base_url();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let response = runtime.block_on(async {
        reqwest::Client::new()
            .post(format!("{base_url}/chat/completions"))
            .body("not json")
            .send()
            .await
            .expect("answers")
    });
    assert_eq!(response.status().as_u16(), 429);
    assert_eq!(response.headers()["retry-after"], "3");
    let requests = server.wait_for_requests(1, Duration::from_secs(10));
    assert_eq!(requests[0].body, serde_json::Value::Null);
    assert_eq!(requests[0].body_text, "not json");
}

#[test]
fn answers_other_paths_with_404_without_taking_a_reply() {
    let server = FakeLlm::start();
    server.push(Reply::text("kept"));
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let status = runtime.block_on(async {
        reqwest::Client::new().get(format!("{}/models", server.base_url())).send().await.expect("answers").status()
    });
    assert_eq!(status.as_u16(), 404);
    assert_eq!(server.remaining(), 1);
    assert_eq!(server.requests()[0].path, "/v1/models");
}

#[test]
fn forgetting_bodies_keeps_each_request_but_not_what_it_sent_while_replies_still_read_it() {
    let server = FakeLlm::start();
    server.forget_bodies();
    server.otherwise(|request| Reply::text(format!("{} messages", request.messages().len())));

    let (_, answer) = post(&server, &json!({"model": "m", "messages": [{"role": "user", "content": "a long body"}]}));
    assert_eq!(answer["choices"][0]["message"]["content"], "1 messages");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].header("x-test"), Some("yes"));
    assert_eq!((&requests[0].body, requests[0].body_text.as_str()), (&serde_json::Value::Null, ""));
}

/// The events of a streamed answer to `body`, each event's data, and the content type.
fn post_for_events(server: &FakeLlm, body: &serde_json::Value) -> (u16, String, Vec<String>) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let response = reqwest::Client::new()
            .post(format!("{}/chat/completions", server.base_url()))
            .json(body)
            .send()
            .await
            .expect("the fake server answers");
        let status = response.status().as_u16();
        let content_type = response.headers()["content-type"].to_str().expect("a text header").to_owned();
        let text = response.text().await.expect("a body");
        let events = text
            .split_terminator("\n\n")
            .map(|event| event.strip_prefix("data: ").unwrap_or(event).to_owned())
            .collect();
        (status, content_type, events)
    })
}

#[test]
fn streams_a_helpers_completion_in_pieces_as_openai_does() {
    let server = FakeLlm::start();
    server.push(Reply::tool_calls(&[("read_file", json!({"path": "a.md"})), ("checkpoint", json!({}))]).streamed());
    server.push(Reply::text("Hello, streaming").usage(3, 4));

    let (status, content_type, events) = post_for_events(&server, &json!({"model": "m", "messages": []}));
    assert_eq!((status, content_type.as_str()), (200, "text/event-stream"));
    assert_eq!(events.last().map(String::as_str), Some("[DONE]"));
    let chunks: Vec<serde_json::Value> =
        events[..events.len() - 1].iter().map(|event| serde_json::from_str(event).expect("a JSON chunk")).collect();
    assert!(chunks.iter().all(|chunk| chunk["object"] == "chat.completion.chunk" && chunk["model"] == "m"));
    let usage_only = chunks.last().expect("chunks");
    assert_eq!((&usage_only["choices"], &usage_only["usage"]["total_tokens"]), (&json!([]), &json!(15)));
    let choice_chunks = &chunks[..chunks.len() - 1];
    assert_eq!(choice_chunks.last().expect("chunks")["choices"][0]["finish_reason"], "tool_calls");
    assert!(
        choice_chunks[..choice_chunks.len() - 1].iter().all(|chunk| chunk["choices"][0]["finish_reason"].is_null())
    );
    for (index, (name, arguments)) in
        [("read_file", r#"{"path":"a.md"}"#), ("checkpoint", "{}")].into_iter().enumerate()
    {
        let deltas: Vec<&serde_json::Value> = choice_chunks
            .iter()
            .flat_map(|chunk| chunk["choices"][0]["delta"]["tool_calls"].as_array().into_iter().flatten())
            .filter(|call| call["index"] == index)
            .collect();
        assert_eq!(deltas[0]["id"], format!("call_1_{index}"));
        assert_eq!(deltas[0]["function"]["name"], name);
        let pieces: Vec<&str> = deltas
            .iter()
            .filter_map(|call| call["function"]["arguments"].as_str())
            .filter(|piece| !piece.is_empty())
            .collect();
        assert!(pieces.len() >= 2, "the arguments of call {index} come in one piece: {pieces:?}");
        assert_eq!(pieces.concat(), arguments);
    }

    // Asked to stream, a helper's completion streams without being marked.
    let (_, content_type, events) = post_for_events(&server, &json!({"model": "m", "messages": [], "stream": true}));
    assert_eq!(content_type, "text/event-stream");
    let pieces: Vec<String> = events
        .iter()
        .filter_map(|event| serde_json::from_str::<serde_json::Value>(event).ok())
        .filter_map(|chunk| chunk["choices"][0]["delta"]["content"].as_str().map(str::to_owned))
        .collect();
    assert!(pieces.len() > 1 && pieces.iter().all(|piece| piece.chars().count() <= 4), "{pieces:?}");
    assert_eq!(pieces.concat(), "Hello, streaming");
}

#[test]
fn sends_raw_events_exactly_and_refuses_unstreamed_requests_when_stream_only() {
    let server = FakeLlm::start();
    server.stream_only();
    server.push(Reply::sse([": keep-alive", "data: {\"choices\": [", "event: error\ndata: x"]));

    let (status, refusal) = post(&server, &json!({"model": "m", "messages": []}));
    assert_eq!(status, 400);
    assert_eq!(refusal["error"]["message"], "this endpoint only supports streaming: set stream=true");
    assert_eq!(server.remaining(), 1);

    let (status, content_type, events) =
        post_for_events(&server, &json!({"model": "m", "messages": [], "stream": true}));
    assert_eq!((status, content_type.as_str()), (200, "text/event-stream"));
    assert_eq!(events, [": keep-alive", "{\"choices\": [", "event: error\ndata: x"]);
    assert_eq!(server.remaining(), 0);
    assert_eq!(server.requests().len(), 2);
}
