//! The agent runner: drives a run to its end with a model that speaks the OpenAI chat-completions
//! protocol, through the same [`switchyard_runtime::Runtime`] and file tools as every other door.
//!
//! A door decides no engine rule: the runner asks the runtime for the pending step, gives the
//! model the step's prompt and tools, and turns the model's `complete_step` into the same advance
//! any other door sends. What happens is told to whoever watches as [`RunnerEvent`]s (the CLI
//! draws them, or prints them as JSON lines) and recorded durably in the run's log, one
//! `model_turn` event per request ([`switchyard_runtime::Runtime::record_turn`]).
//!
//! The runner holds the tokens: the model sees the step, never a token, a key or an id, and a
//! runner killed at any point picks the run up at its tip ([`Target::Resume`]) without doing a
//! completed step again.

mod conversation;
mod drive;
pub mod error;
pub mod event;
pub mod models;
pub mod options;
mod prompt;
mod tools;
mod watch;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use switchyard_catalog::Catalog;
use switchyard_core::{RunId, RunStatus};
use switchyard_files::FileHost;
use switchyard_llm::Client;
use switchyard_runtime::{Runtime, StartRequest};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

pub use crate::error::Error;
pub use crate::event::{PauseReason, RunSummary, RunnerEvent};
pub use crate::models::{ModelSpec, Models, Price};
pub use crate::options::{Commands, Limits, RetryPolicy, RunOptions};

/// What to drive: a new run, or a run that exists (started by any door) picked up at its tip.
#[derive(Debug, Clone)]
pub enum Target {
    /// A new run of a workflow found in the runner's catalog (or read from the request's file).
    Start(StartRequest),
    Resume(RunId),
}

/// How a drive ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The run reached its end: `completed`, `failed` or `stopped`.
    Finished { run: RunId, status: RunStatus, summary: RunSummary },
    /// The runner stopped before the end and left the run paused: `switchyard run --resume`
    /// picks it up again.
    Paused { run: RunId, reason: PauseReason, message: String, summary: RunSummary },
}

impl Outcome {
    pub fn run(&self) -> RunId {
        match self {
            Self::Finished { run, .. } | Self::Paused { run, .. } => *run,
        }
    }
}

/// Drives runs with a model. One runner may drive several runs, one `drive` call each.
#[derive(Debug, Clone)]
pub struct Runner {
    runtime: Arc<Runtime>,
    /// Where the workflows of the runs it starts are found.
    catalog: Catalog,
    files: Arc<FileHost>,
    models: Models,
    options: RunOptions,
    /// One HTTP client per model name, made on its first request and kept across drives, so
    /// its connection pool (and TLS sessions) outlive one run.
    clients: Arc<Mutex<HashMap<String, Client>>>,
    /// What each model's server was found to need, by model name, kept across drives.
    quirks: Arc<Mutex<HashMap<String, Quirks>>>,
}

/// What a model's server turned out to need, learned from its refusals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Quirks {
    /// It answers only streamed requests.
    pub(crate) stream: bool,
    /// It refuses the reasoning sent back (`reasoning_content` in a request's messages).
    pub(crate) refuses_reasoning: bool,
    /// The most tokens of messages it took, learned from a refusal as too long: lower than the
    /// configured window's room, or the only bound when none is configured.
    pub(crate) room: Option<u64>,
}

impl Runner {
    /// A runner on `runtime`, starting the workflows `catalog` finds, offering the model the file
    /// tools of `files` (the file door's host on the same runtime: the same sandbox and security
    /// log as the file door).
    pub fn new(
        runtime: Arc<Runtime>,
        catalog: Catalog,
        files: Arc<FileHost>,
        models: Models,
        options: RunOptions,
    ) -> Self {
        Self { runtime, catalog, files, models, options, clients: Arc::default(), quirks: Arc::default() }
    }

    /// What the model named `name`'s server was found to need so far.
    pub(crate) fn quirks(&self, name: &str) -> Quirks {
        // A cache of observations: a panic elsewhere leaves it usable.
        self.quirks.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).get(name).copied().unwrap_or_default()
    }

    /// Records what the model named `name`'s server needs.
    pub(crate) fn learn(&self, name: &str, learned: impl FnOnce(&mut Quirks)) {
        learned(
            self.quirks.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).entry(name.to_owned()).or_default(),
        );
    }

    /// The client of the model named `name`, made from `spec` the first time.
    fn client(&self, name: &str, spec: &ModelSpec) -> Result<Client, switchyard_llm::Error> {
        // The map is a cache of clients: a panic elsewhere leaves it usable.
        let mut clients = self.clients.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(client) = clients.get(name) {
            return Ok(client.clone());
        }
        let client = Client::new(spec.endpoint.clone())?;
        clients.insert(name.to_owned(), client.clone());
        Ok(client)
    }

    pub fn runtime(&self) -> &Arc<Runtime> {
        &self.runtime
    }

    /// Drives `target` until the run ends or the runner must stop (a limit, a stuck or failing
    /// model, `cancel`), telling `events` what happens. Stopping early leaves the run paused,
    /// never failed.
    ///
    /// Errors are what prevents driving at all: a step naming an unconfigured model (checked
    /// before the run starts or any request is sent), a workflow that does not start, a store
    /// that fails.
    pub async fn drive(
        &self,
        target: Target,
        events: UnboundedSender<RunnerEvent>,
        cancel: CancellationToken,
    ) -> Result<Outcome, Error> {
        drive::Drive::new(self, events, cancel).run(target).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI spawns the drive on a multi-threaded runtime (beside its Ctrl-C handler).
    #[test]
    fn a_drive_can_be_spawned_on_any_thread() {
        fn spawnable<T: Send>(_: &T) {}
        fn check(runner: &Runner) {
            let (events, _) = tokio::sync::mpsc::unbounded_channel();
            let drive = runner.drive(Target::Resume(RunId::from_bytes([1; 16])), events, CancellationToken::new());
            spawnable(&drive);
        }
        let _ = check;
    }
}
