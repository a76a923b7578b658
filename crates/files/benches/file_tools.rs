//! Benchmarks of the file tools: reads, writes and patches per second, a 50-file preload, and
//! reads and a preload from a zip bundle.

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use switchyard_catalog::Catalog;
use switchyard_files::HostConfig;
use switchyard_files::preload::Reference;
use switchyard_runtime::StartRequest;
use switchyard_test_support::{testdata, zip_folder_under};

#[path = "../tests/common/mod.rs"]
mod fixture;

fn file_tools(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let world = runtime.block_on(fixture::World::new());
    let run = runtime.block_on(world.start("code-review")).run;
    let host = world.host(HostConfig::default());
    runtime
        .block_on(host.call("save_output", json!({"path": "bench.md", "content": "line\n".repeat(200)}), Some(run)))
        .unwrap();
    let mut group = c.benchmark_group("file_tools");
    group.bench_function("read_file 1 KB", |b| {
        b.iter(|| {
            runtime.block_on(host.call("read_file", json!({"path": "{output-root}/bench.md"}), Some(run))).unwrap()
        });
    });
    group.bench_function("write_file 1 KB (fsync)", |b| {
        b.iter(|| {
            runtime
                .block_on(host.call("write_file", json!({"path": "w.md", "content": "x".repeat(1024)}), Some(run)))
                .unwrap()
        });
    });
    let marked = format!("{}marker-A\n{}", "line\n".repeat(100), "line\n".repeat(100));
    runtime.block_on(host.call("save_output", json!({"path": "p.md", "content": marked}), Some(run))).unwrap();
    let mut flip = false;
    group.bench_function("apply_patch search/replace 1 KB (fsync)", |b| {
        b.iter(|| {
            flip = !flip;
            let (from, to) = if flip { ("marker-A", "marker-B") } else { ("marker-B", "marker-A") };
            let hunks = json!([{"search": from, "replace": to}]);
            runtime.block_on(host.call("apply_patch", json!({"path": "p.md", "hunks": hunks}), Some(run))).unwrap()
        });
    });
    group.bench_function("apply_patch rejected (no match, nothing written)", |b| {
        b.iter(|| {
            let hunks = json!([{"search": "not-there", "replace": "x"}]);
            runtime.block_on(host.call("apply_patch", json!({"path": "p.md", "hunks": hunks}), Some(run))).unwrap_err()
        });
    });
    group.bench_function("state document regeneration (store reads + render + rename)", |b| {
        b.iter(|| runtime.block_on(world.folders.refresh_state_document(&world.runtime, run)).unwrap());
    });
    let bundle = tempfile::tempdir().unwrap();
    let mut references = Vec::new();
    for index in 0..50u32 {
        std::fs::write(bundle.path().join(format!("step-{index:02}.md")), "instruction line\n".repeat(200)).unwrap();
        references.push(Reference {
            path: format!("{{project-root}}/step-{index:02}.md"),
            conditional: index.is_multiple_of(5),
        });
    }
    let preload_host = world.host(HostConfig { project_root: Some(bundle.path().to_owned()), ..HostConfig::default() });
    group.bench_function("preload 50-file bundle (170 KB)", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mounts = preload_host.mounts(run).await.unwrap();
                preload_host.preload(mounts, &references).await.unwrap()
            })
        });
    });
    // A CrewAgent package (10 files, 3.7 KB) as a zip: `{bundle-root}` is the archive's contents.
    let beside = tempfile::tempdir().unwrap();
    let archive = beside.path().join("hello-branch.zip");
    zip_folder_under(&testdata().join("crewagent/hello-branch"), &archive, "hello-branch/");
    let from_zip = runtime
        .block_on(world.runtime.start(
            &Catalog::builtins_only(),
            StartRequest { file: Some(archive), goal: "Greet".into(), ..StartRequest::default() },
        ))
        .unwrap()
        .run;
    group.bench_function("read_file from a zip bundle", |b| {
        b.iter(|| {
            let arguments = json!({"path": "{bundle-root}/steps/step-01.md"});
            runtime.block_on(host.call("read_file", arguments, Some(from_zip))).unwrap()
        });
    });
    group.bench_function("preload_workflow from a zip bundle", |b| {
        b.iter(|| runtime.block_on(host.call("preload_workflow", json!({}), Some(from_zip))).unwrap());
    });
    group.finish();

    // What the state document projection adds to a durable advance (SQLite, synchronous=FULL).
    let mut group = c.benchmark_group("advance");
    for (name, folders) in [("run folders off", false), ("run folders on (state document regenerated)", true)] {
        let world = runtime.block_on(async {
            if folders { fixture::World::new().await } else { fixture::World::without_run_folders().await }
        });
        group.bench_function(name, |b| {
            b.iter_batched(
                || runtime.block_on(world.start("code-review")),
                |started| {
                    let input = switchyard_runtime::AdvanceInput {
                        notes: Some("scoped".into()),
                        artifacts: Some(json!({ "intent": "x", "files": [] })),
                        ..switchyard_runtime::AdvanceInput::default()
                    };
                    let token = started.tokens.continue_token.unwrap();
                    runtime.block_on(world.runtime.advance(&token, Some(started.run), input)).unwrap()
                },
                criterion::BatchSize::PerIteration,
            );
        });
    }
    group.finish();
}

criterion_group!(benches, file_tools);
criterion_main!(benches);
