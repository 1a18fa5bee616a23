"""Running ``aqmlab evaluate``: :func:`evaluate` chooses the runs and the AQMs
(:mod:`.selection`), runs every run's sweep on one Dask client, and collects the rows
(:mod:`.results`) and the report (:mod:`.report`).

Each run (a scenario, or its ECN variant) is one :mod:`aqmlab.sweeps` sweep, stored in
``OUT/sweeps/<id>[+ecn][-quick]/``. All the sweeps run through one Dask client (an
embedded ``LocalCluster`` of ``jobs`` workers, or the cluster at ``scheduler``), every
point is stored as it finishes, and a re-run computes only the missing points; a
changed AQM list or seed count extends the sweeps (the finished points that are still
wanted are kept). A stored sweep of another build, or of another form, is moved aside.
At the end the rows become ``OUT/metrics.parquet``, ``OUT/flows.parquet``,
``OUT/evaluate.json`` (what was run, with the timings) and the report (``OUT/plots/``,
``OUT/index.html``).
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from ..base import build_id as package_build_id
from ..base import check_out_dir, positive_int, set_aside
from ..compare import tcp_variants
from ..sweeps import SweepSpec, clusters, execute, load_spec, store
from ..sweeps import sweep as run_sweep
from . import report, results
from .selection import RUNNER, Run, queues_from, select, sweep_spec

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["evaluate", "Options", "DEFAULT_SEEDS", "build_id", "checked_specs", "run_sweeps"]

#: Seeds per (scenario, variant, AQM) when none are asked for: 1..N (quick -> N).
DEFAULT_SEEDS = {False: 5, True: 3}
#: The file in a stored sweep's directory that names the build which computed it.
BUILD_FILE = "aqmlab-build"

PathLike = Union[str, "os.PathLike[str]"]


@dataclass(frozen=True)
class Options:
    """How the sweeps of an evaluation run (checked when made; see :func:`evaluate`)."""

    quick: bool = False
    #: seeds 1..N per (scenario, variant, AQM); None: :data:`DEFAULT_SEEDS`
    seeds: int | None = None
    #: worker processes of the embedded local cluster (None: every core)
    jobs: int | None = None
    #: a Dask scheduler address, client or cluster instead of a local cluster
    scheduler: Any = None
    progress: bool = True
    #: compute again the points recorded as failed
    retry_failed: bool = False
    #: how the local cluster starts its workers (see ``aqmlab.sweep``)
    start_method: str | None = None
    #: TCP variants, each a run of every point (``--tcp``; empty: the scenarios' own)
    tcp: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.seeds is not None:
            positive_int("seeds", self.seeds)
        if self.jobs is not None:
            positive_int("jobs", self.jobs)
        if self.jobs is not None and self.scheduler is not None:
            raise ValueError("give jobs or scheduler, not both (jobs sizes the local cluster)")

    @property
    def seed_count(self) -> int:
        """The number of seeds each (scenario, variant, AQM) runs with."""
        return self.seeds if self.seeds is not None else DEFAULT_SEEDS[self.quick]


def evaluate(  # noqa: PLR0913 - the public signature (docs/evaluate.md)
    aqms: str | Sequence[str] | Mapping[str, Mapping[str, Any]] | None = None,
    aqm_file: PathLike | None = None,
    scenarios: str | Sequence[str] | None = None,
    quick: bool = False,
    out: PathLike = "evaluate-out",
    jobs: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    seeds: int | None = None,
    *,
    retry_failed: bool = False,
    start_method: str | None = None,
    tcp: str | Sequence[str] | None = None,
) -> pd.DataFrame:
    """Run the RFC 7928 scenarios for a set of AQMs; write and return the metrics.

    `aqms`: queue types at their defaults (``"red,codel"`` or a list), or a dict of label
    -> queue table; `aqm_file`: a TOML file of ``[queue.LABEL]`` tables (``aqmlab compare
    --aqm-file``); neither: :data:`aqmlab.evaluate.DEFAULT_AQMS`. A queue without ``limit`` /
    ``limit_bytes`` gets the scenario's buffer. `scenarios`: ids or RFC section prefixes
    (:func:`select`; default all). `quick`: 60 s runs (10 s warm-up) instead of 300 s
    (30 s), 3 seeds instead of 5; `seeds` overrides the number of seeds (1..seeds).
    `jobs` / `scheduler` / `start_method`: the Dask cluster, as for ``aqmlab.sweep``.
    `tcp`: TCP variants (``"cubic,bbr,prague"`` or a list): every point runs once with
    each, all its TCP flows sending with it (:func:`aqmlab.compare.with_tcp`); the
    tables gain the key column ``tcp``.

    Writes ``out/sweeps/``, ``metrics.parquet``, ``flows.parquet``, ``evaluate.json``,
    ``plots/`` and ``index.html``. Returns metrics.parquet's rows (failed points are left
    out; ``df.attrs["evaluate"]`` has the run's record, with the failed points and each
    sweep's counts). Bad arguments raise ValueError before anything is written.
    """
    t0 = time.perf_counter()
    transports = tuple(tcp_variants(tcp if isinstance(tcp, str) or tcp is None else ",".join(tcp)))
    options = Options(
        bool(quick), seeds, jobs, scheduler, progress, retry_failed, start_method, transports
    )
    queues = queues_from(aqms, aqm_file)
    runs = select(scenarios)
    out = check_out_dir(out, inside=True)
    specs = checked_specs(runs, queues, options)
    build = build_id()
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    stats = run_sweeps(out, runs, specs, options, build)
    metrics, flows, failed = results.assemble(out, runs, specs, queues, options.quick)
    info: dict[str, Any] = {
        "aqms": queues,
        "scenarios": [r.id for r in runs],
        "quick": options.quick,
        **({"tcp": list(options.tcp)} if options.tcp else {}),
        "seeds": list(range(1, options.seed_count + 1)),
        "jobs": jobs,
        "scheduler": None if scheduler is None else str(scheduler),
        "runner": RUNNER,
        "build": build,
        "started": started,
        "sweeps": stats,
        "failed": failed,
        "rows": len(metrics),
    }
    results.write_tables(out, metrics, flows)
    info["wall_seconds"] = time.perf_counter() - t0
    report.write(out, metrics, info, [r.info() for r in runs])
    info["wall_seconds"] = time.perf_counter() - t0
    results.write_json(out / "evaluate.json", info)
    metrics.attrs["evaluate"] = info
    return metrics


def checked_specs(
    runs: Sequence[Run], queues: Mapping[str, Mapping[str, Any]], options: Options
) -> list[SweepSpec]:
    """Every run's sweep, read and validated (the runner checks one scenario per value)
    before anything runs: a bad parameter is refused up front, naming the scenario."""
    specs = []
    for r in runs:
        try:
            s = load_spec(sweep_spec(r, queues, options.quick, options.seed_count, options.tcp))
            execute.validate_points(s)
        except ValueError as e:
            raise ValueError(f"scenario {r.id}: {e}") from None
        specs.append(s)
    return specs


#: The modules whose code decides a run's numbers besides the simulator: the scenarios'
#: definitions, the point's run and its metrics.
_RESULT_MODULES = ("setup.py", "scenarios.py", "sensitivity.py", "point.py", "metrics.py")


def build_id() -> str:
    """The digest of the package version, the compiled simulator (the catalogue's build)
    and the source of :data:`_RESULT_MODULES`, so that a changed scenario or metric
    definition is computed again rather than mixed with stored runs."""
    h = hashlib.sha256(package_build_id().encode())
    for name in _RESULT_MODULES:
        h.update(Path(__file__).with_name(name).read_bytes())
    return h.hexdigest()[:16]


def _keep_or_set_aside(d: Path, build: str, fixed_hash: str, progress: bool) -> None:
    """A stored sweep computed by another build, or of another form (its base, runner,
    metrics or axis paths: ``fixed_hash``), is moved aside to ``<d>.superseded-<tag>``
    (never mixed with this build's points, nothing deleted); then `d` is marked with
    this build."""
    f = d / BUILD_FILE
    m = store.read_manifest(d) if d.is_dir() else None
    if m is not None:
        old = f.read_text().strip() if f.exists() else "unknown"
        why = "another build of aqmlab" if old != build else None
        if why is None and m.get("fixed_hash") != fixed_hash:
            why, old = "another form of the sweep", str(m.get("fixed_hash"))
        if why is not None:
            dest = set_aside(d, old[:8])
            if progress:
                print(
                    f"aqmlab evaluate: {d} was computed by {why}; moved to {dest}", file=sys.stderr
                )
    d.mkdir(parents=True, exist_ok=True)
    if not f.exists() or f.read_text().strip() != build:
        f.write_text(build + "\n")


def _todo(spec: Any, d: Path, retry_failed: bool) -> int:
    """How many points of `spec` are not stored in `d` (a rough count for the cluster size:
    stored points of another build are counted as done)."""
    have = store.finished(d) if d.is_dir() else set()
    n = sum(p.id not in have for p in spec.points)
    if retry_failed and have:
        n += len(store.failed(d, have & {p.id for p in spec.points}))
    return n


def run_sweeps(
    out: Path, runs: Sequence[Run], specs: Sequence[SweepSpec], options: Options, build: str
) -> dict[str, dict[str, Any]]:
    """Run (or resume, or extend) every sweep on one Dask client; returns each sweep's
    counts and timings (the sweep engine's ``df.attrs["sweep"]``)."""
    dirs = [out / "sweeps" / r.dirname(options.quick) for r in runs]
    for s, d in zip(specs, dirs):
        _keep_or_set_aside(d, build, s.fixed_hash, options.progress)
    todo = sum(_todo(s, d, options.retry_failed) for s, d in zip(specs, dirs))
    stats: dict[str, dict[str, Any]] = {}
    t0 = time.perf_counter()
    with ExitStack() as stack:
        client = (
            stack.enter_context(
                clusters.cluster(options.scheduler, options.jobs, todo, options.start_method)
            )
            if todo
            else None
        )
        startup = time.perf_counter() - t0
        for i, (r, s, d) in enumerate(zip(runs, specs, dirs)):
            if options.progress:
                print(
                    f"aqmlab evaluate: [{i + 1}/{len(runs)}] {r.id}: {r.scenario.title} "
                    f"({len(s.points)} points)",
                    file=sys.stderr,
                )
            df = run_sweep(
                s,
                out=d,
                scheduler=client,
                progress=options.progress,
                extend=True,
                retry_failed=options.retry_failed,
            )
            st = dict(df.attrs.get("sweep", {}))
            st.pop("out", None)
            stats[r.id] = st
    stats["_cluster"] = {"startup_seconds": startup, "points_to_compute": todo}
    return stats
