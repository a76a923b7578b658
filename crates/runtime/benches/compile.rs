//! Benchmark: compiling each built-in workflow (and the benchmarks' loop workflow) from source
//! text to the IR with `switchyard_compiler::compile`; and reading and compiling every bundle of
//! a BMad Method release from the conformance corpus (`testdata/bmad/`), as `switchyard validate`
//! and discovery do.

mod common;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use switchyard_compiler::{Source, builtins, compile};
use switchyard_runtime::Catalog;
use switchyard_runtime::catalog::Sourced;

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

fn compile_bmad_releases(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile_bmad");
    group.measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    for release in ["6.0.0-alpha.7", "6.0.4"] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/bmad").join(release);
        let sources = Catalog::sources(&path);
        let bundles = sources.iter().filter(|(_, sourced)| matches!(sourced, Ok(Sourced::Workflows(_)))).count();
        assert!(bundles > 0, "{} holds no bundle", path.display());
        group.bench_with_input(BenchmarkId::from_parameter(release), &path, |b, path| {
            b.iter(|| Catalog::sources(black_box(path)));
        });
    }
    group.finish();
}

criterion_group!(benches, compile_workflows, compile_bmad_releases);
criterion_main!(benches);
