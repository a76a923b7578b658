//! The MCP load driver: measures the real `switchyard` binary over fresh processes.
//!
//! - stdio cold start: spawn → `initialize` answered → `tools/list` answered;
//! - the latency of each tool over stdio;
//! - `continue_workflow` on a fresh run and on a run with 1,000 steps behind it, and the server's
//!   CPU time per advance over that run (`/proc/<pid>/stat`);
//! - the first `continue_workflow` in a fresh server process (runs started by another process),
//!   against the steady state: called as soon as `tools/list` is answered, and called a second
//!   after it, as a client's first tool call comes after its model's first turn (each server is
//!   ended as an MCP client ends it, by closing its input, so the next finds the store a client's
//!   restart leaves); beside it, a warm server's advances a second apart, and a memory walk
//!   back to back and after a pause, which show what a pause costs on this machine whatever runs;
//! - HTTP throughput with 1, 8 and 32 clients advancing distinct runs, each client keeping its
//!   connection and MCP session as real clients do, and a labelled row of 32 clients that open a
//!   connection for every request (still in one session); with `MCP_LOAD_POSTGRES=postgres://…`
//!   (a database to fill and throw away), the same rows on that PostgreSQL database with one
//!   server and with three servers sharing it, beside SQLite's;
//! - memory at rest (RSS) of `switchyard mcp` and `switchyard serve`, and of `switchyard mcp`
//!   after 10,000 advances, each running a copy of the binary written just before (`fresh_copy`);
//! - one fsync on the file system the stores live on, before and after the stdio rows, so the
//!   closing table can judge each SPEC target against this run's own disk;
//! - `continue_workflow` at an agent's pace (fresh runs, 20 ms apart), beside one fsync probed at
//!   that pace;
//! - side by side, by one method for both servers: cold start and the first advance of fresh runs
//!   of `bench-steps.json` (WorkRail's format), for switchyard and, when it is installed in
//!   `target/test-tools/workrail/`, for WorkRail (`@exaudeus/workrail` from npm), with its memory.
//!
//! Run: `cargo build --release -p switchyard && cargo bench -p switchyard-mcp --bench mcp_load`.
//! `SWITCHYARD_BIN` overrides the binary; `MCP_LOAD_QUICK=1` runs fewer iterations;
//! `MCP_LOAD_HTTP_ONLY=1` runs only the HTTP throughput rows; `MCP_LOAD_FIRST_ONLY=1` only the
//! first call in a fresh process and the steady advance it is judged against.
//! Postgres for a local run: `export MCP_LOAD_POSTGRES="$(bash .ci/postgres | sed 's#/postgres$#/mcp_load#')"`
//! after `createdb mcp_load` (the role of `.ci/postgres` may create databases).

// A benchmark's report is its output.
#![allow(clippy::print_stdout)]
// Request builders take their JSON by value so call sites can write `json!` inline.
#![allow(clippy::needless_pass_by_value)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, header};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// The one-step loop every run of the driver walks (also `instructions.py`'s).
const BENCH_WORKFLOW: &str = include_str!("bench-loop.yaml");

/// Three plain steps in WorkRail's own format, which both servers run for the side-by-side rows.
const SIDE_BY_SIDE_WORKFLOW: &str = include_str!("bench-steps.json");

/// The row of `stdio_tools` the SPEC's latency target is about.
const ADVANCE: &str = "continue_workflow (advance)";

fn quick() -> bool {
    std::env::var_os("MCP_LOAD_QUICK").is_some()
}

struct Stats {
    samples: Vec<Duration>,
}

impl Stats {
    fn new(mut samples: Vec<Duration>) -> Self {
        samples.sort();
        Self { samples }
    }
    fn at(&self, quantile: f64) -> Duration {
        let index = ((self.samples.len() as f64 - 1.0) * quantile).round() as usize;
        self.samples[index.min(self.samples.len() - 1)]
    }
    fn line(&self, what: &str) -> String {
        format!(
            "| {what} | {} | {:.3} ms | {:.3} ms | {:.3} ms |",
            self.samples.len(),
            self.at(0.5).as_secs_f64() * 1e3,
            self.at(0.95).as_secs_f64() * 1e3,
            self.at(0.0).as_secs_f64() * 1e3
        )
    }
}

/// A stdio MCP client over a child process, matching answers by id.
struct Stdio2 {
    child: Child,
    /// `None` once closed, which tells the server to shut down.
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Stdio2 {
    fn spawn(mut command: Command) -> Self {
        let mut child =
            command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().expect("spawn");
        let input = child.stdin.take();
        let output = BufReader::new(child.stdout.take().unwrap());
        Self { child, input, output, next_id: 0 }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let frame = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        let input = self.input.as_mut().expect("the server's input is open until the client drops");
        writeln!(input, "{frame}").unwrap();
        input.flush().unwrap();
        loop {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "the server closed stdout while {method} was pending"
            );
            let Ok(answer) = serde_json::from_str::<Value>(&line) else { continue };
            if answer["id"] == json!(id) {
                return answer;
            }
        }
    }

    fn notify(&mut self, method: &str) {
        let input = self.input.as_mut().expect("the server's input is open until the client drops");
        writeln!(input, "{}", json!({ "jsonrpc": "2.0", "method": method })).unwrap();
    }

    fn initialize(&mut self) -> Value {
        let answer = self.request(
            "initialize",
            json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "mcp-load", "version": "1" } }),
        );
        self.notify("notifications/initialized");
        answer
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({ "name": tool, "arguments": arguments }));
        let result = &answer["result"];
        assert!(result["isError"] != json!(true) && answer.get("error").is_none(), "{tool} failed: {answer}");
        result["structuredContent"].clone()
    }

    fn memory(&self) -> Memory {
        memory(self.child.id())
    }
}

/// How long a dropped client waits for its server to exit before it kills it.
const SHUTDOWN: Duration = Duration::from_secs(2);

impl Drop for Stdio2 {
    /// Ends the server as an MCP client does (the specification's stdio shutdown): closes its
    /// input, waits for it to exit, and kills it only if it has not within [`SHUTDOWN`]. A server
    /// that exits so closes its store, as after a client's restart, so the next server finds the
    /// store a real client would leave it (killed, a server would leave its write-ahead log).
    fn drop(&mut self) {
        drop(self.input.take());
        let deadline = Instant::now() + SHUTDOWN;
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Ok(Some(_)) | Err(_) => return,
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The process's resident memory, and how much of it is its own (anonymous) rather than pages of
/// the executable and libraries, which the page cache shares and which vary with how much of the
/// binary the cache holds (the same binary measured 20.9 and 23.0 MiB, with 3.9 MiB anonymous in
/// both: BENCHMARKS.md, "Memory at rest and cold start").
fn memory(pid: u32) -> Memory {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).unwrap_or_default();
    let field = |name: &str| -> u64 {
        rollup
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|value| value.split_whitespace().next())
            .and_then(|value| value.parse().ok())
            .unwrap_or(0)
    };
    Memory { rss_kib: field("Rss:"), anonymous_kib: field("Anonymous:") }
}

/// A home whose commands run a copy of the binary written just now, for the memory rows.
///
/// The kernel maps the pages around each page of code a process first runs, as many as the page
/// cache holds there, and a file just written sits in the cache in large blocks. A binary whose
/// pages were dropped and read back since sits in smaller ones, and the same process then holds
/// less of it: a build copied again measured 0.6–0.9 MB more at rest than the same build an hour
/// after its copy, and reading it whole did not bring that back
/// (BENCHMARKS.md, "Memory at rest and cold start"). A fresh copy measures every build in the
/// state that holds the most, as just installed, so two builds compare on their code, not their
/// history.
fn fresh_copy() -> Home {
    let mut home = Home::new();
    let copy = home.home.path().join("switchyard");
    std::fs::copy(switchyard_test_support::switchyard_binary(), &copy).expect("the binary copies");
    home.binary = Some(copy);
    home
}

/// A process's resident memory, from `/proc/<pid>/smaps_rollup`.
struct Memory {
    rss_kib: u64,
    anonymous_kib: u64,
}

impl Memory {
    /// Resident memory in megabytes (10^6 bytes), the unit of the SPEC's target.
    fn megabytes(&self) -> f64 {
        self.rss_kib as f64 * 1024.0 / 1e6
    }
}

impl std::fmt::Display for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RSS {} KiB, of which anonymous {} KiB", self.rss_kib, self.anonymous_kib)
    }
}

/// One fsync as BENCHMARKS.md defines it ("Advance (in process and over MCP)": pwrite 4 KiB at
/// offset 0, then fdatasync), `samples` times, on a file in `dir`, `pause` apart.
fn fsync_probe(dir: &Path, samples: usize, pause: Duration) -> Vec<Duration> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(dir.join("fsync-probe"))
        .unwrap();
    let page = [0x5au8; 4096];
    file.write_all_at(&page, 0).unwrap();
    file.sync_all().unwrap();
    (0..samples)
        .map(|_| {
            std::thread::sleep(pause);
            let started = Instant::now();
            file.write_all_at(&page, 0).unwrap();
            file.sync_data().unwrap();
            started.elapsed()
        })
        .collect()
}

/// The machine's own cost of a pause, beside the fsync probe: one read of every 64-byte line of a
/// `MEMORY_WALK` buffer (in a scattered order, so no prefetcher hides it), `samples` times, `pause`
/// apart. No file and no server is involved, so what a pause adds here the machine adds to every
/// request that comes after one: on the virtual machine of BENCHMARKS.md, a walk 20 ms apart
/// took three to four times as long as back to back, the host's other guests running in the gap
/// (BENCHMARKS.md, "Advance (in process and over MCP)").
fn memory_walk_probe(samples: usize, pause: Duration) -> Vec<Duration> {
    const LINE: usize = 64;
    let buffer = vec![1u8; MEMORY_WALK];
    let lines = MEMORY_WALK / LINE;
    // A stride coprime with the number of lines visits each line once.
    let stride = 7919;
    (0..samples)
        .map(|_| {
            std::thread::sleep(pause);
            let started = Instant::now();
            let sum = (0..lines).fold(0u64, |sum, index| sum + u64::from(buffer[(index * stride % lines) * LINE]));
            std::hint::black_box(sum);
            started.elapsed()
        })
        .collect()
}

/// The buffer of [`memory_walk_probe`]: of the order of what an advance touches, code included: a
/// fresh server's first call maps some 5 MB of the binary
/// (BENCHMARKS.md, "Memory at rest and cold start").
const MEMORY_WALK: usize = 4 << 20;

/// The memory walk probed back to back, `PAUSE` apart and `SETTLE` apart, printed.
fn memory_walk_rows(samples: usize) {
    let apart = PAUSE.as_millis();
    for (pause, what) in [
        (Duration::ZERO, "back to back".to_owned()),
        (PAUSE, format!("{apart} ms apart")),
        (SETTLE, format!("{} s apart", SETTLE.as_secs())),
    ] {
        let walks = Stats::new(memory_walk_probe(samples, pause));
        println!("{}", walks.line(&format!("the machine: a {} MiB memory walk, {what}", MEMORY_WALK >> 20)));
    }
}

struct Home {
    home: tempfile::TempDir,
    workspace: tempfile::TempDir,
    /// A `postgres://` store every command of this home opens, instead of the home's SQLite file.
    store: Option<String>,
    /// The binary its commands run, when not the one under test itself (see [`fresh_copy`]).
    binary: Option<PathBuf>,
}

impl Home {
    fn new() -> Self {
        let home = Self {
            home: tempfile::tempdir().unwrap(),
            workspace: tempfile::tempdir().unwrap(),
            store: None,
            binary: None,
        };
        let folder = home.workspace.path().join(".switchyard/workflows");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("bench-loop.yaml"), BENCH_WORKFLOW).unwrap();
        std::fs::write(folder.join("bench-steps.json"), SIDE_BY_SIDE_WORKFLOW).unwrap();
        let workrail = home.workspace.path().join(".workrail/workflows");
        std::fs::create_dir_all(&workrail).unwrap();
        std::fs::write(workrail.join("bench-steps.json"), SIDE_BY_SIDE_WORKFLOW).unwrap();
        // Agents work in repositories, and `start_workflow` records the branch and HEAD.
        for arguments in [&["init", "--quiet"][..], &["commit", "--quiet", "--allow-empty", "-m", "bench"]] {
            let status = Command::new("git")
                .arg("-C")
                .arg(home.workspace.path())
                .args(["-c", "user.name=mcp-load", "-c", "user.email=mcp-load@switchyard.invalid"])
                .args(arguments)
                .status()
                .expect("git runs");
            assert!(status.success(), "git {arguments:?} in the bench workspace");
        }
        home
    }
    fn command(&self, args: &[&str]) -> Command {
        let binary = self.binary.clone().unwrap_or_else(switchyard_test_support::switchyard_binary);
        let mut command = Command::new(binary);
        command
            .args(args)
            .env("SWITCHYARD_HOME", self.home.path())
            .env_remove("SWITCHYARD_STORE")
            .current_dir(self.workspace.path());
        if let Some(store) = &self.store {
            command.arg("--store").arg(store);
        }
        command
    }
    fn path(&self) -> String {
        self.workspace.path().display().to_string()
    }
}

fn cold_start(runs: usize, mut spawn: impl FnMut() -> Stdio2) -> (Stats, Stats) {
    let (mut initialized, mut listed) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let started = Instant::now();
        let mut client = spawn();
        client.initialize();
        initialized.push(started.elapsed());
        client.request("tools/list", json!({}));
        listed.push(started.elapsed());
    }
    (Stats::new(initialized), Stats::new(listed))
}

fn timed(iterations: usize, mut call: impl FnMut(usize)) -> Stats {
    Stats::new(
        (0..iterations)
            .map(|index| {
                let started = Instant::now();
                call(index);
                started.elapsed()
            })
            .collect(),
    )
}

fn stdio_tools(home: &Home, iterations: usize) -> Vec<(&'static str, Stats)> {
    let mut client = Stdio2::spawn(home.command(&["mcp"]));
    client.initialize();
    let path = home.path();
    let mut rows = Vec::new();
    let list = timed(iterations, |_| {
        client.call("list_workflows", json!({ "workspacePath": path, "listAll": true }));
    });
    rows.push(("list_workflows", list));
    let inspect = timed(iterations, |_| {
        client.call("inspect_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": path }));
    });
    rows.push(("inspect_workflow", inspect));
    let mut tokens = Vec::new();
    let start = timed(iterations, |index| {
        let goal = format!("bench run {index}");
        tokens.push(
            client.call("start_workflow", json!({ "workflowId": "bench-loop", "workspacePath": path, "goal": goal })),
        );
    });
    rows.push(("start_workflow", start));
    let checkpoint = timed(iterations, |index| {
        let output = json!({ "notesMarkdown": "halfway" });
        client.call(
            "checkpoint_workflow",
            json!({ "checkpointToken": tokens[index]["checkpointToken"], "output": output }),
        );
    });
    rows.push(("checkpoint_workflow", checkpoint));
    let advance = timed(iterations, |index| {
        let output = json!({ "notesMarkdown": "done one" });
        client.call("continue_workflow", json!({ "continueToken": tokens[index]["continueToken"], "output": output }));
    });
    rows.push((ADVANCE, advance));
    let rehydrate = timed(iterations, |index| {
        client.call("continue_workflow", json!({ "continueToken": tokens[index]["resumeToken"] }));
    });
    rows.push(("continue_workflow (rehydrate)", rehydrate));
    let resume = timed(iterations, |index| {
        client.call("resume_session", json!({ "workspacePath": path, "query": format!("bench run {index}") }));
    });
    rows.push(("resume_session", resume));
    rows
}

/// CPU time a process has used (user + system, all its threads, those gone included), from
/// `/proc/<pid>/stat` in clock ticks (`getconf CLK_TCK`).
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command name (which is in parentheses and may hold spaces), from the
    // state on: `utime` and `stime` are the 12th and 13th.
    let fields: Vec<&str> =
        stat.rsplit_once(')').map(|(_, rest)| rest.split_whitespace().collect()).unwrap_or_default();
    let field = |index: usize| fields.get(index).and_then(|field| field.parse::<u64>().ok()).unwrap_or(0);
    let ticks = field(11) + field(12);
    let per_second = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .and_then(|text| text.trim().parse::<u64>().ok())
        .unwrap_or(100);
    Duration::from_secs_f64(ticks as f64 / per_second as f64)
}

/// An agent's pace: each of `runs` fresh runs advanced once, `pause` after the answer before.
/// On this virtual machine everything is slower after a pause (one fsync took 37 µs back to back
/// and 322 µs 20 ms apart: BENCHMARKS.md, "Advance (in process and over MCP)"), so these rows are
/// judged against an fsync probed at the same pace.
fn paced_advances(home: &Home, runs: usize, pause: Duration) -> Stats {
    let mut client = Stdio2::spawn(home.command(&["mcp"]));
    client.initialize();
    let path = home.path();
    let started: Vec<Value> = (0..runs)
        .map(|index| {
            let goal = format!("paced run {index}");
            client.call("start_workflow", json!({ "workflowId": "bench-loop", "workspacePath": path, "goal": goal }))
        })
        .collect();
    let samples = started
        .iter()
        .map(|answer| {
            std::thread::sleep(pause);
            let output = json!({ "notesMarkdown": "done one" });
            let began = Instant::now();
            client.call("continue_workflow", json!({ "continueToken": answer["continueToken"], "output": output }));
            began.elapsed()
        })
        .collect();
    Stats::new(samples)
}

/// The first `continue_workflow` of each of `processes` fresh server processes, on runs another
/// process started, `settle` after `tools/list` was answered: what an agent pays after its client
/// restarted the server.
fn first_advance_in_fresh_process(home: &Home, processes: usize, settle: Duration) -> Stats {
    let path = home.path();
    let mut starter = Stdio2::spawn(home.command(&["mcp"]));
    starter.initialize();
    let tokens: Vec<Value> = (0..processes)
        .map(|index| {
            let goal = format!("fresh process {index}");
            starter.call("start_workflow", json!({ "workflowId": "bench-loop", "workspacePath": path, "goal": goal }))
                ["continueToken"]
                .clone()
        })
        .collect();
    drop(starter);
    Stats::new(
        tokens
            .iter()
            .map(|token| {
                let mut client = Stdio2::spawn(home.command(&["mcp"]));
                client.initialize();
                client.request("tools/list", json!({}));
                std::thread::sleep(settle);
                let began = Instant::now();
                client.call(
                    "continue_workflow",
                    json!({ "continueToken": token, "output": { "notesMarkdown": "first" } }),
                );
                began.elapsed()
            })
            .collect(),
    )
}

/// The rows of the first `continue_workflow` in a fresh server process, printed: called as soon as
/// `tools/list` is answered, and `SETTLE` after it; then a steady advance at that pace (one server,
/// its advances `SETTLE` apart), which the second is judged against too, and the memory walk.
fn first_advance_rows(runs: usize) -> FirstAdvance {
    let immediate = first_advance_in_fresh_process(&Home::new(), runs, Duration::ZERO);
    println!("{}", immediate.line("continue_workflow (advance), the first in a fresh server process"));
    let settle = SETTLE.as_secs();
    let settled = first_advance_in_fresh_process(&Home::new(), runs, SETTLE);
    println!("{}", settled.line(&format!("the same, called {settle} s after tools/list was answered")));
    let paced = paced_advances(&Home::new(), runs, SETTLE);
    println!("{}", paced.line(&format!("continue_workflow (advance), one server, one per run, {settle} s apart")));
    memory_walk_rows(runs);
    FirstAdvance { immediate: immediate.at(0.5), settled: settled.at(0.5), paced: paced.at(0.5) }
}

/// The medians of [`first_advance_rows`].
struct FirstAdvance {
    immediate: Duration,
    settled: Duration,
    /// A warm server's advance, `SETTLE` after its previous answer.
    paced: Duration,
}

/// How long after `tools/list` a client's first tool call comes: its model's first turn.
const SETTLE: Duration = Duration::from_secs(1);

/// `MCP_LOAD_FIRST_ONLY`: the first-call rows and the steady state they are judged against, with
/// nothing run before them whose writes the disk could still be flushing.
fn first_advance_only(runs: usize, iterations: usize) {
    println!("| measurement | n | median | p95 | min |\n|---|---|---|---|---|");
    let first = first_advance_rows(runs);
    let tools = stdio_tools(&Home::new(), iterations);
    let (_, advance) = tools.iter().find(|(what, _)| *what == ADVANCE).expect("the tools measured an advance");
    println!("{}", advance.line(ADVANCE));
    let steady = advance.at(0.5).as_secs_f64();
    println!(
        "\nthe first call against the steady state: {:.1}x as soon as `tools/list` is answered, {:.1}x a second after; \
         {:.1}x a steady advance a second apart",
        first.immediate.as_secs_f64() / steady,
        first.settled.as_secs_f64() / steady,
        first.settled.as_secs_f64() / first.paced.as_secs_f64()
    );
}

/// The memory of `switchyard mcp` after `advances` advances of one run.
fn memory_after_advances(home: &Home, advances: usize) -> Memory {
    let mut client = Stdio2::spawn(home.command(&["mcp"]));
    client.initialize();
    let mut answer = client
        .call("start_workflow", json!({ "workflowId": "bench-loop", "workspacePath": home.path(), "goal": "many" }));
    for _ in 0..advances {
        answer = client.call(
            "continue_workflow",
            json!({ "continueToken": answer["continueToken"], "output": { "notesMarkdown": "one more" } }),
        );
    }
    std::thread::sleep(Duration::from_millis(200));
    client.memory()
}

/// Latencies of the first and the last `window` advances of a run `behind` + `window` advances
/// long, and the server's CPU time per advance over all of them.
fn long_run(home: &Home, behind: usize, window: usize) -> (Stats, Stats, Duration) {
    let mut client = Stdio2::spawn(home.command(&["mcp"]));
    client.initialize();
    let pid = client.child.id();
    let mut answer = client.call(
        "start_workflow",
        json!({ "workflowId": "bench-loop", "workspacePath": home.path(), "goal": "a long run" }),
    );
    let cpu_before = cpu_time(pid);
    let mut advance = |answer: &mut Value| {
        let started = Instant::now();
        *answer = client.call(
            "continue_workflow",
            json!({ "continueToken": answer["continueToken"], "output": { "notesMarkdown": "one more" } }),
        );
        started.elapsed()
    };
    let early = Stats::new((0..window).map(|_| advance(&mut answer)).collect());
    for _ in window..behind {
        advance(&mut answer);
    }
    let late = Stats::new((0..window).map(|_| advance(&mut answer)).collect());
    let advances = u32::try_from(behind + window).unwrap_or(u32::MAX);
    (early, late, (cpu_time(pid) - cpu_before) / advances)
}

/// An MCP client over streamable HTTP as real clients hold one: a keep-alive HTTP/1.1
/// connection and an MCP session, answers read from JSON or from the SSE stream.
/// With `connection_per_request`, the client opens a new connection for every request and closes
/// it after the answer (the driver's way before it kept connections), still in one MCP session.
struct HttpClient {
    sender: SendRequest<Full<Bytes>>,
    address: String,
    session: Option<String>,
    next_id: u64,
    connection_per_request: bool,
    /// Whether `sender`'s connection carried a request already.
    used: bool,
}

async fn open_connection(address: &str) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
    tokio::spawn(connection);
    sender
}

impl HttpClient {
    async fn connect(address: &str, connection_per_request: bool) -> Self {
        let sender = open_connection(address).await;
        let mut client = Self {
            sender,
            address: address.to_owned(),
            session: None,
            next_id: 0,
            connection_per_request,
            used: false,
        };
        client
            .request(
                "initialize",
                json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "mcp-load", "version": "1" } }),
            )
            .await;
        assert!(client.session.is_some(), "initialize answered without a session id");
        client.post(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).await;
        client
    }

    /// POSTs one JSON-RPC message; returns the JSON-RPC answer, if the body holds one.
    async fn post(&mut self, message: &Value) -> Option<Value> {
        if self.connection_per_request && self.used {
            self.sender = open_connection(&self.address).await;
        }
        self.used = true;
        let mut request = Request::post("/mcp")
            .header(header::HOST, &self.address)
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session).header("mcp-protocol-version", "2025-06-18");
        }
        if self.connection_per_request {
            request = request.header(header::CONNECTION, "close");
        }
        let request = request.body(Full::new(Bytes::from(message.to_string()))).unwrap();
        let response = self.sender.send_request(request).await.unwrap();
        assert!(response.status().is_success(), "HTTP {}", response.status());
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = Some(session.to_str().unwrap().to_owned());
        }
        let body = response.into_body().collect().await.unwrap().to_bytes();
        String::from_utf8_lossy(&body).lines().find_map(|line| {
            let line = line.strip_prefix("data:").unwrap_or(line).trim();
            serde_json::from_str::<Value>(line).ok().filter(|value| value.get("id").is_some())
        })
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let message = json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params });
        self.post(&message).await.unwrap_or_else(|| panic!("no answer to {method}"))
    }

    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({ "name": tool, "arguments": arguments })).await;
        assert!(answer["result"]["isError"] != json!(true) && answer.get("error").is_none(), "{tool} failed: {answer}");
        answer["result"]["structuredContent"].clone()
    }
}

/// `clients` HTTP clients, each on its own connection and session, each advancing its own run
/// `advances` times at once, spread in turn over `servers` servers of the same home and store;
/// returns advances per second and the servers' (together) and the driver's CPU time per advance.
/// The clients run as tasks of one driver thread, so the driver takes as little of the machine's
/// CPU as it can.
fn http_throughput(
    home: &Home,
    servers: usize,
    clients: usize,
    advances: usize,
    connection_per_request: bool,
) -> (f64, Duration, Duration) {
    let mut spawned: Vec<(Child, String)> = (0..servers).map(|_| spawn_serve(home)).collect();
    let pids: Vec<u32> = spawned.iter().map(|(child, _)| child.id()).collect();
    let servers_cpu = || pids.iter().map(|pid| cpu_time(*pid)).sum::<Duration>();
    let path = home.path();
    let driver = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let measured = driver.block_on(async {
        let mut ready = Vec::with_capacity(clients);
        for client in 0..clients {
            let mut http = HttpClient::connect(&spawned[client % servers].1, connection_per_request).await;
            let started = http
                .call(
                    "start_workflow",
                    json!({ "workflowId": "bench-loop", "workspacePath": path, "goal": format!("client {client}") }),
                )
                .await;
            ready.push((http, started));
        }
        let cpu_before = (servers_cpu(), cpu_time(std::process::id()));
        let began = Instant::now();
        let tasks: Vec<_> = ready
            .into_iter()
            .map(|(mut http, mut answer)| {
                tokio::spawn(async move {
                    for _ in 0..advances {
                        answer = http
                            .call(
                                "continue_workflow",
                                json!({ "continueToken": answer["continueToken"], "output": { "notesMarkdown": "step" } }),
                            )
                            .await;
                        assert!(answer["continueToken"].is_string(), "{answer}");
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
        let total = clients * advances;
        let rate = total as f64 / began.elapsed().as_secs_f64();
        let per_advance = |before: Duration, now: Duration| (now - before) / total as u32;
        (rate, per_advance(cpu_before.0, servers_cpu()), per_advance(cpu_before.1, cpu_time(std::process::id())))
    });
    for (child, _) in &mut spawned {
        let _ = child.kill();
        let _ = child.wait();
    }
    measured
}

/// `switchyard serve` on a free loopback port, and the address its banner names.
fn spawn_serve(home: &Home) -> (Child, String) {
    let mut child =
        home.command(&["serve", "--port", "0"]).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut reader = BufReader::new(child.stderr.take().unwrap());
    let mut banner = String::new();
    reader.read_line(&mut banner).unwrap();
    let address = banner
        .split_whitespace()
        .find(|word| word.starts_with("http://"))
        .unwrap()
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_owned();
    // Keep reading what the server writes after its start line, so a full pipe never stalls it.
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    (child, address)
}

/// The memory of `switchyard serve` at rest: started, one client's session initialized and its
/// tools listed.
fn serve_memory() -> Memory {
    let home = fresh_copy();
    let (mut child, address) = spawn_serve(&home);
    let driver = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    driver.block_on(async {
        let mut client = HttpClient::connect(&address, false).await;
        client.request("tools/list", json!({})).await;
        tokio::time::sleep(Duration::from_millis(200)).await;
    });
    let memory = memory(child.id());
    let _ = child.kill();
    let _ = child.wait();
    memory
}

/// Prints the HTTP rows: SQLite with one server, then, when `MCP_LOAD_POSTGRES` names a database,
/// that database with one server and with three. Returns SQLite's rate with the most clients.
fn http_rows() -> f64 {
    let postgres = std::env::var("MCP_LOAD_POSTGRES").ok().filter(|url| !url.is_empty());
    let mut stores = vec![("SQLite", None, 1)];
    if let Some(url) = &postgres {
        stores.extend([("Postgres", Some(url.clone()), 1), ("Postgres", Some(url.clone()), 3)]);
    }
    let mut rate = 0.0;
    println!(
        "\n| store | servers | HTTP clients (distinct runs) | advances | advances/s | CPU per advance: servers | driver |\n|---|---|---|---|---|---|---|"
    );
    let advances = if quick() { 20 } else { 100 };
    for (name, store, servers) in stores {
        for clients in [1, 8, 32] {
            let home = Home { store: store.clone(), ..Home::new() };
            let (measured, server, driver) = http_throughput(&home, servers, clients, advances, false);
            println!(
                "| {name} | {servers} | {clients} | {} | {measured:.0} | {} | {} |",
                clients * advances,
                ms(server),
                ms(driver)
            );
            if store.is_none() {
                rate = measured;
            }
        }
    }
    let (measured, server, driver) = http_throughput(&Home::new(), 1, 32, advances, true);
    println!(
        "| SQLite | 1 | 32, a new connection for every request | {} | {measured:.0} | {} | {} |",
        32 * advances,
        ms(server),
        ms(driver)
    );
    rate
}

fn ms(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1e3)
}

/// What the run measured that a target is about.
struct Measured {
    cold_start: Duration,
    fsync: Duration,
    advance: Duration,
    first: FirstAdvance,
    start: Duration,
    paced_fsync: Duration,
    paced: Duration,
    early: Duration,
    late: Duration,
    behind: usize,
    mcp_memory: Memory,
    serve_memory: Memory,
    busy_memory: Memory,
    busy_advances: usize,
    clients_32: f64,
}

/// The pause before each advance of the paced rows: an agent's pace, compressed.
const PAUSE: Duration = Duration::from_millis(20);

/// Run length may cost at most this much more per advance before "flat" is judged not met.
const FLAT_WITHIN: f64 = 1.2;

impl Measured {
    /// The targets this driver measures (SPEC section 6 as issue 23 tightened it), each judged on
    /// this run's figures.
    fn print_targets(&self) {
        let verdict = |met: bool| if met { "met" } else { "NOT met" };
        let allowance = self.fsync + Duration::from_micros(500);
        let growth = self.late.as_secs_f64() / self.early.as_secs_f64();
        let memory = self.mcp_memory.megabytes().max(self.serve_memory.megabytes());
        println!("\n| target | this run | verdict |\n|---|---|---|");
        println!(
            "| stdio cold start to `tools/list` answered: under 15 ms | median {} | {} |",
            ms(self.cold_start),
            verdict(self.cold_start < Duration::from_millis(15))
        );
        println!(
            "| `continue_workflow`, back to back: median at most one fsync + 0.5 ms | median {} against {} (fsync {}) | {} |",
            ms(self.advance),
            ms(allowance),
            ms(self.fsync),
            verdict(self.advance <= allowance)
        );
        let paced_allowance = self.paced_fsync + Duration::from_micros(500);
        let apart = PAUSE.as_millis();
        println!(
            "| the same, {apart} ms apart (fsync probed {apart} ms apart too) | median {} against {} (fsync {}) | {} |",
            ms(self.paced),
            ms(paced_allowance),
            ms(self.paced_fsync),
            verdict(self.paced <= paced_allowance)
        );
        let first_ratio = self.first.immediate.as_secs_f64() / self.advance.as_secs_f64();
        println!(
            "| the first `continue_workflow` in a fresh server process: at most 2x the steady state | median {} ({first_ratio:.1}x) | {} |",
            ms(self.first.immediate),
            verdict(first_ratio <= 2.0)
        );
        let settled_ratio = self.first.settled.as_secs_f64() / self.advance.as_secs_f64();
        let settle = SETTLE.as_secs();
        println!(
            "| the same, called {settle} s after `tools/list` was answered | median {} ({settled_ratio:.1}x) | {} |",
            ms(self.first.settled),
            verdict(settled_ratio <= 2.0)
        );
        let paced_ratio = self.first.settled.as_secs_f64() / self.first.paced.as_secs_f64();
        println!(
            "| reading, not the target's measure: the same against a warm server's advance {settle} s after its last (median {}) | {paced_ratio:.1}x | {} |",
            ms(self.first.paced),
            verdict(paced_ratio <= 2.0)
        );
        println!(
            "| `start_workflow` over stdio (workspace a git repository): at most 3 ms | median {} | {} |",
            ms(self.start),
            verdict(self.start <= Duration::from_millis(3))
        );
        println!(
            "| `continue_workflow`: cost independent of run length (within {FLAT_WITHIN}x) | steps 1-100 {}, steps {}-{} {} ({growth:.2}x) | {} |",
            ms(self.early),
            self.behind + 1,
            self.behind + 100,
            ms(self.late),
            verdict(growth <= FLAT_WITHIN)
        );
        println!(
            "| durable advances, 32 HTTP clients on distinct runs, connections and sessions kept: at least 3,000 per second | {:.0}/s | {} |",
            self.clients_32,
            verdict(self.clients_32 >= 3000.0)
        );
        println!(
            "| server memory at rest: under 15 MB | `mcp` {:.1} MB, `serve` {:.1} MB | {} |",
            self.mcp_memory.megabytes(),
            self.serve_memory.megabytes(),
            verdict(memory < 15.0)
        );
        println!(
            "| `switchyard mcp` memory after {} advances: under 30 MB | {:.1} MB | {} |",
            self.busy_advances,
            self.busy_memory.megabytes(),
            verdict(self.busy_memory.megabytes() < 30.0)
        );
    }
}

/// The continue token of a `start_workflow` or `continue_workflow` answer: in switchyard's
/// `structuredContent`, or in the JSON text WorkRail answers with under
/// `WORKRAIL_JSON_RESPONSES=true`.
fn continue_token(answer: &Value) -> Option<String> {
    let result = &answer["result"];
    if let Some(token) = result["structuredContent"]["continueToken"].as_str() {
        return Some(token.to_owned());
    }
    result["content"].as_array()?.iter().filter_map(|item| item["text"].as_str()).find_map(|text| {
        let json: Value = serde_json::from_str(text).ok()?;
        json["continueToken"].as_str().map(str::to_owned)
    })
}

/// One measurement for any WorkRail-compatible stdio server, so the two servers' rows compare:
/// cold start to `tools/list` answered, then the first advance of `runs` fresh runs of
/// `bench-steps` (one start each, then one `continue_workflow` with notes, timed).
fn side_by_side(spawn: impl Fn() -> Stdio2, workspace: &str, runs: usize) -> (Stats, Stats) {
    let (_, listed) = cold_start(runs.min(10), &spawn);
    let mut client = spawn();
    client.initialize();
    let tokens: Vec<String> = (0..runs)
        .map(|index| {
            let arguments = json!({ "workflowId": "bench-steps", "workspacePath": workspace, "goal": format!("side by side {index}") });
            let answer = client.request("tools/call", json!({ "name": "start_workflow", "arguments": arguments }));
            continue_token(&answer).unwrap_or_else(|| panic!("no continue token in the start answer: {answer}"))
        })
        .collect();
    let notes = "Did the first unit of work, as the step asked; nothing was left open.";
    let advances = timed(runs, |index| {
        let arguments = json!({ "continueToken": tokens[index], "output": { "notesMarkdown": notes } });
        let answer = client.request("tools/call", json!({ "name": "continue_workflow", "arguments": arguments }));
        assert!(
            answer.get("error").is_none()
                && answer["result"]["isError"] != json!(true)
                && continue_token(&answer).is_some(),
            "the advance did not advance: {answer}"
        );
    });
    (listed, advances)
}

fn workrail_entry() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let target = exe.parent()?.parent()?.parent()?;
    let package = target.join("test-tools/workrail/node_modules/@exaudeus/workrail");
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(package.join("package.json")).ok()?).ok()?;
    let bin = match &manifest["bin"] {
        Value::String(path) => path.clone(),
        Value::Object(map) => map.values().next()?.as_str()?.to_owned(),
        _ => return None,
    };
    Some(package.join(bin))
}

fn node22() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let node = exe.parent()?.parent()?.parent()?.join("test-tools/node/node_modules/node/bin/node");
    node.is_file().then_some(node)
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let (runs, iterations, behind) = if quick() { (5, 20, 200) } else { (30, 200, 1000) };
    println!("binary: {}\n", switchyard_test_support::switchyard_binary().display());
    if std::env::var_os("MCP_LOAD_HTTP_ONLY").is_some() {
        http_rows();
        return;
    }
    if std::env::var_os("MCP_LOAD_FIRST_ONLY").is_some() {
        first_advance_only(runs, iterations);
        return;
    }
    println!("| measurement | n | median | p95 | min |\n|---|---|---|---|---|");
    let home = Home::new();
    let mut fsyncs = fsync_probe(home.home.path(), 100, Duration::ZERO);
    drop(Stdio2::spawn(home.command(&["mcp"])).initialize());
    let (initialized, listed) = cold_start(runs, || Stdio2::spawn(home.command(&["mcp"])));
    println!("{}", initialized.line("switchyard stdio cold start → initialize answered"));
    println!("{}", listed.line("switchyard stdio cold start → tools/list answered"));
    let tools = stdio_tools(&home, iterations);
    for (what, stats) in &tools {
        println!("{}", stats.line(what));
    }
    let (early, late, cpu) = long_run(&Home::new(), behind, 100);
    println!("{}", early.line("continue_workflow, steps 1-100 of a run"));
    println!("{}", late.line(&format!("continue_workflow, steps {}-{} of a run", behind + 1, behind + 100)));
    fsyncs.extend(fsync_probe(home.home.path(), 100, Duration::ZERO));
    let fsync = Stats::new(fsyncs);
    println!("{}", fsync.line("one fsync (pwrite 4 KiB + fdatasync), before and after the rows above"));
    let paced = paced_advances(&Home::new(), if quick() { 30 } else { 100 }, PAUSE);
    let apart = PAUSE.as_millis();
    println!("{}", paced.line(&format!("continue_workflow (advance), one per run, {apart} ms apart")));
    let paced_fsync = Stats::new(fsync_probe(home.home.path(), if quick() { 30 } else { 100 }, PAUSE));
    println!("{}", paced_fsync.line(&format!("one fsync, {apart} ms apart")));
    let first = first_advance_rows(runs);
    let advances = &tools.iter().find(|(what, _)| *what == ADVANCE).expect("the advance row").1;
    println!("\n{ADVANCE} p99 over {} calls: {:.3} ms", advances.samples.len(), advances.at(0.99).as_secs_f64() * 1e3);
    println!(
        "server CPU per `continue_workflow` advance (user + system, all threads, over {} advances): {}",
        behind + 100,
        ms(cpu)
    );

    let at_rest = fresh_copy();
    let mut client = Stdio2::spawn(at_rest.command(&["mcp"]));
    client.initialize();
    client.request("tools/list", json!({}));
    std::thread::sleep(Duration::from_millis(200));
    let mcp_memory = client.memory();
    println!("\nmemory at rest: `switchyard mcp` {mcp_memory} after initialize + tools/list");
    drop(client);
    let serve_memory = serve_memory();
    println!("memory at rest: `switchyard serve` {serve_memory} after one session's initialize + tools/list");
    let busy_advances = if quick() { 1_000 } else { 10_000 };
    let busy_memory = memory_after_advances(&fresh_copy(), busy_advances);
    println!("memory: `switchyard mcp` {busy_memory} after {busy_advances} advances of one run");

    let clients_32 = http_rows();
    let row = |name: &str| tools.iter().find(|(what, _)| *what == name).map(|(_, stats)| stats.at(0.5)).unwrap();
    Measured {
        cold_start: listed.at(0.5),
        fsync: fsync.at(0.5),
        advance: row(ADVANCE),
        first,
        start: row("start_workflow"),
        paced_fsync: paced_fsync.at(0.5),
        paced: paced.at(0.5),
        early: early.at(0.5),
        late: late.at(0.5),
        behind,
        mcp_memory,
        serve_memory,
        busy_memory,
        busy_advances,
        clients_32,
    }
    .print_targets();

    let runs_side_by_side = if quick() { 20 } else { 100 };
    let switchyard = side_by_side(|| Stdio2::spawn(home.command(&["mcp"])), &home.path(), runs_side_by_side);
    println!("\nSide by side, the same method for each server (`bench-steps.json`, WorkRail's format):");
    println!("| measurement | n | median | p95 | min |\n|---|---|---|---|---|");
    println!("{}", switchyard.0.line("switchyard stdio cold start → tools/list answered"));
    println!("{}", switchyard.1.line("switchyard first continue_workflow of a fresh run"));
    match (workrail_entry(), node22()) {
        (Some(entry), Some(node)) => {
            let data = tempfile::tempdir().unwrap();
            let spawn = || {
                let mut command = Command::new(&node);
                command
                    .arg(&entry)
                    .env("WORKRAIL_DATA_DIR", data.path().join("data"))
                    .env("WORKRAIL_KEYS_DIR", data.path().join("keys"))
                    .env("WORKRAIL_ENABLE_SESSION_TOOLS", "false")
                    .env("WORKRAIL_JSON_RESPONSES", "true")
                    .current_dir(home.workspace.path());
                Stdio2::spawn(command)
            };
            let workrail = side_by_side(spawn, &home.path(), runs_side_by_side);
            println!("{}", workrail.0.line("WorkRail stdio cold start → tools/list answered"));
            println!("{}", workrail.1.line("WorkRail first continue_workflow of a fresh run"));
            let mut client = spawn();
            client.initialize();
            client.request("tools/list", json!({}));
            std::thread::sleep(Duration::from_millis(200));
            println!("\nWorkRail: {} on {}", entry.display(), node.display());
            println!("memory at rest: WorkRail {} after initialize + tools/list", client.memory());
        }
        _ => println!(
            "\nWorkRail: not installed in target/test-tools/workrail (npm i @exaudeus/workrail there) or no Node 22 in target/test-tools/node; not measured."
        ),
    }
}
