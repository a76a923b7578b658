//! TLS to the server as the store URL asks for it (`sslmode`, `sslrootcert`), against the test
//! cluster, which serves TLS (`.ci/postgres` turns it on): `require` encrypts every connection,
//! the change listener's too; `verify-ca` and `verify-full` check the certificate and refuse one
//! they cannot trust, saying what failed and what to change; `disable` stays plain.

mod common;

use std::io::{Read, Write};
use std::time::Duration;

use switchyard_store::Store;
use switchyard_store::conformance::fixture::{SessionScript, node_id};
use switchyard_store_postgres::{PostgresOptions, PostgresStore};

use common::TestDatabase;

/// A root certificate authority that signed no server's certificate (its key was thrown away).
const UNRELATED_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/unrelated-root.pem");

/// `url` with `parameters` added to its query.
fn with_parameters(url: &str, parameters: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}{parameters}")
}

/// `url` with its host replaced by `host` (the URL form: `postgres://credentials@host:port/…`).
fn with_host(url: &str, host: &str) -> String {
    let after_credentials = url.find('@').map_or(url.find("://").unwrap() + 3, |at| at + 1);
    let host_end = after_credentials + url[after_credentials..].find([':', '/']).unwrap();
    format!("{}{host}{}", &url[..after_credentials], &url[host_end..])
}

/// Whether each connection open to the test database is encrypted, as the server sees it.
async fn encrypted_connections(database: &TestDatabase) -> Vec<bool> {
    common::connect(&switchyard_test_support::server_url())
        .await
        .query(
            "SELECT ssl.ssl FROM pg_stat_ssl ssl JOIN pg_stat_activity activity USING (pid) WHERE activity.datname = $1",
            &[&database.name],
        )
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// The certificate file the server presents, which is its own root when self-signed (Debian's
/// snakeoil certificate, or the one `.ci/postgres` makes).
async fn server_certificate_file() -> String {
    let row = common::connect(&switchyard_test_support::server_url())
        .await
        .query_one("SELECT setting FROM pg_settings WHERE name = 'ssl_cert_file'", &[])
        .await
        .unwrap();
    let file: String = row.get(0);
    assert!(file.starts_with('/'), "ssl_cert_file is an absolute path, which a client can read: {file}");
    file
}

async fn open(url: &str) -> Result<PostgresStore, switchyard_store::Error> {
    PostgresStore::open(url, PostgresOptions::default()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sslmode_require_encrypts_every_connection_and_the_store_works_over_it() {
    let database = TestDatabase::create().await;
    let url = with_parameters(&database.url, "sslmode=require");
    let (server_a, server_b) = (open(&url).await.expect("opening over TLS"), open(&url).await.unwrap());
    let mut changes = server_a.subscribe().await;
    server_a.listening().await;
    let mut script = SessionScript::new(1);
    server_b.append(script.start(node_id(101))).await.expect("appending over TLS");
    let change = tokio::time::timeout(Duration::from_secs(10), changes.recv())
        .await
        .expect("server A's listener hears server B's commit within 10 s")
        .expect("the feed is open");
    assert_eq!(change.session, script.session);
    assert!(server_a.verify().await.unwrap().is_clean());

    // Each store's pooled connection and server A's listener.
    let encrypted = encrypted_connections(&database).await;
    assert!(encrypted.len() >= 3, "the stores' connections are open: {encrypted:?}");
    assert!(encrypted.iter().all(|encrypted| *encrypted), "every connection is TLS: {encrypted:?}");
    drop((server_a, server_b));
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sslmode_disable_still_connects_in_plain_text() {
    let database = TestDatabase::create().await;
    let store = open(&with_parameters(&database.url, "sslmode=disable")).await.expect("opening without TLS");
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.expect("appending without TLS");
    let encrypted = encrypted_connections(&database).await;
    assert!(
        !encrypted.is_empty() && encrypted.iter().all(|encrypted| !encrypted),
        "no connection is TLS: {encrypted:?}"
    );
    drop(store);
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_full_refuses_a_server_whose_certificate_a_given_root_did_not_sign() {
    let database = TestDatabase::create().await;
    let url = with_parameters(&database.url, &format!("sslmode=verify-full&sslrootcert={UNRELATED_ROOT}"));
    let error = open(&url).await.expect_err("the server's certificate is not signed by the given root");
    let message = error.to_string();
    assert_eq!(error.code(), "STORE_IO", "{message}");
    assert!(!error.is_retryable(), "the same server fails the same check again: {message}");
    assert!(message.contains("not signed by a trusted root"), "says what failed: {message}");
    assert!(message.contains(UNRELATED_ROOT), "names the roots it checked against: {message}");
    assert!(
        message.contains("give sslrootcert") && message.contains("sslmode=require"),
        "says how to fix it: {message}"
    );
    assert!(message.contains(&database.name), "names the database: {message}");
    assert!(!message.contains("test-only-secret"), "never the password: {message}");
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_ca_accepts_the_root_that_signed_the_server_certificate() {
    let database = TestDatabase::create().await;
    let root = server_certificate_file().await;
    let url = with_parameters(&database.url, &format!("sslmode=verify-ca&sslrootcert={root}"));
    let store = open(&url).await.expect("the server's certificate chains to the given root");
    let mut script = SessionScript::new(1);
    store.append(script.start(node_id(101))).await.expect("appending over a checked TLS connection");
    assert_eq!(encrypted_connections(&database).await, vec![true]);
    drop(store);
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_full_refuses_a_certificate_that_does_not_name_the_host() {
    // The test server's certificate names `localhost` or the machine, never the address 127.0.0.1.
    let database = TestDatabase::create().await;
    let root = server_certificate_file().await;
    let url = with_host(&database.url, "127.0.0.1");
    let error = open(&with_parameters(&url, &format!("sslmode=verify-full&sslrootcert={root}"))).await.unwrap_err();
    let message = error.to_string();
    assert_eq!(error.code(), "STORE_IO", "{message}");
    assert!(message.contains("does not name the host"), "says what failed: {message}");
    assert!(message.contains("sslmode=verify-ca"), "says how to fix it: {message}");
    // The chain itself holds: the same root with verify-ca opens.
    open(&with_parameters(&url, &format!("sslmode=verify-ca&sslrootcert={root}"))).await.expect("verify-ca opens");
    database.drop_now().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_root_certificate_file_that_cannot_be_read_is_named_with_the_fix() {
    let folder = tempfile::tempdir().unwrap();
    let missing = folder.path().join("absent-root.pem");
    let url = with_parameters(
        &switchyard_test_support::server_url(),
        &format!("sslmode=verify-full&sslrootcert={}", missing.display()),
    );
    let error = open(&url).await.unwrap_err();
    let message = error.to_string();
    assert_eq!(error.code(), "STORE_IO", "{message}");
    assert!(message.contains(&missing.display().to_string()) && message.contains("sslrootcert=system"), "{message}");
    assert!(!message.contains("test-only-secret"), "never the password: {message}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sslmode_require_where_the_server_offers_no_tls_is_refused_saying_what_to_change() {
    // A server without TLS answers the client's TLS request (8 bytes) with `N`, as PostgreSQL with
    // `ssl = off` does; the client must not go on in plain text.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut connection, _) = listener.accept().unwrap();
        let mut request = [0u8; 8];
        connection.read_exact(&mut request).unwrap();
        connection.write_all(b"N").unwrap();
        // Whatever follows (nothing, if the client stops) is read until it hangs up.
        let mut rest = Vec::new();
        let _ = connection.read_to_end(&mut rest);
        (request, rest)
    });
    let url = format!("postgres://switchyard:s3cret-word@127.0.0.1:{port}/teamstore?sslmode=require");
    let error = open(&url).await.expect_err("no TLS, no connection");
    let message = error.to_string();
    assert_eq!(error.code(), "STORE_IO", "{message}");
    assert!(
        message.contains("does not support TLS") && message.contains("sslmode=require"),
        "says what failed: {message}"
    );
    assert!(message.contains("turn ssl on") && message.contains("sslmode=prefer"), "says how to fix it: {message}");
    assert!(!message.contains("s3cret-word"), "never the password: {message}");
    let (request, rest) = server.join().unwrap();
    assert_eq!(request, [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f], "the client asked for TLS first");
    assert!(rest.is_empty(), "nothing, the password least of all, was sent in plain text: {rest:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_named_by_its_address_only_is_reached_over_tls() {
    let database = TestDatabase::create().await;
    let server: tokio_postgres::Config = database.url.parse().unwrap();
    let password = String::from_utf8(server.get_password().unwrap().to_vec()).unwrap();
    let url = format!(
        "hostaddr=127.0.0.1 port={} user={} password='{password}' dbname={} sslmode=require",
        server.get_ports()[0],
        server.get_user().unwrap(),
        database.name
    );
    let store = open(&url).await.expect("TLS needs a name, and the address serves as one");
    assert_eq!(encrypted_connections(&database).await, vec![true]);
    drop(store);
    database.drop_now().await;
}
