//! Patches: a unified diff or search/replace hunks against any text apply or are refused.

#![no_main]

use libfuzzer_sys::fuzz_target;
use switchyard_files::patch::{self, Replacement};

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    let mut parts = input.splitn(3, '\0');
    let text = parts.next().unwrap_or_default();
    let diff = parts.next().unwrap_or_default();
    let _ = patch::apply_unified(text, diff);
    let replace = parts.next().unwrap_or_default();
    let hunks = [Replacement { search: diff.to_owned(), replace: replace.to_owned() }];
    if let Ok(patched) = patch::apply_replacements(text, &hunks) {
        assert!(patched.contains(replace));
    }
});
