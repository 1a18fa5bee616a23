"""Runners: what a sweep calls for each point.

A runner is any importable callable ``f(scenario: dict) -> summary`` where the summary
is a dict (or an object with a ``.summary`` dict, like :class:`aqmlab.sim.Result`).
A sweep names it as ``runner = "module:function"``; the default is :data:`simulate`,
the packet-level simulator. A runner may carry a ``validate`` attribute, a callable
``validate(scenario)`` raising ValueError for an invalid scenario; the sweep calls it
on every point before anything runs, and a ``warmup`` attribute, a callable run once in
every worker when the sweep starts (imports, caches), so that the first points do not
pay for it. :class:`Runner` bundles a function with these two hooks.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

from ..sim import Scenario
from ..sim import simulate as run_simulation

ScenarioDict = dict[str, Any]


def _accept(scenario: ScenarioDict) -> None:
    """No check."""


def _nothing() -> None:
    """Nothing to prepare."""


@dataclass(frozen=True)
class Runner:
    """A runner and its hooks: calling it calls `run`; the sweep calls `validate` on the
    points before anything runs and `warmup` once in every worker (both do nothing unless
    given). Bind it to a module-level name for the sweep to find:
    ``my_runner = Runner(run_one, validate=check, warmup=load_caches)``."""

    run: Callable[[ScenarioDict], Any]
    validate: Callable[[ScenarioDict], None] = _accept
    warmup: Callable[[], None] = _nothing

    def __call__(self, scenario: ScenarioDict) -> Any:
        return self.run(scenario)


def resolve(ref: str) -> Callable[[dict[str, Any]], Any]:
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


def _simulate(scenario: dict[str, Any]) -> Mapping[str, Any]:
    """One run of the packet-level simulator (``aqmlab.sim``); its summary."""
    return summary_of(run_simulation(Scenario.from_dict(scenario), progress=False))


def _validate_scenario(scenario: dict[str, Any]) -> None:
    try:
        Scenario.from_dict(scenario)
    except ImportError:  # no simulator here: the points fail at run time and are recorded
        return


def _warmup() -> None:
    importlib.import_module("aqmlab.sim")
    importlib.import_module("pandas")  # aqmlab.sim.Result builds DataFrames


#: The default runner: the packet-level simulator, its scenarios checked by
#: ``Scenario.from_dict`` before the sweep runs.
simulate = Runner(_simulate, validate=_validate_scenario, warmup=_warmup)
