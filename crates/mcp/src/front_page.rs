//! What `switchyard serve` answers at `/` to programs (plain text: what the server offers and where
//! the docs are), and to browsers when no console is mounted (the same as HTML). With the console
//! mounted, browsers get its sessions page at `/` and these facts in its footer and `/about`.
//!
//! The page is the same for everyone and names nothing about this installation (no paths, no
//! version, no token), so it is served without the bearer token; `Host` and `Origin` are
//! checked before it as before every route (`http::door`).

use std::fmt::Write;

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};

/// The path of the page.
pub const PATH: &str = "/";

/// The page's paragraphs, in the order shown; each is escaped when rendered as HTML.
fn paragraphs(token_required: bool) -> Vec<String> {
    let mut paragraphs = vec![
        "This is switchyard serve: a switchyard workflow runtime serving MCP (Model Context Protocol) over streamable HTTP."
            .to_owned(),
        "MCP endpoint: /mcp on this address. Point an MCP client (Claude Code, Cursor, any streamable HTTP client) at it: `claude mcp add --transport http switchyard <this address>/mcp`.".to_owned(),
    ];
    if token_required {
        paragraphs.push("Clients must send `Authorization: Bearer <token>` with every request to /mcp.".to_owned());
    }
    paragraphs.extend([
        "Health check: /health answers `ok`.".to_owned(),
        "A console for people (every session, the gate inbox, the workflows) is at / on this address: open it in a browser. The `switchyard` command line does the same (`switchyard sessions`, `switchyard status <run>`, `switchyard approve <run>`).".to_owned(),
        "Docs: `switchyard --help`, a man page for every command (`switchyard man --out ~/.local/share/man/man1`, then `man switchyard-start`), and docs/ in switchyard's sources: docs/mcp-tools.md for the tools, docs/cli.md for the command line.".to_owned(),
    ]);
    paragraphs
}

/// Whether the client reads HTML: browsers list `text/html` in `Accept`; curl and programs do not.
pub(crate) fn wants_html(headers: &HeaderMap) -> bool {
    accepts(headers, "text/html")
}

/// Whether `Accept` names `media_type` itself (not through a wildcard such as `*/*`).
pub(crate) fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|media| media.split(';').next().is_some_and(|kind| kind.trim().eq_ignore_ascii_case(media_type)))
}

/// The page as text.
pub fn text(token_required: bool) -> String {
    let mut text = String::from("switchyard serve\n\n");
    for paragraph in paragraphs(token_required) {
        text.push_str(&paragraph);
        text.push_str("\n\n");
    }
    text
}

/// The page as HTML: every paragraph escaped, no script, no outside resource.
pub fn html(token_required: bool) -> String {
    let mut html = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>switchyard serve</title>\n</head>\n<body>\n<h1>switchyard serve</h1>\n",
    );
    for paragraph in paragraphs(token_required) {
        let _ = writeln!(html, "<p>{}</p>", minijinja::HtmlEscape(&paragraph));
    }
    html.push_str("</body>\n</html>\n");
    html
}

/// The answer to `GET /`, in the form the client reads. The content security policy forbids
/// every script, style, frame and outside resource, so even a mistake in the page could run
/// nothing.
pub fn answer(headers: &HeaderMap, token_required: bool) -> Response {
    let (content_type, body) = if wants_html(headers) {
        ("text/html; charset=utf-8", html(token_required))
    } else {
        ("text/plain; charset=utf-8", text(token_required))
    };
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::VARY, HeaderValue::from_static("Accept"));
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_chosen_only_when_accept_lists_it() {
        let accept = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT, HeaderValue::from_str(value).unwrap());
            wants_html(&headers)
        };
        assert!(accept("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"));
        assert!(accept("TEXT/HTML; q=0.5"));
        assert!(!accept("*/*"));
        assert!(!accept("application/json, text/event-stream"));
        assert!(!wants_html(&HeaderMap::new()));
    }

    #[test]
    fn the_html_page_escapes_its_text_and_holds_no_script() {
        let html = html(true);
        assert!(html.contains("Authorization: Bearer &lt;token&gt;"), "{html}");
        assert!(!html.contains("<token>") && !html.contains("<this address>"), "{html}");
        assert!(!html.to_ascii_lowercase().contains("<script"), "{html}");
        assert!(!text(false).contains("Bearer"), "no token, no token line");
    }
}
