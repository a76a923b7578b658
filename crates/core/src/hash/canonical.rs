//! Canonical JSON written straight from a `Serialize` value, without building a `serde_json::Value`
//! first: object keys sorted byte-wise, no whitespace, scalars exactly as serde_json writes them.
//!
//! Every event body, node state and workflow hash goes through canonical JSON, several times per
//! advance, and going through a `Value` tree costs an allocation per string, number and map entry.
//! An object's members are written into one buffer per object, then copied out in key order.
//! Whatever this writer does not handle exactly as the `Value` route does (non-string map keys,
//! 128-bit integers, serde_json's private raw values) makes it give up, and
//! [`super::canonical_json`] takes the `Value` route instead, so the bytes never differ.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use serde::Serialize;
use serde::ser::{self, Impossible};

/// Writes the canonical JSON of `value` to `out`; `Err` when it needs the `Value` route.
pub(super) fn write<T: Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), Unsupported> {
    value.serialize(Writer { out })
}

/// Something this writer leaves to the `Value` route.
#[derive(Debug)]
pub(super) struct Unsupported;

impl fmt::Display for Unsupported {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("not written by the direct canonical JSON writer")
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: fmt::Display>(_message: T) -> Self {
        Unsupported
    }
}

/// serde_json marks its own special values (raw JSON, arbitrary-precision numbers) with struct
/// names under this prefix.
const SERDE_JSON_PRIVATE: &str = "$serde_json::private::";

fn string(out: &mut Vec<u8>, text: &str) {
    serde_json::to_writer(out, text).expect("a string serialises");
}

fn scalar<T: Serialize>(out: &mut Vec<u8>, value: T) -> Result<(), Unsupported> {
    serde_json::to_writer(out, &value).map_err(|_| Unsupported)
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

impl<'a> ser::Serializer for Writer<'a> {
    type Ok = ();
    type Error = Unsupported;
    type SerializeSeq = Array<'a>;
    type SerializeTuple = Array<'a>;
    type SerializeTupleStruct = Array<'a>;
    type SerializeTupleVariant = Array<'a>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Object<'a>;

    fn serialize_bool(self, value: bool) -> Result<(), Unsupported> {
        self.out.extend_from_slice(if value { b"true" } else { b"false" });
        Ok(())
    }

    fn serialize_i8(self, value: i8) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(value))
    }

    fn serialize_i16(self, value: i16) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(value))
    }

    fn serialize_i32(self, value: i32) -> Result<(), Unsupported> {
        self.serialize_i64(i64::from(value))
    }

    fn serialize_i64(self, value: i64) -> Result<(), Unsupported> {
        scalar(self.out, value)
    }

    fn serialize_u8(self, value: u8) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(value))
    }

    fn serialize_u16(self, value: u16) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(value))
    }

    fn serialize_u32(self, value: u32) -> Result<(), Unsupported> {
        self.serialize_u64(u64::from(value))
    }

    fn serialize_u64(self, value: u64) -> Result<(), Unsupported> {
        scalar(self.out, value)
    }

    fn serialize_i128(self, _value: i128) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    fn serialize_u128(self, _value: u128) -> Result<(), Unsupported> {
        Err(Unsupported)
    }

    // A `Value` keeps an f32 as the f64 it converts to, and prints that.
    fn serialize_f32(self, value: f32) -> Result<(), Unsupported> {
        self.serialize_f64(f64::from(value))
    }

    // A `Value` turns a NaN or an infinity into null; serde_json's writer prints them as null too.
    fn serialize_f64(self, value: f64) -> Result<(), Unsupported> {
        scalar(self.out, value)
    }

    fn serialize_char(self, value: char) -> Result<(), Unsupported> {
        string(self.out, value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, value: &str) -> Result<(), Unsupported> {
        string(self.out, value);
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), Unsupported> {
        use ser::SerializeSeq;
        let mut array = self.serialize_seq(Some(value.len()))?;
        for byte in value {
            array.serialize_element(byte)?;
        }
        array.end()
    }

    fn serialize_none(self) -> Result<(), Unsupported> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Unsupported> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Unsupported> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Unsupported> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Unsupported> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<(), Unsupported> {
        if name.starts_with(SERDE_JSON_PRIVATE) {
            return Err(Unsupported);
        }
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Unsupported> {
        self.out.push(b'{');
        string(self.out, variant);
        self.out.push(b':');
        value.serialize(Writer { out: &mut *self.out })?;
        self.out.push(b'}');
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Array<'a>, Unsupported> {
        self.out.push(b'[');
        Ok(Array { out: self.out, first: true, close_variant: false })
    }

    fn serialize_tuple(self, len: usize) -> Result<Array<'a>, Unsupported> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Array<'a>, Unsupported> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Array<'a>, Unsupported> {
        self.out.push(b'{');
        string(self.out, variant);
        self.out.extend_from_slice(b":[");
        Ok(Array { out: self.out, first: true, close_variant: true })
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Object<'a>, Unsupported> {
        Ok(Object::new(self.out, None, len.unwrap_or(0)))
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Object<'a>, Unsupported> {
        if name.starts_with(SERDE_JSON_PRIVATE) {
            return Err(Unsupported);
        }
        Ok(Object::new(self.out, None, len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Object<'a>, Unsupported> {
        Ok(Object::new(self.out, Some(variant), len))
    }
}

/// An array: elements are written in order, straight to the output.
struct Array<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
    /// Closes the object a tuple variant is wrapped in.
    close_variant: bool,
}

impl Array<'_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        value.serialize(Writer { out: &mut *self.out })
    }

    fn close(self) -> Result<(), Unsupported> {
        self.out.push(b']');
        if self.close_variant {
            self.out.push(b'}');
        }
        Ok(())
    }
}

/// The four array-shaped serde traits differ only in the name of the element method.
macro_rules! array_trait {
    ($trait:ident, $method:ident) => {
        impl ser::$trait for Array<'_> {
            type Ok = ();
            type Error = Unsupported;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
                self.element(value)
            }

            fn end(self) -> Result<(), Unsupported> {
                self.close()
            }
        }
    };
}

array_trait!(SerializeSeq, serialize_element);
array_trait!(SerializeTuple, serialize_element);
array_trait!(SerializeTupleStruct, serialize_field);
array_trait!(SerializeTupleVariant, serialize_field);

/// An object: each member's value is written to one buffer as it comes, and the members are copied
/// to the output in key order at the end.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    values: Vec<u8>,
    members: Vec<(Cow<'static, str>, Range<usize>)>,
    key: Option<String>,
    /// The variant a struct variant is wrapped in: `{"variant":{…}}`.
    variant: Option<&'static str>,
}

impl<'a> Object<'a> {
    /// An object of about `len` members: its buffers are sized for them up front, so writing an
    /// event's envelope does not grow them member by member.
    fn new(out: &'a mut Vec<u8>, variant: Option<&'static str>, len: usize) -> Self {
        const BYTES_PER_MEMBER: usize = 32;
        let values = Vec::with_capacity(len * BYTES_PER_MEMBER);
        Self { out, values, members: Vec::with_capacity(len), key: None, variant }
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: Cow<'static, str>, value: &T) -> Result<(), Unsupported> {
        let start = self.values.len();
        value.serialize(Writer { out: &mut self.values })?;
        self.members.push((key, start..self.values.len()));
        Ok(())
    }

    fn close(mut self) -> Result<(), Unsupported> {
        if let Some(variant) = self.variant {
            self.out.push(b'{');
            string(self.out, variant);
            self.out.push(b':');
        }
        // A stable sort keeps a repeated key's members in the order written; the last one wins, as
        // it does when a `Value` map is built.
        self.members.sort_by(|left, right| left.0.cmp(&right.0));
        self.out.push(b'{');
        let mut first = true;
        for (index, (key, range)) in self.members.iter().enumerate() {
            if self.members.get(index + 1).is_some_and(|next| next.0 == *key) {
                continue;
            }
            if !first {
                self.out.push(b',');
            }
            first = false;
            string(self.out, key);
            self.out.push(b':');
            self.out.extend_from_slice(&self.values[range.clone()]);
        }
        self.out.push(b'}');
        if self.variant.is_some() {
            self.out.push(b'}');
        }
        Ok(())
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Unsupported;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Unsupported> {
        self.key = Some(key.serialize(KeyWriter)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Unsupported> {
        let key = self.key.take().ok_or(Unsupported)?;
        self.member(Cow::Owned(key), value)
    }

    fn end(self) -> Result<(), Unsupported> {
        self.close()
    }
}

/// A struct and a struct variant are both objects whose keys are field names.
macro_rules! struct_trait {
    ($trait:ident) => {
        impl ser::$trait for Object<'_> {
            type Ok = ();
            type Error = Unsupported;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Unsupported> {
                self.member(Cow::Borrowed(key), value)
            }

            fn end(self) -> Result<(), Unsupported> {
                self.close()
            }
        }
    };
}

struct_trait!(SerializeStruct);
struct_trait!(SerializeStructVariant);

/// A map key: strings, and the few other keys this writer renders as the `Value` route does
/// (characters, unit variants); anything else is left to that route.
struct KeyWriter;

/// Scalar keys the `Value` route turns into strings by rules of its own: left to it.
macro_rules! refuse_scalar_keys {
    ($($method:ident: $type:ty),* $(,)?) => {
        $(
            fn $method(self, _value: $type) -> Result<String, Unsupported> {
                Err(Unsupported)
            }
        )*
    };
}

impl ser::Serializer for KeyWriter {
    type Ok = String;
    type Error = Unsupported;
    type SerializeSeq = Impossible<String, Unsupported>;
    type SerializeTuple = Impossible<String, Unsupported>;
    type SerializeTupleStruct = Impossible<String, Unsupported>;
    type SerializeTupleVariant = Impossible<String, Unsupported>;
    type SerializeMap = Impossible<String, Unsupported>;
    type SerializeStruct = Impossible<String, Unsupported>;
    type SerializeStructVariant = Impossible<String, Unsupported>;

    fn serialize_str(self, value: &str) -> Result<String, Unsupported> {
        Ok(value.to_owned())
    }

    fn serialize_char(self, value: char) -> Result<String, Unsupported> {
        Ok(value.to_string())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<String, Unsupported> {
        Ok(variant.to_owned())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<String, Unsupported> {
        if name.starts_with(SERDE_JSON_PRIVATE) {
            return Err(Unsupported);
        }
        value.serialize(self)
    }

    refuse_scalar_keys!(
        serialize_bool: bool,
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
        serialize_f32: f32,
        serialize_f64: f64,
        serialize_bytes: &[u8],
    );

    fn serialize_none(self) -> Result<String, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<String, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_unit(self) -> Result<String, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<String, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<String, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct, Unsupported> {
        Err(Unsupported)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Unsupported> {
        Err(Unsupported)
    }
}
