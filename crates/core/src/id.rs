//! Typed, prefixed identifiers: `sess_…`, `run_…`, `node_…`, `attempt_…`, `evt_…`.
//!
//! Every id is a prefix plus 26 lowercase base32 characters (16 bytes). The bytes come from the
//! caller (random in the runtime, derived where determinism matters), never from here.

use std::fmt;
use std::str::FromStr;

use data_encoding::BASE32_NOPAD;

/// What went wrong parsing an id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdError {
    #[error("`{input}` is not a {kind} id: it must start with `{prefix}`")]
    WrongPrefix { kind: &'static str, prefix: &'static str, input: String },
    #[error("`{input}` is not a {kind} id: expected `{prefix}` and 26 characters a-z, 2-7")]
    Malformed { kind: &'static str, prefix: &'static str, input: String },
}

/// 16 bytes to 26 lowercase base32 characters (RFC 4648 alphabet, lowercased).
pub fn encode_base32(bytes: &[u8; 16]) -> String {
    BASE32_NOPAD.encode(bytes).to_ascii_lowercase()
}

fn decode_base32(text: &str) -> Option<[u8; 16]> {
    if text.len() != 26 || !text.bytes().all(|b| b.is_ascii_lowercase() || (b'2'..=b'7').contains(&b)) {
        return None;
    }
    let upper = text.to_ascii_uppercase();
    let decoded = BASE32_NOPAD.decode(upper.as_bytes()).ok()?;
    decoded.try_into().ok()
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
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", $prefix, encode_base32(&self.0))
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
                serializer.collect_str(self)
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

    #[test]
    fn first_attempt_is_a_function_of_the_node() {
        let node = NodeId::from_bytes([3; 16]);
        assert_eq!(AttemptId::first_for(node), AttemptId::first_for(node));
        assert_ne!(AttemptId::first_for(node), AttemptId::first_for(NodeId::from_bytes([4; 16])));
    }
}
