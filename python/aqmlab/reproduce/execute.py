"""Running the catalogue: groups in a process pool, each id into its own directory.

Each id writes into ``OUT/<id>/`` (through a temporary directory, so that nothing
half-written stays): its data (CSV), plots (PNG), ``comparison.csv`` and ``meta.json``.
An experiment's failure is recorded in its ``meta.json`` and the catalogue goes on.
"""

from __future__ import annotations

import multiprocessing
import time
import traceback
from collections.abc import Hashable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Callable

from ..base import staged_dir
from .context import Context
from .registry import Group

Result = tuple[str, str, float]


def run_group(group: Group, ids: Sequence[str], out: str, quick: bool, jobs: int) -> list[Result]:
    """Run the ids of one group in this process; returns (id, status, seconds) per id."""
    import matplotlib

    matplotlib.use("Agg")
    shared: dict[Hashable, Any] = {}
    by_id = {e.id: e for e in group.experiments}
    results = []
    for id_ in ids:
        exp = by_id[id_]
        # the id's directory is replaced whole when it is done: nothing half-written stays
        with staged_dir(Path(out) / id_) as tmp:
            ctx = Context(id_, exp.title, group.paper, tmp, quick, jobs, group.name, shared)
            t0 = time.perf_counter()
            try:
                exp.run(ctx)
                status, err = "done", ""
            except Exception:  # an experiment's failure is recorded, the catalogue goes on
                status, err = "error", traceback.format_exc()
            secs = time.perf_counter() - t0
            ctx.finish(status, err, secs)
        results.append((id_, status, secs))
    return results


#: Runs the ids of the group of a name in a worker process: ``(name, ids, out, quick,
#: jobs) -> results`` (a module-level function, which pickles by name).
GroupWorker = Callable[[str, list[str], str, bool, int], list[Result]]


def run_groups(
    batches: Sequence[tuple[Group, list[str]]],
    out: Path,
    quick: bool,
    jobs: int,
    progress: bool,
    worker: GroupWorker,
) -> dict[str, str]:
    """Run each (group, ids) batch, the groups in parallel (through `worker`, in other
    processes) when ``jobs`` > 1 and there are several. Returns ``{id: status}``."""
    total = sum(len(ids) for _, ids in batches)
    statuses: dict[str, str] = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="exp", desc="reproduce")

    def record(results: list[Result]) -> None:
        for id_, st, _ in results:
            statuses[id_] = st
            if bar:
                bar.update(1)
                bar.set_postfix_str(id_)

    # experiments that themselves run sweeps get the cores; the catalogue runs groups in parallel
    inner_jobs = 1 if jobs > 1 and len(batches) > 1 else jobs
    if jobs <= 1 or len(batches) == 1:
        for g, ids in batches:
            record(run_group(g, ids, str(out), quick, inner_jobs))
    else:
        # spawned, not forked: a process that already ran a Dask client (a sweep, an
        # evaluation) keeps distributed's helper threads, and a forked child inherits
        # their executors without the threads and waits on them for ever
        spawn = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=spawn) as pool:
            # a worker looks its group up by name: experiments may hold closures, which
            # do not pickle
            futs = [
                pool.submit(worker, g.name, ids, str(out), quick, inner_jobs) for g, ids in batches
            ]
            for f in as_completed(futs):
                record(f.result())
    if bar:
        bar.close()
    return statuses
