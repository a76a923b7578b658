//! Full-text search over sessions and the bounded recap of a branch: the records behind
//! `resume_session`. Both are answered from indexes kept in the same transaction as the events,
//! never by scanning the log.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use switchyard_core::event::EventKind;
use switchyard_core::id::{NodeId, SessionId};
use switchyard_core::workflow::StepId;

use crate::record::StoredEvent;

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

/// The text an event gives the search index and the recap, if any: the same for every backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedText {
    /// The node the text belongs to on the run's graph: the node an advance or decision led to,
    /// the node a checkpoint was taken on; `None` for a session's title and goal.
    pub node: Option<NodeId>,
    /// The node whose step the text is about (the step acted on); `None` for title and goal.
    pub about: Option<NodeId>,
    /// `goal`, or a [`RecapKind`] name.
    pub kind: &'static str,
    pub body: String,
}

/// What `event` adds to the text index: a session's title and goal, an advance's or a
/// checkpoint's notes, a gate's or a human's decision. `None` for other events and blank texts.
pub fn indexed_text(event: &StoredEvent) -> Option<IndexedText> {
    let (node, about, kind, body) = match &event.kind {
        EventKind::SessionCreated { goal, title, .. } => {
            let body =
                if goal.starts_with(title.trim_end_matches('…')) { goal.clone() } else { format!("{title}\n{goal}") };
            (None, None, "goal", body)
        }
        EventKind::AdvanceRecorded { from, to, notes: Some(notes), .. } => {
            (Some(*to), Some(*from), RecapKind::Notes.name(), notes.clone())
        }
        EventKind::CheckpointRecorded { node, notes: Some(notes), .. } => {
            (Some(*node), Some(*node), RecapKind::Checkpoint.name(), notes.clone())
        }
        EventKind::GateDecided { node, to, approved, reason } => {
            let verdict = if *approved { "approved" } else { "rejected" };
            let body = match reason {
                Some(reason) => format!("gate {verdict}: {reason}"),
                None => format!("gate {verdict}"),
            };
            (Some(*to), Some(*node), RecapKind::Decision.name(), body)
        }
        EventKind::HumanDecided { node, to, option, note } => {
            let body = match note {
                Some(note) => format!("decided {}: {note}", option.as_str()),
                None => format!("decided {}", option.as_str()),
            };
            (Some(*to), Some(*node), RecapKind::Decision.name(), body)
        }
        _ => return None,
    };
    if body.trim().is_empty() {
        return None;
    }
    Some(IndexedText { node, about, kind, body })
}

/// How many of a word's newest matching texts a search reads. A word found in more texts than
/// this (a common word) counts only in its newest ones, so a search costs the same at any size.
pub const WORD_WINDOW: u32 = 2_000;

/// How many matching texts all the words of one search read together: a query of many words
/// reads fewer per word (down to [`MIN_WORD_WINDOW`]).
pub const SEARCH_MATCHES: u32 = 16_000;
pub const MIN_WORD_WINDOW: u32 = 500;

/// How many of a word's newest matches each word of a search of `words` words reads.
pub fn word_window(words: usize) -> u32 {
    (SEARCH_MATCHES / u32::try_from(words).unwrap_or(u32::MAX).max(1)).clamp(MIN_WORD_WINDOW, WORD_WINDOW)
}

/// BM25's inverse document frequency of a word, given its newest matches (text ids, newest first,
/// at most `window`) among `texts` indexed texts (ids count up from 1). When the window is full,
/// how many texts hold the word is estimated from how densely its matches lie among the newest.
pub fn word_rarity(matches: &[i64], window: u32, texts: i64) -> f64 {
    let (Some(&newest), Some(&oldest)) = (matches.first(), matches.last()) else { return 0.0 };
    let texts = texts.max(newest) as f64;
    let holding = if matches.len() < window as usize {
        matches.len() as f64
    } else {
        (matches.len() as f64 * texts / (newest - oldest + 1) as f64).min(texts)
    };
    ((texts - holding + 0.5) / (holding + 0.5)).ln_1p()
}

/// How many of a hit's words its snippet marks, rarest first: the rarest words are the ones that
/// show why the text matched (and a snippet costs time per word marked).
pub const SNIPPET_WORDS: usize = 2;

/// How many ranked texts a search reads to find its sessions (a text lookup each).
pub const SEARCH_WINDOW: usize = 2_000;

/// The words a search looks for: [`search_words`], sorted and deduplicated, at most 32 (a
/// [`Ranking`] marks each with one bit).
pub fn query_words(text: &str) -> Vec<String> {
    let mut words = search_words(text);
    words.sort_unstable();
    words.dedup();
    words.truncate(u32::BITS as usize);
    words
}

/// The texts a search found, ranked: a text scores the summed rarity of the query words it holds.
#[derive(Debug, Default)]
pub struct Ranking {
    /// Per text id: its score and which words it holds (bit `i` for the `i`-th word added).
    scores: HashMap<i64, (f64, u32)>,
    /// Each word's rarity, in the order the words were added.
    weights: Vec<f64>,
}

impl Ranking {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next word's newest matches (text ids, newest first, at most `window`) among
    /// `texts` indexed texts.
    pub fn add_word(&mut self, matches: &[i64], window: u32, texts: i64) {
        let index = self.weights.len();
        let weight = word_rarity(matches, window, texts);
        self.weights.push(weight);
        for &id in matches {
            let (score, held) = self.scores.entry(id).or_default();
            *score += weight;
            *held |= 1 << index;
        }
    }

    /// The texts as `(id, score, words held)`, best first, newer first among equals.
    pub fn ranked(&self) -> Vec<(i64, f64, u32)> {
        let mut ranked: Vec<(i64, f64, u32)> =
            self.scores.iter().map(|(id, (score, held))| (*id, *score, *held)).collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0)));
        ranked
    }

    /// Which words (by the order they were added) a text holding `held` has its snippet mark:
    /// the rarest, at most [`SNIPPET_WORDS`].
    pub fn marked(&self, held: u32) -> Vec<usize> {
        let mut marked: Vec<usize> = (0..self.weights.len()).filter(|index| held & (1 << index) != 0).collect();
        marked.sort_by(|a, b| self.weights[*b].total_cmp(&self.weights[*a]));
        marked.truncate(SNIPPET_WORDS);
        marked
    }
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
