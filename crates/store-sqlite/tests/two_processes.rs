//! Two processes sharing one store file race the same idempotency key: exactly one commits.
//!
//! The test re-runs its own binary as the two writers (`race_writer`, selected by environment
//! variables). Each writer opens the store, says it is ready on stdout and waits for a line on
//! stdin, so both append at the same moment without any sleep. Run alone, `race_writer` appends
//! once to a store of its own and must commit.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};

use switchyard_core::event::NodeCause;
use switchyard_core::id::EventId;
use switchyard_core::state::RunStatus;
use switchyard_store::conformance::fixture::{SessionScript, node_id};
use switchyard_store::{Appended, Store};
use switchyard_store_sqlite::{SqliteOptions, SqliteStore};

const STORE_ENV: &str = "SWITCHYARD_RACE_STORE";
const WRITER_ENV: &str = "SWITCHYARD_RACE_WRITER";
const READY: &str = "RACE-READY";
const RESULT: &str = "RACE-RESULT ";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime")
}

async fn start_session(path: &Path) {
    let store = SqliteStore::open(path, SqliteOptions::default()).expect("open");
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.expect("the start batch");
}

#[test]
fn race_writer() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let (path, writer, racing) = match (std::env::var_os(STORE_ENV), std::env::var(WRITER_ENV)) {
        (Some(path), Ok(writer)) => (PathBuf::from(path), writer.parse::<u64>().expect("a writer number"), true),
        _ => (folder.path().join("store.db"), 1, false),
    };
    let appended = runtime().block_on(async {
        if !racing {
            start_session(&path).await;
        }
        let store = SqliteStore::open(&path, SqliteOptions::default()).expect("open");
        let mut script = SessionScript::new(1);
        let mut event = script.node(node_id(200 + writer), Some(node_id(101)), NodeCause::Advance, RunStatus::Active);
        event.id = EventId::from_bytes([0x70 + writer as u8; 16]);
        let batch = script.claimed(vec![event], "advance:race", "sha-race", serde_json::json!({ "writer": writer }));
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "\n{READY}").and_then(|()| stdout.flush()).expect("stdout");
        if racing {
            let mut go = String::new();
            std::io::stdin().read_line(&mut go).expect("the go line");
        }
        store.append(batch).await.expect("the racing append")
    });
    if racing {
        let json = serde_json::to_string(&appended).expect("json");
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "\n{RESULT}{json}").and_then(|()| stdout.flush()).expect("stdout");
    } else {
        assert_eq!(appended, Appended::Committed { first_seq: 4, last_seq: 4 }, "a writer alone commits");
    }
}

fn read_until(reader: &mut BufReader<ChildStdout>, prefix: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        let read = reader.read_line(&mut line).expect("reading a writer's stdout");
        assert!(read > 0, "a writer process ended before printing `{prefix}`");
        // libtest may print `test race_writer ... ` on the same line first.
        if let Some(index) = line.find(prefix) {
            return line[index + prefix.len()..].trim_end().to_owned();
        }
    }
}

#[test]
fn two_processes_racing_one_claim_commit_exactly_once() {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("store.db");
    runtime().block_on(start_session(&path));

    let exe = std::env::current_exe().expect("the test binary");
    let mut writers: Vec<(Child, BufReader<ChildStdout>)> = (1..=2)
        .map(|writer| {
            let mut child = Command::new(&exe)
                .args(["race_writer", "--exact", "--nocapture", "--test-threads=1"])
                .env(STORE_ENV, &path)
                .env(WRITER_ENV, writer.to_string())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .expect("starting a writer process");
            let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
            (child, stdout)
        })
        .collect();
    for (_, stdout) in &mut writers {
        read_until(stdout, READY);
    }
    for (child, _) in &mut writers {
        let stdin = child.stdin.as_mut().expect("piped stdin");
        stdin.write_all(b"go\n").and_then(|()| stdin.flush()).expect("releasing a writer");
    }
    let mut results = Vec::new();
    for (mut child, mut stdout) in writers {
        let json = read_until(&mut stdout, RESULT);
        results.push(serde_json::from_str::<Appended>(&json).expect("a writer's result"));
        assert!(child.wait().expect("a writer process").success(), "a writer process failed");
    }

    let committed = results.iter().filter(|result| matches!(result, Appended::Committed { .. })).count();
    assert_eq!(committed, 1, "exactly one process commits: {results:?}");
    runtime().block_on(async {
        let store = SqliteStore::open(&path, SqliteOptions::default()).expect("open");
        let recorded = store
            .recorded(SessionScript::new(1).session, "advance:race")
            .await
            .expect("recorded")
            .expect("the claim is stored");
        for result in &results {
            if let Appended::AlreadyRecorded(found) = result {
                assert_eq!(*found, recorded, "the loser gets the winner's outcome");
            }
        }
        let script = SessionScript::new(1);
        assert_eq!(store.events(script.session, 0, 100).await.expect("events").len(), 4, "one racing event stored");
        assert_eq!(store.run(script.run).await.expect("run").expect("the run").node_count, 2);
        let report = store.verify().await.expect("verify");
        assert!(report.is_clean(), "{:#?}", report.problems);
    });
}
