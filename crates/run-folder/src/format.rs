//! The files of a run folder as they are written: their names, `manifest.json`,
//! `_iteration_state.json`, and the state document's frontmatter with its JSON Schema.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use switchyard_config::atomic_file::{Durability, Readers, write_atomically};

/// The manifest's file name inside a run folder.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The lock file beside the manifest: whoever changes the manifest holds an exclusive advisory
/// lock (`flock`) on it, so writers in different processes never lose each other's entries.
/// Empty, never listed in the manifest, and never writable through the file tools.
pub const MANIFEST_LOCK_FILE: &str = ".manifest.lock";
/// The state document, relative to the run folder.
pub const STATE_DOCUMENT: &str = "state/workflow.md";
/// The tip's iteration counters, relative to the run folder ([`IterationState`]).
pub const ITERATION_STATE_FILE: &str = "_iteration_state.json";
/// The version of the state document's frontmatter.
pub const STATE_SCHEMA_VERSION: u64 = 1;
/// The most recent decisions the state document lists; older ones are counted in
/// `decisionLogOmitted`.
pub const MAX_DECISION_LOG: usize = 20;
/// The most entries `stepsCompleted` lists; older ones are counted in `stepsCompletedOmitted`.
pub const MAX_STEPS_COMPLETED: usize = 200;
/// The most artifacts the state document lists (the manifest has them all).
pub(crate) const MAX_ARTIFACTS: usize = 100;
/// The run folder's handoff notes, where downgraded audit findings are appended.
pub const HANDOFF_FILE: &str = "_handoff.md";
/// The section of [`HANDOFF_FILE`] that lists downgraded audit findings.
pub const DOWNGRADED_FINDINGS_HEADING: &str = "## Downgraded Findings";
/// What `allowedNext[].to` says for an edge that completes the run.
pub const COMPLETE_TARGET: &str = "$complete";

/// `manifest.json`: what a run folder holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub workflow_id: String,
    pub workflow_hash: String,
    pub run_id: String,
    pub session_id: String,
    pub started_at: String,
    /// Every file written through the file tools, sorted by path.
    pub files: Vec<ManifestFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestFile {
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
    pub written_at: String,
}

/// `_iteration_state.json`: the counters of the run's tip that its limits bound, a projection
/// like the state document it is written with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IterationState {
    /// Gate rejections of the current step since it was last approved (`max_revision_attempts`).
    pub revision_count: u32,
    /// Replan edges taken in this branch (`max_replan_attempts`).
    pub replan_count: u32,
    /// RFC 3339, when the projection was made.
    pub last_updated: String,
}

/// Writes `_iteration_state.json` into `folder`; a failure is logged: the file is rewritten with
/// the next state document, and rebuilt when a read finds it missing.
pub(crate) fn write_iteration_state(folder: &Path, state: &IterationState) {
    let path = folder.join(ITERATION_STATE_FILE);
    let written = serde_json::to_vec_pretty(state)
        .map_err(std::io::Error::other)
        .and_then(|bytes| write_atomically(&path, &bytes, Durability::Cached, Readers::Anyone));
    if let Err(error) = written {
        tracing::warn!(path = %path.display(), %error, "iteration state not written; it is rewritten with the next state document");
    }
}

/// One entry of `decisionLog`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecisionEntry {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifacts: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// One entry of `artifacts`: a file of the run folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactEntry {
    pub path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// The frontmatter of `state/workflow.md`; `switchyard schema state` publishes its JSON Schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StateFrontmatter {
    pub schema_version: u64,
    /// The workflow id.
    pub workflow_type: String,
    pub run_id: String,
    /// The node this document reflects: a write naming another node is stale.
    pub node_id: String,
    /// The last event of the session this document reflects.
    pub event_seq: u64,
    pub status: String,
    /// The current step; empty means the entry step.
    pub current_node_id: String,
    pub steps_completed: Vec<String>,
    #[serde(default)]
    pub steps_completed_omitted: u64,
    pub variables: Map<String, Value>,
    pub decision_log: Vec<DecisionEntry>,
    #[serde(default)]
    pub decision_log_omitted: u64,
    pub artifacts: Vec<ArtifactEntry>,
    pub updated_at: String,
}

/// The JSON Schema (draft 2020-12) of the state document's frontmatter.
pub fn state_schema() -> Value {
    let entry = json!({
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "step": {"type": "string"},
            "to": {"type": "string"},
            "choice": {"type": "string", "description": "The label of the edge to take."},
            "notes": {"type": "string", "description": "Notes recorded with the move."},
            "artifacts": {"description": "Artifacts recorded with the move (checked against the step's output contract)."},
            "at": {"type": "string"}
        }
    });
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://switchyard.dev/schema/state-document.json",
        "title": "switchyard state document frontmatter (state/workflow.md)",
        "type": "object",
        "additionalProperties": false,
        "required": ["schemaVersion", "workflowType", "runId", "currentNodeId", "stepsCompleted", "variables", "decisionLog", "artifacts", "updatedAt"],
        "properties": {
            "schemaVersion": {"const": STATE_SCHEMA_VERSION},
            "workflowType": {"type": "string", "minLength": 1},
            "runId": {"type": "string", "pattern": "^run_[a-z0-9]{26}$"},
            "nodeId": {"type": "string", "pattern": "^node_[a-z0-9]{26}$", "description": "The node this document reflects; a write naming an older node is refused as stale."},
            "eventSeq": {"type": "integer", "minimum": 0},
            "status": {"type": "string"},
            "currentNodeId": {"type": "string", "description": "The current step id; empty means the entry step. Change it along an edge to move the run."},
            "stepsCompleted": {"type": "array", "items": {"type": "string", "minLength": 1}, "description": "Only grows."},
            "stepsCompletedOmitted": {"type": "integer", "minimum": 0},
            "variables": {"type": "object"},
            "decisionLog": {"type": "array", "items": entry},
            "decisionLogOmitted": {"type": "integer", "minimum": 0},
            "artifacts": {"type": "array", "items": {
                "type": "object",
                "additionalProperties": false,
                "required": ["path", "bytes", "sha256"],
                "properties": {"path": {"type": "string"}, "bytes": {"type": "integer", "minimum": 0}, "sha256": {"type": "string"}}
            }},
            "updatedAt": {"type": "string"}
        }
    })
}
