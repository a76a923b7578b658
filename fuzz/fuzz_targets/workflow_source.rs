//! Workflow sources in every format (native YAML and JSON, stages, WorkRail JSON, CrewAgent
//! package JSON) compile to a workflow or diagnostics, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use switchyard_compiler::{Source, compile};

const NAMES: [&str; 4] = ["workflow.yaml", "workflow.json", "workflow.workrail.json", "package.json"];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest).into_owned();
    let compiled = compile(&Source::new(NAMES[usize::from(selector) % NAMES.len()], text));
    assert_eq!(compiled.workflow.is_some(), compiled.errors().next().is_none());
});
