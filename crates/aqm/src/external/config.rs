//! The configuration of an external AQM: its `type`, the key naming it (`class` or
//! `path`) and its other keys, kept as written for the AQM to read.

use serde::ser::{Serialize, SerializeMap, Serializer};

use super::{EXTERNAL_TYPES, int_key, kind, unavailable};
use crate::common::Limit;
use crate::config::build::seed;
use crate::config::{BuildContext, Value};
use crate::error::{AqmError, Result};

/// `queue = { type = "python", class = "my_aqm:MyAqm", ...params }` or
/// `queue = { type = "plugin", path = "target/release/libmy_aqm.so", ...params }`.
#[derive(Clone, Debug, PartialEq)]
pub struct ExternalConfig {
    /// The `type`: one of [`EXTERNAL_TYPES`].
    pub kind: &'static str,
    /// The AQM: the value of the kind's target key (`"my_aqm:MyAqm"`, a path).
    pub target: String,
    /// The other keys, in the table's order: the AQM's parameters.
    pub params: Vec<(String, Value)>,
    /// Whether the AQM decides at dequeue (found when the configuration is read).
    pub holds_packets: bool,
}

impl ExternalConfig {
    /// Read the table of external `type` `name` (its entries without `type`), and find
    /// the AQM it names through the registered [`super::ExternalKind`].
    pub(crate) fn read(name: &str, entries: &[(String, Value)]) -> Result<ExternalConfig> {
        let kind_name =
            *EXTERNAL_TYPES.iter().find(|k| **k == name).ok_or_else(|| unavailable(name))?;
        let k = kind(kind_name).ok_or_else(|| unavailable(kind_name))?;
        let key = k.target_key();
        let mut target = None;
        let mut params = Vec::new();
        for (k, v) in entries {
            if k == key {
                match v {
                    Value::Str(s) if !s.is_empty() => target = Some(s.clone()),
                    v => return Err(AqmError::invalid(key, v, "a non-empty string")),
                }
            } else if matches!(v, Value::List | Value::Table) {
                return Err(AqmError::invalid(k, v, "a number, a string or a boolean"));
            } else {
                params.push((k.clone(), v.clone()));
            }
        }
        let Some(target) = target else {
            return Err(AqmError::config(key, format!("missing; a `{name}` queue names its AQM")));
        };
        let mut cfg = ExternalConfig { kind: kind_name, target, params, holds_packets: false };
        // (the keys the host reads itself, checked here)
        cfg.limit()?;
        int_key(&cfg.params, "seed", u64::MAX)?;
        cfg.holds_packets = k.probe(&cfg)?;
        Ok(cfg)
    }

    /// The seed of the AQM's random stream: its `seed` key, else the caller's, else
    /// [`crate::config::DEFAULT_SEED`] (as the built-ins choose theirs).
    pub fn seed(&self, ctx: &BuildContext) -> Result<u64> {
        Ok(seed(int_key(&self.params, "seed", u64::MAX)?, ctx))
    }

    /// The buffer the table declares (`limit` packets, `limit_bytes`), if any; the
    /// AQM decides its drops itself, so no limit means none is known.
    pub fn limit(&self) -> Result<Limit> {
        let packets = int_key(&self.params, "limit", u64::from(u32::MAX))?;
        let bytes = int_key(&self.params, "limit_bytes", u64::MAX)?;
        if packets.is_none() && bytes.is_none() {
            return Ok(Limit { packets: None, bytes: None });
        }
        Limit::new(packets, bytes)
    }

    /// The packet limit the table declares, if any.
    pub fn limit_packets(&self) -> Option<u64> {
        int_key(&self.params, "limit", u64::from(u32::MAX)).ok().flatten()
    }

    /// Build one instance.
    pub fn build(&self, ctx: &BuildContext) -> Result<Box<dyn super::ExternalAqm>> {
        let k = kind(self.kind).ok_or_else(|| unavailable(self.kind))?;
        k.build(self, ctx)
    }
}

/// As written: `type`, the target key, the parameters.
impl Serialize for ExternalConfig {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let key = kind(self.kind).map_or("target", |k| k.target_key());
        let mut m = s.serialize_map(Some(self.params.len() + 2))?;
        m.serialize_entry("type", self.kind)?;
        m.serialize_entry(key, &self.target)?;
        for (k, v) in &self.params {
            match v {
                Value::Bool(b) => m.serialize_entry(k, b)?,
                Value::Int(i) => m.serialize_entry(k, i)?,
                Value::UInt(u) => m.serialize_entry(k, u)?,
                Value::Float(x) => m.serialize_entry(k, x)?,
                Value::Str(t) => m.serialize_entry(k, t)?,
                Value::Null | Value::List | Value::Table => m.serialize_entry(k, &())?,
            }
        }
        m.end()
    }
}
