"""Collecting what ``aqmlab evaluate`` ran: the rows of the sweeps' datasets become
``metrics.parquet`` (one row per scenario, variant, ECN, AQM and seed) and
``flows.parquet`` (one row per flow and run), with the columns of :mod:`.columns`;
written whole (:func:`write_tables`, :func:`write_json`) and read back (:func:`load`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from ..base import replace_file
from ..sweeps import store
from .columns import FLOW_KEY_COLUMNS, KEY_COLUMNS, METRIC_COLUMNS, TCP_COLUMN
from .selection import Run

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["assemble", "write_tables", "write_json", "load", "describe"]

#: The sweep's own columns, not metrics.
_SWEEP_COLUMNS = {
    "point",
    "point_id",
    "variant",
    "queue",
    "aqm",
    "tcp",
    "transport",
    "seed",
    "wall_time",
    "error",
}

PathLike = Union[str, "os.PathLike[str]"]


def assemble(
    out: Path,
    runs: Sequence[Run],
    specs: Sequence[Any],
    queues: Mapping[str, Mapping[str, Any]],
    quick: bool,
) -> tuple[pd.DataFrame, pd.DataFrame, list[dict[str, Any]]]:
    """metrics.parquet's and flows.parquet's rows from the sweeps' datasets, and the
    failed points (scenario, variant, ecn, aqm, seed, error). The label and variant of a
    row come from the current sweep's point list (by point id)."""
    import pandas as pd

    parts: list[pd.DataFrame] = []
    flow_rows: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    for r, s in zip(runs, specs):
        df = store.load(out / "sweeps" / r.dirname(quick))
        byid = {p.id: p for p in s.points}
        df = df[df["point_id"].isin(byid)]
        pts = [byid[i] for i in df["point_id"]]
        keys = {
            "scenario": [r.scenario.id] * len(df),
            "section": [r.scenario.section] * len(df),
            "variant": [p.params["variant"] for p in pts],
            "ecn": [r.ecn] * len(df),
            "aqm": [p.params["aqm"] for p in pts],
            "type": [queues[p.params["aqm"]]["type"] for p in pts],
            "seed": [int(p.seed) for p in pts],
        }
        if any("tcp" in p.params for p in pts):
            keys[TCP_COLUMN] = [p.params["tcp"] for p in pts]
        k = pd.DataFrame(keys, index=df.index)
        flow_keys = [*FLOW_KEY_COLUMNS, *([TCP_COLUMN] if TCP_COLUMN in k else [])]
        err = df["error"].notna()
        for i in k.index[err]:
            failed.append(
                {**{c: _plain(k.at[i, c]) for c in FLOW_KEY_COLUMNS}, "error": df.at[i, "error"]}
            )
        mcols = [
            c
            for c in df.columns
            if c not in _SWEEP_COLUMNS
            and c not in KEY_COLUMNS
            and c != "flows_json"
            and ":" not in c
        ]
        ok = ~err
        part = pd.concat([k[ok], df.loc[ok, mcols], df.loc[ok, ["wall_time"]]], axis=1)
        parts.append(part)
        if "flows_json" in df.columns:
            for i in k.index[ok]:
                head = {c: _plain(k.at[i, c]) for c in flow_keys}
                for f in json.loads(df.at[i, "flows_json"]):
                    flow_rows.append({**head, **_flow_fields(f)})
    metrics = _order_columns(pd.concat(parts, ignore_index=True) if parts else pd.DataFrame())
    flows = (
        pd.DataFrame.from_records(flow_rows)
        if flow_rows
        else pd.DataFrame(columns=list(FLOW_KEY_COLUMNS))
    )
    return metrics, flows, failed


def _flow_fields(f: Mapping[str, Any]) -> dict[str, Any]:
    """A flow's fields, those named like a key column prefixed with ``flow_`` (the flow's
    TCP ``variant`` becomes ``flow_variant``, beside the scenario's ``variant``)."""
    return {(f"flow_{k}" if k in FLOW_KEY_COLUMNS else k): v for k, v in f.items()}


def _plain(v: Any) -> Any:
    """A numpy scalar as the Python value (for JSON)."""
    return v.item() if hasattr(v, "item") else v


def _order_columns(df: pd.DataFrame) -> pd.DataFrame:
    """The contract's order: keys, the fixed metrics (NaN columns added where no row has
    one), the other metrics (class columns) sorted, ``wall_time``; stable dtypes."""
    import numpy as np
    import pandas as pd

    for c in KEY_COLUMNS:
        if c not in df.columns:
            df[c] = pd.Series(dtype=bool if c == "ecn" else (np.int64 if c == "seed" else object))
    for c in (*METRIC_COLUMNS, "wall_time"):
        if c not in df.columns:
            df[c] = np.nan
    tcp = [TCP_COLUMN] if TCP_COLUMN in df.columns else []
    rest = sorted(
        c
        for c in df.columns
        if c not in KEY_COLUMNS and c not in METRIC_COLUMNS and c not in (*tcp, "wall_time")
    )
    df = df[[*KEY_COLUMNS, *tcp, *METRIC_COLUMNS, *rest, "wall_time"]]
    return df.astype({"ecn": bool, "seed": np.int64})


def write_tables(out: Path, metrics: pd.DataFrame, flows: pd.DataFrame) -> None:
    """metrics.parquet and flows.parquet, each written beside and renamed into place."""
    for name, df in (("metrics.parquet", metrics), ("flows.parquet", flows)):
        with replace_file(out / name) as tmp:
            df.to_parquet(tmp, index=False)


def write_json(path: Path, obj: Any) -> None:
    with replace_file(path) as tmp:
        tmp.write_text(json.dumps(obj, indent=1, default=_json_default, allow_nan=True) + "\n")


def _json_default(v: Any) -> Any:
    if hasattr(v, "item"):
        return v.item()
    return str(v)


def load(out: PathLike, what: str = "metrics") -> pd.DataFrame:
    """The rows of a finished evaluation: ``what = "metrics"`` (``OUT/metrics.parquet``)
    or ``"flows"`` (``OUT/flows.parquet``)."""
    import pandas as pd

    if what not in ("metrics", "flows"):
        raise ValueError(f"what: must be 'metrics' or 'flows', got {what!r}")
    p = Path(out) / f"{what}.parquet"
    if not p.exists():
        raise FileNotFoundError(f"{p}: no such file (run aqmlab evaluate --out {out} first)")
    return pd.read_parquet(p)


def describe(info: Mapping[str, Any]) -> Iterable[str]:
    """Lines summarising a run's record (``evaluate.json``) for the terminal."""
    st = info.get("sweeps", {})
    done = sum(v.get("computed", 0) for k, v in st.items() if not k.startswith("_"))
    there = sum(v.get("already_done", 0) for k, v in st.items() if not k.startswith("_"))
    yield (
        f"{len(info.get('scenarios', []))} scenarios x {len(info.get('aqms', {}))} AQMs: "
        f"{info.get('rows', 0)} runs ({done} computed now, {there} already there; "
        f"{len(info.get('failed', []))} failed) in {info.get('wall_seconds', 0.0):.1f} s"
    )
