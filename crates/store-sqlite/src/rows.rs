//! Rows to records and back: rusqlite rows read through the shared decoders
//! ([`switchyard_store::decode`]), the reads every connection shares, and the projection target
//! over a write transaction.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use rusqlite::types::ValueRef;
use rusqlite::{Connection, Row, params};

use switchyard_core::hash::canonical_json;
use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_core::token::Nonce;
use switchyard_core::workflow::{Workflow, WorkflowHash};
use switchyard_store::decode::{self, Columns};
use switchyard_store::projection::ProjectionStore;
use switchyard_store::{
    Error, MAX_PAGE, NodeRecord, Recorded, RunRecord, SessionQuery, SessionRecord, StoredEvent, TokenRecord, TokenScope,
};

use crate::sql_error::Context;
use switchyard_core::wire_name;

pub(crate) use switchyard_store::decode::{
    Decoder, NODE_COLUMNS, RUN_COLUMNS, SESSION_COLUMNS, TOKEN_COLUMNS, sql_int,
};

const CLAIM: &str = "SELECT key, session, payload_sha256, outcome FROM claims WHERE session = ?1 AND key = ?2";
const WORKFLOW_BY_HASH: &str = "SELECT hash, ir FROM workflows WHERE hash = ?1";
const PIN_WORKFLOW: &str = "INSERT OR IGNORE INTO workflows (hash, ir) VALUES (?1, ?2)";
const EVENTS_AFTER: &str =
    "SELECT session, seq, body, hash FROM events WHERE session = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3";

/// The projection's writes: each inserts a row, or updates what can change in one (leaving the
/// indexes over columns that never change untouched).
const WRITE_SESSION: &str = "INSERT INTO sessions (id, goal, title, workflow_id, run, status, workspace,
        git_branch, git_head, created_at_ms, updated_at_ms, last_seq)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
    ON CONFLICT (id) DO UPDATE SET workflow_id = excluded.workflow_id, run = excluded.run,
        status = excluded.status, updated_at_ms = excluded.updated_at_ms, last_seq = excluded.last_seq";
/// A session that only moved on: a later event, the same run, status and workflow. Only the
/// columns it names change, so of the session's indexes only `sessions_by_recency` is written
/// (SQLite rewrites the entries of every index over a column an `UPDATE` sets, whatever the value).
const SESSION_MOVED_ON: &str = "UPDATE sessions SET updated_at_ms = ?2, last_seq = ?3 WHERE id = ?1";
const WRITE_RUN: &str = "INSERT INTO runs (id, session, workflow_id, workflow_hash, source, control, tip,
        status, node_count, created_at_ms, updated_at_ms)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
    ON CONFLICT (id) DO UPDATE SET control = excluded.control, tip = excluded.tip, status = excluded.status,
        node_count = excluded.node_count, updated_at_ms = excluded.updated_at_ms";
const WRITE_NODE: &str = "INSERT INTO nodes (id, run, session, parent, kind, cause, step, status, state,
        child_count, created_seq, created_at_ms)
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
    ON CONFLICT (id) DO UPDATE SET status = excluded.status, state = excluded.state,
        child_count = excluded.child_count";
const WRITE_CHILD_COUNT: &str = "UPDATE nodes SET child_count = ?2 WHERE id = ?1";

/// A statement built once from the shared column lists: the point reads and the token insert run
/// on every command, and the statement cache is looked up by the text.
type Statement = LazyLock<String>;

static SESSION_BY_ID: Statement = LazyLock::new(|| format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"));
static RUN_BY_ID: Statement = LazyLock::new(|| format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ?1"));
static NODE_BY_ID: Statement = LazyLock::new(|| format!("SELECT {NODE_COLUMNS} FROM nodes WHERE id = ?1"));
static NODES_OF_RUN: Statement =
    LazyLock::new(|| format!("SELECT {NODE_COLUMNS} FROM nodes WHERE run = ?1 ORDER BY created_seq"));
static TOKEN_BY_NONCE: Statement = LazyLock::new(|| format!("SELECT {TOKEN_COLUMNS} FROM tokens WHERE nonce = ?1"));
/// One statement, so one read snapshot, for a token and the rows it names.
static TOKEN_SCOPE: Statement = LazyLock::new(|| decode::token_scope_sql("?1"));
static TOKEN_AT: Statement =
    LazyLock::new(|| format!("SELECT {TOKEN_COLUMNS} FROM tokens WHERE kind = ?1 AND node = ?2 AND attempt = ?3"));
static INSERT_TOKEN_IF_FREE: Statement = LazyLock::new(|| {
    format!("INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT DO NOTHING")
});

/// A rusqlite row as the shared decoders read it.
#[derive(Clone, Copy)]
pub(crate) struct Cells<'r, 's>(pub(crate) &'r Row<'s>);

impl Columns for Cells<'_, '_> {
    fn text(&self, index: usize) -> Result<Option<String>, String> {
        self.0.get(index).map_err(|error| error.to_string())
    }

    fn integer(&self, index: usize) -> Result<Option<i64>, String> {
        self.0.get(index).map_err(|error| error.to_string())
    }

    fn read_text<T>(&self, index: usize, read: impl FnOnce(Option<&str>) -> T) -> Result<T, String> {
        match self.0.get_ref(index).map_err(|error| error.to_string())? {
            ValueRef::Null => Ok(read(None)),
            value => value.as_str().map(|text| read(Some(text))).map_err(|error| error.to_string()),
        }
    }
}

/// A decoder over a rusqlite row.
pub(crate) fn decoder<'r, 's>(row: &'r Row<'s>, table: &'static str) -> Decoder<Cells<'r, 's>> {
    Decoder::new(Cells(row), table)
}

pub(crate) fn decode_session(row: &Row<'_>) -> Result<SessionRecord, Error> {
    decode::session(Cells(row))
}

pub(crate) fn decode_run(row: &Row<'_>) -> Result<RunRecord, Error> {
    decode::run(Cells(row))
}

pub(crate) fn decode_node(row: &Row<'_>) -> Result<NodeRecord, Error> {
    decode::node(Cells(row))
}

fn decode_token(row: &Row<'_>) -> Result<TokenRecord, Error> {
    decode::token(Cells(row))
}

pub(crate) fn decode_event(row: &Row<'_>) -> Result<StoredEvent, Error> {
    decode::event(Cells(row))
}

/// Runs a query expected to return at most one row.
fn one<T>(
    connection: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    decode: impl Fn(&Row<'_>) -> Result<T, Error>,
    doing: &str,
) -> Result<Option<T>, Error> {
    let mut statement = connection.prepare_cached(sql).doing(doing)?;
    let mut rows = statement.query(params).doing(doing)?;
    match rows.next().doing(doing)? {
        Some(row) => decode(row).map(Some),
        None => Ok(None),
    }
}

/// Runs a query and decodes every row.
pub(crate) fn all<T>(
    connection: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
    decode: impl Fn(&Row<'_>) -> Result<T, Error>,
    doing: &str,
) -> Result<Vec<T>, Error> {
    let mut statement = connection.prepare_cached(sql).doing(doing)?;
    let mut rows = statement.query(params).doing(doing)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().doing(doing)? {
        out.push(decode(row)?);
    }
    Ok(out)
}

pub(crate) fn session(connection: &Connection, id: SessionId) -> Result<Option<SessionRecord>, Error> {
    one(connection, &SESSION_BY_ID, [&*id.text()], decode_session, "reading a session")
}

pub(crate) fn run(connection: &Connection, id: RunId) -> Result<Option<RunRecord>, Error> {
    one(connection, &RUN_BY_ID, [&*id.text()], decode_run, "reading a run")
}

pub(crate) fn node(connection: &Connection, id: NodeId) -> Result<Option<NodeRecord>, Error> {
    one(connection, &NODE_BY_ID, [&*id.text()], decode_node, "reading a node")
}

pub(crate) fn run_nodes(connection: &Connection, run: RunId) -> Result<Vec<NodeRecord>, Error> {
    all(connection, &NODES_OF_RUN, [&*run.text()], decode_node, "reading a run's nodes")
}

pub(crate) fn token(connection: &Connection, nonce: Nonce) -> Result<Option<TokenRecord>, Error> {
    one(connection, &TOKEN_BY_NONCE, [nonce.to_hex()], decode_token, "reading a token")
}

pub(crate) fn token_scope(connection: &Connection, nonce: Nonce) -> Result<Option<TokenScope>, Error> {
    one(connection, &TOKEN_SCOPE, [nonce.to_hex()], |row| decode::token_scope(Cells(row)), "reading a token's scope")
}

/// The token registered at `(kind, node, attempt)`.
pub(crate) fn token_at(connection: &Connection, record: &TokenRecord) -> Result<Option<TokenRecord>, Error> {
    let attempt = record.attempt.map(|attempt| attempt.text());
    one(
        connection,
        &TOKEN_AT,
        params![wire_name(&record.kind), &*record.node.text(), attempt.as_deref().unwrap_or_default()],
        decode_token,
        "reading a token position",
    )
}

/// Inserts a token unless its nonce or its position is taken; says whether it was inserted.
pub(crate) fn insert_token_if_free(connection: &Connection, record: &TokenRecord) -> Result<bool, Error> {
    let attempt = record.attempt.map(|attempt| attempt.text());
    let inserted = connection
        .prepare_cached(&INSERT_TOKEN_IF_FREE)
        .and_then(|mut statement| {
            statement.execute(params![
                record.nonce.to_hex(),
                wire_name(&record.kind),
                &*record.session.text(),
                &*record.run.text(),
                &*record.node.text(),
                attempt.as_deref().unwrap_or_default(),
            ])
        })
        .doing("registering a token")?;
    Ok(inserted == 1)
}

pub(crate) fn recorded(connection: &Connection, session: SessionId, key: &str) -> Result<Option<Recorded>, Error> {
    let decode = |row: &Row<'_>| decode::recorded(Cells(row));
    one(connection, CLAIM, params![&*session.text(), key], decode, "reading a claim")
}

pub(crate) fn workflow(connection: &Connection, hash: WorkflowHash) -> Result<Option<Workflow>, Error> {
    let decode = |row: &Row<'_>| decode::workflow(Cells(row), hash);
    one(connection, WORKFLOW_BY_HASH, [hash.to_string()], decode, "reading a pinned workflow")
}

pub(crate) fn pin_workflow(connection: &Connection, workflow: &Workflow) -> Result<(), Error> {
    let ir = String::from_utf8(canonical_json(workflow)).map_err(|error| Error::Io { message: error.to_string() })?;
    connection
        .prepare_cached(PIN_WORKFLOW)
        .and_then(|mut statement| statement.execute(params![workflow.hash().to_string(), ir]))
        .doing("pinning a workflow")?;
    Ok(())
}

pub(crate) fn events(
    connection: &Connection,
    session: SessionId,
    after_seq: u64,
    limit: u32,
) -> Result<Vec<StoredEvent>, Error> {
    let after = sql_int(after_seq);
    all(connection, EVENTS_AFTER, params![session.to_string(), after, limit], decode_event, "reading events")
}

/// The SQL and parameters of one `list_sessions` page.
fn list_sessions_sql(query: &SessionQuery) -> (String, Vec<rusqlite::types::Value>) {
    let mut conditions = Vec::new();
    let mut values: Vec<rusqlite::types::Value> = Vec::new();
    if let Some(status) = query.status {
        values.push(wire_name(&status).into());
        conditions.push(format!("status = ?{}", values.len()));
    }
    // The filters on the status and the workflow walk `sessions_by_recency`, which holds both
    // (`schema.rs`); `+` keeps SQLite from finding a workflow's sessions through
    // `sessions_by_workflow_id` and sorting them all instead.
    if let Some(workflow_id) = &query.workflow_id {
        values.push(workflow_id.clone().into());
        conditions.push(format!("+workflow_id = ?{}", values.len()));
    }
    for (column, value) in
        [("workspace", &query.workspace), ("git_branch", &query.git_branch), ("git_head", &query.git_head)]
    {
        if let Some(value) = value {
            values.push(value.clone().into());
            conditions.push(format!("{column} = ?{}", values.len()));
        }
    }
    if let Some((updated_at_ms, id)) = query.before {
        values.push(updated_at_ms.into());
        values.push(id.to_string().into());
        conditions.push(format!("(updated_at_ms, id) < (?{}, ?{})", values.len() - 1, values.len()));
    }
    values.push(i64::from(query.limit.min(MAX_PAGE)).into());
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    let sql = format!(
        "SELECT {SESSION_COLUMNS} FROM sessions {filter} ORDER BY updated_at_ms DESC, id DESC LIMIT ?{}",
        values.len()
    );
    (sql, values)
}

pub(crate) fn list_sessions(connection: &Connection, query: &SessionQuery) -> Result<Vec<SessionRecord>, Error> {
    let (sql, values) = list_sessions_sql(query);
    all(connection, &sql, rusqlite::params_from_iter(values), decode_session, "listing sessions")
}

/// Walks `sessions_by_workflow` from one id to the next (a loose index scan) instead of reading
/// every session's entry, as `SELECT DISTINCT` would.
const SESSION_WORKFLOW_IDS: &str = "WITH RECURSIVE ids (id) AS (
        SELECT min(workflow_id) FROM sessions
        UNION ALL
        SELECT (SELECT min(workflow_id) FROM sessions WHERE workflow_id > ids.id) FROM ids WHERE ids.id IS NOT NULL
    )
    SELECT id FROM ids WHERE id IS NOT NULL LIMIT ?1";

pub(crate) fn session_workflow_ids(connection: &Connection, limit: u32) -> Result<Vec<String>, Error> {
    let limit = limit.min(MAX_PAGE);
    all(
        connection,
        SESSION_WORKFLOW_IDS,
        [limit],
        |row| decoder(row, "sessions").text(0, "workflow_id"),
        "listing workflow ids",
    )
}

/// The projection rows of a write transaction, written back once at [`SqliteProjection::flush`].
///
/// The projector rewrites a session's and a run's row for every event, and an advance is several
/// events; holding the rows until the batch ends writes each row once, which saves pages (and the
/// index entries that move with `updated_at_ms`) in every commit.
///
/// A node read from the store and put back with only its child count changed (the parent of a
/// new node, once per advance) gets that one column updated: its state is not encoded again. A
/// session read and put back with only a later update time and last seq (every advance that
/// leaves its status as it was) gets those two updated, so of its indexes only
/// `sessions_by_recency` moves.
pub(crate) struct SqliteProjection<'c> {
    connection: &'c Connection,
    sessions: BTreeMap<SessionId, SessionRecord>,
    runs: BTreeMap<RunId, RunRecord>,
    nodes: BTreeMap<NodeId, NodeRecord>,
    /// Sessions and nodes as read from the store since the last flush, to tell what a put changed.
    stored_sessions: BTreeMap<SessionId, SessionRecord>,
    stored_nodes: BTreeMap<NodeId, NodeRecord>,
}

impl<'c> SqliteProjection<'c> {
    pub(crate) fn new(connection: &'c Connection) -> Self {
        Self {
            connection,
            sessions: BTreeMap::new(),
            runs: BTreeMap::new(),
            nodes: BTreeMap::new(),
            stored_sessions: BTreeMap::new(),
            stored_nodes: BTreeMap::new(),
        }
    }

    /// Writes every row put since the last flush: sessions, then runs, then nodes oldest first,
    /// so each row's foreign keys (its session, run and parent) are already there.
    pub(crate) fn flush(&mut self) -> Result<(), Error> {
        let stored = std::mem::take(&mut self.stored_sessions);
        for record in std::mem::take(&mut self.sessions).values() {
            match stored.get(&record.id) {
                Some(before) if only_moved_on(before, record) => session_moved_on(self.connection, record)?,
                _ => write_session(self.connection, record)?,
            }
        }
        for record in std::mem::take(&mut self.runs).values() {
            write_run(self.connection, record)?;
        }
        let mut nodes: Vec<NodeRecord> = std::mem::take(&mut self.nodes).into_values().collect();
        nodes.sort_by_key(|node| node.created_seq);
        let stored = std::mem::take(&mut self.stored_nodes);
        for record in &nodes {
            match stored.get(&record.id) {
                Some(before) if differs_in_child_count_only(before, record) => {
                    write_child_count(self.connection, record)?;
                }
                _ => write_node(self.connection, record)?,
            }
        }
        Ok(())
    }
}

impl ProjectionStore for SqliteProjection<'_> {
    type Error = Error;

    fn session(&mut self, id: SessionId) -> Result<Option<SessionRecord>, Error> {
        if let Some(record) = self.sessions.get(&id) {
            return Ok(Some(record.clone()));
        }
        let found = session(self.connection, id)?;
        if let Some(record) = &found {
            self.stored_sessions.insert(id, record.clone());
        }
        Ok(found)
    }

    fn run(&mut self, id: RunId) -> Result<Option<RunRecord>, Error> {
        match self.runs.get(&id) {
            Some(record) => Ok(Some(record.clone())),
            None => run(self.connection, id),
        }
    }

    fn node(&mut self, id: NodeId) -> Result<Option<NodeRecord>, Error> {
        if let Some(record) = self.nodes.get(&id) {
            return Ok(Some(record.clone()));
        }
        let found = node(self.connection, id)?;
        if let Some(record) = &found {
            self.stored_nodes.insert(id, record.clone());
        }
        Ok(found)
    }

    fn put_session(&mut self, record: SessionRecord) -> Result<(), Error> {
        self.sessions.insert(record.id, record);
        Ok(())
    }

    fn put_run(&mut self, record: RunRecord) -> Result<(), Error> {
        self.runs.insert(record.id, record);
        Ok(())
    }

    fn put_node(&mut self, record: NodeRecord) -> Result<(), Error> {
        self.nodes.insert(record.id, record);
        Ok(())
    }
}

/// Inserts a session row, or updates what can change in one: its workflow, run, status, update
/// time and last seq (leaving the indexes over its workspace and git facts untouched).
fn write_session(connection: &Connection, record: &SessionRecord) -> Result<(), Error> {
    let run = record.run.map(|run| run.text());
    connection
        .prepare_cached(WRITE_SESSION)
        .and_then(|mut statement| {
            statement.execute(params![
                &*record.id.text(),
                record.goal,
                record.title,
                record.workflow_id,
                run.as_deref(),
                record.status.map(|status| wire_name(&status)),
                record.workspace,
                record.git_branch,
                record.git_head,
                record.created_at_ms,
                record.updated_at_ms,
                sql_int(record.last_seq),
            ])
        })
        .doing("writing a session row")?;
    Ok(())
}

/// Inserts a run row, or updates what can change in one: its control, tip, status, node count and
/// update time (leaving `runs_by_session` untouched).
fn write_run(connection: &Connection, record: &RunRecord) -> Result<(), Error> {
    connection
        .prepare_cached(WRITE_RUN)
        .and_then(|mut statement| {
            statement.execute(params![
                &*record.id.text(),
                &*record.session.text(),
                record.workflow_id,
                record.workflow_hash.to_string(),
                record.source,
                wire_name(&record.control),
                &*record.tip.text(),
                wire_name(&record.status),
                sql_int(record.node_count),
                record.created_at_ms,
                record.updated_at_ms,
            ])
        })
        .doing("writing a run row")?;
    Ok(())
}

/// Whether `after` is the stored session `before` with a later event and nothing else changed.
fn only_moved_on(before: &SessionRecord, after: &SessionRecord) -> bool {
    let SessionRecord {
        id,
        goal,
        title,
        workflow_id,
        run,
        status,
        workspace,
        git_branch,
        git_head,
        created_at_ms,
        updated_at_ms: _,
        last_seq: _,
    } = after;
    before.id == *id
        && before.goal == *goal
        && before.title == *title
        && before.workflow_id == *workflow_id
        && before.run == *run
        && before.status == *status
        && before.workspace == *workspace
        && before.git_branch == *git_branch
        && before.git_head == *git_head
        && before.created_at_ms == *created_at_ms
}

fn session_moved_on(connection: &Connection, record: &SessionRecord) -> Result<(), Error> {
    connection
        .prepare_cached(SESSION_MOVED_ON)
        .and_then(|mut statement| {
            statement.execute(params![&*record.id.text(), record.updated_at_ms, sql_int(record.last_seq)])
        })
        .doing("writing a session's update time")?;
    Ok(())
}

/// Inserts a node row, or updates what can change in one: its status, state and child count
/// (leaving the node indexes untouched).
fn write_node(connection: &Connection, record: &NodeRecord) -> Result<(), Error> {
    let state = String::from_utf8(canonical_json(&record.state))
        .map_err(|error| Error::Io { message: format!("encoding a node state: {error}") })?;
    let parent = record.parent.map(|parent| parent.text());
    connection
        .prepare_cached(WRITE_NODE)
        .and_then(|mut statement| {
            statement.execute(params![
                &*record.id.text(),
                &*record.run.text(),
                &*record.session.text(),
                parent.as_deref(),
                wire_name(&record.kind),
                wire_name(&record.cause),
                record.step.as_str(),
                wire_name(&record.status),
                state,
                sql_int(record.child_count),
                sql_int(record.created_seq),
                record.created_at_ms,
            ])
        })
        .doing("writing a node row")?;
    Ok(())
}

/// Whether `after` is `before` with another child count and nothing else changed.
fn differs_in_child_count_only(before: &NodeRecord, after: &NodeRecord) -> bool {
    let NodeRecord {
        id,
        run,
        session,
        parent,
        kind,
        cause,
        step,
        status,
        state,
        child_count: _,
        created_seq,
        created_at_ms,
    } = after;
    before.id == *id
        && before.run == *run
        && before.session == *session
        && before.parent == *parent
        && before.kind == *kind
        && before.cause == *cause
        && before.step == *step
        && before.status == *status
        && before.created_seq == *created_seq
        && before.created_at_ms == *created_at_ms
        && before.state == *state
}

fn write_child_count(connection: &Connection, record: &NodeRecord) -> Result<(), Error> {
    connection
        .prepare_cached(WRITE_CHILD_COUNT)
        .and_then(|mut statement| statement.execute(params![&*record.id.text(), sql_int(record.child_count)]))
        .doing("writing a node's child count")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use switchyard_core::state::{Control, RunStatus};

    use super::*;

    #[test]
    fn enum_names_are_the_serde_names() {
        for status in RunStatus::ALL {
            assert_eq!(wire_name(&status), status.as_str());
        }
        for control in [Control::Running, Control::Paused, Control::Stopped] {
            assert_eq!(wire_name(&control), control.as_str());
        }
    }

    /// Every statement on the hot path finds its rows through an index: no table scan, no sort.
    #[test]
    fn hot_path_queries_use_indexes() {
        let connection = planned_schema();
        let session = SessionId::from_bytes([1; 16]);
        let mut statements = vec![
            (SESSION_BY_ID.clone(), 1),
            (RUN_BY_ID.clone(), 1),
            (NODE_BY_ID.clone(), 1),
            (NODES_OF_RUN.clone(), 1),
            (TOKEN_BY_NONCE.clone(), 1),
            (TOKEN_AT.clone(), 3),
            (CLAIM.to_owned(), 2),
            (crate::copy::SESSION_CLAIMS.to_owned(), 1),
            ("SELECT hash, ir FROM workflows WHERE hash = ?1".to_owned(), 1),
            (
                "SELECT session, seq, body, hash FROM events WHERE session = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"
                    .to_owned(),
                3,
            ),
            ("SELECT seq, hash FROM events WHERE session = ?1 ORDER BY seq DESC LIMIT 1".to_owned(), 1),
            (crate::watch::EVENTS_AFTER_ROWID.to_owned(), 2),
        ];
        let queries = [
            SessionQuery::default(),
            SessionQuery { status: Some(RunStatus::Active), ..SessionQuery::default() },
            SessionQuery { workflow_id: Some("w".to_owned()), before: Some((5, session)), ..SessionQuery::default() },
            SessionQuery { before: Some((5, session)), ..SessionQuery::default() },
        ];
        for query in &queries {
            let (sql, values) = list_sessions_sql(query);
            statements.push((sql, values.len()));
        }
        for (sql, parameters) in statements {
            for step in &plan(&connection, &sql, parameters) {
                let scans_table = step.starts_with("SCAN") && !step.contains("USING");
                assert!(!scans_table && !step.contains("TEMP B-TREE"), "`{sql}` plans `{step}`");
            }
        }
    }

    /// Lists of every session, or filtered by status or workflow, walk `sessions_by_recency`
    /// newest first.
    #[test]
    fn session_lists_walk_the_recency_index() {
        let connection = planned_schema();
        let session = SessionId::from_bytes([1; 16]);
        let queries = [
            SessionQuery::default(),
            SessionQuery { status: Some(RunStatus::Active), ..SessionQuery::default() },
            SessionQuery { workflow_id: Some("w".to_owned()), before: Some((5, session)), ..SessionQuery::default() },
        ];
        for query in &queries {
            let (sql, values) = list_sessions_sql(query);
            let steps = plan(&connection, &sql, values.len());
            assert!(steps.iter().any(|step| step.contains("INDEX sessions_by_recency")), "`{sql}` plans {steps:?}");
        }
    }

    /// Resume's lookups by workspace, branch and HEAD go through their own index, whatever else
    /// the query filters on (sorting what the value matches by recency).
    #[test]
    fn session_lookups_by_workspace_and_git_facts_use_their_index() {
        let connection = planned_schema();
        let value = Some("x".to_owned());
        let lookups = [
            (SessionQuery { workspace: value.clone(), ..SessionQuery::default() }, "sessions_by_workspace"),
            (SessionQuery { git_branch: value.clone(), ..SessionQuery::default() }, "sessions_by_branch"),
            (SessionQuery { git_head: value.clone(), ..SessionQuery::default() }, "sessions_by_head"),
            (SessionQuery { workspace: value.clone(), git_branch: value, ..SessionQuery::default() }, "sessions_by_"),
        ];
        for (query, index) in lookups {
            let (sql, values) = list_sessions_sql(&query);
            let steps = plan(&connection, &sql, values.len());
            assert!(
                steps.iter().any(|step| step.starts_with("SEARCH sessions USING INDEX") && step.contains(index)),
                "`{sql}` plans {steps:?}"
            );
        }
    }

    /// The workflow ids come from index seeks, one per id: never a scan of the sessions.
    #[test]
    fn session_workflow_ids_seek_the_index() {
        let connection = planned_schema();
        let steps = plan(&connection, SESSION_WORKFLOW_IDS, 1);
        let on_sessions: Vec<&String> = steps.iter().filter(|step| step.contains(" sessions")).collect();
        assert!(!on_sessions.is_empty(), "{steps:?}");
        for step in on_sessions {
            assert!(
                step.starts_with("SEARCH sessions USING COVERING INDEX sessions_by_workflow_id"),
                "`{step}` in {steps:?}"
            );
        }
    }

    /// A stored node put back with only a new child count has that column updated and keeps its
    /// state; any other change still rewrites the row.
    #[test]
    fn a_stored_node_put_back_keeps_every_change() {
        use switchyard_core::event::NodeCause;
        use switchyard_core::state::NodeKind;
        use switchyard_core::workflow::StepId;
        use switchyard_store::conformance::fixture::node_state;

        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch(&crate::schema::tables()).unwrap();
        let id = NodeId::from_bytes([3; 16]);
        let stored = NodeRecord {
            id,
            run: RunId::from_bytes([2; 16]),
            session: SessionId::from_bytes([1; 16]),
            parent: None,
            kind: NodeKind::Start,
            cause: NodeCause::Start,
            step: StepId::new("work"),
            status: RunStatus::Active,
            state: node_state("work", RunStatus::Active),
            child_count: 0,
            created_seq: 2,
            created_at_ms: 7,
        };
        // The node alone: its run and session rows do not matter here.
        connection.pragma_update(None, "foreign_keys", "OFF").unwrap();
        write_node(&connection, &stored).unwrap();
        let changes: [fn(&mut NodeRecord); 3] = [
            |record| record.child_count += 1,
            |record| record.status = RunStatus::Blocked,
            |record| {
                record.child_count += 1;
                record.state.context.insert("seen".to_owned(), serde_json::json!(true));
            },
        ];
        for change in changes {
            let mut projection = SqliteProjection::new(&connection);
            let mut record = projection.node(id).unwrap().unwrap();
            change(&mut record);
            projection.put_node(record.clone()).unwrap();
            projection.flush().unwrap();
            assert_eq!(node(&connection, id).unwrap(), Some(record));
        }
    }

    /// A stored session put back with only a later update time and seq (an advance that leaves
    /// its status as it was) writes the session's row and its update-time index and no other
    /// b-tree; a change of status or run still rewrites the row, and every change reads back.
    #[test]
    fn a_session_that_moved_on_writes_only_its_row_and_update_time() {
        let folder = tempfile::tempdir().unwrap();
        let wal = folder.path().join("store.db-wal");
        let mut connection = Connection::open(folder.path().join("store.db")).unwrap();
        connection.pragma_update(None, "journal_mode", "WAL").unwrap();
        connection.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
        connection.execute_batch(&crate::schema::tables()).unwrap();
        let id = SessionId::from_bytes([1; 16]);
        let stored = SessionRecord {
            id,
            goal: "g".to_owned(),
            title: "t".to_owned(),
            workflow_id: Some("w".to_owned()),
            run: Some(RunId::from_bytes([2; 16])),
            status: Some(RunStatus::Active),
            workspace: None,
            git_branch: None,
            git_head: None,
            created_at_ms: 1,
            updated_at_ms: 1,
            last_seq: 1,
        };
        write_session(&connection, &stored).unwrap();
        let changes: [fn(&mut SessionRecord); 3] = [
            |record| {
                record.updated_at_ms += 5;
                record.last_seq += 2;
            },
            |record| record.status = Some(RunStatus::Blocked),
            |record| record.run = Some(RunId::from_bytes([3; 16])),
        ];
        for (index, change) in changes.into_iter().enumerate() {
            let logged = std::fs::metadata(&wal).unwrap().len();
            let transaction = connection.transaction().unwrap();
            let mut projection = SqliteProjection::new(&transaction);
            let mut record = projection.session(id).unwrap().unwrap();
            change(&mut record);
            projection.put_session(record.clone()).unwrap();
            projection.flush().unwrap();
            transaction.commit().unwrap();
            assert_eq!(session(&connection, id).unwrap(), Some(record));
            if index == 0 {
                let written = btrees_logged_after(&connection, &wal, logged);
                assert_eq!(written, ["sessions", "sessions_by_recency"], "b-trees written");
            }
        }
    }

    /// The names of the b-trees whose pages the write-ahead log holds past its first `from`
    /// bytes (frames of a page and a 24-byte header, after the log's 32-byte header).
    fn btrees_logged_after(connection: &Connection, wal: &std::path::Path, from: u64) -> Vec<String> {
        let log = std::fs::read(wal).unwrap();
        let page_size = u32::from_be_bytes(log[8..12].try_into().unwrap()) as usize;
        let mut offset = usize::try_from(from).unwrap().max(32);
        let mut names = std::collections::BTreeSet::new();
        while offset + 24 + page_size <= log.len() {
            let page = u32::from_be_bytes(log[offset..offset + 4].try_into().unwrap());
            let name: String = connection
                .query_row("SELECT name FROM dbstat WHERE pageno = ?1", [page], |row| row.get(0))
                .unwrap_or_else(|_| format!("page {page}"));
            names.insert(name);
            offset += 24 + page_size;
        }
        names.into_iter().collect()
    }

    /// An empty store's schema on a connection that plans as the store's own connections do.
    fn planned_schema() -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch(&crate::schema::tables()).unwrap();
        crate::schema::one_plan_per_statement(&connection).unwrap();
        connection
    }

    fn plan(connection: &Connection, sql: &str, parameters: usize) -> Vec<String> {
        let mut statement = connection.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let values = vec![rusqlite::types::Value::Null; parameters];
        statement
            .query_map(rusqlite::params_from_iter(values), |row| row.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    }
}
