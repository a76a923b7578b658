//! `/about`: what this server offers and where the docs are, the facts the front page held before
//! the console replaced it at `/`.

use axum::Extension;
use axum::extract::State;
use maud::{Markup, html};

use crate::ConsoleState;
use crate::layout::{self, Frame, Section};
use crate::security::BrowserSession;

pub(crate) async fn show(State(state): State<ConsoleState>, Extension(browser): Extension<BrowserSession>) -> Markup {
    let frame = Frame::load(&state, &browser, Section::None).await;
    let token_required = state.options.token.is_some();
    let body = html! {
        h1 { "About this server" }
        p { "This is " code { "switchyard serve" } ": a switchyard workflow runtime serving MCP (Model Context Protocol) over streamable HTTP, and this console for people." }
        h2 { "MCP" }
        p {
            "The endpoint is " code { "/mcp" } " on this address. Point an MCP client (Claude Code, Cursor, any streamable HTTP client) at it: "
            code { "claude mcp add --transport http switchyard <this address>/mcp" } "."
        }
        @if token_required {
            p { "Clients must send " code { "Authorization: Bearer <token>" } " with every request to " code { "/mcp" } "." }
        }
        p { "Health check: " code { "/health" } " answers " code { "ok" } "; metrics in the OpenMetrics text format at " code { "/metrics" } "." }
        h2 { "Docs" }
        ul {
            li { code { "switchyard --help" } ", and a man page for every command: " code { "switchyard man --out ~/.local/share/man/man1" } ", then " code { "man switchyard-start" } }
            li { code { "docs/cli.md" } " for the command line, " code { "docs/mcp-tools.md" } " for the tools, in switchyard's sources" }
        }
    };
    layout::page("About", &frame, &body)
}
