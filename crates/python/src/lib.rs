//! `aqmlab._native`: the PyO3 bindings. Conversions and error mapping only; no
//! algorithm lives here. Configuration crosses the boundary once, as data.

use pyo3::prelude::*;

mod aqm;
mod errors;
mod gateway;
mod parquet;
mod pyaqm;
mod pyjson;
mod records;
mod sim;
mod tree;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    aqm::register(m)?;
    sim::register(m)?;
    gateway::register(m)?;
    pyaqm::register(m)?;
    parquet::register(m)?;
    pyjson::register(m)?;
    Ok(())
}
