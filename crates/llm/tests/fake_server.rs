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
