//! What the client's tests share: a client of the fake server with a test key, a request, and
//! retries that take no noticeable time.

use std::time::Duration;

use serde_json::json;
use switchyard_llm::{
    ApiKey, ChatRequest, ChatResponse, Client, Endpoint, Error, Message, Retry, RetryPolicy, ToolSpec,
};
use switchyard_test_support::fake_llm::FakeLlm;

pub const KEY: &str = "sk-test-0123456789-SECRET";

pub fn client(server: &FakeLlm) -> Client {
    let endpoint =
        Endpoint { base_url: server.base_url(), api_key: Some(ApiKey::new(KEY)), timeout: Duration::from_secs(30) };
    Client::new(endpoint).expect("a client")
}

pub fn request() -> ChatRequest<'static> {
    ChatRequest {
        model: "test-model".to_owned(),
        messages: vec![Message::system("You are a test."), Message::user("Go.")].into(),
        tools: vec![ToolSpec::function(
            "read_file",
            "Reads a file.",
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        )]
        .into(),
        temperature: Some(0.2),
        max_tokens: Some(256),
        stream: false,
    }
}

/// Retries that take no noticeable time, unless the server asks for a wait.
pub fn quick(max_retries: u32) -> RetryPolicy {
    RetryPolicy { max_retries, base_delay: Duration::from_millis(1), max_delay: Duration::from_secs(5) }
}

/// The result of a request with retries, and the retries reported.
pub async fn with_retries(client: &Client, policy: &RetryPolicy) -> (Result<ChatResponse, Error>, Vec<Retry>) {
    let mut retries = Vec::new();
    let result = client.complete_with_retries(&request(), policy, |retry| retries.push(retry)).await;
    (result, retries)
}
