"""Worker processes end with the sweep that started them, however it ends.

An embedded cluster's workers are child processes of the sweep. A sweep killed with
SIGKILL (or by the system's memory killer) runs no clean-up. Dask's own guard (a pipe
whose end-of-file tells the worker that its parent is gone) is not enough to rely on: a
forked worker also holds the write ends of the pipes of the workers forked before it,
and orphaned workers of a SIGKILLed sweep have been seen. So each worker of an embedded
cluster, at its first task (:func:`bind_worker`, called by the warm-up and by every
batch of points; a Dask preload instead made the restart of a crashed worker hang):

- asks Linux to send it SIGKILL when its parent ends (``prctl(PR_SET_PDEATHSIG)``);
- runs a watchdog thread that kills it when its parent changes (``os.getppid()``: it
  was re-parented) or the sweep's process (``$AQMLAB_SWEEP_PID``, set by the sweep)
  is gone, for systems without ``prctl`` and for a sweep that died before the worker
  got this far.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time

from ..base import pid_alive

__all__ = ["PARENT_ENV", "bind_to_parent", "bind_worker", "set_parent_death_signal"]

#: The sweep's process id, in the environment its workers inherit.
PARENT_ENV = "AQMLAB_SWEEP_PID"
_PR_SET_PDEATHSIG = 1
_bound_pid = 0  # the process bound (a forked child inherits the value, not the binding)


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """``prctl(PR_SET_PDEATHSIG, sig)`` on Linux; False where it is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)
    os._exit(1)  # pragma: no cover - where SIGKILL could not be sent


def bind_to_parent(sweep_pid: int | None = None, interval: float = 0.5) -> None:
    """End this process (SIGKILL) when its parent or the process `sweep_pid` ends: a
    parent-death signal, and a watchdog thread checking every `interval` seconds.
    Idempotent in a process."""
    global _bound_pid
    if _bound_pid == os.getpid():
        return
    _bound_pid = os.getpid()
    parent = os.getppid()
    set_parent_death_signal(signal.SIGKILL)
    if (sweep_pid and not pid_alive(sweep_pid)) or os.getppid() != parent:
        _die()

    def watch() -> None:
        while True:
            time.sleep(interval)
            if os.getppid() != parent or (sweep_pid and not pid_alive(sweep_pid)):
                _die()

    threading.Thread(target=watch, name="aqmlab-lifeline", daemon=True).start()


def bind_worker() -> None:
    """Bind this process to the sweep named by ``$AQMLAB_SWEEP_PID`` when it is another
    process (a worker of the sweep's embedded cluster); nothing in the sweep's own
    process (an in-process cluster) or where the variable is absent (a cluster of the
    user's own). Cheap after the first call."""
    try:
        pid = int(os.environ.get(PARENT_ENV) or 0)
    except ValueError:
        return
    if pid and pid != os.getpid():
        bind_to_parent(pid)
