//! Calls that take effect once: the claim a command records, what a repeat of it replays, and
//! how a repeat with other content is refused.

use std::collections::HashMap;

use serde_json::{Map, Value};
use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::hash::{canonical_json, sha256_hex};
use switchyard_core::why::Why;
use switchyard_core::workflow::StepId;
use switchyard_core::{AttemptId, NodeId, RunId, SessionId};
use switchyard_engine::Command;
use switchyard_store::{Claim, NodeRecord};

use crate::commands::{Findings, what_the_advance_recorded};
use crate::response::{Flags, respond};
use crate::{AdvanceInput, Error, ReplayedCall, Runtime, StepResponse, report_template};

impl Runtime {
    /// Answers a call that was already made, from what was recorded; advances nothing.
    pub(crate) async fn replay(
        &self,
        recorded: &switchyard_store::Recorded,
        call: &OnceCall,
    ) -> Result<StepResponse, Error> {
        check_payload(recorded, call)?;
        let node: NodeId = recorded
            .outcome
            .get("node")
            .and_then(Value::as_str)
            .and_then(|text| text.parse().ok())
            .ok_or_else(|| Error::internal(format!("the recorded outcome of `{}` is unreadable", recorded.key)))?;
        let node = self.node(node).await?;
        let context = self.run_context(node.run).await?;
        let tokens = self.tokens_for(&context, node.id, &node.state, AttemptId::first_for(node.id)).await?;
        let forked = node.cause == NodeCause::Fork;
        let mut response =
            respond(&context, node.id, &node.state, context.run.control, tokens, Flags { forked, replayed: true });
        self.recorded_with(&node).await?.answer(&mut response);
        Ok(response)
    }

    /// What the command that created `node` recorded beside it: its report's warnings, the
    /// evidence switchyard gathered of the work, and why the run went there. One bounded read of
    /// the log.
    pub async fn findings_of(&self, node: &NodeRecord) -> Result<Findings, Error> {
        self.recorded_with(node).await
    }

    /// The decisions that brought a run to `tip`, oldest first: the why of each of the last `last`
    /// nodes on the tip's branch (among the run's `nodes`) that had something to decide. One
    /// bounded read of the log per node.
    pub async fn decisions(&self, nodes: &[NodeRecord], tip: NodeId, last: usize) -> Result<Vec<Decision>, Error> {
        let by_id: HashMap<NodeId, &NodeRecord> = nodes.iter().map(|node| (node.id, node)).collect();
        let mut branch = Vec::new();
        let mut at = by_id.get(&tip).copied();
        while let Some(node) = at
            && branch.len() < last
        {
            branch.push(node);
            at = node.parent.and_then(|parent| by_id.get(&parent).copied());
        }
        let mut decisions = Vec::new();
        for node in branch.into_iter().rev() {
            if let Some(why) = self.recorded_with(node).await?.why {
                decisions.push(Decision { node: node.id, step: node.state.step.clone(), why });
            }
        }
        Ok(decisions)
    }

    /// The report warnings, the evidence and the why recorded with the command that created
    /// `node`: its `ReportWarned`, `EvidenceRecorded` and `DecisionRecorded` follow the node's
    /// `NodeCreated` and the command's own event, so a replay answers with them too.
    async fn recorded_with(&self, node: &NodeRecord) -> Result<Findings, Error> {
        let events = self.store.events(node.session, node.created_seq, 5).await?;
        let about: Vec<EventKind> = events
            .into_iter()
            .map(|event| event.kind)
            .filter(|kind| match kind {
                EventKind::ReportWarned { node: about, .. }
                | EventKind::EvidenceRecorded { node: about, .. }
                | EventKind::DecisionRecorded { node: about, .. } => *about == node.id,
                _ => false,
            })
            .collect();
        Ok(what_the_advance_recorded(&about))
    }
}

/// One decision of a run: the node it created, the step that node is at, and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Decision {
    pub node: NodeId,
    /// The step the decision left the run at.
    pub step: StepId,
    pub why: Why,
}

/// Refuses a report that still holds a placeholder of its [`ReportTemplate`]: sent as is, a
/// template copied from a response must neither advance the run nor use up an attempt.
pub(crate) fn refuse_placeholders(input: &AdvanceInput) -> Result<(), Error> {
    let paths = report_template::unfilled(input);
    if paths.is_empty() { Ok(()) } else { Err(Error::ReportNotFilledIn { paths }) }
}

/// A call that takes effect once: repeated with the same payload it replays the recorded answer;
/// with another payload it is refused, naming the fields that differ.
#[derive(Debug, Clone)]
pub(crate) struct OnceCall {
    pub(crate) key: String,
    /// The SHA-256 of the payload, as recorded.
    pub(crate) payload: String,
    /// The SHA-256 of each field of the payload, recorded in the claim's outcome so a mismatch
    /// can say which fields differ.
    pub(crate) fields: Map<String, Value>,
    /// The session the claim is recorded in: the run's.
    pub(crate) session: SessionId,
    /// The run the call acts on, for the way to a fresh token.
    pub(crate) run: RunId,
}

impl OnceCall {
    /// The claim recording this call, whose answer is `node`.
    pub(crate) fn claim(&self, node: NodeId) -> Claim {
        Claim {
            key: self.key.clone(),
            payload_sha256: self.payload.clone(),
            outcome: serde_json::json!({ "node": node, "fields": self.fields }),
        }
    }
}

/// The claim key of an advance from `node` on `attempt`.
pub(crate) fn advance_key(node: NodeId, attempt: AttemptId) -> String {
    format!("advance:{node}:{attempt}")
}

/// The SHA-256 of each top-level field of a payload object.
pub(crate) fn field_hashes(payload: &Value) -> Map<String, Value> {
    payload
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, value)| !value.is_null())
        .map(|(name, value)| (name.clone(), Value::String(sha256_hex(&canonical_json(value)))))
        .collect()
}

pub(crate) fn check_payload(recorded: &switchyard_store::Recorded, call: &OnceCall) -> Result<(), Error> {
    if recorded.payload_sha256 == call.payload {
        return Ok(());
    }
    // Calls recorded before their fields were kept say only that something differs.
    let differs = match recorded.outcome.get("fields").and_then(Value::as_object) {
        Some(fields) => {
            let mut names: Vec<String> = fields
                .keys()
                .chain(call.fields.keys())
                .filter(|name| fields.get(*name) != call.fields.get(*name))
                .cloned()
                .collect();
            names.sort();
            names.dedup();
            names
        }
        None => Vec::new(),
    };
    let kind = recorded.key.split(':').next().unwrap_or_default();
    Err(Error::ReplayMismatch {
        call: ReplayedCall::from_key_kind(kind),
        run: call.run.to_string(),
        differs,
        recorded_sha256: recorded.payload_sha256.clone(),
        sent_sha256: call.payload.clone(),
    })
}

/// The part of a human command that decides whether a repeat is the same call.
pub(crate) fn command_payload(command: &Command) -> Value {
    match command {
        Command::Approve { note } => serde_json::json!({ "approve": note }),
        Command::Reject { reason } => serde_json::json!({ "reject": reason }),
        Command::Decide { option, note } => serde_json::json!({ "decide": option.as_str(), "note": note }),
        _ => Value::Null,
    }
}

/// The fields of a human command, named as a mismatch names them (not its payload, which keeps
/// the shape it always had so recorded calls still match).
pub(crate) fn command_fields(command: &Command) -> Value {
    match command {
        Command::Approve { note } => serde_json::json!({ "decision": "approve", "note": note }),
        Command::Reject { reason } => serde_json::json!({ "decision": "reject", "reason": reason }),
        Command::Decide { option, note } => serde_json::json!({ "option": option.as_str(), "note": note }),
        _ => Value::Null,
    }
}
