"""``aqmlab bench --peers``: aqmlab beside ns-2 / ns-3, measured in the same run, and
the recorded history otherwise.

A comparison with a peer is printed only when both were measured now, on this machine:
the peer harness (``aqmlab/peers/run``, shipped with the package; ``benchmarks/peers`` in
the source tree) runs one of its cases (default ``S1-n100-red-2000s``: 100 NewReno flows
through RED at 15 Mb/s for 2000 s) in each simulator as a whole process, in turns
(default four pairs: the medians), aqmlab as the installed ``aqmlab run`` with its
default settings. Without ``--peers`` the bench prints aqmlab's own figures and
the last recorded peer rows of the harness's ``history.csv`` with their date and host
(figures from another run, not comparable with the ones just measured).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from .run import auto_threads

__all__ = ["PEERS", "DEFAULT_CASE", "peers_dir", "parse_peers", "measure", "history_lines"]

#: The peers `--peers` accepts (the peer harness's simulator names).
PEERS = ("ns2", "ns3")
DEFAULT_CASE = "S1-n100-red-2000s"
#: Turns of each simulator on the case (side-by-side pairs): the medians.
DEFAULT_REPEAT = 4
PEERS_ENV = "AQMLAB_PEERS_DIR"


def parse_peers(text: str) -> list[str]:
    """``"ns2,ns3"`` -> ["ns2", "ns3"]; ValueError naming ``--peers`` otherwise."""
    names = [s.strip() for s in text.split(",") if s.strip()]
    bad = [n for n in names if n not in PEERS]
    if bad or not names:
        raise ValueError(
            f"--peers: expected a comma-separated list of {', '.join(PEERS)}, got {text!r}"
        )
    return list(dict.fromkeys(names))


def peers_dir(required: bool = False) -> Path | None:
    """The peer harness: ``$AQMLAB_PEERS_DIR`` if set, else the one this package ships
    (``aqmlab/peers``); None when it is not there, or ValueError when `required`."""
    env = os.environ.get(PEERS_ENV)
    c = Path(env) if env else Path(__file__).resolve().parent / "peers"
    if (c / "run").is_file() and (c / "scenarios.py").is_file():
        return c
    if required:
        raise ValueError(f"--peers: the peer harness is not found in {c} ({PEERS_ENV})")
    return None


def _aqmlab_cli() -> str | None:
    """The installed ``aqmlab`` command (beside this interpreter, else on PATH)."""
    beside = Path(sys.executable).parent / "aqmlab"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("aqmlab")


def measure(
    peers: list[str], case: str = DEFAULT_CASE, repeat: int = DEFAULT_REPEAT
) -> list[dict[str, Any]]:
    """Run `case` in aqmlab and each peer now, `repeat` times in turns, through the peer
    harness; its records (``sim``, ``status``, ``wall_s``, ``maxrss_mb``, ``cpu_s``,
    ``pkts_per_s``, ``result``...). RuntimeError when the harness fails."""
    d = peers_dir(required=True)
    assert d is not None
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-peers-") as tmp:
        js = Path(tmp) / "records.json"
        cmd = [
            sys.executable,
            str(d / "run"),
            "--cases",
            case,
            "--sims",
            ",".join(["aqmlab", *peers]),
            "--repeat",
            str(repeat),
            "--json",
            str(js),
        ]
        cli = _aqmlab_cli()
        if cli:
            cmd += ["--aqmlab-cli", cli]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if not js.exists():
            tail = (r.stderr.strip().splitlines() or [""])[-1]
            raise RuntimeError(f"the peer harness failed (exit {r.returncode}): {tail}")
        recs: list[dict[str, Any]] = json.loads(js.read_text())
    return recs


def _median(xs: list[float]) -> float:
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def report_lines(records: list[dict[str, Any]], peers: list[str]) -> list[str]:
    """Lines of the side-by-side comparison: each simulator's median wall time, median
    CPU time, peak memory and bottleneck packets per second, and aqmlab's speed-up over
    each peer (the peer's median wall time over aqmlab's, and the same of CPU times,
    which other work on shared cores disturbs less), with the load average; a peer that
    did not run says why."""
    lines = []
    by: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by.setdefault(r["sim"], []).append(r)
    case = records[0]["case"] if records else DEFAULT_CASE
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines.append(
        f"peers, measured now (the peer harness's case {case}, whole processes in turns; "
        f"aqmlab the installed `aqmlab run` with its default settings, threads auto: "
        f"{auto_threads()} here; load average {load} at the end):"
    )
    walls: dict[str, float] = {}
    cpus: dict[str, float] = {}
    for sim in ["aqmlab", *peers]:
        rs = [r for r in by.get(sim, []) if r.get("status") == "ok"]
        if not rs:
            why = next((r.get("status") for r in by.get(sim, [])), "not installed or not built")
            lines.append(f"  {sim:>7}: did not run ({why})")
            continue
        walls[sim] = _median([r["wall_s"] for r in rs])
        cpus[sim] = _median([r.get("cpu_s") or 0.0 for r in rs])
        mem = max(r["maxrss_mb"] for r in rs)
        pps = _median([r.get("pkts_per_s") or 0.0 for r in rs])
        lines.append(
            f"  {sim:>7}: {walls[sim]:.2f} s wall (median of {len(rs)}), "
            f"{cpus[sim]:.2f} s CPU, peak {mem:.0f} MB, {pps / 1e3:.0f} k bottleneck packets/s"
        )
    for p in peers:
        if p in walls and "aqmlab" in walls and walls["aqmlab"] > 0:
            cpu = f", x{cpus[p] / cpus['aqmlab']:.1f} in CPU time" if cpus["aqmlab"] > 0 else ""
            lines.append(f"  aqmlab is x{walls[p] / walls['aqmlab']:.1f} as fast as {p} here{cpu}")
    return lines


def history_lines(case: str = DEFAULT_CASE, last: int = 4) -> list[str]:
    """The last recorded peer rows of `case` in the harness's ``history.csv``, with where
    they come from; [] without one."""
    d = peers_dir()
    if d is None or not (d / "history.csv").is_file():
        return []
    path = d / "history.csv"
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("case") == case and r.get("status") == "ok"]
    if not rows:
        return []
    lines = [
        f"history ({path}; recorded earlier, possibly on another machine; not measured now, "
        "so not compared with the figures above; --peers ns2,ns3 measures them now):"
    ]
    for r in rows[-last:]:
        lines.append(
            f"  {r['date']} {r.get('host') or '?'} {r['label']}: {r['sim']} "
            f"{float(r['wall_s']):.2f} s wall, {float(r['peak_mb']):.0f} MB"
        )
    return lines
