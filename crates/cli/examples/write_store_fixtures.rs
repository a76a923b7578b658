//! Writes the stores in `testdata/stores/` by driving a given `switchyard` binary through its
//! command line, so that later builds are tested against what this build wrote
//! (`crates/cli/tests/stores_written_earlier.rs`). Run by hand, never by the test suite; see
//! `testdata/stores/README.md` for when and how.
//!
//! ```sh
//! export SWITCHYARD_TEST_POSTGRES_URL="$(bash .ci/postgres)"
//! cargo run -p switchyard --example write_store_fixtures -- /path/to/switchyard
//! ```
//!
//! It writes `testdata/stores/sqlite/` (a whole home: the SQLite store, the key file, the run
//! folders and one user workflow) and `testdata/stores/postgres/` (the same home without a store,
//! and `store.sql`, a `pg_dump` of the database the same scenario was written to). It replaces
//! both folders, and leaves everything else alone.

#![allow(clippy::print_stderr, reason = "a program run by hand reports its progress on stderr")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail, ensure};
use serde_json::{Value, json};
use switchyard_test_support::TestDatabase;
use switchyard_test_support::fake_llm::{FakeLlm, RecordedRequest, Reply};

/// The user workflow with an audit step and a status report, the only way to a `report_warned`
/// event (no built-in workflow has either). It lives in the fixture home's `workflows/`.
const AUDITED: &str = "id: audited\ntitle: Audited change\nsteps:\n  - {id: audit, prompt: Audit the change., notes: optional, audit: true, next: work}\n  - {id: work, prompt: Do the work., notes: optional, status_report: true, next: done}\n  - {id: done, prompt: Wrap up., notes: optional}\n";

/// An audit finding below the default confidence threshold (0.8): downgraded to a warning.
const LOW_CONFIDENCE: &str = r#"{"status": "blocked", "summary": "Maybe a race in the cache", "confidence": 0.65, "validated": true, "skills_used": [], "skills_missing": [], "model_override_reason": null}"#;

/// The variable `switchyard run` reads the fake model's key from.
const KEY_VARIABLE: &str = "SWITCHYARD_FIXTURE_MODEL_KEY";

fn main() -> Result<()> {
    let mut arguments = std::env::args_os().skip(1);
    let Some(binary) = arguments.next().map(PathBuf::from) else {
        bail!("usage: write_store_fixtures <switchyard binary>: the build whose stores later builds must read");
    };
    let binary = std::fs::canonicalize(&binary).with_context(|| format!("no binary at {}", binary.display()))?;
    let version = output_of(Command::new(&binary).arg("--version"))?;
    eprintln!("writing the store fixtures with {} ({})", binary.display(), version.trim());
    let stores = std::fs::canonicalize(switchyard_test_support::testdata())?.join("stores");

    let sqlite = stores.join("sqlite");
    replace_folder(&sqlite)?;
    let cli = Cli::new(&binary, &sqlite, None)?;
    write_scenario(&cli)?;
    eprintln!("{}", summary(&cli)?);

    let postgres = stores.join("postgres");
    replace_folder(&postgres)?;
    let database = TestDatabase::create();
    let home = postgres.join("home");
    std::fs::create_dir_all(&home)?;
    let cli = Cli::new(&binary, &home, Some(database.url()))?;
    write_scenario(&cli)?;
    eprintln!("{}", summary(&cli)?);
    let dump = output_of(Command::new("pg_dump").args(["--inserts", "--no-owner", "--no-privileges", database.url()]))?;
    std::fs::write(postgres.join("store.sql"), replayable(&dump))?;
    eprintln!("wrote {} and {}", sqlite.display(), postgres.display());
    Ok(())
}

/// `pg_dump`'s plain SQL as one simple query can take: without psql's meta-commands (`\restrict`
/// and `\unrestrict` since the August 2025 releases), which only psql understands.
fn replayable(dump: &str) -> String {
    dump.lines().filter(|line| !line.starts_with('\\')).map(|line| format!("{line}\n")).collect()
}

fn replace_folder(folder: &Path) -> Result<()> {
    if folder.exists() {
        std::fs::remove_dir_all(folder).with_context(|| format!("cannot remove {}", folder.display()))?;
    }
    std::fs::create_dir_all(folder).with_context(|| format!("cannot create {}", folder.display()))
}

fn output_of(command: &mut Command) -> Result<String> {
    let output = command.stdin(Stdio::null()).output().with_context(|| format!("cannot run {command:?}"))?;
    ensure!(output.status.success(), "{command:?} failed: {}", String::from_utf8_lossy(&output.stderr));
    Ok(String::from_utf8(output.stdout)?)
}

/// The binary on one home (and, for Postgres, one database), run from a project folder that is a
/// git repository, so that sessions record a workspace, a branch and a HEAD.
struct Cli {
    binary: PathBuf,
    home: PathBuf,
    store: Option<String>,
    project: tempfile::TempDir,
}

impl Cli {
    fn new(binary: &Path, home: &Path, store: Option<&str>) -> Result<Self> {
        let project = tempfile::tempdir()?;
        switchyard_test_support::git_repository(project.path(), "main");
        Ok(Self { binary: binary.to_owned(), home: home.to_owned(), store: store.map(str::to_owned), project })
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.binary);
        for (name, _) in std::env::vars_os() {
            if name.to_string_lossy().starts_with("SWITCHYARD_") {
                command.env_remove(name);
            }
        }
        command.env("SWITCHYARD_HOME", &self.home).env("NO_COLOR", "1").current_dir(self.project.path());
        command.arg("--json");
        if let Some(url) = &self.store {
            command.args(["--store", url]);
        }
        command.args(args).stdin(Stdio::null());
        command
    }

    /// Runs `switchyard --json <args>`, which must exit with `code`; its JSON answer.
    fn expect(&self, code: i32, args: &[&str]) -> Result<Value> {
        let output = self.command(args).output().with_context(|| format!("cannot run {}", self.binary.display()))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        ensure!(
            output.status.code() == Some(code),
            "switchyard {args:?} exited with {:?}, not {code}\nstdout:\n{stdout}\nstderr:\n{}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_str(&stdout).with_context(|| format!("switchyard {args:?} did not print JSON:\n{stdout}"))
    }

    fn ok(&self, args: &[&str]) -> Result<Value> {
        self.expect(0, args)
    }

    /// `start <workflow>`; the run id and the first answer.
    fn start(&self, workflow: &str, goal: &str) -> Result<(String, Value)> {
        let started = self.ok(&["start", workflow, "--goal", goal])?;
        Ok((text(&started["run"])?, started))
    }

    /// `continue` with the continue token of `answer` and `args` after it, which must exit with
    /// `code`.
    fn report(&self, answer: &Value, code: i32, args: &[&str]) -> Result<Value> {
        let token = text(&answer["tokens"]["continue_token"])?;
        let mut all = vec!["continue", token.as_str()];
        all.extend_from_slice(args);
        self.expect(code, &all)
    }

    fn status_of(&self, answer: &Value, expected: &str) -> Result<()> {
        ensure!(answer["status"] == expected, "expected status {expected}, got {answer:#}");
        Ok(())
    }
}

fn text(value: &Value) -> Result<String> {
    value.as_str().map(str::to_owned).with_context(|| format!("not a string: {value}"))
}

/// Every session of the fixtures, each exercising part of what a store holds; the comments name
/// the event kinds each one adds.
fn write_scenario(cli: &Cli) -> Result<()> {
    std::fs::create_dir_all(cli.home.join("workflows"))?;
    std::fs::write(cli.home.join("workflows/audited.yaml"), AUDITED)?;
    walked_to_completion(cli)?;
    decided_forked_and_stopped(cli)?;
    failed_after_its_attempts(cli)?;
    waiting_at_a_gate(cli)?;
    warned_by_an_audit(cli)?;
    pending_step(cli)?;
    driven_by_a_model(cli)?;
    let verify = cli.ok(&["verify"])?;
    ensure!(verify["problems"] == json!([]), "the fixture does not verify: {verify:#}");
    Ok(())
}

/// dev-cycle from start to end: advances, a gate rejected then approved, a blocked report and its
/// retry, a report sent twice (answered from the record), completion.
fn walked_to_completion(cli: &Cli) -> Result<()> {
    let (run, started) = cli.start("dev-cycle", "Add a --verbose flag")?;
    let planned = cli.report(&started, 0, &["--notes", "Plan: parse the flag, thread it to the logger."])?;
    cli.status_of(&planned, "waiting_gate")?;
    let rejected = cli.ok(&["reject", &run, "--reason", "The plan has no tests"])?;
    let planned = cli.report(&rejected, 0, &["--notes", "Plan: as before, with a test of each level."])?;
    cli.status_of(&planned, "waiting_gate")?;
    let approved = cli.ok(&["approve", &run])?;
    let blocked = cli.report(&approved, 1, &[])?;
    cli.status_of(&blocked, "blocked")?;
    let implemented = cli.report(&blocked, 0, &["--notes", "Added the flag and its tests."])?;
    let review = ["--notes", "Reviewed: the tests cover every level.", "--choice", "close"];
    let reviewed = cli.report(&implemented, 0, &review)?;
    cli.status_of(&reviewed, "waiting_gate")?;
    let replayed = cli.report(&implemented, 0, &review)?;
    ensure!(replayed["replayed"] == true, "the same report again is answered from the record: {replayed:#}");
    let completed = cli.ok(&["approve", &run])?;
    cli.status_of(&completed, "completed")
}

/// dev-cycle past its revision limit to a human decision, then a fork from an earlier node, a
/// checkpoint, a pause and a resume, and a stop.
fn decided_forked_and_stopped(cli: &Cli) -> Result<()> {
    let (run, started) = cli.start("dev-cycle", "Cache the parsed configuration")?;
    let mut answer = started;
    for attempt in 1..=4 {
        let planned = cli.report(&answer, 0, &["--notes", &format!("Plan, version {attempt}.")])?;
        cli.status_of(&planned, "waiting_gate")?;
        answer = cli.ok(&["reject", &run, "--reason", &format!("Rejection {attempt}: too vague")])?;
    }
    cli.status_of(&answer, "waiting_for_human_decision")?;
    let revised = cli.ok(&["decide", &run, "revise", "--note", "One more try, with the invalidation spelled out"])?;
    let planned = cli.report(&revised, 0, &["--notes", "Plan, version 5: invalidate on every write."])?;
    cli.status_of(&planned, "waiting_gate")?;
    let approved = cli.ok(&["approve", &run])?;
    let implement_node = text(&approved["node"])?;
    let implemented = cli.report(&approved, 0, &["--notes", "Cached it behind a lock."])?;
    cli.ok(&["checkpoint", &text(&implemented["tokens"]["checkpoint_token"])?, "--notes", "Review half done"])?;
    let earlier = cli.ok(&["show", &implement_node])?;
    let forked = cli.report(&earlier, 0, &["--notes", "Cached it without a lock, per reader."])?;
    ensure!(forked["forked"] == true, "a report from an earlier node forks: {forked:#}");
    cli.ok(&["pause", &run])?;
    cli.ok(&["resume", &run])?;
    let stopped = cli.ok(&["stop", &run, "--reason", "superseded by a simpler plan"])?;
    cli.status_of(&stopped, "stopped")
}

/// bug-investigation whose first step is reported without what it must carry until its attempts
/// run out: blocked twice, then failed.
fn failed_after_its_attempts(cli: &Cli) -> Result<()> {
    let (_, started) = cli.start("bug-investigation", "Login fails after a password change")?;
    let mut answer = started;
    for _ in 0..3 {
        answer = cli.report(&answer, 1, &["--notes", "Could not reproduce it yet."])?;
        if answer["status"] != "blocked" {
            break;
        }
    }
    cli.status_of(&answer, "failed")
}

/// bug-investigation confirmed and fixed (its phase changes: an automatic checkpoint), left
/// waiting at the review gate on purpose.
fn waiting_at_a_gate(cli: &Cli) -> Result<()> {
    let (_, started) = cli.start("bug-investigation", "Totals are off by one cent")?;
    let reproduced = reproduced(cli, &started)?;
    let hypothesized = hypothesized(cli, &reproduced, "Rounding happens per line instead of per total")?;
    let confirmed = json!({"result": "rounding the total alone gives the right sum", "confirmed": true}).to_string();
    let context = json!({"confirmed": true}).to_string();
    let verified =
        cli.report(&hypothesized, 0, &["--notes", "Confirmed.", "--artifacts", &confirmed, "--context", &context])?;
    let fix = json!({"files_changed": ["src/totals.rs"], "tests_added": 1, "summary": "Round the total once."});
    let fixed = cli.report(&verified, 0, &["--notes", "Fixed.", "--artifacts", &fix.to_string()])?;
    let presented = cli.report(&fixed, 0, &["--notes", "Root cause, diff and test, for review."])?;
    cli.status_of(&presented, "waiting_gate")
}

fn reproduced(cli: &Cli, started: &Value) -> Result<Value> {
    let artifacts =
        json!({"reproduced": true, "command": "cargo test login", "observed": "401", "expected": "200"}).to_string();
    let context = json!({"reproduction": "cargo test login"}).to_string();
    cli.report(started, 0, &["--notes", "Reproduced.", "--artifacts", &artifacts, "--context", &context])
}

fn hypothesized(cli: &Cli, answer: &Value, hypothesis: &str) -> Result<Value> {
    let artifacts =
        json!({"hypothesis": hypothesis, "evidence": ["src/session.rs:42"], "experiment": "log the cookie"})
            .to_string();
    let context = json!({"hypothesis": hypothesis, "confirmed": false}).to_string();
    cli.report(answer, 0, &["--notes", hypothesis, "--artifacts", &artifacts, "--context", &context])
}

/// The user workflow `audited`: an audit finding downgraded below the threshold, then a status
/// report with only its core fields, both recorded as report warnings, then the end.
fn warned_by_an_audit(cli: &Cli) -> Result<()> {
    let (_, started) = cli.start("audited", "Audit the cache change")?;
    let audited = cli.report(&started, 0, &["--artifacts", LOW_CONFIDENCE])?;
    ensure!(!audited["report_warnings"]["downgraded"].is_null(), "the finding is downgraded: {audited:#}");
    let worked = cli.report(&audited, 0, &["--artifacts", r#"{"status": "pass", "summary": "done"}"#])?;
    ensure!(!worked["report_warnings"]["warnings"].is_null(), "the core-only report warns: {worked:#}");
    let done = cli.report(&worked, 0, &[])?;
    cli.status_of(&done, "completed")
}

/// code-review after its first step, left with the `assess` step pending on purpose.
fn pending_step(cli: &Cli) -> Result<()> {
    let (_, started) = cli.start("code-review", "Review the retry change")?;
    let scope = json!({"intent": "Retry failed uploads", "files": ["src/upload.rs"]}).to_string();
    let scoped = cli.report(&started, 0, &["--artifacts", &scope])?;
    ensure!(scoped["step"]["step"] == "assess", "the assess step is pending: {scoped:#}");
    Ok(())
}

/// code-review driven by `switchyard run` against the fake model server: model turns (one of
/// them a file tool call), each step completed by the model, to the end.
fn driven_by_a_model(cli: &Cli) -> Result<()> {
    let server = FakeLlm::start();
    server.push(Reply::tool_call("list_files", json!({"path": "{project-root}"})));
    server.otherwise(complete_code_review_step);
    let args = ["run", "code-review", "--goal", "Review the logging change", "--model", "fake-model"];
    let mut command = cli.command(&args);
    command.args(["--base-url", &server.base_url(), "--api-key-env", KEY_VARIABLE]).env(KEY_VARIABLE, "sk-fixture");
    let output = command.output().context("cannot run switchyard run")?;
    ensure!(
        output.status.success(),
        "switchyard run failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    ensure!(server.remaining() == 0, "the model's scripted first turn was used");
    Ok(())
}

/// What the fake model answers on each step of code-review: the step's required artifacts, no
/// blocking finding.
fn complete_code_review_step(request: &RecordedRequest) -> Reply {
    let system = request.messages().first().and_then(|message| message["content"].as_str()).unwrap_or_default();
    let step = system.split("## Step: ").nth(1).and_then(|rest| rest.split('`').nth(1)).unwrap_or_default();
    let arguments = match step {
        "scope" => json!({"notes": "Scoped.", "artifacts": {"intent": "Quieter logs", "files": ["src/log.rs"]}}),
        "assess" => {
            json!({"notes": "No findings.", "artifacts": {"findings": []}, "context": {"blocking_findings": 0}})
        }
        "approve" => json!({"notes": "Approved.", "artifacts": {"comment": "Looks good."}}),
        _ => json!({"notes": format!("Step {step} done.")}),
    };
    Reply::tool_call("complete_step", arguments)
}

/// Each session's goal and status, and how many events of each kind the store holds.
fn summary(cli: &Cli) -> Result<String> {
    let sessions = cli.ok(&["sessions", "--limit", "100"])?;
    let mut kinds = BTreeMap::<String, usize>::new();
    let mut lines = Vec::new();
    for session in sessions.as_array().context("sessions is a list")? {
        lines.push(format!("  {:<28} {}", session["status"].as_str().unwrap_or("-"), text(&session["goal"])?));
        for event in cli.ok(&["log", &text(&session["id"])?, "--limit", "10000"])?.as_array().context("a log")? {
            *kinds.entry(text(&event["kind"]["type"])?).or_default() += 1;
        }
    }
    let kinds: Vec<String> = kinds.iter().map(|(kind, count)| format!("  {kind} × {count}")).collect();
    Ok(format!("{}:\n{}\n{}", cli.home.display(), lines.join("\n"), kinds.join("\n")))
}
