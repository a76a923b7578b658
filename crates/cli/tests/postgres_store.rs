//! The CLI on a PostgreSQL store, through the real binary: `--store postgres://…` runs and
//! continues a workflow in the database (no SQLite file is made), `verify` checks it there, and a
//! database that cannot be reached is a clear error with exit 2 that never shows the password.

mod support;

use support::{Sandbox, continue_token, string};
use switchyard_test_support::TestDatabase;

const GREETING: &str = include_str!("support/greeting.yaml");

#[test]
fn a_run_through_a_postgres_url_lives_in_the_database() {
    let database = TestDatabase::create();
    let url = database.url().to_owned();
    // A SQLite home, so that the database is named by the flag alone.
    let sandbox = Sandbox::sqlite();
    sandbox.write_workflow("greeting.yaml", GREETING);

    let start = sandbox.run(&["--store", &url, "start", "greeting", "--goal", "kept in postgres"]).ok();
    let run = string(&start["run"]);
    sandbox.run(&["--store", &url, "continue", &continue_token(&start), "--notes", "hello from postgres"]).ok();
    let log = sandbox.run(&["--store", &url, "log", &run, "--limit", "100"]).ok();
    let advances = log.as_array().unwrap().iter().filter(|event| event["kind"]["type"] == "advance_recorded").count();
    assert_eq!(advances, 1, "{log:#}");
    let verify = sandbox.run(&["--store", &url, "verify"]).ok();
    assert_eq!(verify["problems"].as_array().map(Vec::len), Some(0), "{verify:#}");
    let sessions = sandbox.run(&["--store", &url, "sessions"]).ok();
    assert_eq!(sessions.as_array().map(Vec::len), Some(1), "{sessions:#}");
    assert!(!sandbox.store_path().exists(), "no SQLite file is made when the store is a database");
    let without = sandbox.run(&["sessions"]).ok();
    assert_eq!(without.as_array().map(Vec::len), Some(0), "the default SQLite store is another store");
}

#[test]
fn an_unreachable_database_is_a_clear_error_without_the_password() {
    let sandbox = Sandbox::new();
    let ran = sandbox.run(&["--store", "postgres://team:s3cret-word@127.0.0.1:1/teamstore", "sessions"]);
    assert_eq!(ran.code, 2, "{}", ran.stderr);
    let shown = format!("{}{}", ran.stdout, ran.stderr);
    assert!(shown.contains("STORE_UNAVAILABLE"), "{shown}");
    assert!(shown.contains("team@127.0.0.1:1/teamstore"), "names the database: {shown}");
    assert!(!shown.contains("s3cret-word"), "never the password: {shown}");
}
