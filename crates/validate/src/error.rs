//! The validation suite's error: only what stops the check itself; everything found in the files
//! is a violation in the report.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A path named on the command line cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Nothing the request names is a file the suite checks; the message says what to do.
    #[error("{0}")]
    NothingToCheck(String),
    /// The rule sets of `[[validate.prompts]]` do not compile.
    #[error(transparent)]
    Config(#[from] switchyard_config::Error),
}

impl Error {
    /// Stable code a program or agent can react to.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Unreadable { .. } | Self::NothingToCheck(_) => "INVALID_INPUT",
            Self::Config(error) => error.code(),
        }
    }
}
