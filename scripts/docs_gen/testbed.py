"""The testbed grids' tables of docs/testbed.md, from the figures their runner recorded
(``python -m aqmlab.testbed.linux_grid ... --csv benchmarks/testbed/linux-grid.csv``,
the same for ``bbr_grid``): each table is what the runner printed for that run."""

from __future__ import annotations

from .blocks import ROOT

RECORDS = ROOT / "benchmarks" / "testbed"


def _table(module: str, name: str) -> str:
    from importlib import import_module

    from aqmlab.testbed import grid

    g = import_module(f"aqmlab.testbed.{module}").GRID
    return g.table(grid.read_csv(RECORDS / name)) + "\n"


def linux_table() -> str:
    """The `linux` profile against Linux's CUBIC and Reno (issue 32's grid)."""
    return _table("linux_grid", "linux-grid.csv")


def bbr_table() -> str:
    """The simulator's BBR against Linux's (issue 33's grid)."""
    return _table("bbr_grid", "bbr-grid.csv")
