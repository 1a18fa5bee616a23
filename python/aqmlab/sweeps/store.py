"""The on-disk dataset of a sweep.

``DIR/manifest.json``
    format version, the sweep's hashes (``spec_hash``: the whole normalised sweep;
    ``fixed_hash``: base scenario, runner, metrics and axis paths), the normalised
    spec, the parameter columns and the ordered list of points (index, id,
    parameters, seed).
``DIR/points/<point_id>.parquet``
    one row per finished point (parameters, seed, metrics, wall time, error), written
    to a temporary file in the same directory and renamed into place
    (:func:`aqmlab.base.replace_file`), so a file is either complete or absent.
    Temporary files (``.tmp-*``) left by a killed run are ignored and removed on the
    next run.

``DIR/points`` is a Parquet dataset: ``pyarrow.dataset.dataset(DIR/"points")`` or
:func:`load` (which also orders the rows by point and keeps only the manifest's points).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..base import replace_file, set_aside, write_bytes
from .spec import SweepSpec

FORMAT = 1
MANIFEST = "manifest.json"
POINTS = "points"


class SweepMismatch(ValueError):
    """The output directory holds a different sweep."""


def manifest_dict(spec: SweepSpec) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "name": spec.name,
        "source": spec.source,
        "spec_hash": spec.spec_hash,
        "fixed_hash": spec.fixed_hash,
        "param_columns": spec.param_columns,
        "metrics": spec.metrics,
        "runner": spec.runner,
        "spec": spec.normalised(),
        "points": [p.to_dict() for p in spec.points],
        "updated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def read_manifest(out: str | os.PathLike) -> dict[str, Any] | None:
    p = Path(out) / MANIFEST
    if not p.exists():
        return None
    with open(p) as f:
        return json.load(f)


def prepare(
    out: str | os.PathLike, spec: SweepSpec, force_new: bool = False, extend: bool = False
) -> Path:
    """Create or reopen the dataset in `out` for `spec` (see docs/sweeps.md, "Resuming").

    - no manifest: a new dataset;
    - same ``spec_hash``: resume (the finished points are kept);
    - different sweep: refused with :class:`SweepMismatch`, unless
      ``extend`` (only if the base scenario, runner, metrics and axis paths are the same:
      the manifest takes the new point list, finished points with the same id are
      reused, points no longer in the sweep stay on disk but are not loaded) or
      ``force_new`` (the old dataset is moved aside to ``OUT.superseded-<hash>`` and a
      new one started; nothing is deleted).
    """
    out = Path(out)
    old = read_manifest(out)
    if old is not None and old.get("spec_hash") != spec.spec_hash:
        if force_new:
            dest = set_aside(out, str(old.get("spec_hash", "unknown"))[:8])
            print(f"aqmlab sweep: {out} held another sweep; moved it to {dest}")
            old = None
        elif extend and old.get("fixed_hash") == spec.fixed_hash:
            pass
        elif extend:
            raise SweepMismatch(
                f"{out} holds a sweep with a different base scenario, runner, metrics or axis paths "
                f"(fixed hash {old.get('fixed_hash')} vs {spec.fixed_hash}); --extend only changes "
                f"axis values or replications. Use --force-new (moves the old dataset aside) or another --out."
            )
        else:
            raise SweepMismatch(
                f"{out} holds a different sweep (spec hash {old.get('spec_hash')}, this one is "
                f"{spec.spec_hash}): the sweep file or its base scenario changed. Refusing to mix them. "
                f"Use --extend to keep the finished points that are still in the sweep (only axis values "
                f"or replications changed), --force-new to move the old dataset aside and start over, "
                f"or another --out."
            )
    (out / POINTS).mkdir(parents=True, exist_ok=True)
    for tmp in (out / POINTS).glob(".tmp-*"):
        try:
            tmp.unlink()
        except OSError:
            pass
    if old is None or old.get("spec_hash") != spec.spec_hash:
        m = manifest_dict(spec)
        write_bytes(out / MANIFEST, json.dumps(m, indent=1, allow_nan=False).encode(), fsync=True)
    return out


def finished(out: str | os.PathLike) -> set[str]:
    """Ids of the points that have a file."""
    d = Path(out) / POINTS
    if not d.is_dir():
        return set()
    return {
        p.name[: -len(".parquet")]
        for p in d.iterdir()
        if p.name.endswith(".parquet") and not p.name.startswith(".")
    }


def failed(out: str | os.PathLike, ids: Iterable[str]) -> set[str]:
    """Of `ids` (finished points), those whose row records an error."""
    import pyarrow.parquet as pq

    bad = set()
    for i in ids:
        t = pq.read_table(Path(out) / POINTS / f"{i}.parquet", columns=["error"])
        if t.column("error")[0].is_valid:
            bad.add(i)
    return bad


def _arrow_type(values: list[Any]):
    import pyarrow as pa

    vs = [v for v in values if v is not None]
    if vs and all(isinstance(v, bool) for v in vs):
        return pa.bool_()
    if vs and all(isinstance(v, int) and not isinstance(v, bool) for v in vs):
        return pa.int64()
    if vs and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vs):
        return pa.float64()
    return pa.string()


def param_types(spec: SweepSpec) -> dict[str, Any]:
    """One Arrow type per parameter column, from all the points' values (stable across rows)."""
    cols: dict[str, list[Any]] = {c: [] for c in spec.param_columns}
    for p in spec.points:
        for c, v in p.params.items():
            cols[c].append(v)
    return {c: _arrow_type(vs) for c, vs in cols.items()}


def make_row(
    point: Mapping[str, Any],
    ptypes: Mapping[str, Any],
    metrics: Mapping[str, Any],
    wall_time: float,
    error: str | None,
):
    """A one-row Arrow table: point, point_id, parameters, seed, metrics, wall_time, error."""
    import pyarrow as pa

    fields, row = [], {}

    def add(name: str, value: Any, typ) -> None:
        if typ == pa.string() and value is not None and not isinstance(value, str):
            value = json.dumps(value) if not isinstance(value, (int, float, bool)) else str(value)
        fields.append(pa.field(name, typ))
        row[name] = value

    add("point", point["index"], pa.int64())
    add("point_id", point["id"], pa.string())
    for c, t in ptypes.items():
        v = point["params"].get(c)
        add(c, float(v) if t == pa.float64() and v is not None else v, t)
    add("seed", point["seed"], pa.int64())
    for k, v in metrics.items():
        if k in ("point", "point_id", "seed", "wall_time", "error") or k in ptypes:
            k = f"metric:{k}"
        if isinstance(v, bool):
            v = float(v)
        if isinstance(v, (int, float)):
            add(k, float(v), pa.float64())
        else:
            add(k, None if v is None else str(v), pa.string())
    add("wall_time", float(wall_time), pa.float64())
    add("error", error, pa.string())
    return pa.Table.from_pylist([row], schema=pa.schema(fields))  # one call: few GIL hand-offs


def write_point(out: str | os.PathLike, point_id: str, table) -> Path:
    """Write one point's row atomically: temp file in the same directory, fsync, rename."""
    import pyarrow.parquet as pq

    final = Path(out) / POINTS / f"{point_id}.parquet"
    with replace_file(final, fsync=True) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return final


def load(out: str | os.PathLike, include_failed: bool = True):
    """The finished points of the sweep in `out` as one DataFrame, ordered by point.

    Only points listed in the manifest are read (files of points dropped by
    ``--extend`` are ignored). ``include_failed=False`` drops the rows with an error.
    """
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = Path(out)
    m = read_manifest(out)
    if m is None:
        raise FileNotFoundError(f"{out}: no sweep here (no {MANIFEST})")
    order = {p["id"]: p["index"] for p in m["points"]}
    done = finished(out)
    tables = [pq.read_table(out / POINTS / f"{pid}.parquet") for pid in order if pid in done]
    if not tables:
        cols = ["point", "point_id", *m.get("param_columns", []), "seed", "wall_time", "error"]
        return pd.DataFrame(columns=cols)
    t = pa.concat_tables(tables, promote_options="permissive")
    # metric columns first seen in a later row go before wall_time / error
    names = [c for c in t.column_names if c not in ("wall_time", "error")] + ["wall_time", "error"]
    df = t.select(names).to_pandas()
    df["point"] = [
        order[i] for i in df["point_id"]
    ]  # the current manifest's order (after --extend)
    df = df.sort_values("point", kind="stable").reset_index(drop=True)
    if not include_failed:
        df = df[df["error"].isna()].reset_index(drop=True)
    return df


def remove_tree(path: str | os.PathLike) -> None:
    shutil.rmtree(path, ignore_errors=True)
