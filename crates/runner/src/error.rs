//! What stops a runner before it can drive (an unknown model, a workflow that does not start) or
//! while it talks to the runtime. A model that fails or misbehaves is not an error: the run
//! pauses, with the reason, and [`crate::Outcome::Paused`] says so.

/// Why a runner could not drive a run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A step names a model the configuration does not have. Nothing was sent or started.
    #[error(
        "{} names the model `{model}`, which is not configured{}; configured: {}. Add a `[models.{model}]` section to switchyard.toml, or fix the name",
        step.as_ref().map_or_else(|| "the run".to_owned(), |step| format!("step `{step}`")),
        did_you_mean.as_ref().map_or_else(String::new, |name| format!(" (did you mean `{name}`?)")),
        known.join(", ")
    )]
    UnknownModel { model: String, step: Option<String>, known: Vec<String>, did_you_mean: Option<String> },
    /// The runtime refused or failed (the workflow, the store).
    #[error(transparent)]
    Runtime(#[from] switchyard_runtime::Error),
    /// The workflow to start cannot be found or read.
    #[error(transparent)]
    Catalog(#[from] switchyard_catalog::Error),
    /// The runtime answered a running run without a pending step: a broken promise of the
    /// runtime's, stopped on rather than guessed around.
    #[error(
        "run {run} is {status} without a pending step; this is a bug in switchyard: please report it with `switchyard log {run}`"
    )]
    NoPendingStep { run: String, status: String },
}

impl Error {
    /// A stable code for programs that react to it.
    pub fn code(&self) -> &'static str {
        match self {
            Self::UnknownModel { .. } => "UNKNOWN_MODEL",
            Self::Runtime(error) => error.code(),
            Self::Catalog(error) => error.code(),
            Self::NoPendingStep { .. } => "RUNNER_NO_PENDING_STEP",
        }
    }
}
