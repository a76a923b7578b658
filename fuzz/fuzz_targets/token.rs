//! Tokens: arbitrary text and mutated real tokens never panic `Keyring::verify`, and a changed
//! token never verifies.

#![no_main]

use libfuzzer_sys::fuzz_target;
use switchyard_core::token::{Keyring, Nonce, SigningKey, TokenKind};

const KINDS: [TokenKind; 3] = [TokenKind::Continue, TokenKind::State, TokenKind::Checkpoint];

fuzz_target!(|data: &[u8]| {
    let keys = Keyring { current: SigningKey([7; 32]), previous: Some(SigningKey([8; 32])) };
    let text = String::from_utf8_lossy(data);
    for kind in KINDS {
        let _ = keys.verify(&text, kind);
    }
    if data.len() < 14 {
        return;
    }
    let nonce: [u8; 12] = data[..12].try_into().unwrap();
    let kind = KINDS[usize::from(data[12]) % KINDS.len()];
    let token = keys.mint(kind, Nonce(nonce)).to_string();
    let mut mutated = token.clone().into_bytes();
    for pair in data[13..].chunks(2) {
        let position = usize::from(pair[0]) % (mutated.len() + 1);
        match pair.get(1) {
            Some(&byte) if position < mutated.len() => mutated[position] = byte,
            Some(&byte) => mutated.push(byte),
            None if position < mutated.len() => drop(mutated.remove(position)),
            None => {}
        }
    }
    let mutated = String::from_utf8_lossy(&mutated);
    // Whitespace and quotes around a token are forgiven by design (a pasted token); only a change
    // of the token itself is tampering.
    if mutated.trim().trim_matches(|c| c == '"' || c == '\'' || c == '`') != token {
        assert!(keys.verify(&mutated, kind).is_err(), "tampered token {mutated} (from {token}) verified");
    }
});
