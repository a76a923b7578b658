//! Rows of an SQL backend back to records, the same for every backend: each backend says how to
//! read a column as text or as an integer ([`Columns`]); the records' column lists, their
//! encodings (ids and enum names as text, states and outcomes as JSON) and the checks are here.
//! Bad data decodes to `STORE_CORRUPT` naming the table, row and column, never a panic.

use std::fmt::Display;
use std::str::FromStr;

use serde::de::DeserializeOwned;

use switchyard_core::id::AttemptId;
use switchyard_core::token::Nonce;
use switchyard_core::workflow::{StepId, Workflow, WorkflowHash};

use crate::error::Error;
use crate::record::{NodeRecord, Recorded, RunRecord, SessionRecord, StoredEvent, TokenRecord, TokenScope};

/// The columns [`session`] reads, in order.
pub const SESSION_COLUMNS: &str = "id, goal, title, workflow_id, run, status, workspace, git_branch, git_head, created_at_ms, updated_at_ms, last_seq";
/// The columns [`run`] reads, in order.
pub const RUN_COLUMNS: &str =
    "id, session, workflow_id, workflow_hash, source, control, tip, status, node_count, created_at_ms, updated_at_ms";
/// The columns [`node`] reads, in order.
pub const NODE_COLUMNS: &str =
    "id, run, session, parent, kind, cause, step, status, state, child_count, created_seq, created_at_ms";
/// The columns [`token`] reads, in order. `attempt` is `''` for a token without an attempt.
pub const TOKEN_COLUMNS: &str = "nonce, kind, session, run, node, attempt";

/// One result row of a backend.
pub trait Columns {
    /// Column `index` as text; `None` for NULL.
    fn text(&self, index: usize) -> Result<Option<String>, String>;
    /// Column `index` as a 64-bit integer; `None` for NULL.
    fn integer(&self, index: usize) -> Result<Option<i64>, String>;
    /// Column `index` as text lent to `read` (`None` for NULL), for a value parsed from it: a
    /// backend whose rows hold the text lends it without a copy.
    fn read_text<T>(&self, index: usize, read: impl FnOnce(Option<&str>) -> T) -> Result<T, String> {
        self.text(index).map(|text| read(text.as_deref()))
    }
}

/// A count or sequence number as a signed SQL integer (they never come near `i64::MAX`).
pub fn sql_int(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub fn corrupt(table: &str, key: &str, column: &str, problem: impl Display) -> Error {
    Error::Corrupt { message: format!("{table} row {key} column `{column}`: {problem}") }
}

/// Decodes the columns of one row, naming the table, row and column in every failure.
#[derive(Debug)]
pub struct Decoder<R> {
    row: R,
    table: &'static str,
}

impl<R: Columns> Decoder<R> {
    /// Starts on a row whose column 0 is its key.
    pub fn new(row: R, table: &'static str) -> Self {
        Self { row, table }
    }

    /// The row's key, as failures name it: read only when one is reported.
    pub fn key(&self) -> String {
        match self.row.text(0) {
            Ok(Some(text)) => text,
            Ok(None) => "<null key>".to_owned(),
            Err(error) => match self.row.integer(0) {
                Ok(Some(number)) => number.to_string(),
                _ => format!("<unreadable key: {error}>"),
            },
        }
    }

    fn corrupt(&self, column: &str, problem: impl Display) -> Error {
        corrupt(self.table, &self.key(), column, problem)
    }

    /// Column `index` lent to `read`, which says what is wrong with it, if anything.
    fn read<T>(
        &self,
        index: usize,
        column: &str,
        read: impl FnOnce(Option<&str>) -> Result<T, String>,
    ) -> Result<T, Error> {
        self.row.read_text(index, read).and_then(|read| read).map_err(|problem| self.corrupt(column, problem))
    }

    pub fn text_opt(&self, index: usize, column: &str) -> Result<Option<String>, Error> {
        self.row.text(index).map_err(|error| self.corrupt(column, error))
    }

    pub fn text(&self, index: usize, column: &str) -> Result<String, Error> {
        self.text_opt(index, column)?.ok_or_else(|| self.corrupt(column, "is NULL"))
    }

    pub fn integer(&self, index: usize, column: &str) -> Result<i64, Error> {
        self.row
            .integer(index)
            .map_err(|error| self.corrupt(column, error))?
            .ok_or_else(|| self.corrupt(column, "is NULL"))
    }

    pub fn count(&self, index: usize, column: &str) -> Result<u64, Error> {
        let value = self.integer(index, column)?;
        u64::try_from(value).map_err(|_| self.corrupt(column, format!("negative count {value}")))
    }

    pub fn parse<T: FromStr>(&self, index: usize, column: &str) -> Result<T, Error>
    where
        T::Err: Display,
    {
        self.read(index, column, |text| parse(required(text)?))
    }

    pub fn parse_opt<T: FromStr>(&self, index: usize, column: &str) -> Result<Option<T>, Error>
    where
        T::Err: Display,
    {
        self.read(index, column, |text| text.map(parse).transpose())
    }

    /// A unit enum stored by its serde name.
    pub fn named<T: DeserializeOwned>(&self, index: usize, column: &str) -> Result<T, Error> {
        self.read(index, column, |text| named(required(text)?))
    }

    pub fn named_opt<T: DeserializeOwned>(&self, index: usize, column: &str) -> Result<Option<T>, Error> {
        self.read(index, column, |text| text.map(named).transpose())
    }

    pub fn json<T: DeserializeOwned>(&self, index: usize, column: &str) -> Result<T, Error> {
        self.read(index, column, |text| serde_json::from_str(required(text)?).map_err(|error| error.to_string()))
    }
}

fn required(text: Option<&str>) -> Result<&str, String> {
    text.ok_or_else(|| "is NULL".to_owned())
}

fn parse<T: FromStr>(text: &str) -> Result<T, String>
where
    T::Err: Display,
{
    text.parse().map_err(|error: T::Err| error.to_string())
}

/// A unit enum from its serde name, read in place.
fn named<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    T::deserialize(serde::de::value::StrDeserializer::<serde::de::value::Error>::new(text))
        .map_err(|_| format!("unknown value `{text}`"))
}

/// A session row selected as [`SESSION_COLUMNS`].
pub fn session<R: Columns>(row: R) -> Result<SessionRecord, Error> {
    let d = Decoder::new(row, "sessions");
    Ok(SessionRecord {
        id: d.parse(0, "id")?,
        goal: d.text(1, "goal")?,
        title: d.text(2, "title")?,
        workflow_id: d.text_opt(3, "workflow_id")?,
        run: d.parse_opt(4, "run")?,
        status: d.named_opt(5, "status")?,
        workspace: d.text_opt(6, "workspace")?,
        git_branch: d.text_opt(7, "git_branch")?,
        git_head: d.text_opt(8, "git_head")?,
        created_at_ms: d.integer(9, "created_at_ms")?,
        updated_at_ms: d.integer(10, "updated_at_ms")?,
        last_seq: d.count(11, "last_seq")?,
    })
}

/// A run row selected as [`RUN_COLUMNS`].
pub fn run<R: Columns>(row: R) -> Result<RunRecord, Error> {
    let d = Decoder::new(row, "runs");
    Ok(RunRecord {
        id: d.parse(0, "id")?,
        session: d.parse(1, "session")?,
        workflow_id: d.text(2, "workflow_id")?,
        workflow_hash: d.parse::<WorkflowHash>(3, "workflow_hash")?,
        source: d.text(4, "source")?,
        control: d.named(5, "control")?,
        tip: d.parse(6, "tip")?,
        status: d.named(7, "status")?,
        node_count: d.count(8, "node_count")?,
        created_at_ms: d.integer(9, "created_at_ms")?,
        updated_at_ms: d.integer(10, "updated_at_ms")?,
    })
}

/// A node row selected as [`NODE_COLUMNS`].
pub fn node<R: Columns>(row: R) -> Result<NodeRecord, Error> {
    let d = Decoder::new(row, "nodes");
    Ok(NodeRecord {
        id: d.parse(0, "id")?,
        run: d.parse(1, "run")?,
        session: d.parse(2, "session")?,
        parent: d.parse_opt(3, "parent")?,
        kind: d.named(4, "kind")?,
        cause: d.named(5, "cause")?,
        step: StepId::new(d.text(6, "step")?),
        status: d.named(7, "status")?,
        state: d.json(8, "state")?,
        child_count: d.count(9, "child_count")?,
        created_seq: d.count(10, "created_seq")?,
        created_at_ms: d.integer(11, "created_at_ms")?,
    })
}

/// A token row selected as [`TOKEN_COLUMNS`].
pub fn token<R: Columns>(row: R) -> Result<TokenRecord, Error> {
    let d = Decoder::new(row, "tokens");
    let nonce_text = d.text(0, "nonce")?;
    let attempt = d.text(5, "attempt")?;
    Ok(TokenRecord {
        nonce: Nonce::from_hex(&nonce_text).ok_or_else(|| corrupt("tokens", &d.key(), "nonce", "not 24 hex digits"))?,
        kind: d.named(1, "kind")?,
        session: d.parse(2, "session")?,
        run: d.parse(3, "run")?,
        node: d.parse(4, "node")?,
        attempt: match attempt.as_str() {
            "" => None,
            text => Some(text.parse::<AttemptId>().map_err(|error| corrupt("tokens", &d.key(), "attempt", error))?),
        },
    })
}

/// A column list with each column named through a table alias: `qualified("t", "a, b")` is
/// `t.a, t.b`, for a statement that joins tables.
pub fn qualified(alias: &str, columns: &str) -> String {
    columns.split(", ").map(|column| format!("{alias}.{column}")).collect::<Vec<_>>().join(", ")
}

/// The statement that reads a token and the run, session and node it names in one snapshot: one
/// row, the token's columns ([`TOKEN_COLUMNS`]) then each record's, NULL where a record is
/// missing. `nonce` is the backend's placeholder for the token's nonce (`?1`, `$1`). For
/// [`token_scope`].
pub fn token_scope_sql(nonce: &str) -> String {
    format!(
        "SELECT {}, {}, {}, {} FROM tokens t \
         LEFT JOIN runs r ON r.id = t.run \
         LEFT JOIN sessions s ON s.id = t.session \
         LEFT JOIN nodes n ON n.id = t.node \
         WHERE t.nonce = {nonce}",
        qualified("t", TOKEN_COLUMNS),
        qualified("r", RUN_COLUMNS),
        qualified("s", SESSION_COLUMNS),
        qualified("n", NODE_COLUMNS),
    )
}

/// A row of [`token_scope_sql`].
pub fn token_scope<R: Columns + Copy>(row: R) -> Result<TokenScope, Error> {
    const RUN_AT: usize = width(TOKEN_COLUMNS);
    const SESSION_AT: usize = RUN_AT + width(RUN_COLUMNS);
    const NODE_AT: usize = SESSION_AT + width(SESSION_COLUMNS);
    fn present<R: Columns, T>(
        row: R,
        start: usize,
        decode: fn(Shifted<R>) -> Result<T, Error>,
    ) -> Result<Option<T>, Error> {
        let part = Shifted { row, start };
        // A LEFT JOIN that found no row gives NULL in every column, the key included.
        match part.text(0) {
            Ok(None) => Ok(None),
            _ => decode(part).map(Some),
        }
    }
    Ok(TokenScope {
        token: token(row)?,
        run: present(row, RUN_AT, run)?,
        session: present(row, SESSION_AT, session)?,
        node: present(row, NODE_AT, node)?,
    })
}

/// The columns of a row from `start` on, so a joined row decodes as several records.
#[derive(Clone, Copy)]
struct Shifted<R> {
    row: R,
    start: usize,
}

impl<R: Columns> Columns for Shifted<R> {
    fn text(&self, index: usize) -> Result<Option<String>, String> {
        self.row.text(self.start + index)
    }

    fn integer(&self, index: usize) -> Result<Option<i64>, String> {
        self.row.integer(self.start + index)
    }

    fn read_text<T>(&self, index: usize, read: impl FnOnce(Option<&str>) -> T) -> Result<T, String> {
        self.row.read_text(self.start + index, read)
    }
}

/// How many columns a column list names.
const fn width(columns: &str) -> usize {
    let bytes = columns.as_bytes();
    let (mut index, mut count) = (0, 1);
    while index < bytes.len() {
        if bytes[index] == b',' {
            count += 1;
        }
        index += 1;
    }
    count
}

/// A claim row selected as `key, session, payload_sha256, outcome`.
pub fn recorded<R: Columns>(row: R) -> Result<Recorded, Error> {
    let d = Decoder::new(row, "claims");
    Ok(Recorded {
        key: d.text(0, "key")?,
        session: d.parse(1, "session")?,
        payload_sha256: d.text(2, "payload_sha256")?,
        outcome: d.json(3, "outcome")?,
    })
}

/// A pinned workflow selected as `hash, ir`, checked to hash to `hash`.
pub fn workflow<R: Columns>(row: R, hash: WorkflowHash) -> Result<Workflow, Error> {
    let d = Decoder::new(row, "workflows");
    let workflow: Workflow = d.json(1, "ir")?;
    if workflow.hash() != hash {
        return Err(corrupt("workflows", &d.key(), "ir", format!("the stored IR hashes to {}", workflow.hash())));
    }
    Ok(workflow)
}

/// An event row selected as `session, seq, body, hash`, checked to hold the envelope its
/// columns say.
pub fn event<R: Columns>(row: R) -> Result<StoredEvent, Error> {
    let d = Decoder::new(row, "events");
    let session = d.text(0, "session")?;
    let seq = d.count(1, "seq")?;
    let body = d.text(2, "body")?;
    let hash = d.text(3, "hash")?;
    let at = format!("{session} seq {seq}");
    let event = StoredEvent::from_body(body.as_bytes(), hash).map_err(|error| corrupt("events", &at, "body", error))?;
    if event.session.to_string() != session || event.seq != seq {
        return Err(corrupt(
            "events",
            &at,
            "body",
            format!("the envelope says session {} seq {}", event.session, event.seq),
        ));
    }
    Ok(event)
}
