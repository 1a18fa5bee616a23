//! Python data as JSON text, byte for byte what `json.dumps(obj, indent=2)` writes
//! (Python's encoder runs in pure Python when it indents: a run's summary.json took it
//! about 40 ms).
//!
//! The layout of Python's `json` module with `indent=2` (its `_make_iterencode`): a
//! container's items one per line, indented two spaces a level, `,` between items and
//! `": "` after a key, `[]` and `{}` for empty ones, no newline at the end. Strings as
//! with `ensure_ascii=True` (`py_encode_basestring_ascii`): `"` and `\` escaped, `\b \f
//! \n \r \t` by name, every other character outside `' '..'~'` as `\uXXXX` (lower-case
//! hex; a surrogate pair beyond the basic plane). Numbers: an int's `repr`, a float's
//! `float.__repr__` (see [`push_float_repr`]), `NaN`, `Infinity`, `-Infinity`.
//!
//! Only str, int (64 bits), float, bool, None, list, tuple and dict (keys str or int)
//! are taken, nested at most [`MAX_DEPTH`] levels; anything else is a `TypeError`, for
//! the caller to hand the object to Python's `json` (whose own errors and extensions
//! then apply).

use std::fmt::Write;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::tree::Tree;

/// Containers nested deeper than this are left to Python (its encoder also detects
/// a container that holds itself).
pub const MAX_DEPTH: usize = 64;

/// `x` as `float.__repr__` writes it (the `'r'` format: the shortest digits that read
/// back as `x`): fixed notation with at least one digit after the point where the
/// decimal exponent `e` (`x = d.ddd x 10^e`) is in `-4..16`, else `d.ddde+XX` with a
/// sign and at least two exponent digits (CPython's `format_float_short`), appended to
/// `out`. Finite `x`; `scratch` is a buffer to reuse.
fn push_float_repr(out: &mut String, x: f64, scratch: &mut String) {
    // (zmij gives the shortest round-trip digits, the closest where several are as
    // short, as Python's repr does: "1.2345e-5", "0.001", "544431068535091.6", "0.0")
    let mut buf = zmij::Buffer::new();
    let (digits, exp) = shortest_digits(buf.format_finite(x.abs()), scratch);
    let (first, rest) = digits.split_at(1);
    if x.is_sign_negative() {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        if point <= 0 {
            out.push_str("0.");
            (0..-point).for_each(|_| out.push('0'));
            out.push_str(first);
            out.push_str(rest);
        } else {
            // (`first` is one digit: `point - 1` more go before the point)
            let before = (point - 1) as usize;
            out.push_str(first);
            if rest.len() <= before {
                out.push_str(rest);
                (rest.len()..before).for_each(|_| out.push('0'));
                out.push_str(".0");
            } else {
                out.push_str(&rest[..before]);
                out.push('.');
                out.push_str(&rest[before..]);
            }
        }
    } else {
        out.push_str(first);
        if !rest.is_empty() {
            out.push('.');
            out.push_str(rest);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        if exp.abs() < 10 {
            out.push('0');
        }
        out.push_str(itoa::Buffer::new().format(exp.abs()));
    }
}

/// The significant digits of a non-negative number written in fixed (`"0.00125"`,
/// `"1250.0"`) or exponent notation (`"1.25e-8"`, `"1e+16"`), without leading or
/// trailing zeros (`"0"` for zero), and the decimal exponent of the first digit:
/// `("125", -3)`, `("125", 3)`, `("125", -8)`, `("1", 16)`. `scratch` holds the digits.
fn shortest_digits<'s>(text: &str, scratch: &'s mut String) -> (&'s str, i32) {
    scratch.clear();
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.trim_start_matches('+').parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let int = int.trim_start_matches('0');
    let exp = if int.is_empty() {
        // 0.000ddd: the first digit is `zeros + 1` places after the point
        let zeros = frac.len() - frac.trim_start_matches('0').len();
        scratch.push_str(&frac[zeros..]);
        exp - zeros as i32 - 1
    } else {
        scratch.push_str(int);
        scratch.push_str(frac);
        exp + int.len() as i32 - 1
    };
    let kept = scratch.trim_end_matches('0').len();
    scratch.truncate(kept);
    if scratch.is_empty() {
        scratch.push('0');
        return (scratch, 0);
    }
    (scratch, exp)
}

/// A float as Python's `json` writes it.
fn push_float(out: &mut String, x: f64, scratch: &mut String) {
    if x.is_nan() {
        out.push_str("NaN");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        push_float_repr(out, x, scratch);
    }
}

/// `s` as a JSON string with `ensure_ascii` (see the module's documentation).
fn push_string(out: &mut String, s: &str) {
    out.push('"');
    if s.bytes().all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{u:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// A newline and the indentation of `depth` levels.
fn newline(out: &mut String, depth: usize) {
    // (a newline and 16 levels' spaces, sliced: one copy for the usual depths)
    const LINE: &str = "\n                                ";
    match LINE.get(..1 + 2 * depth) {
        Some(line) => out.push_str(line),
        None => {
            out.push_str(LINE);
            (16..depth).for_each(|_| out.push_str("  "));
        }
    }
}

fn unsupported(obj: &Bound<'_, PyAny>) -> PyErr {
    let name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("json_dumps: a {name} is not taken here"))
}

/// An int as its decimal digits (64 bits; larger ones are left to Python).
fn int_text(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(v.to_string());
    }
    obj.extract::<u64>().map(|v| v.to_string()).map_err(|_| unsupported(obj))
}

/// A dict's key: a str, or an int written as its digits (as Python's `json` does).
fn push_key(out: &mut String, key: &Bound<'_, PyAny>) -> PyResult<()> {
    if let Ok(s) = key.cast::<PyString>() {
        push_string(out, &s.to_cow()?);
    } else if key.is_instance_of::<PyInt>() && !key.is_instance_of::<PyBool>() {
        push_string(out, &int_text(key)?);
    } else {
        return Err(unsupported(key));
    }
    Ok(())
}

/// The text being written and a buffer for numbers.
struct Writer {
    out: String,
    scratch: String,
}

/// Append `obj` at nesting level `depth`.
fn push_value(w: &mut Writer, obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<()> {
    if depth > MAX_DEPTH {
        return Err(PyTypeError::new_err("json_dumps: nested too deeply"));
    }
    // (exact floats first: most of a summary)
    if let Ok(f) = obj.cast_exact::<PyFloat>() {
        push_float(&mut w.out, f.value(), &mut w.scratch);
    } else if obj.is_none() {
        w.out.push_str("null");
    } else if let Ok(b) = obj.cast::<PyBool>() {
        w.out.push_str(if b.is_true() { "true" } else { "false" });
    } else if let Ok(s) = obj.cast::<PyString>() {
        push_string(&mut w.out, &s.to_cow()?);
    } else if obj.is_instance_of::<PyInt>() {
        w.out.push_str(&int_text(obj)?);
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        push_float(&mut w.out, f.value(), &mut w.scratch);
    } else if let Ok(d) = obj.cast::<PyDict>() {
        let items = d.iter().map(|(k, v)| (Some(k), v));
        push_items(w, items, !d.is_empty(), ('{', '}'), depth)?;
    } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        let any = !items.is_empty();
        push_items(w, items.into_iter().map(|v| (None, v)), any, ('[', ']'), depth)?;
    } else {
        return Err(unsupported(obj));
    }
    Ok(())
}

/// A container's items (with their keys, for a dict) one per line between `brackets`;
/// the brackets alone when there are none (`any` false).
fn push_items<'py>(
    w: &mut Writer,
    items: impl Iterator<Item = (Option<Bound<'py, PyAny>>, Bound<'py, PyAny>)>,
    any: bool,
    brackets: (char, char),
    depth: usize,
) -> PyResult<()> {
    w.out.push(brackets.0);
    if !any {
        w.out.push(brackets.1);
        return Ok(());
    }
    for (i, (k, v)) in items.enumerate() {
        if i > 0 {
            w.out.push(',');
        }
        newline(&mut w.out, depth + 1);
        if let Some(k) = k {
            push_key(&mut w.out, &k)?;
            w.out.push_str(": ");
        }
        push_value(w, &v, depth + 1)?;
    }
    newline(&mut w.out, depth);
    w.out.push(brackets.1);
    Ok(())
}

/// The Python value of `tree` as `json.dumps(value, indent=2)` writes it (the layout
/// of [`json_dumps`]; an int key as its digits).
pub fn tree_text(tree: &Tree) -> String {
    // (a run's summary is some hundred kilobytes: S1 with 100 flows, 466 kB)
    let mut w = Writer { out: String::with_capacity(1 << 20), scratch: String::new() };
    push_tree(&mut w, tree, 0);
    w.out
}

fn push_tree(w: &mut Writer, tree: &Tree, depth: usize) {
    let (open, close, len) = match tree {
        Tree::None => return w.out.push_str("null"),
        Tree::Bool(b) => return w.out.push_str(if *b { "true" } else { "false" }),
        Tree::Int(i) => return w.out.push_str(itoa::Buffer::new().format(*i)),
        Tree::Float(x) => return push_float(&mut w.out, *x, &mut w.scratch),
        Tree::Str(s) => return push_string(&mut w.out, s),
        Tree::List(items) => ('[', ']', items.len()),
        Tree::Map(items) => ('{', '}', items.len()),
    };
    w.out.push(open);
    if len == 0 {
        w.out.push(close);
        return;
    }
    for i in 0..len {
        if i > 0 {
            w.out.push(',');
        }
        newline(&mut w.out, depth + 1);
        let v = match tree {
            Tree::List(items) => &items[i],
            Tree::Map(items) => {
                push_string(&mut w.out, &items[i].0);
                w.out.push_str(": ");
                &items[i].1
            }
            _ => unreachable!("a container"),
        };
        push_tree(w, v, depth + 1);
    }
    newline(&mut w.out, depth);
    w.out.push(close);
}

/// `obj` as `json.dumps(obj, indent=2)` writes it; TypeError for what is not taken
/// here (see the module's documentation).
#[pyfunction]
fn json_dumps(obj: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut w = Writer { out: String::with_capacity(1 << 16), scratch: String::new() };
    push_value(&mut w, obj, 0)?;
    Ok(w.out)
}

/// Add [`json_dumps`] to `aqmlab._native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(json_dumps, m)?)?;
    Ok(())
}
