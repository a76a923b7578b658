//! `switchyard store copy` through the real binary: a SQLite store holding runs at every kind of
//! point (a gate waiting, a fork, a blocked attempt, a finished run, a run not yet advanced) goes
//! to Postgres and back to a new SQLite file; afterwards `verify` is clean, `log` is identical, an
//! old unused token continues its run there and a used one replays. A destination that already
//! holds sessions is refused unless `--add`.

mod support;

use serde_json::Value;
use support::{Sandbox, continue_token, string};
use switchyard_test_support::TestDatabase;

const GREETING: &str = include_str!("support/greeting.yaml");

/// The runs the copy must carry, and the tokens the test uses afterwards.
struct Runs {
    all: Vec<String>,
    /// A continue token never used: it must advance its run on the new store.
    unused: String,
    /// A continue token already used, with the report it was used with.
    used: (String, String),
}

fn make_runs(sandbox: &Sandbox) -> Runs {
    sandbox.write_workflow("greeting.yaml", GREETING);
    let waiting = sandbox.run(&["start", "dev-cycle", "--goal", "Wait at the plan gate"]).ok();
    let gate = sandbox.run(&["continue", &continue_token(&waiting), "--notes", "the plan"]).ok();
    assert_eq!(gate["kind"], "waiting_gate", "{gate}");

    let forked = sandbox.run(&["start", "dev-cycle", "--goal", "Fork after the plan"]).ok();
    sandbox.run(&["continue", &continue_token(&forked), "--notes", "first plan"]).ok();
    sandbox.run(&["approve", &string(&forked["run"])]).ok();
    let first = sandbox.run(&["show", &string(&forked["node"])]).ok();
    let fork = sandbox.run(&["continue", &continue_token(&first), "--notes", "another plan"]).ok();
    assert_eq!(fork["forked"], true, "{fork}");

    let blocked = sandbox.run(&["start", "bug-investigation", "--goal", "Crash on empty input"]).ok();
    let refused = sandbox
        .run(&["continue", &continue_token(&blocked), "--notes", "x", "--artifacts", "{\"reproduced\": \"yes\"}"])
        .expect(1);
    assert_eq!(refused["kind"], "blocked", "{refused}");

    let finished = sandbox.run(&["start", "greeting", "--goal", "Finish the greeting"]).ok();
    let used = continue_token(&finished);
    let review = sandbox.run(&["continue", &used, "--notes", "hello, world"]).ok();
    sandbox.run(&["continue", &continue_token(&review), "--notes", "it sounds fine"]).ok();
    let done = sandbox.run(&["approve", &string(&finished["run"])]).ok();
    assert_eq!(done["kind"], "complete", "{done}");

    let fresh = sandbox.run(&["start", "greeting", "--goal", "Not advanced yet"]).ok();
    Runs {
        all: [&waiting, &forked, &blocked, &finished, &fresh].iter().map(|start| string(&start["run"])).collect(),
        unused: continue_token(&fresh),
        used: (used, "hello, world".to_owned()),
    }
}

fn log(sandbox: &Sandbox, store: &str, run: &str) -> Value {
    sandbox.run(&["--store", store, "log", run, "--limit", "10000"]).ok()
}

#[test]
fn a_store_copied_to_postgres_and_back_verifies_keeps_its_logs_and_its_tokens_work() {
    // The source is the home's SQLite file, whichever backend the other tests run on.
    let sandbox = Sandbox::sqlite();
    let runs = make_runs(&sandbox);
    let source = sandbox.store_path().display().to_string();
    let database = TestDatabase::create();
    let postgres = database.url().to_owned();
    let back = sandbox.home.path().join("back.sqlite3").display().to_string();

    let there = sandbox.run(&["store", "copy", "--from", &format!("sqlite:{source}"), "--to", &postgres]).ok();
    assert_eq!(there["sessions"], 5, "{there}");
    assert_eq!(there["verify"]["problems"], serde_json::json!([]), "{there}");
    assert!(there["claims"].as_u64() > Some(0) && there["tokens"].as_u64() > Some(0), "{there}");
    assert!(!there["to"].as_str().unwrap().contains("test-only-secret"), "never the password: {there}");
    let home = sandbox.run(&["store", "copy", "--from", &postgres, "--to", &back]).ok();
    for field in ["sessions", "events", "claims", "tokens", "pins"] {
        assert_eq!(home[field], there[field], "{field} on the way back: {home} vs {there}");
    }

    let verify = sandbox.run(&["--store", &back, "verify"]).ok();
    assert_eq!(verify["problems"], serde_json::json!([]), "{verify}");
    for run in &runs.all {
        let original = log(&sandbox, &source, run);
        assert_eq!(log(&sandbox, &postgres, run), original, "run {run}'s log in Postgres");
        assert_eq!(log(&sandbox, &back, run), original, "run {run}'s log back in SQLite");
    }

    let finished = &runs.all[3];
    let advances = |store: &str| {
        let events = log(&sandbox, store, finished);
        events.as_array().unwrap().iter().filter(|event| event["kind"]["type"] == "advance_recorded").count()
    };
    // Tokens minted on the SQLite file work on both copies: the database and the file copied back.
    let (used, notes) = &runs.used;
    let fresh_run = &runs.all[4];
    let before = advances(&postgres);
    let replay = sandbox.run(&["--store", &postgres, "continue", used, "--notes", notes]).ok();
    assert_eq!(replay["replayed"], true, "a used token replays its recorded answer in Postgres: {replay}");
    assert_eq!(advances(&postgres), before, "a replay is not a second advance");
    let advanced =
        sandbox.run(&["--store", &postgres, "continue", &runs.unused, "--notes", "hello from Postgres"]).ok();
    assert_eq!(
        (string(&advanced["run"]), &advanced["step"]["step"]),
        (fresh_run.clone(), &serde_json::json!("review"))
    );
    let verify = sandbox.run(&["--store", &postgres, "verify"]).ok();
    assert_eq!(verify["problems"], serde_json::json!([]), "{verify}");

    let before = advances(&back);
    let replay = sandbox.run(&["--store", &back, "continue", used, "--notes", notes]).ok();
    assert_eq!(replay["replayed"], true, "a used token replays its recorded answer: {replay}");
    assert_eq!(advances(&back), before, "a replay is not a second advance");

    let advanced = sandbox.run(&["--store", &back, "continue", &runs.unused, "--notes", "hello from the copy"]).ok();
    assert_eq!(&string(&advanced["run"]), fresh_run, "{advanced}");
    assert_eq!(advanced["step"]["step"], "review", "the old token moved its run on the new store: {advanced}");
    let verify = sandbox.run(&["--store", &back, "verify"]).ok();
    assert_eq!(verify["problems"], serde_json::json!([]), "{verify}");
}

#[test]
fn a_destination_holding_sessions_is_refused_unless_added_to() {
    // The source is the home's SQLite file, whichever backend the other tests run on.
    let sandbox = Sandbox::sqlite();
    sandbox.write_workflow("greeting.yaml", GREETING);
    sandbox.run(&["start", "greeting", "--goal", "Copied twice"]).ok();
    let source = sandbox.store_path().display().to_string();
    let database = TestDatabase::create();
    let postgres = database.url().to_owned();
    sandbox.run(&["store", "copy", "--from", &source, "--to", &postgres]).ok();

    let again = sandbox.run(&["store", "copy", "--from", &source, "--to", &postgres]);
    let error = again.expect(2);
    assert_eq!(error["error"]["code"], "STORE_COPY_DESTINATION_NOT_EMPTY", "{error}");
    assert!(again.stderr.contains("--add"), "the message says how to go on: {}", again.stderr);

    sandbox.run(&["start", "greeting", "--goal", "Added later"]).ok();
    let added = sandbox.run(&["store", "copy", "--from", &source, "--to", &postgres, "--add"]).ok();
    assert_eq!((added["sessions"].as_u64(), added["skipped_sessions"].as_u64()), (Some(1), Some(1)), "{added}");
    let sessions = sandbox.run(&["--store", &postgres, "sessions"]).ok();
    assert_eq!(sessions.as_array().map(Vec::len), Some(2), "{sessions}");

    let missing = sandbox.home.path().join("missing.sqlite3").display().to_string();
    let refused = sandbox.run(&["store", "copy", "--from", &missing, "--to", &postgres]);
    assert_eq!(refused.expect(2)["error"]["code"], "INVALID_INPUT");
    assert!(!std::path::Path::new(&missing).exists(), "a missing source is not created");
}
