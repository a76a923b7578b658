//! Benchmark binary for instruction counts: one writer starts a run of the loop workflow and
//! advances it a given number of times through the runtime API, on a real SQLite store file.
//!
//! It times nothing. `python3 crates/runtime/benches/instructions.py` runs it under callgrind
//! twice, with two advance counts, and divides the difference of the instruction totals by the
//! difference of the counts: the user-space instructions of one durable advance, start-up and the
//! run's start excluded, a figure the machine's noise cannot move.
//!
//! `cargo bench -p switchyard-runtime --bench advance_instructions` runs it once (100 advances),
//! so it stays built and working; `ADVANCES=N` (the environment) sets the count.
//!
//! With `WAL_COPY=DIR` it copies the store file and its write-ahead log into `DIR` after the
//! advances, before the store closes (closing checkpoints the log away), for
//! `python3 crates/runtime/benches/wal_pages.py DIR`, which counts the pages each commit wrote.

mod common;

fn main() {
    let advances: usize = std::env::var("ADVANCES").ok().and_then(|text| text.parse().ok()).unwrap_or(100);
    let tokio = common::tokio_runtime();
    let fixture = common::Fixture::new();
    tokio.block_on(async {
        let first = fixture.start("count instructions").await;
        common::advance_times(&fixture.runtime, common::continue_token(&first), advances).await;
    });
    if let Some(copy) = std::env::var_os("WAL_COPY") {
        let from = fixture.dir.as_ref().expect("a fresh fixture has a folder").path();
        std::fs::create_dir_all(&copy).expect("create the WAL_COPY folder");
        for name in ["switchyard.db", "switchyard.db-wal"] {
            std::fs::copy(from.join(name), std::path::Path::new(&copy).join(name)).expect("copy the store");
        }
    }
    common::report(&format!("advance_instructions: {advances} advances"));
}
