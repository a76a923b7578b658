//! FIFOs, devices and sockets through the file tools: refused by their type before anything opens
//! them for reading, never blocking, and every read bounded by the bytes actually read.

mod common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use switchyard_core::RunId;
use switchyard_files::{FileHost, HostConfig, Reference, ToolResult, codes};

/// Generous: a blocked open or an endless read would never answer at all.
const ANSWERS_WITHIN: Duration = Duration::from_secs(10);

struct Layout {
    _world: common::World,
    host: FileHost,
    run: RunId,
    _project: tempfile::TempDir,
    _socket: std::os::unix::net::UnixListener,
}

/// Runs `program at arguments…` (`mkfifo`, `mknod`).
fn make(program: &str, at: &Path, arguments: &[&str]) {
    let status = std::process::Command::new(program).arg(at).args(arguments).status().unwrap();
    assert!(status.success(), "{program} must work on the test machine (tests run as root)");
}

async fn layout(core_root: &str, max_read_bytes: u64) -> Layout {
    let world = common::World::new().await;
    let run = world.start("code-review").await.run;
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    make("mkfifo", &root.join("fifo"), &[]);
    // Devices inside the project, as a checkout or an unpacked archive could leave them: endless
    // (zero), blocking or acting on open (a terminal), a disk.
    make("mknod", &root.join("zero"), &["c", "1", "5"]);
    make("mknod", &root.join("tty"), &["c", "5", "0"]);
    make("mknod", &root.join("loop"), &["b", "7", "0"]);
    let socket = std::os::unix::net::UnixListener::bind(root.join("socket")).unwrap();
    symlink("zero", root.join("zero-link")).unwrap();
    symlink("fifo", root.join("fifo-link")).unwrap();
    std::fs::write(root.join("readme.md"), "project\n").unwrap();
    let config = HostConfig {
        project_root: Some(root.to_owned()),
        core_root: Some(core_root.into()),
        max_read_bytes,
        ..HostConfig::default()
    };
    let host = world.host(config);
    Layout { _world: world, host, run, _project: project, _socket: socket }
}

impl Layout {
    async fn call(&self, tool: &str, arguments: Value) -> ToolResult {
        let answer =
            tokio::time::timeout(ANSWERS_WITHIN, self.host.call(tool, arguments.clone(), Some(self.run))).await;
        answer.unwrap_or_else(|_| panic!("{tool} {arguments} did not answer within {ANSWERS_WITHIN:?}"))
    }
}

const SPECIAL: [&str; 7] = ["fifo", "zero", "tty", "loop", "socket", "zero-link", "fifo-link"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifos_devices_and_sockets_are_refused_without_blocking_by_every_reading_tool() {
    let layout = layout("/dev", 1024 * 1024).await;
    for name in SPECIAL {
        for tool in ["read_file", "list_files"] {
            let error = layout.call(tool, json!({ "path": format!("{{project-root}}/{name}") })).await.unwrap_err();
            assert_eq!(error.code, codes::SPECIAL_FILE, "{tool} {name}: {error}");
            assert!(error.message.contains("device, FIFO or socket"), "{tool} {name}: {error}");
        }
    }
    for name in ["zero", "null", "tty"] {
        let error = layout.call("read_file", json!({ "path": format!("{{core-root}}/{name}") })).await.unwrap_err();
        assert_eq!(error.code, codes::SPECIAL_FILE, "/dev/{name}: {error}");
    }
    let references: Vec<Reference> = SPECIAL
        .iter()
        .map(|name| Reference { path: format!("{{project-root}}/{name}"), conditional: false })
        .chain([Reference { path: "{project-root}/readme.md".into(), conditional: false }])
        .collect();
    let mounts = layout.host.mounts(layout.run).await.unwrap();
    let preload = tokio::time::timeout(ANSWERS_WITHIN, layout.host.preload(mounts, &references)).await;
    let preload: Value = serde_json::from_str(&preload.expect("preload answers").unwrap()).unwrap();
    assert_eq!(preload["files"][0]["content"], "project\n", "{preload}");
    let missing = preload["missing"].as_array().unwrap();
    assert_eq!(missing.len(), SPECIAL.len(), "{preload}");
    assert!(missing.iter().all(|missing| missing["code"] == codes::SPECIAL_FILE), "{preload}");
    let listing = layout.call("list_files", json!({ "path": "{project-root}" })).await.unwrap();
    for name in ["fifo", "zero", "tty", "loop", "socket"] {
        assert!(listing.contains(&format!("{name}\t0 (special)")), "{name} listed by its type: {listing}");
    }
}

/// `/proc` files say they hold 0 bytes and hold more: a read stops at the limit by what it read.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_read_is_bounded_by_the_bytes_read_not_by_the_size_the_metadata_claims() {
    let layout = layout("/proc", 64).await;
    let claimed = std::fs::metadata("/proc/self/status").unwrap().len();
    assert_eq!(claimed, 0, "the premise: /proc says its files are empty");
    let error = layout.call("read_file", json!({ "path": "{core-root}/self/status" })).await.unwrap_err();
    assert_eq!(error.code, codes::TOO_LARGE, "{error}");
}

/// Regression: `preload_workflow` compiled the run's workflow file again to find its references,
/// opening it blocking; replaced by a FIFO, the call never answered. Now it reads the files
/// recorded at start through the sandbox, which names the FIFO as a file it could not read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preload_workflow_answers_when_the_runs_workflow_file_became_a_fifo() {
    let world = common::World::new().await;
    let folder = tempfile::tempdir().unwrap();
    let file = folder.path().join("classify.json");
    let testdata = switchyard_test_support::corpora().join("workrail/workflows");
    std::fs::copy(testdata.join("classify-task-workflow.json"), &file).unwrap();
    let started = world
        .runtime
        .start(
            &switchyard_catalog::Catalog::builtins_only(),
            switchyard_runtime::StartRequest {
                file: Some(file.clone()),
                goal: "Classify".into(),
                ..switchyard_runtime::StartRequest::default()
            },
        )
        .await
        .unwrap();
    std::fs::remove_file(&file).unwrap();
    make("mkfifo", &file, &[]);
    let host = Arc::new(world.host(HostConfig::default()));
    // On a task of its own, so a call that blocks its thread cannot stop the bound from firing.
    let call = tokio::spawn({
        let host = Arc::clone(&host);
        async move { host.call("preload_workflow", json!({}), Some(started.run)).await }
    });
    let Ok(answer) = tokio::time::timeout(ANSWERS_WITHIN, call).await else {
        // Opening the FIFO's other end lets a blocked open return, and a plain file in its place
        // lets later opens return too, so the test fails rather than hangs.
        let writer = std::fs::OpenOptions::new().write(true).open(&file);
        std::fs::remove_file(&file).unwrap();
        std::fs::write(&file, "{}").unwrap();
        drop(writer);
        panic!("preload_workflow did not answer within {ANSWERS_WITHIN:?}");
    };
    let answer: Value = serde_json::from_str(&answer.unwrap().unwrap()).unwrap();
    let missing = &answer["missing"][0];
    assert_eq!(
        (missing["path"].as_str(), missing["code"].as_str()),
        (Some("{bundle-root}/classify.json"), Some(codes::SPECIAL_FILE)),
        "{answer:#}"
    );
}
