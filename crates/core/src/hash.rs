//! Hashing helpers shared by the core: canonical JSON and domain-separated SHA-256.

use sha2::{Digest, Sha256};

/// Canonical JSON bytes of a value: object keys sorted, no insignificant whitespace.
///
/// `serde_json::Value` keeps objects in a `BTreeMap` (the `preserve_order` feature is off in this
/// workspace), so serialising through `Value` sorts every object's keys.
pub fn canonical_json<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let value = serde_json::to_value(value).expect("IR and state types serialise to JSON");
    serde_json::to_vec(&value).expect("a JSON value serialises")
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// SHA-256 as 64 lowercase hex characters.
pub fn sha256_hex(bytes: &[u8]) -> String {
    data_encoding::HEXLOWER.encode(&sha256(bytes))
}

/// 16 bytes derived from `input` under a domain label, for deterministic ids.
pub fn derive16(domain: &[u8], input: &[u8]) -> [u8; 16] {
    let mut hasher = Sha256::new();
    hasher.update(domain);
    hasher.update([0u8]);
    hasher.update(input);
    let full: [u8; 32] = hasher.finalize().into();
    let mut out = [0u8; 16];
    out.copy_from_slice(&full[..16]);
    out
}
