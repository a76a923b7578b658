//! What doors send the runtime: a run to start, a report on a step, and a point of a run named
//! by an id or a token.

use std::path::PathBuf;

use serde_json::{Map, Value};
use switchyard_core::token::TokenKind;
use switchyard_core::{NodeId, RunId, SessionId};

use crate::Error;

/// What to start: a workflow by name (or a file), the goal, and the run's starting context.
///
/// ```
/// let request = switchyard_runtime::StartRequest {
///     workflow: Some("code-review".into()),
///     goal: "Review PR 9".into(),
///     ..Default::default()
/// };
/// assert!(request.file.is_none());
/// ```
#[derive(Debug, Clone, Default)]
pub struct StartRequest {
    /// A workflow name, found through discovery: the project's `.switchyard/workflows/`, then the
    /// home's `workflows/`, then attached folders, then the built-ins (`dev-cycle`,
    /// `bug-investigation`, `code-review`).
    pub workflow: Option<String>,
    /// A workflow file, used instead of discovery.
    pub file: Option<PathBuf>,
    /// What the run is for, in the words of whoever asked; prompts quote it.
    pub goal: String,
    /// The run's starting context: the variables conditions and prompts read.
    pub context: Map<String, Value>,
    /// The workspace the run is about (its git branch and HEAD are recorded).
    pub workspace: Option<PathBuf>,
    /// Check every status report of the run strictly (every field required), whatever the
    /// workflow says.
    pub strict_status: bool,
}

/// An agent's report on a step: what [`Runtime::advance`](crate::Runtime::advance) checks against the step's rules.
///
/// ```
/// use serde_json::json;
///
/// let report = switchyard_runtime::AdvanceInput {
///     notes: Some("Scoped the review to the parser.".into()),
///     artifacts: Some(json!({ "files": ["src/parser.rs"] })),
///     ..Default::default()
/// };
/// assert!(report.choice.is_none());
/// ```
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct AdvanceInput {
    /// What was done, decided and why, in Markdown; most steps require it.
    pub notes: Option<String>,
    /// Structured results, checked against the step's output schema when it has one.
    pub artifacts: Option<Value>,
    /// A context delta: a `null` value deletes the key.
    pub context: Option<Map<String, Value>>,
    /// The label of the edge to take, where the agent decides.
    pub choice: Option<String>,
}

/// How a door names a point in a run: parse a run, session or node id, or a token, from text.
///
/// ```
/// use switchyard_runtime::Target;
///
/// assert!(matches!("run_aaaaaaaaaaaaaaaaaaaaaaaaaa".parse::<Target>(), Ok(Target::Run(_))));
/// assert!(matches!("st_AaIMVrGuvFybOmpV7e9NEbeo".parse::<Target>(), Ok(Target::Token(_))));
/// assert!("PR-9".parse::<Target>().is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Session(SessionId),
    Run(RunId),
    Node(NodeId),
    /// A `ct_`, `st_` or `ck_` token.
    Token(String),
}

impl std::str::FromStr for Target {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let text = text.trim();
        if text.starts_with(SessionId::PREFIX) {
            text.parse().map(Self::Session).map_err(|error| Error::invalid_input(error.to_string()))
        } else if text.starts_with(RunId::PREFIX) {
            text.parse().map(Self::Run).map_err(|error| Error::invalid_input(error.to_string()))
        } else if text.starts_with(NodeId::PREFIX) {
            text.parse().map(Self::Node).map_err(|error| Error::invalid_input(error.to_string()))
        } else if TokenKind::ALL.iter().any(|kind| text.starts_with(kind.prefix())) {
            Ok(Self::Token(text.to_owned()))
        } else {
            Err(Error::invalid_input(format!(
                "`{text}` names nothing switchyard knows: pass a run id (`run_…`), a session id (`sess_…`), a node id (`node_…`) or a token (`ct_…`, `st_…`, `ck_…`)"
            )))
        }
    }
}
