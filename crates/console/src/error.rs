//! The console's one error-to-response type: what a person sees when a page cannot be shown or a
//! form was refused, without the store's paths or other internals (those go to the log).

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::html;

use switchyard_runtime::{Error, ErrorClass};

use crate::layout;

#[derive(Debug)]
pub(crate) enum PageError {
    /// No such session, node or workflow (404).
    NotFound(String),
    /// A query or form field that makes no sense (400).
    BadRequest(String),
    /// A form without this browser's CSRF token (403).
    Forbidden(String),
    /// A rule refused the command, or the run moved on since the page was shown (409).
    Conflict(String),
    /// The runtime failed; the details are logged, not shown (500).
    Internal(String),
}

impl From<Error> for PageError {
    fn from(error: Error) -> Self {
        match &error {
            Error::NotFound { what, id, .. } => Self::NotFound(format!("no {what} `{id}` in this store")),
            Error::InvalidInput(message) => Self::BadRequest(message.clone()),
            _ if error.class() == ErrorClass::Rule => Self::Conflict(format!("{} ({})", error, error.code())),
            _ => {
                tracing::error!(%error, code = error.code(), "a console page failed");
                Self::Internal(format!(
                    "switchyard could not answer this page ({}); the server's log says why",
                    error.code()
                ))
            }
        }
    }
}

impl PageError {
    fn status(&self) -> StatusCode {
        match self {
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    fn message(&self) -> &str {
        match self {
            Self::NotFound(message)
            | Self::BadRequest(message)
            | Self::Forbidden(message)
            | Self::Conflict(message)
            | Self::Internal(message) => message,
        }
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = self.status();
        let title = status.canonical_reason().unwrap_or("Error");
        let body = html! {
            h1 { (title) }
            p.error role="alert" data-testid="error-message" { (self.message()) }
            p { a href="/" { "Back to the sessions" } }
        };
        (status, layout::bare(title, &body)).into_response()
    }
}
