//! `apply_patch`: unified diffs (parsed and applied by `diffy`) and search/replace hunks, all or
//! nothing: the new text is computed in memory and written once, or not at all.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{ToolError, codes};

/// One search/replace hunk: `search` must occur exactly once in the text.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Replacement {
    /// The text to find; it must occur exactly once.
    pub search: String,
    /// The text that takes its place.
    pub replace: String,
}

/// Applies a unified diff to `text`.
pub fn apply_unified(text: &str, diff: &str) -> Result<String, ToolError> {
    let patch = diffy::Patch::from_str(diff)
        .map_err(|error| ToolError::new(codes::PATCH_FAILED, format!("the diff does not parse: {error}")))?;
    diffy::apply(text, &patch).map_err(|error| {
        ToolError::new(
            codes::PATCH_FAILED,
            format!("the diff does not apply: {error}; re-read the file and make the diff against its current text"),
        )
    })
}

/// Applies search/replace hunks in order; any hunk that does not match exactly once fails all.
pub fn apply_replacements(text: &str, hunks: &[Replacement]) -> Result<String, ToolError> {
    let mut current = text.to_owned();
    for (index, hunk) in hunks.iter().enumerate() {
        if hunk.search.is_empty() {
            return Err(ToolError::new(codes::PATCH_FAILED, format!("hunk {index}: `search` is empty")));
        }
        let count = current.matches(&hunk.search).count();
        if count != 1 {
            return Err(ToolError::new(
                codes::PATCH_FAILED,
                format!(
                    "hunk {index}: `search` occurs {count} times; it must occur exactly once (add surrounding lines to make it unique)"
                ),
            )
            .with_details(serde_json::json!({ "hunk": index, "occurrences": count })));
        }
        current = current.replacen(&hunk.search, &hunk.replace, 1);
    }
    Ok(current)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn lines() -> impl Strategy<Value = String> {
        prop::collection::vec("[a-c]{0,3}", 0..12)
            .prop_map(|lines| lines.iter().map(|line| format!("{line}\n")).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn applying_a_diff_then_its_reverse_restores_the_file(before in lines(), after in lines()) {
            let forward = diffy::create_patch(&before, &after).to_string();
            let backward = diffy::create_patch(&after, &before).to_string();
            let patched = apply_unified(&before, &forward).unwrap();
            prop_assert_eq!(&patched, &after);
            prop_assert_eq!(apply_unified(&patched, &backward).unwrap(), before);
        }

        #[test]
        fn a_replacement_then_its_inverse_restores_the_file(
            prefix in "[a-z ]{0,20}", middle in "<[A-Z]{1,8}>", suffix in "[a-z ]{0,20}", new in "\\[[0-9]{1,8}\\]"
        ) {
            let text = format!("{prefix}{middle}{suffix}");
            let forward = [Replacement { search: middle.clone(), replace: new.clone() }];
            let backward = [Replacement { search: new, replace: middle }];
            let patched = apply_replacements(&text, &forward).unwrap();
            prop_assert_eq!(apply_replacements(&patched, &backward).unwrap(), text);
        }

        #[test]
        fn a_failing_hunk_changes_nothing(text in "[a-z]{0,30}") {
            let hunks = [
                Replacement { search: text.chars().take(1).collect::<String>() + "", replace: "X".into() },
                Replacement { search: "NOT-THERE".into(), replace: "Y".into() },
            ];
            prop_assert!(apply_replacements(&text, &hunks).is_err());
        }
    }

    #[test]
    fn an_ambiguous_search_is_refused_with_its_count() {
        let error = apply_replacements("a a", &[Replacement { search: "a".into(), replace: "b".into() }]).unwrap_err();
        assert_eq!(error.code, codes::PATCH_FAILED);
        assert!(error.message.contains("2 times"), "{error}");
    }
}
