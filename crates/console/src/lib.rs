//! The console: a web view of every session, its run graph and step details, the gate inbox, the
//! workflow catalog and `verify`, kept live over server-sent events. `switchyard serve` mounts
//! [`router`] beside `/mcp`, behind the same guard; every page reads through the [`Runtime`] and
//! every form runs the command the CLI would.
//!
//! HTML is written with maud, which escapes every value it is given: notes and artifacts are
//! written by agents and are never trusted. Notes are Markdown, rendered by the `markdown` module
//! with raw HTML turned into text and only plain link targets kept.
//!
//! What keeps a browser safe is in the `security` module: the headers every answer carries (a
//! content security policy that allows no inline script or style), the CSRF token every form
//! carries, and the login that turns the bearer token into a cookie when `serve` requires one.

mod diagram;
mod error;
mod layout;
mod live;
mod markdown;
mod pages;
mod security;

use std::sync::Arc;

use axum::Router;
use axum::middleware;
use axum::routing::{get, post};

use switchyard_catalog::Catalog;
use switchyard_config::Secret;
use switchyard_runtime::Runtime;

pub use crate::markdown::render as render_markdown;
pub use crate::security::{CSRF_COOKIE, SESSION_COOKIE, login_check, session_cookie_value};

/// How the console is served.
#[derive(Debug, Clone, Default)]
pub struct ConsoleOptions {
    /// The bearer token `serve` requires, when it requires one: `/login` takes it from a person and
    /// sets the session cookie the guard accepts in its place.
    pub token: Option<Secret>,
    /// Cancelled when the server shuts down: open `/events` streams end, so their connections
    /// close and the server can stop (a browser reconnects to the next server by itself).
    pub shutdown: tokio_util::sync::CancellationToken,
}

/// What every handler reads.
#[derive(Debug, Clone)]
pub struct ConsoleState {
    pub(crate) runtime: Arc<Runtime>,
    /// Where the workflow catalog pages find workflows.
    pub(crate) catalog: Catalog,
    pub(crate) options: Arc<ConsoleOptions>,
    /// Signs CSRF tokens; drawn at random when the console starts.
    pub(crate) csrf_key: Arc<security::CsrfKey>,
}

/// The console's routes for a loopback server without a token, ready to be mounted behind
/// `serve`'s guard.
pub fn router(runtime: Arc<Runtime>, catalog: Catalog) -> Router {
    router_with(runtime, catalog, ConsoleOptions::default())
}

/// The console's routes, ready to be mounted behind `serve`'s guard.
pub fn router_with(runtime: Arc<Runtime>, catalog: Catalog, options: ConsoleOptions) -> Router {
    let state =
        ConsoleState { runtime, catalog, options: Arc::new(options), csrf_key: Arc::new(security::CsrfKey::random()) };
    Router::new()
        .route("/", get(pages::sessions::list))
        .route("/sessions/{session}", get(pages::session::show))
        .route("/sessions/{session}/nodes/{node}", get(pages::node::show))
        .route("/sessions/{session}/control", post(pages::actions::control))
        .route("/gates", get(pages::gates::inbox))
        .route("/gates/approve", post(pages::actions::approve))
        .route("/gates/reject", post(pages::actions::reject))
        .route("/gates/decide", post(pages::actions::decide))
        .route("/workflows", get(pages::workflows::catalog))
        .route("/workflows/{name}", get(pages::workflows::show))
        .route("/verify", get(pages::verify::show))
        .route("/about", get(pages::about::show))
        .route("/login", get(pages::login::form).post(pages::login::submit))
        .route("/logout", post(pages::login::logout))
        .route(layout::stylesheet_path(), get(layout::stylesheet))
        .route("/events", get(live::events))
        .route("/assets/live.js", get(live::script))
        .fallback(pages::not_found)
        .layer(middleware::from_fn_with_state(state.clone(), security::browser_session))
        .layer(middleware::map_response(security::headers))
        .with_state(state)
}
