//! The pure core of switchyard: ids, the workflow IR, run state, domain events and tokens.
//!
//! Nothing here does IO, reads a clock or draws randomness: time, fresh ids and keys are passed
//! in by the runtime. That keeps every rule here deterministic and testable by value.

pub mod event;
pub mod evidence;
pub mod hash;
pub mod id;
pub mod limits;
pub mod state;
pub mod suggest;
pub mod token;
pub mod turn;
pub mod why;
pub mod workflow;

pub use event::{Event, EventKind};
pub use id::{AttemptId, EventId, IdError, NodeId, RunId, SessionId};
pub use state::{Control, Counters, NodeKind, NodeState, RunStatus};
pub use workflow::{Workflow, WorkflowHash};

/// The name a unit enum value has on the wire and in the store, its serde name
/// (`RunStatus::WaitingGate` is `waiting_gate`): text for people uses the same words as JSON.
/// A value that does not serialise as a string is written as its JSON text.
pub fn wire_name<T: serde::Serialize + ?Sized>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        Ok(other) => other.to_string(),
        Err(error) => format!("<unencodable: {error}>"),
    }
}
