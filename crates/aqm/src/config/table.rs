//! Reading a queue table (`{ type = "red", limit = 100, ... }`) key by key.
//!
//! A table is read in two steps. [`QueueTable`] takes it from any serde source (TOML,
//! JSON, a Python dict) as written: its keys in order, each value a number, string or
//! boolean kept as is. [`QueueTable::config`] then looks up `type`, starts from that
//! discipline's defaults and sets one field per key, so that every error names its key
//! (`link[0].queue.min_tj: unknown field ...`, `link[0].queue.gentle: invalid type ...`)
//! whatever the source and wherever `type` stands in the table.
//!
//! The configuration types are declared with `config_struct!` ([`super::fields`]): each
//! field once, with its type, default and documentation.

use std::fmt;

use serde::de::{
    self, Deserialize, Deserializer, IntoDeserializer, MapAccess, Unexpected, Visitor,
};

use super::{QUEUE_TYPES, QueueConfig};
use crate::error::{AqmError, Result};
use crate::external::{EXTERNAL_TYPES, ExternalConfig};

/// A value of a queue table as written.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(String),
    /// An absent value (`None` from Python, `null` from JSON).
    Null,
    /// A list: no parameter is one; kept only to say so.
    List,
    /// A nested table: no parameter is one; kept only to say so.
    Table,
}

impl Value {
    /// What was found, for an error.
    fn unexpected(&self) -> Unexpected<'_> {
        match self {
            Value::Bool(b) => Unexpected::Bool(*b),
            Value::Int(i) => Unexpected::Signed(*i),
            Value::UInt(u) => Unexpected::Unsigned(*u),
            Value::Float(x) => Unexpected::Float(*x),
            Value::Str(s) => Unexpected::Str(s),
            Value::Null => Unexpected::Unit,
            Value::List => Unexpected::Seq,
            Value::Table => Unexpected::Map,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(i) => write!(f, "{i}"),
            Value::UInt(u) => write!(f, "{u}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Null => f.write_str("null"),
            Value::List => f.write_str("a list"),
            Value::Table => f.write_str("a table"),
        }
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Value, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Value;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(SCALAR)
            }
            fn visit_bool<E>(self, b: bool) -> std::result::Result<Value, E> {
                Ok(Value::Bool(b))
            }
            fn visit_i64<E>(self, i: i64) -> std::result::Result<Value, E> {
                Ok(Value::Int(i))
            }
            fn visit_u64<E>(self, u: u64) -> std::result::Result<Value, E> {
                Ok(i64::try_from(u).map_or(Value::UInt(u), Value::Int))
            }
            fn visit_f64<E>(self, x: f64) -> std::result::Result<Value, E> {
                Ok(Value::Float(x))
            }
            fn visit_str<E>(self, s: &str) -> std::result::Result<Value, E> {
                Ok(Value::Str(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> std::result::Result<Value, E> {
                Ok(Value::Str(s))
            }
            fn visit_unit<E>(self) -> std::result::Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_none<E>(self) -> std::result::Result<Value, E> {
                Ok(Value::Null)
            }
            fn visit_some<D: Deserializer<'de>>(
                self,
                d: D,
            ) -> std::result::Result<Value, D::Error> {
                Value::deserialize(d)
            }
            fn visit_seq<A: de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> std::result::Result<Value, A::Error> {
                while a.next_element::<de::IgnoredAny>()?.is_some() {}
                Ok(Value::List)
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut a: A,
            ) -> std::result::Result<Value, A::Error> {
                while a.next_entry::<de::IgnoredAny, de::IgnoredAny>()?.is_some() {}
                Ok(Value::Table)
            }
        }
        d.deserialize_any(V)
    }
}

/// What every parameter is.
const SCALAR: &str = "a number, a string or a boolean";

/// A value read into a field's type; a mismatch says what was found and what the
/// field takes (`invalid type: string "abc", expected f64`).
impl<'de> Deserializer<'de> for &Value {
    type Error = AqmError;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self {
            Value::Bool(b) => v.visit_bool(*b),
            Value::Int(i) => v.visit_i64(*i),
            Value::UInt(u) => v.visit_u64(*u),
            Value::Float(x) => v.visit_f64(*x),
            Value::Str(s) => v.visit_str(s),
            Value::Null => v.visit_unit(),
            Value::List | Value::Table => Err(de::Error::invalid_type(self.unexpected(), &SCALAR)),
        }
    }
    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value> {
        match self {
            Value::Null => v.visit_none(),
            _ => v.visit_some(self),
        }
    }
    /// Enums are written as their variant's name (`mark_method = "geometric"`).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value> {
        match self {
            Value::Str(s) => v.visit_enum(s.as_str().into_deserializer()),
            _ => Err(de::Error::invalid_type(self.unexpected(), &"a string")),
        }
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}

/// A queue table as written: its keys in order with their values (see the module
/// documentation). [`QueueTable::config`] reads it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueueTable {
    entries: Vec<(String, Value)>,
}

impl<'de> Deserialize<'de> for QueueTable {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<QueueTable, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = QueueTable;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "a table such as {{ type = \"red\", limit = 100 }}; allowed types {}",
                    QUEUE_TYPES.join(", ")
                )
            }
            fn visit_map<A: MapAccess<'de>>(
                self,
                mut a: A,
            ) -> std::result::Result<QueueTable, A::Error> {
                let mut entries = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, Value>()? {
                    entries.push((k, v));
                }
                Ok(QueueTable { entries })
            }
        }
        d.deserialize_map(V)
    }
}

impl QueueTable {
    /// The configuration the table describes, its defaults filled in. `path` is where
    /// the table stands (`link[0].queue`, or empty); errors name `path.key`.
    pub fn config(&self, path: &str) -> Result<QueueConfig> {
        self.read().map_err(|e| e.at(path))
    }

    fn read(&self) -> Result<QueueConfig> {
        let allowed =
            || format!("one of {}, {}", QUEUE_TYPES.join(", "), EXTERNAL_TYPES.join(", "));
        let kind = match self.entries.iter().find(|(k, _)| k == "type") {
            Some((_, Value::Str(s))) => s,
            Some((_, v)) => return Err(AqmError::invalid("type", v, allowed())),
            None => {
                return Err(AqmError::config("type", format!("missing; allowed {}", allowed())));
            }
        };
        let others = || self.entries.iter().filter(|(k, _)| k != "type");
        if EXTERNAL_TYPES.contains(&kind.as_str()) {
            let entries: Vec<(String, Value)> = others().cloned().collect();
            return Ok(QueueConfig::External(ExternalConfig::read(kind, &entries)?));
        }
        let Some(mut config) = QueueConfig::default_of(kind) else {
            return Err(AqmError::invalid("type", format!("{kind:?}"), allowed()));
        };
        let Some(fields) = config.fields_mut() else {
            return Err(AqmError::invalid("type", format!("{kind:?}"), allowed()));
        };
        for (key, value) in others() {
            if !fields.set(key, value).map_err(|e| e.at(key))? {
                let mut keys = Vec::new();
                fields.keys(&mut keys);
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
                return Err(AqmError::config(
                    &crate::error::key(key),
                    format!("unknown field `{key}`, expected one of {}", keys.join(", ")),
                ));
            }
        }
        Ok(config)
    }
}
