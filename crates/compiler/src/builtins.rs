//! The workflows shipped in the binary, embedded at build time and compiled by the same path as
//! any file.

use crate::Source;

/// A built-in workflow: its name (also its workflow id) and its source.
#[derive(Debug, Clone)]
pub struct Builtin {
    pub name: &'static str,
    pub source: Source,
}

const BUILTINS: &[(&str, &str, &str)] = &[
    ("dev-cycle", "builtin:dev-cycle.yaml", include_str!("../builtins/dev-cycle.yaml")),
    ("bug-investigation", "builtin:bug-investigation.yaml", include_str!("../builtins/bug-investigation.yaml")),
    ("code-review", "builtin:code-review.yaml", include_str!("../builtins/code-review.yaml")),
    ("tested-change", "builtin:tested-change.yaml", include_str!("../builtins/tested-change.yaml")),
];

/// Every built-in workflow, in a stable order.
pub fn builtins() -> impl Iterator<Item = Builtin> {
    BUILTINS.iter().map(|(name, file, text)| Builtin { name, source: Source::new(*file, *text) })
}
