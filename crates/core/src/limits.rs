//! Size bounds every door enforces through the engine. They are part of the contract: documented
//! in `docs/limits.md` and reported in errors by name.

/// Largest accepted notes (markdown) for one advance or checkpoint, in bytes.
pub const MAX_NOTES_BYTES: usize = 64 * 1024;
/// Largest accepted artifacts document for one advance, in bytes of compact JSON.
pub const MAX_ARTIFACTS_BYTES: usize = 256 * 1024;
/// Largest run context (after applying a delta), in bytes of compact JSON.
pub const MAX_CONTEXT_BYTES: usize = 256 * 1024;
/// Deepest nesting accepted in a context value or artifacts document.
pub const MAX_JSON_DEPTH: usize = 32;
/// Largest goal text given at start, in bytes.
pub const MAX_GOAL_BYTES: usize = 16 * 1024;
/// Largest rejection reason or decision note, in bytes.
pub const MAX_REASON_BYTES: usize = 16 * 1024;
/// Largest workflow source file the compiler reads, in bytes.
pub const MAX_WORKFLOW_SOURCE_BYTES: usize = 2 * 1024 * 1024;

/// Nesting depth of a JSON value (a scalar is depth 0).
pub fn json_depth(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(items) => 1 + items.iter().map(json_depth).max().unwrap_or(0),
        serde_json::Value::Object(map) => 1 + map.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}
