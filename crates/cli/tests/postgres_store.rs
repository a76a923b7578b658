//! The CLI on a PostgreSQL store, through the real binary: `--store postgres://…` runs and
//! continues a workflow in the database (no SQLite file is made), `verify` checks it there, and a
//! database that cannot be reached is a clear error with exit 2 that never shows the password.

mod support;

use support::{Sandbox, continue_token, string};

const GREETING: &str = include_str!("support/greeting.yaml");

/// The admin URL of the test server; the test fails, never skips, without one.
fn server_url() -> String {
    std::env::var("SWITCHYARD_TEST_POSTGRES_URL").or_else(|_| std::env::var("DATABASE_URL")).unwrap_or_else(|_| {
        panic!(
            "this test needs a PostgreSQL server: run `export SWITCHYARD_TEST_POSTGRES_URL=\"$(bash .ci/postgres)\"` (it starts the machine's cluster and creates a test role)"
        )
    })
}

/// Runs `sql` on the test server as its admin role.
fn admin(sql: &str) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let (client, connection) = tokio_postgres::connect(&server_url(), tokio_postgres::NoTls).await.unwrap();
        let driver = tokio::spawn(connection);
        client.batch_execute(sql).await.unwrap();
        drop(client);
        let _ = driver.await;
    });
}

#[test]
fn a_run_through_a_postgres_url_lives_in_the_database() {
    let name = format!("switchyard_cli_test_{}", std::process::id());
    admin(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
    admin(&format!("CREATE DATABASE {name}"));
    let server = server_url();
    let base = server.rsplit_once('/').map_or(server.as_str(), |(base, _)| base);
    let url = format!("{base}/{name}");
    let sandbox = Sandbox::new();
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

    admin(&format!("DROP DATABASE {name} WITH (FORCE)"));
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
