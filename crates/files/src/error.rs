//! `ToolError`: the short, coded error every file tool returns, and its stable codes.

use serde::Serialize;
use serde_json::Value;

/// Stable error codes an agent or a program reacts to.
pub mod codes {
    pub const INVALID_ARGUMENTS: &str = "E_INVALID_ARGUMENTS";
    pub const UNKNOWN_TOOL: &str = "E_UNKNOWN_TOOL";
    pub const INVALID_PATH: &str = "E_INVALID_PATH";
    pub const TRAVERSAL: &str = "E_PATH_TRAVERSAL";
    pub const OUTSIDE_MOUNT: &str = "E_OUTSIDE_MOUNT";
    pub const SYMLINK_ESCAPE: &str = "E_SYMLINK_ESCAPE";
    pub const HARDLINK: &str = "E_HARDLINK";
    pub const SPECIAL_FILE: &str = "E_SPECIAL_FILE";
    /// Switchyard's own configuration, workflow folders, keys or store: never written (and keys
    /// and store never read) through the file tools, whatever the mounts allow.
    pub const PROTECTED: &str = "E_PROTECTED";
    pub const READ_ONLY: &str = "E_READ_ONLY";
    pub const TOO_LARGE: &str = "E_TOO_LARGE";
    pub const NOT_FOUND: &str = "E_NOT_FOUND";
    pub const IS_DIRECTORY: &str = "E_IS_DIRECTORY";
    pub const NOT_TEXT: &str = "E_NOT_TEXT";
    pub const PRECONDITION_FAILED: &str = "E_PRECONDITION_FAILED";
    pub const PATCH_FAILED: &str = "E_PATCH_FAILED";
    pub const FRONTMATTER: &str = "E_FRONTMATTER";
    pub const SCHEMA_VALIDATION: &str = "E_SCHEMA_VALIDATION";
    pub const INVALID_TRANSITION: &str = "E_INVALID_TRANSITION";
    pub const STEP_BLOCKED: &str = "E_STEP_BLOCKED";
    pub const RUNTIME: &str = "E_RUNTIME";
    pub const IO: &str = "E_IO";
}

/// A tool's refusal or failure: a code, a message saying what to do, optional details.
#[derive(Debug, Clone, PartialEq, Serialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// A security event (logged at warn and counted as a violation).
    #[serde(skip)]
    pub security: bool,
}

impl ToolError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), details: None, security: false }
    }

    /// A refusal that is a security event.
    pub fn security(code: &'static str, message: impl Into<String>) -> Self {
        Self { security: true, ..Self::new(code, message) }
    }

    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }
}
