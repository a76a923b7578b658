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

/// A URL without a password takes it from `PGPASSWORD`, as libpq does; without one the server's
/// refusal says so, and the password is shown nowhere, whichever way it came.
#[test]
fn a_url_without_a_password_takes_it_from_pgpassword_and_never_shows_it() {
    let database = TestDatabase::create();
    let server = switchyard_test_support::server_url();
    let (user_and_password, _) = server.split_once('@').unwrap();
    let (scheme_and_user, password) = user_and_password.rsplit_once(':').unwrap();
    let url = database.url().replacen(user_and_password, scheme_and_user, 1);
    assert!(!url.contains(password), "the URL has no password: {url}");
    let sandbox = Sandbox::sqlite();
    sandbox.write_workflow("greeting.yaml", GREETING);
    let without_password = |args: &[&str]| {
        let mut all = vec!["--json", "--store", &url];
        all.extend_from_slice(args);
        let mut command = sandbox.command(&all);
        command.env_remove("PGPASSWORD").env("PGPASSFILE", "/nonexistent");
        command
    };

    let refused = support::ran(&without_password(&["sessions"]).output().unwrap());
    assert_eq!(refused.code, 2, "no password, no login: {}", refused.stderr);
    assert!(
        refused.stderr.contains("password missing") && refused.stderr.contains("PGPASSWORD"),
        "the refusal says what is missing and where it goes: {}",
        refused.stderr
    );

    let mut with_variable = without_password(&["start", "greeting", "--goal", "logged in by PGPASSWORD"]);
    let started = support::ran(&with_variable.env("PGPASSWORD", password).output().unwrap());
    assert_eq!(started.code, 0, "{}", started.stderr);
    let shown = format!("{}{}{}", started.stdout, started.stderr, refused.stderr);
    assert!(!shown.contains(password), "the password is never shown: {shown}");
}
