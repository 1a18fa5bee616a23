"""Parameter sweeps: many (parameter, load, seed) points of a scenario, on local cores or a
Dask cluster, resumable, into a Parquet dataset.

- :func:`sweep` -- run a sweep (a sweep TOML path or the same structure as a dict) and
  return one row per point as a pandas DataFrame (exposed as ``aqmlab.sweep``);
- :func:`load` -- the DataFrame of a sweep's output directory;
- :func:`plot` -- the common plots (e.g. the ARED delay-utilization curves);
- :func:`load_spec` -- read and validate a sweep without running it.

See ``docs/sweeps.md`` for the file format, the metric paths and resume semantics.
"""

from __future__ import annotations

from .execute import sweep
from .metrics import AGGREGATES, DEFAULT_METRICS, MetricError
from .plot import plot
from .spec import SweepSpec, load_spec
from .store import SweepMismatch, load

__all__ = [
    "sweep",
    "load",
    "plot",
    "load_spec",
    "SweepSpec",
    "SweepMismatch",
    "MetricError",
    "DEFAULT_METRICS",
    "AGGREGATES",
]
