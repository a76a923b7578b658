//! The arguments of each file tool, as the one definition of what a call may send: each struct
//! parses a call's arguments and, derived from the same fields and doc comments by
//! [`switchyard_runtime::tool_schema`], gives the tool's input JSON Schema. A field cannot be
//! accepted without being listed, or listed without being accepted. They serialise too, so a test
//! can send every field a struct has and check that its schema lists each.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::frontmatter::Operation;
use crate::patch::Replacement;

/// The run (`run_…`); the CLI passes --run instead.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct RunName(pub String);

/// A path: `{output-root}/a.md`, `{project-root}/src/x.rs`, `{bundle-root}/…`, `{core-root}/…`; without a variable, relative to {output-root} for writes and {project-root} for reads.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct FilePath(pub String);

/// Write only if the file's current SHA-256 (hex) is this.
#[derive(Debug, Clone, Deserialize, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct ExpectedSha256(pub String);

/// `read_file`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadFileArguments {
    pub run: Option<RunName>,
    pub path: FilePath,
    /// The first line to read (1-based).
    #[schemars(range(min = 1))]
    pub start_line: Option<usize>,
    /// The last line to read (1-based, included).
    #[schemars(range(min = 1))]
    pub end_line: Option<usize>,
}

/// `list_files`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListFilesArguments {
    pub run: Option<RunName>,
    pub path: Option<FilePath>,
    /// Only the files whose path below the listed folder matches this glob (`**/*.md`).
    pub glob: Option<String>,
    /// At most this many entries (never more than the host's own limit).
    #[schemars(range(min = 1))]
    pub limit: Option<usize>,
}

/// `save_output`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SaveOutputArguments {
    pub run: Option<RunName>,
    pub path: FilePath,
    /// The file's whole new text.
    pub content: String,
}

/// `write_file`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WriteFileArguments {
    pub run: Option<RunName>,
    pub path: FilePath,
    /// The file's whole new text.
    pub content: String,
    pub if_match_sha256: Option<ExpectedSha256>,
}

/// `apply_patch`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApplyPatchArguments {
    pub run: Option<RunName>,
    pub path: FilePath,
    pub if_match_sha256: Option<ExpectedSha256>,
    /// A unified diff against the file's current text (exclusive with `hunks`).
    pub diff: Option<String>,
    /// Search/replace hunks, applied in order (exclusive with `diff`).
    pub hunks: Option<Vec<Replacement>>,
}

/// `update_frontmatter`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateFrontmatterArguments {
    pub run: Option<RunName>,
    pub path: FilePath,
    pub if_match_sha256: Option<ExpectedSha256>,
    /// The edits, applied in order, all or none.
    #[schemars(length(min = 1))]
    pub operations: Vec<Operation>,
}

/// `preload_workflow`.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreloadArguments {
    pub run: Option<RunName>,
}
