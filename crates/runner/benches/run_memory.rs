//! Benchmark: the peak memory of a `switchyard run` process driving a short workflow against the
//! fake model server, and of a longer one, read from `/proc/<pid>/status` (`VmHWM`, the
//! high-water mark of its resident memory) every millisecond while it runs.
//!
//! The binary is `target/release/switchyard` beside this bench (build it first:
//! `cargo build --release -p switchyard`), or `SWITCHYARD_BIN`. The workflow is the runner
//! benchmarks' loop (see `common`): 10 turns per pass, a `save_output`, `checkpoint`s,
//! `read_file`s and `complete_step`s; each answer of the server waits 2 ms, so the process is
//! read from its first turn to its last. The last reading comes at most a millisecond before the
//! run's last turn is recorded and the process exits.
//!
//! `RUN_MEMORY_REPEATS` (default 3) runs of each length; the report gives each run's peak, its
//! resident memory at the last reading, and how much of that was its own (anonymous) memory.

// A benchmark's report is its output.
#![allow(clippy::print_stdout)]

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use switchyard_test_support::fake_llm::FakeLlm;

use crate::common::{LOOP_WORKFLOW, TURNS_PER_STEP, load, reply_to};

/// The variable `--api-key-env` names.
const KEY_VARIABLE: &str = "SWITCHYARD_BENCH_KEY";

/// A field of `/proc/<pid>/status` or `smaps_rollup`, in KiB; `None` once the process is gone.
fn field(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix(name))
        .and_then(|value| value.split_whitespace().next())
        .and_then(|value| value.parse().ok())
}

struct Reading {
    peak_kib: u64,
    rss_kib: u64,
    anonymous_kib: u64,
    readings: usize,
}

/// Reads the process's memory until it exits; the last complete reading wins.
fn watch(pid: u32, child: &mut std::process::Child) -> Reading {
    let mut last = Reading { peak_kib: 0, rss_kib: 0, anonymous_kib: 0, readings: 0 };
    loop {
        if child.try_wait().expect("the run's status").is_some() {
            return last;
        }
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
        if let (Some(peak), Some(rss), Some(anonymous)) =
            (field(&status, "VmHWM:"), field(&rollup, "Rss:"), field(&rollup, "Anonymous:"))
        {
            last = Reading { peak_kib: peak, rss_kib: rss, anonymous_kib: anonymous, readings: last.readings + 1 };
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

fn run_once(binary: &Path, turns: usize) -> (Reading, Duration) {
    let home = tempfile::tempdir().expect("a home");
    let project = tempfile::tempdir().expect("a project");
    let workflow = project.path().join("loop.yaml");
    std::fs::write(&workflow, LOOP_WORKFLOW).expect("write the workflow");
    // The loop reads the same file several times a pass, and the long run passes the default
    // turn limit: neither stuck detection nor a turn limit here.
    std::fs::write(
        project.path().join("switchyard.toml"),
        "[runner]\nstuck_repeats = 1000000\nstuck_turns = 1000000\nmax_turns = 1000000\n",
    )
    .expect("write the config");
    let server = FakeLlm::start();
    server.forget_bodies();
    server.otherwise(move |request| reply_to(request, turns).delayed(Duration::from_millis(2)));

    let began = Instant::now();
    let mut child = Command::new(binary)
        .args(["--json", "run"])
        .arg(&workflow)
        .args(["--goal", "benchmark the runner's memory", "--model", "bench-model", "--base-url"])
        .arg(server.base_url())
        .args(["--api-key-env", KEY_VARIABLE])
        .env(KEY_VARIABLE, "sk-bench-0123456789")
        .env("SWITCHYARD_HOME", home.path())
        .env_remove("SWITCHYARD_STORE")
        .env("NO_COLOR", "1")
        .current_dir(project.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("switchyard run starts");
    let pid = child.id();
    let reading = watch(pid, &mut child);
    let elapsed = began.elapsed();
    let output = child.wait_with_output().expect("the run ends");
    assert!(
        output.status.success(),
        "switchyard run failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(server.requests().len(), turns, "one request per turn");
    (reading, elapsed)
}

fn main() {
    let binary = switchyard_test_support::switchyard_binary();
    let repeats: usize = std::env::var("RUN_MEMORY_REPEATS").ok().and_then(|value| value.parse().ok()).unwrap_or(3);
    println!("binary {}", binary.display());
    for turns in [5 * TURNS_PER_STEP, 50 * TURNS_PER_STEP] {
        for _ in 0..repeats {
            let load_before = load();
            let (reading, elapsed) = run_once(&binary, turns);
            println!(
                "run of {turns:>4} turns: peak (VmHWM) {:>6} KiB = {:.1} MB; at the last reading RSS {} KiB, anonymous {} KiB; {} readings over {:.2} s; load {load_before} -> {}",
                reading.peak_kib,
                reading.peak_kib as f64 * 1024.0 / 1e6,
                reading.rss_kib,
                reading.anonymous_kib,
                reading.readings,
                elapsed.as_secs_f64(),
                load()
            );
        }
    }
}
