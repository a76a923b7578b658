//! What a person answers a run that waits for them: a gate's approval or rejection, or one of
//! the options a decision offers. Doors that show a person where a run waits send it with the
//! node they showed ([`crate::Runtime::answer`]).

use switchyard_core::state::DecisionOption;

/// A person's answer to a run waiting at a gate or for a decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HumanAnswer {
    /// The gate's result is accepted; the run goes on.
    Approve { note: Option<String> },
    /// The gate's result is handed back; the agent reads `reason` to redo the step.
    Reject { reason: String },
    /// One of the options a run at a revision or replan limit offers.
    Decide { option: DecisionOption, note: Option<String> },
}
