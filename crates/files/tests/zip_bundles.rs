//! Zip bundles through the file tools: opened once per host and served from memory while the
//! archive on disk is unchanged, read again as soon as it changes.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;
use switchyard_catalog::Catalog;
use switchyard_core::RunId;
use switchyard_files::{FileHost, HostConfig};
use switchyard_runtime::StartRequest;
use switchyard_test_support::{testdata, text_files};

/// Writes `files` as a zip archive at `into`, replacing what is there in place (same inode).
/// Entries are stored, not deflated, so changing a byte keeps the archive's length.
fn write_zip(into: &Path, files: &BTreeMap<String, String>) {
    let mut writer = zip::ZipWriter::new(std::fs::File::create(into).unwrap());
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (path, text) in files {
        writer.start_file(path.as_str(), options).unwrap();
        writer.write_all(text.as_bytes()).unwrap();
    }
    writer.finish().unwrap();
}

/// A run started from a zip of the `hello-branch` package, its archive, and the package's files.
struct ZipRun {
    _folder: tempfile::TempDir,
    archive: PathBuf,
    files: BTreeMap<String, String>,
    run: RunId,
}

async fn start_from_zip(world: &common::World) -> ZipRun {
    let folder = tempfile::tempdir().unwrap();
    let archive = folder.path().join("hello-branch.zip");
    let files = text_files(&testdata().join("crewagent/hello-branch"));
    write_zip(&archive, &files);
    let started = world
        .runtime
        .start(
            &Catalog::builtins_only(),
            StartRequest { file: Some(archive.clone()), goal: "Greet".into(), ..StartRequest::default() },
        )
        .await
        .unwrap();
    ZipRun { _folder: folder, archive, files, run: started.run }
}

async fn read_step(host: &FileHost, run: RunId) -> String {
    host.call("read_file", json!({ "path": "{bundle-root}/steps/step-01.md" }), Some(run)).await.unwrap()
}

#[tokio::test]
async fn reads_lists_and_preloads_of_one_zip_bundle_open_its_archive_once() {
    let world = common::World::new().await;
    let zipped = start_from_zip(&world).await;
    let host = world.host(HostConfig::default());

    assert_eq!(read_step(&host, zipped.run).await, zipped.files["steps/step-01.md"]);
    assert_eq!(read_step(&host, zipped.run).await, zipped.files["steps/step-01.md"]);
    host.call("list_files", json!({ "path": "{bundle-root}/steps" }), Some(zipped.run)).await.unwrap();
    host.call("preload_workflow", json!({}), Some(zipped.run)).await.unwrap();

    let counters = host.counters();
    assert_eq!((counters.archive_reads, counters.archive_reuses), (1, 3), "{counters:?}");
}

#[tokio::test]
async fn a_zip_bundle_rewritten_in_place_is_read_again_on_the_next_call() {
    let world = common::World::new().await;
    let mut zipped = start_from_zip(&world).await;
    let host = world.host(HostConfig::default());
    assert_eq!(read_step(&host, zipped.run).await, zipped.files["steps/step-01.md"]);

    zipped.files.insert("steps/step-01.md".into(), "Rewritten in place.\n".into());
    write_zip(&zipped.archive, &zipped.files);

    assert_eq!(read_step(&host, zipped.run).await, "Rewritten in place.\n");
    assert_eq!(read_step(&host, zipped.run).await, "Rewritten in place.\n");
    let counters = host.counters();
    assert_eq!((counters.archive_reads, counters.archive_reuses), (2, 1), "{counters:?}");
}

/// Length and modification time alone would call the new file unchanged; its inode does not.
#[tokio::test]
async fn a_zip_bundle_renamed_over_with_the_same_length_and_time_is_read_again() {
    let world = common::World::new().await;
    let mut zipped = start_from_zip(&world).await;
    let host = world.host(HostConfig::default());
    let original = zipped.files["steps/step-01.md"].clone();
    assert_eq!(read_step(&host, zipped.run).await, original);

    let replaced = original.to_uppercase();
    assert_eq!(replaced.len(), original.len());
    assert_ne!(replaced, original);
    zipped.files.insert("steps/step-01.md".into(), replaced.clone());
    let next = zipped.archive.with_extension("zip.next");
    write_zip(&next, &zipped.files);
    let before = std::fs::metadata(&zipped.archive).unwrap();
    std::fs::File::options().write(true).open(&next).unwrap().set_modified(before.modified().unwrap()).unwrap();
    std::fs::rename(&next, &zipped.archive).unwrap();
    let after = std::fs::metadata(&zipped.archive).unwrap();
    assert_eq!((after.len(), after.modified().unwrap()), (before.len(), before.modified().unwrap()));

    assert_eq!(read_step(&host, zipped.run).await, replaced);
    assert_eq!(host.counters().archive_reads, 2);
}
