//! Reading values with their path: serde errors placed at the offending field, and
//! the checks of the quantities a scenario holds (times, rates, sizes, integers),
//! each error naming the field and what is allowed.

use aqm::Time;
use aqm::units::Quantity;
use serde::de::DeserializeOwned;
use toml::Value;

use super::{MAX_SECS, MAX_TIME_NS};
use crate::error::{Result, SimError};

/// `outer.inner`, `outer[i]`, or either alone when the other is empty.
pub(super) fn join(outer: &str, inner: &str) -> String {
    aqm::error::join(outer, if inner == "." { "" } else { inner })
}

/// Deserialize `v` as `T`; an error names `path` plus the path inside `v`, and an
/// unknown key is named in the path itself (`link[0].foo: unknown field ...`).
pub(super) fn de<T: DeserializeOwned>(v: &Value, path: &str) -> Result<T> {
    let mut track = serde_path_to_error::Track::new();
    let r = T::deserialize(serde_path_to_error::Deserializer::new(v.clone(), &mut track));
    r.map_err(|e| {
        let mut p = join(path, &track.path().to_string());
        // (the message alone: the path says where, better than TOML's "in `key`")
        let msg = e.message().to_string();
        if let Some(rest) = msg.strip_prefix("unknown field `")
            && let Some(k) = rest.split('`').next()
            && p != k
            && !p.ends_with(&format!(".{k}"))
        {
            p = join(&p, k);
        }
        SimError::at(&p, msg)
    })
}

/// Seconds, in [0, MAX_SECS].
pub(super) fn secs(q: &Quantity, path: &str) -> Result<f64> {
    let v = q.secs(path)?;
    if v.is_finite() && (0.0..=MAX_SECS).contains(&v) {
        Ok(v)
    } else {
        let allowed = format!(
            "a time in [0, {MAX_SECS:.6e}] s (seconds, or a string such as \"20ms\"; \
             the clock counts nanoseconds up to {MAX_TIME_NS})"
        );
        Err(SimError::invalid(path, v, allowed))
    }
}

/// Seconds, at least the clock's resolution once rounded (1 ns) and at most MAX_SECS:
/// a span that must not be zero (a duration, an interval, a timer).
pub(super) fn pos_secs(q: &Quantity, path: &str) -> Result<f64> {
    let v = secs(q, path)?;
    if ticks(v) >= 1 {
        Ok(v)
    } else {
        Err(SimError::invalid(path, v, format!("a time in [1e-9, {MAX_SECS:.6e}] s ({SPACING})")))
    }
}

/// Nanoseconds of the clock that `s` seconds round to.
pub(super) fn ticks(s: f64) -> u64 {
    Time::from_secs_f64(s).0
}

/// Why a span must be 1 ns or more, for error messages.
pub(super) const SPACING: &str = "the clock counts whole nanoseconds: a shorter span rounds to zero and the event repeats at one instant";

/// Bits per second, > 0.
pub(super) fn rate(q: &Quantity, path: &str) -> Result<f64> {
    let v = q.bps(path)?;
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(SimError::invalid(path, v, "a rate > 0 (b/s, or a string such as \"15Mbps\")"))
    }
}

/// A packet size: whole bytes in [1, 65535].
pub(super) fn bytes(q: &Quantity, path: &str) -> Result<u32> {
    let v = q.bytes(path)?;
    if (1.0..=65535.0).contains(&v) && v.fract() == 0.0 {
        Ok(v as u32)
    } else {
        Err(SimError::invalid(path, v, "a whole number of bytes in [1, 65535]"))
    }
}

/// A whole number of bytes >= 1 (a memory size: "16GB", 2e9).
pub(super) fn whole_bytes(q: &Quantity, path: &str) -> Result<u64> {
    let v = q.bytes(path)?;
    if v.is_finite() && v >= 1.0 && v < u64::MAX as f64 {
        Ok(v.round() as u64)
    } else {
        Err(SimError::invalid(path, v, "a number of bytes >= 1 (e.g. \"16GB\")"))
    }
}

/// An integer in [lo, hi].
pub(super) fn int_in(v: i64, path: &str, lo: i64, hi: i64) -> Result<i64> {
    if v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(SimError::invalid(path, v, format!("an integer in [{lo}, {hi}]")))
    }
}

/// A finite number `> lo` (`strict`) or `>= lo`.
pub(super) fn above(v: f64, lo: f64, strict: bool, path: &str, allowed: &str) -> Result<f64> {
    let ok = v.is_finite() && if strict { v > lo } else { v >= lo };
    if ok { Ok(v) } else { Err(SimError::invalid(path, v, allowed)) }
}
