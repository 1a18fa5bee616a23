"""``aqmlab testbed``: the AQM library on live Linux traffic.

Builds network namespaces joined by veth pairs, runs ``aqmlab-gateway`` (crates/gateway)
on the bottleneck link of a dumbbell scenario, drives real TCP (kernel congestion
control) and UDP flows with iperf3, and writes the simulator's ``summary.json`` shape
with the simulator's prediction beside it.

Public entry points:

- :func:`run_testbed` -- run a scenario (path or dict), write and return the summary
  (:class:`WindowError` when a flow's live window is not the scenario's);
- :func:`add_arguments`, :func:`run` -- the ``aqmlab testbed`` command;
- :class:`Testbed` -- the namespaces and the gateway as a context manager (tests, bench);
- :func:`cleanup_stale` -- remove namespaces left by killed runs;
- :func:`privilege_problem` -- why the testbed cannot run here (None when it can);
- :func:`gateway_binary`, :func:`ensure_tools` -- the installed gateway command and
  iperf3/ethtool.

``python -m aqmlab.testbed SCENARIO --out DIR`` runs it without the main CLI;
``python -m aqmlab.testbed.bench`` measures the gateway's forwarding capacity;
``python -m aqmlab.testbed.bbr_grid`` runs Linux's BBR beside the simulator's, and
``python -m aqmlab.testbed.linux_grid`` Linux's CUBIC and Reno beside the ``linux``
profile's, over the grids of docs/testbed.md (:mod:`.grid` runs both).
"""

from .core import WindowError, add_arguments, predict, run, run_testbed
from .gateway import ensure_tools, gateway_args, gateway_binary
from .netns import PrivilegeError, cleanup_stale, owned_namespaces, privilege_problem
from .network import Testbed
from .scenario import KERNEL_CC, plan

__all__ = [
    "run_testbed",
    "WindowError",
    "add_arguments",
    "run",
    "Testbed",
    "cleanup_stale",
    "owned_namespaces",
    "privilege_problem",
    "PrivilegeError",
    "gateway_binary",
    "gateway_args",
    "ensure_tools",
    "predict",
    "plan",
    "KERNEL_CC",
]
