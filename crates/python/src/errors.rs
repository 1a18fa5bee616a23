//! The one place where Rust errors become Python exceptions.

use pyo3::PyErr;
use pyo3::exceptions::{PyRuntimeError, PyValueError};

/// Configuration errors (bad parameter, unknown key) are `ValueError`s naming the field.
pub fn aqm_error(e: ::aqm::AqmError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A deserialization failure (unknown field, wrong type) is a `ValueError`.
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

/// Deserialize a queue configuration dict (with a `type` key); a failure is a
/// `ValueError` whose message starts with the offending field.
pub fn queue_config_from_python(
    obj: &pyo3::Bound<'_, pyo3::PyAny>,
) -> pyo3::PyResult<::aqm::QueueConfig> {
    use pyo3::types::{PyAnyMethods, PyDict, PyDictMethods};
    let dict = obj
        .cast::<PyDict>()
        .map_err(|_| PyValueError::new_err("queue configuration must be a dict"))?
        .copy()?;
    let kind: String = match dict.get_item("type")? {
        Some(k) => k.extract().map_err(|_| PyValueError::new_err("type: must be a string"))?,
        None => {
            return Err(PyValueError::new_err(format!(
                "type: missing; allowed {}",
                ::aqm::config::QUEUE_TYPES.join(", ")
            )));
        }
    };
    dict.del_item("type")?;
    let mut track = serde_path_to_error::Track::new();
    let mut de = pythonize::Depythonizer::from_object(dict.as_any());
    let tracked = serde_path_to_error::Deserializer::new(&mut de, &mut track);
    ::aqm::QueueConfig::deserialize_kind(&kind, tracked).map_err(|e| {
        let path = track.path().to_string();
        if path.is_empty() || path == "." {
            config_error(e)
        } else {
            PyValueError::new_err(format!("{path}: {e}"))
        }
    })
}
