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

pyo3::create_exception!(
    aqmlab._native,
    ExternalAqmError,
    PyRuntimeError,
    "An AQM from outside aqmlab (a Python class, a plugin) stopped the run: the message \
     names the AQM, the method, the simulated time and the flow."
);

/// A panic caught at the boundary: a bug, reported instead of aborting the interpreter;
/// or an external AQM that stopped the run (`aqm::external::Failure`), reported as a
/// `RuntimeError` with its message, the Python exception it raised as its cause.
pub fn panic_error(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    let payload = match payload.downcast::<::aqm::external::Failure>() {
        Ok(f) => {
            let err = ExternalAqmError::new_err(f.message);
            if let Some(cause) = f.cause.and_then(|c| c.downcast::<PyErr>().ok()) {
                pyo3::Python::attach(|py| err.set_cause(py, Some(*cause)));
            }
            return err;
        }
        Err(p) => p,
    };
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
    let mut walk = Walk { path: String::new(), root, stack: Vec::new() };
    walk.value(obj, 0)
}

/// What [`check_shape`] looks into: a value's kind decides how its children are found.
enum Shape<'py> {
    /// A number, string, bytes or anything else without children.
    Leaf,
    Dict(pyo3::Bound<'py, pyo3::types::PyDict>),
    /// Another mapping (read through `items()`).
    Mapping(pyo3::Bound<'py, pyo3::types::PyMapping>),
    /// A dataclass instance (its fields, by name).
    Dataclass,
    /// A list, tuple, set or other sequence (its items, by position).
    Items,
}

/// The kind of `obj` for [`check_shape`]; an integer beyond 64 bits is refused here.
fn shape<'py>(obj: &pyo3::Bound<'py, pyo3::PyAny>, at: &str) -> pyo3::PyResult<Shape<'py>> {
    use pyo3::types::{
        PyAnyMethods, PyByteArray, PyBytes, PyDict, PyFrozenSet, PyInt, PyList, PyMapping,
        PySequence, PySet, PyString, PyTuple,
    };
    if obj.is_instance_of::<PyString>()
        || obj.is_instance_of::<PyBytes>()
        || obj.is_instance_of::<PyByteArray>()
    {
        return Ok(Shape::Leaf);
    }
    if obj.is_instance_of::<PyInt>() && obj.extract::<i64>().is_err() {
        return Err(PyValueError::new_err(format!(
            "{at} = {obj} is invalid: allowed an integer in [-2^63, 2^63 - 1]"
        )));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return Ok(Shape::Dict(d.clone()));
    }
    if obj.is_instance_of::<PyList>()
        || obj.is_instance_of::<PyTuple>()
        || obj.is_instance_of::<PySet>()
        || obj.is_instance_of::<PyFrozenSet>()
    {
        return Ok(Shape::Items);
    }
    if let Ok(m) = obj.cast::<PyMapping>() {
        return Ok(Shape::Mapping(m.clone()));
    }
    if obj.cast::<PySequence>().is_ok() {
        return Ok(Shape::Items);
    }
    if obj.hasattr("__dataclass_fields__").unwrap_or(false) {
        return Ok(Shape::Dataclass);
    }
    Ok(Shape::Leaf)
}

/// The state of [`check_shape`]'s walk: where it is, and the containers it is inside.
struct Walk<'a> {
    /// The path of the value being looked at (`flow[0].start`), empty at the root.
    path: String,
    /// How the root is named in messages.
    root: &'a str,
    /// The addresses of the containers being walked through (a cycle returns to one).
    stack: Vec<usize>,
}

impl Walk<'_> {
    /// Where the walk is, as messages name it.
    fn at(&self) -> String {
        if self.path.is_empty() { self.root.to_string() } else { self.path.clone() }
    }

    /// Check `obj` at nesting `depth`, and everything inside it.
    fn value(&mut self, obj: &pyo3::Bound<'_, pyo3::PyAny>, depth: usize) -> pyo3::PyResult<()> {
        let kind = shape(obj, &self.at())?;
        if let Shape::Leaf = kind {
            return Ok(());
        }
        let id = obj.as_ptr() as usize;
        if self.stack.contains(&id) {
            return Err(PyValueError::new_err(format!(
                "{}: the value contains itself (a cycle); allowed: plain data (numbers, \
                 strings, booleans, lists and tables) without cycles",
                self.at()
            )));
        }
        if depth >= MAX_DEPTH {
            return Err(PyValueError::new_err(format!(
                "{}: nested deeper than {MAX_DEPTH} levels; allowed: at most {MAX_DEPTH} levels \
                 of lists and tables",
                self.at()
            )));
        }
        self.stack.push(id);
        self.children(obj, kind, depth + 1)?;
        self.stack.pop();
        Ok(())
    }

    /// Check the children of the container `obj` of kind `kind`, each at `depth`.
    fn children(
        &mut self,
        obj: &pyo3::Bound<'_, pyo3::PyAny>,
        kind: Shape<'_>,
        depth: usize,
    ) -> pyo3::PyResult<()> {
        use pyo3::types::{
            PyAnyMethods, PyDictMethods, PyListMethods, PyMappingMethods, PyString, PyTuple,
            PyTupleMethods,
        };
        let len = self.path.len();
        match kind {
            Shape::Leaf => {}
            Shape::Dict(d) => {
                for (k, v) in d.iter() {
                    self.key(&k)?;
                    self.value(&v, depth)?;
                    self.path.truncate(len);
                }
            }
            Shape::Mapping(m) => {
                for item in m.items()?.iter() {
                    let pair = item.cast::<PyTuple>()?;
                    self.key(&pair.get_item(0)?)?;
                    self.value(&pair.get_item(1)?, depth)?;
                    self.path.truncate(len);
                }
            }
            Shape::Dataclass => {
                let fields = obj.getattr("__dataclass_fields__")?;
                for name in fields.try_iter()? {
                    let name = name?;
                    self.key(&name)?;
                    self.value(&obj.getattr(name.cast::<PyString>()?)?, depth)?;
                    self.path.truncate(len);
                }
            }
            Shape::Items => {
                for (i, v) in obj.try_iter()?.enumerate() {
                    self.path.push_str(&format!("[{i}]"));
                    self.value(&v?, depth)?;
                    self.path.truncate(len);
                }
            }
        }
        Ok(())
    }

    /// Step into the key `k` of a table (a string, else a `ValueError`).
    fn key(&mut self, k: &pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<()> {
        use pyo3::types::{PyAnyMethods, PyString, PyStringMethods};
        match k.cast::<PyString>() {
            Ok(k) => {
                if !self.path.is_empty() {
                    self.path.push('.');
                }
                self.path.push_str(&::aqm::error::key(&k.to_cow()?));
                Ok(())
            }
            Err(_) => Err(PyValueError::new_err(format!(
                "{}: key {} is invalid: allowed string keys",
                self.at(),
                k.repr().map_or_else(|_| "?".to_string(), |r| r.to_string())
            ))),
        }
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
