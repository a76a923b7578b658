//! Benchmark: the cost of one fsync on the file system the benchmark stores live on
//! (`target/tmp`), so durable advances can be read as a multiple of it.
//!
//! `overwrite_4k+sync_data` (pwrite 4 KiB at offset 0, then fdatasync) is the reference "one
//! fsync" of BENCHMARKS.md; `sync_all` adds the metadata flush, `append` grows the file each time.

mod common;

use std::fs::{File, OpenOptions};
use std::hint::black_box;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};

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

criterion_group!(benches, fsync);
criterion_main!(benches);
