//! The console: a web view of every session, its run graph and step details, the gate inbox, the
//! workflow catalog and `verify`, kept live over server-sent events. `switchyard serve` mounts
//! [`router`] beside `/mcp`, behind the same guard; every page reads through the [`Runtime`] and
//! every form runs the command the CLI would.
//!
//! HTML is written with maud, which escapes every value it is given: notes and artifacts are
//! written by agents and are never trusted.

mod diagram;
mod live;

use std::sync::Arc;

use axum::Router;
use axum::routing::get;

use switchyard_runtime::Runtime;

/// What every handler reads.
#[derive(Debug, Clone)]
pub struct ConsoleState {
    pub(crate) runtime: Arc<Runtime>,
}

/// The console's routes, ready to be mounted behind `serve`'s guard.
pub fn router(runtime: Arc<Runtime>) -> Router {
    Router::new()
        .route("/events", get(live::events))
        .route("/assets/live.js", get(live::script))
        .with_state(ConsoleState { runtime })
}
