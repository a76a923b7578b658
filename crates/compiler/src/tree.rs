//! The located document tree: YAML (and JSON, which is YAML) parsed once, every node carrying
//! its line and column, so each later diagnostic can point at the exact key or value.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::options::DuplicateKeyPolicy;
use serde_saphyr::{Options, Spanned};

use crate::diagnostic::{Loc, Report, codes};

/// One node of the document with where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    pub value: Value,
    pub at: Loc,
    /// Byte range of a scalar in the source, used to recover the spelling of numbers
    /// written where text is expected (`version: 1.0`).
    pub bytes: Option<(usize, usize)>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Sequence(Vec<Node>),
    /// Entries in source order; duplicate keys are kept so they can be reported.
    Mapping(Vec<(Node, Node)>),
}

impl Value {
    pub fn kind(&self) -> Kind {
        match self {
            Self::Null => Kind::Null,
            Self::Bool(_) => Kind::Bool,
            Self::Number(_) => Kind::Number,
            Self::String(_) => Kind::String,
            Self::Sequence(_) => Kind::List,
            Self::Mapping(_) => Kind::Mapping,
        }
    }
}

/// What kind of value a node holds; displayed as diagnostics name it ("found a list").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Null,
    Bool,
    Number,
    String,
    List,
    Mapping,
}

impl Kind {
    pub const ALL: [Kind; 6] = [Kind::Null, Kind::Bool, Kind::Number, Kind::String, Kind::List, Kind::Mapping];

    pub fn is_scalar(self) -> bool {
        matches!(self, Self::Bool | Self::Number | Self::String)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Null => "null",
            Self::Bool => "a boolean",
            Self::Number => "a number",
            Self::String => "a string",
            Self::List => "a list",
            Self::Mapping => "a mapping",
        })
    }
}

impl Node {
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(text) => Some(text),
            _ => None,
        }
    }

    /// The entry of a mapping with this key.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Mapping(entries) => entries.iter().find(|(k, _)| k.as_str() == Some(key)).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The node as plain JSON. Duplicate keys are reported once each; the last one wins.
    pub fn to_json(&self, report: &mut Report) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(value) => serde_json::Value::Bool(*value),
            Value::Number(number) => serde_json::Value::Number(number.clone()),
            Value::String(text) => serde_json::Value::String(text.clone()),
            Value::Sequence(items) => items.iter().map(|item| item.to_json(report)).collect(),
            Value::Mapping(entries) => {
                let mut map = serde_json::Map::new();
                for (key, value) in entries {
                    let Some(name) = key.scalar_text() else {
                        report.error(
                            key.at,
                            codes::INVALID_TYPE,
                            format!("a key must be a scalar, not {}", key.value.kind()),
                            None,
                        );
                        continue;
                    };
                    if map.contains_key(&name) {
                        report.error(
                            key.at,
                            codes::DUPLICATE_KEY,
                            format!("duplicate key `{name}`"),
                            Some("remove or rename one of the two keys".into()),
                        );
                    }
                    map.insert(name, value.to_json(report));
                }
                serde_json::Value::Object(map)
            }
        }
    }

    /// The JSON pointer (RFC 6901) of this node and every node inside it, with its location.
    pub fn pointer_locations(&self) -> Vec<(String, Loc)> {
        let mut locations = Vec::new();
        let mut pending = vec![(String::new(), self)];
        while let Some((pointer, node)) = pending.pop() {
            match &node.value {
                Value::Sequence(items) => {
                    for (index, item) in items.iter().enumerate() {
                        pending.push((format!("{pointer}/{index}"), item));
                    }
                }
                Value::Mapping(entries) => {
                    for (key, value) in entries {
                        let name = key.scalar_text().unwrap_or_default().replace('~', "~0").replace('/', "~1");
                        pending.push((format!("{pointer}/{name}"), value));
                    }
                }
                _ => {}
            }
            locations.push((pointer, node.at));
        }
        locations
    }

    /// Text of a scalar as written: strings as is, numbers and booleans as spelled.
    pub fn scalar_text(&self) -> Option<String> {
        match &self.value {
            Value::String(text) => Some(text.clone()),
            Value::Bool(value) => Some(value.to_string()),
            Value::Number(number) => Some(number.to_string()),
            Value::Null | Value::Sequence(_) | Value::Mapping(_) => None,
        }
    }

    /// Like [`Node::scalar_text`], but numbers keep their source spelling (`1.0`, not `1`).
    pub fn spelled_text(&self, source: &str) -> Option<String> {
        match (&self.value, self.bytes) {
            (Value::Number(_) | Value::Bool(_), Some((start, end))) => {
                source.get(start..end).map(str::to_owned).or_else(|| self.scalar_text())
            }
            _ => self.scalar_text(),
        }
    }
}

/// Parses a source into a located tree, or reports why it cannot.
pub(crate) fn parse(text: &str, report: &mut Report) -> Option<Node> {
    let looks_like_json = text.trim_start().starts_with('{');
    if looks_like_json && let Err(error) = serde_json::from_str::<de::IgnoredAny>(text) {
        let at = Loc { line: clamp(error.line() as u64), column: clamp(error.column() as u64) };
        report.error(at, codes::JSON_SYNTAX, format!("invalid JSON: {}", strip_position(&error.to_string())), None);
        return None;
    }
    let mut options = Options::default();
    options.duplicate_keys = DuplicateKeyPolicy::PassThrough;
    options.strict_booleans = true;
    options.reject_unsupported_tags = true;
    match serde_saphyr::from_str_with_options::<Spanned<Value>>(text, options) {
        Ok(spanned) => Some(node_from(spanned)),
        Err(error) => {
            let at = error
                .location()
                .map(|location| Loc { line: clamp(location.line()), column: clamp(location.column()) })
                .unwrap_or(Loc::START);
            let message = strip_position(&error.without_snippet().to_string());
            report.error(at, codes::YAML_SYNTAX, format!("invalid YAML: {message}"), None);
            None
        }
    }
}

fn clamp(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX).max(1)
}

/// Drops the trailing "at line X, column Y" both parsers append: the location is reported apart.
fn strip_position(message: &str) -> String {
    let trimmed = match message.rfind(" at line ") {
        Some(index) => &message[..index],
        None => message,
    };
    trimmed.replace(", set DuplicateKeyPolicy in Options if acceptable", "")
}

fn node_from(spanned: Spanned<Value>) -> Node {
    let location = spanned.referenced;
    let span = location.span();
    let bytes = match (span.byte_offset(), span.byte_len()) {
        (Some(offset), Some(len)) => usize::try_from(offset)
            .ok()
            .zip(usize::try_from(len).ok())
            .map(|(offset, len)| (offset, offset.saturating_add(len))),
        _ => None,
    };
    Node { value: spanned.value, at: Loc { line: clamp(location.line()), column: clamp(location.column()) }, bytes }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        Value::deserialize(deserializer)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Value, E> {
        Ok(Value::Bool(value))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Value, E> {
        Ok(Value::Number(value.into()))
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(value)
            .map(Value::Number)
            .ok_or_else(|| E::custom("non-finite numbers (.nan, .inf) are not supported"))
    }

    fn visit_str<E>(self, value: &str) -> Result<Value, E> {
        Ok(Value::String(value.to_owned()))
    }

    fn visit_string<E>(self, value: String) -> Result<Value, E> {
        Ok(Value::String(value))
    }

    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Value, E> {
        Err(E::custom("binary values are not supported"))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = access.next_element::<Spanned<Value>>()? {
            items.push(node_from(item));
        }
        Ok(Value::Sequence(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = access.next_key::<Spanned<Value>>()? {
            let value = access.next_value::<Spanned<Value>>()?;
            entries.push((node_from(key), node_from(value)));
        }
        Ok(Value::Mapping(entries))
    }
}
