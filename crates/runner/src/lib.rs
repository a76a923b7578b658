//! The agent runner: drives a run to its end with a model that speaks the OpenAI chat-completions
//! protocol, through the same [`switchyard_runtime::Runtime`] and file tools as every other door.
//!
//! A door decides no engine rule: the runner asks the runtime for the pending step, gives the
//! model the step's prompt and tools, and turns the model's `complete_step` into the same advance
//! any other door sends. What happens is told to whoever watches as [`RunnerEvent`]s (the CLI
//! draws them, or prints them as JSON lines) and recorded durably in the run's log.

pub mod event;

pub use event::{PauseReason, RunnerEvent};
