//! "Did you mean": the one rule for suggesting a known name in place of a misspelt one, used by
//! the compiler's diagnostics, the MCP door's unknown tools and fields, and the file door's
//! missing paths, so every door suggests the same way.

/// How similar (Jaro-Winkler, 0 to 1, compared without case) a candidate must be to be suggested.
pub const SUGGESTION_THRESHOLD: f64 = 0.8;

fn similarity(word: &str, candidate: &str) -> f64 {
    strsim::jaro_winkler(&word.to_lowercase(), &candidate.to_lowercase())
}

/// The candidate closest to `word`, if one is close enough to suggest; the first of equals wins.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        let score = similarity(word, candidate);
        if score >= SUGGESTION_THRESHOLD && best.is_none_or(|(best_score, _)| score > best_score) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The `limit` candidates most similar to `word`, most similar first (ties by name), whether or
/// not they pass [`SUGGESTION_THRESHOLD`]: a "nearby" list for a path that does not exist.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>, limit: usize) -> Vec<&'a str> {
    nearest_by(word, candidates, |candidate| candidate, limit)
}

/// [`nearest`] for candidates compared by a part of them (a path's last component, say) but
/// returned whole; ties go by that part.
pub fn nearest_by<T>(
    word: &str,
    candidates: impl IntoIterator<Item = T>,
    compared: impl Fn(&T) -> &str,
    limit: usize,
) -> Vec<T> {
    let mut scored: Vec<(f64, T)> =
        candidates.into_iter().map(|candidate| (similarity(word, compared(&candidate)), candidate)).collect();
    scored.sort_by(|left, right| right.0.total_cmp(&left.0).then_with(|| compared(&left.1).cmp(compared(&right.1))));
    scored.into_iter().take(limit).map(|(_, candidate)| candidate).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_close_name_is_suggested_and_a_distant_one_is_not() {
        let known = ["goal", "workspacePath", "context"];
        assert_eq!(closest("gaol", known), Some("goal"));
        assert_eq!(closest("WorkspacePath", known), Some("workspacePath"));
        assert_eq!(closest("zzz", known), None);
    }

    #[test]
    fn nearest_ranks_by_similarity_then_name() {
        assert_eq!(nearest("step-01.md", ["end-99.md", "step-02.md", "step-01.mdx"], 2), ["step-01.mdx", "step-02.md"]);
    }
}
