//! The crate's one error type.

use std::fmt;

/// Why a scenario could not be built or run.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    /// The scenario is invalid. The message starts with the path of the offending
    /// field (`link[2].queue_ab.min_th`, `flow[3].src`) and says what is allowed.
    /// Nothing has run; the caller must fix the scenario.
    Scenario(String),
    /// A trace file could not be created or written. The run stopped there and the
    /// traces written so far are incomplete; the caller should not go on with this
    /// simulation but run the scenario again into a directory that can be written.
    Io(String),
    /// The run was stopped by one of its guards: events kept coming at one instant
    /// without the clock moving (no progress), or the packets the simulator holds
    /// outgrew the scenario's memory budget (`max_memory`). The message names the
    /// culprit (the event kind and the flow or link, or the busiest queue). The
    /// simulation cannot go on; the caller must change the scenario.
    Stopped(String),
}

impl SimError {
    /// An invalid scenario: `path: msg` (`flow[0]: no route from a to d`).
    pub fn at(path: &str, msg: impl fmt::Display) -> SimError {
        SimError::Scenario(format!("{path}: {msg}"))
    }
    /// A value out of its range: `path = value is invalid: allowed ...`.
    pub fn invalid(path: &str, value: impl fmt::Display, allowed: impl fmt::Display) -> SimError {
        SimError::Scenario(format!("{path} = {value} is invalid: allowed {allowed}"))
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::Scenario(m) => f.write_str(m),
            SimError::Io(m) => write!(f, "trace output: {m}"),
            SimError::Stopped(m) => write!(f, "run stopped: {m}"),
        }
    }
}

impl std::error::Error for SimError {}

/// A queue configuration error (its message already names the path) is a scenario error.
impl From<aqm::AqmError> for SimError {
    fn from(e: aqm::AqmError) -> Self {
        SimError::Scenario(e.to_string())
    }
}

impl From<std::io::Error> for SimError {
    fn from(e: std::io::Error) -> Self {
        SimError::Io(e.to_string())
    }
}

pub type Result<T> = std::result::Result<T, SimError>;
