//! The console's pages, one module each, and what they share: reading ids from paths and the
//! answer to an unknown path.

pub(crate) mod about;
pub(crate) mod actions;
pub(crate) mod gates;
pub(crate) mod login;
pub(crate) mod node;
pub(crate) mod session;
pub(crate) mod sessions;
pub(crate) mod verify;
pub(crate) mod workflows;

use std::str::FromStr;

use crate::error::PageError;

/// An id from a path, or a 404 naming it.
pub(crate) fn parse_id<T: FromStr>(what: &str, text: &str) -> Result<T, PageError> {
    text.parse().map_err(|_| PageError::NotFound(format!("`{text}` is not a {what} id")))
}

/// Any path the console does not serve.
pub(crate) async fn not_found() -> PageError {
    PageError::NotFound("nothing is served at this address: start from the sessions".to_owned())
}
