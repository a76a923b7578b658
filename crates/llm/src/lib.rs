//! An OpenAI-compatible chat-completions client with function calling: the wire types
//! ([`wire`]), the [`Client`] that posts them, and retries ([`retry`]).
//!
//! "OpenAI-compatible" servers (OpenAI, Azure-style gateways, OpenRouter, vLLM, llama.cpp's
//! server, Ollama, LM Studio) differ in what they add and omit, so the types are hand-written and
//! tolerant: every field a server may leave out has a default, and what a server adds is kept in
//! `extra` rather than refused ([`wire`] lists the variations). `async-openai` was not chosen: its
//! types follow OpenAI's own API closely and refuse the variations the other servers send.
//!
//! An answer may come as one JSON body or streamed as server-sent events, asked for with
//! [`ChatRequest::stream`] or sent unasked by a server that always streams; the client puts a
//! stream back together into the same [`ChatResponse`], so callers never tell the two apart.
//!
//! Failures are sorted by what a caller can do ([`ErrorKind`]): [`Client::complete_with_retries`]
//! retries what may mend (429, 5xx, timeouts, broken connections) with backoff and jitter,
//! honouring `Retry-After`, and stops at once on what cannot (401/403, an unknown model, other
//! 4xx).
//!
//! The API key is held as [`ApiKey`], whose `Debug` never shows it; it is sent in one header and
//! never appears in an error, a log line or anything the client returns: the client cuts it out
//! of every body a server sends before using it, should the server echo the request's headers.

pub mod client;
pub mod error;
pub mod retry;
mod stream;
pub mod wire;

pub use client::{ApiKey, Client, Endpoint, classify};
pub use error::{Error, ErrorKind};
pub use retry::{Retry, RetryPolicy, parse_retry_after};
pub use wire::{
    ChatRequest, ChatResponse, Choice, Finish, FunctionCall, FunctionSpec, Message, Price, Role, ToolCall, ToolSpec,
    Usage,
};
