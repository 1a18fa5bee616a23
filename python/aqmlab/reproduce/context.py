"""What an experiment gets: where to write, how long to run, and the recorders.

A :class:`Context` is made for one id when it runs. The experiment records its
assumptions and notes on it, writes its data and plots through it, and states the
paper's numbers and claims on its :class:`Comparison`; :meth:`Context.finish` writes
``comparison.csv`` and ``meta.json`` (see :mod:`.report`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from . import report
from .simulators import simulator_of

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

T = TypeVar("T")


def fmt(v: Any) -> str:
    """A value as comparison.csv writes it: floats with 6 significant digits, booleans
    as true/false, None as an empty field."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return f"{v:.6g}"
    return str(v)


@dataclass
class Row:
    """One row of comparison.csv."""

    quantity: str
    paper: str
    aqmlab: str
    tolerance: str
    verdict: str


class Comparison:
    """The rows of ``comparison.csv``: one per number or claim the paper states."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def value(
        self, quantity: str, paper: float, aqmlab: float, tolerance: float, relative: bool = False
    ) -> bool:
        """A number: ok when |aqmlab - paper| <= tolerance (times |paper| if relative)."""
        tol = tolerance * abs(paper) if relative else tolerance
        ok = aqmlab is not None and not math.isnan(aqmlab) and abs(aqmlab - paper) <= tol + 1e-12
        tol_text = f"{tolerance:g} relative" if relative else f"{tolerance:g}"
        self.rows.append(
            Row(quantity, fmt(paper), fmt(aqmlab), tol_text, "ok" if ok else "differs")
        )
        return ok

    def claim(
        self,
        quantity: str,
        holds: bool,
        aqmlab: str = "",
        paper: str = "holds",
        tolerance: str = "",
    ) -> bool:
        """A qualitative claim checked as an inequality; `quantity` states it."""
        self.rows.append(
            Row(
                quantity,
                paper,
                aqmlab or ("holds" if holds else "does not hold"),
                tolerance,
                "ok" if holds else "differs",
            )
        )
        return holds

    def not_reported(self, quantity: str, aqmlab: Any, note: str = "") -> None:
        """A quantity aqmlab reports that the paper gives no number for."""
        self.rows.append(Row(quantity, note, fmt(aqmlab), "", "not-reported"))

    def write(self, path: Path, profile: str) -> None:
        """Write the rows as ``comparison.csv``, each with the `profile` they ran in."""
        report.write_comparison(
            path,
            ([r.quantity, r.paper, r.aqmlab, r.tolerance, r.verdict] for r in self.rows),
            profile,
        )


class Context:
    """What an experiment gets: where to write, how long to run, and the recorders.

    ``shared`` is a store common to the ids of one group in one run (see :meth:`once`)."""

    def __init__(
        self,
        id: str,
        title: str,
        paper: str,
        out: Path,
        quick: bool,
        jobs: int,
        group: str = "",
        shared: dict[Hashable, Any] | None = None,
    ) -> None:
        self.id = id
        self.title = title
        self.paper = paper
        self.out = out
        self.quick = quick
        self.jobs = jobs
        self.group = group or id
        self.shared: dict[Hashable, Any] = {} if shared is None else shared
        self.compare = Comparison()
        #: the simulator the paper ran, and the profile the experiment runs in
        self.simulator = simulator_of(self.group)
        self.assumptions: list[str] = [
            f"Simulator ({self.simulator.profile} profile): {self.simulator.says}."
        ]
        self.notes: list[str] = []
        self.plots: list[str] = []
        self.data: list[str] = []

    def assume(self, text: str) -> None:
        """Record an assumption (a detail the paper leaves out)."""
        self.assumptions.append(text)

    def note(self, text: str) -> None:
        """Record a remark for the report (e.g. why aqmlab differs)."""
        self.notes.append(text)

    def once(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, computed once for all the ids of the group (the first asks)."""
        if key not in self.shared:
            self.shared[key] = compute()
        value: T = self.shared[key]
        return value

    def save_data(self, df: pd.DataFrame, name: str) -> Path:
        """Write a DataFrame as CSV (small) into the experiment's directory."""
        path = self.out / f"{name}.csv"
        df.to_csv(path, index=False)
        self.data.append(path.name)
        return path

    def save_fig(self, fig: Figure, name: str) -> Path:
        """Write a matplotlib figure as PNG and close it."""
        import matplotlib.pyplot as plt

        path = self.out / f"{name}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        self.plots.append(path.name)
        return path

    def finish(self, status: str, error: str = "", seconds: float = 0.0) -> None:
        """Write ``comparison.csv`` and ``meta.json``."""
        self.compare.write(self.out / "comparison.csv", self.simulator.profile)
        meta = {
            "id": self.id,
            "title": self.title,
            "paper": self.paper,
            "profile": self.simulator.profile,
            "quick": self.quick,
            "status": status,
            "error": error,
            "seconds": round(seconds, 3),
            "assumptions": self.assumptions,
            "notes": self.notes,
            "plots": self.plots,
            "data": self.data,
        }
        report.write_meta(self.out / "meta.json", meta)
