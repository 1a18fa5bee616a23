//! The one place where Rust errors become Python exceptions.

use pyo3::PyErr;
use pyo3::exceptions::{PyRuntimeError, PyValueError};

/// Configuration errors (bad parameter, unknown key) are `ValueError`s naming the field.
pub fn aqm_error(e: ::aqm::AqmError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A conversion failure (a configuration that cannot be shown to Python) is a `ValueError`.
pub fn config_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A panic caught at the boundary: a bug, reported instead of aborting the interpreter.
pub fn panic_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let msg = if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    };
    PyRuntimeError::new_err(format!("internal error in aqmlab (please report): {msg}"))
}

/// Run `f`, turning a Rust panic into a Python `RuntimeError`.
pub fn guard<T>(f: impl FnOnce() -> pyo3::PyResult<T>) -> pyo3::PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => Err(panic_error(p)),
    }
}

/// Read a queue configuration dict (with a `type` key) with the one reader of queue
/// tables (`aqm::config::parse_queue`); a failure is a `ValueError` whose message starts
/// with the offending key.
pub fn queue_config_from_python(
    obj: &pyo3::Bound<'_, pyo3::PyAny>,
) -> pyo3::PyResult<::aqm::QueueConfig> {
    use pyo3::types::PyDict;
    let Ok(dict) = obj.cast::<PyDict>() else {
        return Err(PyValueError::new_err("queue configuration must be a dict"));
    };
    let plain = plain_values(dict)?;
    let mut de = pythonize::Depythonizer::from_object(plain.as_any());
    ::aqm::config::parse_queue(&mut de, "").map_err(aqm_error)
}

/// The dict with each NumPy scalar (`np.int64(5)`, `np.bool_(True)`) replaced by its
/// Python value (`.item()`), so that parameters taken from NumPy arrays read as numbers.
fn plain_values<'py>(
    dict: &pyo3::Bound<'py, pyo3::types::PyDict>,
) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
    use pyo3::types::{
        PyAnyMethods, PyBool, PyDict, PyDictMethods, PyFloat, PyInt, PyList, PyString, PyTuple,
    };
    let out = PyDict::new(dict.py());
    for (k, v) in dict.iter() {
        let builtin = v.is_none()
            || v.is_instance_of::<PyBool>()
            || v.is_instance_of::<PyInt>()
            || v.is_instance_of::<PyFloat>()
            || v.is_instance_of::<PyString>()
            || v.is_instance_of::<PyList>()
            || v.is_instance_of::<PyTuple>()
            || v.is_instance_of::<PyDict>();
        let v = if !builtin && v.hasattr("item")? { v.call_method0("item")? } else { v };
        out.set_item(k, v)?;
    }
    Ok(out)
}
