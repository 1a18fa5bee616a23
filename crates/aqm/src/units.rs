//! Quantities in configurations: a plain number in SI units (seconds, bits per
//! second, bytes), or a string carrying its unit ("15Mbps", "20ms", "1500B").

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

fn split(s: &str) -> (f64, String) {
    let s = s.trim();
    let idx = s
        .char_indices()
        .find(|&(i, c)| {
            !(c.is_ascii_digit()
                || c == '.'
                || c == '-'
                || c == '+'
                || ((c == 'e' || c == 'E')
                    && i > 0
                    && s[i + 1..]
                        .starts_with(|d: char| d.is_ascii_digit() || d == '-' || d == '+')))
        })
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    let num = s[..idx].trim().parse::<f64>().unwrap_or(f64::NAN);
    (num, s[idx..].trim().to_string())
}

impl Quantity {
    fn convert(&self, param: &str, kind: &str, table: &[(&str, f64)], hint: &str) -> Result<f64> {
        match self {
            Quantity::Number(v) => Ok(*v),
            Quantity::Text(s) => {
                let (num, unit) = split(s);
                let factor = table.iter().find(|(u, _)| *u == unit).map(|(_, f)| *f);
                match factor {
                    Some(f) if num.is_finite() => Ok(num * f),
                    _ => Err(AqmError::invalid(
                        param,
                        format!("{s:?}"),
                        format!("a {kind}: a number or a string such as {hint}"),
                    )),
                }
            }
        }
    }
    /// Seconds: "s", "ms", "us", "ns", "min" (no unit = seconds).
    pub fn secs(&self, param: &str) -> Result<f64> {
        self.convert(
            param,
            "time",
            &[("", 1.0), ("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9), ("min", 60.0)],
            "\"20ms\"",
        )
    }
    /// Bits per second: "bps", "kbps"/"Kbps", "Mbps", "Gbps", "Tbps" (no unit = b/s).
    pub fn bps(&self, param: &str) -> Result<f64> {
        self.convert(
            param,
            "rate",
            &[
                ("", 1.0),
                ("bps", 1.0),
                ("kbps", 1e3),
                ("Kbps", 1e3),
                ("Mbps", 1e6),
                ("Gbps", 1e9),
                ("Tbps", 1e12),
                ("kb/s", 1e3),
                ("Mb/s", 1e6),
                ("Gb/s", 1e9),
            ],
            "\"15Mbps\"",
        )
    }
    /// Bytes: "B", "KB", "kB", "MB", "KiB", "MiB" (no unit = bytes).
    pub fn bytes(&self, param: &str) -> Result<f64> {
        self.convert(
            param,
            "size",
            &[
                ("", 1.0),
                ("B", 1.0),
                ("KB", 1e3),
                ("kB", 1e3),
                ("MB", 1e6),
                ("KiB", 1024.0),
                ("MiB", 1048576.0),
            ],
            "\"1500B\"",
        )
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
