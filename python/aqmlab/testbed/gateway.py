"""The gateway's binary and its command line: where ``aqmlab-gateway`` comes from (a
cargo build, or ``$AQMLAB_GATEWAY``), the tools the testbed needs beside it (iperf3,
ethtool), and the flags a plan gives it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import scenario as scmod

GATEWAY_ENV = "AQMLAB_GATEWAY"
_REPO = Path(__file__).resolve().parents[3]


def repo_root() -> Path:
    return _REPO


_BUILT: Optional[str] = None


def gateway_binary(build: bool = True) -> str:
    """The `aqmlab-gateway` binary: ``$AQMLAB_GATEWAY``, else the release build under
    ``$CARGO_TARGET_DIR`` or the repository's ``target/``, (re)built with cargo when cargo
    is installed (a no-op when up to date, so a stale binary is never used)."""
    env = os.environ.get(GATEWAY_ENV)
    if env:
        if not os.access(env, os.X_OK):
            raise RuntimeError(f"{GATEWAY_ENV}={env}: not an executable file")
        return env
    target = Path(os.environ.get("CARGO_TARGET_DIR") or (_REPO / "target"))
    exe = target / "release" / "aqmlab-gateway"
    if exe.exists() and (not build or shutil.which("cargo") is None):
        return str(exe)
    if not build:
        raise RuntimeError(
            f"aqmlab-gateway not built ({exe} missing); set {GATEWAY_ENV} or build it"
        )
    if shutil.which("cargo") is None:
        raise RuntimeError(f"aqmlab-gateway is not built and cargo is missing; set {GATEWAY_ENV}")
    manifest = _REPO / "crates" / "gateway" / "Cargo.toml"
    global _BUILT
    if _BUILT is None:
        subprocess.run(
            [
                "cargo",
                "build",
                "--release",
                "--manifest-path",
                str(manifest),
                "--bin",
                "aqmlab-gateway",
            ],
            check=True,
            env={**os.environ, "CARGO_TARGET_DIR": str(target)},
        )
        _BUILT = str(exe)
    return _BUILT


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


def _jq(d: Dict[str, Any]) -> str:
    return json.dumps(d, separators=(",", ":"))


def gateway_args(pl: scmod.Plan, exit_slack_s: float = 60.0) -> List[str]:
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
