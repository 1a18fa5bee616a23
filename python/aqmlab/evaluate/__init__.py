"""``aqmlab evaluate``: the RFC 7928 (Characterization Guidelines for AQM) scenarios for a
set of AQMs, with their metrics, plots and an HTML report.

- :func:`evaluate` -- run (or resume) the scenarios for the AQMs and write ``OUT/``
  (metrics.parquet, flows.parquet, plots, index.html, evaluate.json); returns the
  metrics as a pandas DataFrame;
- :func:`list_scenarios` -- the scenarios with their RFC sections;
- :func:`load` -- the metrics (or flows) of a finished evaluation.

``scenarios`` defines the scenarios, ``point`` runs one point, ``metrics`` computes the
RFC's metrics; ``selection`` chooses the runs and AQMs, ``execute`` runs their
sweeps, ``results`` collects the tables (their columns: ``columns``), ``report`` writes
the plots and the page. See ``docs/evaluate.md``.
"""

from __future__ import annotations

from .execute import evaluate
from .results import load
from .selection import DEFAULT_AQMS, list_scenarios

__all__ = ["evaluate", "list_scenarios", "load", "DEFAULT_AQMS"]
