//! Reading serde types out of the located tree, so a format defined once as Rust types is read
//! with the house's diagnostics: each value of the wrong shape is reported where it is written,
//! in the same words whatever the format, and reading goes on so every problem surfaces at once.
//!
//! The rules, by what the type asks for:
//! - a struct (a *section*) takes a mapping; keys that are not strings, not the struct's fields, or
//!   repeated are reported and left out, and a null value counts as absent. A section missing a
//!   field serde requires is reported and left out, keeping only its key problems and that one,
//!   as does a section whose required field holds the wrong shape;
//! - a string takes any scalar as it is spelled in the source (`version: 1.0` reads `1.0`);
//! - a boolean, a list, a unit enum's word and a [`Count`] take only their own shape;
//! - [`Located`] adds where the value is written, and [`FromWritten`] lets a type look at what
//!   was written (its kind) before choosing how to read it;
//! - [`JsonValue`] reads any value as JSON, reporting repeated keys as the located tree does.
//!
//! A refused value is reported once, by this module; the field or list item that held it reads
//! as absent through [`lenient`], [`Items`] or [`Required`]. Those swallow errors, which is sound
//! only here: the tree is already parsed, so a refused value leaves nothing half-read.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::value::{CowStrDeserializer, StrDeserializer, StringDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, IntoDeserializer, MapAccess, SeqAccess, Visitor,
};

use crate::diagnostic::{Loc, Report, codes, did_you_mean};
use crate::tree::{Kind, Node, Value};

mod values;

pub(crate) use self::values::{Count, Items, JsonValue, Located, Maybe, Required, Scalar, lenient, require, words};

/// How a format names its sections in diagnostics ("step `review`", "an edge"): given the
/// struct's name, its mapping, and the key it is written under (if any).
pub(crate) type SectionNames = fn(&'static str, &Node, Option<&str>) -> String;

/// Reads `root` as a `T`, reporting every problem; `None` when `T` itself could not be read.
pub(crate) fn read<T: DeserializeOwned>(
    root: &Node,
    source: &str,
    sections: SectionNames,
    report: &mut Report,
) -> Option<T> {
    let reader = Reader { source, sections, report: RefCell::new(report) };
    T::deserialize(Place { reader: &reader, node: root, key: None }).ok()
}

struct Reader<'a> {
    source: &'a str,
    sections: SectionNames,
    report: RefCell<&'a mut Report>,
}

impl Reader<'_> {
    fn error(&self, at: Loc, code: &'static str, message: String, help: Option<String>) {
        self.report.borrow_mut().error(at, code, message, help);
    }

    fn reported(&self) -> usize {
        self.report.borrow().diagnostics.len()
    }
}

/// Why a value was not read.
#[derive(Debug)]
enum Error {
    /// Already reported where it is written.
    Reported,
    /// A type refused what it was given, in serde's words; turned into a report by the caller.
    Refused(String),
    /// A section lacks a field serde requires.
    Missing(&'static str),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reported => f.write_str("reported"),
            Self::Refused(message) => f.write_str(message),
            Self::Missing(field) => write!(f, "missing field `{field}`"),
        }
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(message: T) -> Self {
        Self::Refused(message.to_string())
    }

    fn missing_field(field: &'static str) -> Self {
        Self::Missing(field)
    }
}

/// What a visitor expects, in its own words.
struct Expecting<'v, V>(&'v V);

impl<'de, V: Visitor<'de>> fmt::Display for Expecting<'_, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }
}

/// One node being read, with the key it is written under (for messages).
#[derive(Clone)]
struct Place<'r, 'a> {
    reader: &'r Reader<'a>,
    node: &'a Node,
    key: Option<Cow<'a, str>>,
}

impl<'r, 'a> Place<'r, 'a> {
    fn at(&self) -> Loc {
        self.node.at
    }

    /// The value's name in a message: "`version`".
    fn name(&self) -> String {
        match &self.key {
            Some(key) => format!("`{key}`"),
            None => "the value".to_owned(),
        }
    }

    fn refuse(&self, code: &'static str, message: String) -> Error {
        self.reader.error(self.at(), code, message, None);
        Error::Reported
    }

    /// `result` of a visitor; a refusal is reported as `message` says.
    fn visited<T>(
        &self,
        result: Result<T, Error>,
        code: &'static str,
        message: impl FnOnce() -> String,
    ) -> Result<T, Error> {
        match result {
            Err(Error::Refused(_)) => Err(self.refuse(code, message())),
            other => other,
        }
    }

    fn child(&self, node: &'a Node, key: Option<Cow<'a, str>>) -> Self {
        Self { reader: self.reader, node, key }
    }

    /// The mapping's entries a section reads: keys it knows, once each, with non-null values.
    fn section_entries(
        &self,
        entries: &'a [(Node, Node)],
        fields: &'static [&'static str],
        section: &str,
    ) -> Vec<(Cow<'a, str>, &'a Node)> {
        let mut seen: Vec<(Cow<'a, str>, Loc, &'a Node)> = Vec::new();
        for (key, value) in entries {
            let name = match &key.value {
                Value::String(text) => Cow::Borrowed(text.as_str()),
                _ => match key.scalar_text() {
                    Some(text) => Cow::Owned(text),
                    None => {
                        self.reader.error(
                            key.at,
                            codes::INVALID_TYPE,
                            format!("a key in {section} must be a string, found {}", key.value.kind()),
                            None,
                        );
                        continue;
                    }
                },
            };
            if !fields.contains(&name.as_ref()) {
                self.reader.error(
                    key.at,
                    codes::UNKNOWN_FIELD,
                    format!("unknown field `{name}` in {section}"),
                    did_you_mean(&name, fields.iter().copied())
                        .or_else(|| Some(format!("{section} fields are: {}", fields.join(", ")))),
                );
                continue;
            }
            if let Some((_, first, _)) = seen.iter().find(|(existing, _, _)| *existing == name) {
                self.reader.error(
                    key.at,
                    codes::DUPLICATE_KEY,
                    format!("duplicate key `{name}` in {section}"),
                    Some(format!("the first `{name}` is at line {}; remove one of them", first.line)),
                );
                continue;
            }
            seen.push((name, key.at, value));
        }
        seen.into_iter()
            .filter(|(_, _, value)| value.value != Value::Null)
            .map(|(name, _, value)| (name, value))
            .collect()
    }
}

/// The name a [`FromWritten`] type asks for, so the place answers with where and what was written.
const WRITTEN: &str = "$switchyard::located::Written";
const WRITTEN_FIELDS: &[&str] = &["line", "column", "kind", "value"];
/// The name [`JsonValue`] asks for, so the place answers with the node as JSON.
const JSON: &str = "$switchyard::located::JsonValue";

impl<'de, 'r, 'a> Deserializer<'de> for Place<'r, 'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let expecting = Expecting(&visitor).to_string();
        let result = match &self.node.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(value) => visitor.visit_bool(*value),
            Value::Number(number) => match (number.as_u64(), number.as_i64()) {
                (Some(value), _) => visitor.visit_u64(value),
                (None, Some(value)) => visitor.visit_i64(value),
                (None, None) => visitor.visit_f64(number.as_f64().unwrap_or_default()),
            },
            Value::String(text) => visitor.visit_str(text),
            Value::Sequence(items) => visitor.visit_seq(ListItems::new(&self, items)),
            Value::Mapping(entries) => visitor.visit_map(Entries::new(&self, entries)),
        };
        let kind = self.node.value.kind();
        self.visited(result, codes::INVALID_TYPE, || format!("{} must be {expecting}, found {kind}", self.name()))
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.spelled_text(self.reader.source) {
            Some(text) => visitor.visit_string(text),
            None => Err(self.refuse(
                codes::INVALID_TYPE,
                format!("{} must be a string, found {}", self.name(), self.node.value.kind()),
            )),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.value {
            Value::Bool(value) => visitor.visit_bool(value),
            _ => Err(self.refuse(
                codes::INVALID_TYPE,
                format!("{} must be `true` or `false`, found {}", self.name(), self.node.value.kind()),
            )),
        }
    }

    /// A whole number; the message says what the visitor expects (see [`Count`]).
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let message = format!("{} must be {}", self.name(), Expecting(&visitor));
        let number = match &self.node.value {
            Value::Number(number) => number.as_u64().and_then(|value| u32::try_from(value).ok()),
            _ => None,
        };
        match number {
            Some(value) => self.visited(visitor.visit_u32(value), codes::INVALID_VALUE, || message),
            None => Err(self.refuse(codes::INVALID_VALUE, message)),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.node.value {
            Value::Sequence(items) => visitor.visit_seq(ListItems::new(&self, items)),
            _ => Err(self.refuse(
                codes::INVALID_TYPE,
                format!("{} must be a list, found {}", self.name(), self.node.value.kind()),
            )),
        }
    }

    /// A unit variant, named by the scalar's text as written (`true` for `status_report`).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let text = self.node.scalar_text().unwrap_or_default();
        if variants.contains(&text.as_str()) {
            let word: StringDeserializer<Error> = text.into_deserializer();
            return visitor.visit_enum(word);
        }
        self.reader.error(
            self.at(),
            codes::INVALID_VALUE,
            format!("{} must be one of {}, found `{text}`", self.name(), variants.join(", ")),
            did_you_mean(&text, variants.iter().copied()),
        );
        Err(Error::Reported)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == WRITTEN {
            let expecting = Expecting(&visitor).to_string();
            let result = visitor.visit_map(WrittenAccess { place: self.clone(), next: 0 });
            let kind = self.node.value.kind();
            return self
                .visited(result, codes::INVALID_TYPE, || format!("{} must be {expecting}, found {kind}", self.name()));
        }
        let section = (self.reader.sections)(name, self.node, self.key.as_deref());
        let Value::Mapping(entries) = &self.node.value else {
            return Err(self.refuse(
                codes::INVALID_TYPE,
                format!("{section} must be a mapping, found {}", self.node.value.kind()),
            ));
        };
        let entries = self.section_entries(entries, fields, &section);
        let keys_checked = self.reader.reported();
        let field_started = Cell::new(keys_checked);
        let access = Fields { place: &self, entries: entries.into_iter(), value: None, field_started: &field_started };
        match visitor.visit_map(access) {
            Err(Error::Missing(field)) => {
                let mut report = self.reader.report.borrow_mut();
                report.diagnostics.truncate(keys_checked);
                report_missing(&mut report, self.at(), &section, field);
                Err(Error::Reported)
            }
            Err(error) => {
                // The section is left out: what its other fields held goes unsaid, as for a
                // section that is no mapping.
                self.reader.report.borrow_mut().diagnostics.drain(keys_checked..field_started.get());
                Err(match error {
                    Error::Refused(message) => {
                        self.refuse(codes::INVALID_VALUE, format!("{section} cannot be read: {message}"))
                    }
                    other => other,
                })
            }
            read => read,
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.node.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Error> {
        if name == JSON {
            let json = self.node.to_json(&mut self.reader.report.borrow_mut());
            return visitor.visit_newtype_struct(json).map_err(|error| Error::Refused(error.to_string()));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        i8 i16 i32 i64 i128 u8 u16 u64 u128 f32 f64 char bytes byte_buf unit unit_struct tuple
        tuple_struct map
    }
}

/// The items of a list, each read at its own place under the list's key.
struct ListItems<'p, 'r, 'a> {
    place: &'p Place<'r, 'a>,
    items: std::slice::Iter<'a, Node>,
}

impl<'p, 'r, 'a> ListItems<'p, 'r, 'a> {
    fn new(place: &'p Place<'r, 'a>, items: &'a [Node]) -> Self {
        Self { place, items: items.iter() }
    }
}

impl<'de> SeqAccess<'de> for ListItems<'_, '_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Error> {
        let Some(item) = self.items.next() else { return Ok(None) };
        seed.deserialize(self.place.child(item, self.place.key.clone())).map(Some)
    }
}

/// The entries of a mapping read as a map (not a section): every entry as written, keys at
/// their own places, values under their keys' text.
struct Entries<'p, 'r, 'a> {
    place: &'p Place<'r, 'a>,
    entries: std::slice::Iter<'a, (Node, Node)>,
    value: Option<&'a (Node, Node)>,
}

impl<'p, 'r, 'a> Entries<'p, 'r, 'a> {
    fn new(place: &'p Place<'r, 'a>, entries: &'a [(Node, Node)]) -> Self {
        Self { place, entries: entries.iter(), value: None }
    }
}

impl<'de> MapAccess<'de> for Entries<'_, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some(entry) = self.entries.next() else { return Ok(None) };
        self.value = Some(entry);
        seed.deserialize(self.place.child(&entry.0, None)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (key, value) = self.value.take().ok_or_else(|| Error::Refused("a value without a key".to_owned()))?;
        seed.deserialize(self.place.child(value, key.scalar_text().map(Cow::Owned)))
    }
}

/// The entries a section reads (see [`Place::section_entries`]).
struct Fields<'p, 'r, 'a> {
    place: &'p Place<'r, 'a>,
    entries: std::vec::IntoIter<(Cow<'a, str>, &'a Node)>,
    value: Option<(Cow<'a, str>, &'a Node)>,
    /// How many diagnostics there were when the field being read started.
    field_started: &'p Cell<usize>,
}

impl<'de> MapAccess<'de> for Fields<'_, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some((name, value)) = self.entries.next() else { return Ok(None) };
        let key: CowStrDeserializer<'_, Error> = name.clone().into_deserializer();
        let read = seed.deserialize(key).map(Some);
        self.value = Some((name, value));
        read
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let (name, value) = self.value.take().ok_or_else(|| Error::Refused("a value without a key".to_owned()))?;
        self.field_started.set(self.place.reader.reported());
        let place = self.place.child(value, Some(name));
        match seed.deserialize(place.clone()) {
            Err(Error::Refused(message)) => {
                Err(place.refuse(codes::INVALID_VALUE, format!("{} cannot be read: {message}", place.name())))
            }
            read => read,
        }
    }
}

/// Answers a [`FromWritten`] type: where the value is written, its kind, then the value itself.
struct WrittenAccess<'r, 'a> {
    place: Place<'r, 'a>,
    next: usize,
}

impl<'de> MapAccess<'de> for WrittenAccess<'_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Error> {
        let Some(key) = WRITTEN_FIELDS.get(self.next) else { return Ok(None) };
        let key: StrDeserializer<'_, Error> = key.into_deserializer();
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let at = self.place.at();
        let field = self.next;
        self.next += 1;
        match field {
            0 => seed.deserialize(at.line.into_deserializer()),
            1 => seed.deserialize(at.column.into_deserializer()),
            2 => {
                let kind = Kind::ALL.iter().position(|kind| *kind == self.place.node.value.kind()).unwrap_or_default();
                seed.deserialize((kind as u8).into_deserializer())
            }
            _ => seed.deserialize(self.place.clone()),
        }
    }
}

/// A type that looks at what was written (where, and its kind) before choosing how to read it.
pub(crate) trait FromWritten<'de>: Sized {
    fn from_written<A: MapAccess<'de>>(written: Written<A>) -> Result<Self, A::Error>;
}

/// What was written at a place, for [`FromWritten`]: read the value at most once.
pub(crate) struct Written<A> {
    pub at: Loc,
    pub kind: Kind,
    map: A,
}

impl<'de, A: MapAccess<'de>> Written<A> {
    pub fn read<T: Deserialize<'de>>(mut self) -> Result<T, A::Error> {
        self.map.next_key::<IgnoredAny>()?;
        self.map.next_value()
    }
}

/// Reads a [`FromWritten`] type from `deserializer`; `expecting` names what it takes, for the
/// message when it refuses what was written.
pub(crate) fn from_written<'de, D: Deserializer<'de>, T: FromWritten<'de>>(
    deserializer: D,
    expecting: &'static str,
) -> Result<T, D::Error> {
    struct WrittenVisitor<T> {
        expecting: &'static str,
        read: PhantomData<T>,
    }

    impl<'de, T: FromWritten<'de>> Visitor<'de> for WrittenVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.expecting)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut number = || -> Result<u32, A::Error> {
                map.next_key::<IgnoredAny>()?;
                map.next_value()
            };
            let at = Loc { line: number()?, column: number()? };
            map.next_key::<IgnoredAny>()?;
            let kind = Kind::ALL[usize::from(map.next_value::<u8>()?).min(Kind::ALL.len() - 1)];
            T::from_written(Written { at, kind, map })
        }
    }

    deserializer.deserialize_struct(WRITTEN, WRITTEN_FIELDS, WrittenVisitor { expecting, read: PhantomData })
}

/// "{section} has no `{field}`", at the section.
fn report_missing(report: &mut Report, at: Loc, section: &str, field: &str) {
    report.error(at, codes::MISSING_FIELD, format!("{section} has no `{field}`"), Some(format!("add `{field}:`")));
}
