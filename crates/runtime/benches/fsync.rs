//! Benchmark: the cost of one fsync on the file system the benchmark stores live on
//! (`target/tmp`), so durable advances can be read as a multiple of it.
//!
//! `overwrite_4k+sync_data` (pwrite 4 KiB at offset 0, then fdatasync) is the reference "one
//! fsync" of BENCHMARKS.md ("Advance (in process and over MCP)"); `sync_all` adds the metadata
//! flush, `append` grows the file each time.
//!
//! `sqlite_commit/…` are the smallest durable SQLite commits in the store's settings (WAL,
//! `synchronous=FULL`, 4 KiB pages) on the same file system: the floor under any advance SQLite
//! commits, whatever the advance does. `pages/N` updates one row on each of N leaf pages in one
//! transaction; 17 is about what a steady advance's commit writes (`wal_pages.py`). Every commit
//! is timed alone, and their median is printed beside criterion's mean, to be read against
//! `durable_advance`'s single-advance p50; every 50 commits the log is checkpointed outside the
//! time, so it starts over and its blocks are overwritten, as the store's are.

mod common;

use std::fs::{File, OpenOptions};
use std::hint::black_box;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rusqlite::Connection;

fn open_probe(dir: &tempfile::TempDir, name: &str) -> File {
    let path = dir.path().join(name);
    let mut file =
        OpenOptions::new().create(true).truncate(true).read(true).write(true).open(path).expect("open the probe");
    file.write_all(&[0u8; 4096]).expect("write the probe");
    file.sync_all().expect("sync the probe");
    file
}

fn fsync(c: &mut Criterion) {
    let dir = common::bench_dir();
    common::report(&format!("probe folder: {}", dir.path().display()));
    let page = [0x5au8; 4096];
    let mut group = c.benchmark_group("fsync");
    group.sample_size(50).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));

    let file = open_probe(&dir, "overwrite-data");
    group.bench_function("overwrite_4k+sync_data", |b| {
        b.iter(|| {
            file.write_all_at(black_box(&page), 0).expect("write");
            file.sync_data().expect("sync_data");
        });
    });

    let file = open_probe(&dir, "overwrite-all");
    group.bench_function("overwrite_4k+sync_all", |b| {
        b.iter(|| {
            file.write_all_at(black_box(&page), 0).expect("write");
            file.sync_all().expect("sync_all");
        });
    });

    let mut file = open_probe(&dir, "append-data");
    group.bench_function("append_4k+sync_data", |b| {
        b.iter(|| {
            file.write_all(black_box(&page)).expect("write");
            file.sync_data().expect("sync_data");
        });
    });
    group.finish();
}

/// A store-like SQLite file (WAL, `synchronous=FULL`, 4 KiB pages, no automatic checkpoint: the
/// sample loop checkpoints) with `pages` rows of 3,000 bytes, each of which fills a leaf page on
/// its own.
fn open_sqlite(dir: &tempfile::TempDir, pages: usize) -> Connection {
    let path = dir.path().join(format!("{pages}-pages.db"));
    let connection = Connection::open(path).expect("open the SQLite probe");
    connection
        .execute_batch(
            "PRAGMA page_size = 4096; PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;
             PRAGMA wal_autocheckpoint = 0;
             CREATE TABLE probe (id INTEGER PRIMARY KEY, counter INTEGER NOT NULL, filler BLOB NOT NULL);",
        )
        .expect("set up the SQLite probe");
    for _ in 0..pages {
        connection.execute("INSERT INTO probe (counter, filler) VALUES (0, zeroblob(3000))", []).expect("fill");
    }
    connection
}

fn sqlite_commits(c: &mut Criterion) {
    let dir = common::bench_dir();
    let mut group = c.benchmark_group("sqlite_commit");
    group.sample_size(50).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_secs(1));
    for pages in [1, 4, 8, 17] {
        let connection = open_sqlite(&dir, pages);
        let mut statement =
            connection.prepare("UPDATE probe SET counter = counter + 1").expect("prepare the probe's statement");
        let mut latencies = Vec::new();
        group.bench_function(BenchmarkId::new("pages", pages), |b| {
            b.iter_custom(|commits| {
                let mut spent = Duration::ZERO;
                for commit in 0..commits {
                    if commit % 50 == 0 {
                        connection.execute_batch("PRAGMA wal_checkpoint(PASSIVE)").expect("checkpoint");
                    }
                    let started = Instant::now();
                    statement.execute([]).expect("commit");
                    let elapsed = started.elapsed();
                    latencies.push(elapsed);
                    spent += elapsed;
                }
                spent
            });
        });
        if let Some((p50, p90, p99)) = common::percentiles(&mut latencies) {
            common::report(&format!("sqlite_commit/pages/{pages}: one commit p50 {p50:?}, p90 {p90:?}, p99 {p99:?}"));
        }
    }
    group.finish();
}

criterion_group!(benches, fsync, sqlite_commits);
criterion_main!(benches);
