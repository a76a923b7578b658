//! Full-text search over sessions and the bounded recap of a branch: the records behind
//! `resume_session`. Both are answered from indexes kept in the same transaction as the events,
//! never by scanning the log.

use serde::{Deserialize, Serialize};

use switchyard_core::id::{NodeId, SessionId};
use switchyard_core::workflow::StepId;

/// The most hits one search returns, whatever limit it asks for.
pub const MAX_SEARCH_HITS: u32 = 50;

/// The most nodes a recap walks up from its starting node.
pub const MAX_RECAP_NODES: u32 = 200;

/// A full-text query over session titles, goals and notes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchQuery {
    /// The user's words. Only letters, digits and `_` count; everything else separates words,
    /// so no query syntax reaches the index.
    pub text: String,
    /// At most [`MAX_SEARCH_HITS`]; larger values are capped.
    pub limit: u32,
    /// Only sessions started in this workspace (the path as the session recorded it).
    pub workspace: Option<String>,
}

/// One session that matched, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchHit {
    pub session: SessionId,
    /// Relevance, higher is better: the summed rarity (BM25's inverse document frequency) of the
    /// query words the best matching text holds.
    pub score: f64,
    /// Where the best match is, with matched words in `[brackets]`.
    pub snippet: String,
    /// Which text matched best: `goal`, `notes`, `checkpoint` or `decision`.
    pub matched: String,
}

/// What a recap entry records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RecapKind {
    /// The agent's notes on an advance.
    Notes,
    /// Notes recorded by a checkpoint.
    Checkpoint,
    /// A human's gate decision or limit decision, with its reason.
    Decision,
}

impl RecapKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::Notes => "notes",
            Self::Checkpoint => "checkpoint",
            Self::Decision => "decision",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "notes" => Some(Self::Notes),
            "checkpoint" => Some(Self::Checkpoint),
            "decision" => Some(Self::Decision),
            _ => None,
        }
    }
}

/// One text recorded on a node of the branch a recap walks, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecapEntry {
    /// The node the text belongs to: the node an advance or a decision led to, or the node a
    /// checkpoint was taken on. A recap of a branch includes exactly the texts of its nodes.
    pub node: NodeId,
    /// The step the text is about (the step that was acted on).
    pub step: StepId,
    /// The session sequence number of the event that recorded it.
    pub seq: u64,
    pub kind: RecapKind,
    pub text: String,
}

/// The words of `text` a search looks for: runs of letters, digits and `_`, lowercased, at most
/// 32 of them, each at most 64 characters.
pub fn search_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|character: char| !(character.is_alphanumeric() || character == '_'))
        .filter(|word| !word.is_empty())
        .map(|word| word.chars().take(64).collect::<String>().to_lowercase())
        .collect();
    words.dedup();
    words.truncate(32);
    words
}

#[cfg(test)]
mod tests {
    use super::search_words;

    #[test]
    fn search_words_drop_query_syntax() {
        assert_eq!(
            search_words("Add a \"--verbose\" flag* OR NEAR(x)"),
            ["add", "a", "verbose", "flag", "or", "near", "x"]
        );
        assert!(search_words("  -- \" * ").is_empty());
    }
}
