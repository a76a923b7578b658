//! The file tools' definitions as `tools/list` and `switchyard tool list` show them, pinned: a
//! change to a tool's name, description or input schema shows here as a snapshot diff to review.

use switchyard_files::tool_definitions;

#[test]
fn tool_definitions_are_pinned() {
    insta::assert_json_snapshot!(tool_definitions());
}
