//! What the kernel lets a command do: write in its workspace but nowhere else, leave the protected
//! places inside it as they were, read no secret, open no TCP connection without the network, and
//! signal no process of the runner's, while the runner's own threads stay free.

// Landlock is Linux's.
#![cfg(target_os = "linux")]

mod support;

use std::net::TcpListener;
use std::path::Path;

use support::{assert_denied, read, require_landlock, run};
use switchyard_command::Sandbox;

#[tokio::test]
async fn a_command_writes_inside_its_workspace() {
    require_landlock(1);
    let workspace = tempfile::tempdir().unwrap();
    let script =
        "mkdir -p out/deep && echo built > out/deep/artifact && echo gone > /dev/null && cat out/deep/artifact";
    let outcome = run(&["sh", "-c", script], &Sandbox::new(workspace.path())).await;
    assert!(outcome.confined);
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    assert_eq!(outcome.stdout.tail, "built\n");
    assert_eq!(read(&workspace.path().join("out/deep/artifact")), "built\n");
}

#[tokio::test]
async fn the_kernel_refuses_a_write_outside_the_workspace() {
    require_landlock(1);
    let workspace = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("stolen");
    let target_text = target.to_str().unwrap();
    let sandbox = Sandbox::new(workspace.path());

    let outcome = run(&["sh", "-c", &format!("echo x > '{target_text}'")], &sandbox).await;
    assert_denied(&outcome, "sh writing outside");
    let outcome = run(&["python3", "-c", "import sys; open(sys.argv[1], 'w').write('x')", target_text], &sandbox).await;
    assert_denied(&outcome, "Python writing outside");
    assert!(!target.exists(), "the file outside the workspace was created");
}

#[tokio::test]
async fn a_writable_place_besides_the_workspace_takes_writes_but_not_its_secrets() {
    require_landlock(1);
    let workspace = tempfile::tempdir().unwrap();
    let cache = tempfile::tempdir().unwrap();
    std::fs::create_dir(cache.path().join("config")).unwrap();
    std::fs::create_dir(cache.path().join("registry")).unwrap();
    std::fs::write(cache.path().join("config/credentials"), "cache-secret\n").unwrap();
    let mut sandbox = Sandbox::new(workspace.path());
    sandbox.writable = vec![cache.path().to_owned(), cache.path().join("not-made-yet")];
    sandbox.secret = vec![cache.path().join("config/credentials")];
    let cache_text = cache.path().to_str().unwrap();

    let outcome = run(
        &["sh", "-c", &format!("mkdir '{cache_text}/registry/index' && echo x > '{cache_text}/registry/index/crate'")],
        &sandbox,
    )
    .await;
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    assert_eq!(read(&cache.path().join("registry/index/crate")), "x\n");
    for script in
        [format!("cat '{cache_text}/config/credentials'"), format!("echo evil > '{cache_text}/config/credentials'")]
    {
        let outcome = run(&["sh", "-c", &script], &sandbox).await;
        assert_denied(&outcome, &script);
    }
    assert_eq!(read(&cache.path().join("config/credentials")), "cache-secret\n");
}

/// A workspace as switchyard leaves it: its configuration, its folder and the repository's
/// history beside the project's own files.
fn project() -> (tempfile::TempDir, Sandbox) {
    let workspace = tempfile::tempdir().unwrap();
    let root = workspace.path();
    for (path, text) in [
        ("switchyard.toml", "original\n"),
        (".switchyard/config", "original\n"),
        (".git/HEAD", "original\n"),
        ("src/lib.rs", "original\n"),
        ("README", "original\n"),
    ] {
        std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        std::fs::write(root.join(path), text).unwrap();
    }
    let mut sandbox = Sandbox::new(root);
    sandbox.unwritable = vec!["switchyard.toml".into(), ".switchyard".into(), ".git".into()];
    (workspace, sandbox)
}

#[tokio::test]
async fn unwritable_places_inside_the_workspace_stay_as_they_were() {
    require_landlock(3);
    let (workspace, sandbox) = project();
    for script in [
        "echo evil > switchyard.toml",
        "echo evil >> switchyard.toml",
        "rm -f switchyard.toml",
        "mv switchyard.toml moved",
        "echo evil > .switchyard/config",
        "touch .switchyard/planted",
        "rm -rf .git",
        "echo evil > .git/HEAD",
    ] {
        let outcome = run(&["sh", "-c", script], &sandbox).await;
        assert_denied(&outcome, script);
    }
    for path in ["switchyard.toml", ".switchyard/config", ".git/HEAD"] {
        assert_eq!(read(&workspace.path().join(path)), "original\n", "{path} changed");
    }
    assert!(!workspace.path().join(".switchyard/planted").exists());
    assert!(!workspace.path().join("moved").exists());

    let outcome =
        run(&["sh", "-c", "echo more >> src/lib.rs && mkdir src/new && echo x > src/new/file"], &sandbox).await;
    assert_eq!(outcome.exit_code, Some(0), "the project's own files stay writable: {outcome:?}");
    assert_eq!(read(&workspace.path().join("src/lib.rs")), "original\nmore\n");
}

#[tokio::test]
async fn a_protected_place_that_does_not_exist_yet_cannot_be_created() {
    require_landlock(1);
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join("src")).unwrap();
    let mut sandbox = Sandbox::new(workspace.path());
    sandbox.unwritable = vec!["switchyard.toml".into(), ".switchyard/workflows".into()];
    for script in ["echo planted > switchyard.toml", "mkdir -p .switchyard/workflows"] {
        let outcome = run(&["sh", "-c", script], &sandbox).await;
        assert_denied(&outcome, script);
    }
    assert!(!workspace.path().join("switchyard.toml").exists());
    assert!(!workspace.path().join(".switchyard").exists());
}

/// The documented price of leaving a place out: its folder gets no create or remove rights of
/// its own, while its existing files stay writable and its other folders fully so.
#[tokio::test]
async fn a_folder_holding_a_protected_place_gets_no_new_entries() {
    require_landlock(1);
    let (workspace, sandbox) = project();
    let outcome = run(&["sh", "-c", "touch new-at-the-root"], &sandbox).await;
    assert_denied(&outcome, "creating an entry at the workspace root");
    assert!(!workspace.path().join("new-at-the-root").exists());

    let outcome = run(&["sh", "-c", "echo more >> README && touch src/new-below"], &sandbox).await;
    assert_eq!(outcome.exit_code, Some(0), "{outcome:?}");
    assert_eq!(read(&workspace.path().join("README")), "original\nmore\n");
    assert!(workspace.path().join("src/new-below").exists());
}

#[tokio::test]
async fn secret_places_cannot_be_read() {
    require_landlock(1);
    let (workspace, mut sandbox) = project();
    std::fs::write(workspace.path().join(".switchyard/token"), "workspace-secret\n").unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("keys")).unwrap();
    std::fs::write(home.path().join("keys/keyring"), "key-secret\n").unwrap();
    std::fs::write(home.path().join("store.db"), "store-secret\n").unwrap();
    std::fs::write(home.path().join("notes"), "readable\n").unwrap();
    sandbox.secret = vec![home.path().join("keys"), home.path().join("store.db"), ".switchyard/token".into()];

    for secret in
        [home.path().join("keys/keyring"), home.path().join("store.db"), workspace.path().join(".switchyard/token")]
    {
        let outcome = run(&["cat", secret.to_str().unwrap()], &sandbox).await;
        assert_denied(&outcome, &format!("reading {}", secret.display()));
        assert!(!outcome.stdout.tail.contains("secret"), "{outcome:?}");
    }
    // Their neighbours stay readable: only the secret subtrees are left out.
    let outcome = run(&["cat", home.path().join("notes").to_str().unwrap()], &sandbox).await;
    assert_eq!(outcome.stdout.tail, "readable\n", "{outcome:?}");
    let outcome = run(&["cat", ".switchyard/config"], &sandbox).await;
    assert_eq!(outcome.stdout.tail, "original\n", "{outcome:?}");
}

/// Connects to `port` on the loopback interface and says `connected`, or fails.
const CONNECT: &str =
    "import socket, sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=10); print('connected')";

#[tokio::test]
async fn without_the_network_a_tcp_connection_is_refused() {
    require_landlock(4);
    let workspace = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port().to_string();

    let outcome = run(&["python3", "-c", CONNECT, &port], &Sandbox::new(workspace.path())).await;
    assert_denied(&outcome, "connecting without the network");
    let accepted = listener.accept();
    assert!(
        accepted.as_ref().is_err_and(|error| error.kind() == std::io::ErrorKind::WouldBlock),
        "the listener was reached: {accepted:?}"
    );
}

#[tokio::test]
async fn with_the_network_the_same_connection_is_made() {
    require_landlock(4);
    let workspace = tempfile::tempdir().unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let mut sandbox = Sandbox::new(workspace.path());
    sandbox.network = true;

    let outcome = run(&["python3", "-c", CONNECT, &port], &sandbox).await;
    assert!(outcome.confined);
    assert_eq!(outcome.stdout.tail, "connected\n", "{outcome:?}");
}

#[tokio::test]
async fn a_confined_command_cannot_signal_the_runner() {
    require_landlock(6);
    let workspace = tempfile::tempdir().unwrap();
    let runner = std::process::id().to_string();
    // Signal 0 kills nothing: it asks whether a signal would be allowed.
    let outcome = run(
        &["python3", "-c", "import os, sys; os.kill(int(sys.argv[1]), 0)", &runner],
        &Sandbox::new(workspace.path()),
    )
    .await;
    assert_denied(&outcome, "signalling the runner");
}

/// Landlock confines the thread that asks and what it starts: the runner's own threads, old and
/// new, must be as free after a confined command as before.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_runner_s_own_threads_stay_unconfined() {
    require_landlock(1);
    let workspace = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let outcome = run(&["sh", "-c", "echo x > inside"], &Sandbox::new(workspace.path())).await;
    assert!(outcome.confined && outcome.exit_code == Some(0), "{outcome:?}");

    let write =
        |folder: &Path, name: &str| std::fs::write(folder.join(name), name).map_err(|error| format!("{name}: {error}"));
    write(outside.path(), "from-the-test-task").unwrap();
    let folder = outside.path().to_owned();
    tokio::spawn(async move { write(&folder, "from-a-worker-task") }).await.unwrap().unwrap();
    let folder = outside.path().to_owned();
    tokio::task::spawn_blocking(move || write(&folder, "from-the-blocking-pool")).await.unwrap().unwrap();
    let folder = outside.path().to_owned();
    std::thread::spawn(move || write(&folder, "from-a-new-thread")).join().unwrap().unwrap();
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 4);
}
