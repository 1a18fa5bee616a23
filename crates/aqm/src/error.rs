//! The crate's one error type.

use std::fmt;

/// A configuration error. Raised only by constructors and configuration loading,
/// never on the packet path: once built, a discipline cannot fail.
/// The caller cannot go on with this configuration; it must fix the named parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum AqmError {
    /// A parameter is outside its allowed range.
    InvalidParam {
        /// Parameter name as in the papers and the configuration (`min_th`, `w_q`, ...).
        param: String,
        /// The value given, printed.
        value: String,
        /// What is allowed, in words (e.g. `"(0, 1]"`, `"> min_th"`).
        allowed: String,
    },
    /// A parameter that is not known for this discipline, or a malformed configuration.
    Config(String),
}

impl AqmError {
    pub fn invalid(param: &str, value: impl fmt::Display, allowed: impl Into<String>) -> Self {
        AqmError::InvalidParam {
            param: param.to_string(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
    /// The parameter this error is about, if any.
    pub fn param(&self) -> Option<&str> {
        match self {
            AqmError::InvalidParam { param, .. } => Some(param),
            AqmError::Config(_) => None,
        }
    }
    /// The same error with the parameter name prefixed by a path (e.g. `link[2].queue_ab`).
    pub fn at(self, path: &str) -> Self {
        match self {
            AqmError::InvalidParam { param, value, allowed } => {
                AqmError::InvalidParam { param: format!("{path}.{param}"), value, allowed }
            }
            AqmError::Config(m) => AqmError::Config(format!("{path}: {m}")),
        }
    }
}

impl fmt::Display for AqmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AqmError::InvalidParam { param, value, allowed } => {
                write!(f, "{param} = {value} is invalid: allowed {allowed}")
            }
            AqmError::Config(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for AqmError {}

pub type Result<T> = std::result::Result<T, AqmError>;

/// Parameter checks shared by every constructor.
pub(crate) mod check {
    use super::{AqmError, Result};

    pub fn finite(param: &str, v: f64) -> Result<f64> {
        if v.is_finite() { Ok(v) } else { Err(AqmError::invalid(param, v, "a finite number")) }
    }
    /// 0 < v <= 1
    pub fn unit_open_closed(param: &str, v: f64) -> Result<f64> {
        if v > 0.0 && v <= 1.0 { Ok(v) } else { Err(AqmError::invalid(param, v, "(0, 1]")) }
    }
    /// 0 <= v
    pub fn non_negative(param: &str, v: f64) -> Result<f64> {
        if v >= 0.0 && v.is_finite() { Ok(v) } else { Err(AqmError::invalid(param, v, ">= 0")) }
    }
    /// 0 < v
    pub fn positive(param: &str, v: f64) -> Result<f64> {
        if v > 0.0 && v.is_finite() { Ok(v) } else { Err(AqmError::invalid(param, v, "> 0")) }
    }
    /// 1 <= v
    pub fn positive_int(param: &str, v: u64) -> Result<u64> {
        if v >= 1 { Ok(v) } else { Err(AqmError::invalid(param, v, ">= 1")) }
    }
    pub fn thresholds(min_th: f64, max_th: f64) -> Result<()> {
        non_negative("min_th", min_th)?;
        positive("max_th", max_th)?;
        if min_th < max_th {
            Ok(())
        } else {
            Err(AqmError::invalid("min_th", min_th, format!("< max_th ({max_th})")))
        }
    }
}
