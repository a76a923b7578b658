#!/usr/bin/env python3
"""Pages per commit of an advance under candidate schemas, on a model of the writer.

Usage:
  WAL_COPY=DIR ADVANCES=100 target/release/deps/advance_instructions-<hash>
  python3 crates/runtime/benches/schema_model.py DIR

The bench binary leaves a store of one run advanced ADVANCES times in DIR (see
`advance_instructions.rs`). This script takes that store's rows as they are (the events with their
bodies and hashes, the nodes with their states, the claims, the tokens, the session and run rows)
and writes them again, advance by advance, into a fresh file of each schema below: per advance one
transaction with the rows the writer changes (two events, the session and run rows updated, the
new node inserted and its parent's child count updated, the claim, the node's tokens), in the
writer's order. It counts the frames each commit adds to the write-ahead log over the last 40
commits, as `wal_pages.py` does for the real writer; the model of the current schema should land
within a page of what `wal_pages.py` reads from DIR itself.

The first candidates change the schema read from `crates/store-sqlite/src/schema.rs`,
cumulatively, so the table says what each change would save on top of those above it. The last
ones each change the current schema alone:
- ids, nonces, hashes and claim keys stored as bytes instead of text (an id's 26 base32 characters
  and its prefix as its 16 bytes, a nonce's or a hash's hex as its bytes; the events' bodies, which
  are the hashed JSON, as they are);
- a commit that writes only the log (the two events and the claim), as a store that wrote its
  projections after the commit and rebuilt them from the events after a crash would.
The model writes with `synchronous=OFF` and never checkpoints: it counts pages, it does not time
them.
"""

import base64
import collections
import os
import re
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wal_pages  # noqa: E402

SCHEMA_RS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../store-sqlite/src/schema.rs")
LAST = 40


def current_schema():
    with open(SCHEMA_RS) as file:
        text = file.read()

    def constant(name):
        return re.search(r'const %s: &str = "(.*?)";' % name, text, re.S).group(1)

    return constant("SCHEMA_V1") + constant("SCHEMA_V2") + constant("SCHEMA_V3") + constant("INDEX_CHANGES")


def edit(schema, old, new):
    if old not in schema:
        sys.exit("the schema no longer holds %r: update the candidate" % old)
    return schema.replace(old, new)


def candidates(schema):
    """(name, schema, token columns, how values are stored, what a commit writes) for each change:
    cumulative ones first, then ones on the current schema alone."""
    current = schema
    found = [("the current schema", schema, "all")]
    schema = edit(schema, "id TEXT NOT NULL UNIQUE,", "id TEXT NOT NULL,")
    found.append(("+ events without the UNIQUE index on their id", schema, "all"))
    schema = edit(schema, "    session TEXT NOT NULL,\n    run TEXT NOT NULL,\n    node TEXT NOT NULL,\n    attempt",
                  "    node TEXT NOT NULL,\n    attempt")
    found.append(("+ tokens without their session and run (read through the node)", schema, "narrow"))
    # A bound, not a schema: the three tokens of a node would share one row (and one nonce's
    # worth of key), which the token format does not allow today.
    found.append(("+ one token row per node instead of three (a bound)", schema, "one"))
    found = [candidate + ("text", "everything") for candidate in found]
    found.append(("alone: ids, nonces, hashes and claim keys as bytes", current, "all", "bytes", "everything"))
    found.append(("alone: a commit writes only the log (events and claim)", current, "all", "text", "log"))
    return found


ID = re.compile(r"(?:sess|run|node|attempt|evt)_([a-z2-7]{26})")
HEX = re.compile(r"(?:[0-9a-f]{24}|[0-9a-f]{64})")


def as_bytes(value):
    """A row's value stored compactly: ids, nonces and hashes as their bytes, a claim key as its
    kind and ids' bytes; anything else (JSON, names, numbers) as it is."""
    if not isinstance(value, str):
        return value
    if ID.fullmatch(value):
        return base64.b32decode(ID.fullmatch(value).group(1).upper() + "======")
    if HEX.fullmatch(value):
        return bytes.fromhex(value)
    if value.startswith("advance:"):
        return b"a" + b"".join(as_bytes(part) for part in value.split(":")[1:])
    return value


class Rows:
    """The rows of the bench's store, one advance at a time."""

    def __init__(self, folder):
        with tempfile.TemporaryDirectory() as scratch:
            source = copy_store(folder, scratch)
            database = sqlite3.connect(source)
            self.events = database.execute(
                "SELECT session, seq, id, run, kind, at_ms, body, prev_hash, hash FROM events ORDER BY seq").fetchall()
            self.nodes = database.execute("SELECT * FROM nodes ORDER BY created_seq").fetchall()
            self.session = database.execute("SELECT * FROM sessions").fetchone()
            self.run = database.execute("SELECT * FROM runs").fetchone()
            self.tokens = collections.defaultdict(list)
            for token in database.execute("SELECT * FROM tokens ORDER BY nonce"):
                self.tokens[token[4]].append(token)
            # A claim's key is `advance:<node>:<attempt>`, the node advanced from.
            self.claims = {row[0].split(":")[1]: row for row in database.execute("SELECT * FROM claims")}
            database.close()
        if len(self.nodes) < LAST + 2:
            sys.exit("the store holds %d nodes; run the bench with more ADVANCES" % len(self.nodes))


def copy_store(folder, scratch):
    for name in ("switchyard.db", "switchyard.db-wal"):
        shutil.copy(os.path.join(folder, name), os.path.join(scratch, name))
    return os.path.join(scratch, "switchyard.db")


class Compact:
    """A connection whose statements store their values as bytes (see `as_bytes`)."""

    def __init__(self, database):
        self.database = database

    def execute(self, statement, values=()):
        return self.database.execute(statement, tuple(map(as_bytes, values)))


def pages_per_commit(rows, schema, tokens, values, writes, scratch):
    path = os.path.join(scratch, "model-%d.db" % len(os.listdir(scratch)))
    connection = sqlite3.connect(path, isolation_level=None)
    database = Compact(connection) if values == "bytes" else connection
    database.execute("PRAGMA journal_mode = WAL")
    database.execute("PRAGMA wal_autocheckpoint = 0")
    database.execute("PRAGMA synchronous = OFF")
    connection.executescript(schema)
    insert_event = "INSERT INTO events (session, seq, id, run, kind, at_ms, body, prev_hash, hash) VALUES (%s)" % (
        ", ".join("?" * 9))
    database.execute("BEGIN IMMEDIATE")
    database.execute("INSERT INTO sessions VALUES (%s)" % ", ".join("?" * 12), rows.session)
    database.execute("INSERT INTO runs VALUES (%s)" % ", ".join("?" * 11), rows.run)
    database.execute("INSERT INTO nodes VALUES (%s)" % ", ".join("?" * 12), rows.nodes[0])
    for event in rows.events[:3]:
        database.execute(insert_event, event)
    database.execute("COMMIT")
    # A start writes three events (the session, the run, the first node); an advance two.
    events = iter(rows.events[3:])
    for index in range(1, len(rows.nodes)):
        node, parent = rows.nodes[index], rows.nodes[index - 1]
        database.execute("BEGIN IMMEDIATE")
        last = None
        for _ in range(2):
            last = next(events)
            database.execute(insert_event, last)
        if writes == "log":
            database.execute("INSERT INTO claims VALUES (?, ?, ?, ?)", rows.claims[parent[0]])
            database.execute("COMMIT")
            continue
        database.execute("UPDATE sessions SET updated_at_ms = ?, last_seq = ? WHERE id = ?",
                         (last[5], last[1], rows.session[0]))
        database.execute("UPDATE runs SET tip = ?, node_count = ?, updated_at_ms = ? WHERE id = ?",
                         (node[0], index + 1, last[5], rows.run[0]))
        database.execute("INSERT INTO nodes VALUES (%s)" % ", ".join("?" * 12), node)
        database.execute("UPDATE nodes SET child_count = child_count + 1 WHERE id = ?", (parent[0],))
        database.execute("INSERT INTO claims VALUES (?, ?, ?, ?)", rows.claims[parent[0]])
        held = rows.tokens[node[0]]
        for token in held[:1] if tokens == "one" else held:
            if tokens == "all":
                database.execute("INSERT INTO tokens VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING", token)
            else:
                database.execute("INSERT INTO tokens (nonce, kind, node, attempt) VALUES (?, ?, ?, ?) "
                                 "ON CONFLICT DO NOTHING", (token[0], token[1], token[4], token[5]))
        database.execute("COMMIT")
    found = wal_pages.commits(path + "-wal")[-LAST:]
    connection.close()
    return sum(map(len, found)) / len(found)


def main():
    folder = sys.argv[1]
    rows = Rows(folder)
    measured = wal_pages.commits(os.path.join(folder, "switchyard.db-wal"))[-LAST:]
    if measured:
        print("%5.2f  the writer itself, read from %s (last %d commits in its log)" % (
            sum(map(len, measured)) / len(measured), folder, len(measured)))
    with tempfile.TemporaryDirectory() as scratch:
        for name, schema, tokens, values, writes in candidates(current_schema()):
            print("%5.2f  %s" % (pages_per_commit(rows, schema, tokens, values, writes, scratch), name))


if __name__ == "__main__":
    main()
