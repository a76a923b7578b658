//! Streamed answers (server-sent events) against the fake model server over real HTTP: each is
//! put back together into the response the same answer unstreamed gives, whether the request
//! asked to stream or the server streamed unasked, and a stream that is cut, malformed or carries
//! an error fails as the same failure answered with a status would.

mod common;

use proptest::prelude::*;
use serde_json::{Value, json};
use switchyard_llm::{ChatRequest, ChatResponse, Error, ErrorKind, Finish, classify};
use switchyard_test_support::fake_llm::{FakeLlm, Reply};

use common::{KEY, client, quick, request, with_retries};

fn streaming_request() -> ChatRequest<'static> {
    ChatRequest { stream: true, ..request() }
}

/// What `events` (each one event's text, as [`Reply::sse`] takes them) are read into by a
/// request that asked to stream.
async fn read(events: &[&str]) -> Result<ChatResponse, Error> {
    let server = FakeLlm::start();
    server.push(Reply::sse(events.iter().copied()));
    client(&server).complete(&streaming_request()).await
}

/// A response in one line: each choice's role, text, reasoning, tool calls (name, arguments, id)
/// and finish reason, then the usage.
fn summary(response: &ChatResponse) -> String {
    let mut lines: Vec<String> = response
        .choices
        .iter()
        .map(|choice| {
            let message = &choice.message;
            let calls: Vec<String> = message
                .tool_calls
                .iter()
                .map(|call| format!("{}({})#{}", call.function.name, call.function.arguments, call.id))
                .collect();
            format!(
                "{}: {:?} text={:?} reasoning={:?} calls=[{}] finish={:?}",
                choice.index,
                message.role,
                message.content,
                message.reasoning_content,
                calls.join(", "),
                choice.finish_reason
            )
        })
        .collect();
    lines.push(match response.usage {
        Some(usage) => format!("usage={}/{}/{}", usage.prompt_tokens, usage.completion_tokens, usage.total()),
        None => "usage=none".to_owned(),
    });
    lines.join(" | ")
}

async fn check(events: &[&str], expected: &str) {
    let response = read(events).await.unwrap_or_else(|error| panic!("{error}: {events:#?}"));
    assert_eq!(summary(&response), expected, "{events:#?}");
}

/// The error `events` fail with.
async fn failure(events: &[&str]) -> Error {
    read(events).await.map(|response| summary(&response)).expect_err("the stream fails")
}

/// One chunk's event with these choices (and no usage).
fn chunk(choices: Value) -> String {
    let mut chunk = json!({"id": "chatcmpl-s", "model": "m", "object": "chat.completion.chunk"});
    chunk["choices"] = choices;
    format!("data: {chunk}")
}

/// One chunk's event with one piece of choice 0's message.
fn delta(delta: Value) -> String {
    let mut choice = json!({"index": 0, "finish_reason": null});
    choice["delta"] = delta;
    chunk(Value::Array(vec![choice]))
}

fn finish(reason: &str) -> String {
    chunk(json!([{"index": 0, "delta": {}, "finish_reason": reason}]))
}

fn usage_only(prompt_tokens: u64, completion_tokens: u64) -> String {
    let usage = json!({"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens});
    format!("data: {}", json!({"id": "chatcmpl-s", "choices": [], "usage": usage}))
}

const DONE: &str = "data: [DONE]";

/// `reply` read once unstreamed and once streamed (by a fresh server each, so ids match).
async fn both_ways(reply: impl Fn() -> Reply) -> (ChatResponse, ChatResponse) {
    let plain_server = FakeLlm::start();
    plain_server.push(reply());
    let plain = client(&plain_server).complete(&request()).await.expect("the unstreamed answer");
    let streaming_server = FakeLlm::start();
    streaming_server.push(reply());
    let streamed = client(&streaming_server).complete(&streaming_request()).await.expect("the streamed answer");
    assert_eq!(streaming_server.requests()[0].body["stream"], true);
    (plain, streamed)
}

fn assert_same_response(plain: &ChatResponse, streamed: &ChatResponse) {
    assert_eq!(streamed.choices, plain.choices);
    assert_eq!(streamed.usage, plain.usage);
    assert_eq!((&streamed.id, &streamed.model), (&plain.id, &plain.model));
    assert_eq!(streamed.extra["object"], "chat.completion.chunk");
}

#[tokio::test]
async fn content_in_pieces_reads_as_the_unstreamed_answer_does() {
    let (plain, streamed) = both_ways(|| Reply::text("Hello there: a streamed answer, é and all.").usage(12, 6)).await;
    assert_same_response(&plain, &streamed);
    assert_eq!(
        summary(&streamed),
        r#"0: Assistant text=Some("Hello there: a streamed answer, é and all.") reasoning=None calls=[] finish=Some("stop") | usage=12/6/18"#
    );
}

#[tokio::test]
async fn tool_calls_in_pieces_read_as_the_unstreamed_answer_does() {
    let (plain, streamed) = both_ways(|| {
        Reply::tool_calls(&[("read_file", json!({"path": "a.md"})), ("checkpoint", json!({}))]).usage(30, 9)
    })
    .await;
    assert_same_response(&plain, &streamed);
    assert_eq!(streamed.choices[0].finish(), Finish::ToolCalls);
    assert_eq!(
        summary(&streamed),
        r#"0: Assistant text=None reasoning=None calls=[read_file({"path":"a.md"})#call_1_0, checkpoint({})#call_1_1] finish=Some("tool_calls") | usage=30/9/39"#
    );
}

#[tokio::test]
async fn parallel_tool_calls_interleaved_across_chunks_are_assembled_by_index() {
    let call = |index: u32, mut call: Value| {
        call["index"] = json!(index);
        delta(json!({"tool_calls": [call]}))
    };
    let events = [
        delta(json!({"role": "assistant", "content": null})),
        call(0, json!({"id": "call_a", "type": "function", "function": {"name": "read_file", "arguments": ""}})),
        call(1, json!({"id": "call_b", "type": "function", "function": {"name": "list_files", "arguments": "{\"di"}})),
        call(0, json!({"function": {"arguments": "{\"pa"}})),
        call(1, json!({"function": {"arguments": "r\":\"."}})),
        call(0, json!({"function": {"arguments": "th\":\"a.md\"}"}})),
        call(1, json!({"function": {"arguments": "\"}"}})),
        finish("tool_calls"),
        DONE.to_owned(),
    ];
    check(
        &events.iter().map(String::as_str).collect::<Vec<_>>(),
        r#"0: Assistant text=None reasoning=None calls=[read_file({"path":"a.md"})#call_a, list_files({"dir":"."})#call_b] finish=Some("tool_calls") | usage=none"#,
    )
    .await;
}

#[tokio::test]
async fn a_whole_call_in_one_delta_without_an_id_gets_one() {
    // As Ollama streams: the call whole, its arguments an object, no id, no index.
    let events = [
        delta(json!({"role": "assistant", "content": "",
            "tool_calls": [{"function": {"name": "complete_step", "arguments": {"notes": "ok"}}}]})),
        finish("tool_calls"),
        DONE.to_owned(),
    ];
    check(
        &events.iter().map(String::as_str).collect::<Vec<_>>(),
        r#"0: Assistant text=None reasoning=None calls=[complete_step({"notes":"ok"})#call_0] finish=Some("tool_calls") | usage=none"#,
    )
    .await;
}

#[tokio::test]
async fn usage_comes_from_the_final_chunk_without_choices() {
    let events = [
        delta(json!({"role": "assistant", "content": "Hi"})),
        chunk(json!([{"index": 0, "delta": {"content": "!"}, "finish_reason": "stop"}])),
        usage_only(21, 2),
        DONE.to_owned(),
    ];
    check(
        &events.iter().map(String::as_str).collect::<Vec<_>>(),
        r#"0: Assistant text=Some("Hi!") reasoning=None calls=[] finish=Some("stop") | usage=21/2/23"#,
    )
    .await;
}

#[tokio::test]
async fn reasoning_is_assembled_under_either_name_and_never_twice() {
    // DeepSeek and older vLLM: `reasoning_content`.
    let deepseek = [
        delta(json!({"role": "assistant", "reasoning_content": "First, "})),
        delta(json!({"reasoning_content": "think."})),
        delta(json!({"content": "Done."})),
        finish("stop"),
        DONE.to_owned(),
    ];
    check(
        &deepseek.iter().map(String::as_str).collect::<Vec<_>>(),
        r#"0: Assistant text=Some("Done.") reasoning=Some("First, think.") calls=[] finish=Some("stop") | usage=none"#,
    )
    .await;
    // OpenRouter: `reasoning`; vLLM while moving from one name to the other: both, the same text.
    let both = [
        delta(json!({"role": "assistant", "reasoning": "Look ", "content": null})),
        delta(json!({"reasoning": "first.", "reasoning_content": "first."})),
        delta(json!({"content": "Seen."})),
        finish("stop"),
        DONE.to_owned(),
    ];
    check(
        &both.iter().map(String::as_str).collect::<Vec<_>>(),
        r#"0: Assistant text=Some("Seen.") reasoning=Some("Look first.") calls=[] finish=Some("stop") | usage=none"#,
    )
    .await;
}

#[tokio::test]
async fn a_server_that_streams_unasked_is_read_as_a_stream() {
    let server = FakeLlm::start();
    server.push(Reply::text("streamed anyway").streamed());
    let response = client(&server).complete(&request()).await.expect("a response");
    assert_eq!(response.choices[0].message.content.as_deref(), Some("streamed anyway"));
    assert_eq!(response.usage.map(|usage| usage.total()), Some(15));
    assert_eq!(server.requests()[0].body.get("stream"), None);
}

#[tokio::test]
async fn a_server_asked_to_stream_that_answers_json_is_read_as_json() {
    let server = FakeLlm::start();
    server.push(Reply::json(json!({"choices": [{"message": {"content": "whole"}, "finish_reason": "stop"}]})));
    let response = client(&server).complete(&streaming_request()).await.expect("a response");
    assert_eq!(response.choices[0].message.content.as_deref(), Some("whole"));
}

#[tokio::test]
async fn a_stream_cut_before_any_finish_is_malformed_and_says_so() {
    let error = failure(&[&delta(json!({"role": "assistant", "content": "Half an ans"}))]).await;
    assert_eq!(error.kind, ErrorKind::Malformed);
    assert_eq!(error.status, Some(200));
    assert!(error.message.contains("with a stream that was cut"), "{}", error.message);
    assert!(error.message.contains("without `data: [DONE]`"), "{}", error.message);
    // A finish reason without `[DONE]` is a whole answer.
    check(
        &[&delta(json!({"role": "assistant", "content": "Whole"})), &finish("stop")],
        r#"0: Assistant text=Some("Whole") reasoning=None calls=[] finish=Some("stop") | usage=none"#,
    )
    .await;
}

#[tokio::test]
async fn an_event_that_is_not_a_chunk_is_malformed_and_shown() {
    let error = failure(&[&delta(json!({"content": "a"})), "data: {\"choices\": [{\"delta\": ", DONE]).await;
    assert_eq!(error.kind, ErrorKind::Malformed);
    assert!(error.message.contains("has an event (2) that is not JSON"), "{}", error.message);
    assert!(error.message.contains(r#"{"choices": [{"delta":"#), "{}", error.message);
}

#[tokio::test]
async fn an_error_event_mid_stream_is_sorted_as_the_same_error_answered_with_a_status() {
    let too_long = json!({"error": {"message": "This model's maximum context length is 8192 tokens.",
        "code": "context_length_exceeded"}});
    let error = failure(&[&delta(json!({"role": "assistant", "content": "Sta"})), &format!("data: {too_long}")]).await;
    assert_eq!(error.kind, classify(400, &too_long.to_string()));
    assert_eq!(error.kind, ErrorKind::ContextExceeded);
    assert!(error.message.contains("maximum context length is 8192 tokens"), "{}", error.message);
    assert!(error.message.contains("an error event in its stream"), "{}", error.message);

    let unknown = failure(&["event: error\ndata: {\"error\": {\"message\": \"model `test-model` not found\"}}"]).await;
    assert_eq!(unknown.kind, ErrorKind::UnknownModel);
    assert!(unknown.message.contains("`test-model`"), "{}", unknown.message);
}

#[tokio::test]
async fn a_server_failing_mid_stream_is_retried() {
    // A gateway that always streams, failing once after its 200.
    let server = FakeLlm::start();
    server.push(Reply::sse([
        delta(json!({"role": "assistant", "content": "Begin"})),
        "data: {\"error\": {\"message\": \"The server had an error\", \"type\": \"server_error\"}}".to_owned(),
    ]));
    server.push(Reply::text("after the retry").streamed());
    let (result, retries) = with_retries(&client(&server), &quick(2)).await;
    let response = result.expect("the retry succeeds");
    assert_eq!(response.choices[0].message.content.as_deref(), Some("after the retry"));
    assert_eq!(retries.len(), 1);
    assert_eq!(retries[0].error.kind, ErrorKind::Server);
    assert!(retries[0].error.message.contains("The server had an error"), "{}", retries[0].error.message);
}

#[tokio::test]
async fn keep_alive_comments_are_not_events() {
    let events = [
        ": keep-alive",
        ": OPENROUTER PROCESSING",
        &delta(json!({"role": "assistant", "content": "Still "})),
        ":",
        &delta(json!({"content": "here"})),
        ": keep-alive",
        &finish("stop"),
        DONE,
    ];
    check(&events, r#"0: Assistant text=Some("Still here") reasoning=None calls=[] finish=Some("stop") | usage=none"#)
        .await;
}

#[tokio::test]
async fn the_request_asks_to_stream_and_for_usage_only_when_streaming() {
    let server = FakeLlm::start();
    server.push_all([Reply::text("plain"), Reply::text("streamed")]);
    let client = client(&server);
    client.complete(&request()).await.expect("the plain answer");
    client.complete(&streaming_request()).await.expect("the streamed answer");
    let requests = server.requests();
    let plain = requests[0].body.as_object().expect("a JSON object");
    assert!(!plain.contains_key("stream") && !plain.contains_key("stream_options"), "{plain:?}");
    assert_eq!(requests[1].body["stream"], true);
    assert_eq!(requests[1].body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn the_key_never_reaches_a_message_from_a_stream() {
    let server = FakeLlm::start();
    let echoing = |template: &'static str| {
        Reply::computed(move |request| {
            let authorization = request.header("authorization").unwrap_or_default().to_owned();
            Reply::sse([template.replace("AUTH", &authorization)])
        })
    };
    server.push(echoing(r#"data: {"error": {"message": "you sent AUTH"}}"#));
    server.push(echoing("data: not json, you sent AUTH"));
    let client = client(&server);
    for _ in 0..2 {
        let error = client.complete(&streaming_request()).await.expect_err("fails");
        assert!(error.message.contains("you sent Bearer <redacted>"), "{}", error.message);
        assert!(!error.message.contains(KEY) && !format!("{error:?}").contains(KEY), "{error:?}");
    }
}

#[tokio::test]
async fn a_stream_only_server_refuses_an_unstreamed_request_and_serves_a_streamed_one() {
    let server = FakeLlm::start();
    server.stream_only();
    server.push(Reply::tool_call("read_file", json!({"path": "a.md"})));
    let client = client(&server);

    let error = client.complete(&request()).await.expect_err("refused");
    assert_eq!((error.kind, error.status), (ErrorKind::StreamRequired, Some(400)));
    assert!(error.message.contains("this endpoint only supports streaming: set stream=true"), "{}", error.message);
    assert_eq!(server.remaining(), 1);

    let response = client.complete(&streaming_request()).await.expect("served");
    let call = &response.choices[0].message.tool_calls[0];
    assert_eq!((call.id.as_str(), call.function.arguments.as_str()), ("call_1_0", r#"{"path":"a.md"}"#));
    assert_eq!(server.remaining(), 0);
    assert_eq!(server.requests().len(), 2);
}

/// One case of the property below: a call's `arguments` cut at `cuts` (character positions),
/// each piece in a delta of its own, with or without the call's `index`.
fn split_call(arguments: &str, cuts: &[usize], indexed: bool) -> Vec<String> {
    let characters: Vec<char> = arguments.chars().collect();
    let mut bounds = vec![0];
    bounds.extend(cuts.iter().map(|cut| cut % (characters.len() + 1)));
    bounds.push(characters.len());
    bounds.sort_unstable();
    let mut events: Vec<String> = bounds
        .windows(2)
        .enumerate()
        .map(|(number, pair)| {
            let piece: String = characters[pair[0]..pair[1]].iter().collect();
            let mut call = json!({"function": {"arguments": piece}});
            if number == 0 {
                call["id"] = json!("call_p");
                call["function"]["name"] = json!("write_file");
            }
            if indexed {
                call["index"] = json!(0);
            }
            delta(json!({"tool_calls": [call]}))
        })
        .collect();
    events.push(finish("tool_calls"));
    events.push(DONE.to_owned());
    events
}

/// Written with proptest's runner rather than its macro, so all cases share one server, client
/// and runtime: starting them takes longer than a case.
#[test]
fn arguments_split_anywhere_across_chunks_reassemble_the_same() {
    let server = FakeLlm::start();
    let client = client(&server);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let cases = ("\\PC{0,40}", prop::collection::vec(0usize..64, 0..6), any::<bool>());
    let mut runner = proptest::test_runner::TestRunner::default();
    let outcome = runner.run(&cases, |(arguments, cuts, indexed)| {
        server.push(Reply::sse(split_call(&arguments, &cuts, indexed)));
        let response = runtime
            .block_on(client.complete(&streaming_request()))
            .map_err(|error| TestCaseError::fail(error.to_string()))?;
        let calls = &response.choices[0].message.tool_calls;
        prop_assert_eq!(calls.len(), 1);
        prop_assert_eq!(calls[0].id.as_str(), "call_p");
        prop_assert_eq!(calls[0].function.name.as_str(), "write_file");
        prop_assert_eq!(&calls[0].function.arguments, &arguments);
        Ok(())
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}
