//! Stores written by an earlier build open, verify and go on with this one. The SQLite home and
//! the Postgres dump in `testdata/stores/` (its README names the build that wrote them and how)
//! are copied, verified and listed, every event in them is read back, and they move on: the run
//! left waiting at a gate is approved, the run left with a pending step goes on to its next step,
//! and a new run starts and advances; `verify` is clean again after.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Stdio;

use serde_json::{Value, json};
use support::{Ran, ran, string, without_switchyard_environment};
use switchyard_test_support::TestDatabase;

/// Each session the fixtures hold: its goal and the status it was left in.
const SESSIONS: [(&str, &str); 7] = [
    ("Add a --verbose flag", "completed"),
    ("Cache the parsed configuration", "stopped"),
    ("Login fails after a password change", "failed"),
    ("Totals are off by one cent", "waiting_gate"),
    ("Audit the cache change", "completed"),
    ("Review the retry change", "active"),
    ("Review the logging change", "completed"),
];

/// The event kinds the fixtures hold: every kind there was when they were written.
const EVENT_KINDS: [&str; 14] = [
    "advance_recorded",
    "checkpoint_recorded",
    "gate_decided",
    "human_decided",
    "model_turn",
    "node_created",
    "report_warned",
    "run_completed",
    "run_failed",
    "run_paused",
    "run_resumed",
    "run_started",
    "run_stopped",
    "session_created",
];

/// A copy of a fixture home, and the database a Postgres fixture was restored into.
struct Earlier {
    home: tempfile::TempDir,
    project: tempfile::TempDir,
    database: Option<TestDatabase>,
}

impl Earlier {
    fn sqlite() -> Earlier {
        Earlier::with_home("sqlite", None)
    }

    /// The dump restored into a database of its own, and the home that goes with it.
    fn postgres() -> Earlier {
        let database = TestDatabase::create();
        let dump = fixture("postgres/store.sql");
        database.execute(&std::fs::read_to_string(&dump).unwrap_or_else(|error| panic!("{}: {error}", dump.display())));
        Earlier::with_home("postgres/home", Some(database))
    }

    fn with_home(fixture_home: &str, database: Option<TestDatabase>) -> Earlier {
        let home = tempfile::tempdir().unwrap();
        switchyard_test_support::copy_folder(&fixture(fixture_home), home.path());
        // git keeps no permissions but the executable bit, and the key file must be the owner's
        // alone: what someone restoring a home from a backup does too.
        let keys = home.path().join("keys/keyring.json");
        std::fs::set_permissions(&keys, std::fs::Permissions::from_mode(0o600)).unwrap();
        Earlier { home, project: tempfile::tempdir().unwrap(), database }
    }

    /// Runs `switchyard --json <args>` on the copy.
    fn run(&self, args: &[&str]) -> Ran {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_switchyard"));
        without_switchyard_environment(&mut command)
            .env("SWITCHYARD_HOME", self.home.path())
            .env("NO_COLOR", "1")
            .current_dir(self.project.path())
            .stdin(Stdio::null())
            .arg("--json");
        if let Some(database) = &self.database {
            command.args(["--store", database.url()]);
        }
        ran(&command.args(args).output().expect("the switchyard binary runs"))
    }

    fn ok(&self, args: &[&str]) -> Value {
        self.run(args).ok()
    }

    /// The run of the one session with `status`.
    fn only_run_with_status(&self, status: &str) -> String {
        let sessions = self.ok(&["sessions", "--status", status]);
        let sessions = sessions.as_array().unwrap();
        assert_eq!(sessions.len(), 1, "one session is {status}: {sessions:#?}");
        string(&sessions[0]["run"])
    }
}

/// A fixture's path, which must exist: a test without its fixture fails, never passes.
fn fixture(relative: &str) -> PathBuf {
    let path = switchyard_test_support::testdata().join("stores").join(relative);
    assert!(
        path.exists(),
        "the fixture {} is missing: it is committed with the repository (`git checkout -- testdata/stores` restores \
         it); testdata/stores/README.md says how it was written",
        path.display()
    );
    path
}

fn verified_clean(earlier: &Earlier, sessions: u64) {
    let report = earlier.ok(&["verify"]);
    assert_eq!(report["problems"], json!([]), "{report:#}");
    assert_eq!(report["sessions_checked"], sessions, "{report:#}");
}

/// Every check, on one store.
fn goes_on(earlier: &Earlier) {
    verified_clean(earlier, 7);

    let listed = earlier.ok(&["sessions", "--limit", "100"]);
    let mut found: Vec<(String, String)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|session| (string(&session["goal"]), string(&session["status"])))
        .collect();
    found.sort();
    let mut expected: Vec<(String, String)> =
        SESSIONS.iter().map(|(goal, status)| ((*goal).to_owned(), (*status).to_owned())).collect();
    expected.sort();
    assert_eq!(found, expected, "sessions lists every session as it was left");

    let mut kinds = std::collections::BTreeSet::new();
    for session in listed.as_array().unwrap() {
        for event in earlier.ok(&["log", &string(&session["id"]), "--limit", "10000"]).as_array().unwrap() {
            kinds.insert(string(&event["kind"]["type"]));
        }
    }
    assert_eq!(kinds.iter().map(String::as_str).collect::<Vec<_>>(), EVENT_KINDS, "every event reads back");

    let driven =
        string(&listed.as_array().unwrap().iter().find(|s| s["goal"] == "Review the logging change").unwrap()["run"]);
    let transcript = earlier.ok(&["transcript", &driven]);
    let steps: Vec<&Value> = transcript["turns"].as_array().unwrap().iter().map(|turn| &turn["step"]).collect();
    assert_eq!(steps, ["scope", "scope", "assess", "decide", "approve"], "the model's turns read back: {transcript:#}");

    let at_gate = earlier.only_run_with_status("waiting_gate");
    let approved = earlier.ok(&["approve", &at_gate]);
    assert_eq!(approved["status"], "completed", "the waiting gate is approved: {approved:#}");

    let pending = earlier.only_run_with_status("active");
    let shown = earlier.ok(&["show", &pending]);
    assert_eq!(shown["step"]["step"], "assess", "{shown:#}");
    let token = string(&shown["tokens"]["continue_token"]);
    let assessed = earlier.ok(&[
        "continue",
        &token,
        "--notes",
        "No findings.",
        "--artifacts",
        r#"{"findings": []}"#,
        "--context",
        r#"{"blocking_findings": 0}"#,
    ]);
    assert_eq!((&assessed["status"], &assessed["step"]["step"]), (&json!("active"), &json!("decide")), "{assessed:#}");

    let started = earlier.ok(&["start", "dev-cycle", "--goal", "A run after the upgrade"]);
    let token = string(&started["tokens"]["continue_token"]);
    let planned = earlier.ok(&["continue", &token, "--notes", "A plan made by this build."]);
    assert_eq!(planned["status"], "waiting_gate", "a new run advances: {planned:#}");

    verified_clean(earlier, 8);
}

#[test]
fn a_sqlite_store_written_earlier_opens_verifies_and_goes_on() {
    goes_on(&Earlier::sqlite());
}

#[test]
fn a_postgres_store_written_earlier_opens_verifies_and_goes_on() {
    goes_on(&Earlier::postgres());
}
