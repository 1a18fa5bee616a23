//! The one unit grammar of aqmlab: a plain number in SI units (seconds, bits per
//! second, bytes), or a string carrying its unit ("15Mbps", "20ms", "1500B").
//! Scenario files, queue tables, the gateway's flags and the Python front end
//! (`aqmlab.units`, through the bindings) all read quantities here.
//!
//! A string is a decimal number (`[+-]digits[.digits][e[+-]digits]`), optional
//! white space, and a unit of the quantity's dimension:
//!
//! | dimension | units (factor) |
//! |---|---|
//! | time | none or `s` (1), `ms`, `us` or `µs`, `ns`, `min` (60) |
//! | rate | a prefix `k`/`K`, `M`, `G`, `T` (decimal) or none, then `bps`, `b/s`, `bit/s`, `bits/s`, `bit` or nothing (bits), or `Bps`, `B/s` (bytes: x 8) |
//! | size | a prefix `k`/`K`, `M`, `G` (decimal), `Ki`, `Mi`, `Gi` (binary) or none, then `B`, `byte`, `bytes` or nothing |
//!
//! So "10G", "10Gbps", "10 Gb/s" and "1.25GBps" are all 10^10 b/s. The grammar says
//! nothing of sign or range: each field checks its own (a delay >= 0, a rate > 0) and
//! names itself in the error.

use serde::{Deserialize, Serialize};

use crate::error::{AqmError, Result};

/// A number, or a string with a unit, as written in a configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Quantity {
    Number(f64),
    Text(String),
}

impl From<f64> for Quantity {
    fn from(v: f64) -> Self {
        Quantity::Number(v)
    }
}

/// What a quantity measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dimension {
    /// Seconds.
    Time,
    /// Bits per second.
    Rate,
    /// Bytes.
    Size,
}

impl Dimension {
    /// The dimension named `time`, `rate` or `size`.
    pub fn from_name(name: &str) -> Option<Dimension> {
        match name {
            "time" => Some(Dimension::Time),
            "rate" => Some(Dimension::Rate),
            "size" => Some(Dimension::Size),
            _ => None,
        }
    }
    fn name(self) -> &'static str {
        match self {
            Dimension::Time => "time",
            Dimension::Rate => "rate",
            Dimension::Size => "size",
        }
    }
    fn example(self) -> &'static str {
        match self {
            Dimension::Time => "\"20ms\"",
            Dimension::Rate => "\"15Mbps\"",
            Dimension::Size => "\"1500B\"",
        }
    }
    /// The factor of `unit` to the dimension's SI unit, if it is one of its units.
    fn factor(self, unit: &str) -> Option<f64> {
        match self {
            Dimension::Time => match unit {
                "" | "s" => Some(1.0),
                "ms" => Some(1e-3),
                "us" | "µs" => Some(1e-6),
                "ns" => Some(1e-9),
                "min" => Some(60.0),
                _ => None,
            },
            Dimension::Rate => {
                let (prefix, rest) = split_prefix(unit, &[]);
                let bits = match rest {
                    "" | "bps" | "b/s" | "bit/s" | "bits/s" | "bit" => 1.0,
                    "Bps" | "B/s" => 8.0,
                    _ => return None,
                };
                Some(decimal(prefix)? * bits)
            }
            Dimension::Size => {
                let (prefix, rest) = split_prefix(unit, &["Ki", "Mi", "Gi"]);
                match rest {
                    "" | "B" | "byte" | "bytes" => {}
                    _ => return None,
                }
                match prefix {
                    "Ki" => Some(1024.0),
                    "Mi" => Some(1048576.0),
                    "Gi" => Some(1073741824.0),
                    p => decimal(p),
                }
            }
        }
    }
}

/// A decimal prefix's factor ("" = 1).
fn decimal(prefix: &str) -> Option<f64> {
    match prefix {
        "" => Some(1.0),
        "k" | "K" => Some(1e3),
        "M" => Some(1e6),
        "G" => Some(1e9),
        "T" => Some(1e12),
        _ => None,
    }
}

/// `unit` split into a prefix (one of `binary`, or one decimal prefix letter) and the
/// rest.
fn split_prefix<'a>(unit: &'a str, binary: &[&str]) -> (&'a str, &'a str) {
    if let Some(b) = binary.iter().find(|b| unit.starts_with(**b)) {
        return unit.split_at(b.len());
    }
    match unit.chars().next() {
        Some('k' | 'K' | 'M' | 'G' | 'T') => unit.split_at(1),
        _ => ("", unit),
    }
}

/// The length of the decimal number at the start of `s`
/// (`[+-]digits[.digits][e[+-]digits]`, at least one digit), if there is one.
fn number_len(s: &str) -> Option<usize> {
    let b = s.as_bytes();
    let mut i = 0;
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    let mut n = digits(&mut i);
    if b.get(i) == Some(&b'.') {
        i += 1;
        n += digits(&mut i);
    }
    if n == 0 {
        return None;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digits(&mut j) > 0 {
            i = j;
        }
    }
    Some(i)
}

/// The value of `text` in the SI unit of `dim`, or `None` if it is not a number
/// followed by one of the dimension's units.
pub fn parse(text: &str, dim: Dimension) -> Option<f64> {
    let s = text.trim();
    let n = number_len(s)?;
    let num: f64 = s[..n].parse().ok()?;
    let factor = dim.factor(s[n..].trim_start())?;
    // (a prefix and a byte factor multiply in that order: "1.25GBps" = 1.25 * 1e9 * 8)
    let v = num * factor;
    v.is_finite().then_some(v)
}

impl Quantity {
    /// The value in the SI unit of `dim`; an error naming `param` if a string does not
    /// parse. Numbers pass through unchecked (each field checks its own range).
    pub fn value(&self, param: &str, dim: Dimension) -> Result<f64> {
        match self {
            Quantity::Number(v) => Ok(*v),
            Quantity::Text(s) => parse(s, dim).ok_or_else(|| {
                AqmError::invalid(
                    param,
                    format!("{s:?}"),
                    format!("a {}: a number or a string such as {}", dim.name(), dim.example()),
                )
            }),
        }
    }
    /// Seconds: "s", "ms", "us"/"µs", "ns", "min" (no unit = seconds).
    pub fn secs(&self, param: &str) -> Result<f64> {
        self.value(param, Dimension::Time)
    }
    /// Bits per second: "bps", "kbps", "Mb/s", "10G", "1.25GBps" ... (no unit = b/s).
    pub fn bps(&self, param: &str) -> Result<f64> {
        self.value(param, Dimension::Rate)
    }
    /// Bytes: "B", "kB", "MB", "KiB", "MiB" ... (no unit = bytes).
    pub fn bytes(&self, param: &str) -> Result<f64> {
        self.value(param, Dimension::Size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_units() {
        assert_eq!(Quantity::Text("15Mbps".into()).bps("rate").unwrap(), 15e6);
        assert_eq!(Quantity::Text("20ms".into()).secs("delay").unwrap(), 0.02);
        assert_eq!(Quantity::Text("1500B".into()).bytes("size").unwrap(), 1500.0);
        assert_eq!(Quantity::Text("1e-3 s".into()).secs("t").unwrap(), 1e-3);
        assert_eq!(Quantity::Number(3.0).secs("t").unwrap(), 3.0);
    }

    #[test]
    fn bad_unit_names_the_field() {
        let e = Quantity::Text("15 parsecs".into()).bps("link[0].rate").unwrap_err();
        assert_eq!(e.param(), Some("link[0].rate"));
        assert!(e.to_string().contains("15Mbps"));
    }
}
