"""``aqmlab evaluate``: the RFC 7928 (Characterization Guidelines for AQM) scenarios for a
set of AQMs, with their metrics, plots and an HTML report.

- :func:`evaluate` -- run (or resume) the scenarios for the AQMs and write ``OUT/``
  (metrics.parquet, flows.parquet, plots, index.html, evaluate.json); returns the
  metrics as a pandas DataFrame;
- :func:`list_scenarios` -- the scenarios with their RFC sections;
- :func:`load` -- the metrics (or flows) of a finished evaluation.

``scenarios`` defines the scenarios, ``runner`` runs one point, ``metrics`` computes the
RFC's metrics, ``core`` runs the sweeps, ``report`` writes the plots and the page. See
``docs/evaluate.md``.
"""

from __future__ import annotations

from .core import DEFAULT_AQMS, evaluate, list_scenarios, load

__all__ = ["evaluate", "list_scenarios", "load", "DEFAULT_AQMS"]
