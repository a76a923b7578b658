//! `switchyard transcript run_…`: what the model saw and did in a run the runner drove, per step
//! and turn.

use clap::Args;

/// `switchyard transcript`'s arguments; `--json` is the global one.
#[derive(Debug, Args)]
pub struct TranscriptArgs {
    /// A run or session id.
    pub run: String,
    /// Only this step's turns.
    #[arg(long, value_name = "STEP")]
    pub step: Option<String>,
}

pub async fn run(
    _printer: &crate::output::Printer,
    _overrides: switchyard_runtime::Overrides,
    _args: &TranscriptArgs,
) -> Result<crate::output::Outcome, crate::output::Failure> {
    Err(crate::output::Failure::environment("the runner's transcripts are not merged yet"))
}
