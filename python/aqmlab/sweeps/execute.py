"""Running a sweep: one code path on Dask distributed.

Without a scheduler address the sweep starts an embedded
``LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True)`` (all cores by
default); with one (``tcp://HOST:PORT``) it connects to that cluster. Either way the
client submits the missing points (a bounded window of them at a time), and writes
each point's row as soon as it completes, so an interrupted sweep loses at most the
points that were running.
"""

from __future__ import annotations

import copy
import os
import sys
import tempfile
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..base import positive_int
from . import lifeline as _lifeline
from . import metrics as _metrics
from . import paths as _paths
from . import runners as _runners
from . import store
from .clusters import cluster
from .spec import Point, SweepSpec, load_spec

_RUNNER_CACHE: dict[str, Any] = {}


def run_point(
    base: Mapping[str, Any],
    overrides: Sequence[tuple[str, Any]],
    seed: int,
    runner: str,
    metric_paths: Sequence[str],
    optional_metrics: bool,
) -> dict[str, Any]:
    """Run one point (in a worker): returns ``{"metrics", "wall_time", "error"}``; never raises
    for a failure of the runner or of the metric extraction (the error is recorded)."""
    t0 = time.perf_counter()
    try:
        fn = _RUNNER_CACHE.get(runner)
        if fn is None:
            fn = _RUNNER_CACHE[runner] = _runners.resolve(runner)
        sc = copy.deepcopy(dict(base))
        for path, value in overrides:
            _paths.set_path(sc, path, copy.deepcopy(value))
        sc["seed"] = seed
        summary = _runners.summary_of(fn(sc))
        cols = _metrics.extract(summary, metric_paths, optional=optional_metrics, scenario=sc)
        return {"metrics": cols, "wall_time": time.perf_counter() - t0, "error": None}
    except Exception as e:  # a failed point is recorded, not fatal
        msg = f"{type(e).__name__}: {e}"
        tb = traceback.extract_tb(e.__traceback__)
        if tb:
            fr = tb[-1]
            msg += f" (at {Path(fr.filename).name}:{fr.lineno})"
        return {"metrics": {}, "wall_time": time.perf_counter() - t0, "error": msg}


def run_points(
    base: Mapping[str, Any],
    batch: Sequence[tuple[Sequence[tuple[str, Any]], int]],
    runner: str,
    metric_paths: Sequence[str],
    optional_metrics: bool,
) -> list:
    """Run several points in one task (``batch``: ``(overrides, seed)`` pairs); one result
    per point, as :func:`run_point` gives it."""
    _lifeline.bind_worker()
    return [run_point(base, ov, seed, runner, metric_paths, optional_metrics) for ov, seed in batch]


def batch_size(
    point_seconds: float, remaining: int, workers: int, target: float = 0.5, cap: int = 32
) -> int:
    """Points per task: enough that a task lasts about `target` seconds (the per-task cost
    of the cluster, some 20 ms of CPU, then stays a few % of the work), at most `cap`, and
    small enough that every worker still gets two tasks of what remains."""
    if not point_seconds > 0:
        return 1
    want = max(1, int(target / point_seconds))
    fair = max(1, remaining // (2 * max(1, workers)))
    return max(1, min(want, fair, cap))


def _identity(x: Any) -> Any:
    return x


def warm_worker(runner: str) -> None:
    """Import the runner in a worker (and call its ``warmup``) before the points arrive;
    bind the worker to the sweep's process (see lifeline)."""
    _lifeline.bind_worker()
    fn = _RUNNER_CACHE.get(runner)
    if fn is None:
        fn = _RUNNER_CACHE[runner] = _runners.resolve(runner)
    w = getattr(fn, "warmup", None)
    if callable(w):
        w()


def validate_points(spec: SweepSpec) -> None:
    """Check the substituted scenarios with the runner's ``validate`` before anything runs.

    One point per value of every axis is checked (so every value is seen at least once);
    ValueError names the point, its parameters and the scenario's own error.
    """
    if not spec.validate or not spec.points:
        return
    fn = _runners.resolve(spec.runner)
    check = getattr(fn, "validate", None)
    if check is None:
        return
    chosen: dict[int, Point] = {}
    for a in spec.axes:
        seen = set()
        for p in spec.points:
            key = tuple(p.params.get(c) for c in a.columns if c != "seed")
            if key not in seen:
                seen.add(key)
                chosen.setdefault(p.index, p)
    if not chosen:
        chosen[0] = spec.points[0]
    for i in sorted(chosen):
        p = chosen[i]
        try:
            check(spec.scenario(p))
        except ValueError as e:
            vals = ", ".join(f"{k}={v}" for k, v in p.params.items())
            raise ValueError(
                f"point {p.index} ({vals}, seed={p.seed}): invalid scenario: {e}"
            ) from None


class _Progress:
    def __init__(self, total: int, done: int, enabled: bool) -> None:
        self.ok = 0
        self.failed = 0
        self.left = total - done
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=total,
                initial=done,
                unit="pt",
                dynamic_ncols=True,
                file=sys.stderr,
                desc="sweep",
                smoothing=0.1,
            )
            self._post()

    def _post(self) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(
                f"completed={self.ok} failed={self.failed} remaining={self.left}", refresh=False
            )

    def update(self, ok: bool) -> None:
        if ok:
            self.ok += 1
        else:
            self.failed += 1
        self.left -= 1
        if self.bar is not None:
            self._post()
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(  # noqa: PLR0913 - aqmlab.sweep's documented options (a contract)
    spec: str | os.PathLike | Mapping[str, Any] | SweepSpec,
    out: str | os.PathLike | None = None,
    jobs: int | None = None,
    scheduler: Any = None,
    progress: bool = True,
    *,
    force_new: bool = False,
    extend: bool = False,
    retry_failed: bool = False,
    include_failed: bool = True,
    start_method: str | None = None,
    batch: int | None = None,
):
    """Run a sweep and return its rows as a pandas DataFrame (one row per point, in point order).

    `spec`: a sweep TOML path or a dict of the same structure (docs/sweeps.md).
    `out`: the dataset directory; finished points found there are not computed again
    (``None``: a temporary directory, removed afterwards). `jobs`: worker processes of the
    embedded LocalCluster (default: all cores). `scheduler`: a Dask scheduler address
    (``"tcp://host:8786"``), a ``dask.distributed.Client`` or a cluster object; the sweep
    then runs there. `force_new` / `extend` / `retry_failed`: see :func:`store.prepare`.
    `start_method`: how the embedded cluster starts its worker processes, ``"spawn"``
    (default; environment variable ``AQMLAB_SWEEP_START_METHOD`` overrides it),
    ``"forkserver"`` or ``"fork"`` (starts in a fraction of a second instead of seconds,
    but only safe in a process without other busy threads; the CLI uses it on Linux).
    `batch`: at most this many points per cluster task (default 32; 1 sends every point
    alone). Short points are grouped so that a task lasts about half a second.

    Invalid axis paths, values or scenarios raise ValueError before anything runs. A point
    whose runner raises is recorded with its ``error`` and the sweep goes on.
    ``df.attrs["sweep"]`` has timings (cluster start-up, run time, points computed).
    """
    if start_method not in (None, "spawn", "forkserver", "fork"):
        raise ValueError(f"start_method must be spawn, forkserver or fork, got {start_method!r}")
    if jobs is not None:
        positive_int("jobs", jobs)
    if batch is not None:
        positive_int("batch", batch)
    s = load_spec(spec)
    _runners.resolve(s.runner)  # importable here (workers import it too)
    validate_points(s)
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="aqmlab-sweep-")
        out = tmp
    try:
        options = _Options(
            jobs,
            scheduler,
            progress,
            force_new,
            extend,
            retry_failed,
            start_method,
            32 if batch is None else batch,
        )
        stats = _execute(s, Path(out), options)
        df = store.load(out, include_failed=include_failed)
        df.attrs["sweep"] = stats
        return df
    finally:
        if tmp is not None:
            store.remove_tree(tmp)


@dataclass(frozen=True)
class _Options:
    """How :func:`sweep` computes the points (its arguments past the spec and the output)."""

    jobs: int | None = None
    scheduler: Any = None
    progress: bool = True
    force_new: bool = False
    extend: bool = False
    retry_failed: bool = False
    start_method: str | None = None
    batch: int = 32


def _todo(s: SweepSpec, out: Path, o: _Options) -> tuple[list[Point], dict[str, Any]]:
    """The points of `s` to compute in `out` (prepared for them), and the stats so far."""
    store.prepare(out, s, force_new=o.force_new, extend=o.extend)
    have = store.finished(out)
    ids = {p.id for p in s.points}
    redo = store.failed(out, have & ids) if o.retry_failed else set()
    todo = [p for p in s.points if p.id not in have or p.id in redo]
    stats: dict[str, Any] = {
        "points": len(s.points),
        "already_done": len(s.points) - len(todo),
        "computed": 0,
        "failed": 0,
        "startup_seconds": 0.0,
        "run_seconds": 0.0,
        "out": str(out),
    }
    return todo, stats


def _execute(s: SweepSpec, out: Path, o: _Options) -> dict[str, Any]:
    """Compute the points of `s` not yet in `out` on a cluster; returns the timings and
    counts that ``df.attrs["sweep"]`` shows."""
    todo, stats = _todo(s, out, o)
    if not todo:
        return stats
    ptypes = store.param_types(s)
    t0 = time.perf_counter()
    with cluster(o.scheduler, o.jobs, len(todo), o.start_method) as client:
        nthreads = sum(client.nthreads().values()) or 1
        stats["workers"] = nthreads
        # The base scenario goes to the cluster once, as a task result rather than scattered
        # data: a task has lineage, so if the worker holding it dies it is recomputed.
        base_f = client.submit(
            _identity,
            s.base,
            key=f"aqmlab-base-{s.fixed_hash}-{os.getpid()}-{int(t0 * 1e6)}",
            pure=False,
        )
        client.run(warm_worker, s.runner)
        store.make_row(
            todo[0].to_dict(), ptypes, {"x": 0.0}, 0.0, None
        )  # imports (seconds): start-up
        t1 = time.perf_counter()
        stats["startup_seconds"] = t1 - t0
        bar = _Progress(len(s.points), len(s.points) - len(todo), o.progress)
        stats["max_batch"] = 1
        run = _Dispatch(
            client, base_f, s, todo, nthreads, o.batch, f"{os.getpid()}-{int(t0 * 1e6)}"
        )
        try:
            run.drive(out, ptypes, bar, stats, o.progress)
        except BaseException:
            run.cancel()
            raise
        finally:
            bar.close()
        stats["run_seconds"] = time.perf_counter() - t1
        return stats


#: What a task returns for each of its points (see :func:`run_point`).
PointResult = dict[str, Any]


class _Dispatch:
    """The points on their way through the cluster.

    Points go one per task until a few have been timed; then as many per task as make a
    task last about half a second (:func:`batch_size`), so that short points do not pay
    the cluster's per-task cost each. A task of several points that fails as a whole (its
    worker died) is split: its points are sent again one by one, so only the point that
    kills a worker is recorded as failed.
    """

    def __init__(
        self,
        client: Any,
        base_f: Any,
        s: SweepSpec,
        todo: list[Point],
        nthreads: int,
        batch_cap: int,
        tag: str,
    ) -> None:
        self.client = client
        self.base_f = base_f  #: the future holding the base scenario
        self.s = s
        self.nthreads = nthreads
        self.batch_cap = batch_cap
        self.tag = tag  #: makes the tasks' keys unique to this run
        self.window = max(16, 4 * nthreads)
        self.queue = list(reversed(todo))  #: points not sent yet, next last
        self.solo: list[Point] = []  #: points of a failed group, to send one at a time
        self.times: list[float] = []  #: wall time of the points that succeeded (s)
        self.futures: dict[Any, list[Point]] = {}  #: tasks in flight and their points
        self.max_batch = 1
        self.ac: Any = None  #: the as_completed iterator over the tasks

    def submit(self) -> Any:
        """Send the next group of points as one task."""
        if self.solo:
            group = [self.solo.pop()]
        else:
            n = 1
            if len(self.times) >= self.nthreads:
                median = sorted(self.times)[len(self.times) // 2]
                n = batch_size(median, len(self.queue), self.nthreads, cap=self.batch_cap)
            group = [self.queue.pop() for _ in range(min(n, len(self.queue)))]
        self.max_batch = max(self.max_batch, len(group))
        f = self.client.submit(
            run_points,
            self.base_f,
            [(p.overrides, p.seed) for p in group],
            self.s.runner,
            self.s.metrics,
            self.s.default_metrics,
            key=f"aqmlab-points-{group[0].id}-{self.tag}",
            pure=False,
        )
        self.futures[f] = group
        return f

    def top_up(self) -> None:
        """Keep the cluster busy, but not more.

        Once points are grouped, at most one task per worker thread is in flight: tasks
        that depend on the base scenario are not held back by the scheduler, so more would
        sit queued on a worker, and a point that kills that worker would take them with
        it. The points of a group whose worker died are sent again one at a time with
        nothing else running, so that only the point that kills a worker is blamed (the
        scheduler retries a task whose worker died, and the result of a task finished just
        before a crash can be lost with it).
        """
        if self.solo:
            if not self.futures:
                self.ac.add(self.submit())
            return
        limit = self.nthreads if len(self.times) >= self.nthreads else self.window
        while self.queue and len(self.futures) < limit:
            self.ac.add(self.submit())

    def drive(
        self,
        out: Path,
        ptypes: dict[str, Any],
        bar: _Progress,
        stats: dict[str, Any],
        progress: bool,
    ) -> None:
        """Send every point and write each one's row as its task completes."""
        from dask.distributed import as_completed

        self.ac = as_completed([self.submit() for _ in range(min(self.window, len(self.queue)))])
        warned = False
        for fut in self.ac:
            group = self.futures.pop(fut)
            results = self._results(fut, group)
            fut.release()
            if results is None:  # split, sent again point by point
                self.solo.extend(reversed(group))
                self.top_up()
                continue
            for p, r in zip(group, results):
                row = store.make_row(p.to_dict(), ptypes, r["metrics"], r["wall_time"], r["error"])
                store.write_point(out, p.id, row)
                stats["computed"] += 1
                if r["error"] is None and r["wall_time"] == r["wall_time"]:
                    self.times.append(r["wall_time"])
                if r["error"] is not None:
                    stats["failed"] += 1
                    if not warned and progress:
                        warned = True
                        print(
                            f"\naqmlab sweep: point {p.index} failed: {r['error']} "
                            "(recorded; the sweep goes on)",
                            file=sys.stderr,
                        )
                bar.update(r["error"] is None)
            self.top_up()
        stats["max_batch"] = self.max_batch

    def _results(self, fut: Any, group: list[Point]) -> list[PointResult] | None:
        """One result per point of a completed task; None for a group to split (its task
        failed as a whole); for a single point whose task failed (its worker died), the
        failure as that point's error. A cancelled task stops the sweep."""
        try:
            rs: Any = fut.result()
        except Exception as e:  # noqa: BLE001 - recorded below
            rs = e
        if isinstance(rs, BaseException) and "Cancelled" in type(rs).__name__:
            # not the points' fault (scheduler gone, connection lost): stop, keep what is done
            raise RuntimeError(
                f"the Dask cluster cancelled point {group[0].index} ({type(rs).__name__}: {rs}); "
                "finished points are kept, re-run the command to resume"
            ) from None
        if isinstance(rs, BaseException) and len(group) > 1:
            return None
        if isinstance(rs, BaseException) or not isinstance(rs, list) or len(rs) != len(group):
            # worker died (KilledWorker), ...
            err = rs if isinstance(rs, BaseException) else TypeError(f"unexpected result {rs!r}")
            failed = {
                "metrics": {},
                "wall_time": float("nan"),
                "error": f"{type(err).__name__}: {err}",
            }
            return [failed] * len(group)
        return rs

    def cancel(self) -> None:
        """Cancel the tasks in flight (the sweep is stopping)."""
        for f in list(self.futures):
            try:
                f.cancel()
            except Exception:
                pass
