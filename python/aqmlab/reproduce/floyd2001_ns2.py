"""ns-2's values for Floyd, Gummadi & Shenker 2001 (Figs. 1-3 subset and Figs. 6-9, each
over seeds 1-5), read from the committed ``floyd2001_ns2.csv`` that
``benchmarks/peers/ared2001.py`` writes by running the catalogue's own scenarios in ns-2
2.35 (CI has no ns-2).

Agreement rule (the peer benchmark's, docs/peers.md): utilization within 1 point, the
average queue and the drop rate within 10% (or, for the drop rate, within 0.1 point).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .context import Context

NS2_CSV = Path(__file__).resolve().parent / "floyd2001_ns2.csv"


def load() -> pd.DataFrame:
    """The committed ns-2 results (empty if the file is absent)."""
    if not NS2_CSV.exists():
        return pd.DataFrame()
    return pd.read_csv(NS2_CSV, keep_default_na=False)


def agree(metric: str, a: float, n: float) -> bool:
    """aqmlab value `a` against ns-2's `n` under the agreement rule."""
    if metric == "utilization":
        return abs(a - n) <= 0.01
    if metric == "drop_rate":
        return abs(a - n) <= max(0.1 * abs(n), 0.001)
    return abs(a - n) <= 0.1 * abs(n)


def _fmt(metric: str, v: float) -> str:
    return (
        f"{v:.3f}"
        if metric == "utilization"
        else f"{v:.4f}"
        if metric == "drop_rate"
        else f"{v:.1f}"
    )


def _pairs(metrics: Sequence[str], a: dict[str, float], n: dict[str, float]) -> str:
    return "; ".join(f"{m} {_fmt(m, a[m])} vs {_fmt(m, n[m])}" for m in metrics)


def compare_points(
    ctx: Context, label: str, points: list[dict[str, Any]], metrics: Sequence[str]
) -> pd.DataFrame:
    """One comparison row per point (aqmlab vs ns-2 on `metrics`), saved as ``ns2.csv``.

    Each point holds ``name``, ``aqmlab`` and ``ns2`` (dicts metric -> value, what is
    compared) and optionally ``seed1`` (``{"aqmlab": ..., "ns2": ...}``, the seed-1 runs
    the figures plot when ``aqmlab`` and ``ns2`` are means over seeds: shown, not
    compared)."""
    rows = []
    for p in points:
        ok = all(agree(m, p["aqmlab"][m], p["ns2"][m]) for m in metrics)
        text = _pairs(metrics, p["aqmlab"], p["ns2"])
        one = p.get("seed1")
        if one:
            text += " (seed 1: " + _pairs(metrics, one["aqmlab"], one["ns2"]) + ")"
        ctx.compare.claim(
            f"{label} {p['name']}: aqmlab agrees with ns-2 (aqmlab vs ns-2)".lstrip(),
            ok,
            text,
            paper="ns-2 cross-check",
            tolerance="utilization 0.01; queue 10%; drop rate 10% or 0.001",
        )
        for m in metrics:
            row = {"point": p["name"], "metric": m, "aqmlab": p["aqmlab"][m], "ns2": p["ns2"][m]}
            row["agree"] = agree(m, p["aqmlab"][m], p["ns2"][m])
            if one:
                row |= {"aqmlab_seed1": one["aqmlab"][m], "ns2_seed1": one["ns2"][m]}
            rows.append(row)
    df = pd.DataFrame(rows)
    if len(df):
        ctx.save_data(df, "ns2")
    return df
