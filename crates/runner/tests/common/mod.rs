//! What the runner's tests share: a switchyard home with a real SQLite store, the file host, a
//! fake model server on a loopback port, a [`Scenario`] that sets a run up from what a test says
//! differs, and helpers to drive a run and read its log.

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
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::task::JoinHandle;
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
            stream: false,
            send_reasoning: None,
        }
    }

    /// Writes a workflow file in the home and names it for a start.
    pub fn workflow(&self, name: &str, source: &str) -> StartRequest {
        let path: PathBuf = self.home.path().join(format!("{name}.yaml"));
        std::fs::write(&path, source).unwrap();
        StartRequest { file: Some(path), goal: format!("Test the runner with {name}"), ..StartRequest::default() }
    }

    /// Drives `target` to its outcome and returns what the runner told its watchers.
    pub async fn drive(&self, runner: &Runner, target: Target) -> (Outcome, Vec<RunnerEvent>) {
        let (sender, mut receiver) = unbounded_channel();
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

/// A run of one workflow against scripted replies. A test names what differs from the defaults
/// (no replies, `RunOptions::default()`, one model `test-model`) and then drives the run, spawns
/// it, or takes the [`Prepared`] parts to drive it its own way.
pub struct Scenario {
    name: &'static str,
    source: String,
    replies: Vec<Reply>,
    options: RunOptions,
    models: Option<ModelsOn>,
}

/// A test's models, built on the world's model server once it runs.
type ModelsOn = Box<dyn FnOnce(&World) -> Models>;

impl Scenario {
    /// The workflow `source`, written to `<name>.yaml` in the home and started for a goal that
    /// names it.
    pub fn new(name: &'static str, source: impl Into<String>) -> Self {
        Self { name, source: source.into(), replies: Vec::new(), options: RunOptions::default(), models: None }
    }

    /// What the model server answers, in order.
    pub fn replies(mut self, replies: impl IntoIterator<Item = Reply>) -> Self {
        self.replies.extend(replies);
        self
    }

    pub fn options(mut self, options: RunOptions) -> Self {
        self.options = options;
        self
    }

    /// The runner's models, on the world's model server.
    pub fn models(mut self, models: impl FnOnce(&World) -> Models + 'static) -> Self {
        self.models = Some(Box::new(models));
        self
    }

    /// A fresh world with the replies queued, the runner, and the run's start; nothing is sent.
    pub async fn prepare(self) -> Prepared {
        let world = World::new().await;
        world.server.push_all(self.replies);
        let models = match self.models {
            Some(models) => models(&world),
            None => Models::single("test-model", world.model("test-model")),
        };
        let catalog = Catalog::new(None, world.home.path());
        let runner = Runner::new(Arc::clone(&world.runtime), catalog, Arc::clone(&world.files), models, self.options);
        let start = Target::Start(world.workflow(self.name, &self.source));
        Prepared { world, runner, start }
    }

    /// Drives the run to its outcome.
    pub async fn drive(self) -> Driven {
        self.prepare().await.drive().await
    }

    /// Drives the run on a task of its own.
    pub async fn spawn(self, cancel: CancellationToken) -> Spawned {
        self.prepare().await.spawn(cancel)
    }
}

/// A scenario set up and not driven yet.
pub struct Prepared {
    pub world: World,
    pub runner: Runner,
    pub start: Target,
}

impl Prepared {
    pub async fn drive(self) -> Driven {
        let (outcome, events) = self.world.drive(&self.runner, self.start).await;
        Driven { world: self.world, runner: self.runner, outcome, events }
    }

    /// Drives the run on a task of its own, with what it tells its watchers.
    pub fn spawn(self, cancel: CancellationToken) -> Spawned {
        let (sender, events) = unbounded_channel();
        let (runner, start) = (self.runner.clone(), self.start);
        let drive = tokio::spawn(async move { runner.drive(start, sender, cancel).await.unwrap() });
        Spawned { world: self.world, runner: self.runner, drive, events }
    }
}

/// A scenario driven to its outcome, with what the runner told its watchers.
pub struct Driven {
    pub world: World,
    pub runner: Runner,
    pub outcome: Outcome,
    pub events: Vec<RunnerEvent>,
}

/// A scenario being driven on a task of its own.
pub struct Spawned {
    pub world: World,
    pub runner: Runner,
    pub drive: JoinHandle<Outcome>,
    pub events: UnboundedReceiver<RunnerEvent>,
}

/// Waits until the runner says it waits for a person: what kind of wait, and what to type.
pub async fn next_wait(events: &mut UnboundedReceiver<RunnerEvent>) -> (String, String) {
    loop {
        match events.recv().await {
            Some(RunnerEvent::WaitingForHuman { kind, how, .. }) => return (kind, how),
            Some(_) => {}
            None => panic!("the drive ended without waiting for a person"),
        }
    }
}

/// The run a `switchyard approve run_…` line names.
pub fn run_in(how: &str) -> switchyard_core::RunId {
    how.split_whitespace().nth(2).unwrap().parse().unwrap()
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
