//! Runs the real `switchyard` binary against a temporary home and store, and reads its JSON.
//! The home's store is on the backend the run chose (`SWITCHYARD_TEST_BACKEND`, see
//! `switchyard_test_support::TestHome`): its SQLite file, or a database of its own named in the
//! home's `switchyard.toml`.

#![allow(dead_code)]

pub mod mcp_http;
pub mod test_tools;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};

use serde_json::Value;
pub use switchyard_test_support::TestHome;

/// Appends each line `reader` gives to `log` on a thread of its own until the pipe closes: a
/// child's stderr, kept for the message of a failing assertion.
pub fn drain<R: std::io::Read + Send + 'static>(reader: BufReader<R>, log: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        for line in reader.lines().map_while(Result::ok) {
            let mut log = log.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
}

/// Takes every `SWITCHYARD_*` variable of the test's own environment away from `command`, but the
/// `SWITCHYARD_TEST_*` ones that choose how the tests run: a developer's exported
/// `SWITCHYARD_LOG`, `SWITCHYARD_STORE` or `SWITCHYARD_SERVE_TOKEN` must not change what a test
/// sees. A test sets the variables it means after this.
pub fn without_switchyard_environment(command: &mut Command) -> &mut Command {
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("SWITCHYARD_") && !name.starts_with("SWITCHYARD_TEST_") {
            command.env_remove(name.as_ref());
        }
    }
    command
}

/// The binary with `home` as its `SWITCHYARD_HOME`, taking no other `SWITCHYARD_*` variable from
/// the environment.
pub fn switchyard_at(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
    without_switchyard_environment(&mut command).env("SWITCHYARD_HOME", home);
    command
}

/// `switchyard mcp` at `home`, its stdin and stdout piped and its stderr as given.
pub fn mcp_over_stdio(home: &Path, stderr: Stdio) -> Child {
    switchyard_at(home).arg("mcp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(stderr).spawn().unwrap()
}

/// Reads the stderr of a `switchyard serve` just spawned (stderr piped) up to its start line and
/// returns the address it serves on (`127.0.0.1:<port>`); stderr keeps being drained afterwards
/// so the server never blocks on a full pipe.
pub fn serve_address(child: &mut Child) -> String {
    let mut reader = BufReader::new(child.stderr.take().expect("serve's stderr is piped"));
    let banner = loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 || line.starts_with("switchyard: ") {
            break line;
        }
    };
    std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
    start_line_address(&banner).unwrap_or_else(|| panic!("serve did not start: {banner}"))
}

/// The address (`127.0.0.1:<port>`) a line of `serve`'s stderr says it serves on: the start line
/// (`switchyard: serving on http://…`), or under `--log-format json` the `serve_started` log line.
pub fn start_line_address(line: &str) -> Option<String> {
    if let Ok(log) = serde_json::from_str::<Value>(line) {
        return (log["event"] == "serve_started").then(|| string(&log["address"]));
    }
    let url = line.strip_prefix("switchyard: serving on ")?.split_whitespace().next()?;
    Some(url.strip_prefix("http://")?.to_owned())
}

/// One isolated switchyard installation: its own home, store and project folder.
#[derive(Debug)]
pub struct Sandbox {
    pub home: TestHome,
    pub project: tempfile::TempDir,
}

/// What one invocation did.
#[derive(Debug)]
pub struct Ran {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Ran {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|error| panic!("stdout is not JSON ({error}):\n{}\nstderr:\n{}", self.stdout, self.stderr))
    }

    /// The JSON of a call that must have exited with `code`.
    pub fn expect(&self, code: i32) -> Value {
        assert_eq!(self.code, code, "exit code\nstdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self.json()
    }

    pub fn ok(&self) -> Value {
        self.expect(0)
    }
}

impl Sandbox {
    /// A sandbox whose store is on the backend the run chose.
    pub fn new() -> Self {
        Self { home: TestHome::new(), project: tempfile::tempdir().unwrap() }
    }

    /// A sandbox whose store is the SQLite file in its home, for the tests of that file.
    pub fn sqlite() -> Self {
        Self { home: TestHome::sqlite(), project: tempfile::tempdir().unwrap() }
    }

    /// The SQLite store file of the home (absent when the store is a database).
    pub fn store_path(&self) -> PathBuf {
        self.home.path().join("switchyard.sqlite3")
    }

    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_switchyard"));
        without_switchyard_environment(&mut command)
            .args(args)
            .env("SWITCHYARD_HOME", self.home.path())
            .env("NO_COLOR", "1")
            .current_dir(self.project.path())
            .stdin(Stdio::null());
        command
    }

    /// Runs `switchyard --json <args>`.
    pub fn run(&self, args: &[&str]) -> Ran {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        ran(&self.command(&all).output().expect("the switchyard binary runs"))
    }

    /// Runs without `--json`, for text output.
    pub fn run_text(&self, args: &[&str]) -> Ran {
        ran(&self.command(args).output().expect("the switchyard binary runs"))
    }

    pub fn spawn(&self, args: &[&str]) -> Child {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        self.command(&all).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the switchyard binary starts")
    }

    pub fn write_workflow(&self, name: &str, text: &str) -> PathBuf {
        let dir = self.project.path().join(".switchyard").join("workflows");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Events of the session a run belongs to.
    pub fn events(&self, run: &str) -> Vec<Value> {
        self.run(&["log", run, "--limit", "10000"]).ok().as_array().cloned().unwrap()
    }

    pub fn count_events(&self, run: &str, kind: &str) -> usize {
        self.events(run).iter().filter(|event| event["kind"]["type"] == kind).count()
    }
}

pub fn ran(output: &Output) -> Ran {
    Ran {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// The continue token of a step response.
pub fn continue_token(response: &Value) -> String {
    response["tokens"]["continue_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no continue token in {response:#}"))
        .to_owned()
}

pub fn string(value: &Value) -> String {
    value.as_str().unwrap_or_else(|| panic!("not a string: {value}")).to_owned()
}

/// Insta settings that hide what changes from run to run: ids, tokens, times and paths.
pub fn redactions(paths: &[&Path]) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    for (pattern, replacement) in [
        (r"\b(sess|run|node|attempt|evt)_[a-z2-7]{26}\b", "${1}_[id]"),
        (r"\b(ct|st|ck)_[A-Za-z0-9_-]{24}", "${1}_[token]"),
        (r#""(at_ms|created_at_ms|updated_at_ms)": \d+"#, r#""$1": "[ms]""#),
        (r#""(hash|prev_hash)": "[0-9a-f]{64}""#, r#""$1": "[sha256]""#),
    ] {
        settings.add_filter(pattern, replacement);
    }
    for path in paths {
        settings.add_filter(&regex_escape(&path.display().to_string()), "[dir]");
    }
    settings.set_prepend_module_to_snapshot(false);
    settings
}

pub fn regex_escape(text: &str) -> String {
    text.chars()
        .flat_map(|c| {
            let special = "\\.+*?()|[]{}^$#&-~".contains(c);
            special.then_some('\\').into_iter().chain(std::iter::once(c))
        })
        .collect()
}
