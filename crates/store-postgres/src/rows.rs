//! Rows to records and back: Postgres rows read through the shared decoders
//! ([`switchyard_store::decode`]), and the reads and writes every connection shares.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;
use tokio_postgres::types::ToSql;

use switchyard_core::hash::canonical_json;
use switchyard_core::id::{NodeId, RunId, SessionId};
use switchyard_core::token::Nonce;
use switchyard_core::workflow::{Workflow, WorkflowHash};
use switchyard_store::decode::{self, Columns};
use switchyard_store::{
    Error, MAX_PAGE, NodeRecord, Recorded, RunRecord, SessionQuery, SessionRecord, StoredEvent, TokenRecord, TokenScope,
};

use crate::pg_error::Context;
use switchyard_core::wire_name;

pub(crate) use switchyard_store::decode::{
    Decoder, NODE_COLUMNS, RUN_COLUMNS, SESSION_COLUMNS, TOKEN_COLUMNS, sql_int,
};

/// A parameter list for the driver.
pub(crate) type Params<'a> = [&'a (dyn ToSql + Sync)];

/// A Postgres row as the shared decoders read it.
#[derive(Clone, Copy)]
pub(crate) struct Cells<'r>(pub(crate) &'r Row);

impl Columns for Cells<'_> {
    fn text(&self, index: usize) -> Result<Option<String>, String> {
        self.0.try_get(index).map_err(|error| error.to_string())
    }

    fn integer(&self, index: usize) -> Result<Option<i64>, String> {
        self.0.try_get(index).map_err(|error| error.to_string())
    }

    fn read_text<T>(&self, index: usize, read: impl FnOnce(Option<&str>) -> T) -> Result<T, String> {
        self.0.try_get::<_, Option<&str>>(index).map(read).map_err(|error| error.to_string())
    }
}

/// A decoder over a Postgres row.
pub(crate) fn decoder<'r>(row: &'r Row, table: &'static str) -> Decoder<Cells<'r>> {
    Decoder::new(Cells(row), table)
}

pub(crate) fn decode_session(row: &Row) -> Result<SessionRecord, Error> {
    decode::session(Cells(row))
}

pub(crate) fn decode_run(row: &Row) -> Result<RunRecord, Error> {
    decode::run(Cells(row))
}

pub(crate) fn decode_node(row: &Row) -> Result<NodeRecord, Error> {
    decode::node(Cells(row))
}

fn decode_token(row: &Row) -> Result<TokenRecord, Error> {
    decode::token(Cells(row))
}

pub(crate) fn decode_event(row: &Row) -> Result<StoredEvent, Error> {
    decode::event(Cells(row))
}

/// Runs a query expected to return at most one row.
pub(crate) async fn one<C: GenericClient, T>(
    client: &C,
    sql: &str,
    params: &Params<'_>,
    decode: impl Fn(&Row) -> Result<T, Error>,
    doing: &str,
) -> Result<Option<T>, Error> {
    let statement = client.prepare_cached(sql).await.doing(doing)?;
    match client.query_opt(&statement, params).await.doing(doing)? {
        Some(row) => decode(&row).map(Some),
        None => Ok(None),
    }
}

/// Runs a query and decodes every row.
pub(crate) async fn all<C: GenericClient, T>(
    client: &C,
    sql: &str,
    params: &Params<'_>,
    decode: impl Fn(&Row) -> Result<T, Error>,
    doing: &str,
) -> Result<Vec<T>, Error> {
    let statement = client.prepare_cached(sql).await.doing(doing)?;
    client.query(&statement, params).await.doing(doing)?.iter().map(decode).collect()
}

/// Runs a statement, returning how many rows it touched.
pub(crate) async fn execute<C: GenericClient>(
    client: &C,
    sql: &str,
    params: &Params<'_>,
    doing: &str,
) -> Result<u64, Error> {
    let statement = client.prepare_cached(sql).await.doing(doing)?;
    client.execute(&statement, params).await.doing(doing)
}

pub(crate) async fn session<C: GenericClient>(client: &C, id: SessionId) -> Result<Option<SessionRecord>, Error> {
    let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = $1");
    one(client, &sql, &[&id.to_string()], decode_session, "reading a session").await
}

pub(crate) async fn run<C: GenericClient>(client: &C, id: RunId) -> Result<Option<RunRecord>, Error> {
    let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = $1");
    one(client, &sql, &[&id.to_string()], decode_run, "reading a run").await
}

pub(crate) async fn node<C: GenericClient>(client: &C, id: NodeId) -> Result<Option<NodeRecord>, Error> {
    let sql = format!("SELECT {NODE_COLUMNS} FROM nodes WHERE id = $1");
    one(client, &sql, &[&id.to_string()], decode_node, "reading a node").await
}

/// The session rows among `ids` (one round trip).
pub(crate) async fn sessions_among<C: GenericClient>(client: &C, ids: &[String]) -> Result<Vec<SessionRecord>, Error> {
    let sql = format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ANY($1)");
    all(client, &sql, &[&ids], decode_session, "reading sessions").await
}

pub(crate) async fn runs_among<C: GenericClient>(client: &C, ids: &[String]) -> Result<Vec<RunRecord>, Error> {
    let sql = format!("SELECT {RUN_COLUMNS} FROM runs WHERE id = ANY($1)");
    all(client, &sql, &[&ids], decode_run, "reading runs").await
}

pub(crate) async fn nodes_among<C: GenericClient>(client: &C, ids: &[String]) -> Result<Vec<NodeRecord>, Error> {
    let sql = format!("SELECT {NODE_COLUMNS} FROM nodes WHERE id = ANY($1)");
    all(client, &sql, &[&ids], decode_node, "reading nodes").await
}

pub(crate) async fn run_nodes<C: GenericClient>(client: &C, run: RunId) -> Result<Vec<NodeRecord>, Error> {
    let sql = format!("SELECT {NODE_COLUMNS} FROM nodes WHERE run = $1 ORDER BY created_seq");
    all(client, &sql, &[&run.to_string()], decode_node, "reading a run's nodes").await
}

pub(crate) async fn token<C: GenericClient>(client: &C, nonce: Nonce) -> Result<Option<TokenRecord>, Error> {
    let sql = format!("SELECT {TOKEN_COLUMNS} FROM tokens WHERE nonce = $1");
    one(client, &sql, &[&nonce.to_hex()], decode_token, "reading a token").await
}

/// A token and the rows it names, in one statement: one round trip, one snapshot.
pub(crate) async fn token_scope<C: GenericClient>(client: &C, nonce: Nonce) -> Result<Option<TokenScope>, Error> {
    let sql = decode::token_scope_sql("$1");
    one(client, &sql, &[&nonce.to_hex()], |row| decode::token_scope(Cells(row)), "reading a token's scope").await
}

/// The token registered at `(kind, node, attempt)`.
pub(crate) async fn token_at<C: GenericClient>(client: &C, record: &TokenRecord) -> Result<Option<TokenRecord>, Error> {
    let sql = format!("SELECT {TOKEN_COLUMNS} FROM tokens WHERE kind = $1 AND node = $2 AND attempt = $3");
    let attempt = record.attempt.map(|attempt| attempt.to_string()).unwrap_or_default();
    one(
        client,
        &sql,
        &[&wire_name(&record.kind), &record.node.to_string(), &attempt],
        decode_token,
        "reading a token position",
    )
    .await
}

/// Inserts a token unless its nonce or its position is taken; says whether it was inserted.
pub(crate) async fn insert_token_if_free<C: GenericClient>(client: &C, record: &TokenRecord) -> Result<bool, Error> {
    let sql = format!("INSERT INTO tokens ({TOKEN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING");
    let inserted = execute(
        client,
        &sql,
        &[
            &record.nonce.to_hex(),
            &wire_name(&record.kind),
            &record.session.to_string(),
            &record.run.to_string(),
            &record.node.to_string(),
            &record.attempt.map(|attempt| attempt.to_string()).unwrap_or_default(),
        ],
        "registering a token",
    )
    .await?;
    Ok(inserted == 1)
}

pub(crate) async fn recorded<C: GenericClient>(
    client: &C,
    session: SessionId,
    key: &str,
) -> Result<Option<Recorded>, Error> {
    let sql = "SELECT key, session, payload_sha256, outcome FROM claims WHERE session = $1 AND key = $2";
    let decode = |row: &Row| decode::recorded(Cells(row));
    one(client, sql, &[&session.to_string(), &key], decode, "reading a claim").await
}

pub(crate) async fn workflow<C: GenericClient>(client: &C, hash: WorkflowHash) -> Result<Option<Workflow>, Error> {
    let sql = "SELECT hash, ir FROM workflows WHERE hash = $1";
    let decode = |row: &Row| decode::workflow(Cells(row), hash);
    one(client, sql, &[&hash.to_string()], decode, "reading a pinned workflow").await
}

pub(crate) async fn pin_workflow<C: GenericClient>(client: &C, workflow: &Workflow) -> Result<(), Error> {
    let ir = String::from_utf8(canonical_json(workflow)).map_err(|error| Error::Io { message: error.to_string() })?;
    let sql = "INSERT INTO workflows (hash, ir) VALUES ($1, $2) ON CONFLICT DO NOTHING";
    execute(client, sql, &[&workflow.hash().to_string(), &ir], "pinning a workflow").await?;
    Ok(())
}

pub(crate) async fn events<C: GenericClient>(
    client: &C,
    session: SessionId,
    after_seq: u64,
    limit: u32,
) -> Result<Vec<StoredEvent>, Error> {
    let sql = "SELECT session, seq, body, hash FROM events WHERE session = $1 AND seq > $2 ORDER BY seq LIMIT $3";
    let params: &Params<'_> = &[&session.to_string(), &sql_int(after_seq), &i64::from(limit)];
    all(client, sql, params, decode_event, "reading events").await
}

pub(crate) async fn list_sessions<C: GenericClient>(
    client: &C,
    query: &SessionQuery,
) -> Result<Vec<SessionRecord>, Error> {
    let mut conditions = Vec::new();
    let mut values: Vec<Box<dyn ToSql + Sync + Send>> = Vec::new();
    if let Some(status) = query.status {
        values.push(Box::new(wire_name(&status)));
        conditions.push(format!("status = ${}", values.len()));
    }
    for (column, value) in [
        ("workflow_id", &query.workflow_id),
        ("workspace", &query.workspace),
        ("git_branch", &query.git_branch),
        ("git_head", &query.git_head),
    ] {
        if let Some(value) = value {
            values.push(Box::new(value.clone()));
            conditions.push(format!("{column} = ${}", values.len()));
        }
    }
    if let Some((updated_at_ms, id)) = query.before {
        values.push(Box::new(updated_at_ms));
        values.push(Box::new(id.to_string()));
        conditions.push(format!("(updated_at_ms, id) < (${}, ${})", values.len() - 1, values.len()));
    }
    values.push(Box::new(i64::from(query.limit.min(MAX_PAGE))));
    let filter = if conditions.is_empty() { String::new() } else { format!("WHERE {}", conditions.join(" AND ")) };
    let sql = format!(
        "SELECT {SESSION_COLUMNS} FROM sessions {filter} ORDER BY updated_at_ms DESC, id DESC LIMIT ${}",
        values.len()
    );
    let params: Vec<&(dyn ToSql + Sync)> = values.iter().map(|value| value.as_ref() as &(dyn ToSql + Sync)).collect();
    all(client, &sql, &params, decode_session, "listing sessions").await
}

/// Walks `sessions_by_workflow` from one id to the next (a loose index scan) instead of reading
/// every session's entry, as `SELECT DISTINCT` would.
const SESSION_WORKFLOW_IDS: &str = "WITH RECURSIVE ids (id) AS (
        SELECT min(workflow_id) FROM sessions
        UNION ALL
        SELECT (SELECT min(workflow_id) FROM sessions WHERE workflow_id > ids.id) FROM ids WHERE ids.id IS NOT NULL
    )
    SELECT id FROM ids WHERE id IS NOT NULL LIMIT $1";

pub(crate) async fn session_workflow_ids<C: GenericClient>(client: &C, limit: u32) -> Result<Vec<String>, Error> {
    let limit = i64::from(limit.min(MAX_PAGE));
    all(
        client,
        SESSION_WORKFLOW_IDS,
        &[&limit],
        |row| decoder(row, "sessions").text(0, "workflow_id"),
        "listing workflow ids",
    )
    .await
}

/// Inserts a session row, or updates what can change in one: its workflow, run, status, update
/// time and last seq.
pub(crate) async fn write_session<C: GenericClient>(client: &C, record: &SessionRecord) -> Result<(), Error> {
    let sql = "INSERT INTO sessions (id, goal, title, workflow_id, run, status, workspace, git_branch, git_head,
            created_at_ms, updated_at_ms, last_seq)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        ON CONFLICT (id) DO UPDATE SET workflow_id = excluded.workflow_id, run = excluded.run,
            status = excluded.status, updated_at_ms = excluded.updated_at_ms, last_seq = excluded.last_seq";
    let params: &Params<'_> = &[
        &record.id.to_string(),
        &record.goal,
        &record.title,
        &record.workflow_id,
        &record.run.map(|run| run.to_string()),
        &record.status.map(|status| wire_name(&status)),
        &record.workspace,
        &record.git_branch,
        &record.git_head,
        &record.created_at_ms,
        &record.updated_at_ms,
        &sql_int(record.last_seq),
    ];
    execute(client, sql, params, "writing a session row").await?;
    Ok(())
}

/// Inserts a run row, or updates what can change in one: its control, tip, status, node count and
/// update time.
pub(crate) async fn write_run<C: GenericClient>(client: &C, record: &RunRecord) -> Result<(), Error> {
    let sql = "INSERT INTO runs (id, session, workflow_id, workflow_hash, source, control, tip, status, node_count,
            created_at_ms, updated_at_ms)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
        ON CONFLICT (id) DO UPDATE SET control = excluded.control, tip = excluded.tip, status = excluded.status,
                node_count = excluded.node_count, updated_at_ms = excluded.updated_at_ms";
    let params: &Params<'_> = &[
        &record.id.to_string(),
        &record.session.to_string(),
        &record.workflow_id,
        &record.workflow_hash.to_string(),
        &record.source,
        &wire_name(&record.control),
        &record.tip.to_string(),
        &wire_name(&record.status),
        &sql_int(record.node_count),
        &record.created_at_ms,
        &record.updated_at_ms,
    ];
    execute(client, sql, params, "writing a run row").await?;
    Ok(())
}

/// Inserts a node row, or updates what can change in one: its status, state and child count.
pub(crate) async fn write_node<C: GenericClient>(client: &C, record: &NodeRecord) -> Result<(), Error> {
    let state = String::from_utf8(canonical_json(&record.state))
        .map_err(|error| Error::Io { message: format!("encoding a node state: {error}") })?;
    let sql = "INSERT INTO nodes (id, run, session, parent, kind, cause, step, status, state, child_count,
            created_seq, created_at_ms)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        ON CONFLICT (id) DO UPDATE SET status = excluded.status, state = excluded.state,
                child_count = excluded.child_count";
    let params: &Params<'_> = &[
        &record.id.to_string(),
        &record.run.to_string(),
        &record.session.to_string(),
        &record.parent.map(|parent| parent.to_string()),
        &wire_name(&record.kind),
        &wire_name(&record.cause),
        &record.step.as_str(),
        &wire_name(&record.status),
        &state,
        &sql_int(record.child_count),
        &sql_int(record.created_seq),
        &record.created_at_ms,
    ];
    execute(client, sql, params, "writing a node row").await?;
    Ok(())
}
