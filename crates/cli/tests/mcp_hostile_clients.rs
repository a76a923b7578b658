//! Hostile clients against the real binary's MCP doors, each with a bound on what they can cost:
//! an endless line on stdio, and slow, numerous or session-hoarding clients of `serve`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

mod support;

use support::{TestHome, mcp_over_stdio};

const SWITCHYARD: &str = env!("CARGO_BIN_EXE_switchyard");

/// The peak resident memory of a live process, in bytes (`VmHWM` of `/proc/<pid>/status`).
fn peak_resident_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|line| line.starts_with("VmHWM:")).unwrap_or_else(|| panic!("{status}"));
    let kilobytes: u64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().unwrap();
    kilobytes * 1024
}

#[test]
fn stdio_discards_an_endless_line_without_holding_it_and_keeps_serving() {
    const LINE_BYTES: usize = 256 * 1024 * 1024;
    const PEAK_LIMIT: u64 = 96 * 1024 * 1024;
    let home = TestHome::new();
    let mut child = mcp_over_stdio(home.path(), Stdio::null());
    let mut stdin = child.stdin.take().unwrap();
    let mut answers = BufReader::new(child.stdout.take().unwrap());
    let mut next_answer = || {
        let mut line = String::new();
        answers.read_line(&mut line).unwrap();
        serde_json::from_str::<Value>(&line).unwrap_or_else(|_| panic!("a JSON-RPC frame, got `{line}`"))
    };
    writeln!(
        stdin,
        "{}",
        json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "raw-test", "version": "1" } } })
    )
    .unwrap();
    assert!(next_answer()["result"].is_object());
    writeln!(stdin, "{}", json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })).unwrap();
    // One line far over the frame limit, streamed in pieces, and only then its newline.
    stdin.write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"pad\":\"").unwrap();
    let piece = vec![b'x'; 1024 * 1024];
    for _ in 0..LINE_BYTES / piece.len() {
        stdin.write_all(&piece).unwrap();
    }
    stdin.write_all(b"\"}\n").unwrap();
    let refusal = next_answer();
    assert_eq!(refusal["error"]["code"], -32600, "{refusal}");
    assert!(refusal["error"]["message"].as_str().unwrap().contains("larger than"), "{refusal}");
    writeln!(stdin, "{}", json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list" })).unwrap();
    let listed = next_answer();
    assert_eq!(listed["id"], 3, "the server keeps serving: {listed}");
    assert!(listed["result"]["tools"].is_array(), "{listed}");
    let peak = peak_resident_bytes(child.id());
    drop(stdin);
    assert!(child.wait().unwrap().success());
    assert!(
        peak < PEAK_LIMIT,
        "a {LINE_BYTES}-byte line must not be held in memory: the server peaked at {peak} bytes"
    );
}

/// `switchyard serve` on a free loopback port, allowed at most `open_files` open files, with
/// `[serve]` settings `settings`; stopped on drop.
struct Server {
    child: std::process::Child,
    address: String,
    _home: TestHome,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(open_files: u32, settings: &str) -> Server {
    let home = TestHome::new();
    home.write_config(&format!("[serve]\n{settings}"));
    let mut command = Command::new("sh");
    command.args(["-c", &format!("ulimit -n {open_files} && exec \"$0\" serve --host 127.0.0.1 --port 0"), SWITCHYARD]);
    support::without_switchyard_environment(&mut command).env("SWITCHYARD_HOME", home.path());
    let mut child = command.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let banner = loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 || line.starts_with("switchyard: ") {
            break line;
        }
    };
    // Keep draining stderr so the server never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let address = support::start_line_address(&banner).unwrap_or_else(|| panic!("{banner}"));
    Server { child, address, _home: home }
}

/// A connection whose reads give up after `seconds`, so a test fails instead of hanging.
fn connect(server: &Server, seconds: u64) -> TcpStream {
    let stream = TcpStream::connect(&server.address).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(seconds))).unwrap();
    stream
}

/// Sends one request on `stream` and reads its answer: status, headers and body. The answer is
/// read to the end of its `Content-Length`, or to the end of the connection; `keep_alive` says
/// whether to ask the server to keep the connection open.
fn exchange_on(
    stream: &mut TcpStream,
    keep_alive: bool,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let connection = if keep_alive { "keep-alive" } else { "close" };
    let mut text = format!("{method} HTTP/1.1\r\nConnection: {connection}\r\nContent-Length: {}\r\n", body.len());
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str("\r\n");
    text.push_str(body);
    stream.write_all(text.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let status = head.split_whitespace().nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    let length = head
        .lines()
        .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-length:").map(|value| value.trim().to_owned()))
        .and_then(|value| value.parse::<usize>().ok());
    let mut body = Vec::new();
    match length {
        Some(length) => {
            body.resize(length, 0);
            let _ = reader.read_exact(&mut body);
        }
        None => {
            let _ = reader.read_to_end(&mut body);
        }
    }
    (status, head, String::from_utf8_lossy(&body).into_owned())
}

/// One request on a connection of its own, closed after the answer.
fn exchange(stream: &mut TcpStream, method: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    exchange_on(stream, false, method, headers, body)
}

const MCP_HEADERS: [(&str, &str); 3] =
    [("Host", "127.0.0.1"), ("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];

fn initialize_body(id: u64) -> String {
    json!({ "jsonrpc": "2.0", "id": id, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "raw-test", "version": "1" } } })
    .to_string()
}

#[test]
fn serve_answers_a_client_within_seconds_while_hundreds_of_slow_clients_hold_half_sent_requests() {
    // Fewer open files than slow clients: before connections were bounded, they used up every
    // descriptor and nobody could be accepted any more.
    let server = serve(160, "");
    let mut slow_clients = Vec::new();
    for _ in 0..400 {
        let mut stream = TcpStream::connect(&server.address).unwrap();
        stream.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le").unwrap();
        slow_clients.push(stream);
    }
    let began = Instant::now();
    let mut stream = connect(&server, 30);
    let (status, head, body) = exchange(&mut stream, "POST /mcp", &MCP_HEADERS, &initialize_body(1));
    let waited = began.elapsed();
    assert_eq!(status, 200, "{head}{body}");
    assert!(body.contains("\"result\""), "{body}");
    assert!(waited < Duration::from_secs(5), "a well-behaved client waited {waited:?} behind slow ones");
    // The oldest slow clients were closed to make room.
    let mut oldest = slow_clients.swap_remove(0);
    oldest.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    assert_eq!(oldest.read(&mut [0_u8; 64]).unwrap_or(0), 0, "the oldest half-sent request was closed");
}

#[test]
fn serve_refuses_connections_past_its_limit_with_a_reason_once_all_are_in_use() {
    let server = serve(1024, "max_connections = 6\nmax_pending_connections = 3\n");
    let mut in_use = Vec::new();
    for _ in 0..6 {
        let mut stream = connect(&server, 30);
        let (status, head, _) = exchange_on(&mut stream, true, "GET /health", &[("Host", "127.0.0.1")], "");
        assert_eq!(status, 200, "{head}");
        in_use.push(stream);
    }
    let mut stream = connect(&server, 30);
    let (status, head, body) = exchange(&mut stream, "GET /health", &[("Host", "127.0.0.1")], "");
    assert_eq!(status, 503, "{head}{body}");
    assert!(body.contains("limit of 6 open connections") && body.contains("max_connections"), "{body}");
    assert!(head.to_ascii_lowercase().contains("retry-after"), "{head}");
}

#[test]
fn serve_closes_connections_whose_headers_or_body_do_not_arrive_in_time() {
    let server = serve(1024, "header_timeout_seconds = 1\nbody_timeout_seconds = 1\n");
    let mut headers_never_end = connect(&server, 30);
    headers_never_end.write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n").unwrap();
    let mut answer = Vec::new();
    let _ = headers_never_end.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.is_empty() || answer.starts_with("HTTP/1.1 408"), "closed for its slow headers: {answer}");

    let mut body_never_ends = connect(&server, 30);
    body_never_ends
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"")
        .unwrap();
    let mut answer = String::new();
    let _ = body_never_ends.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 1 s"), "{answer}");
}

#[test]
fn serve_bounds_mcp_sessions_and_says_how_to_free_one() {
    let server = serve(1024, "max_sessions = 3\n");
    let mut sessions = Vec::new();
    for id in 0..3 {
        let (status, head, body) = exchange(&mut connect(&server, 30), "POST /mcp", &MCP_HEADERS, &initialize_body(id));
        assert_eq!(status, 200, "{head}{body}");
        let session = head
            .lines()
            .find_map(|line| {
                line.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|value| value.trim().to_owned())
            })
            .unwrap_or_else(|| panic!("a session id: {head}"));
        sessions.push(session);
    }
    let (status, head, body) = exchange(&mut connect(&server, 30), "POST /mcp", &MCP_HEADERS, &initialize_body(9));
    assert_eq!(status, 503, "{head}{body}");
    let refusal: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("a JSON-RPC error: {body}"));
    assert_eq!(refusal["id"], 9, "{refusal}");
    let message = refusal["error"]["message"].as_str().unwrap();
    assert!(message.contains("max_sessions") && message.contains("DELETE /mcp"), "{message}");

    let delete = [("Host", "127.0.0.1"), ("Mcp-Session-Id", sessions[0].as_str())];
    let (status, head, _) = exchange(&mut connect(&server, 30), "DELETE /mcp", &delete, "");
    assert!((200..300).contains(&status), "{head}");
    let (status, head, body) = exchange(&mut connect(&server, 30), "POST /mcp", &MCP_HEADERS, &initialize_body(10));
    assert_eq!(status, 200, "an ended session frees its place: {head}{body}");
}

#[test]
fn serve_answers_malformed_frames_with_the_json_rpc_errors_stdio_gives() {
    let server = serve(1024, "");
    for (frame, code) in
        [("{not json", -32700), ("[1, 2]", -32600), ("{\"jsonrpc\": \"1.0\", \"id\": 7, \"method\": \"ping\"}", -32600)]
    {
        let (status, head, body) = exchange(&mut connect(&server, 30), "POST /mcp", &MCP_HEADERS, frame);
        assert_eq!(status, 400, "{frame}: {head}{body}");
        let answer: Value =
            serde_json::from_str(&body).unwrap_or_else(|_| panic!("{frame}: a JSON-RPC error, got {body}"));
        assert_eq!(answer["error"]["code"], code, "{frame}: {answer}");
        assert_eq!(answer["jsonrpc"], "2.0");
    }
}
