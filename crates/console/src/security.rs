//! What keeps a browser safe: the headers on every answer, the CSRF token every form carries, the
//! one-shot flash message a form leaves for the page it redirects to, and the value of the login
//! cookie.
//!
//! CSRF tokens are signed double-submit: a random value lives in an HttpOnly, SameSite=Strict
//! cookie, and each form holds an HMAC of it under a key drawn when the console starts. A page on
//! another site can neither read the cookie nor compute the HMAC, and the guard in front of the
//! console refuses foreign `Origin`s besides.

use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, header};
use axum::middleware::Next;
use axum::response::Response;
use ctutils::CtEq;
use data_encoding::{BASE64URL_NOPAD, HEXLOWER};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use switchyard_config::Secret;
use switchyard_runtime::observe::{LIFECYCLE_TARGET, SECURITY_REFUSED, refusal_line};

use crate::ConsoleState;
use crate::error::PageError;

/// The cookie `/login` sets, holding [`session_cookie_value`] of the bearer token.
pub const SESSION_COOKIE: &str = "switchyard_session";

/// The cookie holding a browser's CSRF seed.
pub const CSRF_COOKIE: &str = "switchyard_csrf";

/// The cookie holding a message for the next page, cleared when that page is shown.
const FLASH_COOKIE: &str = "switchyard_flash";

/// The longest flash message kept; longer ones are cut.
const MAX_FLASH_BYTES: usize = 300;

/// What the login cookie holds for a token: an HMAC of a fixed text under the token, so the cookie
/// proves the token was typed without being the token (it opens the console, not `/mcp`).
pub fn session_cookie_value(token: &Secret) -> Secret {
    let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(token.expose().as_bytes()).expect("HMAC takes any key");
    mac.update(b"switchyard console session v1");
    Secret::new(HEXLOWER.encode(&mac.finalize().into_bytes()))
}

/// Whether a request carries the login cookie for `token`, as `serve`'s guard asks before
/// letting a browser without the bearer token in.
pub fn login_check(token: &Secret) -> impl Fn(&HeaderMap) -> bool + Send + Sync + 'static {
    let expected = session_cookie_value(token);
    move |headers| {
        cookie(headers, SESSION_COOKIE).is_some_and(|sent| same_secret(sent.as_bytes(), expected.expose().as_bytes()))
    }
}

/// Constant-time comparison, so a wrong value's timing says nothing about the right one.
pub(crate) fn same_secret(sent: &[u8], expected: &[u8]) -> bool {
    sent.ct_eq(expected).into()
}

/// The key CSRF tokens are signed with.
pub(crate) struct CsrfKey([u8; 32]);

impl std::fmt::Debug for CsrfKey {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("CsrfKey(<redacted>)")
    }
}

impl CsrfKey {
    pub(crate) fn random() -> Self {
        Self(rand::random())
    }

    /// The token forms carry for a browser whose CSRF cookie holds `seed`.
    fn token_for(&self, seed: &str) -> String {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("HMAC takes any key");
        mac.update(seed.as_bytes());
        HEXLOWER.encode(&mac.finalize().into_bytes())
    }
}

/// What a page knows of the browser asking: the CSRF token its forms carry and the message a form
/// left for it.
#[derive(Debug, Clone)]
pub(crate) struct BrowserSession {
    pub(crate) csrf: String,
    pub(crate) flash: Option<String>,
}

/// The value of cookie `name`, from every `Cookie` header of the request.
pub(crate) fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value)
}

/// A CSRF seed as this console makes them: 32 random bytes in lower-case hex.
fn is_seed(value: &str) -> bool {
    value.len() == 64 && value.bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

/// A `Set-Cookie` value with the flags every console cookie has.
pub(crate) fn set_cookie(name: &str, value: &str, max_age_seconds: Option<u32>) -> HeaderValue {
    let max_age = max_age_seconds.map(|seconds| format!("; Max-Age={seconds}")).unwrap_or_default();
    HeaderValue::from_str(&format!("{name}={value}; Path=/; HttpOnly; SameSite=Strict{max_age}"))
        .expect("cookie values are hex or base64url")
}

/// Gives each request its [`BrowserSession`]: a CSRF seed (a new one, set as a cookie, when the
/// browser has none) and the flash message (cleared once read).
pub(crate) async fn browser_session(State(state): State<ConsoleState>, mut request: Request, next: Next) -> Response {
    let headers = request.headers();
    let existing = cookie(headers, CSRF_COOKIE).filter(|seed| is_seed(seed)).map(str::to_owned);
    let flash = cookie(headers, FLASH_COOKIE)
        .and_then(|value| BASE64URL_NOPAD.decode(value.as_bytes()).ok())
        .and_then(|bytes| String::from_utf8(bytes).ok());
    let had_flash = cookie(headers, FLASH_COOKIE).is_some();
    let new_seed = existing.is_none().then(|| HEXLOWER.encode(&rand::random::<[u8; 32]>()));
    let seed = existing.as_deref().or(new_seed.as_deref()).unwrap_or_default();
    let csrf = state.csrf_key.token_for(seed);
    request.extensions_mut().insert(BrowserSession { csrf, flash });
    let mut response = next.run(request).await;
    if let Some(seed) = new_seed {
        response.headers_mut().append(header::SET_COOKIE, set_cookie(CSRF_COOKIE, &seed, None));
    }
    if had_flash && !response.headers().contains_key(header::LOCATION) {
        response.headers_mut().append(header::SET_COOKIE, set_cookie(FLASH_COOKIE, "", Some(0)));
    }
    response
}

/// `scheme://host[:port]` as `host[:port]`, without the scheme's default port.
fn authority_of_origin(origin: &str) -> Option<String> {
    let (scheme, authority) = origin.split_once("://")?;
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "http" => ":80",
        "https" => ":443",
        _ => return None,
    };
    let authority = authority.to_ascii_lowercase();
    Some(authority.strip_suffix(default_port).map(str::to_owned).unwrap_or(authority))
}

/// A form posted from a page of another origin, even one the guard lets through (any loopback
/// origin, for MCP clients on local dev servers): another port of this machine is the same site
/// to a browser, so SameSite cookies alone would not stop its forms.
fn check_same_origin(headers: &HeaderMap) -> Result<(), PageError> {
    let Some(origin) = headers.get(header::ORIGIN) else { return Ok(()) };
    let origin = origin.to_str().unwrap_or("");
    let host = headers.get(header::HOST).and_then(|value| value.to_str().ok()).unwrap_or("").to_ascii_lowercase();
    let host = host.strip_suffix(":80").map(str::to_owned).unwrap_or(host);
    match authority_of_origin(origin) {
        Some(authority) if authority == host || authority.strip_suffix(":443") == Some(host.as_str()) => Ok(()),
        _ => {
            log_refusal("form_from_other_origin", None);
            Err(PageError::Forbidden(format!(
                "a form posted from another site (Origin `{origin}`) is refused: use the console's own pages"
            )))
        }
    }
}

/// Logs a refusal of the console's as a `security_refused` line (`docs/operations.md`): why, and
/// who asked when known. Never the token typed, a cookie or a CSRF value.
pub(crate) fn log_refusal(reason: &'static str, peer: Option<SocketAddr>) {
    let Some(suppressed) = refusal_line() else { return };
    tracing::warn!(
        target: LIFECYCLE_TARGET,
        event = SECURITY_REFUSED,
        door = "console",
        reason,
        peer = peer.map(|peer| peer.to_string()),
        suppressed,
        "security: the console refused a request"
    );
}

/// Refuses a form posted from another origin, or whose CSRF token is not the one this browser's
/// pages carry.
pub(crate) fn check_csrf(state: &ConsoleState, headers: &HeaderMap, sent: &str) -> Result<(), PageError> {
    check_same_origin(headers)?;
    let expected = cookie(headers, CSRF_COOKIE).filter(|seed| is_seed(seed)).map(|seed| state.csrf_key.token_for(seed));
    match expected {
        Some(expected) if same_secret(sent.as_bytes(), expected.as_bytes()) => Ok(()),
        _ => Err({
            log_refusal("csrf_token_invalid", None);
            PageError::Forbidden(
                "this form's CSRF token is missing or is not this browser's: reload the page and submit it again"
                    .to_owned(),
            )
        }),
    }
}

/// The `Set-Cookie` header that leaves `message` for the next page.
pub(crate) fn flash(message: &str) -> HeaderValue {
    let mut end = message.len().min(MAX_FLASH_BYTES);
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    set_cookie(FLASH_COOKIE, &BASE64URL_NOPAD.encode(&message.as_bytes()[..end]), Some(60))
}

/// The headers every console answer carries: no script, style or frame from anywhere but here, no
/// inline script or style at all, no MIME sniffing, no referrer to other sites, no caching of pages.
pub(crate) async fn headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        ),
    );
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    // `same-origin`, not `no-referrer`: under `no-referrer` a browser posts the console's own
    // forms with `Origin: null`, which the origin check must refuse.
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_session_cookie_is_derived_from_the_token_and_is_not_the_token() {
        let value = session_cookie_value(&Secret::new("s3cret-token"));
        assert_eq!(value.expose().len(), 64);
        assert!(!value.expose().contains("s3cret"));
        assert_eq!(value.expose(), session_cookie_value(&Secret::new("s3cret-token")).expose());
        assert_ne!(value.expose(), session_cookie_value(&Secret::new("s3cret-token!")).expose());
    }

    #[test]
    fn the_login_check_accepts_only_the_cookie_of_its_token() {
        let check = login_check(&Secret::new("s3cret-token"));
        let with = |cookie: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::COOKIE, HeaderValue::from_str(cookie).unwrap());
            check(&headers)
        };
        let right = session_cookie_value(&Secret::new("s3cret-token"));
        assert!(with(&format!("a=1; {SESSION_COOKIE}={}", right.expose())));
        assert!(!with(&format!("{SESSION_COOKIE}={}", session_cookie_value(&Secret::new("other")).expose())));
        assert!(!with(&format!("{SESSION_COOKIE}=s3cret-token")), "the token itself is not the cookie");
        assert!(!check(&HeaderMap::new()));
    }

    #[test]
    fn cookies_are_found_by_exact_name_across_headers() {
        let mut headers = HeaderMap::new();
        headers.append(header::COOKIE, HeaderValue::from_static("a=1; switchyard_csrf_x=2"));
        headers.append(header::COOKIE, HeaderValue::from_static("switchyard_csrf=3"));
        assert_eq!(cookie(&headers, "switchyard_csrf"), Some("3"));
        assert_eq!(cookie(&headers, "a"), Some("1"));
        assert_eq!(cookie(&headers, "b"), None);
    }

    #[test]
    fn forms_pass_only_from_their_own_origin() {
        let check = |host: &str, origin: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::HOST, HeaderValue::from_str(host).unwrap());
            headers.insert(header::ORIGIN, HeaderValue::from_str(origin).unwrap());
            check_same_origin(&headers).is_ok()
        };
        assert!(check("127.0.0.1:7878", "http://127.0.0.1:7878"));
        assert!(check("Switchyard.example", "https://switchyard.example:443"));
        assert!(check("switchyard.example:80", "http://switchyard.example"));
        assert!(!check("127.0.0.1:7878", "http://127.0.0.1:5173"), "another port is another origin");
        assert!(!check("127.0.0.1:7878", "http://localhost:7878"));
        assert!(!check("127.0.0.1:7878", "null"));
        assert!(check_same_origin(&HeaderMap::new()).is_ok(), "no Origin: the CSRF token decides");
    }

    #[test]
    fn flash_messages_are_cut_on_a_character_boundary() {
        let long = "é".repeat(400);
        let value = flash(&long);
        let encoded = value.to_str().unwrap().split(';').next().unwrap().split_once('=').unwrap().1;
        let decoded = String::from_utf8(BASE64URL_NOPAD.decode(encoded.as_bytes()).unwrap()).unwrap();
        assert!(decoded.len() <= MAX_FLASH_BYTES && decoded.chars().all(|character| character == 'é'));
    }
}
