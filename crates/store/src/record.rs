//! The records the store takes in (`Batch`, `NewEvent`, `Claim`, `TokenRecord`) and gives back
//! (events, projections, recorded outcomes, verification reports).

use serde::{Deserialize, Serialize};

use switchyard_core::event::{EventKind, NodeCause};
use switchyard_core::id::{AttemptId, EventId, NodeId, RunId, SessionId};
use switchyard_core::state::{Control, NodeKind, NodeState, RunStatus};
use switchyard_core::token::{Nonce, TokenKind};
use switchyard_core::workflow::{StepId, Workflow, WorkflowHash};

/// The most rows one `list_sessions` call returns, whatever limit it asks for.
pub const MAX_PAGE: u32 = 1000;

/// One event to append; the store assigns its sequence number and hashes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewEvent {
    pub id: EventId,
    pub run: Option<RunId>,
    pub at_ms: i64,
    pub kind: EventKind,
}

/// Everything one command writes, committed all or nothing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Batch {
    /// The session every event of the batch belongs to.
    pub session: SessionId,
    /// At least one event. A new session's first event is `SessionCreated`; a `RunStarted` is
    /// followed in the same batch by the run's first `NodeCreated`.
    pub events: Vec<NewEvent>,
    /// An idempotency claim: when its key is already recorded, nothing is written and the
    /// recorded outcome comes back as [`Appended::AlreadyRecorded`].
    pub claim: Option<Claim>,
    /// Tokens to register. A position already registered under another nonce is a conflict.
    pub tokens: Vec<TokenRecord>,
    /// A workflow to pin; pinning a workflow already stored is a no-op.
    pub pin: Option<Workflow>,
    /// Commit only while a run's control is what the command was decided on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<RunGuard>,
}

impl Batch {
    /// A batch of events with no claim, tokens, pin or guard.
    pub fn events(session: SessionId, events: Vec<NewEvent>) -> Self {
        Self { session, events, claim: None, tokens: Vec::new(), pin: None, guard: None }
    }
}

/// A batch's precondition on its run: a command decided while the run was running must not land
/// after a pause or stop committed in between (and a pause not after a stop). Checked inside the
/// write transaction, after the claim (a replay is answered whatever the run's control is now);
/// when it fails nothing is written and `append` returns [`crate::Error::Stale`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunGuard {
    pub run: RunId,
    pub control: Control,
}

/// An idempotency claim: the key, the SHA-256 of the request payload and the outcome to replay.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claim {
    pub key: String,
    pub payload_sha256: String,
    pub outcome: serde_json::Value,
}

/// What `append` did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "result")]
pub enum Appended {
    /// The batch is durable; its events got the sequence numbers `first_seq..=last_seq`.
    Committed { first_seq: u64, last_seq: u64 },
    /// The claim's key was already recorded; nothing was written.
    AlreadyRecorded(Recorded),
}

/// A claim as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    pub key: String,
    pub session: SessionId,
    pub payload_sha256: String,
    pub outcome: serde_json::Value,
}

/// What a token's nonce stands for. `(kind, node, attempt)` is unique.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    #[serde(with = "nonce_hex")]
    pub nonce: Nonce,
    pub kind: TokenKind,
    pub session: SessionId,
    pub run: RunId,
    pub node: NodeId,
    pub attempt: Option<AttemptId>,
}

/// A token and the records a command on it reads ([`crate::Store::token_scope`]). The records
/// are `None` only in a damaged store: a token is registered with its node, run and session.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenScope {
    pub token: TokenRecord,
    pub run: Option<RunRecord>,
    pub session: Option<SessionRecord>,
    pub node: Option<NodeRecord>,
}

/// Projection: one session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionRecord {
    pub id: SessionId,
    pub goal: String,
    pub title: String,
    pub workflow_id: Option<String>,
    pub run: Option<RunId>,
    /// Mirrors the status of `run`.
    pub status: Option<RunStatus>,
    pub workspace: Option<String>,
    pub git_branch: Option<String>,
    pub git_head: Option<String>,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
    pub last_seq: u64,
}

/// Projection: one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub id: RunId,
    pub session: SessionId,
    pub workflow_id: String,
    pub workflow_hash: WorkflowHash,
    pub source: String,
    pub control: Control,
    /// The most recently created node.
    pub tip: NodeId,
    pub status: RunStatus,
    pub node_count: u64,
    pub created_at_ms: i64,
    pub updated_at_ms: i64,
}

/// Projection: one node of a run's graph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeRecord {
    pub id: NodeId,
    pub run: RunId,
    pub session: SessionId,
    pub parent: Option<NodeId>,
    pub kind: NodeKind,
    pub cause: NodeCause,
    pub step: StepId,
    pub status: RunStatus,
    pub state: NodeState,
    pub child_count: u64,
    /// The session sequence number of the `NodeCreated` event.
    pub created_seq: u64,
    pub created_at_ms: i64,
}

/// One event as stored: the versioned envelope, chained by hash within its session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredEvent {
    /// Envelope version, [`crate::event::ENVELOPE_VERSION`].
    pub v: u32,
    pub id: EventId,
    pub session: SessionId,
    /// 1 for a session's first event, then contiguous.
    pub seq: u64,
    pub run: Option<RunId>,
    pub at_ms: i64,
    pub kind: EventKind,
    /// The previous event's `hash`, or 64 zeros for the first event.
    pub prev_hash: String,
    /// Hex SHA-256 over `prev_hash` followed by the canonical JSON of this envelope without `hash`.
    pub hash: String,
}

/// A page of sessions, most recently updated first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionQuery {
    pub status: Option<RunStatus>,
    pub workflow_id: Option<String>,
    /// Only sessions started in this workspace (the path as the session recorded it).
    pub workspace: Option<String>,
    /// Only sessions started on this git branch.
    pub git_branch: Option<String>,
    /// Only sessions started at this git commit.
    pub git_head: Option<String>,
    /// At most [`MAX_PAGE`]; larger values are capped.
    pub limit: u32,
    /// Cursor: `(updated_at_ms, id)` of the last row of the previous page. Rows come in
    /// `(updated_at_ms, id text)` descending order, so the next page starts strictly below it.
    pub before: Option<(i64, SessionId)>,
}

impl Default for SessionQuery {
    fn default() -> Self {
        Self {
            status: None,
            workflow_id: None,
            workspace: None,
            git_branch: None,
            git_head: None,
            limit: 100,
            before: None,
        }
    }
}

/// What `verify` found.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct VerifyReport {
    pub sessions_checked: u64,
    pub events_checked: u64,
    pub problems: Vec<Problem>,
}

impl VerifyReport {
    pub fn is_clean(&self) -> bool {
        self.problems.is_empty()
    }
}

/// One thing `verify` found wrong, with a stable code and where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Problem {
    /// Stable code; see [`problem`] for the list.
    pub code: String,
    pub session: Option<SessionId>,
    pub seq: Option<u64>,
    /// What differs, naming the table, row and field where it applies.
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.code)?;
        if let Some(session) = self.session {
            write!(f, " {session}")?;
        }
        if let Some(seq) = self.seq {
            write!(f, " seq {seq}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The stable codes of [`Problem`].
pub mod problem {
    /// Sequence numbers of a session are not 1, 2, 3, ...
    pub const EVENT_SEQ_GAP: &str = "EVENT_SEQ_GAP";
    /// An event's `prev_hash` is not the previous event's hash.
    pub const EVENT_CHAIN_BROKEN: &str = "EVENT_CHAIN_BROKEN";
    /// An event's stored hash does not match the hash of its stored bytes.
    pub const EVENT_HASH_MISMATCH: &str = "EVENT_HASH_MISMATCH";
    /// An event row cannot be decoded, or its columns disagree with its envelope.
    pub const EVENT_UNREADABLE: &str = "EVENT_UNREADABLE";
    /// An event cannot be applied to the projections (it names a missing session, run or node).
    pub const EVENT_INCONSISTENT: &str = "EVENT_INCONSISTENT";
    /// A projection row the events produce is not stored.
    pub const PROJECTION_MISSING: &str = "PROJECTION_MISSING";
    /// A projection row is stored that the events do not produce.
    pub const PROJECTION_EXTRA: &str = "PROJECTION_EXTRA";
    /// A stored projection row differs from what the events produce.
    pub const PROJECTION_DIFFERS: &str = "PROJECTION_DIFFERS";
    /// A projection row cannot be decoded.
    pub const PROJECTION_UNREADABLE: &str = "PROJECTION_UNREADABLE";
}

/// Serde for [`Nonce`] as 24 lowercase hex characters.
pub mod nonce_hex {
    use serde::{Deserialize, Deserializer, Serializer};
    use switchyard_core::token::Nonce;

    pub fn serialize<S: Serializer>(nonce: &Nonce, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&nonce.to_hex())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Nonce, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Nonce::from_hex(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not a token nonce: expected 24 hex digits")))
    }
}
