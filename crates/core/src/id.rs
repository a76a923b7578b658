//! Typed, prefixed identifiers: `sess_…`, `run_…`, `node_…`, `attempt_…`, `evt_…`.
//!
//! Every id is a prefix plus 26 lowercase base32 characters (16 bytes). The bytes come from the
//! caller (random in the runtime, derived where determinism matters), never from here.

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use data_encoding::{Encoding, Specification};

/// What went wrong parsing an id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdError {
    #[error("`{input}` is not a {kind} id: it must start with `{prefix}`")]
    WrongPrefix { kind: &'static str, prefix: &'static str, input: String },
    #[error("`{input}` is not a {kind} id: expected `{prefix}` and 26 characters a-z, 2-7")]
    Malformed { kind: &'static str, prefix: &'static str, input: String },
}

/// RFC 4648 base32 with its alphabet in lowercase, no padding: 16 bytes are 26 characters.
/// Encoding and decoding go straight between bytes and these characters, with no uppercase copy
/// and, in `Display`, no allocation: ids are formatted several times per advance.
static BASE32_LOWER: LazyLock<Encoding> = LazyLock::new(|| {
    let mut specification = Specification::new();
    specification.symbols.push_str("abcdefghijklmnopqrstuvwxyz234567");
    specification.encoding().expect("the base32 alphabet is a valid specification")
});

/// The characters of an id's body.
const BODY_LEN: usize = 26;

/// 16 bytes to 26 lowercase base32 characters (RFC 4648 alphabet, lowercased).
pub fn encode_base32(bytes: &[u8; 16]) -> String {
    BASE32_LOWER.encode(bytes)
}

/// The longest prefix, `attempt_`.
const MAX_PREFIX_LEN: usize = 8;

/// An id's text held on the stack: what `to_string` gives, without the allocation or the
/// formatting machinery. The store binds ids as SQL text dozens of times per advance.
#[derive(Clone, Copy)]
pub struct IdText {
    bytes: [u8; MAX_PREFIX_LEN + BODY_LEN],
    len: usize,
}

impl IdText {
    fn new(prefix: &str, id: &[u8; 16]) -> Self {
        let mut bytes = [0u8; MAX_PREFIX_LEN + BODY_LEN];
        bytes[..prefix.len()].copy_from_slice(prefix.as_bytes());
        BASE32_LOWER.encode_mut(id, &mut bytes[prefix.len()..prefix.len() + BODY_LEN]);
        Self { bytes, len: prefix.len() + BODY_LEN }
    }

    pub fn as_str(&self) -> &str {
        // A prefix and base32 characters: ASCII, so always UTF-8.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or_default()
    }
}

impl fmt::Debug for IdText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::ops::Deref for IdText {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

/// 26 lowercase base32 characters to 16 bytes; `None` for anything else (uppercase included).
fn decode_base32(text: &str) -> Option<[u8; 16]> {
    if text.len() != BODY_LEN {
        return None;
    }
    let mut bytes = [0u8; 16];
    BASE32_LOWER.decode_mut(text.as_bytes(), &mut bytes).ok()?;
    Some(bytes)
}

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal, $kind:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name([u8; 16]);

        impl $name {
            pub const PREFIX: &'static str = $prefix;

            pub const fn from_bytes(bytes: [u8; 16]) -> Self {
                Self(bytes)
            }

            pub const fn as_bytes(&self) -> &[u8; 16] {
                &self.0
            }

            /// The id as text, on the stack: `to_string` without allocating.
            pub fn text(&self) -> IdText {
                IdText::new($prefix, &self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.text())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }

        impl FromStr for $name {
            type Err = IdError;

            fn from_str(input: &str) -> Result<Self, IdError> {
                let rest = input.strip_prefix($prefix).ok_or_else(|| IdError::WrongPrefix {
                    kind: $kind,
                    prefix: $prefix,
                    input: input.to_owned(),
                })?;
                decode_base32(rest).map(Self).ok_or_else(|| IdError::Malformed {
                    kind: $kind,
                    prefix: $prefix,
                    input: input.to_owned(),
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.text())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

typed_id!(
    /// A session: one user-visible piece of work, holding one run (more once runs can be spawned).
    SessionId, "sess_", "session"
);
typed_id!(
    /// A run: one execution of one pinned workflow.
    RunId, "run_", "run"
);
typed_id!(
    /// A node of a run's graph: one immutable engine state.
    NodeId, "node_", "node"
);
typed_id!(
    /// One attempt at acting on a node. A fresh attempt on an old node is how a run forks.
    AttemptId, "attempt_", "attempt"
);
typed_id!(
    /// One stored event.
    EventId, "evt_", "event"
);

impl AttemptId {
    /// The first attempt of a node, derived so that replaying the event that created the node
    /// yields the same attempt (and so the same continue token).
    pub fn first_for(node: NodeId) -> Self {
        Self(crate::hash::derive16(b"switchyard/attempt/first/v1", node.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_display_and_parse() {
        let run = RunId::from_bytes([7; 16]);
        let text = run.to_string();
        assert_eq!(text.len(), "run_".len() + 26);
        assert_eq!(text.parse::<RunId>().unwrap(), run);
    }

    #[test]
    fn wrong_prefix_and_bad_body_are_told_apart() {
        let node = NodeId::from_bytes([1; 16]).to_string();
        assert!(matches!(node.parse::<RunId>(), Err(IdError::WrongPrefix { .. })));
        assert!(matches!("run_short".parse::<RunId>(), Err(IdError::Malformed { .. })));
        assert!(matches!("run_AAAAAAAAAAAAAAAAAAAAAAAAAA".parse::<RunId>(), Err(IdError::Malformed { .. })));
    }

    proptest::proptest! {
        /// Ids are stored and signed as text: the encoding must stay RFC 4648 base32, lowercased.
        #[test]
        fn the_text_form_is_rfc_4648_base32_lowercased_and_parses_back(bytes: [u8; 16]) {
            let expected = data_encoding::BASE32_NOPAD.encode(&bytes).to_ascii_lowercase();
            proptest::prop_assert_eq!(&encode_base32(&bytes), &expected);
            let run = RunId::from_bytes(bytes);
            proptest::prop_assert_eq!(run.to_string(), format!("run_{expected}"));
            proptest::prop_assert_eq!(run.to_string().parse::<RunId>().unwrap(), run);
            if expected.bytes().any(|byte| byte.is_ascii_alphabetic()) {
                let shouted = format!("run_{}", expected.to_ascii_uppercase());
                proptest::prop_assert!(shouted.parse::<RunId>().is_err());
            }
        }

        #[test]
        fn the_stack_text_is_the_display_text_for_every_kind(bytes: [u8; 16]) {
            let expected = encode_base32(&bytes);
            proptest::prop_assert_eq!(&*SessionId::from_bytes(bytes).text(), format!("sess_{expected}"));
            proptest::prop_assert_eq!(&*RunId::from_bytes(bytes).text(), format!("run_{expected}"));
            proptest::prop_assert_eq!(&*NodeId::from_bytes(bytes).text(), format!("node_{expected}"));
            proptest::prop_assert_eq!(&*AttemptId::from_bytes(bytes).text(), format!("attempt_{expected}"));
            proptest::prop_assert_eq!(&*EventId::from_bytes(bytes).text(), format!("evt_{expected}"));
            let node = NodeId::from_bytes(bytes);
            proptest::prop_assert_eq!(serde_json::to_string(&node).unwrap(), format!("\"{node}\""));
        }

        #[test]
        fn any_other_body_is_malformed_not_a_panic(body in "[a-zA-Z0-9=]{0,30}") {
            if let Ok(run) = format!("run_{body}").parse::<RunId>() {
                proptest::prop_assert_eq!(run.to_string(), format!("run_{body}"));
            }
        }
    }

    #[test]
    fn first_attempt_is_a_function_of_the_node() {
        let node = NodeId::from_bytes([3; 16]);
        assert_eq!(AttemptId::first_for(node), AttemptId::first_for(node));
        assert_ne!(AttemptId::first_for(node), AttemptId::first_for(NodeId::from_bytes([4; 16])));
    }
}
