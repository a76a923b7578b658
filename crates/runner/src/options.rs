//! How a runner drives: approvals, limits, stuck detection, the retry policy for the model's
//! server, and the persona text of roles. Plain data with defaults a run left overnight can live
//! with; the CLI fills it from `[runner]` and its flags.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use switchyard_command::{Allowlist, Limits as CommandLimits};

/// Limits on a run (one drive of it) or on one step. `None`: no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Limits {
    /// Requests to the model.
    pub max_turns: Option<u32>,
    /// Prompt and completion tokens together, as the server counts them.
    pub max_tokens: Option<u64>,
    /// Wall time, waiting for humans excluded.
    pub max_time: Option<Duration>,
}

/// How a failing request is sent again (429, 5xx, timeouts, broken connections): exponential
/// backoff from `initial_delay`, doubled each time up to `max_delay`, with full jitter, a
/// server's `Retry-After` honoured; the model client's policy does the waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries of one request, the first included.
    pub max_attempts: u32,
    pub initial_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        let client = switchyard_llm::RetryPolicy::default();
        Self { max_attempts: client.max_retries + 1, initial_delay: client.base_delay, max_delay: client.max_delay }
    }
}

impl RetryPolicy {
    /// The model client's policy for the same tries.
    pub(crate) fn for_client(&self) -> switchyard_llm::RetryPolicy {
        switchyard_llm::RetryPolicy {
            max_retries: self.max_attempts.saturating_sub(1),
            base_delay: self.initial_delay,
            max_delay: self.max_delay,
        }
    }
}

/// How a runner drives a run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Approve gates without waiting for a person; each approval's note says so.
    pub auto_approve: bool,
    /// Limits on this drive of the run: a run paused at a limit starts afresh when resumed.
    pub run_limits: Limits,
    /// Limits on each step (counted from the step's first turn in this drive).
    pub step_limits: Limits,
    /// The same tool call with the same arguments this many times in a row: the model is stuck.
    pub stuck_repeats: u32,
    /// This many turns in a row without a file written, a checkpoint or a step completed: the
    /// model is stuck.
    pub stuck_turns: u32,
    /// Tool errors of the model (malformed arguments, unknown tools, text instead of a call) in
    /// one step before the run pauses.
    pub max_tool_errors: u32,
    pub retry: RetryPolicy,
    /// The recap a fresh conversation starts with, in bytes (`resume_session`'s recap).
    pub recap_budget_bytes: usize,
    /// The persona text of each role, by role name; a role without one is named in the prompt.
    pub personas: BTreeMap<String, String>,
    /// The project's commands the model may run (`run_command`); `None` offers no such tool.
    pub commands: Option<Commands>,
}

/// The project's commands a model may run with `run_command`, and the sandbox they run in
/// (see `switchyard_command`): the run's workspace writable, nothing it must not write or read.
#[derive(Debug, Clone)]
pub struct Commands {
    pub allow: Allowlist,
    pub limits: CommandLimits,
    /// The workspace of a run that names none (the project).
    pub workspace: PathBuf,
    /// Places besides the workspace commands may write.
    pub writable: Vec<PathBuf>,
    /// Places commands never write: switchyard's configuration and workflow folders, `.git`.
    pub unwritable: Vec<PathBuf>,
    /// Places commands never read: keys, the store, credentials.
    pub secret: Vec<PathBuf>,
    pub network: bool,
    /// Names of environment variables passed beside the base set.
    pub env: Vec<String>,
}

impl Default for RunOptions {
    fn default() -> Self {
        Self {
            auto_approve: false,
            run_limits: Limits::default(),
            step_limits: Limits::default(),
            stuck_repeats: 3,
            stuck_turns: 20,
            max_tool_errors: 5,
            retry: RetryPolicy::default(),
            recap_budget_bytes: switchyard_runtime::RECAP_BUDGET_BYTES,
            personas: BTreeMap::new(),
            commands: None,
        }
    }
}
