//! The switchyard store contract: the [`Store`] trait every backend implements, its records,
//! [`Error`], the stored event envelope and hash chain ([`event`]), the projection rules
//! ([`projection`]) and, behind the `conformance` feature, the suite every backend runs.
//!
//! The event log is the only truth. Sessions, runs and nodes are projections updated by
//! [`projection::Projector`] in the same transaction as the events, and rebuildable from them.

pub mod changes;
pub mod copy;
pub mod decode;
pub mod error;
pub mod event;
pub mod projection;
pub mod record;
pub mod search;
pub mod verify;

#[cfg(feature = "conformance")]
pub mod conformance;

pub use changes::{CHANGE_BACKLOG, Change, Changes, Feed, RecvError, TryRecvError};
pub use copy::{CopiedEvent, SessionCopy};
pub use error::Error;
pub use record::{
    Appended, Batch, Claim, MAX_PAGE, NewEvent, NodeRecord, Problem, Recorded, RunGuard, RunRecord, SessionQuery,
    SessionRecord, StoredEvent, TokenRecord, TokenScope, VerifyReport,
};
pub use search::{MAX_RECAP_NODES, MAX_SEARCH_HITS, RecapEntry, RecapKind, SearchHit, SearchQuery};

use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_core::token::Nonce;
use switchyard_core::workflow::{Workflow, WorkflowHash};

/// A durable store of sessions: an append-only, hash-chained event log per session, idempotency
/// claims, token registrations, pinned workflows and the projections derived from the events.
#[async_trait::async_trait]
pub trait Store: Send + Sync + std::fmt::Debug + 'static {
    /// Appends one command's writes, all or nothing; the result is durable when this returns.
    /// A claim whose key the batch's session already recorded writes nothing and returns what was
    /// recorded.
    async fn append(&self, batch: Batch) -> Result<Appended, Error>;

    /// Registers a token. `(kind, node, attempt)` is unique: when that position is already
    /// registered, returns its nonce and writes nothing; otherwise registers `record.nonce`.
    async fn claim_token(&self, record: TokenRecord) -> Result<Nonce, Error>;

    async fn token(&self, nonce: Nonce) -> Result<Option<TokenRecord>, Error>;

    /// A token with what a command on it reads next: its run, the run's session and its node.
    /// `None` when the token is unknown. Backends that can should answer in one round trip (the
    /// default makes four).
    async fn token_scope(&self, nonce: Nonce) -> Result<Option<TokenScope>, Error> {
        let Some(token) = self.token(nonce).await? else { return Ok(None) };
        let run = self.run(token.run).await?;
        let session = self.session(token.session).await?;
        let node = self.node(token.node).await?;
        Ok(Some(TokenScope { token, run, session, node }))
    }

    /// The claim `session` recorded under `key`. A claim belongs to its session: the same key in
    /// another session is another claim (the runtime's keys name a node, so they never meet).
    async fn recorded(&self, session: SessionId, key: &str) -> Result<Option<Recorded>, Error>;

    /// The workflow pinned under `hash`; one whose stored IR does not hash to `hash` is
    /// [`Error::Corrupt`] (callers rely on it and do not hash it again).
    async fn workflow(&self, hash: WorkflowHash) -> Result<Option<Workflow>, Error>;

    async fn session(&self, id: SessionId) -> Result<Option<SessionRecord>, Error>;

    async fn run(&self, id: RunId) -> Result<Option<RunRecord>, Error>;

    async fn node(&self, id: NodeId) -> Result<Option<NodeRecord>, Error>;

    /// Every node of a run, in creation order.
    async fn run_nodes(&self, run: RunId) -> Result<Vec<NodeRecord>, Error>;

    /// Sessions, most recently updated first; see [`SessionQuery`].
    async fn list_sessions(&self, query: SessionQuery) -> Result<Vec<SessionRecord>, Error>;

    /// The distinct workflow ids sessions have run, in byte order, at most `limit` (at most
    /// [`MAX_PAGE`]): an index seek per id, whatever the number of sessions.
    async fn session_workflow_ids(&self, limit: u32) -> Result<Vec<String>, Error>;

    /// Up to `limit` events of a session with `seq > after_seq`, in order.
    async fn events(&self, session: SessionId, after_seq: u64, limit: u32) -> Result<Vec<StoredEvent>, Error>;

    /// Walks every session's hash chain and compares the stored projections with a rebuild from
    /// the events. Problems are reported, not raised; an `Err` means the check itself failed.
    async fn verify(&self) -> Result<VerifyReport, Error>;

    /// Drops the projections and rebuilds them from the events, in one transaction.
    async fn rebuild_projections(&self) -> Result<(), Error>;

    /// Sessions whose title, goal, notes or decisions contain the query's words (whole words, in
    /// any inflection the backend's stemmer joins), best first, one hit per session; answered from
    /// a full-text index kept in the same transaction as the events, at a cost that does not grow
    /// with the store.
    async fn search_sessions(&self, query: SearchQuery) -> Result<Vec<SearchHit>, Error>;

    /// The notes, checkpoints and decisions recorded on `node` and up to `max_nodes - 1` of its
    /// ancestors (at most [`MAX_RECAP_NODES`] in all), oldest first.
    async fn recap(&self, node: NodeId, max_nodes: u32) -> Result<Vec<RecapEntry>, Error>;

    /// The changes committed from now on: every batch this store object commits is published
    /// after its commit, before `append` returns. A backend that processes or servers share also
    /// publishes what the others commit, within about a second and without a busy loop; it
    /// answers once it hears them, so a commit made elsewhere after `subscribe` returns is never
    /// missed (or after a bounded wait when it cannot listen yet, saying so in the log).
    async fn subscribe(&self) -> Changes;

    /// The sessions that hold events, in id byte order, after `after`, at most `limit` (at most
    /// [`MAX_PAGE`]): the pages a store copy walks.
    async fn copied_sessions(&self, after: Option<SessionId>, limit: u32) -> Result<Vec<SessionId>, Error>;

    /// Everything the store keeps about one session for a copy ([`SessionCopy`]), read in one
    /// snapshot; `None` when the session holds no event.
    async fn export_session(&self, session: SessionId) -> Result<Option<SessionCopy>, Error>;

    /// Writes a session exported from another store in one transaction, so a reader sees all of
    /// it or none: its events with their original sequence numbers and hashes (checked first,
    /// [`SessionCopy::checked_events`]), the projections and the text index built from them by
    /// the shared projector, its claims, tokens and pins. A session the store already holds, or a
    /// claim key or token taken there, is a `STORE_CONFLICT` and nothing is written.
    async fn import_session(&self, copy: SessionCopy) -> Result<(), Error>;
}
