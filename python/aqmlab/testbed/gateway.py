"""The gateway's command and its command line: where ``aqmlab-gateway`` comes from
(``$AQMLAB_GATEWAY``, else the command installed with this package, which runs the
gateway linked into its extension module: no cargo or source tree needed), the tools the
testbed needs beside it (iperf3, ethtool), and the flags a plan gives it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from . import scenario as scmod

GATEWAY_ENV = "AQMLAB_GATEWAY"


def gateway_binary(build: bool = True) -> str:
    """The `aqmlab-gateway` command: ``$AQMLAB_GATEWAY`` (any executable with the
    gateway's command line, e.g. a cargo build of crates/gateway), else the console
    script installed with this package beside this interpreter, else one on PATH.
    RuntimeError naming what is missing otherwise. (`build` is kept for callers of
    earlier versions; nothing is built.)"""
    env = os.environ.get(GATEWAY_ENV)
    if env:
        if not os.access(env, os.X_OK) or os.path.isdir(env):
            raise RuntimeError(f"{GATEWAY_ENV}={env}: not an executable file")
        return env
    beside = Path(sys.executable).parent / "aqmlab-gateway"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("aqmlab-gateway")
    if found:
        return found
    raise RuntimeError(
        "aqmlab-gateway is not installed: install aqmlab with pip (it provides the "
        f"aqmlab-gateway command), or set {GATEWAY_ENV} to a gateway executable"
    )


def ensure_tools() -> None:
    """Install iperf3 and ethtool from Debian's packages when missing (the project's
    set-up step for the testbed; needs root and apt-get)."""
    missing = [t for t in ("iperf3", "ethtool") if shutil.which(t) is None]
    if not missing:
        return
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        raise RuntimeError(
            f"missing {', '.join(missing)}: install them (apt-get install -y {' '.join(missing)})"
        )
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=False, env=env, capture_output=True)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq"] + missing, check=True, env=env, capture_output=True
    )


def gateway_env(queues: Iterable[Mapping[str, Any]]) -> dict[str, str] | None:
    """The gateway's environment for its queue tables `queues`: with a Python class
    among them (``type = "python"``), this process's environment with ``PYTHONPATH`` led
    by the directories of ``sys.path`` outside the interpreter's installation (the
    scenario's directory, the working directory, ...), so that the gateway imports the
    class's module as this process did; else None (the gateway inherits this process's)."""
    if not any(q.get("type") == "python" for q in queues):
        return None
    prefixes = {str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    dirs: list[str] = []
    for entry in sys.path:
        where = Path(entry or os.getcwd()).resolve()
        inside = any(str(where).startswith(p + os.sep) or str(where) == p for p in prefixes)
        if where.is_dir() and not inside and str(where) not in dirs:
            dirs.append(str(where))
    given = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(dirs + [p for p in given if p not in dirs])}


def _jq(d: dict[str, Any]) -> str:
    return json.dumps(d, separators=(",", ":"))


def gateway_args(pl: scmod.Plan, exit_slack_s: float = 60.0) -> list[str]:
    """The gateway's flags for a plan (after the interfaces): rates, delay, both queues
    (as JSON), the measurement window (the scenario's, after the plan's lead), an exit
    time `exit_slack_s` after the window (an orphaned gateway ends on its own) and the
    seed."""
    return [
        "--rate-ab",
        str(pl.rate_ab),
        "--rate-ba",
        str(pl.rate_ba),
        "--delay",
        str(pl.delay_s),
        "--queue-ab",
        _jq(pl.queue_ab),
        "--queue-ba",
        _jq(pl.queue_ba),
        "--warmup",
        str(pl.warmup_s + pl.lead_s),
        "--duration",
        str(pl.duration_s + pl.lead_s),
        "--exit-after",
        str(pl.duration_s + pl.lead_s + exit_slack_s),
        "--seed",
        str(pl.seed),
    ]
