//! The pure core of switchyard: ids, the workflow IR, run state, domain events and tokens.
//!
//! Nothing here does IO, reads a clock or draws randomness: time, fresh ids and keys are passed
//! in by the runtime. That keeps every rule here deterministic and testable by value.

pub mod event;
pub mod hash;
pub mod id;
pub mod limits;
pub mod state;
pub mod suggest;
pub mod token;
pub mod turn;
pub mod workflow;

pub use event::{Event, EventKind};
pub use id::{AttemptId, EventId, IdError, NodeId, RunId, SessionId};
pub use state::{Control, Counters, NodeKind, NodeState, RunStatus};
pub use workflow::{Workflow, WorkflowHash};
