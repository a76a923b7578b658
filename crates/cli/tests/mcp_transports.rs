//! The MCP transports of the real binary, spoken raw: stdio frames (only protocol frames on
//! stdout, malformed frames answered with JSON-RPC errors, a client leaving mid-call) and the
//! HTTP guard of `switchyard serve` (loopback by default, Host and Origin checks from flags or
//! `[serve]`, the bearer token off loopback from a flag, a token file, the environment or
//! `[serve]`, oversized bodies, a client leaving mid-request), and `/metrics` behind that guard.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::TcpStream;
use std::os::fd::AsFd;
use std::process::{Child, ChildStderr, Command, Stdio};

use serde_json::{Value, json};
use switchyard_test_support::Backend;

mod support;

use support::{TestHome, mcp_over_stdio, switchyard_at};

fn initialize(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "raw-test", "version": "1" } } })
}

#[test]
fn stdio_answers_malformed_frames_and_keeps_serving() {
    let home = TestHome::new();
    let workspace = home.path().display().to_string();
    let frames = [
        initialize(1).to_string(),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string(),
        "{not json".to_owned(),
        "[1, 2]".to_owned(),
        json!({ "jsonrpc": "1.0", "id": 7, "method": "tools/list" }).to_string(),
        // JSON-RPC in shape, but rmcp cannot decode it: an id must be a string or a number.
        json!({ "jsonrpc": "2.0", "id": { "not": "an id" }, "method": "ping" }).to_string(),
        // The same as a notification is not answered, as no notification is.
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": "not an object" }).to_string(),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }).to_string(),
        json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "list_workflows", "arguments": { "workspacePath": workspace } } }).to_string(),
    ];
    let mut child = mcp_over_stdio(home.path(), Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    for frame in &frames {
        writeln!(stdin, "{frame}").unwrap();
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|_| panic!("stdout carries only JSON-RPC frames, got `{line}`"))
        })
        .collect();
    let by_id = |id: Value| answers.iter().filter(move |answer| answer["id"] == id).collect::<Vec<_>>();
    let errors: Vec<i64> = by_id(Value::Null).iter().map(|answer| answer["error"]["code"].as_i64().unwrap()).collect();
    assert_eq!(errors, vec![-32700, -32600, -32600], "{answers:?}");
    assert!(
        by_id(Value::Null)[2]["error"]["message"].as_str().unwrap().starts_with("Invalid Request: "),
        "{answers:?}"
    );
    assert_eq!(by_id(json!(7))[0]["error"]["code"], -32600);
    assert_eq!(by_id(json!(2))[0]["result"]["tools"].as_array().unwrap().len(), 7, "served after malformed frames");
    assert!(by_id(json!(3))[0]["result"]["structuredContent"]["workflows"].is_array());
}

#[test]
fn stdio_client_leaving_mid_call_leaves_a_consistent_store() {
    let home = TestHome::new();
    let workspace = home.path().display().to_string();
    let mut child = switchyard_at(home.path())
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", initialize(1)).unwrap();
    writeln!(stdin, "{}", json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).unwrap();
    for id in 2..12 {
        let call = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "start_workflow",
            "arguments": { "workflowId": "dev-cycle", "workspacePath": workspace, "goal": format!("run {id}") } } });
        writeln!(stdin, "{call}").unwrap();
    }
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "the server exits cleanly when its client leaves: {status}");
    let verify = switchyard_at(home.path()).args(["verify", "--json"]).output().unwrap();
    assert!(verify.status.success(), "nothing half-written: {}", String::from_utf8_lossy(&verify.stdout));
}

struct Server {
    child: Child,
    address: String,
    banner: String,
    /// Everything else the server writes on stderr, returned by `stop`.
    stderr: Option<std::thread::JoinHandle<String>>,
}

impl Server {
    /// Stops the server and returns everything it wrote on stderr, the start line included.
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let rest = self.stderr.take().map(|reader| reader.join().unwrap()).unwrap_or_default();
        format!("{}{rest}", self.banner)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(home: &TestHome, extra: &[&str]) -> Server {
    serve_with(switchyard_at(home.path()), extra)
}

/// Spawns `command serve --port 0 <extra>` with stderr piped for reading.
fn spawn_serve(mut command: Command, extra: &[&str]) -> (Child, BufReader<ChildStderr>) {
    let mut child = command
        .args(["serve", "--port", "0"])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = BufReader::new(child.stderr.take().unwrap());
    (child, stderr)
}

/// Starts `command serve --port 0 <extra>` and reads the start line; stderr keeps being drained
/// so the server never blocks on a full pipe.
fn serve_with(command: Command, extra: &[&str]) -> Server {
    let (child, mut reader) = spawn_serve(command, extra);
    // With logs on, log lines may come before the start line.
    let mut before = String::new();
    let banner = loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0
            || line.starts_with("switchyard: ")
            || support::start_line_address(&line).is_some()
        {
            break line;
        }
        before.push_str(&line);
    };
    let stderr = std::thread::spawn(move || {
        let mut rest = before;
        let _ = reader.read_to_string(&mut rest);
        rest
    });
    let address = support::start_line_address(&banner).unwrap_or_else(|| panic!("{banner}"));
    Server { child, address, banner, stderr: Some(stderr) }
}

/// Runs `command serve --port 0 <extra>`, which must refuse to start, and returns its exit code
/// and stderr. A server that starts instead is stopped and fails the test rather than hanging it.
fn serve_refused(command: Command, extra: &[&str]) -> (Option<i32>, String) {
    let (mut child, mut reader) = spawn_serve(command, extra);
    let mut stderr = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 {
            break;
        }
        if line.starts_with("switchyard: serving on") {
            let _ = child.kill();
            let _ = child.wait();
            panic!("serve started instead of refusing:\n{stderr}{line}");
        }
        stderr.push_str(&line);
    }
    (child.wait().unwrap().code(), stderr)
}

/// Sends one HTTP/1.1 request and returns the status code and body.
fn request(address: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String) {
    let (status, _, body) = exchange(address, method, path, headers, body);
    (status, body)
}

/// Sends one HTTP/1.1 request and returns the status code, the response head (status line and
/// headers) and the body.
fn exchange(address: &str, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    let mut stream = TcpStream::connect(address.replace("0.0.0.0", "127.0.0.1")).unwrap();
    let mut text = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    if !headers.iter().any(|(name, _)| name.eq_ignore_ascii_case("host")) {
        text.push_str(&format!("Host: {address}\r\n"));
    }
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    // A server may answer and close before the whole body is sent (an oversized one, say): as a
    // real client does, read its answer even when the write was cut short.
    if let Err(error) = stream.write_all(text.as_bytes()) {
        assert!(
            matches!(error.kind(), ErrorKind::BrokenPipe | ErrorKind::ConnectionReset),
            "writing the request failed: {error}"
        );
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    let status = answer.split_whitespace().nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    (status, head.to_owned(), body.to_owned())
}

const MCP_HEADERS: [(&str, &str); 2] =
    [("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];

fn mcp_post(server: &Server, extra: &[(&str, &str)]) -> (u16, String) {
    let headers: Vec<(&str, &str)> = MCP_HEADERS.iter().copied().chain(extra.iter().copied()).collect();
    request(&server.address, "POST", "/mcp", &headers, &initialize(1).to_string())
}

#[test]
fn serve_binds_loopback_and_checks_host_and_origin() {
    let home = TestHome::new();
    let server = serve(&home, &[]);
    assert!(server.address.starts_with("127.0.0.1:"), "{}", server.banner);
    assert_eq!(mcp_post(&server, &[]).0, 200);
    let (status, body) = mcp_post(&server, &[("Host", "evil.example")]);
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("Host `evil.example` is not allowed"), "{body}");
    let (status, body) = mcp_post(&server, &[("Origin", "http://evil.example")]);
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("Origin"), "{body}");
    assert_eq!(mcp_post(&server, &[("Origin", "http://localhost:5173")]).0, 200);
    assert_eq!(request(&server.address, "GET", "/health", &[], "").0, 200);
}

#[test]
fn serve_off_loopback_requires_a_bearer_token() {
    let home = TestHome::new();
    let (code, stderr) = serve_refused(switchyard_at(home.path()), &["--host", "0.0.0.0"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("needs a bearer token") && stderr.contains("--token"), "{stderr}");

    let server = serve(&home, &["--host", "0.0.0.0", "--token", "s3cret-token"]);
    assert!(server.banner.contains("bearer token required"), "the start line says so: {}", server.banner);
    let (status, body) = mcp_post(&server, &[]);
    assert_eq!(status, 401, "{body}");
    assert_eq!(mcp_post(&server, &[("Authorization", "Bearer wrong-token!")]).0, 401);
    assert_eq!(mcp_post(&server, &[("Authorization", "Bearer s3cret-token")]).0, 200);
}

#[test]
fn serve_answers_programs_with_the_front_page_and_sends_browsers_without_a_login_to_it_behind_the_host_and_origin_checks()
 {
    let home = TestHome::new();
    let server =
        serve(&home, &["--host", "0.0.0.0", "--token", "s3cret-token", "--allowed-host", "switchyard.example"]);
    let named = ("Host", "switchyard.example");
    let (status, head, text) = exchange(&server.address, "GET", "/", &[named], "");
    assert_eq!(status, 200, "{text}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("content-type: text/plain; charset=utf-8"), "{head}");
    assert!(head.contains("content-security-policy: default-src 'none'"), "{head}");
    assert!(head.contains("connection: close"), "a tokenless client is not let in: {head}");
    assert!(text.starts_with("switchyard serve\n") && text.contains("MCP endpoint: /mcp"), "{text}");
    assert!(text.contains("Bearer <token>") && text.contains("console"), "{text}");
    assert!(text.contains("Docs: `switchyard --help`"), "{text}");
    assert!(!text.contains("s3cret-token") && !text.contains(home.path().to_str().unwrap()), "{text}");
    let authorised = [named, ("Authorization", "Bearer s3cret-token")];
    assert_eq!(request(&server.address, "GET", "/", &authorised, ""), (200, text.clone()));
    insta::with_settings!({ prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("serve_front_page_text", text);
    });

    // A browser (it asks for HTML) without the login cookie is sent to the login form, which goes
    // without the token, once, on a connection that is then closed.
    let browser = [named, ("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")];
    let (status, head, _) = exchange(&server.address, "GET", "/", &browser, "");
    assert_eq!(status, 303, "{head}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("location: /login") && head.contains("connection: close"), "{head}");
    let (status, head, html) = exchange(&server.address, "GET", "/login", &browser, "");
    assert_eq!(status, 200, "{head}\n{html}");
    assert!(head.to_ascii_lowercase().contains("connection: close"), "{head}");
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("name=\"token\""), "{html}");
    assert!(!html.contains("s3cret-token"), "{html}");

    // The same guard as every route: a foreign Host or Origin gets no page.
    let (status, body) = request(&server.address, "GET", "/", &[("Host", "evil.example")], "");
    assert_eq!(status, 403, "{body}");
    let (status, body) = request(&server.address, "GET", "/", &[named, ("Origin", "http://evil.example")], "");
    assert_eq!(status, 403, "{body}");
    assert_eq!(request(&server.address, "GET", "/login", &[("Host", "evil.example")], "").0, 403);
    // Only the page itself goes without the token.
    assert_eq!(request(&server.address, "GET", "/health", &[named], "").0, 401);
    assert_eq!(request(&server.address, "POST", "/", &[named], "").0, 401);
    assert_eq!(request(&server.address, "GET", "/other", &[named], "").0, 401);
    assert_eq!(request(&server.address, "GET", "/gates", &[named], "").0, 401);
}

#[test]
fn serve_names_the_console_first_and_the_mcp_endpoint_for_clients() {
    let home = TestHome::new();
    let server = serve(&home, &[]);
    let address = server.address.clone();
    // Answered once the whole start is written: it ends before the server accepts.
    assert_eq!(request(&address, "GET", "/health", &[], "").0, 200);
    let stderr = server.stop();
    let start: String = stderr.lines().take(4).map(|line| format!("{line}\n")).collect();
    assert!(
        start.starts_with(&format!("switchyard: serving on http://{address} (loopback only, no token)")),
        "{start}"
    );
    let console = start.find(&format!("http://{address}/ ")).unwrap_or_else(|| panic!("the console: {stderr}"));
    let mcp = start.find(&format!("http://{address}/mcp ")).unwrap_or_else(|| panic!("the MCP endpoint: {stderr}"));
    assert!(console < mcp, "the console first: {start}");
    let port = address.rsplit(':').next().unwrap();
    insta::with_settings!({ prepend_module_to_snapshot => false, filters => vec![(port, "[port]")] }, {
        insta::assert_snapshot!("serve_start_line", start);
    });
}

#[test]
fn a_browser_at_the_mcp_endpoint_is_sent_to_the_console_while_mcp_clients_still_get_their_stream() {
    let home = TestHome::new();
    let server = serve(&home, &["--token", "s3cret-token"]);
    let browser = [("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")];
    let (status, head, body) = exchange(&server.address, "GET", "/mcp", &browser, "");
    assert_eq!(status, 303, "{head}\n{body}");
    let head = head.to_ascii_lowercase();
    assert!(head.contains("location: /\r\n") && head.contains("connection: close"), "{head}");
    // Not for a foreign Host: the guard answers first.
    let foreign = [browser[0], ("Host", "evil.example")];
    assert_eq!(request(&server.address, "GET", "/mcp", &foreign, "").0, 403);

    // An MCP client's GET (it accepts the event stream) still opens the stream.
    let mut client = support::mcp_http::McpClient::connect(&server.address, Some("s3cret-token")).expect("a session");
    assert!(client.request("tools/list", &json!({})).is_some());
    let session = client.session().expect("a session id").to_owned();
    let mut stream = TcpStream::connect(&server.address).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream, text/html\r\nAuthorization: Bearer s3cret-token\r\nMcp-Session-Id: {session}\r\n\r\n",
        server.address
    );
    stream.write_all(get.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0_u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "the stream's head: {}", String::from_utf8_lossy(&head));
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    assert!(head.starts_with("http/1.1 200"), "{head}");
    assert!(head.contains("content-type: text/event-stream"), "{head}");
}

#[test]
fn serve_under_json_logs_writes_its_start_line_as_a_json_log_line() {
    let home = TestHome::new();
    let server = serve_logging_json(&home);
    let address = server.address.clone();
    // A refusal, so that a log line follows the start line.
    assert_eq!(mcp_post(&server, &[]).0, 401);
    let stderr = server.stop();
    let lines: Vec<Value> = stderr
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|error| panic!("not JSON ({error}): {line}")))
        .collect();
    let start = &lines[0];
    assert_eq!(start["event"], "serve_started", "{stderr}");
    assert_eq!(start["level"], "INFO");
    assert_eq!(start["address"], address.as_str());
    assert_eq!(start["console"], format!("http://{address}/"));
    assert_eq!(start["mcp"], format!("http://{address}/mcp"));
    assert_eq!(start["metrics"], format!("http://{address}/metrics"));
    assert_eq!(start["access"], "bearer token required, from --token");
    assert!(lines.iter().any(|line| line["event"] == "security_refused"), "{stderr}");
    assert!(!stderr.contains("s3cret-token"), "{stderr}");
}

#[test]
fn serve_logs_every_refusal_of_its_guard_and_a_wrong_login_without_the_secrets_sent() {
    let home = TestHome::new();
    let server = serve_logging_json(&home);
    let authorised = ("Authorization", "Bearer s3cret-token");
    assert_eq!(mcp_post(&server, &[]).0, 401);
    assert_eq!(mcp_post(&server, &[("Authorization", "Bearer guessed-token-1")]).0, 401);
    assert_eq!(request(&server.address, "GET", "/health", &[("Host", "evil.example"), authorised], "").0, 403);
    assert_eq!(mcp_post(&server, &[("Origin", "http://evil.example"), authorised]).0, 403);
    // A wrong login, then a right one whose cookie does not open /mcp.
    let (_, head, html) = exchange(&server.address, "GET", "/login", &[("Accept", "text/html")], "");
    let csrf_cookie = cookie_pair(&set_cookie(&head, "switchyard_csrf").unwrap());
    let csrf = hidden_field(&html, "csrf");
    let form = [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", csrf_cookie.as_str())];
    let wrong_login = format!("csrf={csrf}&token=guessed-login-2");
    assert_eq!(request(&server.address, "POST", "/login", &form, &wrong_login).0, 401);
    let (status, head, _) =
        exchange(&server.address, "POST", "/login", &form, &format!("csrf={csrf}&token=s3cret-token"));
    assert_eq!(status, 303, "{head}");
    let session = cookie_pair(&set_cookie(&head, "switchyard_session").unwrap());
    assert_eq!(mcp_post(&server, &[("Cookie", session.as_str())]).0, 401);
    assert_eq!(mcp_post(&server, &[authorised]).0, 200, "an accepted request logs no refusal");

    let stderr = server.stop();
    let refusals = refusal_lines(&stderr);
    let seen: Vec<(&str, &str, &str)> = refusals
        .iter()
        .map(|line| {
            (line["door"].as_str().unwrap(), line["reason"].as_str().unwrap(), line["path"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("http", "bearer_token_missing", "/mcp"),
            ("http", "bearer_token_wrong", "/mcp"),
            ("http", "host_not_allowed", "/health"),
            ("http", "origin_not_allowed", "/mcp"),
            ("console", "login_token_wrong", ""),
            ("http", "bearer_token_missing", "/mcp"),
        ],
        "{stderr}"
    );
    for line in &refusals {
        assert_eq!((&line["level"], &line["target"]), (&json!("WARN"), &json!("switchyard::lifecycle")), "{line}");
        assert!(line["peer"].as_str().is_some_and(|peer| peer.starts_with("127.0.0.1:")), "who asked: {line}");
    }
    assert_eq!((&refusals[0]["status"], &refusals[0]["method"]), (&json!(401), &json!("POST")));
    assert_eq!((&refusals[2]["status"], &refusals[2]["host"]), (&json!(403), &json!("evil.example")));
    assert_eq!(refusals[3]["origin"], "http://evil.example");
    let session_value = session.split_once('=').unwrap().1;
    for secret in ["s3cret-token", "guessed-token-1", "guessed-login-2", session_value, csrf.as_str()] {
        assert!(!stderr.contains(secret), "`{secret}` is in the log:\n{stderr}");
    }
}

#[test]
fn a_flood_of_refused_requests_logs_a_bounded_number_of_lines_that_still_count_every_refusal() {
    let home = TestHome::new();
    let server = serve_logging_json(&home);
    let flood: u64 = 200;
    for _ in 0..flood {
        assert_eq!(mcp_post(&server, &[]).0, 401);
    }
    // After a quiet second the next refusal is logged, carrying whatever the flood left out.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(mcp_post(&server, &[]).0, 401);

    let stderr = server.stop();
    let refusals = refusal_lines(&stderr);
    let counted: u64 = refusals.iter().map(|line| 1 + line["suppressed"].as_u64().expect("a count")).sum();
    assert_eq!(counted, flood + 1, "each refusal is a line or counted by a later one:\n{stderr}");
    assert!(
        (refusals.len() as u64) < flood / 2,
        "{} lines for {} refusals: at most 10 a second",
        refusals.len(),
        flood + 1
    );
}

/// `switchyard serve --token s3cret-token` logging JSON lines.
fn serve_logging_json(home: &TestHome) -> Server {
    let mut command = switchyard_at(home.path());
    command.args(["--log-format", "json"]);
    serve_with(command, &["--token", "s3cret-token"])
}

/// The `security_refused` lines of a server's JSON log.
fn refusal_lines(stderr: &str) -> Vec<Value> {
    stderr
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|line| line["event"] == "security_refused")
        .collect()
}

/// The `Set-Cookie` header of `head` for cookie `name`, whole.
fn set_cookie(head: &str, name: &str) -> Option<String> {
    head.lines()
        .filter_map(|line| line.split_once(':'))
        .filter(|(header, _)| header.eq_ignore_ascii_case("set-cookie"))
        .map(|(_, value)| value.trim().to_owned())
        .find(|value| value.starts_with(&format!("{name}=")))
}

/// The `name=value` part of a `Set-Cookie` header.
fn cookie_pair(set_cookie: &str) -> String {
    set_cookie.split(';').next().unwrap().to_owned()
}

/// The value of the first hidden field `name` of a page.
fn hidden_field(html: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let start = html.find(&marker).unwrap_or_else(|| panic!("no field `{name}` in {html}")) + marker.len();
    html[start..start + html[start..].find('"').unwrap()].to_owned()
}

#[test]
fn serve_console_login_takes_the_token_once_and_sets_a_derived_cookie_that_opens_the_console_but_not_mcp() {
    let home = TestHome::new();
    let server = serve(&home, &["--host", "0.0.0.0", "--token", "s3cret-token"]);
    let html_accept = ("Accept", "text/html");
    let (_, head, html) = exchange(&server.address, "GET", "/login", &[html_accept], "");
    let csrf_cookie = cookie_pair(&set_cookie(&head, "switchyard_csrf").expect("the login form sets the CSRF cookie"));
    let csrf = hidden_field(&html, "csrf");
    let form = [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", csrf_cookie.as_str())];

    let (status, head, body) =
        exchange(&server.address, "POST", "/login", &form, &format!("csrf={csrf}&token=wrong-token"));
    assert_eq!(status, 401, "{head}\n{body}");
    assert!(set_cookie(&head, "switchyard_session").is_none(), "{head}");
    assert!(body.contains("That token is not accepted.") && !body.contains("wrong-token"), "says no more: {body}");
    let (status, _, _) = exchange(&server.address, "POST", "/login", &form, "csrf=forged&token=s3cret-token");
    assert_eq!(status, 403, "the login form needs its CSRF token too");

    let (status, head, _) =
        exchange(&server.address, "POST", "/login", &form, &format!("csrf={csrf}&token=s3cret-token"));
    assert_eq!(status, 303, "{head}");
    assert!(head.to_ascii_lowercase().contains("location: /"), "{head}");
    let session = set_cookie(&head, "switchyard_session").expect("the session cookie");
    for flag in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(session.split("; ").any(|part| part == flag), "{flag} in {session}");
    }
    assert!(
        !session.contains("s3cret-token"),
        "the cookie holds a value derived from the token, not the token: {session}"
    );

    let logged_in = cookie_pair(&session) + "; " + &csrf_cookie;
    let browser = [html_accept, ("Cookie", logged_in.as_str())];
    let (status, html) = request(&server.address, "GET", "/", &browser, "");
    assert_eq!(status, 200, "{html}");
    assert!(html.contains("<h1>Sessions</h1>") && html.contains("/assets/live.js"), "{html}");
    assert_eq!(request(&server.address, "GET", "/gates", &browser, "").0, 200);
    let (status, _) = request(
        &server.address,
        "POST",
        "/mcp",
        &[&MCP_HEADERS[..], &[("Cookie", logged_in.as_str())]].concat(),
        &initialize(1).to_string(),
    );
    assert_eq!(status, 401, "the cookie does not open /mcp");
    let (_, html) = request(&server.address, "GET", "/", &browser, "");
    let logout = format!("csrf={}", hidden_field(&html, "csrf"));
    let (status, head, _) = exchange(
        &server.address,
        "POST",
        "/logout",
        &[&form[..1], &[("Cookie", logged_in.as_str())]].concat(),
        &logout,
    );
    assert_eq!(status, 303, "{head}");
    let cleared = set_cookie(&head, "switchyard_session").expect("log out clears the cookie");
    assert!(cleared.starts_with("switchyard_session=;") && cleared.contains("Max-Age=0"), "{cleared}");
    let forged = "switchyard_session=".to_owned() + &"0".repeat(64);
    let (status, head, _) = exchange(&server.address, "GET", "/", &[html_accept, ("Cookie", forged.as_str())], "");
    assert_eq!(status, 303, "a forged cookie is sent to log in: {head}");
}

/// Starts a `dev-cycle` run at `home` and reports on its first step, so that it waits at a gate;
/// returns the run id.
fn run_waiting_at_a_gate(home: &std::path::Path) -> String {
    let output = switchyard_at(home).args(["--json", "start", "dev-cycle", "--goal", "Gate me"]).output().unwrap();
    let started: Value = serde_json::from_slice(&output.stdout).unwrap();
    let token = started["tokens"]["continue_token"].as_str().unwrap().to_owned();
    let output = switchyard_at(home).args(["--json", "continue", &token, "--notes", "Planned."]).output().unwrap();
    let waiting: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(waiting["status"], "waiting_gate", "{waiting}");
    waiting["run"].as_str().unwrap().to_owned()
}

fn run_status(home: &std::path::Path, run: &str) -> String {
    let output = switchyard_at(home).args(["--json", "status", run]).output().unwrap();
    let status: Value = serde_json::from_slice(&output.stdout).unwrap();
    status["status"].as_str().unwrap_or_else(|| panic!("{status}")).to_owned()
}

#[test]
fn serve_console_forms_need_this_browsers_csrf_token_and_a_local_origin() {
    let home = TestHome::new();
    let run = run_waiting_at_a_gate(home.path());
    let server = serve(&home, &[]);
    let (status, head, html) = exchange(&server.address, "GET", "/gates", &[("Accept", "text/html")], "");
    assert_eq!(status, 200, "{html}");
    assert!(html.contains(&format!("id=\"gate-{run}\"")), "the run waits in the inbox: {html}");
    let cookie = cookie_pair(&set_cookie(&head, "switchyard_csrf").unwrap());
    let fields = ["run", "node", "session"].map(|name| format!("{name}={}", hidden_field(&html, name))).join("&");
    let csrf = hidden_field(&html, "csrf");
    let form = [("Content-Type", "application/x-www-form-urlencoded"), ("Cookie", cookie.as_str())];

    let (status, body) = request(&server.address, "POST", "/gates/approve", &form, &fields);
    assert_eq!(status, 403, "no CSRF token: {body}");
    // The real token with its first digit changed.
    let wrong = format!("{}{}", if csrf.starts_with('0') { '1' } else { '0' }, &csrf[1..]);
    let (status, body) = request(&server.address, "POST", "/gates/approve", &form, &format!("{fields}&csrf={wrong}"));
    assert_eq!(status, 403, "a wrong CSRF token: {body}");
    let foreign = [&form[..], &[("Origin", "http://evil.example")]].concat();
    let (status, body) = request(&server.address, "POST", "/gates/approve", &foreign, &format!("{fields}&csrf={csrf}"));
    assert_eq!(status, 403, "a foreign Origin: {body}");
    // Another port of this machine passes the guard (MCP clients on local dev servers), but its
    // pages are another origin: their forms are refused even with a valid token.
    let other_port = [&form[..], &[("Origin", "http://127.0.0.1:1")]].concat();
    let (status, body) =
        request(&server.address, "POST", "/gates/approve", &other_port, &format!("{fields}&csrf={csrf}"));
    assert_eq!(status, 403, "another local origin: {body}");
    assert!(body.contains("another site"), "{body}");
    assert_eq!(run_status(home.path(), &run), "waiting_gate", "nothing moved");

    let origin = format!("http://{}", server.address);
    let local = [&form[..], &[("Origin", origin.as_str())]].concat();
    let (status, head, _) =
        exchange(&server.address, "POST", "/gates/approve", &local, &format!("{fields}&csrf={csrf}"));
    assert_eq!(status, 303, "{head}");
    assert!(head.to_ascii_lowercase().contains("location: /gates"), "{head}");
    assert_eq!(run_status(home.path(), &run), "active", "approved as `switchyard approve` would");
}

/// Sends `secret` as the bearer token (accepted), stops the server, and checks that its logs,
/// which were on, never show the secret.
fn accepts_the_secret_and_never_logs_it(server: Server, secret: &str) {
    assert_eq!(mcp_post(&server, &[("Authorization", &format!("Bearer {secret}"))]).0, 200);
    let stderr = server.stop();
    assert!(stderr.contains("serving the console and MCP over HTTP"), "logs were on: {stderr}");
    assert!(!stderr.contains(secret), "the token never appears in the logs:\n{stderr}");
}

/// Writes `text` to `path` readable by its owner only.
fn write_private(path: &std::path::Path, text: &str) {
    std::fs::write(path, text).unwrap();
    make_private(path);
}

fn make_private(path: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

#[test]
fn serve_off_loopback_with_only_the_config_token_requires_it_and_never_logs_it() {
    let home = TestHome::new();
    let secret = "cfg-secret-7f3a9c21e4b8";
    write_private(&home.path().join("serve-token"), &format!("{secret}\n"));
    home.write_config("[serve]\nhost = \"0.0.0.0\"\ntoken_file = \"serve-token\"\n");
    let mut command = switchyard_at(home.path());
    command.current_dir(home.path()).env("SWITCHYARD_LOG", "trace");
    let server = serve_with(command, &[]);
    assert!(server.address.starts_with("0.0.0.0:"), "the host comes from [serve]: {}", server.banner);
    assert!(
        server.banner.contains("bearer token required, from token_file") && server.banner.contains("serve-token"),
        "the start line says where the token comes from: {}",
        server.banner
    );
    let (status, body) = mcp_post(&server, &[]);
    assert_eq!(status, 401, "{body}");
    let (status, body) = mcp_post(&server, &[("Authorization", "Bearer cfg-secret-wrong")]);
    assert_eq!(status, 401, "a wrong token: {body}");
    assert!(body.contains("missing or wrong bearer token"), "{body}");
    accepts_the_secret_and_never_logs_it(server, secret);
}

#[test]
fn serve_refuses_an_inline_config_token_that_other_users_can_read() {
    use std::os::unix::fs::PermissionsExt;
    let home = TestHome::new();
    let secret = "inline-secret-0c9d2e";
    let config = home.config_file();
    home.write_config(&format!("[serve]\nhost = \"0.0.0.0\"\ntoken = \"{secret}\"\n"));
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut command = switchyard_at(home.path());
    command.current_dir(home.path());
    let (code, stderr) = serve_refused(command, &[]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("open to other users") && stderr.contains("chmod 600"), "says how to fix it: {stderr}");
    assert!(!stderr.contains(secret), "{stderr}");
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o600)).unwrap();
    let mut command = switchyard_at(home.path());
    command.current_dir(home.path());
    let server = serve_with(command, &[]);
    assert!(server.banner.contains("[serve] token in"), "{}", server.banner);
    assert_eq!(mcp_post(&server, &[]).0, 401);
    assert_eq!(mcp_post(&server, &[("Authorization", &format!("Bearer {secret}"))]).0, 200);
}

#[test]
fn serve_token_precedence_is_flag_then_environment_then_config() {
    let home = TestHome::new();
    home.write_config("[serve]\ntoken = \"from-config\"\n");
    make_private(&home.config_file());
    let accepted = |server: &Server| -> Vec<&str> {
        ["from-flag", "from-env", "from-config"]
            .into_iter()
            .filter(|token| mcp_post(server, &[("Authorization", &format!("Bearer {token}"))]).0 == 200)
            .collect()
    };
    let mut command = switchyard_at(home.path());
    command.current_dir(home.path()).env("SWITCHYARD_SERVE_TOKEN", "from-env");
    let server = serve_with(command, &["--token", "from-flag"]);
    assert!(server.banner.contains("from --token"), "{}", server.banner);
    assert_eq!(accepted(&server), ["from-flag"]);
    drop(server);
    let mut command = switchyard_at(home.path());
    command.current_dir(home.path()).env("SWITCHYARD_SERVE_TOKEN", "from-env");
    let server = serve_with(command, &[]);
    assert!(server.banner.contains("from SWITCHYARD_SERVE_TOKEN"), "{}", server.banner);
    assert_eq!(accepted(&server), ["from-env"]);
    drop(server);
    let mut command = switchyard_at(home.path());
    command.current_dir(home.path());
    let server = serve_with(command, &[]);
    assert_eq!(accepted(&server), ["from-config"], "{}", server.banner);
}

#[test]
fn serve_takes_allowed_hosts_and_origins_from_the_config_and_flags_replace_them() {
    let home = TestHome::new();
    home.write_config("[serve]\nallowed_hosts = [\"app.example\"]\nallowed_origins = [\"https://app.example\"]\n");
    let mut command = switchyard_at(home.path());
    command.current_dir(home.path());
    let server = serve_with(command, &[]);
    assert_eq!(mcp_post(&server, &[("Host", "app.example")]).0, 200, "a configured host");
    assert_eq!(mcp_post(&server, &[("Host", "app.example:7878")]).0, 200, "a configured name with any port");
    let (status, body) = mcp_post(&server, &[("Host", "other.example")]);
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("Host `other.example` is not allowed") && body.contains("app.example"), "{body}");
    assert_eq!(mcp_post(&server, &[("Origin", "https://app.example")]).0, 200, "a configured origin");
    let (status, body) = mcp_post(&server, &[("Origin", "https://other.example")]);
    assert_eq!(status, 403, "{body}");
    drop(server);

    let mut command = switchyard_at(home.path());
    command.current_dir(home.path());
    let server = serve_with(command, &["--allowed-host", "cli.example"]);
    assert_eq!(mcp_post(&server, &[("Host", "cli.example")]).0, 200, "the flag's host");
    assert_eq!(mcp_post(&server, &[("Host", "app.example")]).0, 403, "the flag replaces the configured hosts");
    assert_eq!(mcp_post(&server, &[("Origin", "https://app.example")]).0, 200, "origins still come from the config");
}

#[test]
fn serve_refuses_to_start_on_an_allowed_entry_that_can_never_match() {
    let home = TestHome::new();
    let config = home.config_file();
    let in_home = || {
        let mut command = switchyard_at(home.path());
        command.current_dir(home.path());
        command
    };
    home.write_config("[serve]\nallowed_origins = [\"app.example\"]\n");
    let (code, stderr) = serve_refused(in_home(), &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("{} [serve] allowed_origins: `app.example` has no scheme", config.display()))
            && stderr.contains("`https://app.example`"),
        "names the file, the key and the fix: {stderr}"
    );
    home.write_config("[serve]\nallowed_hosts = [\"\"]\n");
    let (code, stderr) = serve_refused(in_home(), &[]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("[serve] allowed_hosts: an empty entry matches no request"), "{stderr}");
    home.write_config("");
    let (code, stderr) = serve_refused(in_home(), &["--allowed-origin", "localhost:5173"]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("--allowed-origin: `localhost:5173` has no scheme"), "the flags are checked too: {stderr}");
}

#[test]
fn serve_token_file_flag_requires_its_trimmed_token_and_beats_the_environment() {
    let home = TestHome::new();
    let secret = "flag-file-secret-5e1b77";
    let token_file = home.path().join("flag-token");
    write_private(&token_file, &format!("  {secret}\n"));
    let mut command = switchyard_at(home.path());
    command.env("SWITCHYARD_SERVE_TOKEN", "from-env").env("SWITCHYARD_LOG", "trace");
    let server = serve_with(command, &["--token-file", token_file.to_str().unwrap()]);
    assert!(
        server.banner.contains(&format!("bearer token required, from --token-file {}", token_file.display())),
        "{}",
        server.banner
    );
    let (status, body) = mcp_post(&server, &[]);
    assert_eq!(status, 401, "no bearer: {body}");
    assert_eq!(mcp_post(&server, &[("Authorization", "Bearer from-env")]).0, 401, "the flag beats the environment");
    accepts_the_secret_and_never_logs_it(server, secret);
}

#[test]
fn serve_refuses_a_token_file_others_can_read_an_empty_one_or_one_beside_token() {
    use std::os::unix::fs::PermissionsExt;
    let home = TestHome::new();
    let secret = "world-readable-9a8b7c";
    let token_file = home.path().join("flag-token");
    std::fs::write(&token_file, secret).unwrap();
    std::fs::set_permissions(&token_file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let start = |extra: &[&str]| serve_refused(switchyard_at(home.path()), extra);
    let (code, stderr) = start(&["--token-file", token_file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("open to other users (mode 644)")
            && stderr.contains(&format!("chmod 600 {}", token_file.display())),
        "says how to fix it: {stderr}"
    );
    assert!(!stderr.contains(secret), "{stderr}");
    write_private(&token_file, " \n");
    let (code, stderr) = start(&["--token-file", token_file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("is empty"), "{stderr}");
    let (code, stderr) = start(&["--token", "t0ken", "--token-file", token_file.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("cannot be used with")
            && stderr.contains("'--token-file <PATH>'")
            && stderr.contains("'--token <TOKEN>'"),
        "{stderr}"
    );
}

#[test]
fn serve_refuses_huge_bodies_and_survives_clients_leaving_mid_request() {
    let home = TestHome::new();
    let server = serve(&home, &[]);
    let huge =
        format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"pad\":\"{}\"}}", "x".repeat(5 * 1024 * 1024));
    let (status, _) = request(&server.address, "POST", "/mcp", &MCP_HEADERS, &huge);
    assert_eq!(status, 413);
    for _ in 0..5 {
        let mut stream = TcpStream::connect(&server.address).unwrap();
        let partial = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Length: 1000\r\nContent-Type: application/json\r\n\r\n{{\"jsonrpc\"",
            server.address
        );
        stream.write_all(partial.as_bytes()).unwrap();
        drop(stream);
    }
    let (status, body) = request(&server.address, "POST", "/mcp", &MCP_HEADERS, "{\"jsonrpc\": ");
    // Answered as stdio answers the same frame: a JSON-RPC parse error.
    assert!(status == 400 && body.contains("-32700"), "a malformed body is a protocol error: {status} {body}");
    assert_eq!(mcp_post(&server, &[]).0, 200, "the server keeps serving");
}

#[test]
fn file_tools_are_served_only_behind_the_flag() {
    let home = TestHome::new();
    let list = |extra: &[&str]| -> Vec<Value> {
        let mut child = switchyard_at(home.path())
            .arg("mcp")
            .args(extra)
            .current_dir(home.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{}", initialize(1)).unwrap();
        writeln!(stdin, "{}", json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).unwrap();
        writeln!(stdin, "{}", json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" })).unwrap();
        let read = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "read_file", "arguments": { "path": "{project-root}/x" } } });
        writeln!(stdin, "{read}").unwrap();
        drop(stdin);
        let output = child.wait_with_output().unwrap();
        String::from_utf8(output.stdout).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect()
    };
    let plain = list(&[]);
    let tools = |answers: &[Value]| {
        answers.iter().find(|answer| answer["id"] == 2).unwrap()["result"]["tools"].as_array().unwrap().len()
    };
    assert_eq!(tools(&plain), 7);
    let unknown = plain.iter().find(|answer| answer["id"] == 3).unwrap();
    assert!(unknown["error"]["message"].as_str().unwrap().contains("Unknown tool: read_file"), "{unknown}");
    let with_files = list(&["--file-tools"]);
    assert_eq!(tools(&with_files), 14);
    let read = with_files.iter().find(|answer| answer["id"] == 3).unwrap();
    assert_eq!(read["result"]["isError"], true, "{read}");
    let envelope: Value = serde_json::from_str(read["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert!(envelope["code"].is_string() && envelope["retry"]["kind"] == "not_retryable", "{envelope}");
}

/// A file of stdio frames: `initialize`, `notifications/initialized`, then `requests`.
fn frames_file(home: &TestHome, requests: &[Value]) -> std::path::PathBuf {
    let mut lines =
        vec![initialize(1).to_string(), json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string()];
    lines.extend(requests.iter().map(Value::to_string));
    let path = home.path().join("frames.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}

#[test]
fn stdio_reads_frames_from_a_file_as_from_a_pipe() {
    // Clients start servers with pipes, which are read on the event loop; a file (or a terminal)
    // is read through blocking threads instead. Both serve.
    let home = TestHome::new();
    let frames = frames_file(&home, &[json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" })]);
    let output = switchyard_at(home.path())
        .arg("mcp")
        .stdin(std::fs::File::open(&frames).unwrap())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let answers: Vec<Value> =
        String::from_utf8(output.stdout).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let tools = answers.iter().find(|answer| answer["id"] == 2).expect("tools/list answered");
    assert_eq!(tools["result"]["tools"].as_array().unwrap().len(), 7);
}

#[test]
fn stdio_leaves_the_pipes_it_shares_blocking() {
    // tokio's pipes make the open pipe non-blocking, and the parent shares it: a shell running
    // `switchyard mcp` in a pipeline, then another command on the same stdin or stdout, would get
    // EAGAIN where it expects to wait. switchyard puts the flags back as it exits.
    let home = TestHome::new();
    let (stdin_read, mut stdin_write) = std::io::pipe().unwrap();
    let (stdout_read, stdout_write) = std::io::pipe().unwrap();
    let (shared_stdin, shared_stdout) = (stdin_read.try_clone().unwrap(), stdout_write.try_clone().unwrap());
    let mut child = switchyard_at(home.path())
        .arg("mcp")
        .stdin(stdin_read)
        .stdout(stdout_write)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    writeln!(stdin_write, "{}", initialize(1)).unwrap();
    let mut answer = String::new();
    BufReader::new(stdout_read).read_line(&mut answer).unwrap();
    assert!(answer.contains("protocolVersion"), "{answer}");
    let nonblocking =
        |fd: std::os::fd::BorrowedFd<'_>| rustix::fs::fcntl_getfl(fd).unwrap().contains(rustix::fs::OFlags::NONBLOCK);
    assert!(nonblocking(shared_stdin.as_fd()), "the server reads its pipe without blocking while it runs");
    drop(stdin_write);
    assert!(child.wait().unwrap().success());
    assert!(!nonblocking(shared_stdin.as_fd()), "stdin is blocking again");
    assert!(!nonblocking(shared_stdout.as_fd()), "stdout is blocking again");
}

#[test]
fn stdio_with_stderr_on_the_same_pipe_answers_every_frame() {
    // `switchyard mcp 2>&1`: stdout and stderr are one pipe, so stdout is written with blocking
    // writes. Non-blocking mode would be the shared pipe's: with the pipe full, log writes failed
    // with EAGAIN, and the build before this test exited with a panic (code 101) after answering
    // one frame of 61. The reader waits until far more than a pipe's 64 KiB is pending.
    let home = TestHome::new();
    let requests: usize = 60;
    let list = |id| json!({ "jsonrpc": "2.0", "id": 100 + id, "method": "tools/list" });
    let frames = frames_file(&home, &(0..requests).map(list).collect::<Vec<_>>());
    let (mut reader, writer) = std::io::pipe().unwrap();
    let mut child = switchyard_at(home.path())
        .arg("mcp")
        .env("SWITCHYARD_LOG", "debug")
        .stdin(std::fs::File::open(&frames).unwrap())
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    let mut text = String::new();
    reader.read_to_string(&mut text).unwrap();
    assert!(child.wait().unwrap().success());
    let (frames, logs): (Vec<&str>, Vec<&str>) = text.lines().partition(|line| line.starts_with('{'));
    let answered = frames
        .iter()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|answer| answer["id"].as_u64().is_some_and(|id| id >= 100))
        .count();
    assert_eq!(answered, requests, "every tools/list answered, whole");
    assert!(!logs.is_empty(), "debug logs share the pipe");
}

/// `GET /metrics` with `headers`: the status, the response head and the body.
fn scrape(server: &Server, headers: &[(&str, &str)]) -> (u16, String, String) {
    exchange(&server.address, "GET", "/metrics", headers, "")
}

/// Reads an OpenMetrics text exposition strictly: every sample's name was declared by a `# TYPE`
/// line of a known type before it, every value is a number, and the text ends with `# EOF`.
/// Returns each sample (`name{labels}`) with its value.
fn parse_exposition(text: &str) -> std::collections::HashMap<String, f64> {
    let mut types = std::collections::HashMap::new();
    let mut samples = std::collections::HashMap::new();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.last(), Some(&"# EOF"), "the exposition ends with # EOF:\n{text}");
    for line in &lines[..lines.len() - 1] {
        if let Some(declared) = line.strip_prefix("# TYPE ") {
            let (name, kind) = declared.split_once(' ').unwrap_or_else(|| panic!("bad TYPE line `{line}`"));
            assert!(["counter", "gauge", "histogram", "info"].contains(&kind), "`{line}`");
            types.insert(name.to_owned(), kind.to_owned());
            continue;
        }
        if line.starts_with("# HELP ") || line.starts_with("# UNIT ") {
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("bad sample line `{line}`"));
        let name = series.split('{').next().unwrap();
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':'),
            "bad metric name in `{line}`"
        );
        assert!(series == name || series.ends_with('}'), "bad labels in `{line}`");
        let family = ["_total", "_bucket", "_count", "_sum"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix).filter(|family| types.contains_key(*family)))
            .unwrap_or(name);
        assert!(types.contains_key(family), "`{name}` has no # TYPE line before it:\n{text}");
        let value: f64 = value.parse().unwrap_or_else(|_| panic!("not a number in `{line}`"));
        samples.insert(series.to_owned(), value);
    }
    samples
}

/// One MCP call over HTTP in `session`: the JSON-RPC answer, read from the SSE stream.
fn mcp_call(server: &Server, session: &str, id: u64, tool: &str, arguments: &Value) -> Value {
    let call = json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": tool, "arguments": arguments } });
    let headers: Vec<(&str, &str)> = MCP_HEADERS.iter().copied().chain([("Mcp-Session-Id", session)]).collect();
    let (status, _, body) = exchange(&server.address, "POST", "/mcp", &headers, &call.to_string());
    assert_eq!(status, 200, "{body}");
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .find(|answer| answer["id"] == id)
        .unwrap_or_else(|| panic!("no answer to {id} in {body}"))
}

/// Opens an MCP session over HTTP and returns its id.
fn mcp_session(server: &Server) -> String {
    let (status, head, body) = exchange(&server.address, "POST", "/mcp", &MCP_HEADERS, &initialize(1).to_string());
    assert_eq!(status, 200, "{body}");
    let session = head
        .lines()
        .find_map(|line| line.split_once(':').filter(|(name, _)| name.eq_ignore_ascii_case("mcp-session-id")))
        .map(|(_, value)| value.trim().to_owned())
        .unwrap_or_else(|| panic!("no session id in {head}"));
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let headers: Vec<(&str, &str)> =
        MCP_HEADERS.iter().copied().chain([("Mcp-Session-Id", session.as_str())]).collect();
    assert_eq!(exchange(&server.address, "POST", "/mcp", &headers, &initialized.to_string()).0, 202);
    session
}

#[test]
fn serve_metrics_parse_as_openmetrics_and_move_after_advances_over_mcp() {
    let home = TestHome::new();
    let server = serve(&home, &[]);
    let (status, head, body) = scrape(&server, &[]);
    assert_eq!(status, 200, "{body}");
    assert!(head.to_ascii_lowercase().contains("content-type: application/openmetrics-text"), "{head}");
    let before = parse_exposition(&body);
    for name in ["switchyard_advances_total", "switchyard_blocked_attempts_total", "switchyard_gates_waiting"] {
        assert_eq!(before.get(name), Some(&0.0), "{name} starts at 0:\n{body}");
    }
    for declared in ["# TYPE switchyard_commit_seconds histogram", "# TYPE switchyard_runs_finished counter"] {
        assert!(body.contains(declared), "`{declared}` in:\n{body}");
    }

    let session = mcp_session(&server);
    let workspace = home.path().display().to_string();
    let call = |id: u64, tool: &str, arguments: Value| mcp_call(&server, &session, id, tool, &arguments);
    let token = |answer: &Value, field: &str| {
        answer["result"]["structuredContent"][field]
            .as_str()
            .unwrap_or_else(|| panic!("no {field} in {answer}"))
            .to_owned()
    };
    let started =
        call(2, "start_workflow", json!({ "workflowId": "dev-cycle", "workspacePath": workspace, "goal": "metrics" }));
    let report = |text: &str| json!({ "notesMarkdown": text });
    let blocked = call(
        3,
        "continue_workflow",
        json!({ "continueToken": token(&started, "continueToken"), "output": report("") }),
    );
    let retry = token(&blocked, "retryContinueToken");
    let gated = call(4, "continue_workflow", json!({ "continueToken": retry, "output": report("a plan") }));
    assert_eq!(gated["result"]["isError"], false, "{gated}");

    let (status, _, body) = scrape(&server, &[]);
    assert_eq!(status, 200);
    let after = parse_exposition(&body);
    let value = |name: &str| after.get(name).copied().unwrap_or_else(|| panic!("no `{name}` in:\n{body}"));
    assert_eq!(value("switchyard_runs_started_total"), 1.0);
    assert_eq!(value("switchyard_advances_total"), 2.0);
    assert_eq!(value("switchyard_blocked_attempts_total"), 1.0);
    assert_eq!(value("switchyard_gates_waiting"), 1.0);
    assert!(value("switchyard_commit_seconds_count") >= 3.0, "start and two advances committed:\n{body}");
    match home.backend() {
        Backend::Sqlite => assert!(value("switchyard_store_size_bytes") > 0.0, "{body}"),
        Backend::Postgres => {
            assert!(!body.contains("switchyard_store_size"), "a database has no store file to measure:\n{body}")
        }
    }
    assert!(body.contains("# TYPE switchyard_http_requests counter"), "{body}");
    assert_eq!(value(r#"switchyard_runs_finished_total{outcome="completed"}"#), 0.0, "outcomes start at 0");
    assert_eq!(value(r#"switchyard_http_requests_total{route="/metrics",status="200"}"#), 1.0, "the first scrape");
    assert!(value(r#"switchyard_http_requests_total{route="/mcp",status="200"}"#) >= 4.0, "{body}");
}

#[test]
fn serve_metrics_sit_behind_the_same_guard_as_mcp() {
    let home = TestHome::new();
    let server = serve(&home, &["--token", "metrics-s3cret"]);
    let (status, _, body) = scrape(&server, &[]);
    assert_eq!(status, 401, "no token, no metrics: {body}");
    assert_eq!(scrape(&server, &[("Authorization", "Bearer wrong")]).0, 401);
    let bearer = ("Authorization", "Bearer metrics-s3cret");
    let (status, _, body) = scrape(&server, &[bearer]);
    assert_eq!(status, 200, "{body}");
    parse_exposition(&body);
    let (status, _, body) = scrape(&server, &[bearer, ("Host", "evil.example")]);
    assert_eq!(status, 403, "a foreign Host is refused even with the token: {body}");
    assert_eq!(scrape(&server, &[bearer, ("Origin", "http://evil.example")]).0, 403);
    let (_, _, body) = scrape(&server, &[bearer]);
    let refused = parse_exposition(&body);
    assert_eq!(refused.get(r#"switchyard_http_requests_total{route="/metrics",status="401"}"#), Some(&2.0), "{body}");
    assert_eq!(refused.get(r#"switchyard_http_requests_total{route="/metrics",status="403"}"#), Some(&2.0), "{body}");
}

#[test]
fn stdio_with_json_logs_keeps_stdout_for_frames_and_logs_lifecycle_on_stderr() {
    let home = TestHome::new();
    let workspace = home.path().display().to_string();
    let mut child = switchyard_at(home.path())
        .args(["--log-format", "json", "mcp"])
        .env("SWITCHYARD_LOG", "info")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "{}", initialize(1)).unwrap();
    writeln!(stdin, "{}", json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).unwrap();
    let start = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": "start_workflow",
        "arguments": { "workflowId": "dev-cycle", "workspacePath": workspace, "goal": "logs" } } });
    writeln!(stdin, "{start}").unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    for line in String::from_utf8(output.stdout).unwrap().lines() {
        let frame: Value =
            serde_json::from_str(line).unwrap_or_else(|_| panic!("stdout carries only frames: `{line}`"));
        assert_eq!(frame["jsonrpc"], "2.0", "{line}");
    }
    let started: Vec<Value> = stderr
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap_or_else(|_| panic!("not a JSON log line: `{line}`")))
        .filter(|line| line["event"] == "run_started")
        .collect();
    assert_eq!(started.len(), 1, "{stderr}");
    assert_eq!(started[0]["workflow"], "dev-cycle");
}

/// A server whose stderr goes away (its reader stopped after the start line, a log collector
/// restarted) keeps serving: a request it logs (a refused Origin) still gets its 403, and the
/// next request its answer.
#[test]
fn serve_keeps_serving_when_its_stderr_is_closed() {
    let home = TestHome::new();
    let mut child = switchyard_at(home.path())
        .args(["serve", "--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut first = String::new();
    BufReader::new(child.stderr.take().unwrap()).read_line(&mut first).unwrap();
    let address = support::start_line_address(&first).unwrap_or_else(|| panic!("no address in `{first}`"));
    // The reader and the pipe are gone now: whatever the server writes to stderr fails.
    std::thread::sleep(std::time::Duration::from_millis(200));
    let refused = support::mcp_http::exchange(
        &address,
        "POST /mcp",
        &[("Origin", "http://evil.example"), ("Content-Type", "application/json")],
        &initialize(1).to_string(),
    );
    assert_eq!(refused.map(|(status, ..)| status), Some(403), "a logged refusal is still answered");
    let health = support::mcp_http::exchange(&address, "GET /health", &[], "");
    assert_eq!(health.map(|(status, ..)| status), Some(200), "the server is still up");
    let _ = child.kill();
    let _ = child.wait();
}
