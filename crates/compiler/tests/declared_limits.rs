//! The compiler says which limits a source declared, apart from the IR, so a configuration can
//! default the others without touching the IR's hash.

use switchyard_compiler::{DeclaredLimits, Source, compile};

fn declared(text: &str) -> DeclaredLimits {
    compile(&Source { name: "w.yaml".into(), text: text.into() }).declared_limits
}

#[test]
fn only_the_limits_a_native_source_writes_are_declared() {
    let steps = "steps:\n  - {id: a, prompt: Do it.}\n";
    let check = |limits: &str, expected: (bool, bool)| {
        let found = declared(&format!("id: w\n{limits}{steps}"));
        assert_eq!((found.max_revision_attempts, found.max_replan_attempts), expected, "{limits}");
    };
    check("", (false, false));
    check("limits: {max_cycles: 4}\n", (false, false));
    check("limits: {max_revision_attempts: 3}\n", (true, false));
    check("limits: {max_replan_attempts: 0, max_revision_attempts: 1}\n", (true, true));
}
