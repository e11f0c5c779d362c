//! Reads a [`StepsByProcess`] whose keys come as integers or as text (`"0"`), the
//! latter from a flattened struct's buffer; a key that is no whole number is refused.
//! Written as the derived `Serialize` writes it.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer, MapAccess, Unexpected, Visitor};

/// Process index → step indexes (JSON object keys are the process indexes as text).
///
/// Every field of this type reads through [`steps_by_process`](self): serde reads a
/// `#[serde(flatten)]`ed struct (the settings in [`Task`](super::Task)) from a buffer
/// that hands JSON's object keys over as text and no longer turns them into `u32`
/// (serde-rs/serde#1183).
pub type StepsByProcess = BTreeMap<u32, Vec<u32>>;

const EXPECTED: &str = "a process index (a whole number from 0 to 4294967295)";

/// A process index read from an integer or from its digits.
struct Key(u32);

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
                u32::try_from(v)
                    .map(Key)
                    .map_err(|_| E::invalid_value(Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key, E> {
                u32::try_from(v)
                    .map(Key)
                    .map_err(|_| E::invalid_value(Unexpected::Signed(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
                digits
                    .then(|| v.parse().ok())
                    .flatten()
                    .map(Key)
                    .ok_or_else(|| E::invalid_value(Unexpected::Str(v), &self))
            }
        }
        d.deserialize_any(KeyVisitor)
    }
}

struct MapVisitor;

impl<'de> Visitor<'de> for MapVisitor {
    type Value = StepsByProcess;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map of process indexes to step indexes")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<StepsByProcess, A::Error> {
        let mut out = StepsByProcess::new();
        while let Some((Key(k), v)) = m.next_entry::<Key, Vec<u32>>()? {
            out.insert(k, v);
        }
        Ok(out)
    }
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<StepsByProcess, D::Error> {
    d.deserialize_map(MapVisitor)
}

/// [`deserialize`] for an `Option` field (`null` is `None`); the field also needs
/// `#[serde(default)]` to stay optional.
pub fn deserialize_option<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<StepsByProcess>, D::Error> {
    struct Wrap(StepsByProcess);
    impl<'de> de::Deserialize<'de> for Wrap {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Wrap, D::Error> {
            deserialize(d).map(Wrap)
        }
    }
    Ok(<Option<Wrap> as de::Deserialize>::deserialize(d)?.map(|w| w.0))
}
