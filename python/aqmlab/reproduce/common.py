"""What several experiments use: the catalogue's scenario files, its sweep runners
(the function with the hooks ``aqmlab.sweeps`` looks for), their base scenarios tied to
the runner's version and the build, and stored sweeps computed once per group.
"""

from __future__ import annotations

import importlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .. import sweeps
from ..base import build_id, load_toml
from ..sim import Scenario, simulate
from ..sweeps.runners import Runner
from ..sweeps.store import SweepMismatch
from .context import Context

if TYPE_CHECKING:
    import pandas as pd

    from ..sim import Result, Scenario

ScenarioDict = dict[str, Any]

#: The catalogue's scenario files ship inside the package (``scenarios/`` at the top of
#: the source tree links there).
SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def scenario(name: str) -> Scenario:
    """A scenario file of the catalogue, by file name."""
    return Scenario.from_file(SCENARIOS / name)


def scenario_dict(name: str) -> ScenarioDict:
    """A scenario file of the catalogue as the dict of its TOML structure (not validated)."""
    return load_toml((SCENARIOS / name).read_text())


def simulate_normalized(sc: ScenarioDict) -> tuple[Result, ScenarioDict]:
    """Run a scenario dict; returns the result and the normalised scenario (every
    quantity in SI units, times the simulator's clock as seconds)."""
    s = Scenario.from_dict(sc)
    return simulate(s, progress=False), s.normalized()


def direction(norm: ScenarioDict, name: str) -> dict[str, Any]:
    """The link direction `name` ("a->b") of a normalised scenario."""
    (d,) = (d for d in norm["directions"] if d["name"] == name)
    found: dict[str, Any] = d
    return found


def _unchanged(scenario: ScenarioDict) -> ScenarioDict:
    return scenario


def _import_simulator() -> None:
    """Import the simulator and pandas (its results are DataFrames) before the first
    point."""
    importlib.import_module("aqmlab.sim")
    importlib.import_module("pandas")


@dataclass(frozen=True)
class SweepRunner(Runner):
    """A sweep runner of the catalogue: a :class:`aqmlab.sweeps.runners.Runner` that
    calls ``run`` with each point's scenario after ``prepare``, whose ``validate`` is
    the simulator's own check of the prepared scenario and whose ``warmup`` imports
    the simulator. ``ref`` is the ``"module:name"`` the sweeps name it by; ``version``
    is bumped whenever its output changes, so that a stored sweep is not reused."""

    ref: str = ""
    version: int = 0
    prepare: Callable[[ScenarioDict], ScenarioDict] = field(default=_unchanged)

    def __post_init__(self) -> None:
        object.__setattr__(self, "validate", self._validate)
        object.__setattr__(self, "warmup", _import_simulator)

    def __call__(self, scenario: ScenarioDict) -> Any:
        return self.run(self.prepare(scenario))

    def _validate(self, scenario: ScenarioDict) -> None:
        """Raise ValueError if the simulator refuses the prepared scenario."""
        Scenario.from_dict(self.prepare(scenario))

    def base(self, name: str) -> ScenarioDict:
        """The scenario file `name` as a sweep's base: its ``notes`` name this runner,
        its version and the build, so that the stored sweep is tied to them through
        the base scenario's hash."""
        base = scenario_dict(name)
        base["notes"] = f"analysed by {self.ref} version {self.version}, aqmlab build {build_id()}"
        return base


def stored_sweep(ctx: Context, spec: dict[str, Any], tag: str) -> pd.DataFrame:
    """Run (or resume) a sweep of the experiment's group and return its rows.

    The dataset lives in ``OUT/.<group>-sweeps/<tag>-<quick|full>/``, beside the
    experiments' outputs: the ids of a group share it, and an interrupted catalogue
    resumes it. The spec's base scenario should carry :func:`aqmlab.base.build_id` (e.g. in its
    ``notes``), so a stored run of another build or definition is discarded and
    recomputed instead of being mixed in. A failed point fails the experiment."""
    out = ctx.out.parent / f".{ctx.group}-sweeps" / f"{tag}-{'quick' if ctx.quick else 'full'}"
    out.parent.mkdir(parents=True, exist_ok=True)
    try:
        df = sweeps.sweep(spec, out=out, jobs=ctx.jobs, progress=False)
    except SweepMismatch:  # another build or definition: start over
        shutil.rmtree(out, ignore_errors=True)
        df = sweeps.sweep(spec, out=out, jobs=ctx.jobs, progress=False)
    bad = df[df["error"].notna()]
    if len(bad):
        raise RuntimeError(
            f"{len(bad)} of {len(df)} points of the {tag} sweep failed, e.g.: {bad['error'].iloc[0]}"
        )
    return df


def sweep(ctx: Context, tag: str, spec: Callable[[bool], dict[str, Any]]) -> pd.DataFrame:
    """The group's sweep `tag` of ``spec(quick)`` (stored beside the outputs, see
    :func:`stored_sweep`), computed once per group run."""
    return ctx.once(("sweep", tag), lambda: stored_sweep(ctx, spec(ctx.quick), tag))
