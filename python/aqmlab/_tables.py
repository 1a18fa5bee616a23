"""Records (a list of dicts, as in a run's summary) written to Parquet by the compiled
extension (arrow-rs), with the columns and types that
``pandas.DataFrame(records).to_parquet(...)`` gives, so that writing a run's files
imports neither pandas nor pyarrow nor numpy.

The types follow pandas' inference for a column of Python objects: all booleans ->
bool; all integers -> int64; integers and floats, or integers with a missing value ->
float64 (NaN and missing values stored as nulls, as pandas stores NaN); strings with
missing values -> string (large_string with pandas 3, whose string columns are Arrow's
large strings; read from the installed version's metadata, without importing it). Any
other mixture (lists, dicts, booleans among numbers) is
handed to pandas, so the output never depends on which path wrote it.
"""

from __future__ import annotations

import importlib.machinery
import math
import os
import sys
from collections.abc import Mapping, Sequence

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

__all__ = ["write_records", "record_columns", "link_records", "large_strings"]

_I64 = (-(2**63), 2**63 - 1)


_PANDAS_MAJOR: list[int | None] = []


def _pandas_major() -> int | None:
    """The installed pandas' major version, from its distribution's directory name
    (importing pandas or importlib.metadata would cost more than the write); looked up
    once."""
    if not _PANDAS_MAJOR:
        _PANDAS_MAJOR.append(_find_pandas_major())
    return _PANDAS_MAJOR[0]


def _find_pandas_major() -> int | None:
    # (the spec of an imported pandas, else the path finder's: importlib.util, which
    # would also ask the other finders, imports contextlib and more for it)
    module = sys.modules.get("pandas")
    try:
        spec = module.__spec__ if module is not None else None
        spec = spec or importlib.machinery.PathFinder.find_spec("pandas")
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None or not spec.origin:
        return None
    site = os.path.dirname(os.path.dirname(os.path.realpath(spec.origin)))
    try:
        names = sorted(os.listdir(site))
    except OSError:
        return None
    for d in names:
        if d.startswith("pandas-") and d.endswith(".dist-info"):
            try:
                return int(d.split("-")[1].split(".")[0])
            except (IndexError, ValueError):
                continue
    return None


def large_strings() -> bool:
    """Whether string columns are written as Arrow's large strings (pandas 3 or later)."""
    return (_pandas_major() or 0) >= 3


def _kind(t: type) -> str:
    """The category of a value's type: "none", "bool", "int", "float", "str" or "other"
    (subclasses as their base: a bool is no int here)."""
    if t is type(None):
        return "none"
    for kind, base in (("bool", bool), ("int", int), ("float", float), ("str", str)):
        if issubclass(t, base):
            return kind
    return "other"


def _column_type(values: Sequence[Any]) -> str | None:
    """ "bool", "int64", "float64", "string", "null", or None where pandas must decide."""
    # (by the set of the values' types, which is small: a run's tables are thousands
    # of values, each looked at once)
    kinds = {_kind(t) for t in set(map(type, values))}
    missing = "none" in kinds
    kinds.discard("none")
    if not kinds:
        return "null"
    if kinds == {"bool"}:
        return "bool"
    if "bool" in kinds or "other" in kinds:
        return None
    if "int" in kinds:
        ints = [v for v in values if isinstance(v, int)]
        if min(ints) < _I64[0] or max(ints) > _I64[1]:
            return None  # pandas' own conversion (or refusal) decides
    if kinds == {"int"}:
        return "float64" if missing else "int64"
    if kinds <= {"int", "float"}:
        return "float64"
    if kinds == {"str"}:
        return "string"
    return None


def _columns(records: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """Columns in order of first appearance; a record without a key gives NaN (as in
    pandas, where a missing key is NaN and an explicit None stays None)."""
    names = dict.fromkeys(k for r in records for k in r)
    if all(len(r) == len(names) for r in records):
        # (every record has every key: one pass, column by column; a run's summary)
        return {k: [r[k] for r in records] for k in names}
    nan = float("nan")
    return {k: [r.get(k, nan) for r in records] for k in names}


def record_columns(
    records: Sequence[Mapping[str, Any]],
    drop: Sequence[str] = (),
    first: str | None = None,
) -> list[tuple[str, str, list[Any]]] | None:
    """The records' columns as ``(name, type, values)`` (see the module's doc), without
    the `drop` columns and with `first` moved to the front; None where pandas must
    decide. A float64 column holds floats and None (for NaN and missing values), a
    string column is ``large_string`` where the installed pandas is 3 or later."""
    cols = {k: v for k, v in _columns(records).items() if k not in drop}
    if first is not None and first in cols and records:
        cols = {first: cols[first], **{k: v for k, v in cols.items() if k != first}}
    out: list[tuple[str, str, list[Any]]] = []
    for name, values in cols.items():
        kind = _column_type(values)
        if kind is None:
            return None
        if kind == "float64":
            # pandas stores NaN as null
            values = [None if v is None or math.isnan(v) else float(v) for v in values]
        elif kind == "string" and large_strings():
            kind = "large_string"
        out.append((name, kind, values))
    if records and not out:
        return None  # rows without columns: pandas' own file
    return out


def link_records(summary: Mapping[str, Any]) -> list:
    """A summary's link directions as records (``link``: the name), in index order."""
    links = [dict(v, link=k) for k, v in summary["links"].items()]
    links.sort(key=lambda r: r["index"])
    return links


def write_records(
    records: Sequence[Mapping[str, Any]],
    path: Path,
    drop: Sequence[str] = (),
    first: str | None = None,
    frame: Any = None,
) -> None:
    """Write the records to the Parquet file `path` (through the compiled extension:
    neither pyarrow nor numpy is imported). `frame`: the records' DataFrame when one
    was already built (it is written as it is, possibly changed by its user)."""
    if frame is not None:
        frame.to_parquet(path, index=False)
        return
    columns = record_columns(records, drop, first)
    if columns is None:
        import pandas as pd

        df = pd.DataFrame(list(records))
        df = df.drop(columns=[c for c in drop if c in df])
        if first is not None and first in df and len(df):
            df = df[[first] + [c for c in df.columns if c != first]]
        df.to_parquet(path, index=False)
        return
    from . import _native

    _native.write_parquet(str(path), columns)
