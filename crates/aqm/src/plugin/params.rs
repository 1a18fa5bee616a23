//! A plugin's parameters: the keys of its queue table, handed across the boundary as
//! text (a key, a type and a value per entry) and read back with their types.

use crate::config::Value;
use crate::error::{AqmError, Result};

/// Separators of the text form (units and records), which no key or string may hold.
const UNIT: char = '\u{1f}';
const RECORD: char = '\u{1e}';

/// The keys of a plugin's queue table (all but `type` and `path`), in the table's order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    entries: Vec<(String, Value)>,
}

impl Params {
    pub fn new(entries: Vec<(String, Value)>) -> Params {
        Params { entries }
    }

    /// The text form.
    pub fn encode(&self) -> Result<String> {
        let mut out = String::new();
        for (k, v) in &self.entries {
            let (tag, text) = match v {
                Value::Bool(b) => ('b', b.to_string()),
                Value::Int(i) => ('i', i.to_string()),
                Value::UInt(u) => ('u', u.to_string()),
                // (Debug prints the shortest text that reads back to the same number)
                Value::Float(x) => ('f', format!("{x:?}")),
                Value::Str(s) => ('s', s.clone()),
                Value::Null | Value::List | Value::Table => ('n', String::new()),
            };
            if k.contains([UNIT, RECORD]) || text.contains([UNIT, RECORD]) {
                return Err(AqmError::invalid(k, v, "text without control characters"));
            }
            out.extend([k.as_str(), &UNIT.to_string(), &tag.to_string(), &UNIT.to_string()]);
            out.push_str(&text);
            out.push(RECORD);
        }
        Ok(out)
    }

    /// Read the text form.
    pub fn decode(text: &str) -> Result<Params> {
        let mut entries = Vec::new();
        for rec in text.split(RECORD).filter(|r| !r.is_empty()) {
            let mut it = rec.splitn(3, UNIT);
            let (Some(k), Some(tag), Some(v)) = (it.next(), it.next(), it.next()) else {
                return Err(AqmError::config("", format!("malformed parameter {rec:?}")));
            };
            let bad = || AqmError::config(k, format!("malformed value {v:?}"));
            let value = match tag {
                "b" => Value::Bool(v.parse().map_err(|_| bad())?),
                "i" => Value::Int(v.parse().map_err(|_| bad())?),
                "u" => Value::UInt(v.parse().map_err(|_| bad())?),
                "f" => Value::Float(v.parse().map_err(|_| bad())?),
                "s" => Value::Str(v.to_string()),
                _ => Value::Null,
            };
            entries.push((k.to_string(), value));
        }
        Ok(Params { entries })
    }

    /// The value of `key`, if given.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Refuse a key not in `allowed`, naming it and them.
    pub fn only(&self, allowed: &[&str]) -> Result<()> {
        match self.entries.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            Some((k, _)) => Err(AqmError::config(
                k,
                format!("unknown field `{k}`, expected one of {}", allowed.join(", ")),
            )),
            None => Ok(()),
        }
    }

    /// A number (an integer is one too), `default` if absent.
    pub fn f64(&self, key: &str, default: f64) -> Result<f64> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Float(x)) => Ok(*x),
            Some(Value::Int(i)) => Ok(*i as f64),
            Some(Value::UInt(u)) => Ok(*u as f64),
            Some(v) => Err(AqmError::invalid(key, v, "a number")),
        }
    }

    /// An integer >= 0, `default` if absent.
    pub fn u64(&self, key: &str, default: Option<u64>) -> Result<Option<u64>> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Int(i)) if *i >= 0 => Ok(Some(*i as u64)),
            Some(Value::UInt(u)) => Ok(Some(*u)),
            Some(v) => Err(AqmError::invalid(key, v, "an integer >= 0")),
        }
    }

    /// A boolean, `default` if absent.
    pub fn bool(&self, key: &str, default: bool) -> Result<bool> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(AqmError::invalid(key, v, "true or false")),
        }
    }
}
