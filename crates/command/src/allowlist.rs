//! Which argvs a caller permits: prefixes compared word for word, never as text, so `cargo` does
//! not let `cargo-evil` through and `cargo test` does not let `cargo testx` through.

use crate::Error;

/// Argv prefixes a caller permits, e.g. `[["cargo", "test"], ["python3", "-m", "unittest"]]`.
///
/// A command is allowed when its argv starts with one of the prefixes, word for word: there is no
/// shell, no globbing and no splitting, so what is checked is exactly what is executed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Allowlist {
    prefixes: Vec<Vec<String>>,
}

impl Allowlist {
    /// An allowlist of these prefixes. An empty prefix permits nothing (it is not a wildcard), and
    /// neither does an empty list.
    pub fn new(prefixes: Vec<Vec<String>>) -> Self {
        Self { prefixes }
    }

    /// The prefixes, as given.
    pub fn prefixes(&self) -> &[Vec<String>] {
        &self.prefixes
    }

    /// `Ok` when `argv` starts with one of the prefixes, word for word. An empty argv or an empty
    /// allowlist permits nothing; the error lists what is allowed.
    pub fn check(&self, argv: &[String]) -> Result<(), Error> {
        let permitted =
            !argv.is_empty() && self.prefixes.iter().any(|prefix| !prefix.is_empty() && argv.starts_with(prefix));
        if permitted {
            return Ok(());
        }
        let listed: Vec<String> =
            self.prefixes.iter().filter(|prefix| !prefix.is_empty()).map(|prefix| render(prefix)).collect();
        let allowed = if listed.is_empty() {
            "the allowlist is empty, so no command is".to_owned()
        } else {
            format!("allowed are {}", listed.join(", "))
        };
        let command = if argv.is_empty() { "(an empty argv)".to_owned() } else { render(argv) };
        Err(Error::NotAllowed { command, allowed })
    }
}

/// An argv as one line a reader can tell the words of: a word that is empty or holds blanks or
/// quotes is single-quoted, with its own single quotes escaped as a POSIX shell would read them.
pub(crate) fn render(argv: &[String]) -> String {
    argv.iter()
        .map(|word| {
            let plain = !word.is_empty()
                && !word.chars().any(|character| character.is_whitespace() || matches!(character, '\'' | '"' | '\\'));
            if plain { word.clone() } else { format!("'{}'", word.replace('\'', r"'\''")) }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
