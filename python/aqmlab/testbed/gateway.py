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


def _jq(d: dict[str, Any]) -> str:
    return json.dumps(d, separators=(",", ":"))


def gateway_args(pl: scmod.Plan, exit_slack_s: float = 60.0) -> list[str]:
    """The gateway's flags for a plan (after the interfaces): rates, delay, both queues
    (as JSON), the measurement window, an exit time `exit_slack_s` after the window
    (an orphaned gateway ends on its own) and the seed."""
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
        str(pl.warmup_s),
        "--duration",
        str(pl.duration_s),
        "--exit-after",
        str(pl.duration_s + exit_slack_s),
        "--seed",
        str(pl.seed),
    ]
