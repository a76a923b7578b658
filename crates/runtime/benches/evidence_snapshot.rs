//! What a `changed` check costs on a repository of 10,000 files: the snapshot taken when its step
//! is handed out, and the comparison when it is reported, one file changed (target: each under
//! 100 ms, issue 49). `cargo bench -p switchyard-runtime --bench evidence_snapshot`.

use std::path::Path;
use std::process::Command;

use criterion::{Criterion, criterion_group, criterion_main};
use switchyard_core::evidence::{EvidenceCheck, Observation};
use switchyard_runtime::evidence::EvidencePolicy;

const FILES: usize = 10_000;

fn git(workspace: &Path, arguments: &[&str]) {
    let status = Command::new("git")
        .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
        .args(arguments)
        .current_dir(workspace)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {arguments:?}");
}

/// 100 folders of 100 files of about 1 KiB, committed.
fn repository() -> tempfile::TempDir {
    let workspace = tempfile::tempdir().unwrap();
    for index in 0..FILES {
        let folder = workspace.path().join(format!("src/m{:02}", index / 100));
        std::fs::create_dir_all(&folder).unwrap();
        let body = format!("// file {index}\n{}\n", "x".repeat(1000));
        std::fs::write(folder.join(format!("f{index:05}.rs")), body).unwrap();
    }
    git(workspace.path(), &["init", "-q"]);
    git(workspace.path(), &["add", "."]);
    git(workspace.path(), &["commit", "-q", "-m", "ten thousand files"]);
    workspace
}

fn snapshot(c: &mut Criterion) {
    let workspace = repository();
    let root = workspace.path();
    let policy = EvidencePolicy::default();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let taken = runtime.block_on(policy.snapshot(Some(root)));
    std::fs::write(root.join("src/m00/f00000.rs"), "// changed\n").unwrap();
    let changed = [EvidenceCheck::Changed { paths: vec!["src/".to_owned()] }];
    let observed = runtime.block_on(policy.gather(&changed, Some(root), Some(&taken), None));
    assert!(matches!(observed[0], Observation::Changed { count: 1, .. }), "{observed:?}");

    let mut group = c.benchmark_group("evidence_snapshot");
    group.sample_size(20);
    group.bench_function("hand_out_10000_files", |b| b.iter(|| runtime.block_on(policy.snapshot(Some(root)))));
    group.bench_function("report_10000_files_one_changed", |b| {
        b.iter(|| runtime.block_on(policy.gather(&changed, Some(root), Some(&taken), None)));
    });
    group.finish();
}

criterion_group!(benches, snapshot);
criterion_main!(benches);
