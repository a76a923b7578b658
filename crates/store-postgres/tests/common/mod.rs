//! A fresh PostgreSQL database per test, created from the server `SWITCHYARD_TEST_POSTGRES_URL`
//! (or `DATABASE_URL`) names and dropped when the test ends.

#![allow(dead_code)]

use std::sync::atomic::{AtomicU64, Ordering};

use tokio_postgres::NoTls;

/// The admin URL the tests connect with; a test fails, never skips, without one.
pub fn server_url() -> String {
    std::env::var("SWITCHYARD_TEST_POSTGRES_URL").or_else(|_| std::env::var("DATABASE_URL")).unwrap_or_else(|_| {
        panic!(
            "the Postgres store's tests need a PostgreSQL server: run `export SWITCHYARD_TEST_POSTGRES_URL=\"$(bash .ci/postgres)\"` \
             (it starts the machine's cluster and creates a test role), or set it to a role that may create databases"
        )
    })
}

/// Connects to `url`, driving the connection on a task.
pub async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.expect("connecting to the test server");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

/// A database that exists for one test.
pub struct TestDatabase {
    pub name: String,
    pub url: String,
}

impl TestDatabase {
    pub async fn create() -> TestDatabase {
        static CREATED: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let name =
            format!("switchyard_test_{}_{nanos:x}_{}", std::process::id(), CREATED.fetch_add(1, Ordering::Relaxed));
        let server = server_url();
        connect(&server)
            .await
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .expect("creating a test database");
        let mut config: tokio_postgres::Config = server.parse().expect("the test URL parses");
        config.dbname(&name);
        let url = with_database(&server, &name);
        drop(config);
        TestDatabase { name, url }
    }

    /// Drops the database, closing what is still connected to it.
    pub async fn drop_now(&self) {
        connect(&server_url())
            .await
            .batch_execute(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name))
            .await
            .expect("dropping a test database");
    }

    /// A client connected to this database.
    pub async fn client(&self) -> tokio_postgres::Client {
        connect(&self.url).await
    }
}

/// `url` with its database replaced by `name` (the URL form: `postgres://…/database?…`).
fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, format!("?{query}")),
        None => (url, String::new()),
    };
    let authority_end = base.find("://").map_or(0, |at| at + 3);
    let base = match base[authority_end..].find('/') {
        Some(slash) => &base[..authority_end + slash],
        None => base,
    };
    format!("{base}/{name}{query}")
}
