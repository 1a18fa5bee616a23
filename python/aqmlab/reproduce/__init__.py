"""The reproduction catalogue: ``aqmlab reproduce``.

Each experiment reproduces a figure or table of one of the five papers and writes
its data, plots and a ``comparison.csv`` (quantity, paper, aqmlab, tolerance,
verdict) into ``OUT/<id>/``; ``OUT/index.html`` gathers them.
"""

from .framework import (  # noqa: F401
    COMPARISON_COLUMNS,
    REGISTRY,
    Comparison,
    Context,
    experiment,
    read_comparison,
    run,
    select,
    write_index,
)
