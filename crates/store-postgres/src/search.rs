//! The text index behind `search_sessions` and `recap`: one `texts` row per goal, notes,
//! checkpoint or decision, written in the same transaction as its event, with a stemmed
//! `tsvector` column under a GIN index, and its lexemes in `text_words` keyed by (lexeme, text),
//! so a word's newest matches are one backward range read. Search follows the SQLite store's
//! tiers: each word reads at most its newest matches, texts rank by the summed rarity of the
//! words they hold, newer first among equals, one hit per session.

use std::collections::{HashMap, HashSet};

use deadpool_postgres::GenericClient;

use switchyard_core::id::{NodeId, SessionId};
use switchyard_core::workflow::StepId;
use switchyard_store::search::{IndexedText, Ranking, SEARCH_WINDOW, indexed_text, query_words, word_window};
use switchyard_store::{
    Error, MAX_RECAP_NODES, MAX_SEARCH_HITS, RecapEntry, RecapKind, SearchHit, SearchQuery, StoredEvent,
};

use crate::pg_error::Context;
use crate::rows::{self, decoder, sql_int};

/// Adds one event's text to the index; `step` is the step the text is about.
pub(crate) async fn insert_text<C: GenericClient>(
    client: &C,
    event: &StoredEvent,
    text: &IndexedText,
    step: &str,
) -> Result<(), Error> {
    rows::execute(
        client,
        "WITH text AS (
            INSERT INTO texts (session, node, step, seq, kind, body) VALUES ($1, $2, $3, $4, $5, $6)
            RETURNING id, words
        )
        INSERT INTO text_words (word, text) SELECT lexeme, text.id FROM text, unnest(tsvector_to_array(text.words)) AS lexeme",
        &[
            &event.session.to_string(),
            &text.node.map(|node| node.to_string()),
            &step,
            &sql_int(event.seq),
            &text.kind,
            &text.body,
        ],
        "indexing an event's text",
    )
    .await?;
    Ok(())
}

/// Empties the index and fills it again from every event (the nodes must be projected).
pub(crate) async fn reindex<C: GenericClient>(client: &C) -> Result<(), Error> {
    client.batch_execute("DELETE FROM text_words; DELETE FROM texts").await.doing("emptying the text index")?;
    let sql = "SELECT session, seq, body, hash FROM events
        WHERE kind IN ('session_created', 'advance_recorded', 'checkpoint_recorded', 'gate_decided', 'human_decided')
        ORDER BY session, seq";
    let events = rows::all(client, sql, &[], rows::decode_event, "reading events to index").await?;
    let mut steps: HashMap<NodeId, String> = HashMap::new();
    for event in &events {
        let Some(text) = indexed_text(event) else { continue };
        let step = match text.about {
            Some(about) => match steps.get(&about) {
                Some(step) => step.clone(),
                None => {
                    let step =
                        rows::node(client, about).await?.map(|node| node.step.as_str().to_owned()).unwrap_or_default();
                    steps.insert(about, step.clone());
                    step
                }
            },
            None => String::new(),
        };
        insert_text(client, event, &text, &step).await?;
    }
    Ok(())
}

/// How many ranked texts a search first looks up to find its sessions; each further chunk is four
/// times the last.
const FIRST_CHUNK: usize = 64;

/// Each one-lexeme word's newest matching texts, given the lexemes and the window, in one round
/// trip: per lexeme a backward range read of the `text_words` key, which stops after the window
/// whatever the word's frequency.
const NEWEST_OF_LEXEMES: &str = "SELECT lexeme.position, newest.text
    FROM unnest($1::text[]) WITH ORDINALITY AS lexeme (word, position)
    CROSS JOIN LATERAL (SELECT text FROM text_words WHERE word = lexeme.word ORDER BY text DESC LIMIT $2) AS newest";

/// A word's newest matching texts when the parser makes several lexemes of it (all of them, in
/// any order), through the GIN index.
const NEWEST_OF_PARTS: &str =
    "SELECT id FROM texts WHERE words @@ plainto_tsquery('switchyard_search', $1) ORDER BY id DESC LIMIT $2";

/// The statement reading the one-lexeme words' newest matches, for tests that check its plan.
#[doc(hidden)]
pub fn newest_of_lexemes_sql() -> &'static str {
    NEWEST_OF_LEXEMES
}

/// Sessions for the query's words, best first: any word matches (a whole word, stemmed); a text
/// ranks by the summed rarity of the query words it holds, newer first among equals, and a
/// session by its best text. Each word reads at most its newest matches
/// ([`switchyard_store::search::word_window`]), so a search costs the same at any size.
pub(crate) async fn search<C: GenericClient>(client: &C, query: &SearchQuery) -> Result<Vec<SearchHit>, Error> {
    let words = query_words(&query.text);
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let texts: i64 =
        client.query_one("SELECT coalesce(max(id), 0) FROM texts", &[]).await.doing("counting indexed texts")?.get(0);
    let window = word_window(words.len());
    let lexemes = client
        .query(
            "SELECT tsvector_to_array(to_tsvector('switchyard_search', word))
             FROM unnest($1::text[]) WITH ORDINALITY AS query (word, position) ORDER BY position",
            &[&words],
        )
        .await
        .doing("searching sessions")?;
    let lexemes: Vec<Vec<String>> = lexemes.iter().map(|row| row.get(0)).collect();
    let single: Vec<(usize, &str)> = lexemes
        .iter()
        .enumerate()
        .filter_map(|(index, lexemes)| match lexemes.as_slice() {
            [lexeme] => Some((index, lexeme.as_str())),
            _ => None,
        })
        .collect();
    let searched: Vec<&str> = single.iter().map(|(_, lexeme)| *lexeme).collect();
    let newest = client.prepare_cached(NEWEST_OF_LEXEMES).await.doing("searching sessions")?;
    let mut matches: Vec<Vec<i64>> = vec![Vec::new(); words.len()];
    for row in client.query(&newest, &[&searched, &i64::from(window)]).await.doing("searching sessions")? {
        let position: i64 = row.get(0);
        let word = usize::try_from(position - 1).ok().and_then(|index| single.get(index));
        if let Some((word, _)) = word {
            matches[*word].push(row.get(1));
        }
    }
    for (index, word) in words.iter().enumerate() {
        // A word the parser splits (`snake_case`) matches texts holding all its parts, which no
        // single lexeme's rows list: the GIN index finds them, with no bound on the work when
        // every part is common but their meeting is not (such words are rare in goals and notes).
        if lexemes[index].len() > 1 {
            let found = client.query(NEWEST_OF_PARTS, &[word, &i64::from(window)]).await.doing("searching sessions")?;
            matches[index] = found.iter().map(|row| row.get(0)).collect();
        }
    }
    let mut ranking = Ranking::new();
    for found in &mut matches {
        // Newest first, as the ranking reads them: the lateral join promises no order.
        found.sort_unstable_by(|a, b| b.cmp(a));
        ranking.add_word(found, window, texts);
    }

    let limit = query.limit.min(MAX_SEARCH_HITS) as usize;
    let ranked: Vec<(i64, f64, u32)> = ranking.ranked().into_iter().take(SEARCH_WINDOW).collect();
    let sessions = client
        .prepare_cached(
            "SELECT t.id, t.session, t.kind, s.workspace FROM texts t LEFT JOIN sessions s ON s.id = t.session WHERE t.id = ANY($1)",
        )
        .await
        .doing("searching sessions")?;
    // The ranked texts' sessions in growing chunks: a text per round trip cost more than the rest
    // of a search for a common word, whose best texts lie in few sessions, and all of them at
    // once (thousands of scattered rows) cost more than the rest of a search for a word spread
    // over many sessions, whose first few texts give every hit.
    let mut seen: HashSet<SessionId> = HashSet::new();
    let mut found: Vec<(i64, SearchHit, Vec<&str>)> = Vec::new();
    let mut chunk = FIRST_CHUNK;
    let mut rest = ranked.as_slice();
    while !rest.is_empty() && found.len() < limit {
        let (batch, after) = rest.split_at(chunk.min(rest.len()));
        rest = after;
        chunk *= 4;
        let ids: Vec<i64> = batch.iter().map(|(id, _, _)| *id).collect();
        let texts = client.query(&sessions, &[&ids]).await.doing("searching sessions")?;
        let rows: HashMap<i64, &tokio_postgres::Row> = texts.iter().map(|row| (row.get(0), row)).collect();
        for (id, score, held) in batch {
            let Some(row) = rows.get(id) else { continue };
            let decoder = decoder(row, "texts");
            let session: SessionId = decoder.parse(1, "session")?;
            if !seen.insert(session) {
                continue;
            }
            let matched = decoder.text(2, "kind")?;
            if let Some(workspace) = &query.workspace {
                let recorded = decoder.text_opt(3, "workspace")?;
                if recorded.as_ref() != Some(workspace) {
                    continue;
                }
            }
            let marked: Vec<&str> = ranking.marked(*held).iter().map(|index| words[*index].as_str()).collect();
            found.push((*id, SearchHit { session, score: *score, snippet: String::new(), matched }, marked));
            if found.len() >= limit {
                break;
            }
        }
    }

    // Every hit's snippet in one round trip, each marking its own words (joined by spaces: a
    // query word holds none).
    let ids: Vec<i64> = found.iter().map(|(id, _, _)| *id).collect();
    let marked: Vec<String> = found.iter().map(|(_, _, marked)| marked.join(" ")).collect();
    let snippets = client
        .prepare_cached(
            "SELECT hit.position, ts_headline('switchyard_search', t.body,
                (SELECT string_agg(plainto_tsquery('switchyard_search', word)::text, ' | ')::tsquery
                 FROM unnest(string_to_array(hit.marked, ' ')) AS word
                 WHERE numnode(plainto_tsquery('switchyard_search', word)) > 0),
                'StartSel=[, StopSel=], MaxWords=16, MinWords=6, ShortWord=0')
             FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS hit (id, marked, position)
             JOIN texts t ON t.id = hit.id",
        )
        .await
        .doing("searching sessions")?;
    let mut hits: Vec<SearchHit> = found.into_iter().map(|(_, hit, _)| hit).collect();
    for row in client.query(&snippets, &[&ids, &marked]).await.doing("searching sessions")? {
        let position: i64 = row.get(0);
        let hit = usize::try_from(position - 1).ok().and_then(|index| hits.get_mut(index));
        if let Some(hit) = hit {
            hit.snippet = row.get::<_, Option<String>>(1).unwrap_or_default();
        }
    }
    Ok(hits)
}

/// The texts recorded on `node` and its ancestors, oldest first, walking at most `max_nodes`.
pub(crate) async fn recap<C: GenericClient>(
    client: &C,
    node: NodeId,
    max_nodes: u32,
) -> Result<Vec<RecapEntry>, Error> {
    let max_nodes = i64::from(max_nodes.clamp(1, MAX_RECAP_NODES));
    let sql = "WITH RECURSIVE chain (id, parent, depth) AS (
            SELECT id, parent, 1::bigint FROM nodes WHERE id = $1
            UNION ALL
            SELECT n.id, n.parent, c.depth + 1 FROM nodes n JOIN chain c ON n.id = c.parent WHERE c.depth < $2
        )
        SELECT t.node, t.step, t.seq, t.kind, t.body
        FROM chain c JOIN texts t ON t.node = c.id
        ORDER BY t.seq";
    let found = rows::all(
        client,
        sql,
        &[&node.to_string(), &max_nodes],
        |row| {
            let decoder = decoder(row, "texts");
            let kind = decoder.text(3, "kind")?;
            let Some(kind) = RecapKind::from_name(&kind) else { return Ok(None) };
            let step = decoder.text(1, "step")?;
            Ok(Some(RecapEntry {
                node: decoder.parse(0, "node")?,
                step: StepId::new(&step),
                seq: decoder.count(2, "seq")?,
                kind,
                text: decoder.text(4, "body")?,
            }))
        },
        "reading a recap",
    )
    .await?;
    Ok(found.into_iter().flatten().collect())
}
