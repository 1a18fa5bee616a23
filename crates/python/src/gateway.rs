//! The gateway (crates/gateway) linked into the extension module, so that an installed
//! package carries it: `aqmlab-gateway` (a console script) and `python -m
//! aqmlab.gateway` call [`gateway_main`] in a process of their own.

use pyo3::prelude::*;

/// Run `aqmlab-gateway` with these arguments (the first is the program's name) in this
/// process, without the GIL, and return its exit status. It installs its own SIGINT and
/// SIGTERM handlers: call it only from a process that exists to run the gateway.
#[pyfunction]
fn gateway_main(py: Python<'_>, argv: Vec<String>) -> u8 {
    py.detach(|| gateway::cli::main_from(argv))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(gateway_main, m)?)?;
    Ok(())
}
