//! A fake OpenAI-compatible chat-completions server for tests: it plays a script of replies over
//! real HTTP on a loopback port and records every request it receives.
//!
//! The server runs on its own thread with its own tokio runtime, so the same server serves an
//! in-process async test (any runtime flavour) and a test of the `switchyard` binary (a child
//! process given [`FakeLlm::base_url`]). It stops when the [`FakeLlm`] is dropped.
//!
//! # The API
//!
//! - [`FakeLlm::start()`] binds `127.0.0.1:0` and serves; [`FakeLlm::base_url()`] is
//!   `http://127.0.0.1:<port>/v1`, what a client is configured with.
//! - [`FakeLlm::push(reply)`](FakeLlm::push) appends a [`Reply`] to the script (also
//!   [`FakeLlm::push_all`]); each `POST /v1/chat/completions` takes the next one, in order.
//!   When the script is empty the server answers 500 with a body saying the script ran out
//!   (or calls the fallback set with [`FakeLlm::otherwise`], for servers that answer forever).
//!   Any other method or path is recorded and answered 404 without taking a reply.
//! - [`Reply`]s:
//!   - [`Reply::text`]: a completion whose assistant message is text (`finish_reason: "stop"`);
//!   - [`Reply::tool_call`] / [`Reply::tool_calls`]: an assistant message calling tools, the
//!     arguments given as JSON and sent as the JSON text OpenAI sends (`finish_reason:
//!     "tool_calls"`); tool call ids the script leaves out are filled as `call_<request>_<index>`
//!     (request counted from 1, index from 0), so they are unique and repeatable;
//!   - [`Reply::raw_tool_call`]: a tool call whose arguments are sent as the text given, JSON or
//!     not (a model's malformed arguments);
//!   - [`Reply::json`]: any body, sent exactly as given (a server family's quirks);
//!   - [`Reply::error`] (JSON body) and [`Reply::error_text`] (text body): an HTTP error;
//!   - [`Reply::computed`]: a closure given the [`RecordedRequest`] that returns the reply, to
//!     echo what the client sent;
//!   - [`Reply::sse`]: a 200 streaming these events (`text/event-stream`), each sent exactly as
//!     given and followed by the blank line that ends an event (`"data: {...}"`, `": keep-alive"`,
//!     `"event: error\ndata: ..."`): for cut streams, malformed events and errors mid-stream;
//!   - modifiers: [`Reply::header`] (such as `Retry-After`), [`Reply::delayed`] (answer after a
//!     wait, for timeouts), [`Reply::usage`] (the token counts of a completion; helpers default
//!     to 10 prompt and 5 completion tokens), [`Reply::streamed`] (a helper's completion streamed
//!     even though the request did not ask, as gateways that always stream do).
//!
//!   The helpers' bodies carry `id`, `object`, `created`, `model` (the request's model) and
//!   `usage`, as OpenAI's do. A helper's completion is streamed as server-sent events when the
//!   request asked for it (`"stream": true`) or the reply is [`Reply::streamed`], split as OpenAI
//!   splits it: a first delta with the role, the content a few characters a chunk, each tool call
//!   named in one chunk and its arguments spread over at least two more, `finish_reason` in the
//!   choice's last chunk, then a chunk with the usage and `"choices": []`, then `data: [DONE]`.
//! - [`FakeLlm::requests()`] returns every request so far as [`RecordedRequest`]s (method, path,
//!   headers with lower-case names, body as JSON and as text, arrival [`Instant`]);
//!   [`FakeLlm::wait_for_requests`] blocks until a number of requests has arrived (with a
//!   generous bound, then panics), for a test that acts while a client is mid-conversation
//!   (a reply [`Reply::delayed`] by a minute keeps a client waiting while the test, say, kills
//!   it; the server answers other requests meanwhile).
//! - [`FakeLlm::assert_never_sent(secrets)`](FakeLlm::assert_never_sent) checks that no
//!   request's body or headers (but `Authorization`) held any of the strings given: tokens, keys
//!   and ids a client must keep from the model.
//! - [`FakeLlm::forget_bodies()`] keeps only what a benchmark of long conversations needs
//!   (arrival times, headers): the bodies are still parsed and given to replies, not kept.
//! - [`FakeLlm::remaining()`] is how many scripted replies are left: a test ends with
//!   `assert_eq!(server.remaining(), 0)` to check the client used all of them.
//! - [`FakeLlm::stream_only()`] makes the server a gateway that only streams: a chat-completions
//!   request without `"stream": true` is recorded and answered 400 `{"error": {"message": "this
//!   endpoint only supports streaming: set stream=true"}}` without taking a reply; the others get
//!   their scripted reply, a helper's completion streamed.
//! - Servers that refuse what they are strict about, each a check run on every chat-completions
//!   request before the script (a refused request is recorded and takes no reply), the refusal
//!   worded as the named server family words it ([`Says`]):
//!   - [`FakeLlm::needs_user_turn()`]: a Qwen3-family chat template (llama.cpp `--jinja`, vLLM,
//!     LiteLLM) refuses a request without a user message;
//!   - [`FakeLlm::wants_reasoning_back()`]: DeepSeek's thinking mode refuses an assistant message
//!     calling tools without the `reasoning_content` it was sent;
//!   - [`FakeLlm::strict_messages()`]: OpenAI's and Azure's validation refuses an assistant
//!     message with neither content nor tool calls, a field a message does not have
//!     (`reasoning_content`), a tool call id used twice, and a tool answer to no call;
//!   - [`FakeLlm::context_window(tokens)`](FakeLlm::context_window): the whole request counted as
//!     a tokenizer reads JSON (4 bytes a token) plus the answer's `max_tokens`, refused past the
//!     window as OpenAI words it;
//!   - [`FakeLlm::refuse_when(check)`](FakeLlm::refuse_when): any other check.
//! - [`Reply::says(Says::...)`](Reply::says): a refusal as one family words it (context windows
//!   of OpenAI, vLLM, llama.cpp and LiteLLM; tool calling off in vLLM, llama.cpp and Ollama).
//! - Answers that test a client's care: [`Reply::empty`] (neither content nor tool calls),
//!   [`Reply::finish`] (another `finish_reason`, such as `length`), [`Reply::reasoning`] (the
//!   message's `reasoning_content`), [`Reply::call_ids`] (tool call ids as given, duplicates
//!   allowed), [`Reply::total_tokens_only`] and [`Reply::no_usage`].
//!
//! ```no_run
//! use serde_json::json;
//! use switchyard_test_support::fake_llm::{FakeLlm, Reply};
//!
//! let server = FakeLlm::start();
//! server.push(Reply::error(429, json!({"error": {"message": "slow down"}})).header("Retry-After", "1"));
//! server.push(Reply::tool_call("complete_step", json!({"notes": "done"})));
//! server.push(Reply::computed(|request| Reply::text(format!("you sent {} messages", request.body["messages"].as_array().map_or(0, Vec::len)))));
//! // ... point a client at server.base_url() ...
//! let requests = server.requests();
//! assert_eq!(requests[0].path, "/v1/chat/completions");
//! ```

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body as HttpBody, Bytes};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use tokio::sync::oneshot;

/// The path that plays the script.
const CHAT_COMPLETIONS: &str = "/v1/chat/completions";

/// What a server that only streams answers a request that did not ask to stream.
const STREAM_ONLY_REFUSAL: &str = "this endpoint only supports streaming: set stream=true";

/// A refusal as a server family words it, for [`Reply::says`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Says {
    /// OpenAI and Azure: the request is longer than the context window.
    OpenAiContext,
    /// vLLM: the messages and the completion are longer than the window.
    VllmContext,
    /// llama.cpp's server: the request exceeds the context size it runs with.
    LlamaCppContext,
    /// LiteLLM in front of another API.
    LiteLlmContext,
    /// vLLM started without tool calling.
    VllmToolsOff,
    /// llama.cpp's server started without `--jinja`.
    LlamaCppToolsOff,
    /// Ollama serving a model without tool support.
    OllamaNoTools,
    /// A Qwen3-family chat template given no user message.
    NoUserQuery,
    /// DeepSeek's thinking mode given a tool-calling assistant message without its reasoning.
    MissingReasoning,
    /// OpenAI given an assistant message with `content: null` and no tool calls.
    NullContent,
    /// OpenAI given a message field it does not know.
    UnknownMessageField,
}

impl Says {
    /// The status and the body the family answers with.
    pub fn answer(self) -> (u16, Value) {
        match self {
            Self::OpenAiContext => (
                400,
                json!({"error": {"message": "This model's maximum context length is 4096 tokens. However, your messages resulted in 5210 tokens. Please reduce the length of the messages.", "type": "invalid_request_error", "param": "messages", "code": "context_length_exceeded"}}),
            ),
            Self::VllmContext => (
                400,
                json!({"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 5210 tokens (4698 in the messages, 512 in the completion). Please reduce the length of the messages or completion.", "type": "BadRequestError", "param": null, "code": 400}),
            ),
            Self::LlamaCppContext => (
                400,
                json!({"error": {"code": 400, "message": "the request exceeds the available context size, try increasing it", "type": "exceed_context_size_error", "n_prompt_tokens": 5210, "n_ctx": 4096}}),
            ),
            Self::LiteLlmContext => (
                400,
                json!({"error": {"message": "litellm.ContextWindowExceededError: litellm.BadRequestError: prompt is too long: 5210 tokens > 4096 maximum", "type": null, "param": null, "code": "400"}}),
            ),
            Self::VllmToolsOff => (
                400,
                json!({"object": "error", "message": "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set", "type": "BadRequestError", "param": null, "code": 400}),
            ),
            Self::LlamaCppToolsOff => (
                400,
                json!({"error": {"code": 400, "message": "tools param requires --jinja flag", "type": "invalid_request_error"}}),
            ),
            Self::OllamaNoTools => (
                400,
                json!({"error": {"message": "registry.ollama.ai/library/gemma2:2b does not support tools", "type": "api_error", "param": null, "code": null}}),
            ),
            Self::NoUserQuery => (
                400,
                json!({"error": {"code": 400, "message": "No user query found in messages.", "type": "invalid_request_error"}}),
            ),
            Self::MissingReasoning => (
                400,
                json!({"error": {"message": "Missing `reasoning_content` field in the assistant message at message index 2. For more information, please refer to the thinking mode documentation.", "type": "invalid_request_error", "param": null, "code": "invalid_request_error"}}),
            ),
            Self::NullContent => (
                400,
                json!({"error": {"message": "Invalid value for 'content': expected a string, got null.", "type": "invalid_request_error", "param": "messages.[2].content", "code": null}}),
            ),
            Self::UnknownMessageField => (
                400,
                json!({"error": {"message": "Additional properties are not allowed ('reasoning_content' was unexpected) - 'messages.2'", "type": "invalid_request_error", "param": null, "code": null}}),
            ),
        }
    }
}

/// A check a strict server runs on each request: the refusal, or `None` to serve it.
type Refusal = Box<dyn Fn(&RecordedRequest) -> Option<Reply> + Send>;

/// A running fake server; dropping it stops the server.
pub struct FakeLlm {
    address: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl fmt::Debug for FakeLlm {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_struct("FakeLlm").field("address", &self.address).finish_non_exhaustive()
    }
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub method: String,
    /// The path, without the query.
    pub path: String,
    /// Header names in lower case; a repeated header keeps its last value.
    pub headers: BTreeMap<String, String>,
    /// The body parsed as JSON, or `Value::Null` when it is not JSON.
    pub body: Value,
    /// The body as text (lossy UTF-8): what a test scans for things that must not be sent.
    pub body_text: String,
    /// When the request arrived (after its body was read).
    pub arrived: Instant,
}

impl RecordedRequest {
    /// A header's value, by name in any case.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(&name.to_ascii_lowercase()).map(String::as_str)
    }

    /// Whether the request asked for a streamed answer (`body.stream` is `true`).
    pub fn asks_to_stream(&self) -> bool {
        self.body["stream"] == Value::Bool(true)
    }

    /// The model the request asked for (`body.model`), or "" when it named none.
    pub fn model(&self) -> &str {
        self.body["model"].as_str().unwrap_or_default()
    }

    fn clone_without_body(&self) -> Self {
        Self {
            method: self.method.clone(),
            path: self.path.clone(),
            headers: self.headers.clone(),
            body: Value::Null,
            body_text: String::new(),
            arrived: self.arrived,
        }
    }

    /// The request's messages (`body.messages`), empty when it sent none.
    pub fn messages(&self) -> &[Value] {
        self.body["messages"].as_array().map_or(&[], Vec::as_slice)
    }
}

type Computed = Box<dyn FnOnce(&RecordedRequest) -> Reply + Send>;
type Fallback = Arc<dyn Fn(&RecordedRequest) -> Reply + Send + Sync>;

/// One scripted answer.
pub struct Reply {
    content: Content,
    headers: Vec<(String, String)>,
    delay: Option<Duration>,
    /// A helper's completion is streamed even when the request did not ask.
    streamed: bool,
}

enum Content {
    /// A completion built by a helper: the server fills the request's model and missing tool call
    /// ids.
    Completion(Value),
    /// A body sent exactly as given, with this status.
    Exact {
        status: u16,
        body: Body,
    },
    /// Server-sent events sent exactly as given, each followed by a blank line.
    Events(Vec<String>),
    Computed(Computed),
}

enum Body {
    Json(Value),
    Text(String),
}

impl fmt::Debug for Reply {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let content = match &self.content {
            Content::Completion(body) => format!("completion {body}"),
            Content::Exact { status, body: Body::Json(body) } => format!("{status} {body}"),
            Content::Exact { status, body: Body::Text(body) } => format!("{status} {body}"),
            Content::Events(events) => format!("events {events:?}"),
            Content::Computed(_) => "computed from the request".to_owned(),
        };
        formatter
            .debug_struct("Reply")
            .field("content", &content)
            .field("headers", &self.headers)
            .field("delay", &self.delay)
            .field("streamed", &self.streamed)
            .finish()
    }
}

impl Reply {
    fn new(content: Content) -> Self {
        Self { content, headers: Vec::new(), delay: None, streamed: false }
    }

    /// A completion whose assistant message says `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Self::new(Content::Completion(completion(&json!({"role": "assistant", "content": text.into()}), "stop")))
    }

    /// A completion whose assistant message calls one tool with `arguments`.
    pub fn tool_call(name: &str, arguments: Value) -> Self {
        Self::tool_calls(&[(name, arguments)])
    }

    /// A completion whose assistant message calls these tools, in order.
    pub fn tool_calls(calls: &[(&str, Value)]) -> Self {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(name, arguments)| {
                json!({"type": "function", "function": {"name": name, "arguments": arguments.to_string()}})
            })
            .collect();
        Self::new(Content::Completion(completion(
            &json!({"role": "assistant", "content": null, "tool_calls": calls}),
            "tool_calls",
        )))
    }

    /// A completion calling `name` with `arguments` sent exactly as this text, which need not be
    /// JSON: a model's malformed arguments.
    pub fn raw_tool_call(name: &str, arguments: &str) -> Self {
        let call = json!({"type": "function", "function": {"name": name, "arguments": arguments}});
        Self::new(Content::Completion(completion(
            &json!({"role": "assistant", "content": null, "tool_calls": [call]}),
            "tool_calls",
        )))
    }

    /// A 200 with exactly this body, nothing filled in.
    pub fn json(body: Value) -> Self {
        Self::new(Content::Exact { status: 200, body: Body::Json(body) })
    }

    /// An HTTP error with a JSON body.
    pub fn error(status: u16, body: Value) -> Self {
        Self::new(Content::Exact { status, body: Body::Json(body) })
    }

    /// An HTTP error with a text body.
    pub fn error_text(status: u16, body: impl Into<String>) -> Self {
        Self::new(Content::Exact { status, body: Body::Text(body.into()) })
    }

    /// A 200 streaming these events (`text/event-stream`), each sent exactly as given and followed
    /// by a blank line; nothing is added, not even `data: [DONE]`.
    pub fn sse(events: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self::new(Content::Events(events.into_iter().map(Into::into).collect()))
    }

    /// The reply the closure computes from the request it answers.
    pub fn computed(compute: impl FnOnce(&RecordedRequest) -> Reply + Send + 'static) -> Self {
        Self::new(Content::Computed(Box::new(compute)))
    }

    /// Adds a response header (`Retry-After`, for instance).
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    /// Answers only after `delay` (to outlast a client's timeout).
    pub fn delayed(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    /// Streams a helper-built completion as server-sent events even when the request did not ask
    /// to stream (ignored on other replies).
    pub fn streamed(mut self) -> Self {
        self.streamed = true;
        self
    }

    /// A refusal as a server family words it.
    pub fn says(says: Says) -> Self {
        let (status, body) = says.answer();
        Self::error(status, body)
    }

    /// A completion whose assistant message has neither content nor tool calls (a content
    /// filter, or a reasoning model that spent `max_tokens` thinking).
    pub fn empty() -> Self {
        Self::new(Content::Completion(completion(&json!({"role": "assistant", "content": null}), "stop")))
    }

    /// Sets a helper-built completion's `finish_reason` (`length`: the answer was cut).
    pub fn finish(mut self, reason: &str) -> Self {
        if let Content::Completion(body) = &mut self.content {
            body["choices"][0]["finish_reason"] = json!(reason);
        }
        self
    }

    /// Sets a helper-built completion's `reasoning_content`, as reasoning models send it.
    pub fn reasoning(mut self, text: &str) -> Self {
        if let Content::Completion(body) = &mut self.content {
            body["choices"][0]["message"]["reasoning_content"] = json!(text);
        }
        self
    }

    /// Gives a helper-built completion's tool calls these ids, in order (duplicates allowed, as
    /// some servers send them).
    pub fn call_ids(mut self, ids: &[&str]) -> Self {
        if let Content::Completion(body) = &mut self.content
            && let Some(calls) = body["choices"][0]["message"]["tool_calls"].as_array_mut()
        {
            for (call, id) in calls.iter_mut().zip(ids) {
                call["id"] = json!(id);
            }
        }
        self
    }

    /// A helper-built completion whose usage gives only `total_tokens`.
    pub fn total_tokens_only(mut self, total: u64) -> Self {
        if let Content::Completion(body) = &mut self.content {
            body["usage"] = json!({"total_tokens": total});
        }
        self
    }

    /// A helper-built completion without `usage`.
    pub fn no_usage(mut self) -> Self {
        if let Content::Completion(body) = &mut self.content
            && let Some(fields) = body.as_object_mut()
        {
            fields.remove("usage");
        }
        self
    }

    /// Sets the token counts of a helper-built completion (ignored on other replies).
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        if let Content::Completion(body) = &mut self.content {
            body["usage"] = json!({
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            });
        }
        self
    }
}

fn completion(message: &Value, finish_reason: &str) -> Value {
    json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    })
}

struct Shared {
    state: Mutex<State>,
    arrived: Condvar,
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    requests: Vec<RecordedRequest>,
    /// Chat-completions requests answered so far (numbers tool call ids).
    completions: usize,
    fallback: Option<Fallback>,
    /// Recorded requests keep their bodies (see [`FakeLlm::forget_bodies`]).
    forget_bodies: bool,
    /// What the server is strict about, checked in order on each chat-completions request.
    refusals: Vec<Refusal>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A test that panicked while holding the lock has already failed; keep serving the rest.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl FakeLlm {
    /// Binds `127.0.0.1:0` and serves on a thread of its own.
    ///
    /// # Panics
    /// When the port cannot be bound or the runtime cannot start: the test cannot run.
    pub fn start() -> Self {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("the fake LLM server binds a loopback port");
        listener.set_nonblocking(true).expect("the fake LLM server's socket turns non-blocking");
        let address = listener.local_addr().expect("the fake LLM server knows its address");
        let shared = Arc::new(Shared { state: Mutex::new(State::default()), arrived: Condvar::new() });
        let (shutdown, stopped) = oneshot::channel::<()>();
        let router = Router::new().fallback(answer).with_state(Arc::clone(&shared));
        let thread = std::thread::Builder::new()
            .name(format!("fake-llm-{}", address.port()))
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("the fake LLM server's runtime starts");
                runtime.block_on(async move {
                    let listener =
                        tokio::net::TcpListener::from_std(listener).expect("the fake LLM server's socket joins tokio");
                    // Not a graceful shutdown: a reply still being delayed must not hold the drop.
                    tokio::select! {
                        _ = axum::serve(listener, router) => {}
                        _ = stopped => {}
                    }
                });
            })
            .expect("the fake LLM server's thread starts");
        Self { address, shared, shutdown: Some(shutdown), thread: Some(thread) }
    }

    /// `http://127.0.0.1:<port>/v1`: the base URL a client is given.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address)
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Appends a reply to the script.
    pub fn push(&self, reply: Reply) -> &Self {
        self.shared.lock().script.push_back(reply);
        self
    }

    /// Appends replies to the script, in order.
    pub fn push_all(&self, replies: impl IntoIterator<Item = Reply>) -> &Self {
        self.shared.lock().script.extend(replies);
        self
    }

    /// What to answer once the script is empty, instead of the 500 saying it ran out.
    pub fn otherwise(&self, reply: impl Fn(&RecordedRequest) -> Reply + Send + Sync + 'static) -> &Self {
        self.shared.lock().fallback = Some(Arc::new(reply));
        self
    }

    /// From now on, recorded requests keep everything but their bodies (which replies and
    /// fallbacks still see): a benchmark's conversation of a thousand turns sends hundreds of
    /// megabytes in all, which the server need not hold.
    pub fn forget_bodies(&self) -> &Self {
        self.shared.lock().forget_bodies = true;
        self
    }

    /// From now on, answers a chat-completions request that does not ask to stream with a 400
    /// saying the endpoint only streams, as gateways that only stream do, without taking a
    /// reply; requests that ask get their reply, a helper's completion streamed.
    pub fn stream_only(&self) -> &Self {
        self.refuse_when(|request| {
            (!request.asks_to_stream()).then(|| Reply::error(400, json!({"error": {"message": STREAM_ONLY_REFUSAL}})))
        })
    }

    /// Refuses a chat-completions request when `check` returns a reply (which answers it; no
    /// scripted reply is taken).
    pub fn refuse_when(&self, check: impl Fn(&RecordedRequest) -> Option<Reply> + Send + 'static) -> &Self {
        self.shared.lock().refusals.push(Box::new(check));
        self
    }

    /// Refuses a request without a user message, as Qwen3-family chat templates do.
    pub fn needs_user_turn(&self) -> &Self {
        self.refuse_when(|request| {
            let has_user = request.messages().iter().any(|message| message["role"] == "user");
            (!has_user).then(|| Reply::says(Says::NoUserQuery))
        })
    }

    /// Refuses an assistant message calling tools without `reasoning_content`, as DeepSeek's
    /// thinking mode does.
    pub fn wants_reasoning_back(&self) -> &Self {
        self.refuse_when(|request| {
            let missing = request.messages().iter().any(|message| {
                message["role"] == "assistant"
                    && message["tool_calls"].as_array().is_some_and(|calls| !calls.is_empty())
                    && !message["reasoning_content"].is_string()
            });
            missing.then(|| Reply::says(Says::MissingReasoning))
        })
    }

    /// Validates messages as OpenAI and Azure do: an assistant message needs content or tool
    /// calls, a message has no field but the protocol's, a tool call id is used once, and a tool
    /// answer answers a call of the assistant message before it.
    pub fn strict_messages(&self) -> &Self {
        self.refuse_when(|request| {
            const FIELDS: [&str; 5] = ["role", "content", "tool_calls", "tool_call_id", "name"];
            let mut seen_ids = std::collections::HashSet::new();
            let mut open_calls: Vec<String> = Vec::new();
            for message in request.messages() {
                let fields = message.as_object().map(|fields| fields.keys().cloned().collect::<Vec<_>>()).unwrap_or_default();
                if fields.iter().any(|field| !FIELDS.contains(&field.as_str())) {
                    return Some(Reply::says(Says::UnknownMessageField));
                }
                match message["role"].as_str() {
                    Some("assistant") => {
                        let calls = message["tool_calls"].as_array().cloned().unwrap_or_default();
                        if calls.is_empty() && !message["content"].is_string() {
                            return Some(Reply::says(Says::NullContent));
                        }
                        open_calls.clear();
                        for call in calls {
                            let id = call["id"].as_str().unwrap_or_default().to_owned();
                            if !seen_ids.insert(id.clone()) {
                                let message = format!("Duplicate value for 'tool_call_id' of {id} in messages.");
                                return Some(Reply::error(400, json!({"error": {"message": message, "type": "invalid_request_error"}})));
                            }
                            open_calls.push(id);
                        }
                    }
                    Some("tool") => {
                        let id = message["tool_call_id"].as_str().unwrap_or_default();
                        if !open_calls.iter().any(|open| open == id) {
                            let message = "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.";
                            return Some(Reply::error(400, json!({"error": {"message": message, "type": "invalid_request_error"}})));
                        }
                    }
                    _ => open_calls.clear(),
                }
            }
            None
        })
    }

    /// Counts each request whole against a window of `tokens`, as a tokenizer reads JSON (4
    /// bytes a token) plus the answer's `max_tokens`, and refuses one past it as OpenAI does.
    pub fn context_window(&self, tokens: u64) -> &Self {
        self.refuse_when(move |request| {
            let answer = request.body["max_tokens"].as_u64().unwrap_or(0);
            let counted = request.body_text.len() as u64 / 4 + answer;
            (counted > tokens).then(|| {
                let message = format!(
                    "This model's maximum context length is {tokens} tokens. However, your messages resulted in {counted} tokens. Please reduce the length of the messages."
                );
                Reply::error(400, json!({"error": {"message": message, "type": "invalid_request_error", "code": "context_length_exceeded"}}))
            })
        })
    }

    /// How many scripted replies have not been played.
    pub fn remaining(&self) -> usize {
        self.shared.lock().script.len()
    }

    /// Every request received so far, in order of arrival.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Checks that no request sent so far holds any of `secrets` (tokens, keys, internal ids)
    /// in its body or headers, the `Authorization` header excepted (where a key belongs).
    ///
    /// # Panics
    /// Naming the request (from 1) and where the secret was found.
    pub fn assert_never_sent(&self, secrets: &[&str]) {
        for (index, request) in self.requests().iter().enumerate() {
            for secret in secrets.iter().filter(|secret| !secret.is_empty()) {
                assert!(
                    !request.body_text.contains(secret),
                    "request {} to the fake LLM server holds `{secret}` in its body",
                    index + 1
                );
                let header = request
                    .headers
                    .iter()
                    .find(|(name, value)| name.as_str() != "authorization" && value.contains(secret));
                assert!(
                    header.is_none(),
                    "request {} to the fake LLM server holds `{secret}` in its header {:?}",
                    index + 1,
                    header.map(|(name, _)| name)
                );
            }
        }
    }

    /// Blocks until at least `count` requests have arrived and returns them all.
    ///
    /// # Panics
    /// When they have not arrived within `bound`, saying how many did.
    pub fn wait_for_requests(&self, count: usize, bound: Duration) -> Vec<RecordedRequest> {
        let state = self.shared.lock();
        let (state, timeout) = self
            .shared
            .arrived
            .wait_timeout_while(state, bound, |state| state.requests.len() < count)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        assert!(
            !timeout.timed_out() || state.requests.len() >= count,
            "the fake LLM server expected {count} requests within {bound:?}, {} arrived",
            state.requests.len()
        );
        state.requests.clone()
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn answer(
    axum::extract::State(shared): axum::extract::State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request = RecordedRequest {
        method: method.to_string(),
        path: uri.path().to_owned(),
        headers: headers
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
            .collect(),
        body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        body_text: String::from_utf8_lossy(&body).into_owned(),
        arrived: Instant::now(),
    };
    let is_completion = method == Method::POST && request.path == CHAT_COMPLETIONS;
    let (reply, number) = {
        let mut state = shared.lock();
        let recorded = if state.forget_bodies { request.clone_without_body() } else { request.clone() };
        state.requests.push(recorded);
        shared.arrived.notify_all();
        let refused = if is_completion { state.refusals.iter().find_map(|check| check(&request)) } else { None };
        if let Some(refusal) = refused {
            (refusal, 0)
        } else if is_completion {
            state.completions += 1;
            let number = state.completions;
            let reply = match state.script.pop_front() {
                Some(reply) => reply,
                None => match &state.fallback {
                    Some(fallback) => fallback(&request),
                    None => script_exhausted(number),
                },
            };
            (reply, number)
        } else {
            let message = format!(
                "the fake LLM server serves only POST {CHAT_COMPLETIONS}, not {} {}",
                request.method, request.path
            );
            (Reply::error(404, json!({"error": {"message": message, "type": "not_found"}})), 0)
        }
    };
    let reply = resolve(reply, &request);
    if let Some(delay) = reply.delay {
        tokio::time::sleep(delay).await;
    }
    respond(reply, &request, number)
}

/// Turns a computed reply into what it computes; headers and a delay set on the computed reply
/// itself still apply.
fn resolve(reply: Reply, request: &RecordedRequest) -> Reply {
    let Reply { content, mut headers, delay, streamed } = reply;
    match content {
        Content::Computed(compute) => {
            let computed = resolve(compute(request), request);
            headers.extend(computed.headers);
            Reply {
                content: computed.content,
                headers,
                delay: delay.or(computed.delay),
                streamed: streamed || computed.streamed,
            }
        }
        content => Reply { content, headers, delay, streamed },
    }
}

fn script_exhausted(number: usize) -> Reply {
    let message = format!(
        "the fake LLM server's script is exhausted: chat-completions request {number} arrived after {} scripted replies; \
         push more replies (or set `otherwise`) in the test",
        number - 1
    );
    Reply::error(500, json!({"error": {"message": message, "type": "fake_llm_script_exhausted"}}))
}

fn respond(reply: Reply, request: &RecordedRequest, number: usize) -> Response {
    let (status, body, content_type) = match reply.content {
        Content::Completion(mut body) => {
            fill_completion(&mut body, request, number);
            if reply.streamed || request.asks_to_stream() {
                (200, event_stream(completion_events(&body)), "text/event-stream")
            } else {
                (200, HttpBody::from(body.to_string()), "application/json")
            }
        }
        Content::Exact { status, body: Body::Json(body) } => {
            (status, HttpBody::from(body.to_string()), "application/json")
        }
        Content::Exact { status, body: Body::Text(body) } => (status, HttpBody::from(body), "text/plain"),
        Content::Events(events) => (200, event_stream(events), "text/event-stream"),
        Content::Computed(_) => unreachable!("computed replies are resolved before responding"),
    };
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, body).into_response();
    let response_headers = response.headers_mut();
    response_headers.insert(axum::http::header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    for (name, value) in reply.headers {
        if let (Ok(name), Ok(value)) = (HeaderName::try_from(name), HeaderValue::try_from(value)) {
            response_headers.insert(name, value);
        }
    }
    response
}

/// A body sending each event as a piece of its own, as a server streaming them does.
fn event_stream(events: Vec<String>) -> HttpBody {
    let pieces = events.into_iter().map(|event| Ok::<_, std::convert::Infallible>(format!("{event}\n\n")));
    HttpBody::from_stream(futures::stream::iter(pieces))
}

/// A filled completion as the `data:` events OpenAI streams it in (see the module's doc).
fn completion_events(completion: &Value) -> Vec<String> {
    let chunk = |choices: Value| {
        json!({
            "id": completion["id"],
            "object": "chat.completion.chunk",
            "created": completion["created"],
            "model": completion["model"],
            "choices": choices,
        })
    };
    let mut events = Vec::new();
    for choice in completion["choices"].as_array().into_iter().flatten() {
        let message = &choice["message"];
        let mut send = |delta: Value, finish_reason: &Value| {
            let choices = json!([{"index": choice["index"], "delta": delta, "finish_reason": finish_reason}]);
            events.push(format!("data: {}", chunk(choices)));
        };
        send(json!({"role": message["role"]}), &Value::Null);
        for piece in pieces(message["content"].as_str().unwrap_or_default(), 4) {
            send(json!({"content": piece}), &Value::Null);
        }
        for (index, call) in message["tool_calls"].as_array().into_iter().flatten().enumerate() {
            let function = &call["function"];
            send(
                json!({"tool_calls": [{"index": index, "id": call["id"], "type": call["type"],
                    "function": {"name": function["name"], "arguments": ""}}]}),
                &Value::Null,
            );
            let arguments = function["arguments"].as_str().unwrap_or_default();
            // In three pieces, so even `{}` comes in two.
            for piece in pieces(arguments, arguments.chars().count().div_ceil(3)) {
                send(json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}), &Value::Null);
            }
        }
        send(json!({}), &choice["finish_reason"]);
    }
    if !completion["usage"].is_null() {
        let mut usage_only = chunk(json!([]));
        usage_only["usage"] = completion["usage"].clone();
        events.push(format!("data: {usage_only}"));
    }
    events.push("data: [DONE]".to_owned());
    events
}

/// `text` in pieces of `size` characters (at least one).
fn pieces(text: &str, size: usize) -> Vec<String> {
    let characters: Vec<char> = text.chars().collect();
    characters.chunks(size.max(1)).map(|piece| piece.iter().collect()).collect()
}

/// Fills what a helper-built completion leaves to the server: the model asked for, and tool call
/// ids unique to this request.
fn fill_completion(body: &mut Value, request: &RecordedRequest, number: usize) {
    if body.get("model").is_none() {
        body["model"] = Value::String(request.model().to_owned());
    }
    body["id"] = Value::String(format!("chatcmpl-fake-{number}"));
    let Some(choices) = body["choices"].as_array_mut() else { return };
    for choice in choices {
        let Some(calls) = choice["message"]["tool_calls"].as_array_mut() else { continue };
        for (index, call) in calls.iter_mut().enumerate() {
            if call.get("id").is_none() {
                call["id"] = Value::String(format!("call_{number}_{index}"));
            }
        }
    }
}
