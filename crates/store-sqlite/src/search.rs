//! The text index behind `search_sessions` and `recap`: one `texts` row per goal, notes,
//! checkpoint or decision, written in the same transaction as its event, plus an FTS5 index over
//! it (external content, so the text is stored once).
//!
//! Stores created before the index existed get it on open: the tables are created and filled from
//! the events once, inside the writer's schema transaction.

use rusqlite::{Connection, OptionalExtension, params};

use switchyard_core::event::EventKind;
use switchyard_core::id::{NodeId, SessionId};
use switchyard_store::search::search_words;
use switchyard_store::{
    Error, MAX_RECAP_NODES, MAX_SEARCH_HITS, RecapEntry, RecapKind, SearchHit, SearchQuery, StoredEvent,
};

use crate::rows::{self, Decoder};
use crate::sql_error::Context;

const SCHEMA: &str = "
CREATE TABLE texts (
    id INTEGER PRIMARY KEY,
    session TEXT NOT NULL,
    -- The node the text belongs to on the run's graph: the node an advance or decision led to, the
    -- node a checkpoint was taken on; NULL for a session's title and goal.
    node TEXT,
    -- The step the text is about (the step acted on); '' for a session's title and goal.
    step TEXT NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL
);
CREATE INDEX texts_by_node ON texts (node, seq);
CREATE VIRTUAL TABLE texts_search USING fts5 (
    body, content = 'texts', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
";

/// How many rows of the ranked match a search reads before grouping by session.
const SEARCH_WINDOW: u32 = 500;

/// Creates the index when the store does not have it yet, and fills it from the events.
pub(crate) fn ensure_schema(connection: &Connection) -> Result<(), Error> {
    let present: Option<i64> = connection
        .query_row("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'texts'", [], |row| row.get(0))
        .optional()
        .doing("looking for the text index")?;
    if present.is_some() {
        return Ok(());
    }
    connection.execute_batch(SCHEMA).doing("creating the text index")?;
    reindex(connection)
}

/// Empties the index and fills it again from every event.
pub(crate) fn reindex(connection: &Connection) -> Result<(), Error> {
    connection
        .execute_batch("DELETE FROM texts; INSERT INTO texts_search (texts_search) VALUES ('delete-all');")
        .doing("emptying the text index")?;
    let sql = "SELECT session, seq, body, hash FROM events
        WHERE kind IN ('session_created', 'advance_recorded', 'checkpoint_recorded', 'gate_decided', 'human_decided')
        ORDER BY session, seq";
    let events = rows::all(connection, sql, [], rows::decode_event, "reading events to index")?;
    for event in &events {
        index_event(connection, event)?;
    }
    Ok(())
}

/// Indexes the text an event carries, if any. Runs inside the append's savepoint.
pub(crate) fn index_event(connection: &Connection, event: &StoredEvent) -> Result<(), Error> {
    // (the node the text belongs to, the node whose step it is about, kind, text)
    let (node, about, kind, body): (Option<NodeId>, Option<NodeId>, &str, String) = match &event.kind {
        EventKind::SessionCreated { goal, title, .. } => {
            let body =
                if goal.starts_with(title.trim_end_matches('…')) { goal.clone() } else { format!("{title}\n{goal}") };
            (None, None, "goal", body)
        }
        EventKind::AdvanceRecorded { from, to, notes: Some(notes), .. } => {
            (Some(*to), Some(*from), RecapKind::Notes.name(), notes.clone())
        }
        EventKind::CheckpointRecorded { node, notes: Some(notes), .. } => {
            (Some(*node), Some(*node), RecapKind::Checkpoint.name(), notes.clone())
        }
        EventKind::GateDecided { node, to, approved, reason } => {
            let verdict = if *approved { "approved" } else { "rejected" };
            let body = match reason {
                Some(reason) => format!("gate {verdict}: {reason}"),
                None => format!("gate {verdict}"),
            };
            (Some(*to), Some(*node), RecapKind::Decision.name(), body)
        }
        EventKind::HumanDecided { node, to, option, note } => {
            let body = match note {
                Some(note) => format!("decided {}: {note}", option.as_str()),
                None => format!("decided {}", option.as_str()),
            };
            (Some(*to), Some(*node), RecapKind::Decision.name(), body)
        }
        _ => return Ok(()),
    };
    if body.trim().is_empty() {
        return Ok(());
    }
    let step: String = match about {
        Some(about) => connection
            .prepare_cached("SELECT step FROM nodes WHERE id = ?1")
            .and_then(|mut statement| statement.query_row([about.to_string()], |row| row.get(0)).optional())
            .doing("reading the step of an indexed text")?
            .unwrap_or_default(),
        None => String::new(),
    };
    connection
        .prepare_cached("INSERT INTO texts (session, node, step, seq, kind, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)")
        .and_then(|mut statement| {
            statement.execute(params![
                event.session.to_string(),
                node.map(|node| node.to_string()),
                step,
                rows::sql_int(event.seq),
                kind,
                body
            ])
        })
        .doing("indexing an event's text")?;
    let id = connection.last_insert_rowid();
    connection
        .prepare_cached("INSERT INTO texts_search (rowid, body) VALUES (?1, ?2)")
        .and_then(|mut statement| statement.execute(params![id, body]))
        .doing("indexing an event's text")?;
    Ok(())
}

/// Ranked sessions for the query's words (any word matches; more and rarer words rank higher).
pub(crate) fn search(connection: &Connection, query: &SearchQuery) -> Result<Vec<SearchHit>, Error> {
    let words = search_words(&query.text);
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let expression = words.iter().map(|word| format!("\"{word}\"*")).collect::<Vec<_>>().join(" OR ");
    let limit = query.limit.min(MAX_SEARCH_HITS) as usize;
    let sql = "SELECT t.session, bm25(texts_search) AS score,
            snippet(texts_search, 0, '[', ']', '…', 16), t.kind
        FROM texts_search JOIN texts t ON t.id = texts_search.rowid
        WHERE texts_search MATCH ?1 ORDER BY score LIMIT ?2";
    let mut statement = connection.prepare_cached(sql).doing("searching sessions")?;
    let mut found = statement.query(params![expression, SEARCH_WINDOW]).doing("searching sessions")?;
    let mut hits: Vec<SearchHit> = Vec::new();
    while let Some(row) = found.next().doing("searching sessions")? {
        let decoder = Decoder::new(row, "texts");
        let session: SessionId = decoder.parse(0, "session")?;
        if hits.iter().any(|hit| hit.session == session) {
            continue;
        }
        let score: f64 = decoder.get(1, "score")?;
        hits.push(SearchHit {
            session,
            score: -score,
            snippet: decoder.get(2, "snippet")?,
            matched: decoder.get(3, "kind")?,
        });
        if hits.len() >= limit {
            break;
        }
    }
    Ok(hits)
}

/// The texts recorded on `node` and its ancestors, oldest first, walking at most `max_nodes`.
pub(crate) fn recap(connection: &Connection, node: NodeId, max_nodes: u32) -> Result<Vec<RecapEntry>, Error> {
    let max_nodes = max_nodes.clamp(1, MAX_RECAP_NODES);
    let sql = "WITH RECURSIVE chain (id, parent, depth) AS (
            SELECT id, parent, 1 FROM nodes WHERE id = ?1
            UNION ALL
            SELECT n.id, n.parent, c.depth + 1 FROM nodes n JOIN chain c ON n.id = c.parent WHERE c.depth < ?2
        )
        SELECT t.node, t.step, t.seq, t.kind, t.body
        FROM chain c JOIN texts t ON t.node = c.id
        ORDER BY t.seq";
    let mut statement = connection.prepare_cached(sql).doing("reading a recap")?;
    let mut found = statement.query(params![node.to_string(), max_nodes]).doing("reading a recap")?;
    let mut entries = Vec::new();
    while let Some(row) = found.next().doing("reading a recap")? {
        let decoder = Decoder::new(row, "texts");
        let kind: String = decoder.get(3, "kind")?;
        let Some(kind) = RecapKind::from_name(&kind) else { continue };
        let step: String = decoder.get(1, "step")?;
        entries.push(RecapEntry {
            node: decoder.parse(0, "node")?,
            step: switchyard_core::workflow::StepId::new(&step),
            seq: decoder.count(2, "seq")?,
            kind,
            text: decoder.get(4, "body")?,
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_and_recap_use_indexes() {
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch(crate::schema::SCHEMA_V1).unwrap();
        connection.execute_batch(SCHEMA).unwrap();
        let plan = |sql: &str| -> String {
            let mut statement = connection.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let rows: Vec<String> =
                statement.query_map([], |row| row.get::<_, String>(3)).unwrap().map(Result::unwrap).collect();
            rows.join("\n")
        };
        let recap_plan = plan(
            "WITH RECURSIVE chain (id, parent, depth) AS (SELECT id, parent, 1 FROM nodes WHERE id = 'x' UNION ALL SELECT n.id, n.parent, c.depth + 1 FROM nodes n JOIN chain c ON n.id = c.parent WHERE c.depth < 5) SELECT t.node FROM chain c JOIN texts t ON t.node = c.id ORDER BY t.seq",
        );
        let scans = |plan: &str, table: &str| {
            plan.lines()
                .map(str::trim)
                .any(|line| line == format!("SCAN {table}") || line.starts_with(&format!("SCAN {table} ")))
        };
        assert!(!scans(&recap_plan, "t") && !scans(&recap_plan, "n"), "{recap_plan}");
        let search_plan = plan(
            "SELECT t.session FROM texts_search JOIN texts t ON t.id = texts_search.rowid WHERE texts_search MATCH 'x' LIMIT 5",
        );
        assert!(search_plan.contains("VIRTUAL TABLE INDEX"), "{search_plan}");
        assert!(!scans(&search_plan, "t"), "{search_plan}");
    }
}
