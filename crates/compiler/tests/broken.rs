//! The broken-workflow corpus: every file under `tests/broken/` must yield located error
//! diagnostics, and the rendered diagnostics of all of them are pinned in one snapshot.

use std::fmt::Write;
use std::path::Path;

use switchyard_compiler::{Source, compile};

#[test]
fn every_broken_workflow_yields_located_diagnostics() {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken");
    let mut paths: Vec<_> = std::fs::read_dir(&directory)
        .expect("tests/broken exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "yaml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "the corpus has {} files", paths.len());
    let mut rendered = String::new();
    for path in &paths {
        let name = format!("tests/broken/{}", path.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(path).expect("readable file");
        let compiled = compile(&Source::new(name.clone(), text));
        assert!(!compiled.diagnostics.is_empty(), "{name} yields no diagnostic");
        if !name.contains("warnings") {
            assert!(compiled.workflow.is_none() && compiled.errors().next().is_some(), "{name} yields no error");
        }
        for diagnostic in &compiled.diagnostics {
            assert!(diagnostic.line >= 1 && diagnostic.column >= 1, "{diagnostic}");
            assert_eq!(diagnostic.file, name);
        }
        writeln!(rendered, "== {name}").unwrap();
        for diagnostic in &compiled.diagnostics {
            writeln!(rendered, "{diagnostic}").unwrap();
        }
    }
    insta::assert_snapshot!("broken_corpus", rendered);
}
