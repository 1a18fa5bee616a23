"""aqmlab: simulate, analyse, tune and reproduce active queue management (AQM) algorithms.

The heavy parts are imported on first use, so ``import aqmlab`` is cheap and the
analysis models work without touching the compiled extension:

- :mod:`aqmlab.aqm` -- the queue disciplines of the Rust library: RED and its
  family, and the AQMs compared with it today (CoDel, FQ-CoDel, PIE and more);
- :mod:`aqmlab.analysis` -- the papers' analytic models;
- :class:`aqmlab.Scenario`, :func:`aqmlab.simulate` -- the packet-level simulator;
- :func:`aqmlab.sweep` -- parameter sweeps on local cores or a Dask cluster.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["aqm", "analysis", "Scenario", "simulate", "sweep", "__version__"]

_SUBMODULES = {"aqm", "analysis", "sim", "sweeps", "cli"}
_FROM_SIM = {"Scenario", "simulate", "Result"}


def _version() -> str:
    # importlib.metadata costs tens of milliseconds: read only when asked.
    try:
        from importlib.metadata import version

        return version("aqmlab")
    except Exception:  # pragma: no cover - running from a source tree
        return "0.0.0+source"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        v = _version()
        globals()["__version__"] = v
        return v
    if name in _SUBMODULES:
        return importlib.import_module(f"aqmlab.{name}")
    if name in _FROM_SIM:
        return getattr(importlib.import_module("aqmlab.sim"), name)
    if name == "sweep":
        return importlib.import_module("aqmlab.sweeps").sweep
    raise AttributeError(f"module 'aqmlab' has no attribute {name!r}")
