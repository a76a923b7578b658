//! Short, typed, HMAC-signed tokens.
//!
//! Wire form: `<prefix>_<base64url(nonce12 ‖ mac6)>`, 27 characters, compatible in shape with
//! WorkRail's alias tokens. `mac6` is the first 6 bytes of HMAC-SHA256(key, nonce ‖ kind byte), so
//! a token of one kind cannot pass as another. A token carries no state: the runtime looks its
//! nonce up in the store. Verification tries the current key, then the previous one.

use std::fmt;
use std::str::FromStr;

use data_encoding::BASE64URL_NOPAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

const NONCE_LEN: usize = 12;
const MAC_LEN: usize = 6;
const BODY_CHARS: usize = 24;

/// What a token lets its holder do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenKind {
    /// `st_`: names a node to look at or resume from; cannot advance by itself.
    State,
    /// `ck_`: records a checkpoint on a node.
    Checkpoint,
    /// `ct_`: advances a node (one attempt).
    Continue,
}

impl TokenKind {
    pub const ALL: [TokenKind; 3] = [Self::State, Self::Checkpoint, Self::Continue];

    pub fn prefix(self) -> &'static str {
        match self {
            Self::State => "st_",
            Self::Checkpoint => "ck_",
            Self::Continue => "ct_",
        }
    }

    fn byte(self) -> u8 {
        match self {
            Self::State => 0x01,
            Self::Checkpoint => 0x03,
            Self::Continue => 0x04,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::State => "state",
            Self::Checkpoint => "checkpoint",
            Self::Continue => "continue",
        }
    }
}

/// A token's random part, the key under which the store keeps what the token stands for.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Nonce(pub [u8; NONCE_LEN]);

impl fmt::Debug for Nonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&data_encoding::HEXLOWER.encode(&self.0))
    }
}

impl Nonce {
    pub fn to_hex(self) -> String {
        data_encoding::HEXLOWER.encode(&self.0)
    }

    pub fn from_hex(hex: &str) -> Option<Self> {
        let bytes = data_encoding::HEXLOWER.decode(hex.as_bytes()).ok()?;
        Some(Self(bytes.try_into().ok()?))
    }
}

/// A token as parsed from text, before its signature is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub nonce: Nonce,
    mac: [u8; MAC_LEN],
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut body = [0u8; NONCE_LEN + MAC_LEN];
        body[..NONCE_LEN].copy_from_slice(&self.nonce.0);
        body[NONCE_LEN..].copy_from_slice(&self.mac);
        write!(f, "{}{}", self.kind.prefix(), BASE64URL_NOPAD.encode(&body))
    }
}

impl FromStr for Token {
    type Err = TokenError;

    fn from_str(input: &str) -> Result<Self, TokenError> {
        // Agents copy tokens with stray whitespace or quotes; forgive exactly that.
        let trimmed = input.trim().trim_matches(|c| c == '"' || c == '\'' || c == '`');
        let kind = TokenKind::ALL
            .into_iter()
            .find(|kind| trimmed.starts_with(kind.prefix()))
            .ok_or_else(|| TokenError::Malformed { reason: "it must start with `ct_`, `st_` or `ck_`".to_owned() })?;
        let body = &trimmed[kind.prefix().len()..];
        if body.len() != BODY_CHARS {
            return Err(TokenError::Malformed {
                reason: format!(
                    "a {} token has {} characters after `{}`, this one has {}; copy it again exactly",
                    kind.name(),
                    BODY_CHARS,
                    kind.prefix(),
                    body.len()
                ),
            });
        }
        let bytes = BASE64URL_NOPAD.decode(body.as_bytes()).map_err(|_| TokenError::Malformed {
            reason: "it contains characters other than A-Z a-z 0-9 - _".to_owned(),
        })?;
        let mut nonce = [0u8; NONCE_LEN];
        let mut mac = [0u8; MAC_LEN];
        nonce.copy_from_slice(&bytes[..NONCE_LEN]);
        mac.copy_from_slice(&bytes[NONCE_LEN..]);
        Ok(Self { kind, nonce: Nonce(nonce), mac })
    }
}

/// Why a token was refused. Codes are stable; doors map them to their error envelopes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    #[error("malformed token: {reason}")]
    Malformed { reason: String },
    #[error("token signature does not verify: it was altered, or signed by another switchyard home")]
    BadSignature,
    #[error("this is a {found} token where a {expected} token is needed")]
    WrongKind { expected: &'static str, found: &'static str },
    #[error("unknown token: it is signed correctly but this store has no record of it (was its session deleted?)")]
    Unknown,
    #[error("this token belongs to run {token_run}, not {requested_run}")]
    WrongRun { token_run: String, requested_run: String },
}

impl TokenError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::Malformed { .. } => "TOKEN_MALFORMED",
            Self::BadSignature => "TOKEN_BAD_SIGNATURE",
            Self::WrongKind { .. } => "TOKEN_WRONG_KIND",
            Self::Unknown => "TOKEN_UNKNOWN",
            Self::WrongRun { .. } => "TOKEN_WRONG_RUN",
        }
    }
}

/// A 32-byte HMAC key, kept with the MAC state it keys: hashing the key's inner and outer pads
/// is done once here, not for every token minted or checked.
#[derive(Clone)]
pub struct SigningKey {
    bytes: [u8; 32],
    keyed: Hmac<Sha256>,
}

impl SigningKey {
    pub fn new(bytes: [u8; 32]) -> SigningKey {
        let keyed = <Hmac<Sha256> as KeyInit>::new_from_slice(&bytes).expect("HMAC takes any key length");
        SigningKey { bytes, keyed }
    }

    /// The key itself, for the key file.
    pub fn bytes(&self) -> &[u8; 32] {
        &self.bytes
    }

    /// The MAC of `nonce` and `kind`, not yet finalized.
    fn mac(&self, kind: TokenKind, nonce: Nonce) -> Hmac<Sha256> {
        let mut mac = self.keyed.clone();
        mac.update(&nonce.0);
        mac.update(&[kind.byte()]);
        mac
    }
}

impl PartialEq for SigningKey {
    fn eq(&self, other: &SigningKey) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for SigningKey {}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey(…)")
    }
}

/// The keys tokens are signed and checked with: the current key signs, both verify.
#[derive(Debug, Clone)]
pub struct Keyring {
    pub current: SigningKey,
    pub previous: Option<SigningKey>,
}

impl Keyring {
    /// Signs `nonce` as a token of `kind` with the current key.
    pub fn mint(&self, kind: TokenKind, nonce: Nonce) -> Token {
        Token { kind, nonce, mac: mac6(&self.current, kind, nonce) }
    }

    /// Parses and verifies `text` as a token of kind `expected`.
    pub fn verify(&self, text: &str, expected: TokenKind) -> Result<Token, TokenError> {
        let token: Token = text.parse()?;
        self.check_signature(&token)?;
        if token.kind != expected {
            return Err(TokenError::WrongKind { expected: expected.name(), found: token.kind.name() });
        }
        Ok(token)
    }

    /// Verifies the signature of a parsed token, whatever its kind.
    pub fn check_signature(&self, token: &Token) -> Result<(), TokenError> {
        let verifies = |key: &SigningKey| key.mac(token.kind, token.nonce).verify_truncated_left(&token.mac).is_ok();
        if verifies(&self.current) || self.previous.as_ref().is_some_and(verifies) {
            Ok(())
        } else {
            Err(TokenError::BadSignature)
        }
    }
}

fn mac6(key: &SigningKey, kind: TokenKind, nonce: Nonce) -> [u8; MAC_LEN] {
    let full = key.mac(kind, nonce).finalize().into_bytes();
    let mut out = [0u8; MAC_LEN];
    out.copy_from_slice(&full[..MAC_LEN]);
    out
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn keys() -> Keyring {
        Keyring { current: SigningKey::new([1; 32]), previous: Some(SigningKey::new([2; 32])) }
    }

    #[test]
    fn minted_tokens_are_27_characters_and_verify() {
        let token = keys().mint(TokenKind::Continue, Nonce([9; 12])).to_string();
        assert_eq!(token.len(), 27);
        assert!(token.starts_with("ct_"));
        assert_eq!(keys().verify(&token, TokenKind::Continue).unwrap().nonce, Nonce([9; 12]));
    }

    #[test]
    fn minting_is_deterministic_so_replays_return_the_same_token() {
        let nonce = Nonce([5; 12]);
        assert_eq!(keys().mint(TokenKind::State, nonce).to_string(), keys().mint(TokenKind::State, nonce).to_string());
    }

    #[test]
    fn previous_key_still_verifies_after_rotation() {
        let old = Keyring { current: SigningKey::new([2; 32]), previous: None };
        let token = old.mint(TokenKind::Checkpoint, Nonce([3; 12])).to_string();
        assert!(keys().verify(&token, TokenKind::Checkpoint).is_ok());
        let rotated_twice = Keyring { current: SigningKey::new([7; 32]), previous: Some(SigningKey::new([1; 32])) };
        assert_eq!(rotated_twice.verify(&token, TokenKind::Checkpoint), Err(TokenError::BadSignature));
    }

    #[test]
    fn a_token_cannot_pass_as_another_kind() {
        let state = keys().mint(TokenKind::State, Nonce([4; 12])).to_string();
        let err = keys().verify(&state, TokenKind::Continue).unwrap_err();
        assert_eq!(err.code(), "TOKEN_WRONG_KIND");
        // Relabelling the prefix breaks the signature, since the kind byte is signed.
        let relabelled = state.replacen("st_", "ct_", 1);
        assert_eq!(keys().verify(&relabelled, TokenKind::Continue), Err(TokenError::BadSignature));
    }

    #[test]
    fn malformed_tokens_say_why() {
        for (input, needle) in
            [("", "must start"), ("ct_abc", "24 characters"), ("ct_!!!!!!!!!!!!!!!!!!!!!!!!", "characters other")]
        {
            let err = keys().verify(input, TokenKind::Continue).unwrap_err();
            assert!(err.to_string().contains(needle), "{input:?}: {err}");
        }
    }

    #[test]
    fn copy_paste_noise_is_forgiven() {
        let token = keys().mint(TokenKind::Continue, Nonce([8; 12])).to_string();
        assert!(keys().verify(&format!("  \"{token}\"\n"), TokenKind::Continue).is_ok());
    }

    proptest! {
        #[test]
        fn any_text_parses_or_errors_without_panicking(text in ".{0,64}") {
            let _ = keys().verify(&text, TokenKind::Continue);
        }

        #[test]
        fn any_single_character_change_is_rejected(nonce in any::<[u8; 12]>(), position in 3usize..27, replacement in "[A-Za-z0-9_-]") {
            let token = keys().mint(TokenKind::Continue, Nonce(nonce)).to_string();
            let mut chars: Vec<char> = token.chars().collect();
            let replacement = replacement.chars().next().unwrap();
            prop_assume!(chars[position] != replacement);
            chars[position] = replacement;
            let tampered: String = chars.into_iter().collect();
            prop_assert!(keys().verify(&tampered, TokenKind::Continue).is_err());
        }
    }
}
