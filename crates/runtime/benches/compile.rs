//! Benchmark: compiling each built-in workflow (and the benchmarks' loop workflow) from source
//! text to the IR with `switchyard_compiler::compile`.

mod common;

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use switchyard_compiler::{Source, builtins, compile};

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

criterion_group!(benches, compile_workflows);
criterion_main!(benches);
