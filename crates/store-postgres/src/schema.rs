//! The Postgres schema as numbered migrations, applied on open under a database-wide lock, and
//! refused when the database holds a schema newer than this build.

use deadpool_postgres::Object;

use switchyard_store::Error;

use crate::pg_error::Context;

/// The schema version this build writes and reads: the number of migrations (`MIGRATIONS`).
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// The advisory lock key servers opening one database at once take, so one migrates and the
/// others find it done ("switchyard" in ASCII, truncated to 64 bits).
const MIGRATION_LOCK: i64 = 0x7377_6974_6368_7961;

/// Version 1: the log and its projections. Events are the truth; `sessions`, `runs` and `nodes`
/// are projections, rebuilt from the events. `heads` holds each session's last sequence number
/// and hash: an append locks its session's row, which serialises appends to one session across
/// every server while appends to other sessions go on. Identifiers and names sort byte-wise
/// (`COLLATE "C"`), as the contract's orders are defined.
const V1: &str = r#"
CREATE TABLE events (
    session TEXT COLLATE "C" NOT NULL,
    seq BIGINT NOT NULL,
    id TEXT COLLATE "C" NOT NULL CONSTRAINT events_id_unique UNIQUE,
    run TEXT COLLATE "C",
    kind TEXT NOT NULL,
    at_ms BIGINT NOT NULL,
    -- The canonical JSON of the envelope without its hash: exactly the hashed bytes.
    body TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    PRIMARY KEY (session, seq)
);
CREATE TABLE heads (
    session TEXT COLLATE "C" PRIMARY KEY,
    seq BIGINT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE sessions (
    id TEXT COLLATE "C" PRIMARY KEY,
    goal TEXT NOT NULL,
    title TEXT NOT NULL,
    workflow_id TEXT COLLATE "C",
    run TEXT COLLATE "C",
    status TEXT,
    workspace TEXT,
    git_branch TEXT,
    git_head TEXT,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL,
    last_seq BIGINT NOT NULL
);
CREATE INDEX sessions_by_update ON sessions (updated_at_ms DESC, id DESC);
CREATE INDEX sessions_by_status ON sessions (status, updated_at_ms DESC, id DESC);
CREATE INDEX sessions_by_workflow ON sessions (workflow_id, updated_at_ms DESC, id DESC);
CREATE INDEX sessions_by_workspace ON sessions (workspace);
CREATE INDEX sessions_by_branch ON sessions (git_branch);
CREATE INDEX sessions_by_head ON sessions (git_head);
CREATE TABLE runs (
    id TEXT COLLATE "C" PRIMARY KEY,
    session TEXT COLLATE "C" NOT NULL REFERENCES sessions (id),
    workflow_id TEXT NOT NULL,
    workflow_hash TEXT NOT NULL,
    source TEXT NOT NULL,
    control TEXT NOT NULL,
    tip TEXT COLLATE "C" NOT NULL,
    status TEXT NOT NULL,
    node_count BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL,
    updated_at_ms BIGINT NOT NULL
);
CREATE INDEX runs_by_session ON runs (session);
CREATE TABLE nodes (
    id TEXT COLLATE "C" PRIMARY KEY,
    run TEXT COLLATE "C" NOT NULL REFERENCES runs (id),
    session TEXT COLLATE "C" NOT NULL,
    parent TEXT COLLATE "C" REFERENCES nodes (id),
    kind TEXT NOT NULL,
    cause TEXT NOT NULL,
    step TEXT NOT NULL,
    status TEXT NOT NULL,
    state TEXT NOT NULL,
    child_count BIGINT NOT NULL,
    created_seq BIGINT NOT NULL,
    created_at_ms BIGINT NOT NULL
);
CREATE INDEX nodes_by_run ON nodes (run, created_seq);
CREATE INDEX nodes_by_parent ON nodes (parent);
CREATE TABLE claims (
    key TEXT COLLATE "C" CONSTRAINT claims_key PRIMARY KEY,
    session TEXT COLLATE "C" NOT NULL,
    payload_sha256 TEXT NOT NULL,
    outcome TEXT NOT NULL
);
-- `attempt` is '' when the token names no attempt, so the UNIQUE constraint covers that case.
CREATE TABLE tokens (
    nonce TEXT COLLATE "C" PRIMARY KEY,
    kind TEXT NOT NULL,
    session TEXT COLLATE "C" NOT NULL,
    run TEXT COLLATE "C" NOT NULL,
    node TEXT COLLATE "C" NOT NULL,
    attempt TEXT COLLATE "C" NOT NULL,
    UNIQUE (node, attempt, kind)
);
CREATE TABLE workflows (
    hash TEXT COLLATE "C" PRIMARY KEY,
    ir TEXT NOT NULL
);
"#;

/// Version 2: the text index behind resume search and recaps (see `search.rs`), filled from the
/// events already stored. Its own text search configuration stems English words (Snowball) but
/// drops no stop word, so every word of a text can be found, as in the SQLite store.
const V2: &str = r#"
CREATE TEXT SEARCH DICTIONARY switchyard_stem (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION switchyard_search (COPY = english);
ALTER TEXT SEARCH CONFIGURATION switchyard_search
    ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part WITH switchyard_stem;
CREATE TABLE texts (
    id BIGSERIAL PRIMARY KEY,
    session TEXT COLLATE "C" NOT NULL,
    -- The node the text belongs to on the run's graph; NULL for a session's title and goal.
    node TEXT COLLATE "C",
    -- The step the text is about (the step acted on); '' for a session's title and goal.
    step TEXT NOT NULL,
    seq BIGINT NOT NULL,
    kind TEXT NOT NULL,
    body TEXT NOT NULL,
    words TSVECTOR GENERATED ALWAYS AS (to_tsvector('switchyard_search', body)) STORED
);
CREATE INDEX texts_by_node ON texts (node, seq);
CREATE INDEX texts_by_words ON texts USING GIN (words);
"#;

/// Indexes added since their table's version, created when missing: builds that predate them
/// read and write such a database as before, so adding one needs no new version (which older
/// servers sharing the database would refuse). A session's tokens, which a store copy reads.
const ADDED_INDEXES: &str = "
CREATE INDEX IF NOT EXISTS tokens_by_session ON tokens (session);
";

/// Version 3: each text's lexemes as B-tree rows keyed by (lexeme, text), so a search reads a
/// word's newest matches in id order and stops after its window, whatever the word's frequency
/// (see `search.rs`). The GIN index yields a word's matches in no useful order: for a word in a
/// few percent of texts, Postgres walked tens of thousands of other texts backwards, or fetched
/// every match and sorted them. Filled from the texts already indexed; the key is added after the
/// fill, which sorts once instead of inserting into the B-tree row by row.
const V3: &str = r#"
CREATE TABLE text_words (
    word TEXT COLLATE "C" NOT NULL,
    text BIGINT NOT NULL
);
INSERT INTO text_words (word, text) SELECT lexeme, id FROM texts, unnest(tsvector_to_array(words)) AS lexeme;
ALTER TABLE text_words ADD PRIMARY KEY (word, text);
"#;

/// Version 4: a claim is keyed by its session, then its key, as in the SQLite store: a claim
/// belongs to the session of the command it answers, which every lookup names, and a store copy
/// reads a session's claims by the key's first column, so the index by session goes. Each claimed
/// append writes one index entry instead of two.
///
/// A server of version 3 still running against the database reads a claim by its key alone,
/// which this key does not serve: its lookups scan the table until it is upgraded.
const V4: &str = "
DROP INDEX IF EXISTS claims_by_session;
ALTER TABLE claims DROP CONSTRAINT claims_key;
ALTER TABLE claims ADD CONSTRAINT claims_key PRIMARY KEY (session, key);
";

/// Every migration in order: `MIGRATIONS[i]` takes a database from version `i` to `i + 1`.
const MIGRATIONS: [&str; 4] = [V1, V2, V3, V4];

/// Brings the database to [`SCHEMA_VERSION`] in one transaction: creates the version table,
/// applies the migrations it lacks (filling the text index when it is new), or refuses a newer
/// schema with `STORE_SCHEMA_TOO_NEW`.
pub(crate) async fn migrate(client: &mut Object) -> Result<(), Error> {
    let transaction = client.transaction().await.doing("starting the schema transaction")?;
    transaction
        .execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .doing("waiting for other servers opening the store")?;
    transaction
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS switchyard_schema (
                singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
                version BIGINT NOT NULL
            )",
        )
        .await
        .doing("creating the schema version table")?;
    let found: Option<i64> = transaction
        .query_opt("SELECT version FROM switchyard_schema WHERE singleton = 1", &[])
        .await
        .doing("reading the schema version")?
        .map(|row| row.get(0));
    let found = found.unwrap_or(0);
    if found > SCHEMA_VERSION {
        return Err(Error::SchemaTooNew { found, supported: SCHEMA_VERSION });
    }
    if found < 0 {
        return Err(Error::Corrupt {
            message: format!("the database records schema version {found}, which never existed"),
        });
    }
    for (index, migration) in MIGRATIONS.iter().enumerate().skip(found as usize) {
        let version = index as i64 + 1;
        transaction.batch_execute(migration).await.doing(&format!("migrating the schema to version {version}"))?;
        tracing::info!(version, "the Postgres store's schema was migrated");
    }
    if found < 2 {
        crate::search::reindex(&transaction).await?;
    }
    transaction.batch_execute(ADDED_INDEXES).await.doing("creating the indexes a store copy reads")?;
    if found < SCHEMA_VERSION {
        transaction
            .execute(
                "INSERT INTO switchyard_schema (singleton, version) VALUES (1, $1)
                 ON CONFLICT (singleton) DO UPDATE SET version = excluded.version",
                &[&SCHEMA_VERSION],
            )
            .await
            .doing("recording the schema version")?;
    }
    transaction.commit().await.doing("committing the schema")?;
    Ok(())
}

/// The `CREATE TABLE` statements of version 1 alone, for tests that make a store as the first
/// release did.
#[doc(hidden)]
pub fn schema_v1() -> &'static str {
    V1
}
