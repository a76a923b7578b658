//! The `run_command` tool: one of the project's allowed commands, run by `switchyard_command`
//! in the run's workspace under the kernel's confinement.

use serde_json::json;
use switchyard_command::{CommandSpec, Sandbox};
use switchyard_core::RunId;
use switchyard_core::turn::Refusal;
use switchyard_runtime::observe::{LIFECYCLE_TARGET, SECURITY_REFUSED};

use super::{Drive, StepState, ToolOutcome};
use crate::tools::RUN_COMMAND;

/// The security log's event for a command the model ran.
const COMMAND_RAN: &str = "command_ran";

impl Drive<'_> {
    /// Runs one of the project's commands, if the allowlist permits it, in the run's workspace
    /// under the kernel's confinement (`switchyard_command`). Every call, allowed or refused,
    /// goes to the security log; the model reads the exit code and the output's tails.
    pub(super) async fn run_command(&mut self, run: RunId, state: &StepState, argv: Vec<String>) -> ToolOutcome {
        let Some(commands) = self.runner.options.commands.as_ref() else {
            return ToolOutcome::error("NO_COMMANDS", "this project allows no commands");
        };
        let shown = argv.join(" ");
        if let Err(error) = commands.allow.check(&argv) {
            self.summary.violations += 1;
            tracing::warn!(target: LIFECYCLE_TARGET, event = SECURITY_REFUSED, run = %run, step = %state.step, tool = RUN_COMMAND, command = %shown, code = error.code(), "security: command refused");
            let mut outcome = ToolOutcome::error(error.code(), error.to_string());
            outcome.refusal = Some(Refusal::Violation);
            return outcome;
        }
        let sandbox = Sandbox {
            workspace: self.workspace.clone().unwrap_or_else(|| commands.workspace.clone()),
            writable: commands.writable.clone(),
            unwritable: commands.unwritable.clone(),
            secret: commands.secret.clone(),
            network: commands.network,
        };
        let spec = CommandSpec { argv, env: commands.env.clone() };
        let outcome = match switchyard_command::run(&spec, &sandbox, &commands.limits, &self.cancel).await {
            Ok(outcome) => outcome,
            Err(error) => {
                tracing::info!(target: LIFECYCLE_TARGET, event = COMMAND_RAN, run = %run, step = %state.step, command = %shown, code = error.code(), "command did not start: {error}");
                return ToolOutcome::error(error.code(), error.to_string());
            }
        };
        tracing::info!(
            target: LIFECYCLE_TARGET,
            event = COMMAND_RAN,
            run = %run,
            step = %state.step,
            command = %shown,
            exit_code = outcome.exit_code,
            timed_out = outcome.timed_out,
            confined = outcome.confined,
            millis = u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
            stdout_sha256 = %outcome.stdout.sha256,
            "command ran"
        );
        let content = json!({
            "exit_code": outcome.exit_code,
            "signal": outcome.signal,
            "timed_out": outcome.timed_out,
            "seconds": (outcome.duration.as_secs_f64() * 10.0).round() / 10.0,
            "stdout": captured(&outcome.stdout),
            "stderr": captured(&outcome.stderr),
            "what_happened": if outcome.timed_out {
                format!("killed after {} s, its time limit", commands.limits.timeout.as_secs())
            } else if outcome.cancelled {
                "killed: the run is pausing".to_owned()
            } else {
                match outcome.exit_code {
                    Some(0) => "it succeeded".to_owned(),
                    Some(code) => format!("it failed with exit code {code}"),
                    None => "it was killed by a signal".to_owned(),
                }
            },
        });
        ToolOutcome {
            ok: outcome.succeeded(),
            content: content.to_string(),
            progressed: true,
            moved: false,
            refusal: None,
        }
    }
}

/// A command's output as the model reads it: the tail, and how much there was.
fn captured(captured: &switchyard_command::Captured) -> serde_json::Value {
    if captured.truncated {
        json!({ "tail": captured.tail, "bytes": captured.total_bytes, "note": "only the end is shown" })
    } else {
        json!(captured.tail)
    }
}
