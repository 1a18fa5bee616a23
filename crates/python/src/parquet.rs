//! Columns of Python values written to a Parquet file (arrow-rs), so that writing a
//! run's tables needs neither pyarrow nor numpy in the interpreter.
//!
//! The caller decides each column's type (`aqmlab._tables` infers it as pandas would);
//! here the values are only converted: `bool`, `int64`, `float64` (None is a null),
//! `string` and `large_string` (None is a null), `null` (every value missing). The file
//! is what `pyarrow.parquet.write_table` writes for the same table: one row group,
//! Snappy compression, the Arrow schema in the file's metadata (so a reader gets
//! `large_string` back as such), every field nullable.

use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int64Array, LargeStringArray, NullArray, RecordBatch,
    RecordBatchOptions, StringArray,
};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// One column as it comes from Python: its name, its type's name and its values.
type Column<'py> = (String, String, Bound<'py, PyAny>);

/// The Arrow type of a type's name, or a `ValueError` naming the column.
fn data_type(name: &str, kind: &str) -> PyResult<DataType> {
    Ok(match kind {
        "bool" => DataType::Boolean,
        "int64" => DataType::Int64,
        "float64" => DataType::Float64,
        "string" => DataType::Utf8,
        "large_string" => DataType::LargeUtf8,
        "null" => DataType::Null,
        _ => {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: type {kind:?} is invalid: allowed bool, int64, float64, \
                 string, large_string, null"
            )));
        }
    })
}

/// The values of one column as an Arrow array of `dt`; a value of another type is a
/// `ValueError` naming the column.
fn array(name: &str, dt: &DataType, values: &Bound<'_, PyAny>, rows: usize) -> PyResult<ArrayRef> {
    let bad = |e: PyErr| PyValueError::new_err(format!("column {name:?}: {e}"));
    let arr: ArrayRef = match dt {
        DataType::Boolean => {
            Arc::new(BooleanArray::from(values.extract::<Vec<Option<bool>>>().map_err(bad)?))
        }
        DataType::Int64 => {
            Arc::new(Int64Array::from(values.extract::<Vec<Option<i64>>>().map_err(bad)?))
        }
        DataType::Float64 => {
            Arc::new(Float64Array::from(values.extract::<Vec<Option<f64>>>().map_err(bad)?))
        }
        DataType::Utf8 => {
            Arc::new(StringArray::from(values.extract::<Vec<Option<String>>>().map_err(bad)?))
        }
        DataType::LargeUtf8 => {
            Arc::new(LargeStringArray::from(values.extract::<Vec<Option<String>>>().map_err(bad)?))
        }
        _ => Arc::new(NullArray::new(values.len().map_err(bad)?)),
    };
    if arr.len() != rows {
        return Err(PyValueError::new_err(format!(
            "column {name:?} has {} values, the first column {rows}",
            arr.len()
        )));
    }
    Ok(arr)
}

/// The columns as one Arrow record batch.
fn batch(columns: &[Column<'_>]) -> PyResult<RecordBatch> {
    let rows = match columns.first() {
        Some((_, _, v)) => v.len()?,
        None => 0,
    };
    let mut fields = Vec::with_capacity(columns.len());
    let mut arrays = Vec::with_capacity(columns.len());
    for (name, kind, values) in columns {
        let dt = data_type(name, kind)?;
        arrays.push(array(name, &dt, values, rows)?);
        fields.push(Field::new(name.clone(), dt, true));
    }
    let opts = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(Arc::new(Schema::new(fields)), arrays, &opts)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Write `columns` (a list of `(name, type, values)`) to the Parquet file `path`.
/// Raises ValueError for a type or value that does not fit, OSError where the file
/// cannot be written.
#[pyfunction]
fn write_parquet(path: std::path::PathBuf, columns: Vec<Column<'_>>) -> PyResult<()> {
    write_batch(&path, &batch(&columns)?)
}

/// Write `batch` to the Parquet file `path` (OSError where it cannot be written).
pub fn write_batch(path: &std::path::Path, batch: &RecordBatch) -> PyResult<()> {
    let io = |e: &dyn std::fmt::Display| PyOSError::new_err(format!("{}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(|e| io(&e))?;
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let mut w = ArrowWriter::try_new(file, batch.schema(), Some(props)).map_err(|e| io(&e))?;
    w.write(batch).map_err(|e| io(&e))?;
    w.close().map_err(|e| io(&e))?;
    Ok(())
}

/// Add the writer to `aqmlab._native`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write_parquet, m)?)
}
