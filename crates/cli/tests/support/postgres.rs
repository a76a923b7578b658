//! A fresh PostgreSQL database per test on the test server, dropped when the test ends.

use std::future::Future;

/// The admin URL of the test server; the test fails, never skips, without one.
pub fn test_server() -> String {
    std::env::var("SWITCHYARD_TEST_POSTGRES_URL").unwrap_or_else(|_| {
        panic!(
            "this test needs a PostgreSQL server: run `export SWITCHYARD_TEST_POSTGRES_URL=\"$(bash .ci/postgres)\"` (it starts the machine's cluster and creates a test role)"
        )
    })
}

/// A database of its own on the test server, made empty and dropped (with its connections) when
/// the value is.
#[derive(Debug)]
pub struct Database {
    pub name: String,
    /// The URL switchyard is given, `--store <url>`.
    pub url: String,
}

impl Database {
    /// Makes `switchyard_<label>_<pid>`, dropping one left by an earlier run of the same test.
    pub fn create(label: &str) -> Self {
        let name = format!("switchyard_{label}_{}", std::process::id());
        on_test_server(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"));
        on_test_server(&format!("CREATE DATABASE {name}"));
        let server = test_server();
        let base = server.rsplit_once('/').map_or(server.as_str(), |(base, _)| base);
        Self { url: format!("{base}/{name}"), name }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        on_test_server(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
    }
}

/// Runs `sql` on the test server as its admin role.
fn on_test_server(sql: &str) {
    block_on(async {
        let (client, connection) = tokio_postgres::connect(&test_server(), tokio_postgres::NoTls).await.unwrap();
        let driver = tokio::spawn(connection);
        client.batch_execute(sql).await.unwrap_or_else(|error| panic!("{sql}: {error}"));
        drop(client);
        let _ = driver.await;
    });
}

fn block_on<T>(future: impl Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
}
