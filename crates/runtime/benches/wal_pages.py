#!/usr/bin/env python3
"""Pages written per commit, by table or index, read from a copied SQLite write-ahead log.

Usage:
  WAL_COPY=DIR ADVANCES=30 target/release/deps/advance_instructions-<hash>
  python3 crates/runtime/benches/wal_pages.py DIR [LAST]

The bench binary copies its store file and write-ahead log into DIR before it closes the store.
This script walks the log's frames (each frame is one page image; a frame whose header records a
database size ends a commit), keeps the LAST commits (default 20: the steady advances, the run's
start left out), and names the b-tree each page belongs to through SQLite's `dbstat` table on a
copy of the store. Every page is a frame the writer checksums, writes and later syncs and copies
back, so pages per commit is the disk-side cost of an advance, as quiet a figure as an
instruction count.
"""

import collections
import os
import shutil
import sqlite3
import struct
import sys
import tempfile


def commits(wal_path):
    with open(wal_path, "rb") as file:
        data = file.read()
    _magic, _version, page_size, _checkpoint, salt1, salt2, _c1, _c2 = struct.unpack(">8I", data[:32])
    frame_size = 24 + page_size
    found, pending = [], []
    offset = 32
    while offset + frame_size <= len(data):
        page, size_after, frame_salt1, frame_salt2 = struct.unpack(">4I", data[offset:offset + 16])
        if (frame_salt1, frame_salt2) != (salt1, salt2):
            break
        pending.append(page)
        if size_after:
            found.append(pending)
            pending = []
        offset += frame_size
    return found


def owners(folder):
    with tempfile.TemporaryDirectory() as scratch:
        for name in ("switchyard.db", "switchyard.db-wal"):
            shutil.copy(os.path.join(folder, name), os.path.join(scratch, name))
        connection = sqlite3.connect(os.path.join(scratch, "switchyard.db"))
        rows = connection.execute("SELECT pageno, name, pagetype FROM dbstat").fetchall()
        connection.close()
    return {page: (name, kind) for page, name, kind in rows}


def main():
    folder = sys.argv[1]
    last = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    found = commits(os.path.join(folder, "switchyard.db-wal"))[-last:]
    if not found:
        sys.exit("no commits in the write-ahead log")
    by_page = owners(folder)
    totals = collections.Counter()
    for pages in found:
        for page in pages:
            name, kind = by_page.get(page, ("(free or header)", ""))
            totals[name if page != 1 else "page 1 (header)"] += 1
            totals["  of which " + kind] += 1 if kind in ("overflow", "internal") else 0
    print("%d commits, %.2f pages per commit" % (len(found), sum(map(len, found)) / len(found)))
    for name, count in sorted(totals.items(), key=lambda item: -item[1]):
        if count:
            print("%7.2f  %s" % (count / len(found), name))


if __name__ == "__main__":
    main()
