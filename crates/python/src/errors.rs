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

/// The deepest nesting of lists and tables accepted from Python. A scenario needs
/// four levels (`flow[0].start.uniform[1]`); anything deeper is refused before it is
/// read, so that no reader recurses without bound.
pub const MAX_DEPTH: usize = 32;

/// Refuse a Python value that contains itself (a cycle) or nests deeper than
/// [`MAX_DEPTH`], or holds a key that is not a string or an integer beyond 64 bits,
/// with a `ValueError` naming where (`flow[0].start`, or `root` for the value itself).
pub fn check_shape(obj: &pyo3::Bound<'_, pyo3::PyAny>, root: &str) -> pyo3::PyResult<()> {
    let mut stack = Vec::new();
    walk(obj, &mut String::new(), root, 0, &mut stack)
}

fn walk(
    obj: &pyo3::Bound<'_, pyo3::PyAny>,
    path: &mut String,
    root: &str,
    depth: usize,
    stack: &mut Vec<usize>,
) -> pyo3::PyResult<()> {
    use pyo3::types::{
        PyAnyMethods, PyByteArray, PyBytes, PyDict, PyDictMethods, PyFrozenSet, PyInt, PyList,
        PyListMethods, PyMapping, PyMappingMethods, PySequence, PySet, PyString, PyStringMethods,
        PyTuple, PyTupleMethods,
    };
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
    {
        return Ok(());
    }
    let at = if path.is_empty() { root.to_string() } else { path.clone() };
    if obj.is_instance_of::<PyInt>() && obj.extract::<i64>().is_err() {
        return Err(PyValueError::new_err(format!(
            "{at} = {obj} is invalid: allowed an integer in [-2^63, 2^63 - 1]"
        )));
    }
    let dict = obj.cast::<PyDict>().ok();
    let listlike = obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.is_instance_of::<PySet>()
        || obj.is_instance_of::<PyFrozenSet>();
    let mapping = if dict.is_none() && !listlike { obj.cast::<PyMapping>().ok() } else { None };
    let sequence =
        dict.is_none() && mapping.is_none() && !listlike && obj.cast::<PySequence>().is_ok();
    let dataclass = !listlike
        && dict.is_none()
        && mapping.is_none()
        && !sequence
        && obj.hasattr("__dataclass_fields__").unwrap_or(false);
    if dict.is_none() && mapping.is_none() && !listlike && !sequence && !dataclass {
        return Ok(());
    }
    let id = obj.as_ptr() as usize;
    if stack.contains(&id) {
        return Err(PyValueError::new_err(format!(
            "{at}: the value contains itself (a cycle); allowed: plain data (numbers, \
             strings, booleans, lists and tables) without cycles"
        )));
    }
    if depth >= MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{at}: nested deeper than {MAX_DEPTH} levels; allowed: at most {MAX_DEPTH} levels \
             of lists and tables"
        )));
    }
    stack.push(id);
    let len = path.len();
    let key = |path: &mut String, k: &pyo3::Bound<'_, pyo3::PyAny>| -> pyo3::PyResult<()> {
        match k.cast::<PyString>() {
            Ok(k) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(&k.to_cow()?);
                Ok(())
            }
            Err(_) => Err(PyValueError::new_err(format!(
                "{}: key {} is invalid: allowed string keys",
                if path.is_empty() { root } else { path.as_str() },
                k.repr().map_or_else(|_| "?".to_string(), |r| r.to_string())
            ))),
        }
    };
    if let Some(d) = dict {
        for (k, v) in d.iter() {
            key(path, &k)?;
            walk(&v, path, root, depth + 1, stack)?;
            path.truncate(len);
        }
    } else if let Some(m) = mapping {
        for item in m.items()?.iter() {
            let pair = item.cast::<PyTuple>()?;
            key(path, &pair.get_item(0)?)?;
            walk(&pair.get_item(1)?, path, root, depth + 1, stack)?;
            path.truncate(len);
        }
    } else if dataclass {
        let fields = obj.getattr("__dataclass_fields__")?;
        for name in fields.try_iter()? {
            let name = name?;
            key(path, &name)?;
            walk(&obj.getattr(name.cast::<PyString>()?)?, path, root, depth + 1, stack)?;
            path.truncate(len);
        }
    } else {
        for (i, v) in obj.try_iter()?.enumerate() {
            path.push_str(&format!("[{i}]"));
            walk(&v?, path, root, depth + 1, stack)?;
            path.truncate(len);
        }
    }
    stack.pop();
    Ok(())
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
    check_shape(obj, "queue")?;
    let plain = plain_values(dict)?;
    guard(|| {
        let mut de = pythonize::Depythonizer::from_object(plain.as_any());
        ::aqm::config::parse_queue(&mut de, "").map_err(aqm_error)
    })
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
