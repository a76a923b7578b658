//! Benchmark: compiling each built-in workflow (and the benchmarks' loop workflow) from source
//! text to the IR with `switchyard_compiler::compile`; and reading and compiling each folder of
//! the conformance corpus (the shared corpora's two BMad Method releases and WorkRail workflows,
//! and the repository's CrewAgent packages in `testdata/`), as `switchyard validate` and discovery do.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use switchyard_catalog::Catalog;
use switchyard_catalog::Sourced;
use switchyard_compiler::{Source, builtins, compile};
use switchyard_test_support::{corpora, testdata};

fn compile_workflows(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    let mut sources: Vec<(String, Source)> =
        builtins().map(|builtin| (builtin.name.to_owned(), builtin.source)).collect();
    sources.push(("bench-loop".to_owned(), Source::new("bench-loop.yaml", common::LOOP_WORKFLOW)));
    for (name, source) in &sources {
        let compiled = compile(source);
        assert!(compiled.workflow.is_some(), "{name} does not compile: {:?}", compiled.diagnostics);
        group.bench_with_input(BenchmarkId::from_parameter(name), source, |b, source| {
            b.iter(|| compile(black_box(source)));
        });
    }
    group.finish();
}

fn compile_corpus(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile_corpus");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    // Bundles, which the process-wide compile cache does not hold: each iteration reads and
    // compiles them all.
    let bundles = [
        ("bmad-6.0.0-alpha.7", corpora().join("bmad/6.0.0-alpha.7")),
        ("bmad-6.0.4", corpora().join("bmad/6.0.4")),
        ("crewagent", testdata().join("crewagent")),
    ];
    for (name, path) in bundles {
        let sources = Catalog::sources(&path);
        let workflows = sources.iter().filter(|(_, sourced)| matches!(sourced, Ok(Sourced::Workflows(_)))).count();
        assert!(workflows > 0, "{} holds no workflow", path.display());
        group.bench_with_input(BenchmarkId::from_parameter(name), &path, |b, path| {
            b.iter(|| Catalog::sources(black_box(path)));
        });
    }
    // Workflow files are in that cache, so they are compiled from their texts here, uncached.
    let folder = corpora().join("workrail/workflows");
    let mut files: Vec<Source> = std::fs::read_dir(&folder)
        .expect("the WorkRail corpus is readable")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let text = std::fs::read_to_string(&path).ok()?;
            Some(Source::new(path.file_name()?.to_str()?, text))
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(files.iter().any(|source| compile(source).workflow.is_some()), "no WorkRail workflow compiles");
    group.bench_with_input(BenchmarkId::from_parameter("workrail"), &files, |b, files| {
        b.iter(|| {
            for source in files {
                black_box(compile(black_box(source)));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, compile_workflows, compile_corpus);
criterion_main!(benches);
