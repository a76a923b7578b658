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

/// Longest accepted CEL condition, in bytes.
pub const MAX_CONDITION_BYTES: usize = 4096;
/// Deepest accepted bracket nesting (`(`, `[`, `{`) in a CEL condition. The CEL parser recurses
/// once per level and needs a lot of stack for each, so deeper nesting could overflow the stack.
pub const MAX_CONDITION_NESTING: usize = 8;

/// Checks a CEL condition against [`MAX_CONDITION_BYTES`] and [`MAX_CONDITION_NESTING`] before
/// anything parses it; the error says which bound it breaks.
pub fn check_condition_bounds(expression: &str) -> Result<(), String> {
    if expression.len() > MAX_CONDITION_BYTES {
        return Err(format!("it is {} bytes long; the limit is {MAX_CONDITION_BYTES}", expression.len()));
    }
    let depth = condition_nesting(expression);
    if depth > MAX_CONDITION_NESTING {
        return Err(format!("it nests brackets {depth} levels deep; the limit is {MAX_CONDITION_NESTING}"));
    }
    Ok(())
}

/// The deepest bracket nesting of a condition, outside string literals.
pub fn condition_nesting(expression: &str) -> usize {
    let mut depth: usize = 0;
    let mut deepest = 0;
    let mut quote = None;
    let mut escaped = false;
    for character in expression.chars() {
        match quote {
            Some(open) => {
                if escaped {
                    escaped = false;
                } else if character == '\\' {
                    escaped = true;
                } else if character == open {
                    quote = None;
                }
            }
            None => match character {
                '"' | '\'' => quote = Some(character),
                '(' | '[' | '{' => {
                    depth += 1;
                    deepest = deepest.max(depth);
                }
                ')' | ']' | '}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
    }
    deepest
}

/// Nesting depth of a JSON value (a scalar is depth 0).
pub fn json_depth(value: &serde_json::Value) -> usize {
    match value {
        serde_json::Value::Array(items) => 1 + items.iter().map(json_depth).max().unwrap_or(0),
        serde_json::Value::Object(map) => 1 + map.values().map(json_depth).max().unwrap_or(0),
        _ => 0,
    }
}
