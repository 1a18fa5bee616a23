//! Records (dicts of a summary's [`Tree`]) as an Arrow record batch, each column typed
//! as `aqmlab._tables.record_columns` types the same records in Python (pandas'
//! inference for a column of Python objects), so that the Parquet file written from
//! the tree is the one written from the Python dict:
//!
//! columns in the order of their first appearance, a key missing from a record a NaN;
//! all booleans (and None) -> bool; all integers -> int64; integers with None or
//! NaN, or integers and floats -> float64 (NaN and None stored as nulls); strings (and
//! None) -> string, or large_string where the installed pandas is 3 or later; only None
//! -> null. Any other mixture (booleans among numbers, strings among numbers, lists,
//! dicts, an integer beyond int64) is pandas' to decide: no batch.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, LargeStringArray, NullArray, RecordBatch,
    RecordBatchOptions, StringArray,
};
use arrow_schema::{DataType, Field, Schema};

use crate::tree::Tree;

/// One record: its keys and values, in order.
pub type Record<'a> = Vec<(&'a str, &'a Tree)>;

/// A column: its name and each record's value (None where the record has no such key).
type Column<'a> = (&'a str, Vec<Option<&'a Tree>>);

/// The kinds of values in a column, as `aqmlab._tables._kind` sorts them.
#[derive(Default)]
struct Kinds {
    none: bool,
    bool: bool,
    int: bool,
    float: bool,
    str: bool,
    other: bool,
}

impl Kinds {
    fn of(values: &[Option<&Tree>]) -> Kinds {
        let mut k = Kinds::default();
        for v in values {
            match v {
                None | Some(Tree::Float(_)) => k.float = true, // (missing: NaN)
                Some(Tree::None) => k.none = true,
                Some(Tree::Bool(_)) => k.bool = true,
                Some(Tree::Int(_)) => k.int = true,
                Some(Tree::Str(_)) => k.str = true,
                Some(Tree::List(_) | Tree::Map(_)) => k.other = true,
            }
        }
        k
    }
}

/// The column's Arrow type, or None where pandas must decide.
fn column_type(values: &[Option<&Tree>], large_strings: bool) -> Option<DataType> {
    let k = Kinds::of(values);
    let any = k.bool || k.int || k.float || k.str || k.other;
    if !any {
        return Some(DataType::Null);
    }
    if k.bool && !(k.int || k.float || k.str || k.other) {
        return Some(DataType::Boolean);
    }
    if k.bool || k.other {
        return None;
    }
    let in_i64 = |v: &Option<&Tree>| match v {
        Some(Tree::Int(i)) => i64::try_from(*i).is_ok(),
        _ => true,
    };
    if k.int && !values.iter().all(in_i64) {
        return None;
    }
    if k.str {
        return (!(k.int || k.float)).then_some(if large_strings {
            DataType::LargeUtf8
        } else {
            DataType::Utf8
        });
    }
    Some(if k.int && !k.float && !k.none { DataType::Int64 } else { DataType::Float64 })
}

/// The column's values as an array of `dt` (a type [`column_type`] gave them).
fn array(dt: &DataType, values: &[Option<&Tree>]) -> ArrayRef {
    match dt {
        DataType::Boolean => Arc::new(
            values
                .iter()
                .map(|v| match v {
                    Some(Tree::Bool(b)) => Some(*b),
                    _ => None,
                })
                .collect::<BooleanArray>(),
        ),
        DataType::Int64 => Arc::new(
            values
                .iter()
                .map(|v| match v {
                    Some(Tree::Int(i)) => i64::try_from(*i).ok(),
                    _ => None,
                })
                .collect::<Int64Array>(),
        ),
        DataType::Float64 => Arc::new(
            values
                .iter()
                .map(|v| match v {
                    Some(Tree::Int(i)) => Some(*i as f64),
                    Some(Tree::Float(x)) if !x.is_nan() => Some(*x),
                    _ => None, // NaN (also a missing key) and None: null, as pandas stores them
                })
                .collect::<Float64Array>(),
        ),
        DataType::Utf8 => Arc::new(strings(values).collect::<StringArray>()),
        DataType::LargeUtf8 => Arc::new(strings(values).collect::<LargeStringArray>()),
        _ => Arc::new(NullArray::new(values.len())),
    }
}

fn strings<'a>(values: &'a [Option<&Tree>]) -> impl Iterator<Item = Option<&'a str>> {
    values.iter().map(|v| match v {
        Some(Tree::Str(s)) => Some(s.as_str()),
        _ => None,
    })
}

/// The records' columns in the order of the keys' first appearance.
fn columns<'a>(records: &[Record<'a>]) -> Vec<Column<'a>> {
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut cols: Vec<Column<'a>> = Vec::new();
    for (row, r) in records.iter().enumerate() {
        for (j, &(k, v)) in r.iter().enumerate() {
            // (a summary's records have their keys in one order: found at once)
            let c = if cols.get(j).is_some_and(|c| c.0 == k) {
                j
            } else {
                *at.entry(k).or_insert_with(|| {
                    cols.push((k, vec![None; records.len()]));
                    cols.len() - 1
                })
            };
            cols[c].1[row] = Some(v);
        }
    }
    cols
}

/// The records as a record batch, without the `drop` columns and with `first` moved to
/// the front (as `aqmlab._tables.record_columns`); None where pandas must decide.
pub fn record_batch(
    records: &[Record<'_>],
    drop: &[&str],
    first: Option<&str>,
    large_strings: bool,
) -> Option<RecordBatch> {
    let mut cols = columns(records);
    cols.retain(|(k, _)| !drop.contains(k));
    if let Some(at) = first.and_then(|f| cols.iter().position(|(k, _)| *k == f)) {
        let c = cols.remove(at);
        cols.insert(0, c);
    }
    if !records.is_empty() && cols.is_empty() {
        return None; // rows without columns: pandas' own file
    }
    let mut fields = Vec::with_capacity(cols.len());
    let mut arrays = Vec::with_capacity(cols.len());
    for (name, values) in &cols {
        let dt = column_type(values, large_strings)?;
        arrays.push(array(&dt, values));
        fields.push(Field::new(*name, dt, true));
    }
    let opts = RecordBatchOptions::new().with_row_count(Some(records.len()));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &opts).ok()
}

/// A dict's items as a record.
fn record(t: &Tree) -> Option<Record<'_>> {
    match t {
        Tree::Map(items) => Some(items.iter().map(|(k, v)| (k.as_ref(), v)).collect()),
        _ => None,
    }
}

/// The flows of a summary as records (`summary["flows"]`).
pub fn flow_records(summary: &Tree) -> Option<Vec<Record<'_>>> {
    match summary.get("flows")? {
        Tree::List(flows) => flows.iter().map(record).collect(),
        _ => None,
    }
}

/// The link directions of a summary as records, each with its name under `link`, in
/// the order of their `index` (as `aqmlab._tables.link_records`); `names` holds the
/// names' values.
pub fn link_records<'a>(summary: &'a Tree, names: &'a [Tree]) -> Option<Vec<Record<'a>>> {
    let Tree::Map(links) = summary.get("links")? else { return None };
    let mut out = Vec::with_capacity(links.len());
    for ((_, v), name) in links.iter().zip(names) {
        let mut r = record(v)?;
        match r.iter_mut().find(|(k, _)| *k == "link") {
            Some(slot) => slot.1 = name,
            None => r.push(("link", name)),
        }
        out.push(r);
    }
    let index = |r: &Record<'_>| match r.iter().find(|(k, _)| *k == "index") {
        Some((_, Tree::Int(i))) => Some(*i),
        _ => None,
    };
    if out.iter().any(|r| index(r).is_none()) {
        return None;
    }
    out.sort_by_key(|r| index(r));
    Some(out)
}

/// The names of a summary's link directions, as values (for [`link_records`]).
pub fn link_names(summary: &Tree) -> Vec<Tree> {
    match summary.get("links") {
        Some(Tree::Map(links)) => links.iter().map(|(k, _)| Tree::Str(k.to_string())).collect(),
        _ => Vec::new(),
    }
}
