//! Reading what the servers that call themselves OpenAI-compatible answer: response bodies shaped
//! like each family's (written here, from how each behaves), a property test that no placement of
//! extra fields or accepted variation breaks the reading, and how error answers are sorted.

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use switchyard_llm::{ChatResponse, ErrorKind, Finish, Message, Price, Usage, classify};

/// A response in one line: text, tool calls (name, arguments, id), finish, usage.
fn summary(response: &ChatResponse) -> String {
    let choice = &response.choices[0];
    let calls: Vec<String> = choice
        .message
        .tool_calls
        .iter()
        .map(|call| format!("{}({})#{}", call.function.name, call.function.arguments, call.id))
        .collect();
    let usage = match response.usage {
        Some(usage) => format!("{}/{}/{}", usage.prompt_tokens, usage.completion_tokens, usage.total()),
        None => "none".to_owned(),
    };
    format!(
        "{:?} text={:?} calls=[{}] finish={:?} usage={usage}",
        choice.message.role,
        choice.message.content,
        calls.join(", "),
        choice.finish()
    )
}

fn check(body: &str, expected: &str) {
    let response: ChatResponse = serde_json::from_str(body).unwrap_or_else(|error| panic!("{error}: {body}"));
    assert_eq!(summary(&response), expected, "{body}");
}

#[test]
fn openai_with_its_newer_fields() {
    check(
        r#"{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-x","system_fingerprint":"fp_1",
            "service_tier":"default",
            "choices":[{"index":0,"logprobs":null,"finish_reason":"tool_calls",
              "message":{"role":"assistant","content":null,"refusal":null,"annotations":[],
                "tool_calls":[{"id":"call_a","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.md\"}"}}]}}],
            "usage":{"prompt_tokens":12,"completion_tokens":4,"total_tokens":16,
              "prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":0}}}"#,
        r#"Assistant text=None calls=[read_file({"path":"a.md"})#call_a] finish=ToolCalls usage=12/4/16"#,
    );
}

#[test]
fn an_azure_style_gateway_with_content_filter_results() {
    check(
        r#"{"id":"c","model":"gpt","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}],
            "choices":[{"index":0,"finish_reason":"stop","content_filter_results":{"hate":{"filtered":false}},
              "message":{"role":"assistant","content":"Done."}}],
            "usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}"#,
        r#"Assistant text=Some("Done.") calls=[] finish=Stop usage=3/2/5"#,
    );
}

#[test]
fn openrouter_with_its_provider_and_native_finish_reason() {
    check(
        r#"{"id":"gen-1","provider":"Somebody","model":"vendor/model","object":"chat.completion","created":1,
            "choices":[{"logprobs":null,"finish_reason":"tool_calls","native_finish_reason":"tool_use","index":0,
              "message":{"role":"assistant","content":"","refusal":null,"reasoning":null,
                "tool_calls":[{"index":0,"id":"toolu_1","type":"function","function":{"name":"checkpoint","arguments":"{\"notes\":\"n\"}"}}]}}],
            "usage":{"prompt_tokens":100,"completion_tokens":20,"total_tokens":120,"cost":0.0012}}"#,
        r#"Assistant text=Some("") calls=[checkpoint({"notes":"n"})#toolu_1] finish=ToolCalls usage=100/20/120"#,
    );
}

#[test]
fn vllm_with_reasoning_content_and_stop_reason() {
    check(
        r#"{"id":"chatcmpl-v","object":"chat.completion","created":1,"model":"qwen",
            "choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"thinking","content":null,
              "tool_calls":[{"id":"chatcmpl-tool-9","type":"function","function":{"name":"list_files","arguments":"{}"}}]},
              "logprobs":null,"finish_reason":"tool_calls","stop_reason":null}],
            "usage":{"prompt_tokens":50,"total_tokens":60,"completion_tokens":10,"prompt_tokens_details":null},
            "prompt_logprobs":null,"kv_transfer_params":null}"#,
        r#"Assistant text=None calls=[list_files({})#chatcmpl-tool-9] finish=ToolCalls usage=50/10/60"#,
    );
}

#[test]
fn llama_cpp_server_with_timings() {
    check(
        r#"{"choices":[{"finish_reason":"stop","index":0,"message":{"role":"assistant","content":"Hello"}}],
            "created":1,"model":"gpt-3.5-turbo","system_fingerprint":"b1-abc","object":"chat.completion",
            "usage":{"completion_tokens":1,"prompt_tokens":2,"total_tokens":3},"id":"chatcmpl-l",
            "timings":{"prompt_n":2,"prompt_ms":1.5,"predicted_n":1,"predicted_ms":2.5}}"#,
        r#"Assistant text=Some("Hello") calls=[] finish=Stop usage=2/1/3"#,
    );
}

#[test]
fn ollama_with_arguments_as_an_object_and_no_call_id() {
    check(
        r#"{"id":"chatcmpl-o","object":"chat.completion","created":1,"model":"llama3.1","system_fingerprint":"fp_ollama",
            "choices":[{"index":0,"message":{"role":"assistant","content":"",
              "tool_calls":[{"index":0,"type":"function","function":{"name":"complete_step","arguments":{"notes":"ok","choice":null}}}]},
              "finish_reason":"tool_calls"}],
            "usage":{"prompt_tokens":30,"completion_tokens":8,"total_tokens":38}}"#,
        r#"Assistant text=Some("") calls=[complete_step({"choice":null,"notes":"ok"})#] finish=ToolCalls usage=30/8/38"#,
    );
}

#[test]
fn lm_studio_with_stats() {
    check(
        r#"{"id":"chatcmpl-s","object":"chat.completion","created":1,"model":"local-model",
            "choices":[{"index":0,"logprobs":null,"finish_reason":"tool_calls",
              "message":{"role":"assistant","tool_calls":[{"id":"365174485","type":"function","function":{"name":"save_output","arguments":"{\"text\":\"x\"}"}}]}}],
            "usage":{"prompt_tokens":5,"completion_tokens":5,"total_tokens":10},"stats":{},"system_fingerprint":"local-model"}"#,
        r#"Assistant text=None calls=[save_output({"text":"x"})#365174485] finish=ToolCalls usage=5/5/10"#,
    );
}

#[test]
fn the_least_a_server_may_send() {
    check(
        r#"{"choices":[{"message":{"content":"hi"}}]}"#,
        r#"Assistant text=Some("hi") calls=[] finish=Other usage=none"#,
    );
    check(r#"{"choices":[{"message":{}}],"usage":null}"#, "Assistant text=None calls=[] finish=Other usage=none");
}

#[test]
fn nulls_where_lists_and_strings_are_expected() {
    check(
        r#"{"id":null,"choices":[{"index":null,"finish_reason":null,"message":{"role":null,"content":null,"tool_calls":null}}],
            "usage":{"prompt_tokens":4,"completion_tokens":null}}"#,
        "Assistant text=None calls=[] finish=Other usage=4/0/4",
    );
    check(
        r#"{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":null,"type":null,"function":{"name":"f","arguments":null}}]}}]}"#,
        "Assistant text=None calls=[f()#] finish=Other usage=none",
    );
}

#[test]
fn content_as_a_list_of_parts() {
    check(
        r#"{"choices":[{"message":{"role":"assistant","content":[{"type":"text","text":"one "},{"type":"text","text":"two"}]},"finish_reason":"stop"}]}"#,
        r#"Assistant text=Some("one two") calls=[] finish=Stop usage=none"#,
    );
}

#[test]
fn reasoning_is_read_under_either_name_and_sent_back_as_reasoning_content() {
    let reasoning = |message: Value| {
        let response: ChatResponse =
            serde_json::from_value(json!({"choices": [{"message": message}]})).expect("parses");
        response.choices[0].message.reasoning_content.clone()
    };
    assert_eq!(reasoning(json!({"content": "a", "reasoning_content": "DeepSeek's"})).as_deref(), Some("DeepSeek's"));
    assert_eq!(reasoning(json!({"content": "a", "reasoning": "OpenRouter's"})).as_deref(), Some("OpenRouter's"));
    // vLLM while renaming the field sends both; neither is refused as a duplicate.
    assert_eq!(
        reasoning(json!({"reasoning_content": "old name", "reasoning": "new name"})).as_deref(),
        Some("old name")
    );
    assert_eq!(reasoning(json!({"content": "a", "reasoning": null})), None);

    let thought = Message { reasoning_content: Some("because".to_owned()), ..Message::user("x") };
    assert_eq!(
        serde_json::to_value(&thought).expect("serializes"),
        json!({"role": "user", "content": "x", "reasoning_content": "because"})
    );
    assert_eq!(serde_json::to_value(Message::user("x")).expect("serializes"), json!({"role": "user", "content": "x"}));
}

#[test]
fn finish_reasons_other_than_openais() {
    let cases = [
        ("eos", Finish::Stop),
        ("end_turn", Finish::Stop),
        ("STOP", Finish::Stop),
        ("tool_call", Finish::ToolCalls),
        ("function_call", Finish::ToolCalls),
        ("length", Finish::Length),
        ("max_tokens", Finish::Length),
        ("content_filter", Finish::ContentFilter),
        ("abort", Finish::Other),
    ];
    for (reason, expected) in cases {
        let body = json!({"choices": [{"message": {"content": "x"}, "finish_reason": reason}]});
        let response: ChatResponse = serde_json::from_value(body).expect("parses");
        assert_eq!(response.choices[0].finish(), expected, "{reason}");
        assert_eq!(response.choices[0].finish_reason.as_deref(), Some(reason));
    }
}

#[test]
fn cost_is_priced_per_million_tokens() {
    let usage = Usage { prompt_tokens: 2_000_000, completion_tokens: 500_000, total_tokens: 2_500_000 };
    let price = Price { input_per_mtok: 3.0, output_per_mtok: 15.0 };
    assert!((usage.cost(&price) - 13.5).abs() < 1e-9, "{}", usage.cost(&price));
    assert_eq!(Usage::default().cost(&price), 0.0);
    assert_eq!(usage.cost(&Price::default()), 0.0);
}

#[test]
fn usages_add_up_even_when_a_server_left_the_total_out() {
    let mut run = Usage::default();
    run.add(&Usage { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 });
    run.add(&Usage { prompt_tokens: 3, completion_tokens: 2, total_tokens: 0 });
    assert_eq!(run, Usage { prompt_tokens: 13, completion_tokens: 7, total_tokens: 20 });
}

#[test]
fn error_answers_are_sorted_by_what_a_retry_can_do() {
    let check = |status: u16, body: &str, expected: ErrorKind| {
        assert_eq!(classify(status, body), expected, "{status} {body}");
    };
    // How each family says it does not know a model.
    check(
        404,
        r#"{"error":{"message":"The model `gpt-9` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
        ErrorKind::UnknownModel,
    );
    check(
        404,
        r#"{"object":"error","message":"The model `qwen-x` does not exist.","type":"NotFoundError","param":null,"code":404}"#,
        ErrorKind::UnknownModel,
    );
    check(404, r#"{"error":"model \"llama9\" not found, try pulling it first"}"#, ErrorKind::UnknownModel);
    check(
        400,
        r#"{"error":{"code":400,"message":"model not found","type":"invalid_request_error"}}"#,
        ErrorKind::UnknownModel,
    );
    check(400, r#"{"error":{"message":"vendor/nothing is not a valid model ID","code":400}}"#, ErrorKind::UnknownModel);
    check(400, r#"{"error":"Invalid model identifier \"x\""}"#, ErrorKind::UnknownModel);
    check(404, "model 'x' not found", ErrorKind::UnknownModel);
    // A 400 about a model that exists is the request's fault, not an unknown model: here, the
    // context window, as each family words it.
    for (status, body) in [
        (
            400,
            r#"{"error":{"message":"This model's maximum context length is 8192 tokens.","code":"context_length_exceeded"}}"#,
        ),
        (
            400,
            r#"{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","code":400}"#,
        ),
        (
            400,
            r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#,
        ),
        (
            400,
            r#"{"error":{"message":"litellm.ContextWindowExceededError: litellm.BadRequestError: prompt is too long: 210000 tokens > 200000 maximum","type":null,"param":null,"code":"400"}}"#,
        ),
        (413, "Request Entity Too Large"),
    ] {
        check(status, body, ErrorKind::ContextExceeded);
    }
    // What the other refusals need, as the servers word them.
    check(
        400,
        r#"{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","code":400}"#,
        ErrorKind::ToolsUnsupported,
    );
    check(500, r#"{"error":{"code":500,"message":"tools param requires --jinja flag"}}"#, ErrorKind::Server);
    check(400, r#"{"error":{"message":"tools param requires --jinja flag"}}"#, ErrorKind::ToolsUnsupported);
    check(
        400,
        r#"{"error":"registry.ollama.ai/library/gemma2:2b does not support tools"}"#,
        ErrorKind::ToolsUnsupported,
    );
    check(
        400,
        r#"{"error":{"message":"this endpoint only supports streaming: set stream=true"}}"#,
        ErrorKind::StreamRequired,
    );
    check(
        400,
        r#"{"error":{"message":"Invalid value for 'content': expected a string, got null.","param":"messages.[2].content","code":null}}"#,
        ErrorKind::InvalidMessage,
    );
    check(
        400,
        r#"{"error":{"message":"Invalid 'messages[1].tool_calls[0].id': string too long.","type":"invalid_request_error"}}"#,
        ErrorKind::InvalidMessage,
    );
    check(404, "404 page not found", ErrorKind::Rejected);
    check(401, r#"{"error":{"message":"Incorrect API key provided"}}"#, ErrorKind::Unauthorized);
    check(403, "forbidden", ErrorKind::Unauthorized);
    check(429, r#"{"error":{"message":"Rate limit reached for model x"}}"#, ErrorKind::RateLimited);
    check(500, "", ErrorKind::Server);
    check(503, r#"{"error":"model is loading"}"#, ErrorKind::Server);
    check(408, "", ErrorKind::Timeout);
    check(422, r#"{"detail":"field required"}"#, ErrorKind::Rejected);
    assert!(!ErrorKind::UnknownModel.is_retryable());
    assert!(!ErrorKind::Unauthorized.is_retryable());
    assert!(!ErrorKind::Rejected.is_retryable());
    assert!(ErrorKind::RateLimited.is_retryable());
    assert!(ErrorKind::Server.is_retryable());
}

/// A value for an extra field: anything a server might add.
fn extra_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z ]{0,8}".prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,5}", inner, 0..3)
                .prop_map(|map| Value::Object(map.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// Extra fields, named so they cannot collide with the protocol's.
fn extras() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::vec(("x_[a-z]{1,6}", extra_value()), 0..3)
}

fn with_extras(mut object: Value, extras: Vec<(String, Value)>) -> Value {
    for (name, value) in extras {
        object[name] = value;
    }
    object
}

#[derive(Debug, Clone)]
enum Content {
    Text(String),
    Null,
    Missing,
    Parts(Vec<String>),
}

proptest! {
    #[test]
    fn every_accepted_variation_reads_the_same(
        content in prop_oneof![
            "[a-zA-Z .]{0,12}".prop_map(Content::Text),
            Just(Content::Null),
            Just(Content::Missing),
            prop::collection::vec("[a-z]{1,4}", 1..3).prop_map(Content::Parts),
        ],
        arguments in prop::collection::btree_map("[a-z]{1,5}", "[a-z]{0,5}", 0..3),
        arguments_as_object in any::<bool>(),
        usage in prop::option::of((0u64..1_000_000, 0u64..1_000_000)),
        finish_reason in prop::option::of("[a-z_]{1,12}"),
        top_extras in extras(),
        choice_extras in extras(),
        message_extras in extras(),
        call_extras in extras(),
        function_extras in extras(),
        usage_extras in extras(),
    ) {
        let arguments_value = Value::Object(arguments.iter().map(|(key, value)| (key.clone(), Value::from(value.as_str()))).collect());
        let arguments_text = arguments_value.to_string();
        let function = with_extras(
            json!({
                "name": "read_file",
                "arguments": if arguments_as_object { arguments_value } else { Value::from(arguments_text.as_str()) },
            }),
            function_extras,
        );
        let call = with_extras(json!({"id": "call_1", "type": "function", "function": function}), call_extras);
        let mut message = with_extras(json!({"role": "assistant", "tool_calls": [call]}), message_extras);
        let expected_text = match &content {
            Content::Text(text) => { message["content"] = Value::from(text.as_str()); Some(text.clone()) }
            Content::Null => { message["content"] = Value::Null; None }
            Content::Missing => None,
            Content::Parts(parts) => {
                message["content"] = Value::Array(parts.iter().map(|part| json!({"type": "text", "text": part})).collect());
                Some(parts.concat())
            }
        };
        let choice = with_extras(json!({"index": 0, "message": message, "finish_reason": finish_reason}), choice_extras);
        let mut body = with_extras(json!({"id": "r", "choices": [choice]}), top_extras);
        if let Some((prompt, completion)) = usage {
            body["usage"] = with_extras(
                json!({"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}),
                usage_extras,
            );
        }

        let response: ChatResponse = serde_json::from_value(body.clone()).map_err(|error| TestCaseError::fail(format!("{error}: {body}")))?;
        let choice = &response.choices[0];
        prop_assert_eq!(&choice.message.content, &expected_text);
        prop_assert_eq!(choice.message.tool_calls.len(), 1);
        let function = &choice.message.tool_calls[0].function;
        prop_assert_eq!(function.name.as_str(), "read_file");
        let parsed: Value = serde_json::from_str(&function.arguments).map_err(|error| TestCaseError::fail(error.to_string()))?;
        prop_assert_eq!(parsed, Value::Object(arguments.into_iter().map(|(key, value)| (key, Value::from(value))).collect()));
        prop_assert_eq!(choice.finish_reason.clone(), finish_reason);
        prop_assert_eq!(response.usage.map(|usage| (usage.prompt_tokens, usage.completion_tokens)), usage);
    }
}
