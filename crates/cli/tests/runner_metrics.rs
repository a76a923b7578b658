//! The agent runner's metrics on `switchyard serve`'s `/metrics`: a run driven by `switchyard run`
//! (another process, against the fake model server over loopback HTTP) is counted by the server,
//! which learns of its turns from the store, and scraped with the serve token as Prometheus would:
//! turns, tokens, tool calls by tool and outcome (blocked and security refusals apart), runs finished.

mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};
use support::{Sandbox, ran};
use switchyard_test_support::fake_llm::{FakeLlm, Reply};

const KEY_VARIABLE: &str = "SWITCHYARD_TEST_MODEL_KEY";
const TOKEN: &str = "metrics-s3cret-token";

/// How long the test waits for the server to count what the runner recorded, before it fails.
const BOUND: Duration = Duration::from_secs(60);

/// A `switchyard serve` on the sandbox's home, its follower's progress read from its debug log.
struct Server {
    child: Child,
    address: String,
    /// `(session, seq)` of each "runner turns counted" line, as the server writes it.
    counted: Receiver<(String, u64)>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(sandbox: &Sandbox) -> Self {
        let mut child = sandbox
            .command(&["--log-format", "json", "serve", "--port", "0", "--token", TOKEN])
            .env("SWITCHYARD_LOG", "switchyard_runtime::turn_metrics=debug")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("switchyard serve starts");
        let mut reader = BufReader::new(child.stderr.take().unwrap());
        // Under `--log-format json` the start line is a log line too.
        let address = loop {
            let mut line = String::new();
            assert_ne!(reader.read_line(&mut line).unwrap(), 0, "serve stopped before it started");
            if let Some(address) = support::start_line_address(&line) {
                break address;
            }
        };
        let (sender, counted) = channel();
        std::thread::spawn(move || {
            for line in reader.lines().map_while(Result::ok) {
                let Ok(log) = serde_json::from_str::<Value>(&line) else { continue };
                if let (Some(session), Some(seq)) = (log["session"].as_str(), log["seq"].as_u64()) {
                    let _ = sender.send((session.to_owned(), seq));
                }
            }
        });
        Self { child, address, counted }
    }

    /// Waits until the server has counted `session`'s log through `seq`.
    fn wait_counted(&self, session: &str, seq: u64) {
        loop {
            let (counted, through) = self
                .counted
                .recv_timeout(BOUND)
                .unwrap_or_else(|error| panic!("the server did not count {session} through {seq}: {error}"));
            if counted == session && through >= seq {
                return;
            }
        }
    }

    /// `GET /metrics` with the bearer token: each sample (`name{labels}`) with its value.
    fn scrape(&self) -> HashMap<String, f64> {
        let mut stream = TcpStream::connect(&self.address).unwrap();
        let request = format!(
            "GET /metrics HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\nConnection: close\r\n\r\n",
            self.address
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no HTTP answer: {answer}"));
        assert!(head.starts_with("HTTP/1.1 200"), "{head}\n{body}");
        body.lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.rsplit_once(' '))
            .map(|(series, value)| (series.to_owned(), value.parse().unwrap_or_else(|_| panic!("`{series} {value}`"))))
            .collect()
    }
}

#[test]
fn serve_metrics_count_the_turns_tool_calls_and_tokens_of_a_run_a_runner_drove() {
    let sandbox = Sandbox::new();
    sandbox.write_workflow("greeting.yaml", include_str!("support/greeting.yaml"));
    let model = FakeLlm::start();
    model.push_all([
        // A write into switchyard's own folder: refused for security.
        Reply::tool_call(
            "write_file",
            json!({"path": "{project-root}/.switchyard/workflows/greeting.yaml", "content": "steps: []"}),
        )
        .usage(40, 4),
        Reply::tool_call("read_file", json!({"path": "{project-root}/missing.md"})).usage(50, 5),
        Reply::tool_call("complete_step", json!({"notes": "no greeting"})).usage(60, 6),
        Reply::tool_call("run_shell", json!({"command": "ls"})).usage(70, 7),
        Reply::tool_call("complete_step", json!({"notes": "hello"})).usage(80, 8),
        Reply::tool_call("complete_step", json!({"notes": "It sounds friendly."})).usage(90, 9),
    ]);
    let server = Server::start(&sandbox);
    let before = server.scrape();
    assert_eq!(before.get("switchyard_runner_turns_total"), Some(&0.0), "{before:?}");

    let base_url = model.base_url();
    let run = ran(&sandbox
        .command(&["--json", "run", "greeting", "--goal", "greet", "--auto-approve", "--model", "fake-model"])
        .args(["--base-url", &base_url, "--api-key-env", KEY_VARIABLE])
        .env(KEY_VARIABLE, "sk-test-key")
        .output()
        .unwrap());
    assert_eq!(run.code, 0, "the run completes:\n{}\n{}", run.stdout, run.stderr);
    assert_eq!(model.remaining(), 0);
    let last_event = sandbox.run(&["log", &run_id(&run.stdout), "--limit", "10000"]).ok();
    let last_event = last_event.as_array().and_then(|events| events.last()).cloned().unwrap();
    server.wait_counted(last_event["session"].as_str().unwrap(), last_event["seq"].as_u64().unwrap());

    let after = server.scrape();
    let value = |series: &str| after.get(series).copied().unwrap_or_else(|| panic!("no `{series}` in {after:?}"));
    assert_eq!(value("switchyard_runner_turns_total"), 6.0);
    assert_eq!(value(r#"switchyard_runner_tokens_total{kind="prompt"}"#), 390.0);
    assert_eq!(value(r#"switchyard_runner_tokens_total{kind="completion"}"#), 39.0);
    assert_eq!(value(r#"switchyard_runner_tool_calls_total{tool="write_file",outcome="violation"}"#), 1.0);
    assert_eq!(value(r#"switchyard_runner_tool_calls_total{tool="read_file",outcome="error"}"#), 1.0);
    assert_eq!(value(r#"switchyard_runner_tool_calls_total{tool="complete_step",outcome="blocked"}"#), 1.0);
    assert_eq!(value(r#"switchyard_runner_tool_calls_total{tool="complete_step",outcome="ok"}"#), 2.0);
    assert_eq!(value(r#"switchyard_runner_tool_calls_total{tool="other",outcome="error"}"#), 1.0, "an unknown tool");
    assert_eq!(value(r#"switchyard_runner_tool_call_seconds_count{tool="complete_step"}"#), 3.0);
    assert_eq!(value(r#"switchyard_runner_runs_finished_total{outcome="completed"}"#), 1.0);
    assert!(
        // `run_command` is a tool's name, not an id.
        after
            .keys()
            .map(|series| series.replace("\"run_command\"", ""))
            .all(|series| { !series.contains("\"run_") && !series.contains("\"sess_") }),
        "no run or session id is a label: {after:?}"
    );
}

/// The run id of the `--json` event stream's first event that names one.
fn run_id(stdout: &str) -> String {
    stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find_map(|event| event["run"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no run id in:\n{stdout}"))
}
