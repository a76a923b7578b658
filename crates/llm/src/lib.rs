//! An OpenAI-compatible chat-completions client with function calling: the wire types
//! ([`wire`]) and the [`Client`] that posts them.
//!
//! "OpenAI-compatible" servers (OpenAI, Azure-style gateways, OpenRouter, vLLM, llama.cpp's
//! server, Ollama, LM Studio) differ in what they add and omit, so the types are hand-written and
//! tolerant: every field a server may leave out has a default, and what a server adds is kept in
//! `extra` rather than refused. `async-openai` was not chosen: its types follow OpenAI's own API
//! closely and refuse the variations the other servers send.
//!
//! The API key is held as [`ApiKey`], whose `Debug` never shows it; it is sent in one header and
//! never appears in an error, a log line or anything the client returns.

pub mod client;
pub mod error;
pub mod wire;

pub use client::{ApiKey, Client, Endpoint};
pub use error::{Error, ErrorKind};
pub use wire::{
    ChatRequest, ChatResponse, Choice, FunctionCall, FunctionSpec, Message, Role, ToolCall, ToolSpec, Usage,
};
