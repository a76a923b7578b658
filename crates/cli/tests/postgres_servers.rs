//! Several `switchyard serve` processes on one PostgreSQL database, through the real binaries and
//! HTTP MCP, each server with its own home and bearer token (and the one signing key every server
//! must share). 32 clients racing the same tokens and advancing distinct runs advance each token
//! once and leave chains that verify; a server killed with SIGKILL mid-stream loses no
//! acknowledged advance and its clients finish their runs on another server; a console page and an
//! MCP client following a run on one server, and a runner waiting at a gate, hear within a second
//! what another server or the CLI commits.

// The measured latencies go to the test's output, for the reader of a CI log.
#![allow(clippy::print_stdout)]

mod support;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use switchyard_test_support::fake_llm::{FakeLlm, Reply};

use support::mcp_http::{Answer, McpClient, exchange, header_values};
use support::test_tools::{Follower, python};
use support::{Sandbox, serve_address, string, switchyard_at};
use switchyard_test_support::TestDatabase;

const TREADMILL: &str = include_str!("support/treadmill.yaml");
const GREETING: &str = include_str!("support/greeting.yaml");

/// Advances with `again` before each run's closing `done`.
const ROUNDS: usize = 8;

/// How long a test waits for something another process must do before it fails: generous, for
/// a loaded CI machine; the latencies measured are printed.
const BOUND: Duration = Duration::from_secs(5);

/// How soon a commit acknowledged by one process must reach another server's subscribers (a
/// console page, a waiting runner, an MCP client following the run): within a second.
const LIVE: Duration = Duration::from_secs(1);

/// A `switchyard serve` process on the shared database, with a home and bearer token of its own.
struct Server {
    child: Child,
    address: String,
    token: String,
    _home: tempfile::TempDir,
}

impl Server {
    /// Starts a server whose home holds a copy of `keyring`: tokens are signed with the home's
    /// key, so servers sharing a database share the key, or each refuses the others' tokens.
    fn start(index: usize, project: &Path, url: &str, keyring: &Path) -> Self {
        use std::os::unix::fs::PermissionsExt;
        let home = tempfile::tempdir().unwrap();
        let keys = home.path().join("keys");
        std::fs::create_dir_all(&keys).unwrap();
        std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::copy(keyring, keys.join("keyring.json")).unwrap();
        let token = format!("server-{index}-bearer-token-{}", std::process::id());
        let mut child = switchyard_at(home.path())
            .args(["--store", url, "serve", "--port", "0", "--token", &token])
            .current_dir(project)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("serve starts");
        let address = serve_address(&mut child);
        Self { child, address, token, _home: home }
    }

    /// SIGKILL: the server gets no chance to finish what it was doing.
    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The three servers of a test, a client of each reaching the next live one when its own is gone.
struct Cluster {
    database: TestDatabase,
    sandbox: Sandbox,
    servers: Vec<Server>,
}

impl Cluster {
    /// A fresh database, the CLI's sandbox on it (whose first command makes the signing key) and
    /// `count` servers sharing that key.
    fn start(count: usize) -> Self {
        let database = TestDatabase::create();
        let sandbox = Sandbox::new();
        sandbox.write_workflow("treadmill.yaml", TREADMILL);
        sandbox.write_workflow("greeting.yaml", GREETING);
        sandbox.run(&["--store", database.url(), "keys", "rotate"]).ok();
        let keyring = sandbox.home.path().join("keys/keyring.json");
        let servers =
            (0..count).map(|index| Server::start(index, sandbox.project.path(), database.url(), &keyring)).collect();
        Self { database, sandbox, servers }
    }

    /// `switchyard --json --store <database> <args>` in the sandbox.
    fn cli(&self, args: &[&str]) -> Value {
        let mut all = vec!["--store", self.database.url()];
        all.extend_from_slice(args);
        self.sandbox.run(&all).ok()
    }

    fn start_run(&self, server: usize, goal: &str) -> Value {
        let mut client = McpClient::connect(&self.servers[server].address, Some(&self.servers[server].token))
            .expect("the server answers");
        let arguments =
            json!({ "workflowId": "treadmill", "workspacePath": self.sandbox.project.path(), "goal": goal });
        match client.call("start_workflow", &arguments) {
            Answer::Done(answer) => answer,
            other => panic!("start_workflow on server {server}: {other:?}"),
        }
    }

    /// The notes of every advance the run's log holds, in order.
    fn recorded_notes(&self, run: &str) -> Vec<String> {
        let log = self.cli(&["log", run, "--limit", "10000"]);
        log.as_array()
            .unwrap()
            .iter()
            .filter(|event| event["kind"]["type"] == "advance_recorded")
            .map(|event| event["kind"]["notes"].as_str().unwrap_or_default().to_owned())
            .collect()
    }

    fn verify(&self) {
        let verify = self.cli(&["verify"]);
        assert_eq!(verify["problems"], json!([]), "verify against the database: {verify:#}");
    }
}

/// What a client saw of one call: the node it led to, and whether it was the replay of a call
/// another client made first.
#[derive(Debug, Clone)]
struct Seen {
    node: String,
    replayed: bool,
    complete: bool,
    next: Option<String>,
    /// This client made the call again after a server was lost: the first attempt may have
    /// advanced, so this answer may be its replay.
    after_loss: bool,
}

/// A client advancing through whichever server is alive, starting with `home`: a call that gets
/// no answer is made again, the same, on the next server; a retryable refusal is made again too.
struct Roaming {
    addresses: Vec<(String, String)>,
    server: usize,
    client: Option<McpClient>,
    switched: usize,
}

impl Roaming {
    fn new(cluster: &Cluster, home: usize) -> Self {
        let addresses = cluster.servers.iter().map(|server| (server.address.clone(), server.token.clone())).collect();
        Self { addresses, server: home, client: None, switched: 0 }
    }

    fn advance(&mut self, token: &str, notes: &str, choice: &str) -> Result<Seen, String> {
        let arguments = json!({ "continueToken": token, "notes": notes, "choice": choice });
        let mut after_loss = false;
        for _ in 0..50 {
            if self.client.is_none() {
                let (address, bearer) = &self.addresses[self.server];
                self.client = McpClient::connect(address, Some(bearer));
            }
            let answer =
                self.client.as_mut().map_or(Answer::Lost, |client| client.call("continue_workflow", &arguments));
            match answer {
                Answer::Done(answer) => {
                    return Ok(Seen {
                        node: string(&answer["nodeId"]),
                        replayed: answer["replayed"] == json!(true),
                        complete: answer["isComplete"] == json!(true),
                        next: answer["continueToken"].as_str().map(str::to_owned),
                        after_loss,
                    });
                }
                Answer::Refused(error) if error["retry"]["kind"] != json!("not_retryable") => {}
                Answer::Refused(error) => return Err(format!("`{notes}` refused: {error}")),
                Answer::Lost => {
                    after_loss = true;
                    self.client = None;
                    self.server = (self.server + 1) % self.addresses.len();
                    self.switched += 1;
                }
            }
        }
        Err(format!("`{notes}` got no answer from any server"))
    }
}

/// The notes a run's advances carry, `again` rounds then the closing `done`.
fn planned_notes(run: &str) -> Vec<String> {
    let mut notes: Vec<String> = (0..ROUNDS).map(|round| format!("{run} round {round}")).collect();
    notes.push(format!("{run} done"));
    notes
}

fn choice_of(round: usize) -> &'static str {
    if round < ROUNDS { "again" } else { "done" }
}

/// What the workload saw: per run, per round, every client's answer.
type Answers = Arc<Mutex<BTreeMap<String, Vec<Vec<Result<Seen, String>>>>>>;

/// 32 clients on three servers: 8 runs raced by three clients each (one per server, the same
/// call at the same moment), 8 runs advanced by one client each. Each answered call is sent on
/// `acknowledged`. Returns every answer, keyed by run.
fn race(cluster: &Cluster, acknowledged: &Sender<()>) -> (Answers, Vec<std::thread::JoinHandle<usize>>) {
    const RACED: usize = 8;
    const ALONE: usize = 8;
    let answers: Answers = Arc::default();
    let mut clients = Vec::new();
    for index in 0..RACED + ALONE {
        let raced = index < RACED;
        let started = cluster.start_run(index % 3, &format!("run {index}"));
        let run = string(&started["runId"]);
        answers.lock().unwrap().insert(run.clone(), vec![Vec::new(); ROUNDS + 1]);
        let racers = if raced { 3 } else { 1 };
        let barrier = Arc::new(Barrier::new(racers));
        let token = Arc::new(Mutex::new(string(&started["continueToken"])));
        for racer in 0..racers {
            let mut roaming = Roaming::new(cluster, (index + racer) % 3);
            let (answers, barrier, token, run) =
                (Arc::clone(&answers), Arc::clone(&barrier), Arc::clone(&token), run.clone());
            let acknowledged = acknowledged.clone();
            clients.push(std::thread::spawn(move || {
                for (round, notes) in planned_notes(&run).iter().enumerate() {
                    barrier.wait();
                    let current = token.lock().unwrap().clone();
                    let seen = roaming.advance(&current, notes, choice_of(round));
                    if seen.is_ok() {
                        let _ = acknowledged.send(());
                    }
                    let next = seen.as_ref().ok().and_then(|seen| seen.next.clone());
                    answers.lock().unwrap().get_mut(&run).unwrap()[round].push(seen);
                    barrier.wait();
                    // Every racer got the same node; the first answer's token leads on.
                    if let (0, Some(next)) = (racer, next) {
                        *token.lock().unwrap() = next;
                    }
                }
                roaming.switched
            }));
        }
    }
    (answers, clients)
}

/// Checks what must hold once every client is done: each call was answered, the racers of one
/// call all reached one node and only one of them advanced, each run finished, and the log holds
/// each planned advance exactly once, in order.
fn check_answers(cluster: &Cluster, answers: &Answers) {
    let answers = answers.lock().unwrap();
    for (run, rounds) in answers.iter() {
        for (round, seen) in rounds.iter().enumerate() {
            let seen: Vec<&Seen> = seen
                .iter()
                .map(|seen| seen.as_ref().unwrap_or_else(|error| panic!("{run} round {round}: {error}")))
                .collect();
            let nodes: Vec<&str> = seen.iter().map(|seen| seen.node.as_str()).collect();
            assert!(nodes.iter().all(|node| *node == nodes[0]), "{run} round {round}: racers reached {nodes:?}");
            let advanced = seen.iter().filter(|seen| !seen.replayed).count();
            let lost = seen.iter().any(|seen| seen.after_loss);
            assert!(
                advanced == 1 || (advanced == 0 && lost),
                "{run} round {round}: one call advances, the others are its replay: {seen:?}"
            );
            assert_eq!(seen[0].complete, round == ROUNDS, "{run} round {round}: {seen:?}");
        }
        assert_eq!(cluster.recorded_notes(run), planned_notes(run), "the log of {run}");
    }
}

#[test]
fn three_servers_on_one_database_advance_each_raced_token_once_and_every_chain_verifies() {
    let cluster = Cluster::start(3);
    let (acknowledged, _) = mpsc::channel();
    let (answers, clients) = race(&cluster, &acknowledged);
    assert_eq!(clients.len(), 32);
    for client in clients {
        assert_eq!(client.join().expect("a client thread"), 0, "no server was lost, no client had to switch");
    }
    check_answers(&cluster, &answers);
    cluster.verify();
}

#[test]
fn a_server_killed_mid_stream_loses_no_acknowledged_advance_and_its_clients_finish_on_another() {
    let mut cluster = Cluster::start(3);
    let (acknowledged, heard) = mpsc::channel();
    let (answers, clients) = race(&cluster, &acknowledged);
    drop(acknowledged);
    // Kill once a good part of the stream is answered, while every client is still advancing.
    for _ in 0..60 {
        heard.recv_timeout(Duration::from_secs(60)).expect("the servers answer advances");
    }
    cluster.servers[0].kill();
    let switched: usize = clients.into_iter().map(|client| client.join().expect("a client thread")).sum();
    assert!(switched > 0, "the killed server's clients went on through another");
    check_answers(&cluster, &answers);
    cluster.verify();
}

/// A logged-in console on a server: the cookies a browser holds and the CSRF token its forms carry.
struct ConsoleLogin {
    cookies: String,
    csrf: String,
}

impl ConsoleLogin {
    fn new(server: &Server) -> Self {
        let (status, head, body) = exchange(&server.address, "GET /login", &[], "").expect("the login page");
        assert_eq!(status, 200, "{head}\n{body}");
        let csrf_cookie = cookie(&head, "switchyard_csrf=");
        let csrf = body
            .split("name=\"csrf\" value=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("the login form carries its CSRF token: {body}"))
            .to_owned();
        let form = format!("csrf={csrf}&token={}", server.token);
        let headers = [("Cookie", csrf_cookie.as_str()), ("Content-Type", "application/x-www-form-urlencoded")];
        let (status, head, body) =
            exchange(&server.address, "POST /login", &headers, &form).expect("the login answers");
        assert_eq!(status, 303, "the login is accepted: {head}\n{body}");
        let session_cookie = cookie(&head, "switchyard_session=");
        Self { cookies: format!("{csrf_cookie}; {session_cookie}"), csrf }
    }

    /// The page's `/events` stream: each `change` event's data, with when it arrived.
    fn events(&self, server: &Server) -> Receiver<(Instant, Value)> {
        let mut stream = TcpStream::connect(&server.address).unwrap();
        let request = format!(
            "GET /events HTTP/1.1\r\nHost: {}\r\nCookie: {}\r\nAccept: text/event-stream\r\n\r\n",
            server.address, self.cookies
        );
        stream.write_all(request.as_bytes()).unwrap();
        let mut lines = BufReader::new(stream).lines();
        let status = lines.next().expect("an answer").unwrap();
        assert!(status.starts_with("HTTP/1.1 200"), "the logged-in page's stream opens: {status}");
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || {
            let mut in_change = false;
            for line in lines.map_while(Result::ok) {
                if line.starts_with("event:") {
                    in_change = line.trim_end() == "event: change";
                } else if let Some(data) = line.strip_prefix("data:").filter(|_| in_change) {
                    let change = serde_json::from_str::<Value>(data.trim()).unwrap_or(Value::Null);
                    if sender.send((Instant::now(), change)).is_err() {
                        return;
                    }
                }
            }
        });
        receiver
    }

    /// Approves the gate `run` waits at, at `node`, with the gate inbox's form.
    fn approve(&self, server: &Server, session: &str, run: &str, node: &str) {
        let form = format!("csrf={}&run={run}&node={node}&session={session}&from=gates", self.csrf);
        let headers = [("Cookie", self.cookies.as_str()), ("Content-Type", "application/x-www-form-urlencoded")];
        let (status, head, body) =
            exchange(&server.address, "POST /gates/approve", &headers, &form).expect("the approval answers");
        assert_eq!(status, 303, "the console approves: {head}\n{body}");
    }
}

/// The `name=value` of the cookie a head sets whose text starts with `prefix`.
fn cookie(head: &str, prefix: &str) -> String {
    header_values(head, "set-cookie")
        .find(|cookie| cookie.starts_with(prefix))
        .and_then(|cookie| cookie.split(';').next())
        .unwrap_or_else(|| panic!("the answer sets a `{prefix}` cookie: {head}"))
        .to_owned()
}

/// Waits for a change of `session` at `seq` or later; how long after `since` it arrived (zero if
/// it arrived before).
fn change_reaches(events: &Receiver<(Instant, Value)>, session: &str, seq: u64, since: Instant) -> Duration {
    loop {
        let (arrived, change) = events.recv_timeout(BOUND.saturating_sub(since.elapsed())).unwrap_or_else(|_| {
            panic!("no change of {session} at seq {seq} reached the other server's console within {BOUND:?}")
        });
        if change["session"] == json!(session) && change["seq"].as_u64().unwrap_or(0) >= seq {
            return arrived.saturating_duration_since(since);
        }
    }
}

fn last_seq(cluster: &Cluster, run: &str) -> u64 {
    let log = cluster.cli(&["log", run, "--limit", "10000"]);
    log.as_array().unwrap().iter().filter_map(|event| event["seq"].as_u64()).max().expect("the run has events")
}

#[test]
fn a_console_page_on_one_server_sees_advances_made_through_another_server_and_the_cli() {
    let cluster = Cluster::start(2);
    let started = cluster.start_run(1, "watched from the other server");
    let (run, session) = (string(&started["runId"]), string(&started["sessionId"]));
    let events = ConsoleLogin::new(&cluster.servers[0]).events(&cluster.servers[0]);
    let mut through_b = Roaming::new(&cluster, 1);
    let mut token = string(&started["continueToken"]);
    // The page's server starts listening to the database when the page subscribes; advance until
    // the first change reaches it, so the measured advance below is not the one that raced it.
    let mut warmed = false;
    for round in 0..200 {
        let seen = through_b.advance(&token, &format!("warming {round}"), "again").unwrap();
        token = seen.next.unwrap();
        if std::iter::from_fn(|| events.try_recv().ok()).any(|(_, change)| change["session"] == json!(session)) {
            warmed = true;
            break;
        }
    }
    assert!(warmed, "no advance through server B reached server A's console");

    let seen = through_b.advance(&token, "measured through server B", "again").unwrap();
    let acknowledged = Instant::now();
    let through_server = change_reaches(&events, &session, last_seq(&cluster, &run), acknowledged);
    println!("an advance through server B reached server A's page {through_server:?} after B acknowledged it");
    assert!(through_server < LIVE, "server A's page heard server B's advance {through_server:?} after it");

    cluster.cli(&["continue", &seen.next.unwrap(), "--notes", "measured through the CLI", "--choice", "again"]);
    let acknowledged = Instant::now();
    let through_cli = change_reaches(&events, &session, last_seq(&cluster, &run), acknowledged);
    println!("an advance through the CLI reached server A's page {through_cli:?} after the CLI finished");
    assert!(through_cli < LIVE, "server A's page heard the CLI's advance {through_cli:?} after it");
    assert_eq!(through_b.switched, 0);
}

/// An MCP client following a run on server A, in both protocol generations, hears each advance
/// made through server B within a second of B's answer, and reads the run as B left it.
#[test]
fn an_mcp_client_following_a_run_on_one_server_hears_advances_made_through_another() {
    let cluster = Cluster::start(2);
    let (a, b) = (&cluster.servers[0], &cluster.servers[1]);
    for mode in ["auto", "legacy"] {
        let started = cluster.start_run(1, &format!("followed from the other server ({mode})"));
        let mut python = Command::new(python());
        python.env("SWITCHYARD_TEST_FOLLOW_TOKEN", &a.token);
        let follower = Follower::start(python, &format!("http://{}/mcp", a.address), mode, &string(&started["runId"]));
        let mut through_b = Roaming::new(&cluster, 1);
        let mut token = string(&started["continueToken"]);
        for round in 0..3 {
            let seen = through_b.advance(&token, &format!("{mode} round {round}"), "again").unwrap();
            let (_, latency) = follower.wait_for(|update| update == format!("active {}", seen.node), BOUND);
            println!("{mode}: an advance through server B reached a client of server A {latency:?} after B answered");
            assert!(latency < LIVE, "{mode}: the client of server A heard server B's advance {latency:?} after it");
            token = seen.next.unwrap();
        }
        assert_eq!(through_b.switched, 0, "server B at {} answered every advance", b.address);
    }
}

#[test]
fn a_runner_waiting_at_a_gate_on_the_database_sees_an_approval_made_through_a_server() {
    const KEY_VARIABLE: &str = "SWITCHYARD_TEST_MODEL_KEY";
    let cluster = Cluster::start(1);
    let model = FakeLlm::start();
    model.otherwise(|_| Reply::tool_call("complete_step", json!({ "notes": "hello: the greeting is written." })));
    let base_url = model.base_url();
    let mut runner = cluster
        .sandbox
        .command(&["--json", "--store", cluster.database.url(), "run", "greeting", "--goal", "greet"])
        .args(["--model", "fake-model", "--base-url", &base_url, "--api-key-env", KEY_VARIABLE])
        .env(KEY_VARIABLE, "sk-test-not-a-real-key")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("switchyard run starts");
    let (sender, events) = mpsc::channel();
    let stdout = runner.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let event: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if sender.send((Instant::now(), event)).is_err() {
                return;
            }
        }
    });
    let next_named = |name: &str, bound: Duration| -> (Instant, Value) {
        let until = Instant::now() + bound;
        loop {
            let (arrived, event) = events
                .recv_timeout(until.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("the runner sent no `{name}` event within {bound:?}"));
            if event["event"] == name {
                return (arrived, event);
            }
        }
    };
    let run = string(&next_named("run_started", Duration::from_secs(60)).1["run"]);
    let (_, waiting) = next_named("waiting_for_human", Duration::from_secs(60));
    assert_eq!(waiting["kind"], "gate", "{waiting}");

    let server = &cluster.servers[0];
    let record = cluster.cli(&["status", &run]);
    ConsoleLogin::new(server).approve(server, &string(&record["session"]), &run, &string(&record["tip"]));
    let approved = Instant::now();
    let (arrived, decided) = next_named("human_decided", BOUND);
    let latency = arrived.saturating_duration_since(approved);
    println!("an approval in a server's console reached the waiting runner {latency:?} after the console answered");
    assert!(latency < LIVE, "the runner heard the console's approval {latency:?} after it");
    assert_eq!(decided["decision"], "approved", "{decided}");
    let (_, finished) = next_named("finished", Duration::from_secs(60));
    assert_eq!(finished["status"], "completed", "{finished}");
    assert_eq!(runner.wait().unwrap().code(), Some(0));
}
