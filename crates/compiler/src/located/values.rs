//! What a format's types hold, read through `located`: a value with its place ([`Located`]), and
//! the holders that let reading go on past a refused value ([`lenient`], [`Items`], [`Maybe`],
//! [`Required`]), a [`Count`] with its least value, any value as JSON ([`JsonValue`]) or as the
//! scalar text a reader judges itself ([`Scalar`]). Each has the schema of the value it holds.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::{Error, FromWritten, JSON, Written, from_written, report_missing};
use crate::diagnostic::{Loc, Report};
use crate::tree::Kind;

/// A value with where it was written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Located<T> {
    pub value: T,
    pub at: Loc,
}

impl<T> Located<T> {
    pub fn new(value: T, at: Loc) -> Self {
        Self { value, at }
    }
}

/// `deserialize_with` for an optional field: a value this module refused (and reported) reads as
/// absent, and reading goes on.
pub(crate) fn lenient<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    Ok(T::deserialize(deserializer).ok())
}

impl<'de, T: Deserialize<'de>> FromWritten<'de> for Located<T> {
    fn from_written<A: MapAccess<'de>>(written: Written<A>) -> Result<Self, A::Error> {
        let at = written.at;
        Ok(Located::new(written.read()?, at))
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Located<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        from_written(deserializer, "a value")
    }
}

/// Written as the value alone: where it was read from is no part of the format.
impl<T: Serialize> Serialize for Located<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

/// Gives a type the schema of the value it holds: how the reader holds a value is no part of
/// the format.
macro_rules! schema_of_the_value {
    (impl<$generic:ident> $holder:ty => $value:ty) => {
        impl<$generic: JsonSchema> JsonSchema for $holder {
            schema_of_the_value!(@methods $value);
        }
    };
    (impl $holder:ty => $value:ty) => {
        impl JsonSchema for $holder {
            schema_of_the_value!(@methods $value);
        }
    };
    (@methods $value:ty) => {
        fn inline_schema() -> bool {
            <$value>::inline_schema()
        }

        fn schema_name() -> Cow<'static, str> {
            <$value>::schema_name()
        }

        fn schema_id() -> Cow<'static, str> {
            <$value>::schema_id()
        }

        fn json_schema(generator: &mut SchemaGenerator) -> Schema {
            <$value>::json_schema(generator)
        }
    };
}

schema_of_the_value!(impl<T> Located<T> => T);
schema_of_the_value!(impl<T> Items<T> => Vec<T>);
schema_of_the_value!(impl<T> Required<T> => T);
schema_of_the_value!(impl JsonValue => serde_json::Value);

/// A list whose items this module refused (and reported) are left out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Items<T>(pub Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Items<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ItemsVisitor<T>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>> Visitor<'de> for ItemsVisitor<T> {
            type Value = Items<T>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Items<T>, A::Error> {
                let mut read = Vec::new();
                while let Some(Maybe(item)) = items.next_element()? {
                    read.extend(item);
                }
                Ok(Items(read))
            }
        }

        deserializer.deserialize_seq(ItemsVisitor(PhantomData))
    }
}

impl<T: Serialize> Serialize for Items<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// A value, or nothing when this module refused (and reported) it.
#[derive(Debug)]
pub(crate) struct Maybe<T>(pub Option<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Maybe<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Maybe(T::deserialize(deserializer).ok()))
    }
}

/// A field the format requires that the reader reads on without, so the format's reader can say
/// it is missing, or leave it as the value of the wrong shape this module already reported.
/// Put `#[serde(default, skip_serializing_if = "Required::is_missing")]` on the field, and name it
/// in the section's schema with [`require`].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Required<T> {
    #[default]
    Missing,
    Wrong,
    Given(T),
}

impl<T> Required<T> {
    pub fn is_missing(&self) -> bool {
        matches!(self, Self::Missing)
    }

    /// The value, if given; reported as missing from `section` (written at `at`) if it is.
    pub fn given(self, section: &str, field: &str, at: Loc, report: &mut Report) -> Option<T> {
        match self {
            Self::Given(value) => Some(value),
            Self::Wrong => None,
            Self::Missing => {
                report_missing(report, at, section, field);
                None
            }
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Required<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(T::deserialize(deserializer).map_or(Self::Wrong, Self::Given))
    }
}

impl<T: Serialize> Serialize for Required<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Given(value) => value.serialize(serializer),
            Self::Missing | Self::Wrong => serializer.serialize_none(),
        }
    }
}

/// Lists `fields` as required in a section's schema: the [`Required`] fields, which serde sees
/// as optional because the reader goes on without them.
pub(crate) fn require(schema: &mut Schema, fields: &[&str]) {
    let object = schema.ensure_object();
    let required = object.entry("required").or_insert_with(|| serde_json::Value::Array(Vec::new()));
    if let serde_json::Value::Array(names) = required {
        names.extend(fields.iter().map(|field| serde_json::Value::from(*field)));
    }
}

/// A whole number from `MIN` to `u32::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Count<const MIN: u32>(pub u32);

impl<'de, const MIN: u32> Deserialize<'de> for Count<MIN> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct CountVisitor<const MIN: u32>;

        impl<const MIN: u32> Visitor<'_> for CountVisitor<MIN> {
            type Value = Count<MIN>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a whole number from {MIN} to {}", u32::MAX)
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Count<MIN>, E> {
                match u32::try_from(value) {
                    Ok(count) if count >= MIN => Ok(Count(count)),
                    _ => Err(E::invalid_value(de::Unexpected::Unsigned(value), &self)),
                }
            }
        }

        deserializer.deserialize_u32(CountVisitor::<MIN>)
    }
}

impl<const MIN: u32> Serialize for Count<MIN> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u32(self.0)
    }
}

impl<const MIN: u32> JsonSchema for Count<MIN> {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> Cow<'static, str> {
        format!("Count_from_{MIN}").into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let mut schema = u32::json_schema(generator);
        schema.insert("minimum".to_owned(), MIN.into());
        schema
    }
}

/// Any value, as JSON; repeated keys and keys that are no scalars are reported as
/// [`Node::to_json`] does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JsonValue(pub serde_json::Value);

impl<'de> Deserialize<'de> for JsonValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct JsonVisitor;

        impl<'de> Visitor<'de> for JsonVisitor {
            type Value = JsonValue;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }

            fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<JsonValue, D::Error> {
                serde_json::Value::deserialize(deserializer).map(JsonValue)
            }
        }

        deserializer.deserialize_newtype_struct(JSON, JsonVisitor)
    }
}

impl Serialize for JsonValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// A value the format's reader judges itself: a scalar's text (numbers and booleans as JSON
/// writes them), or the kind of anything else, which is not read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar {
    String(String),
    /// A number or a boolean, as text.
    NumberOrBoolean(String),
    /// Neither a string, a number nor a boolean: what was written instead.
    Neither(Kind),
}

impl Scalar {
    /// The text of a string, number or boolean.
    pub fn text(&self) -> Option<&str> {
        match self {
            Self::String(text) | Self::NumberOrBoolean(text) => Some(text),
            Self::Neither(_) => None,
        }
    }
}

impl<'de> Deserialize<'de> for Scalar {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ScalarVisitor;

        impl<'de> Visitor<'de> for ScalarVisitor {
            type Value = Scalar;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any value")
            }

            fn visit_bool<E>(self, value: bool) -> Result<Scalar, E> {
                Ok(Scalar::NumberOrBoolean(value.to_string()))
            }

            fn visit_u64<E>(self, value: u64) -> Result<Scalar, E> {
                Ok(Scalar::NumberOrBoolean(serde_json::Number::from(value).to_string()))
            }

            fn visit_i64<E>(self, value: i64) -> Result<Scalar, E> {
                Ok(Scalar::NumberOrBoolean(serde_json::Number::from(value).to_string()))
            }

            fn visit_f64<E>(self, value: f64) -> Result<Scalar, E> {
                Ok(match serde_json::Number::from_f64(value) {
                    Some(number) => Scalar::NumberOrBoolean(number.to_string()),
                    None => Scalar::Neither(Kind::Number),
                })
            }

            fn visit_str<E>(self, value: &str) -> Result<Scalar, E> {
                Ok(Scalar::String(value.to_owned()))
            }

            fn visit_unit<E>(self) -> Result<Scalar, E> {
                Ok(Scalar::Neither(Kind::Null))
            }

            fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<Scalar, A::Error> {
                Ok(Scalar::Neither(Kind::List))
            }

            fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<Scalar, A::Error> {
                Ok(Scalar::Neither(Kind::Mapping))
            }
        }

        deserializer.deserialize_any(ScalarVisitor)
    }
}

impl Serialize for Scalar {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::String(text) | Self::NumberOrBoolean(text) => serializer.serialize_str(text),
            Self::Neither(_) => serializer.serialize_none(),
        }
    }
}

/// The words a unit enum is written as, in declaration order, as serde reads them.
pub(crate) fn words<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    /// Answers only the enum's question, keeping the words it was asked with.
    struct Words<'w>(&'w Cell<&'static [&'static str]>);

    impl<'de> Deserializer<'de> for Words<'_> {
        type Error = Error;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Error> {
            Err(Error::Reported)
        }

        fn deserialize_enum<V: Visitor<'de>>(
            self,
            _: &'static str,
            variants: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Error> {
            self.0.set(variants);
            Err(Error::Reported)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
            unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
        }
    }

    let words = Cell::new(&[][..]);
    let _ = T::deserialize(Words(&words));
    words.get()
}

/// A value written by switchyard itself (`switchyard import`), which has no place in a source.
impl<T> From<T> for Located<T> {
    fn from(value: T) -> Self {
        Located::new(value, Loc::default())
    }
}
