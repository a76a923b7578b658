//! The text index behind `search_sessions` and `recap`: one `texts` row per goal, notes,
//! checkpoint or decision, written in the same transaction as its event, plus an FTS5 index over
//! it (external content, so the text is stored once).
//!
//! The FTS5 index takes its texts in batches. Each commit that adds to an FTS5 index writes a new
//! segment of it: two pages of the log, and a tenth of an advance's instructions spent flushing and
//! merging segments (BENCHMARKS.md, "Advance (in process and over MCP)"). So an advance only
//! records its text, and the append that leaves [`INDEX_BATCH`] texts waiting indexes them all in
//! its transaction. `texts_indexed` holds the newest text indexed. A search first has the writer
//! index whatever still waits, so it always sees every text, and a writer that closes indexes what
//! waits before it goes. Only a store opened for reading only, after a writer that stopped without
//! closing, can have texts its searches miss: at most [`INDEX_BATCH`] - 1, the newest, until a
//! writer opens it again.
//!
//! Stores created before the index existed get it on open: the tables are created and filled from
//! the events once, inside the writer's schema transaction. Stores whose FTS5 index predates
//! stemming, or still keeps each text's size, get it rebuilt from `texts` the same way.

use std::collections::HashSet;

use rusqlite::{Connection, OptionalExtension, params};

use switchyard_core::id::{NodeId, SessionId};
use switchyard_store::search::{IndexedText, Ranking, SEARCH_WINDOW, indexed_text, query_words, word_window};
use switchyard_store::{
    Error, MAX_RECAP_NODES, MAX_SEARCH_HITS, RecapEntry, RecapKind, SearchHit, SearchQuery, StoredEvent,
};

use crate::rows::{self, decoder};
use crate::sql_error::Context;

const TEXTS: &str = "
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
";

/// The full-text index over `texts`. Words are stemmed (Porter, over Unicode word breaking), so
/// `adapters` finds `adapter` and `refactoring` finds `refactor`.
///
/// `columnsize = 0`: FTS5 keeps no table of each text's length in words, which only its `bm25`
/// ranking reads. [`search`] ranks by word rarity in Rust, and `snippet` does not need them; the
/// table cost every indexed text (one per advance with notes) a b-tree page in its commit.
const INDEX: &str = "
CREATE VIRTUAL TABLE texts_search USING fts5 (
    body, content = 'texts', content_rowid = 'id', tokenize = 'porter unicode61 remove_diacritics 2',
    columnsize = 0
);
";

/// How many recorded texts wait, at most, before an append indexes them (see the module's
/// documentation).
pub const INDEX_BATCH: i64 = 32;

/// The statements that record a text: its step's name, the text.
const STEP_OF_NODE: &str = "SELECT step FROM nodes WHERE id = ?1";
const INSERT_TEXT: &str = "INSERT INTO texts (session, node, step, seq, kind, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6)";

/// The statements that tell how far the index lags: the newest text, the newest one indexed.
const NEWEST_TEXT: &str = "SELECT coalesce(max(id), 0) FROM texts";
const INDEXED_UPTO: &str = "SELECT upto FROM texts_indexed WHERE singleton = 1";

/// The statements that index the texts waiting: their words, then the new mark.
const INDEX_WAITING: &str =
    "INSERT INTO texts_search (rowid, body) SELECT id, body FROM texts WHERE id > ?1 ORDER BY id";
const MARK_INDEXED: &str = "INSERT INTO texts_indexed (singleton, upto) VALUES (1, ?1)
    ON CONFLICT (singleton) DO UPDATE SET upto = excluded.upto";

/// Creates the index when the store does not have it yet, and fills it from the events; rebuilds
/// an FTS5 index made before stemming, or one that keeps each text's size, from the texts it
/// indexes. Runs after the migrations, which create `texts_indexed` (schema version 2).
pub(crate) fn ensure_schema(connection: &Connection) -> Result<(), Error> {
    let index: Option<String> = connection
        .query_row("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'texts_search'", [], |row| row.get(0))
        .optional()
        .doing("looking for the text index")?;
    match index {
        None => {
            connection.execute_batch(TEXTS).doing("creating the text index")?;
            connection.execute_batch(INDEX).doing("creating the text index")?;
            reindex(connection)
        }
        Some(sql) if !sql.contains("porter") || !sql.contains("columnsize = 0") => {
            connection
                .execute_batch(&format!(
                    "DROP TABLE texts_search; {INDEX}; INSERT INTO texts_search (texts_search) VALUES ('rebuild');"
                ))
                .doing("rebuilding the text index")?;
            mark_indexed(connection, newest_text(connection)?)
        }
        // A store of schema version 1 indexed every text in its own transaction: all of them are
        // indexed. A store of version 2 keeps its mark.
        Some(_) => connection
            .execute(
                "INSERT OR IGNORE INTO texts_indexed (singleton, upto) SELECT 1, coalesce(max(id), 0) FROM texts",
                [],
            )
            .map(drop)
            .doing("marking the indexed texts"),
    }
}

/// Empties the index and fills it again from every event.
pub(crate) fn reindex(connection: &Connection) -> Result<(), Error> {
    connection
        .execute_batch("DELETE FROM texts; INSERT INTO texts_search (texts_search) VALUES ('delete-all');")
        .doing("emptying the text index")?;
    mark_indexed(connection, 0)?;
    let sql = "SELECT session, seq, body, hash FROM events
        WHERE kind IN ('session_created', 'advance_recorded', 'checkpoint_recorded', 'gate_decided', 'human_decided')
        ORDER BY session, seq";
    let events = rows::all(connection, sql, [], rows::decode_event, "reading events to index")?;
    for event in &events {
        record_text(connection, event)?;
    }
    index_waiting(connection, 1)
}

/// The newest recorded text's id, 0 for none.
fn newest_text(connection: &Connection) -> Result<i64, Error> {
    connection
        .prepare_cached(NEWEST_TEXT)
        .and_then(|mut statement| statement.query_row([], |row| row.get(0)))
        .doing("reading the newest text")
}

fn mark_indexed(connection: &Connection, upto: i64) -> Result<(), Error> {
    connection
        .prepare_cached(MARK_INDEXED)
        .and_then(|mut statement| statement.execute([upto]))
        .map(drop)
        .doing("marking the indexed texts")
}

/// The newest text and the newest one indexed.
fn lag(connection: &Connection) -> Result<(i64, i64), Error> {
    let upto: i64 = connection
        .prepare_cached(INDEXED_UPTO)
        .and_then(|mut statement| statement.query_row([], |row| row.get(0)))
        .doing("reading the indexed texts' mark")?;
    Ok((newest_text(connection)?, upto))
}

/// Whether some recorded texts are not in the index yet.
pub(crate) fn lagging(connection: &Connection) -> Result<bool, Error> {
    let (newest, upto) = lag(connection)?;
    Ok(newest > upto)
}

/// Indexes the texts waiting for the index, once at least `at_least` of them wait. Runs inside a
/// write transaction.
pub(crate) fn index_waiting(connection: &Connection, at_least: i64) -> Result<(), Error> {
    let (newest, upto) = lag(connection)?;
    if newest - upto < at_least.max(1) {
        return Ok(());
    }
    connection
        .prepare_cached(INDEX_WAITING)
        .and_then(|mut statement| statement.execute([upto]))
        .doing("indexing the waiting texts")?;
    mark_indexed(connection, newest)
}

/// Records the text an event carries, if any, for the index to take later; says whether it did.
/// Runs inside the append's transaction.
pub(crate) fn record_text(connection: &Connection, event: &StoredEvent) -> Result<bool, Error> {
    let Some(IndexedText { node, about, kind, body }) = indexed_text(event) else { return Ok(false) };
    let step: String = match about {
        Some(about) => connection
            .prepare_cached(STEP_OF_NODE)
            .and_then(|mut statement| statement.query_row([about.to_string()], |row| row.get(0)).optional())
            .doing("reading the step of an indexed text")?
            .unwrap_or_default(),
        None => String::new(),
    };
    connection
        .prepare_cached(INSERT_TEXT)
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
        .doing("recording an event's text")?;
    Ok(true)
}

/// Sessions for the query's words, best first: any word matches (a whole word, stemmed); a text
/// ranks by the summed rarity of the query words it holds (BM25's inverse document frequency),
/// newer first among equals, and a session by its best text. With a workspace, only sessions
/// started there count, among the same [`SEARCH_WINDOW`] best texts: a word common in busier
/// workspaces can crowd a quiet one's texts out; a word of its own cannot.
///
/// Each word reads at most its [`switchyard_store::search::WORD_WINDOW`] newest matches (fewer when the query has many
/// words), and ranking, grouping and snippets touch only those, so a search costs the same in a
/// store of any size. The price: in a
/// text older than a common word's newest matches, that word does not count (it is worth little
/// there anyway, being common).
pub(crate) fn search(connection: &Connection, query: &SearchQuery) -> Result<Vec<SearchHit>, Error> {
    let words = query_words(&query.text);
    if words.is_empty() {
        return Ok(Vec::new());
    }
    // One read snapshot for all the statements below, so a rebuild committed in between cannot
    // renumber the texts under them.
    let connection = connection.unchecked_transaction().doing("searching sessions")?;
    let texts: i64 = connection
        .query_row("SELECT coalesce(max(id), 0) FROM texts", [], |row| row.get(0))
        .doing("counting indexed texts")?;
    let window = word_window(words.len());
    let mut newest = connection
        .prepare_cached("SELECT rowid FROM texts_search WHERE texts_search MATCH ?1 ORDER BY rowid DESC LIMIT ?2")
        .doing("searching sessions")?;
    let mut ranking = Ranking::new();
    for word in &words {
        let matches: Vec<i64> = newest
            .query_map(params![format!("\"{word}\""), window], |row| row.get(0))
            .and_then(Iterator::collect)
            .doing("searching sessions")?;
        ranking.add_word(&matches, window, texts);
    }

    let limit = query.limit.min(MAX_SEARCH_HITS) as usize;
    let mut text =
        connection.prepare_cached("SELECT session, kind FROM texts WHERE id = ?1").doing("searching sessions")?;
    let mut snippet = connection
        .prepare_cached(
            "SELECT snippet(texts_search, 0, '[', ']', '…', 16) FROM texts_search WHERE texts_search MATCH ?1 AND rowid = ?2",
        )
        .doing("searching sessions")?;
    let mut seen: HashSet<SessionId> = HashSet::new();
    let mut hits = Vec::new();
    for (id, score, held) in ranking.ranked().into_iter().take(SEARCH_WINDOW) {
        let mut rows = text.query([id]).doing("searching sessions")?;
        let Some(row) = rows.next().doing("searching sessions")? else { continue };
        let decoder = decoder(row, "texts");
        let session: SessionId = decoder.parse(0, "session")?;
        if !seen.insert(session) {
            continue;
        }
        let matched = decoder.text(1, "kind")?;
        if let Some(workspace) = &query.workspace {
            let recorded: Option<Option<String>> = connection
                .prepare_cached("SELECT workspace FROM sessions WHERE id = ?1")
                .and_then(|mut statement| statement.query_row([session.to_string()], |row| row.get(0)))
                .optional()
                .doing("searching sessions")?;
            if recorded.flatten().as_ref() != Some(workspace) {
                continue;
            }
        }
        let expression =
            ranking.marked(held).iter().map(|index| format!("\"{}\"", words[*index])).collect::<Vec<_>>().join(" OR ");
        let snippet = snippet.query_row(params![expression, id], |row| row.get(0)).doing("searching sessions")?;
        hits.push(SearchHit { session, score, snippet, matched });
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
        let decoder = decoder(row, "texts");
        let kind = decoder.text(3, "kind")?;
        let Some(kind) = RecapKind::from_name(&kind) else { continue };
        let step = decoder.text(1, "step")?;
        entries.push(RecapEntry {
            node: decoder.parse(0, "node")?,
            step: switchyard_core::workflow::StepId::new(&step),
            seq: decoder.count(2, "seq")?,
            kind,
            text: decoder.text(4, "body")?,
        });
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use switchyard_store::search::{WORD_WINDOW, word_rarity};

    use super::*;

    #[test]
    fn search_and_recap_use_indexes() {
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch(&crate::schema::tables()).unwrap();
        connection.execute_batch(TEXTS).unwrap();
        connection.execute_batch(INDEX).unwrap();
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
        let newest = plan("SELECT rowid FROM texts_search WHERE texts_search MATCH 'x' ORDER BY rowid DESC LIMIT 5");
        assert!(newest.contains("VIRTUAL TABLE INDEX") && !newest.contains("ORDER BY"), "{newest}");
        let snippet = plan("SELECT rowid FROM texts_search WHERE texts_search MATCH 'x' AND rowid = 7");
        assert!(snippet.contains("VIRTUAL TABLE INDEX") && snippet.contains('='), "{snippet}");
        let text = plan("SELECT session, kind FROM texts WHERE id = 7");
        assert!(text.contains("INTEGER PRIMARY KEY"), "{text}");
    }

    /// An in-memory text index holding `texts` as (session number, body), oldest first.
    fn indexed(texts: &[(u8, &str)]) -> Connection {
        let connection = Connection::open_in_memory().unwrap();
        connection.execute_batch(TEXTS).unwrap();
        connection.execute_batch(INDEX).unwrap();
        for (seq, (session, body)) in texts.iter().enumerate() {
            connection
                .execute(
                    "INSERT INTO texts (session, node, step, seq, kind, body) VALUES (?1, NULL, '', ?2, 'notes', ?3)",
                    params![SessionId::from_bytes([*session; 16]).to_string(), seq as i64, body],
                )
                .unwrap();
            let id = connection.last_insert_rowid();
            connection.execute("INSERT INTO texts_search (rowid, body) VALUES (?1, ?2)", params![id, body]).unwrap();
        }
        connection
    }

    fn sessions(connection: &Connection, text: &str) -> Vec<u8> {
        let hits = search(connection, &SearchQuery { text: text.to_owned(), limit: 10, workspace: None }).unwrap();
        hits.iter().map(|hit| hit.session.as_bytes()[0]).collect()
    }

    #[test]
    fn rarer_and_more_words_rank_higher_and_newer_breaks_ties() {
        let connection = indexed(&[
            (1, "the parser rewrite"),
            (2, "the lexer"),
            (3, "the parser"),
            (4, "the parser and the lexer"),
            (5, "the zeppelin adapters"),
            (6, "the"),
        ]);
        assert_eq!(sessions(&connection, "zeppelin"), [5]);
        assert_eq!(sessions(&connection, "adapter"), [5], "words are stemmed");
        assert_eq!(
            sessions(&connection, "parser lexer"),
            [4, 2, 3, 1],
            "both words first, then the rarer word's text, then newer first"
        );
        assert_eq!(sessions(&connection, "the zeppelin"), [5, 6, 4, 3, 2, 1], "the rare word outranks the common one");
        let hits =
            search(&connection, &SearchQuery { text: "ZEPPELIN".to_owned(), limit: 10, workspace: None }).unwrap();
        assert_eq!(hits[0].snippet, "the [zeppelin] adapters");
        assert_eq!(hits[0].matched, "notes");
        let hits =
            search(&connection, &SearchQuery { text: "the adapter zeppelin".to_owned(), limit: 1, workspace: None })
                .unwrap();
        assert_eq!(hits[0].snippet, "the [zeppelin] [adapters]", "the snippet marks the rarest words it holds");
    }

    #[test]
    fn a_common_word_counts_only_in_its_newest_texts() {
        let common = WORD_WINDOW as usize + 1;
        let mut texts: Vec<(u8, &str)> = vec![(1, "common rare")];
        texts.extend(std::iter::repeat_n((2, "common"), common - 1));
        texts.push((3, "common other"));
        let connection = indexed(&texts);
        let hits = search(&connection, &SearchQuery { text: "common".to_owned(), limit: 10, workspace: None }).unwrap();
        assert_eq!(hits.iter().map(|hit| hit.session.as_bytes()[0]).collect::<Vec<_>>(), [3, 2]);
        assert_eq!(sessions(&connection, "rare common"), [1, 3, 2], "a rare word still finds the oldest text");
        let rare = search(&connection, &SearchQuery { text: "rare".to_owned(), limit: 1, workspace: None }).unwrap();
        let both =
            search(&connection, &SearchQuery { text: "rare common".to_owned(), limit: 1, workspace: None }).unwrap();
        assert_eq!(rare[0].score, both[0].score, "the common word does not count in a text older than its window");
        assert!(
            word_rarity(&[10, 9, 8], WORD_WINDOW, 10)
                > word_rarity(&(1..=10).rev().collect::<Vec<_>>(), WORD_WINDOW, 10)
        );
    }
}
