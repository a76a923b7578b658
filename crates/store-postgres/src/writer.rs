//! The write path: one command's batch in one transaction (events, projections, text index,
//! claim, tokens, pin, the session head and the change notice), token claims, and rebuilds.
//!
//! Appends to one session are serialised inside the database: the first statement upserts the
//! session's `heads` row, which locks it until commit, so every server reads the same last
//! sequence number and hash and the chain stays gap-free. The claim is read after that lock, so
//! two servers racing one claim advance once; a claim is keyed by its session and key, so only an
//! append to its own session, which waits on that lock, can meet it.

use std::collections::{BTreeSet, HashMap};

use deadpool_postgres::{GenericClient, Transaction};

use switchyard_core::event::EventKind;
use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_core::token::Nonce;
use switchyard_store::event::GENESIS_HASH;
use switchyard_store::projection::{ApplyError, ProjectionStore, Projections, Projector};
use switchyard_store::search::indexed_text;
use switchyard_store::{
    Appended, Batch, Error, NodeRecord, RunRecord, SessionCopy, SessionRecord, StoredEvent, TokenRecord,
};

use crate::pg_error::{self, Context};
use crate::rows::{self, sql_int};
use crate::search;

/// The channel every store listens on for the other servers' commits.
pub(crate) const CHANGES_CHANNEL: &str = "switchyard_changes";

fn invalid(reason: impl Into<String>) -> Error {
    Error::InvalidBatch { reason: reason.into() }
}

/// Appends `batch` inside `transaction`; the caller commits when it returns `Committed`.
/// `instance` tags the change notice so this store does not hear its own commits twice.
pub(crate) async fn append(transaction: &Transaction<'_>, batch: Batch, instance: &str) -> Result<Appended, Error> {
    if batch.events.is_empty() {
        return Err(invalid("a batch must carry at least one event"));
    }
    let session = batch.session.to_string();
    // Locks the session: concurrent appends to it, from any server, wait here until this commits.
    let head = "INSERT INTO heads (session, seq, hash) VALUES ($1, 0, $2)
        ON CONFLICT (session) DO UPDATE SET session = excluded.session RETURNING seq, hash";
    let statement = transaction.prepare_cached(head).await.doing("locking the session head")?;
    let row = transaction.query_one(&statement, &[&session, &GENESIS_HASH]).await.doing("locking the session head")?;
    let decoder = rows::decoder(&row, "heads");
    let (mut seq, mut prev_hash) = (decoder.count(0, "seq")?, decoder.text(1, "hash")?);

    if let Some(claim) = &batch.claim
        && let Some(recorded) = rows::recorded(transaction, batch.session, &claim.key).await?
    {
        return Ok(Appended::AlreadyRecorded(recorded));
    }
    if let Some(guard) = &batch.guard {
        let found = rows::run(transaction, guard.run).await?.map(|run| run.control);
        if found != Some(guard.control) {
            return Err(Error::Stale {
                run: guard.run.to_string(),
                expected: guard.control.as_str().to_owned(),
                found: found.map_or("missing", |control| control.as_str()).to_owned(),
            });
        }
    }

    let first_seq = seq + 1;
    let mut sealed = Vec::with_capacity(batch.events.len());
    for event in batch.events {
        seq += 1;
        let (stored, body) = StoredEvent::seal(batch.session, seq, &prev_hash, event);
        let body = String::from_utf8(body).map_err(|error| invalid(format!("event body is not UTF-8: {error}")))?;
        prev_hash = stored.hash.clone();
        sealed.push((stored, body));
    }
    write_sealed(transaction, batch.session, &sealed).await?;
    if let Some(claim) = &batch.claim {
        let outcome =
            serde_json::to_string(&claim.outcome).map_err(|error| invalid(format!("claim outcome: {error}")))?;
        let sql = "INSERT INTO claims (key, session, payload_sha256, outcome) VALUES ($1, $2, $3, $4)";
        rows::execute(
            transaction,
            sql,
            &[&claim.key, &session, &claim.payload_sha256, &outcome],
            "recording the claim",
        )
        .await?;
    }
    for token in &batch.tokens {
        register_token(transaction, token).await?;
    }
    if let Some(workflow) = &batch.pin {
        rows::pin_workflow(transaction, workflow).await?;
    }
    let notice = format!("{instance} {session} {seq}");
    rows::execute(
        transaction,
        "WITH moved AS (UPDATE heads SET seq = $2, hash = $3 WHERE session = $1)
         SELECT pg_notify($4, $5)",
        &[&session, &sql_int(seq), &prev_hash, &CHANGES_CHANNEL, &notice],
        "moving the session head",
    )
    .await?;
    Ok(Appended::Committed { first_seq, last_seq: seq })
}

/// Inserts sealed events (each with the body its hash covers), their projections and their
/// text index: the part of a write that an append and an import share.
async fn write_sealed(
    transaction: &Transaction<'_>,
    session: SessionId,
    sealed: &[(StoredEvent, String)],
) -> Result<(), Error> {
    let events: Vec<StoredEvent> = sealed.iter().map(|(stored, _)| stored.clone()).collect();
    let mut rows = Fetched::default();
    rows.prefetch(transaction, session, &events).await?;
    let written = project(transaction, &mut rows, &events).await?;

    insert_events(transaction, sealed).await?;
    write_projections(transaction, &written).await?;
    for event in &events {
        if let Some(text) = indexed_text(event) {
            let step = match text.about {
                Some(about) => match written.nodes.get(&about).or(rows.nodes.get(&about).and_then(Option::as_ref)) {
                    Some(node) => node.step.as_str().to_owned(),
                    None => rows::node(transaction, about)
                        .await?
                        .map(|node| node.step.as_str().to_owned())
                        .unwrap_or_default(),
                },
                None => String::new(),
            };
            search::insert_text(transaction, event, &text, &step).await?;
        }
    }
    Ok(())
}

/// Writes a session copied from another store (see `Store::import_session`): claims the
/// session's head row (a session already here is a conflict), then the events as the source
/// sealed them, and its claims, tokens and pins. Returns the session's last seq.
pub(crate) async fn import(transaction: &Transaction<'_>, copy: SessionCopy, instance: &str) -> Result<u64, Error> {
    let sealed = copy.checked_events()?;
    let Some((last, _)) = sealed.last() else { return Err(invalid("a copied session carries no event")) };
    let (last_seq, last_hash) = (last.seq, last.hash.clone());
    let session = copy.session.to_string();
    let claimed = rows::execute(
        transaction,
        "INSERT INTO heads (session, seq, hash) VALUES ($1, $2, $3) ON CONFLICT (session) DO NOTHING",
        &[&session, &sql_int(last_seq), &last_hash],
        "claiming the session head",
    )
    .await?;
    if claimed == 0 {
        return Err(switchyard_store::copy::session_exists(copy.session));
    }
    write_sealed(transaction, copy.session, &sealed).await?;
    for claim in &copy.claims {
        let outcome =
            serde_json::to_string(&claim.outcome).map_err(|error| invalid(format!("claim outcome: {error}")))?;
        let sql = "INSERT INTO claims (key, session, payload_sha256, outcome) VALUES ($1, $2, $3, $4)";
        let statement = transaction.prepare_cached(sql).await.doing("copying a claim")?;
        let session_column = claim.session.to_string();
        match transaction.execute(&statement, &[&claim.key, &session_column, &claim.payload_sha256, &outcome]).await {
            Ok(_) => {}
            Err(error) if pg_error::unique_violation(&error) == Some("claims_key") => {
                return Err(switchyard_store::copy::claim_taken(claim));
            }
            Err(error) => return Err(pg_error::map(&error, "copying a claim")),
        }
    }
    for token in &copy.tokens {
        register_token(transaction, token).await?;
    }
    for workflow in &copy.pins {
        rows::pin_workflow(transaction, workflow).await?;
    }
    let notice = format!("{instance} {session} {last_seq}");
    rows::execute(transaction, "SELECT pg_notify($1, $2)", &[&CHANGES_CHANNEL, &notice], "announcing the copy").await?;
    Ok(last_seq)
}

/// Inserts the sealed events in one statement.
async fn insert_events(transaction: &Transaction<'_>, sealed: &[(StoredEvent, String)]) -> Result<(), Error> {
    let column = |value: fn(&(StoredEvent, String)) -> String| sealed.iter().map(value).collect::<Vec<String>>();
    let sessions = column(|(stored, _)| stored.session.to_string());
    let ids = column(|(stored, _)| stored.id.to_string());
    let kinds = column(|(stored, _)| stored.kind.name().to_owned());
    let bodies = column(|(_, body)| body.clone());
    let prev_hashes = column(|(stored, _)| stored.prev_hash.clone());
    let hashes = column(|(stored, _)| stored.hash.clone());
    let seqs: Vec<i64> = sealed.iter().map(|(stored, _)| sql_int(stored.seq)).collect();
    let runs: Vec<Option<String>> = sealed.iter().map(|(stored, _)| stored.run.map(|run| run.to_string())).collect();
    let times: Vec<i64> = sealed.iter().map(|(stored, _)| stored.at_ms).collect();
    let sql = "INSERT INTO events (session, seq, id, run, kind, at_ms, body, prev_hash, hash)
        SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[],
            $7::text[], $8::text[], $9::text[])";
    let statement = transaction.prepare_cached(sql).await.doing("writing events")?;
    let params: &rows::Params<'_> = &[&sessions, &seqs, &ids, &runs, &kinds, &times, &bodies, &prev_hashes, &hashes];
    match transaction.execute(&statement, params).await {
        Ok(_) => Ok(()),
        Err(error) if pg_error::unique_violation(&error) == Some("events_id_unique") => Err(invalid(format!(
            "an event id of the batch is already stored; every event needs a fresh id ({})",
            pg_error::describe(&error)
        ))),
        Err(error) => Err(pg_error::map(&error, "writing events")),
    }
}

/// Writes projection rows: sessions, then runs, then nodes oldest first, so each row's foreign
/// keys (its session, run and parent) are already there.
pub(crate) async fn write_projections<C: GenericClient>(client: &C, written: &Projections) -> Result<(), Error> {
    for record in written.sessions.values() {
        rows::write_session(client, record).await?;
    }
    for record in written.runs.values() {
        rows::write_run(client, record).await?;
    }
    let mut nodes: Vec<&NodeRecord> = written.nodes.values().collect();
    nodes.sort_by_key(|node| node.created_seq);
    for record in nodes {
        rows::write_node(client, record).await?;
    }
    Ok(())
}

/// The projection rows an append read from the database: `None` where a row does not exist.
#[derive(Default)]
struct Fetched {
    sessions: HashMap<SessionId, Option<SessionRecord>>,
    runs: HashMap<RunId, Option<RunRecord>>,
    nodes: HashMap<NodeId, Option<NodeRecord>>,
}

/// A row the projector asked for that was not fetched yet.
enum Wanted {
    Session(SessionId),
    Run(RunId),
    Node(NodeId),
}

impl Fetched {
    /// Reads, in three round trips, the rows the events name: their session, their runs and every
    /// node they mention. The projector's other reads (a run's tip) are fetched when asked.
    async fn prefetch(
        &mut self,
        transaction: &Transaction<'_>,
        session: SessionId,
        events: &[StoredEvent],
    ) -> Result<(), Error> {
        let runs: BTreeSet<RunId> = events.iter().filter_map(|event| event.run).collect();
        let nodes: BTreeSet<NodeId> = events.iter().flat_map(|event| named_nodes(&event.kind)).collect();
        self.sessions.insert(session, None);
        for record in rows::sessions_among(transaction, &[session.to_string()]).await? {
            self.sessions.insert(record.id, Some(record));
        }
        runs.iter().for_each(|run| _ = self.runs.insert(*run, None));
        let run_ids: Vec<String> = runs.iter().map(ToString::to_string).collect();
        for record in rows::runs_among(transaction, &run_ids).await? {
            self.runs.insert(record.id, Some(record));
        }
        nodes.iter().for_each(|node| _ = self.nodes.insert(*node, None));
        let node_ids: Vec<String> = nodes.iter().map(ToString::to_string).collect();
        for record in rows::nodes_among(transaction, &node_ids).await? {
            self.nodes.insert(record.id, Some(record));
        }
        Ok(())
    }

    async fn fetch(&mut self, transaction: &Transaction<'_>, wanted: Wanted) -> Result<(), Error> {
        match wanted {
            Wanted::Session(id) => _ = self.sessions.insert(id, rows::session(transaction, id).await?),
            Wanted::Run(id) => _ = self.runs.insert(id, rows::run(transaction, id).await?),
            Wanted::Node(id) => _ = self.nodes.insert(id, rows::node(transaction, id).await?),
        }
        Ok(())
    }
}

/// Every node an event names.
fn named_nodes(kind: &EventKind) -> Vec<NodeId> {
    match kind {
        EventKind::NodeCreated { node, parent, .. } => std::iter::once(*node).chain(*parent).collect(),
        EventKind::AdvanceRecorded { from, to, .. } => vec![*from, *to],
        EventKind::GateDecided { node, to, .. } | EventKind::HumanDecided { node, to, .. } => vec![*node, *to],
        EventKind::ReportWarned { node, .. }
        | EventKind::EvidenceRecorded { node, .. }
        | EventKind::DecisionRecorded { node, .. }
        | EventKind::CheckpointRecorded { node, .. }
        | EventKind::RunCompleted { node, .. }
        | EventKind::RunFailed { node, .. } => vec![*node],
        _ => Vec::new(),
    }
}

/// The projector's view during an append: rows it wrote over the fetched ones; a read of a row
/// not fetched stops it with [`Wanted`].
struct Overlay<'a> {
    fetched: &'a Fetched,
    written: Projections,
}

impl ProjectionStore for Overlay<'_> {
    type Error = Wanted;

    fn session(&mut self, id: SessionId) -> Result<Option<SessionRecord>, Wanted> {
        if let Some(record) = self.written.sessions.get(&id) {
            return Ok(Some(record.clone()));
        }
        self.fetched.sessions.get(&id).cloned().ok_or(Wanted::Session(id))
    }

    fn run(&mut self, id: RunId) -> Result<Option<RunRecord>, Wanted> {
        if let Some(record) = self.written.runs.get(&id) {
            return Ok(Some(record.clone()));
        }
        self.fetched.runs.get(&id).cloned().ok_or(Wanted::Run(id))
    }

    fn node(&mut self, id: NodeId) -> Result<Option<NodeRecord>, Wanted> {
        if let Some(record) = self.written.nodes.get(&id) {
            return Ok(Some(record.clone()));
        }
        self.fetched.nodes.get(&id).cloned().ok_or(Wanted::Node(id))
    }

    fn put_session(&mut self, record: SessionRecord) -> Result<(), Wanted> {
        self.written.sessions.insert(record.id, record);
        Ok(())
    }

    fn put_run(&mut self, record: RunRecord) -> Result<(), Wanted> {
        self.written.runs.insert(record.id, record);
        Ok(())
    }

    fn put_node(&mut self, record: NodeRecord) -> Result<(), Wanted> {
        self.written.nodes.insert(record.id, record);
        Ok(())
    }
}

/// Applies the batch's events with the one projector, in memory over the fetched rows; when it
/// reads a row not fetched, fetches it and applies the batch again from the start (a batch is a
/// few events, and each row is fetched once). Returns the rows to write.
async fn project(
    transaction: &Transaction<'_>,
    fetched: &mut Fetched,
    events: &[StoredEvent],
) -> Result<Projections, Error> {
    loop {
        let mut overlay = Overlay { fetched, written: Projections::default() };
        let mut projector = Projector::new();
        let applied = events.iter().try_for_each(|event| projector.apply(&mut overlay, event));
        match applied {
            Ok(()) => {
                projector.finish().map_err(invalid)?;
                return Ok(overlay.written);
            }
            Err(ApplyError::Inconsistent(reason)) => return Err(invalid(reason)),
            Err(ApplyError::Store(wanted)) => fetched.fetch(transaction, wanted).await?,
        }
    }
}

/// Registers a batch token: the same record again is a no-op, anything else taken is a conflict.
async fn register_token(transaction: &Transaction<'_>, token: &TokenRecord) -> Result<(), Error> {
    if rows::insert_token_if_free(transaction, token).await? {
        return Ok(());
    }
    match rows::token_at(transaction, token).await? {
        Some(existing) if existing == *token => Ok(()),
        Some(existing) => Err(Error::token_position_taken(token, &existing)),
        None => Err(Error::nonce_taken(token)),
    }
}

/// The token already registered at `record`'s position, or `record` itself if the place was free.
pub(crate) async fn claim_token<C: GenericClient>(client: &C, record: &TokenRecord) -> Result<Nonce, Error> {
    if rows::insert_token_if_free(client, record).await? {
        return Ok(record.nonce);
    }
    match rows::token_at(client, record).await? {
        Some(existing) => Ok(existing.nonce),
        None => Err(Error::nonce_taken(record)),
    }
}

/// Drops the projections and replays every session's events through the same projector, then
/// rewrites the session heads from where the chains end and refills the text index. Runs in the
/// caller's transaction, which first locks the heads table so no append interleaves.
pub(crate) async fn rebuild(transaction: &Transaction<'_>) -> Result<(), Error> {
    transaction
        .batch_execute("LOCK TABLE heads IN EXCLUSIVE MODE; DELETE FROM nodes; DELETE FROM runs; DELETE FROM sessions;")
        .await
        .doing("dropping the projections")?;
    let sessions: Vec<String> = rows::all(
        transaction,
        "SELECT DISTINCT session FROM events ORDER BY session",
        &[],
        |row| rows::decoder(row, "events").text(0, "session"),
        "listing sessions",
    )
    .await?;
    let sql = "SELECT session, seq, body, hash FROM events WHERE session = $1 ORDER BY seq";
    for session in sessions {
        let events = rows::all(transaction, sql, &[&session], rows::decode_event, "reading a session's events").await?;
        let mut target = Projections::default();
        let mut projector = Projector::new();
        for event in &events {
            projector.apply(&mut target, event).map_err(|error| match error {
                ApplyError::Inconsistent(reason) => Error::Corrupt {
                    message: format!("session {session} seq {} cannot be replayed: {reason}", event.seq),
                },
                ApplyError::Store(never) => match never {},
            })?;
        }
        projector
            .finish()
            .map_err(|reason| Error::Corrupt { message: format!("session {session} cannot be replayed: {reason}") })?;
        write_projections(transaction, &target).await?;
    }
    transaction
        .batch_execute(
            "DELETE FROM heads;
             INSERT INTO heads (session, seq, hash)
                 SELECT DISTINCT ON (session) session, seq, hash FROM events ORDER BY session, seq DESC;",
        )
        .await
        .doing("rewriting the session heads")?;
    search::reindex(transaction).await
}
