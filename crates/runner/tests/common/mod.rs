//! What the runner's tests share: a switchyard home with a real SQLite store, the file host, a
//! fake model server on a loopback port, and helpers to drive a run and read its log.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use switchyard_catalog::Catalog;
use switchyard_config::{Config, Overrides};
use switchyard_files::{FileHost, HostConfig};
use switchyard_llm::{ApiKey, Endpoint};
use switchyard_run_folder::RunFolders;
use switchyard_runner::{ModelSpec, Models, Outcome, RunOptions, Runner, RunnerEvent, Target};
use switchyard_runtime::{Runtime, StartRequest};
use switchyard_test_support::fake_llm::{FakeLlm, Reply};
use tokio_util::sync::CancellationToken;

/// The API key the tests configure; it must reach the server in the header only.
pub const API_KEY: &str = "sk-test-9f8e7d6c5b4a39281706";

pub struct World {
    pub home: tempfile::TempDir,
    pub config: Config,
    pub runtime: Arc<Runtime>,
    pub files: Arc<FileHost>,
    pub server: FakeLlm,
}

impl World {
    pub async fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let config = Config::resolve(Overrides { home: Some(home.path().to_owned()), ..Overrides::default() }).unwrap();
        let folders = Arc::new(RunFolders::new(config.output_root.clone()));
        let runtime = Arc::new(Runtime::open(&config).await.unwrap().with_follower(Arc::clone(&folders) as _));
        let files = Arc::new(FileHost::new(Arc::clone(&runtime), folders, HostConfig::from_config(&config)));
        Self { home, config, runtime, files, server: FakeLlm::start() }
    }

    /// A model on the fake server, with the test key.
    pub fn model(&self, id: &str) -> ModelSpec {
        ModelSpec {
            model_id: id.to_owned(),
            endpoint: Endpoint {
                base_url: self.server.base_url(),
                api_key: Some(ApiKey::new(API_KEY)),
                timeout: Duration::from_secs(30),
            },
            temperature: None,
            max_tokens: None,
            context_window_tokens: None,
            price: None,
        }
    }

    pub fn runner(&self, options: RunOptions) -> Runner {
        self.runner_with(Models::single("test-model", self.model("test-model")), options)
    }

    pub fn runner_with(&self, models: Models, options: RunOptions) -> Runner {
        Runner::new(
            Arc::clone(&self.runtime),
            Catalog::new(None, self.home.path()),
            Arc::clone(&self.files),
            models,
            options,
        )
    }

    /// Writes a workflow file in the home and names it for a start.
    pub fn workflow(&self, name: &str, source: &str) -> StartRequest {
        let path: PathBuf = self.home.path().join(format!("{name}.yaml"));
        std::fs::write(&path, source).unwrap();
        StartRequest { file: Some(path), goal: format!("Test the runner with {name}"), ..StartRequest::default() }
    }

    /// Drives `target` to its outcome and returns what the runner told its watchers.
    pub async fn drive(&self, runner: &Runner, target: Target) -> (Outcome, Vec<RunnerEvent>) {
        let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
        let outcome = runner.drive(target, sender, CancellationToken::new()).await.unwrap();
        let mut events = Vec::new();
        while let Ok(event) = receiver.try_recv() {
            events.push(event);
        }
        (outcome, events)
    }

    /// The kinds of the run's events, in order.
    pub async fn event_kinds(&self, outcome: &Outcome) -> Vec<String> {
        self.events(outcome).await.iter().map(|event| event.kind.name().to_owned()).collect()
    }

    pub async fn events(&self, outcome: &Outcome) -> Vec<switchyard_store::StoredEvent> {
        let run = self.runtime.run(&switchyard_runtime::Target::Run(outcome.run())).await.unwrap();
        self.runtime.events(run.session, 0, 1000).await.unwrap()
    }
}

/// A completion calling tools, as `Reply::tool_calls` builds it.
pub fn call(name: &str, arguments: Value) -> Reply {
    Reply::tool_call(name, arguments)
}

/// A completion whose tool call's arguments are `raw` text, sent as is.
pub fn raw_call(name: &str, raw: &str) -> Reply {
    Reply::json(json!({
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_raw", "type": "function", "function": {"name": name, "arguments": raw}}
            ]},
            "finish_reason": "tool_calls"
        }],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    }))
}

/// The text of a request's messages of `role`.
pub fn contents(request: &switchyard_test_support::fake_llm::RecordedRequest, role: &str) -> Vec<String> {
    request
        .messages()
        .iter()
        .filter(|message| message["role"] == role)
        .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A two-step line: `draft` then `finish`; `finish` resets its context when asked.
pub fn two_steps(reset: bool) -> String {
    format!(
        r#"id: two-steps
version: "1"
title: Two steps
description: Draft, then finish.
steps:
  - id: draft
    title: Draft it
    prompt: Write the draft for {{{{ goal }}}}.
    next: finish
  - id: finish
    title: Finish it
    context_reset: {reset}
    prompt: Finish the draft.
"#
    )
}
