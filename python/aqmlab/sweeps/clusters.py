"""The Dask cluster a sweep runs on: an embedded LocalCluster of worker processes, made,
configured and closed here, or a client of a running scheduler."""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from . import lifeline as _lifeline


def _distributed() -> tuple[Any, Any]:
    """dask.distributed's Client and LocalCluster, or a ValueError saying how to install them."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError as e:
        raise ValueError(
            f"sweeps run on Dask distributed, which is not installed ({e}): "
            "pip install 'dask[distributed]'"
        ) from None
    return Client, LocalCluster


def local_settings(method: str) -> dict[str, Any]:
    """The Dask settings an embedded cluster runs under, for its whole life.

    Points are coarse tasks: no statistical profiler in the workers (it costs a few % of a
    point). worker-saturation = 1 keeps queued tasks on the scheduler rather than on a
    worker when the scheduler treats them as root tasks; `_Dispatch` also bounds what is in
    flight, so that a point that kills its worker process takes no other point with it
    (see its top_up). The start method also starts the worker that replaces one a point
    killed (its nanny reads the setting then); and the cluster waits for that replacement
    however long a loaded machine takes to start it: after ``lost-worker-timeout`` (15 s by
    default) it would close the worker's nanny for good, and with no worker left the
    sweep would wait for ever.
    """
    return {
        "distributed.worker.profile.enabled": False,
        "distributed.scheduler.worker-saturation": 1.0,
        "distributed.worker.multiprocessing-method": method,
        "distributed.deploy.lost-worker-timeout": "600s",
    }


@contextmanager
def _local_cluster(jobs: int | None, points: int, start_method: str | None) -> Iterator[Any]:
    """A client of an embedded LocalCluster of `jobs` worker processes (at most `points`)."""
    import dask

    Client, LocalCluster = _distributed()
    n = max(1, min(jobs or os.cpu_count() or 1, points))
    method = start_method or os.environ.get("AQMLAB_SWEEP_START_METHOD") or "spawn"
    # Workers end with this process, however it ends: they inherit its pid and bind
    # themselves to it at their first task (see lifeline).
    os.environ[_lifeline.PARENT_ENV] = str(os.getpid())
    with dask.config.set(local_settings(method)):
        # the scheduler's HTTP server (health, metrics) on a free port: several sweeps
        # may start clusters at once (the catalogue runs experiment groups in parallel)
        local = LocalCluster(
            n_workers=n,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        try:
            client = Client(local)
            try:
                yield client
            finally:
                client.close(timeout=10)
        finally:
            _close_local(local)


def _close_local(local: Any, grace: float = 10) -> None:
    """Close an embedded cluster, however its workers are.

    A nanny waits without a bound for a worker process it is starting to connect before it
    stops it, and a replacement for a worker that a point killed may never connect (a
    process forked from this threaded one can deadlock; a loaded machine is slow). So the
    worker processes still alive `grace` seconds into the close are killed, which ends
    their nannies' waits, and the close is bounded by three times `grace`."""
    killer = threading.Timer(grace, _kill_workers, args=(local,))
    killer.daemon = True
    killer.start()
    try:
        local.close(timeout=3 * grace)
    finally:
        killer.cancel()


def _kill_workers(local: Any) -> None:
    """SIGKILL every worker process the nannies of `local` still hold."""
    for nanny in list(getattr(local, "workers", {}).values()):
        proc = getattr(getattr(nanny, "process", None), "process", None)
        pid = getattr(proc, "pid", None)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@contextmanager
def cluster(
    scheduler: Any = None,
    jobs: int | None = None,
    points: int = 1,
    start_method: str | None = None,
) -> Iterator[Any]:
    """A Dask client for sweeps, as :func:`sweep` makes it: an embedded local cluster of
    `jobs` worker processes (at most `points`, started by `start_method`) without a
    `scheduler`, else a client of that scheduler (an address, a client or a cluster).
    What it started is closed when the block ends; several sweeps may run on it
    (``sweep(..., scheduler=client)``)."""
    if scheduler is None:
        with _local_cluster(jobs, points, start_method) as client:
            yield client
        return
    Client, _ = _distributed()
    if isinstance(scheduler, Client):
        yield scheduler
        return
    if hasattr(scheduler, "scheduler_address"):
        client = Client(scheduler)
    else:
        try:
            client = Client(str(scheduler), timeout="30s")
        except (OSError, TimeoutError) as e:
            raise ValueError(f"scheduler {scheduler!r}: cannot connect: {e}") from None
    try:
        yield client
    finally:
        client.close(timeout=10)
