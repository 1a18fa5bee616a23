"""Benchmark of the sweep machinery: ``python -m aqmlab.sweeps.bench``.

1. The ARED Figure 1 sweep (``sweeps/ared_fig1.toml``: 6 flow counts x 8 max_p x 3
   seeds, 100 s runs, 144 points) with ``--jobs 1`` and ``--jobs 2``: wall times and the
   speed-up (each run into a fresh directory, so every point is computed).
2. The per-point overhead of the Dask path: a sweep of many very short points (the same
   scenario cut to ``--short-duration``), run (a) in a plain loop in this process,
   (b) with a ``concurrent.futures.ProcessPoolExecutor`` of one process and (c) through
   the sweep machinery with one worker (LocalCluster, Parquet row per point); the
   overhead is (c) - (a) per point, start-up of the cluster reported apart.
3. The machine's own ceiling: the sweep's first points run by one and by two plain
   processes (``ProcessPoolExecutor``, no Dask, nothing written). Two simulations side
   by side may not run twice as fast as one (shared caches and memory bandwidth, other
   load), and no sweep machinery can beat that; the sweep's speed-up is reported
   against it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from . import clusters, execute
from .cli import start_method
from .spec import load_spec


def _default_spec() -> str:
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent / "sweeps" / "ared_fig1.toml"
        if cand.exists():
            return str(cand)
    return "sweeps/ared_fig1.toml"


def _loadavg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "?"


def _call(args):
    return execute.run_point(*args)


def bench_speedup(
    spec_path: str, jobs_list: list[int], duration: str | None, keep: str | None = None
) -> dict[str, Any]:
    """The sweep with each job count, into a fresh directory each time (every point computed).

    Besides wall times it records the CPU time the worker processes got (``cores_obtained``
    = their CPU seconds / running time): on a machine shared with other jobs, two workers
    may get less than two cores, which caps the speed-up whatever the sweep does."""
    spec: Any = load_spec(spec_path)
    if duration:
        spec.base["duration"] = duration
        spec.base["warmup"] = "0s"
    res: dict[str, Any] = {"spec": spec_path, "runs": {}}
    for j in jobs_list:
        t0 = time.perf_counter()
        with clusters.cluster(None, j, len(spec.points), start_method()) as client:
            with tempfile.TemporaryDirectory(prefix="aqmlab-bench-") as out:
                w0 = sum(client.run(time.process_time).values())
                df = execute.sweep(spec, out=out, scheduler=client, progress=False)
                worker_cpu = sum(client.run(time.process_time).values()) - w0
                if keep:
                    shutil.rmtree(keep, ignore_errors=True)
                    shutil.copytree(out, keep)
        total = time.perf_counter() - t0
        st = df.attrs["sweep"]
        r = {
            "points": len(df),
            "failed": int(df["error"].notna().sum()),
            "total_seconds": total,
            "startup_seconds": total - st["run_seconds"],
            "run_seconds": st["run_seconds"],
            "sum_point_seconds": float(df["wall_time"].sum()),
            "worker_cpu_seconds": worker_cpu,
            "loadavg_after": _loadavg(),
        }
        # how many points ran at once on average: the machinery's share of the speed-up
        r["concurrency"] = r["sum_point_seconds"] / r["run_seconds"]
        # how many cores the workers actually got: the machine's share
        r["cores_obtained"] = worker_cpu / r["run_seconds"]
        res["runs"][j] = r
        print(
            f"  jobs={j}: {r['points']} points ({r['failed']} failed) in {total:.1f} s "
            f"(start-up and close {r['startup_seconds']:.1f} s, running {r['run_seconds']:.1f} s); "
            f"{r['concurrency']:.2f} points running at once on average; the workers got "
            f"{r['cores_obtained']:.2f} cores of CPU ({worker_cpu:.1f} s); load average {r['loadavg_after']}",
            flush=True,
        )
    if 1 in res["runs"]:
        one = res["runs"][1]
        for j, r in res["runs"].items():
            if j != 1:
                r["speedup_total"] = one["total_seconds"] / r["total_seconds"]
                r["speedup_run"] = one["run_seconds"] / r["run_seconds"]
                r["speedup_per_core_obtained"] = (
                    r["speedup_run"] * one["cores_obtained"] / r["cores_obtained"] * j
                )
                print(
                    f"  speed-up jobs={j} vs 1: {r['speedup_total']:.2f} (whole command), "
                    f"{r['speedup_run']:.2f} (running phase); with {j} full cores instead of the "
                    f"{r['cores_obtained']:.2f} obtained: {r['speedup_per_core_obtained']:.2f}"
                )
    return res


def bench_overhead(spec_path: str, n: int, short_duration: str) -> dict[str, Any]:
    """Per-point cost of the sweep machinery on `n` very short points: wall time per point
    (sensitive to other load on the machine) and CPU time per point (client + scheduler +
    worker, against the same points run in a plain loop: less sensitive to other load)."""
    s = load_spec(spec_path)
    s.base["duration"] = short_duration
    s.base["warmup"] = "0s"
    s.points = s.points[:n]
    n = len(s.points)
    tasks = [(s.base, p.overrides, p.seed, s.runner, s.metrics, False) for p in s.points]
    _call(tasks[0])  # import and warm up
    t0, c0 = time.perf_counter(), time.process_time()
    for t in tasks:
        r = _call(t)
        assert r["error"] is None, r["error"]
    direct, direct_cpu = (time.perf_counter() - t0) / n, (time.process_time() - c0) / n

    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=1) as ex:
        list(ex.map(_call, tasks[:1]))
        t1 = time.perf_counter()
        list(ex.map(_call, tasks))
        t2 = time.perf_counter()
    pool_start, pool = t1 - t0, (t2 - t1) / n

    # the sweep machinery with one worker, on a cluster made as `aqmlab sweep` makes it
    t0 = time.perf_counter()
    with clusters.cluster(None, 1, n, start_method()) as client:
        with tempfile.TemporaryDirectory(prefix="aqmlab-bench-") as out:
            w0 = sum(client.run(time.process_time).values())
            c0 = time.process_time()
            df = execute.sweep(s, out=out, scheduler=client, progress=False)
            client_cpu = time.process_time() - c0
            worker_cpu = sum(client.run(time.process_time).values()) - w0
    total = time.perf_counter() - t0
    st = df.attrs["sweep"]
    startup = total - st["run_seconds"]  # cluster, scatter, warm-up, writing nothing
    dask_pp = st["run_seconds"] / n
    cpu_pp = (client_cpu + worker_cpu) / n
    res = {
        "points": n,
        "short_duration": short_duration,
        "direct_per_point": direct,
        "direct_cpu_per_point": direct_cpu,
        "processpool_per_point": pool,
        "processpool_startup": pool_start,
        "dask_per_point": dask_pp,
        "dask_startup": startup,
        "dask_cpu_per_point": cpu_pp,
        "client_cpu_per_point": client_cpu / n,
        "worker_cpu_per_point": worker_cpu / n,
        "overhead_per_point_vs_direct": dask_pp - direct,
        "overhead_per_point_vs_processpool": dask_pp - pool,
        "overhead_cpu_per_point": cpu_pp - direct_cpu,
        "loadavg_after": _loadavg(),
    }
    print(
        f"  {n} points of {short_duration}: direct loop {direct * 1e3:.1f} ms/point ({direct_cpu * 1e3:.1f} ms CPU); "
        f"ProcessPoolExecutor(1) {pool * 1e3:.1f} ms/point (start-up {pool_start:.2f} s); "
        f"sweep on Dask {dask_pp * 1e3:.1f} ms/point incl. writing the row ({cpu_pp * 1e3:.1f} ms CPU: "
        f"client+scheduler {client_cpu / n * 1e3:.1f}, worker {worker_cpu / n * 1e3:.1f}), "
        f"start-up {startup:.2f} s"
    )
    print(
        f"  overhead per point: {res['overhead_per_point_vs_direct'] * 1e3:.1f} ms wall vs the direct loop, "
        f"{res['overhead_per_point_vs_processpool'] * 1e3:.1f} ms vs plain processes, "
        f"{res['overhead_cpu_per_point'] * 1e3:.1f} ms of CPU; plus {startup:.1f} s of start-up once per sweep; "
        f"load average {res['loadavg_after']}",
        flush=True,
    )
    return res


def bench_ceiling(
    spec_path: str, jobs_list: list[int], n: int, duration: str | None
) -> dict[str, Any]:
    """The speed-up of plain processes on the sweep's first `n` points (no Dask, no rows)."""
    spec: Any = load_spec(spec_path)
    if duration:
        spec.base["duration"] = duration
        spec.base["warmup"] = "0s"
    pts = spec.points[:n]
    args = [
        (spec.base, p.overrides, p.seed, spec.runner, spec.metrics, spec.default_metrics)
        for p in pts
    ]
    res: dict[str, Any] = {"points": len(pts), "runs": {}}
    for j in jobs_list:
        with ProcessPoolExecutor(max_workers=j) as pool:
            list(pool.map(_call, args[:j]))  # start the processes and import the simulator
            t0 = time.perf_counter()
            list(pool.map(_call, args))
            res["runs"][j] = time.perf_counter() - t0
    one = res["runs"].get(1)
    for j, t in res["runs"].items():
        line = f"  {j} plain process(es): {len(pts)} points in {t:.1f} s"
        if one and j != 1:
            res[f"speedup_{j}"] = one / t
            line += f": speed-up {one / t:.2f}"
        print(line + f"; load average {_loadavg()}", flush=True)
    return res


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m aqmlab.sweeps.bench", description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--spec", default=_default_spec(), help="sweep file (default sweeps/ared_fig1.toml)"
    )
    p.add_argument(
        "--jobs", default="1,2", help="comma-separated job counts to compare (default 1,2)"
    )
    p.add_argument(
        "--duration",
        default=None,
        help="override the runs' duration (e.g. 20s) for a quicker check",
    )
    p.add_argument(
        "--overhead-points",
        type=int,
        default=100,
        help="points of the overhead measurement (at most the sweep's number of points)",
    )
    p.add_argument(
        "--short-duration", default="0.5s", help="duration of the overhead measurement's points"
    )
    p.add_argument("--skip-speedup", action="store_true")
    p.add_argument("--skip-overhead", action="store_true")
    p.add_argument(
        "--ceiling-points",
        type=int,
        default=48,
        help="points of the plain-process ceiling measurement (0 skips it)",
    )
    p.add_argument("--json", default=None, help="also write the figures to this JSON file")
    p.add_argument(
        "--keep",
        default=None,
        metavar="DIR",
        help="keep the dataset of the last speed-up run in DIR (for plot-sweep)",
    )
    a = p.parse_args(argv)
    print(
        f"machine: {os.cpu_count()} cores, load average {_loadavg()}; workers started by {start_method()}"
    )
    out: dict[str, Any] = {"cpus": os.cpu_count()}
    if not a.skip_overhead:
        print("per-point overhead:")
        out["overhead"] = bench_overhead(a.spec, a.overhead_points, a.short_duration)
    if not a.skip_speedup:
        print(f"speed-up on {a.spec}:")
        jobs = [int(x) for x in a.jobs.split(",")]
        out["speedup"] = bench_speedup(a.spec, jobs, a.duration, a.keep)
        if a.ceiling_points > 0:
            print("the machine's ceiling (plain processes, same points):")
            out["ceiling"] = bench_ceiling(a.spec, jobs, a.ceiling_points, a.duration)
            sp = out["speedup"]["runs"].get(2, {}).get("speedup_run")
            ce = out["ceiling"].get("speedup_2")
            if sp and ce:
                print(
                    f"  the sweep's running-phase speed-up {sp:.2f} is {sp / ce:.0%} of the plain processes' {ce:.2f}"
                )
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
