//! Bindings of the simulator (crates/sim).

use pyo3::prelude::*;

/// Add the simulator's classes and functions to `aqmlab._native`.
pub fn register(_m: &Bound<'_, PyModule>) -> PyResult<()> {
    Ok(())
}
