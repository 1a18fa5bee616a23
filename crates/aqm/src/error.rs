//! The crate's one error type.

use std::fmt;

/// A configuration error. Raised only by constructors and configuration loading,
/// never on the packet path: once built, a discipline cannot fail. Either way the
/// caller cannot go on with this configuration: it must fix the field the error names
/// (nothing was built, no state changed, so it may try again with a corrected one).
#[derive(Clone, Debug, PartialEq)]
pub enum AqmError {
    /// A parameter is outside its allowed range (`min_th >= max_th`, `w_q = 0`, a
    /// string that is not a quantity of the parameter's dimension).
    InvalidParam {
        /// Parameter name as in the papers and the configuration (`min_th`, `w_q`, ...),
        /// prefixed by the path of the table it is in when known (`link[2].queue_ab.w_q`).
        param: String,
        /// The value given, printed.
        value: String,
        /// What is allowed, in words (e.g. `"(0, 1]"`, `"> min_th"`).
        allowed: String,
    },
    /// A configuration that cannot be read as written: a key that is not a parameter
    /// of the discipline, a value of the wrong type, a missing `type`, a table that is
    /// not a table.
    Config {
        /// The key at fault (`link[0].queue.min_tj`, `type`), or empty when the whole
        /// configuration is meant.
        path: String,
        /// What is wrong and what is allowed.
        message: String,
    },
}

impl AqmError {
    pub fn invalid(param: &str, value: impl fmt::Display, allowed: impl Into<String>) -> Self {
        AqmError::InvalidParam {
            param: param.to_string(),
            value: value.to_string(),
            allowed: allowed.into(),
        }
    }
    /// A configuration that cannot be read, at `path` (see [`AqmError::Config`]).
    pub fn config(path: &str, message: impl fmt::Display) -> Self {
        AqmError::Config { path: path.to_string(), message: message.to_string() }
    }
    /// The parameter (or key) this error is about, if any.
    pub fn param(&self) -> Option<&str> {
        match self {
            AqmError::InvalidParam { param, .. } => Some(param),
            AqmError::Config { path, .. } => (!path.is_empty()).then_some(path.as_str()),
        }
    }
    /// The same error with its parameter or key prefixed by a path (`link[2].queue_ab`).
    pub fn at(self, path: &str) -> Self {
        match self {
            AqmError::InvalidParam { param, value, allowed } => {
                AqmError::InvalidParam { param: join(path, &param), value, allowed }
            }
            AqmError::Config { path: inner, message } => {
                AqmError::Config { path: join(path, &inner), message }
            }
        }
    }
}

/// A key as a path shows it: bare when it is a plain name (ASCII letters, digits, `_`
/// and `-`), else quoted as TOML would quote it (`link[0]."rate "`, `""`).
pub fn key(k: &str) -> String {
    if !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
        k.to_string()
    } else {
        format!("{k:?}")
    }
}

/// `outer.inner` (or `outer[i]` when `inner` is an index), either side possibly empty.
pub fn join(outer: &str, inner: &str) -> String {
    if outer.is_empty() {
        inner.to_string()
    } else if inner.is_empty() {
        outer.to_string()
    } else if inner.starts_with('[') {
        format!("{outer}{inner}")
    } else {
        format!("{outer}.{inner}")
    }
}

impl fmt::Display for AqmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AqmError::InvalidParam { param, value, allowed } => {
                write!(f, "{param} = {value} is invalid: allowed {allowed}")
            }
            AqmError::Config { path, message } if path.is_empty() => f.write_str(message),
            AqmError::Config { path, message } => write!(f, "{path}: {message}"),
        }
    }
}

impl std::error::Error for AqmError {}

/// Reading a configuration table through serde: a failure is an [`AqmError::Config`]
/// of the whole value, which the reader then places at its key.
impl serde::de::Error for AqmError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        AqmError::config("", msg)
    }
}

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
