//! A fresh PostgreSQL database per test, on the server `SWITCHYARD_TEST_POSTGRES_URL` names:
//! the test support crate's [`switchyard_test_support::TestDatabase`], with the async helpers
//! these tests use.

#![allow(dead_code)]

use tokio_postgres::NoTls;

/// Connects to `url`, driving the connection on a task.
pub async fn connect(url: &str) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, NoTls).await.expect("connecting to the test server");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    client
}

/// A database that exists for one test, dropped with this (or by [`TestDatabase::drop_now`]).
pub struct TestDatabase {
    pub name: String,
    pub url: String,
    database: switchyard_test_support::TestDatabase,
}

impl TestDatabase {
    pub async fn create() -> TestDatabase {
        let database = switchyard_test_support::TestDatabase::create();
        TestDatabase { name: database.name().to_owned(), url: database.url().to_owned(), database }
    }

    /// Drops the database now, closing what is still connected to it.
    pub async fn drop_now(self) {
        drop(self);
    }

    /// A client connected to this database.
    pub async fn client(&self) -> tokio_postgres::Client {
        connect(&self.url).await
    }
}
