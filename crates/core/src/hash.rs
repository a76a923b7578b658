//! Hashing helpers shared by the core: canonical JSON and domain-separated SHA-256.

use sha2::{Digest, Sha256};

mod canonical;

/// Canonical JSON bytes of a value: object keys sorted, no insignificant whitespace.
///
/// The keys are sorted here rather than left to `serde_json::Value`'s map, which sorts them only
/// while no crate in the build turns on serde_json's `preserve_order` feature: a dependency that
/// did would otherwise change every workflow hash and every event hash without a line of ours
/// changing (`canonical_json_sorts_keys_whatever_the_map_keeps` pins it).
///
/// The bytes are written straight from the value (`canonical`); a value that writer leaves alone
/// goes through a `serde_json::Value` instead, with the same result.
pub fn canonical_json<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(256);
    if canonical::write(value, &mut bytes).is_ok() {
        return bytes;
    }
    canonical_json_through_value(value)
}

fn canonical_json_through_value<T: serde::Serialize>(value: &T) -> Vec<u8> {
    let value = serde_json::to_value(value).expect("IR and state types serialise to JSON");
    let mut bytes = Vec::new();
    write_canonical(&value, &mut bytes);
    bytes
}

fn write_canonical(value: &serde_json::Value, out: &mut Vec<u8>) {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<(&String, &serde_json::Value)> = map.iter().collect();
            entries.sort_unstable_by(|left, right| left.0.cmp(right.0));
            out.push(b'{');
            for (index, (key, value)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                serde_json::to_writer(&mut *out, key).expect("a string serialises");
                out.push(b':');
                write_canonical(value, out);
            }
            out.push(b'}');
        }
        serde_json::Value::Array(items) => {
            out.push(b'[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(b',');
                }
                write_canonical(item, out);
            }
            out.push(b']');
        }
        scalar => serde_json::to_writer(&mut *out, scalar).expect("a JSON scalar serialises"),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_whatever_the_map_keeps() {
        // Built in reverse order, so a map that kept insertion order would print it so.
        let mut inner = serde_json::Map::new();
        inner.insert("zulu".to_owned(), serde_json::json!(1));
        inner.insert("alpha".to_owned(), serde_json::json!([true, null, "x"]));
        let mut outer = serde_json::Map::new();
        outer.insert("y".to_owned(), serde_json::Value::Object(inner));
        outer.insert("b".to_owned(), serde_json::json!(2.5));
        let bytes = canonical_json(&serde_json::Value::Object(outer));
        assert_eq!(String::from_utf8(bytes).unwrap(), r#"{"b":2.5,"y":{"alpha":[true,null,"x"],"zulu":1}}"#);
    }

    /// The direct writer and the `Value` route give the same bytes, for every shape serde has.
    #[test]
    fn canonical_json_written_directly_matches_the_value_route() {
        #[derive(serde::Serialize)]
        enum Shapes {
            Unit,
            Newtype(Vec<u8>),
            Tuple(i8, f32),
            Struct { zeta: Option<u16>, alpha: char },
        }
        #[derive(serde::Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        enum Tagged {
            Moved { to: String, by: i64 },
            Held(std::collections::BTreeMap<String, serde_json::Value>),
        }
        #[derive(serde::Serialize)]
        struct Flattened {
            name: &'static str,
            #[serde(flatten)]
            rest: serde_json::Map<String, serde_json::Value>,
        }
        fn check<T: serde::Serialize>(value: T) {
            let written = String::from_utf8(canonical_json(&value)).unwrap();
            assert_eq!(written, String::from_utf8(canonical_json_through_value(&value)).unwrap());
        }
        let mut rest = serde_json::Map::new();
        rest.insert("b\u{e9}ta\n\"quoted\"".to_owned(), serde_json::json!({"z": [1.5, -0.0, 1e300], "a": null}));
        rest.insert("aa".to_owned(), serde_json::json!(u64::MAX));
        check(Shapes::Unit);
        check(Shapes::Newtype(vec![0, 255]));
        check(Shapes::Tuple(-3, 0.1));
        check(Shapes::Struct { zeta: None, alpha: '\u{1f600}' });
        check(Tagged::Moved { to: "x\u{0}y".to_owned(), by: i64::MIN });
        check(Tagged::Held([("q".to_owned(), serde_json::json!(f64::NAN))].into()));
        check(Flattened { name: "flat", rest });
        check(std::collections::HashMap::from([(3_u8, "integer keys take the Value route")]));
        check((true, (), "tuple", [0.5_f64; 2], 7_u128));
    }

    #[test]
    fn canonical_json_of_a_struct_sorts_its_fields() {
        #[derive(serde::Serialize)]
        struct Declared {
            second: u8,
            first: &'static str,
        }
        let bytes = canonical_json(&Declared { second: 2, first: "é\"" });
        assert_eq!(String::from_utf8(bytes).unwrap(), "{\"first\":\"é\\\"\",\"second\":2}");
    }
}
