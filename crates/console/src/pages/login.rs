//! `/login`: where a person gives the bearer token `serve` requires off loopback, once, and gets
//! a session cookie in return (HttpOnly, SameSite=Strict, for the whole site), holding an HMAC of
//! the token rather than the token. The guard in front of the console accepts that cookie in
//! place of the `Authorization` header, for the console's routes only.
//!
//! The page is served without the token, like the old front page; a wrong token is refused
//! without saying more, and logged as a `security_refused` line without the token.

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Form};
use maud::{Markup, html};
use serde::Deserialize;

use crate::ConsoleState;
use crate::layout;
use crate::security::{
    BrowserSession, SESSION_COOKIE, check_csrf, log_refusal, same_secret, session_cookie_value, set_cookie,
};

/// A form that carries only its CSRF token.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct TokenOnly {
    #[serde(default)]
    csrf: String,
}

/// `POST /logout`: forgets this browser's login cookie.
pub(crate) async fn logout(
    State(state): State<ConsoleState>,
    headers: HeaderMap,
    Form(form): Form<TokenOnly>,
) -> Response {
    if let Err(refused) = check_csrf(&state, &headers, &form.csrf) {
        return refused.into_response();
    }
    let cleared = set_cookie(SESSION_COOKIE, "", Some(0));
    (StatusCode::SEE_OTHER, [(header::LOCATION, "/login".parse().expect("a path")), (header::SET_COOKIE, cleared)])
        .into_response()
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct LoginForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    token: String,
}

fn form_page(csrf: &str, refused: bool) -> Markup {
    let body = html! {
        h1 { "Log in" }
        @if refused { p.error role="alert" data-testid="login-refused" { "That token is not accepted." } }
        p { "This server requires its bearer token. Enter it once; this browser keeps a cookie that opens the console (not " code { "/mcp" } ") until it is closed." }
        form.login method="post" action="/login" data-testid="login-form" {
            input type="hidden" name="csrf" value=(csrf);
            label for="token" { "Token" }
            input type="password" id="token" name="token" required autocomplete="current-password" data-testid="login-token";
            button type="submit" data-testid="login-submit" { "Log in" }
        }
    };
    layout::bare("Log in", &body)
}

pub(crate) async fn form(State(state): State<ConsoleState>, Extension(browser): Extension<BrowserSession>) -> Markup {
    if state.options.token.is_none() {
        return layout::bare(
            "Log in",
            &html! { h1 { "Log in" } p { "This server needs no login: it serves loopback only. " a href="/" { "Open the console" } } },
        );
    }
    form_page(&browser.csrf, false)
}

pub(crate) async fn submit(
    State(state): State<ConsoleState>,
    Extension(browser): Extension<BrowserSession>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Form(login): Form<LoginForm>,
) -> Response {
    if let Err(refused) = check_csrf(&state, &headers, &login.csrf) {
        return refused.into_response();
    }
    let Some(token) = &state.options.token else {
        return (StatusCode::SEE_OTHER, [(header::LOCATION, "/")]).into_response();
    };
    if !same_secret(login.token.trim().as_bytes(), token.expose().as_bytes()) {
        log_refusal("login_token_wrong", peer.map(|Extension(ConnectInfo(peer))| peer));
        return (StatusCode::UNAUTHORIZED, form_page(&browser.csrf, true)).into_response();
    }
    let cookie = set_cookie(SESSION_COOKIE, session_cookie_value(token).expose(), None);
    (StatusCode::SEE_OTHER, [(header::LOCATION, "/".parse().expect("a path")), (header::SET_COOKIE, cookie)])
        .into_response()
}
