//! Hostile clients against the real binary's MCP doors, each with a bound on what they can cost:
//! an endless line on stdio, and slow, numerous or session-hoarding clients of `serve`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

const SWITCHYARD: &str = env!("CARGO_BIN_EXE_switchyard");

fn switchyard(home: &tempfile::TempDir) -> Command {
    let mut command = Command::new(SWITCHYARD);
    command.env("SWITCHYARD_HOME", home.path()).env_remove("SWITCHYARD_STORE").env_remove("SWITCHYARD_SERVE_TOKEN");
    command
}

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
    let home = tempfile::tempdir().unwrap();
    let mut child = switchyard(&home)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
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
