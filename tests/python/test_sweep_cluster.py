"""The embedded cluster's start and close: workers that start whatever the sweep's other
threads hold, a close that is bounded, and nothing left behind, whatever its workers do."""

import os
import signal
import sys
import threading
import time

import pytest

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

from aqmlab.sweeps.cli import start_method  # noqa: E402
from aqmlab.sweeps.clusters import cluster  # noqa: E402


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers are Linux's")
def test_a_replacement_worker_that_never_connects_does_not_hang_the_close():
    """A point that kills its worker makes the nanny start another; if that one never
    connects (a fork from a threaded process deadlocked, here: stopped at birth), closing
    the cluster still ends, within its bound, with no worker process left."""
    me = psutil.Process()
    earlier = {p.pid for p in me.children()}  # other tests' helpers (a fork server ...)
    with cluster(jobs=2, points=2, start_method="fork") as client:
        workers = client.run(os.getpid)
        assert len(workers) == 2
        before = {p.pid for p in me.children(recursive=True)}
        os.kill(next(iter(workers.values())), signal.SIGKILL)
        stopped = None
        deadline = time.monotonic() + 30
        while stopped is None and time.monotonic() < deadline:
            for p in me.children():
                if p.pid not in before:
                    os.kill(p.pid, signal.SIGSTOP)
                    stopped = p.pid
                    break
        assert stopped is not None, "the nanny started no replacement worker"
        time.sleep(1.0)
        # the replacement never registered: one worker left
        assert len(client.scheduler_info()["workers"]) == 1
        closing = time.monotonic()
    # bound of the close: three times its 10 s grace (see clusters._close_local)
    assert time.monotonic() - closing < 30
    assert not psutil.pid_exists(stopped) or psutil.Process(stopped).status() == "zombie"
    left = [p.pid for p in me.children() if p.pid not in earlier and p.status() != "zombie"]
    assert left == []


@pytest.mark.slow
def test_workers_start_whatever_locks_the_sweeps_other_threads_hold(tmp_path, monkeypatch):
    """A lock of an imported module is held by another thread of the sweep's process while
    the cluster starts (as a lazy import or a logging handler holds one), and the workers'
    task takes it. A worker forked from this process would inherit it held, by a thread it
    does not have, and wait for ever; the command lines' start method gives workers that
    take it at once."""
    (tmp_path / "aqmlab_locked.py").write_text("import threading\nLOCK = threading.Lock()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("AQMLAB_SWEEP_START_METHOD", raising=False)
    import aqmlab_locked

    release = threading.Event()

    def hold() -> None:
        with aqmlab_locked.LOCK:
            release.wait()

    holder = threading.Thread(target=hold, daemon=True)
    holder.start()
    try:
        time.sleep(0.2)
        assert aqmlab_locked.LOCK.locked()
        with cluster(jobs=1, points=1, start_method=start_method()) as client:
            code = (
                f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import aqmlab_locked; "
                "aqmlab_locked.LOCK.acquire()"
            )
            done = client.submit(exec, code, {}, pure=False)
            assert done.result(timeout=120) is None
    finally:
        release.set()
        holder.join(10)
        sys.modules.pop("aqmlab_locked", None)
