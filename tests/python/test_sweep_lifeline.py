"""Sweep workers end with the sweep: a process bound with ``lifeline.bind_to_parent`` dies
within seconds of its parent's SIGKILL, through the parent-death signal or, without it,
through the watchdog; an unbound one (the control) outlives its parent."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc; PR_SET_PDEATHSIG is Linux's"
)

# The parent: starts the worker, prints the worker's pid once the worker is bound, sleeps.
PARENT = r"""
import subprocess, sys, time
mode = sys.argv[1]
bind = {
    "none": "",
    "both": "L.bind_to_parent(interval=0.2); ",
    "watchdog": "L.set_parent_death_signal = lambda sig=0: False; L.bind_to_parent(interval=0.2); ",
}[mode]
code = "import time; from aqmlab.sweeps import lifeline as L; " + bind + "print('ready', flush=True); time.sleep(600)"
p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
assert p.stdout.readline().strip() == "ready"
print(p.pid, flush=True)
time.sleep(600)
"""


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _orphan_after_parent_killed(mode: str, wait: float) -> bool:
    """Whether the worker still runs `wait` seconds after its parent was SIGKILLed."""
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, mode], stdout=subprocess.PIPE, text=True
    )
    try:
        worker = int(parent.stdout.readline())
        assert _running(worker)
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + wait
    while _running(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    alive = _running(worker)
    if alive:
        os.kill(worker, signal.SIGKILL)
    return alive


@pytest.mark.slow
def test_an_unbound_worker_outlives_its_killed_parent():
    """The control: without the lifeline the worker is orphaned (so the tests below can fail)."""
    assert _orphan_after_parent_killed("none", 1.0)


@pytest.mark.slow
def test_a_bound_worker_dies_with_its_killed_parent():
    assert not _orphan_after_parent_killed("both", 3.0)


@pytest.mark.slow
def test_the_watchdog_alone_ends_a_worker_whose_parent_died():
    """Without the parent-death signal (other systems), the getppid watchdog ends the worker."""
    assert not _orphan_after_parent_killed("watchdog", 3.0)


def test_the_parent_death_signal_is_set():
    """prctl(PR_SET_PDEATHSIG) reports success in a child, and PR_GET_PDEATHSIG reads it back."""
    code = (
        "import ctypes, signal; from aqmlab.sweeps import lifeline as L; "
        "assert L.set_parent_death_signal(signal.SIGKILL); "
        "v = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(v), 0, 0, 0); print(v.value)"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) == signal.SIGKILL


@pytest.mark.slow
def test_an_embedded_clusters_workers_are_bound():
    """Each worker process of a sweep's embedded cluster binds itself at its warm-up (the
    first task every worker runs), to the sweep's pid."""
    pytest.importorskip("dask.distributed")
    import dask

    from aqmlab.sweeps import clusters, execute, lifeline

    def bound():
        return __import__("aqmlab.sweeps.lifeline", fromlist=["_"])._bound_pid == os.getpid()

    with clusters.cluster(None, 2, 2, "fork") as client:
        before = client.run(bound)
        client.run(execute.warm_worker, "aqmlab.sweeps.testing:run")
        res = client.run(lambda: (bound(), os.environ.get(lifeline.PARENT_ENV)))
        # a worker that a point kills is replaced while the cluster lives: by the same
        # start method, however long the replacement takes to start
        during = {k: dask.config.get(k) for k in clusters.local_settings("fork")}
    assert len(res) == 2 and not any(before.values())
    assert all(v == (True, str(os.getpid())) for v in res.values()), res
    assert during["distributed.worker.multiprocessing-method"] == "fork"
    assert during["distributed.deploy.lost-worker-timeout"] == "600s"
    assert dask.config.get("distributed.deploy.lost-worker-timeout") != "600s"


def test_the_sweeps_own_process_is_not_bound(monkeypatch):
    """An in-process cluster runs points in the sweep's process: bind_worker leaves it alone."""
    from aqmlab.sweeps import lifeline

    monkeypatch.setenv(lifeline.PARENT_ENV, str(os.getpid()))
    monkeypatch.setattr(lifeline, "bind_to_parent", lambda *_a, **_k: pytest.fail("bound"))
    lifeline.bind_worker()
    monkeypatch.delenv(lifeline.PARENT_ENV)
    lifeline.bind_worker()
