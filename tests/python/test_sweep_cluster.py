"""The embedded cluster's close: bounded, and nothing left behind, whatever its workers do."""

import os
import signal
import sys
import time

import pytest

pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

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
