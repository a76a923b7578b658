//! A raw streamable-HTTP MCP client for tests that kill servers under it: one connection per
//! request, so a request whose server died is `Lost`, never a hang.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

/// One HTTP/1.1 request on a connection of its own; the status, the head and the body, or `None`
/// when the server is gone.
pub fn exchange(
    address: &str,
    request_line: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Option<(u16, String, String)> {
    let mut stream = TcpStream::connect(address).ok()?;
    let mut text = format!("{request_line} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(text.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, head.to_owned(), body.to_owned()))
}

/// The value of header `name` in an HTTP head, each one it holds.
pub fn header_values<'a>(head: &'a str, name: &'a str) -> impl Iterator<Item = &'a str> {
    head.lines().filter_map(move |line| {
        let (key, value) = line.split_once(':')?;
        key.eq_ignore_ascii_case(name).then(|| value.trim())
    })
}

/// What a tool call came back with.
#[derive(Debug, Clone)]
pub enum Answer {
    /// The tool's structured answer.
    Done(Value),
    /// A tool error: its JSON (`code`, `message`, `retry`).
    Refused(Value),
    /// No answer: the connection failed or closed first.
    Lost,
}

/// A streamable-HTTP MCP client holding one MCP session on one server, a connection per request.
pub struct McpClient {
    address: String,
    /// The serve token, sent as a bearer token; none on loopback without one.
    token: Option<String>,
    session: Option<String>,
    next_id: u64,
}

impl McpClient {
    /// Connects and initialises a session; `None` if the server is gone.
    pub fn connect(address: &str, token: Option<&str>) -> Option<Self> {
        let mut client =
            Self { address: address.to_owned(), token: token.map(str::to_owned), session: None, next_id: 0 };
        let initialize = json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "switchyard-tests", "version": "1" } });
        client.request("initialize", &initialize)?;
        client.post(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }))?;
        Some(client)
    }

    /// The `Mcp-Session-Id` the server gave this client.
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// Calls a tool: its structured answer, its error, or nothing when the connection was lost.
    pub fn call(&mut self, tool: &str, arguments: &Value) -> Answer {
        let Some(answer) = self.request("tools/call", &json!({ "name": tool, "arguments": arguments })) else {
            return Answer::Lost;
        };
        let result = &answer["result"];
        if result["isError"] == json!(true) {
            let text = result["content"][0]["text"].as_str().unwrap_or_default();
            return Answer::Refused(serde_json::from_str(text).unwrap_or_else(|_| answer.clone()));
        }
        assert!(answer.get("error").is_none(), "{tool}: a protocol error: {answer}");
        Answer::Done(result["structuredContent"].clone())
    }

    pub fn request(&mut self, method: &str, params: &Value) -> Option<Value> {
        self.next_id += 1;
        self.post(&json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params }))
    }

    /// Posts one JSON-RPC message: the answer to a request, `Null` for a notification.
    pub fn post(&mut self, message: &Value) -> Option<Value> {
        let bearer = self.token.as_ref().map(|token| format!("Bearer {token}"));
        let mut headers = vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
        if let Some(bearer) = &bearer {
            headers.push(("Authorization", bearer));
        }
        if let Some(session) = &self.session {
            headers.push(("Mcp-Session-Id", session));
        }
        let (status, head, body) = exchange(&self.address, "POST /mcp", &headers, &message.to_string())?;
        if !(200..300).contains(&status) {
            return None;
        }
        if let Some(session) = header_values(&head, "mcp-session-id").next() {
            self.session = Some(session.to_owned());
        }
        if message.get("id").is_none() {
            return Some(Value::Null);
        }
        // The answer is the server-sent event carrying the request's id.
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
            .find(|frame| frame["id"] == message["id"])
    }
}
