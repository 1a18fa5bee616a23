"""Plots of a sweep's rows: :func:`plot` (and ``aqmlab plot-sweep``)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..base import ArgumentError
from .store import load


def _frame(src: Any):
    import pandas as pd

    if isinstance(src, pd.DataFrame):
        return src

    return load(src, include_failed=False)


def _resolve_column(df, name: str, what: str) -> str:
    if name in df.columns:
        return name
    # a unique suffix match: "utilization" for "links.r1->r2.utilization", "max_p" for "link[0].queue.max_p"
    hits = [c for c in df.columns if str(c).endswith("." + name) or str(c).endswith(">" + name)]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise ArgumentError(what, f"{name!r} is ambiguous: {', '.join(map(str, hits))}")
    columns = ", ".join(map(str, df.columns))
    raise ArgumentError(what, f"{name!r}: no such column (have: {columns})")


@dataclass(frozen=True)
class _Lines:
    """How each line of a plot is drawn: its columns, how replications are reduced
    (``agg``: mean, median or none), the scales."""

    x: str
    y: str
    order: str
    agg: str
    errorbars: bool
    scale_x: float
    scale_y: float

    def draw(self, ax: Any, g: Any, label: str | None) -> None:
        """The line of the rows `g`."""
        x, y, order = self.x, self.y, self.order
        if self.agg == "none":
            g = g.sort_values(order)
            ax.plot(g[x] * self.scale_x, g[y] * self.scale_y, "x-", label=label)
            return
        red = g.groupby([order], sort=True).agg(
            xm=(x, self.agg), xs=(x, "std"), ym=(y, self.agg), ys=(y, "std")
        )
        red = red.reset_index().sort_values(order if order != x else "xm")
        if self.errorbars and len(g) > len(red):
            ax.errorbar(
                red["xm"] * self.scale_x,
                red["ym"] * self.scale_y,
                xerr=None if order == x else red["xs"].fillna(0) * self.scale_x,
                yerr=red["ys"].fillna(0) * self.scale_y,
                fmt="x-",
                capsize=2,
                label=label,
            )
        else:
            ax.plot(red["xm"] * self.scale_x, red["ym"] * self.scale_y, "x-", label=label)


def plot(  # noqa: PLR0913 - the public signature (plot-sweep's options)
    data: str | os.PathLike | Any,
    x: str,
    y: str,
    hue: str | None = None,
    *,
    agg: str = "mean",
    errorbars: bool = True,
    logx: bool = False,
    logy: bool = False,
    scale_x: float = 1.0,
    scale_y: float = 1.0,
    title: str | None = None,
    xlabel: str | None = None,
    ylabel: str | None = None,
    ax: Any = None,
    connect: str | None = None,
    figsize: Sequence[float] = (6.4, 4.8),
):
    """A matplotlib Figure of `y` against `x`, one line per value of `hue`.

    `data` is a sweep directory or a DataFrame (failed points are left out). Rows with
    the same (hue, x) -- the replications -- are reduced by `agg` (``mean`` or
    ``median``) with the standard deviation as error bars; ``agg="none"`` plots every
    row. `connect` names the column ordering the points along each line (default: `x`);
    for the ARED delay-utilization curves use ``x="links.r1->r2.mean_queue"``,
    ``y="links.r1->r2.utilization"``, ``hue="flows"``, ``connect="max_p"``: the
    replications are then averaged per (flows, max_p). Columns may be named by a unique
    suffix (``utilization``).
    """
    import matplotlib.pyplot as plt

    df = _frame(data)
    if df.empty:
        raise ValueError("no finished (successful) points to plot")
    if agg not in ("mean", "median", "none"):
        raise ArgumentError("agg", f"must be mean, median or none, got {agg!r}")
    x = _resolve_column(df, x, "x")
    y = _resolve_column(df, y, "y")
    hue = _resolve_column(df, hue, "hue") if hue else None
    order = _resolve_column(df, connect, "connect") if connect else x
    if ax is None:
        fig, ax = plt.subplots(figsize=tuple(figsize))
    else:
        fig = ax.figure
    lines = _Lines(x, y, order, agg, errorbars, scale_x, scale_y)
    for key, g in [(None, df)] if hue is None else list(df.groupby(hue, sort=True)):
        lines.draw(ax, g, None if hue is None else f"{hue}={key}")
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    if title:
        ax.set_title(title)
    if hue is not None:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    return fig
