//! Steps switchyard runs itself (`run:`): when a command leaves a run at one, the runtime runs its
//! command before it answers and advances with what it saw, under the claim `run:<node>`, so the
//! agent is handed the next step an agent does. A crash between the command and its commit leaves
//! the run at the step; whoever acts on it next (its continue token, a resume, the runner) runs it
//! again, and a second commit of the same node is a replay.

use serde_json::Map;
use switchyard_core::evidence::Observation;
use switchyard_core::hash::sha256_hex;
use switchyard_core::state::Phase;
use switchyard_core::{AttemptId, Control};
use switchyard_engine::{Advance, Command};
use switchyard_store::NodeRecord;

use crate::context::RunContext;
use crate::replay::OnceCall;
use crate::{Error, Runtime, StepResponse};

/// The most `run` steps one call runs in a row before it answers (a workflow whose run steps
/// loop among themselves is bounded by its cycles too; this bounds a call's time).
const MAX_RUN_STEPS_IN_A_ROW: usize = 64;

impl Runtime {
    /// Runs the `run` steps `response` leaves the run at, one after another, and answers with
    /// where the run is then.
    pub(crate) async fn then_run_steps(&self, mut response: StepResponse) -> Result<StepResponse, Error> {
        for _ in 0..MAX_RUN_STEPS_IN_A_ROW {
            let at_run_step = response.step.as_ref().is_some_and(|step| step.run.is_some());
            if !at_run_step || response.status.is_terminal() {
                return Ok(response);
            }
            let context = self.run_context(response.run).await?;
            if context.run.control != Control::Running {
                return Ok(response);
            }
            let node = self.node(response.node).await?;
            response = self.run_step(&context, &node).await?;
        }
        Ok(response)
    }

    /// Runs the command of the `run` step `node` hands out and advances with what it saw.
    pub(crate) async fn run_step(&self, context: &RunContext, node: &NodeRecord) -> Result<StepResponse, Error> {
        let command = context
            .workflow
            .workflow
            .run_of(&node.state.step)
            .ok_or_else(|| Error::internal(format!("step `{}` is not run by switchyard", node.state.step)))?;
        let call = OnceCall {
            key: format!("run:{}", node.id),
            payload: sha256_hex(b"run"),
            fields: Map::new(),
            session: context.run.session,
            run: context.run.id,
        };
        if let Some(recorded) = self.store.recorded(call.session, &call.key).await? {
            return self.replay(&recorded, &call).await;
        }
        // Run only what the engine will take: elsewhere it refuses the advance, and says why.
        let runnable = context.run.control == Control::Running && matches!(node.state.phase, Phase::Pending);
        // A project command is the one the run was started with; the engine skips a step whose
        // command the run lacks, so it arrives here only set.
        let evidence = match (runnable, command.for_project(&context.project)) {
            (false, _) => Vec::new(),
            (true, Some(command)) => vec![self.evidence.run(&command, context.workspace.as_deref()).await],
            (true, None) => {
                vec![Observation::Unavailable { reason: format!("the run was started without {}", command.display()) }]
            }
        };
        let advance = Advance {
            attempt: AttemptId::first_for(node.id),
            notes: None,
            artifacts: None,
            context: None,
            choice: None,
            evidence,
        };
        self.execute(context, node, Command::Advance(advance), Some(&call)).await
    }
}
