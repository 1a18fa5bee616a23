"""The reproduction catalogue: ``aqmlab reproduce``.

Each experiment reproduces a figure or table of one of the five papers and writes
its data, plots and a ``comparison.csv`` (quantity, paper, aqmlab, tolerance,
verdict) into ``OUT/<id>/``; ``OUT/index.html`` gathers them.

The rooms: :mod:`.registry` (an experiment as compute, plot and compare; groups; the
registry), :mod:`.context` (what an experiment gets), :mod:`.execute` (the groups run
in a process pool, each id into its own directory), :mod:`.report` (comparison.csv,
meta.json, index.html), :mod:`.common` (what several experiments share: scenario files,
sweep runners, stored sweeps) and :mod:`.catalogue` (the list of experiments, by group).
"""

from .catalogue import REGISTRY, catalogue_order, run, select, write_index
from .context import Comparison, Context
from .registry import Experiment, Group
from .report import COMPARISON_COLUMNS, read_comparison

__all__ = [
    "COMPARISON_COLUMNS",
    "REGISTRY",
    "Comparison",
    "Context",
    "Experiment",
    "Group",
    "catalogue_order",
    "read_comparison",
    "run",
    "select",
    "write_index",
]
