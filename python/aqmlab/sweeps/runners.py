"""Runners: what a sweep calls for each point.

A runner is any importable callable ``f(scenario: dict) -> summary`` where the summary
is a dict (or an object with a ``.summary`` dict, like :class:`aqmlab.sim.Result`).
A sweep names it as ``runner = "module:function"``; the default is :func:`simulate`,
the packet-level simulator. A runner may carry a ``validate`` attribute, a callable
``validate(scenario)`` raising ValueError for an invalid scenario; the sweep calls it
on every point before anything runs, and a ``warmup`` attribute, a callable run once in
every worker when the sweep starts (imports, caches), so that the first points do not
pay for it.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, Dict, Mapping


def resolve(ref: str) -> Callable[[Dict[str, Any]], Any]:
    """``"package.module:function"`` -> the callable (ValueError if it cannot be imported)."""
    mod, _, name = ref.partition(":")
    if not mod or not name:
        raise ValueError(f'runner {ref!r}: must be "module:function"')
    try:
        obj: Any = importlib.import_module(mod)
    except ImportError as e:
        raise ValueError(f"runner {ref!r}: cannot import {mod!r}: {e}") from None
    for part in name.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"runner {ref!r}: {mod!r} has no {name!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"runner {ref!r}: not callable")
    return obj


def summary_of(result: Any) -> Mapping[str, Any]:
    s = getattr(result, "summary", result)
    if callable(s) and not isinstance(s, Mapping):
        s = s()
    if not isinstance(s, Mapping):
        raise TypeError(
            f"runner returned {type(result).__name__}, expected a summary dict "
            "(or an object with a .summary dict)"
        )
    return s


def simulate(scenario: Dict[str, Any]) -> Mapping[str, Any]:
    """The default runner: the packet-level simulator (``aqmlab.sim``)."""
    from aqmlab.sim import Scenario
    from aqmlab.sim import simulate as _simulate

    return summary_of(_simulate(Scenario.from_dict(scenario), progress=False))


def _validate_scenario(scenario: Dict[str, Any]) -> None:
    try:
        from aqmlab.sim import Scenario
    except ImportError:  # no simulator here: the points fail at run time and are recorded
        return
    Scenario.from_dict(scenario)


def _warmup() -> None:
    importlib.import_module("aqmlab.sim")
    importlib.import_module("pandas")  # aqmlab.sim.Result builds DataFrames


simulate.validate = _validate_scenario  # type: ignore[attr-defined]
simulate.warmup = _warmup  # type: ignore[attr-defined]
