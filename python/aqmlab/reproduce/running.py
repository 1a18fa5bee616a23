"""Running the catalogue: groups in a process pool, each id into its own directory,
and the sweeps that experiments store between runs (tied to the build that made them).

Each id writes into ``OUT/<id>/`` (through a temporary directory, so that nothing
half-written stays): its data (CSV), plots (PNG), ``comparison.csv`` and ``meta.json``.
An experiment's failure is recorded in its ``meta.json`` and the catalogue goes on.
"""

from __future__ import annotations

import multiprocessing
import shutil
import time
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Hashable, List, Sequence, Tuple

from ..base import staged_dir
from .context import Context
from .registry import Group

if TYPE_CHECKING:
    import pandas as pd


def stored_sweep(ctx: Context, spec: Dict[str, Any], tag: str) -> pd.DataFrame:
    """Run (or resume) a sweep of the experiment's group and return its rows.

    The dataset lives in ``OUT/.<group>-sweeps/<tag>-<quick|full>/``, beside the
    experiments' outputs: the ids of a group share it, and an interrupted catalogue
    resumes it. The spec's base scenario should carry :func:`aqmlab.base.build_id` (e.g. in its
    ``notes``), so a stored run of another build or definition is discarded and
    recomputed instead of being mixed in. A failed point fails the experiment."""
    from .. import sweeps
    from ..sweeps.store import SweepMismatch

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


Result = Tuple[str, str, float]


def run_group(group: Group, ids: Sequence[str], out: str, quick: bool, jobs: int) -> List[Result]:
    """Run the ids of one group in this process; returns (id, status, seconds) per id."""
    import matplotlib

    matplotlib.use("Agg")
    shared: Dict[Hashable, Any] = {}
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


def _run_registered_group(
    name: str, ids: List[str], out: str, quick: bool, jobs: int
) -> List[Result]:
    """``run_group`` of the catalogue's group called ``name`` (in a worker process)."""
    from .catalogue import REGISTRY

    (group,) = [g for g in REGISTRY.groups if g.name == name]
    return run_group(group, ids, out, quick, jobs)


def run_groups(
    batches: Sequence[Tuple[Group, List[str]]],
    out: Path,
    quick: bool,
    jobs: int,
    progress: bool,
) -> Dict[str, str]:
    """Run each (group, ids) batch, the groups in parallel when ``jobs`` > 1 and there
    are several. Returns ``{id: status}``."""
    total = sum(len(ids) for _, ids in batches)
    statuses: Dict[str, str] = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="exp", desc="reproduce")

    def record(results: List[Result]) -> None:
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
                pool.submit(_run_registered_group, g.name, ids, str(out), quick, inner_jobs)
                for g, ids in batches
            ]
            for f in as_completed(futs):
                record(f.result())
    if bar:
        bar.close()
    return statuses
