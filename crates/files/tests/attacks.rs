//! The attack corpus: hostile paths and file layouts against real files on disk. Every refusal
//! must carry its code, and nothing outside the mounts may be read or changed.

mod common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use switchyard_core::RunId;
use switchyard_files::{FileHost, HostConfig, ToolResult, codes};

const SECRET: &str = "top secret\n";

struct Layout {
    world: common::World,
    host: FileHost,
    run: RunId,
    folder: std::path::PathBuf,
    outside: std::path::PathBuf,
    _project: tempfile::TempDir,
}

async fn layout() -> Layout {
    let world = common::World::new().await;
    let started = world.start("code-review").await;
    let folder = world.folder(&started);
    let outside = world.home.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    symlink("../../outside/secret.txt", folder.join("esc_rel")).unwrap();
    symlink(outside.join("secret.txt"), folder.join("esc_abs")).unwrap();
    symlink(&outside, folder.join("esc_dir")).unwrap();
    symlink("esc_rel", folder.join("esc_chain")).unwrap();
    symlink("loop", folder.join("loop")).unwrap();
    std::fs::write(folder.join("notes.md"), "inside\n").unwrap();
    symlink("notes.md", folder.join("inside_link")).unwrap();
    std::fs::hard_link(outside.join("secret.txt"), folder.join("hardlinked.txt")).unwrap();
    let status = std::process::Command::new("mkfifo").arg(folder.join("fifo")).status().unwrap();
    assert!(status.success(), "mkfifo must work on the test machine");
    std::fs::write(folder.join("big.txt"), vec![b'a'; 2 * 1024 * 1024]).unwrap();
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("readme.md"), "project\n").unwrap();
    std::fs::hard_link(outside.join("secret.txt"), project.path().join("linked-secret.txt")).unwrap();
    let config = HostConfig {
        project_root: Some(project.path().to_owned()),
        core_root: Some("/dev".into()),
        ..HostConfig::default()
    };
    let host = world.host(config);
    Layout { run: started.run, world, host, folder, outside, _project: project }
}

impl Layout {
    async fn call(&self, tool: &str, arguments: serde_json::Value) -> ToolResult {
        self.host.call(tool, arguments, Some(self.run)).await
    }

    fn assert_outside_untouched(&self) {
        assert_eq!(std::fs::read_to_string(self.outside.join("secret.txt")).unwrap(), SECRET);
        let names: Vec<String> = std::fs::read_dir(&self.outside)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["secret.txt".to_owned()], "a file appeared outside the mounts");
    }
}

fn check(result: &ToolResult, expected: &str, case: &str) {
    match result {
        Err(error) => assert_eq!(error.code, expected, "{case}: {error}"),
        Ok(content) => panic!("{case}: expected {expected}, got success: {content}"),
    }
}

#[tokio::test]
async fn hostile_paths_are_refused_with_their_codes() {
    let layout = layout().await;
    let long_name = "a".repeat(300);
    let long_path = "d/".repeat(2100);
    let reads: Vec<(&str, String, &str)> = vec![
        ("relative traversal", "../outside/secret.txt".into(), codes::TRAVERSAL),
        ("traversal after a variable", "{output-root}/../../outside/secret.txt".into(), codes::TRAVERSAL),
        ("traversal in the middle", "{output-root}/a/../../outside/secret.txt".into(), codes::TRAVERSAL),
        ("dot then traversal", "./../x".into(), codes::TRAVERSAL),
        ("traversal from the project", "{project-root}/../../etc/passwd".into(), codes::TRAVERSAL),
        ("absolute path outside", "/etc/passwd".into(), codes::OUTSIDE_MOUNT),
        ("absolute path of the secret", layout.outside.join("secret.txt").display().to_string(), codes::OUTSIDE_MOUNT),
        ("relative symlink escape", "{output-root}/esc_rel".into(), codes::SYMLINK_ESCAPE),
        ("absolute symlink escape", "{output-root}/esc_abs".into(), codes::SYMLINK_ESCAPE),
        ("directory symlink escape", "{output-root}/esc_dir/secret.txt".into(), codes::SYMLINK_ESCAPE),
        ("chained symlink escape", "{output-root}/esc_chain".into(), codes::SYMLINK_ESCAPE),
        ("symlink loop", "{output-root}/loop".into(), codes::SYMLINK_ESCAPE),
        ("fifo", "{output-root}/fifo".into(), codes::SPECIAL_FILE),
        ("character device", "{core-root}/null".into(), codes::SPECIAL_FILE),
        ("another device", "{core-root}/zero".into(), codes::SPECIAL_FILE),
        ("NUL byte", "notes\0.md".into(), codes::INVALID_PATH),
        ("name too long", format!("{{output-root}}/{long_name}"), codes::INVALID_PATH),
        ("path too long", long_path, codes::INVALID_PATH),
        ("unknown variable", "{home-root}/x".into(), codes::INVALID_PATH),
        ("unclosed variable", "{output-root".into(), codes::INVALID_PATH),
        ("read through a hard link", "{output-root}/hardlinked.txt".into(), codes::HARDLINK),
        (
            "read a hard link by its absolute path",
            layout.folder.join("hardlinked.txt").display().to_string(),
            codes::HARDLINK,
        ),
        ("read a hard link in the project", "{project-root}/linked-secret.txt".into(), codes::HARDLINK),
        ("oversize read", "{output-root}/big.txt".into(), codes::TOO_LARGE),
        ("missing bundle", "{bundle-root}/workflow.yaml".into(), codes::NOT_FOUND),
    ];
    for (case, path, code) in &reads {
        check(&layout.call("read_file", json!({ "path": path })).await, code, case);
    }
    let writes: Vec<(&str, String, &str)> = vec![
        ("write by traversal", "../../outside/evil.txt".into(), codes::TRAVERSAL),
        ("write to an absolute path", "/tmp/evil.txt".into(), codes::OUTSIDE_MOUNT),
        ("write through a relative symlink", "esc_rel".into(), codes::SYMLINK_ESCAPE),
        ("write through an absolute symlink", "esc_abs".into(), codes::SYMLINK_ESCAPE),
        ("write into a directory symlink", "esc_dir/evil.txt".into(), codes::SYMLINK_ESCAPE),
        ("write through an inside symlink", "inside_link".into(), codes::SYMLINK_ESCAPE),
        ("write through a hard link", "hardlinked.txt".into(), codes::HARDLINK),
        ("write to a fifo", "fifo".into(), codes::SPECIAL_FILE),
        ("write to the core", "{core-root}/evil".into(), codes::READ_ONLY),
        ("write to the project", "{project-root}/readme.md".into(), codes::READ_ONLY),
        ("write to the manifest", "manifest.json".into(), codes::READ_ONLY),
        ("write to the iteration state", "_iteration_state.json".into(), codes::READ_ONLY),
        ("write next to the state document", "state/notes.md".into(), codes::READ_ONLY),
        ("write to the folder itself", "{output-root}".into(), codes::IS_DIRECTORY),
        ("write with a NUL byte", "a\0b".into(), codes::INVALID_PATH),
    ];
    for (case, path, code) in &writes {
        check(&layout.call("write_file", json!({ "path": path, "content": "evil" })).await, code, case);
    }
    check(
        &layout.call("save_output", json!({ "path": "{project-root}/x.md", "content": "x" })).await,
        codes::READ_ONLY,
        "save_output outside the output root",
    );
    check(
        &layout.call("write_file", json!({ "path": "huge.md", "content": "x".repeat(1024 * 1024 + 1) })).await,
        codes::TOO_LARGE,
        "oversize write",
    );
    check(
        &layout.call("list_files", json!({ "path": "{output-root}/esc_dir" })).await,
        codes::SYMLINK_ESCAPE,
        "list through a symlink",
    );
    assert!(reads.len() + writes.len() + 3 >= 30, "the corpus holds at least 30 cases");
    assert!(layout.host.counters().violations >= 25, "{:?}", layout.host.counters());
    layout.assert_outside_untouched();
    assert_eq!(std::fs::read_to_string(layout.folder.join("notes.md")).unwrap(), "inside\n");
}

#[tokio::test]
async fn allowed_paths_stay_inside_and_are_recorded() {
    let layout = layout().await;
    assert_eq!(layout.call("read_file", json!({ "path": "{output-root}/inside_link" })).await.unwrap(), "inside\n");
    let absolute = layout.folder.join("notes.md").display().to_string();
    assert_eq!(layout.call("read_file", json!({ "path": absolute })).await.unwrap(), "inside\n");
    assert_eq!(layout.call("read_file", json!({ "path": "readme.md" })).await.unwrap(), "project\n");
    for name in [
        "\u{202e}gpj.exe",
        "．．/fullwidth-dots.md",
        "..\\..\\backslashes.md",
        "emoji-🚂.md",
        "e\u{301}-combining.md",
        " leading space.md",
    ] {
        let wrote = layout.call("save_output", json!({ "path": name, "content": name })).await;
        assert!(wrote.is_ok(), "{name}: {wrote:?}");
        assert_eq!(std::fs::read_to_string(layout.folder.join(name)).unwrap(), name);
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(layout.folder.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["files"].as_array().unwrap().len(), 6, "{manifest}");
    assert_eq!(manifest["runId"], layout.run.to_string());
    layout.assert_outside_untouched();
}

/// Regression: only writes checked the link count, so a hard link to a file outside the mounts
/// could be read through every read path.
#[tokio::test]
async fn a_hard_link_is_never_read_and_each_attempt_is_a_violation() {
    let layout = layout().await;
    let before = layout.host.counters().violations;
    for (tool, arguments) in [
        ("read_file", json!({ "path": "{output-root}/hardlinked.txt" })),
        ("read_file", json!({ "path": "{project-root}/linked-secret.txt" })),
        ("read_file", json!({ "path": "{output-root}/hardlinked.txt", "startLine": 1, "endLine": 1 })),
        ("apply_patch", json!({ "path": "hardlinked.txt", "hunks": [{ "search": "top", "replace": "x" }] })),
        ("update_frontmatter", json!({ "path": "hardlinked.txt", "operations": [] })),
    ] {
        let error = layout.call(tool, arguments).await.unwrap_err();
        assert_eq!(error.code, codes::HARDLINK, "{tool}: {error}");
        assert!(!error.message.contains(SECRET.trim()), "{tool}: {error}");
    }
    assert_eq!(layout.host.counters().violations, before + 5);
    let references =
        vec![switchyard_files::Reference { path: "{output-root}/hardlinked.txt".into(), conditional: false }];
    let mounts = layout.host.mounts(layout.run).await.unwrap();
    let preload: serde_json::Value =
        serde_json::from_str(&layout.host.preload(mounts, &references).await.unwrap()).unwrap();
    assert_eq!(preload["files"], json!([]));
    assert_eq!(preload["missing"][0]["code"], codes::HARDLINK);
    layout.assert_outside_untouched();
}

#[tokio::test]
async fn a_missing_file_lists_the_names_nearby() {
    let layout = layout().await;
    let error = layout.call("read_file", json!({ "path": "{output-root}/note.md" })).await.unwrap_err();
    assert_eq!(error.code, codes::NOT_FOUND);
    assert!(error.message.contains("notes.md"), "{error}");
    let error = layout.call("read_file", json!({ "path": "{output-root}/no/such/dir/notes.md" })).await.unwrap_err();
    assert!(error.message.contains("manifest.json"), "{error}");
}

#[tokio::test]
async fn zip_slip_entries_are_refused_and_good_entries_land_inside() {
    use std::io::Write;
    let layout = layout().await;
    let mut buffer = std::io::Cursor::new(Vec::new());
    {
        let mut archive = zip::ZipWriter::new(&mut buffer);
        let options = zip::write::SimpleFileOptions::default();
        for name in [
            "../../outside/zip-slip.txt",
            "good/inside.txt",
            "/etc/zip-abs.txt",
            "good/../../../outside/x.txt",
            "esc_dir/zip.txt",
        ] {
            archive.start_file(name, options).unwrap();
            archive.write_all(b"payload").unwrap();
        }
        archive.finish().unwrap();
    }
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(buffer.into_inner())).unwrap();
    let mut outcomes = Vec::new();
    for index in 0..archive.len() {
        let name = {
            let entry = archive.by_index(index).unwrap();
            format!("{}", entry.name().unwrap())
        };
        let result = layout.call("save_output", json!({ "path": name, "content": "payload" })).await;
        outcomes.push((name, result.map_err(|error| error.code)));
    }
    let codes_seen: Vec<_> = outcomes.iter().map(|(_, outcome)| outcome.clone().err()).collect();
    assert_eq!(
        codes_seen,
        vec![
            Some(codes::TRAVERSAL),
            None,
            Some(codes::OUTSIDE_MOUNT),
            Some(codes::TRAVERSAL),
            Some(codes::SYMLINK_ESCAPE)
        ],
        "{outcomes:?}"
    );
    assert!(layout.folder.join("good/inside.txt").is_file());
    layout.assert_outside_untouched();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_while_writes_run_never_lets_a_write_out() {
    let layout = layout().await;
    let target = layout.folder.join("swap");
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (target, outside, stop) = (target.clone(), layout.outside.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut swaps = 0u32;
            while !stop.load(Ordering::Relaxed) || swaps < 50 {
                let _ = std::fs::remove_file(&target);
                let _ = std::fs::remove_dir_all(&target);
                if swaps.is_multiple_of(2) {
                    let _ = std::fs::create_dir(&target);
                } else {
                    let _ = symlink(&outside, &target);
                }
                swaps += 1;
            }
            swaps
        })
    };
    let mut refused = 0;
    for round in 0..300 {
        match layout.call("write_file", json!({ "path": "swap/file.txt", "content": format!("round {round}") })).await {
            Ok(_) => {}
            Err(error) => {
                assert!(
                    [codes::SYMLINK_ESCAPE, codes::NOT_FOUND, codes::IO, codes::IS_DIRECTORY].contains(&error.code),
                    "{error}"
                );
                refused += 1;
            }
        }
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps >= 50 && refused > 0, "swaps {swaps}, refused {refused}");
    assert!(!Path::new(&layout.outside.join("file.txt")).exists(), "a write went through the swapped symlink");
    layout.assert_outside_untouched();
    drop(layout.world);
}
