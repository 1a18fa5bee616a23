"""``aqmlab bench --overhead FILE``: what ``aqmlab run`` costs beyond the simulation.

The installed ``aqmlab run FILE`` (whole process: the interpreter's start, the module
imports, the run, summary.json and the Parquet files) and the simulator's own binary
``aqmlab-sim FILE`` (the run and a printed summary, nothing else) are run in turns,
``repeat`` pairs, each as a whole process, the command writing into a new directory
each time; for each the wall time, the CPU time and the peak memory (``os.wait4``: a
child's peak counts this process's size when it was started, which the system's
``/usr/bin/time -v`` does not), and their differences per pair. The binary is the
source tree's ``target/release/aqmlab-sim`` (``cargo build --release -p sim --bin
aqmlab-sim``) or the one given. Both run the file's own ``threads`` (default 1: the
command is given ``--threads`` so), so that the difference is the overhead and not a
choice of threads.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .base import read_toml

__all__ = ["find_binary", "measure_overhead", "overhead_lines"]


def find_binary(given: str | None = None) -> Path:
    """The simulator's binary: `given`, else the source tree's release build, else
    ``aqmlab-sim`` on PATH; ValueError naming ``--sim-binary`` when none is found."""
    cands = [Path(given)] if given else []
    if not given:
        cands.append(Path(__file__).resolve().parents[2] / "target" / "release" / "aqmlab-sim")
        on_path = shutil.which("aqmlab-sim")
        if on_path:
            cands.append(Path(on_path))
    for c in cands:
        if c.is_file() and os.access(c, os.X_OK):
            return c
    raise ValueError(
        f"--sim-binary: no aqmlab-sim binary found{f' at {given}' if given else ''}; build "
        "it with `cargo build --release -p sim --bin aqmlab-sim` in the source tree or "
        "give its path"
    )


def _measured(cmd: list[str]) -> dict[str, float]:
    """Wall time, CPU time and peak memory of one whole process (its output dropped)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    if p.stderr:
        p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed (rc {p.returncode}): {err.strip()[-300:]}")
    return {
        "wall_s": wall,
        "cpu_s": ru.ru_utime + ru.ru_stime,
        "maxrss_mb": ru.ru_maxrss / 1024.0,
    }


def _aqmlab_cli() -> list[str]:
    beside = Path(sys.executable).parent / "aqmlab"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    return [sys.executable, "-m", "aqmlab"]


def measure_overhead(scenario: str, binary: Path, repeat: int) -> list[dict[str, Any]]:
    """`repeat` pairs, in turns: the installed ``aqmlab run`` and the binary on
    `scenario`; one record per pair (``run``, ``binary``: their figures)."""
    pairs = []
    with tempfile.TemporaryDirectory(prefix="aqmlab-bench-overhead-") as tmp:
        # (the binary runs the file's threads, default 1; so does the command here)
        threads = str(read_toml(scenario).get("threads", 1))
        for k in range(repeat):
            # (a new output directory each time, as the peer harness gives: replacing one
            # would add the import of shutil, which removes the old one)
            out = str(Path(tmp) / f"out{k}")
            run_cmd = _aqmlab_cli() + ["run", scenario, "--out", out, "-q", "--threads", threads]
            first_run = k % 2 == 0  # alternate which goes first
            rec: dict[str, Any] = {}
            for which in ("run", "binary") if first_run else ("binary", "run"):
                cmd = run_cmd if which == "run" else [str(binary), scenario]
                rec[which] = _measured(cmd)
            pairs.append(rec)
    return pairs


def overhead_lines(pairs: list[dict[str, Any]], scenario: str) -> list[str]:
    """The pairs and their medians as text: what ``aqmlab run`` adds to the binary."""
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    lines = [
        f"aqmlab run vs aqmlab-sim on {scenario}, {len(pairs)} pairs in turns "
        f"(load average {load} at the end)",
        f"{'pair':>4} {'run wall':>9} {'sim wall':>9} {'+wall ms':>9} {'run cpu':>8} "
        f"{'sim cpu':>8} {'+cpu ms':>8} {'run MB':>7} {'sim MB':>7}",
    ]
    for i, p in enumerate(pairs, 1):
        r, b = p["run"], p["binary"]
        lines.append(
            f"{i:>4} {r['wall_s']:>9.3f} {b['wall_s']:>9.3f} "
            f"{1e3 * (r['wall_s'] - b['wall_s']):>9.1f} {r['cpu_s']:>8.3f} {b['cpu_s']:>8.3f} "
            f"{1e3 * (r['cpu_s'] - b['cpu_s']):>8.1f} {r['maxrss_mb']:>7.1f} {b['maxrss_mb']:>7.1f}"
        )

    def med(which: str, key: str) -> float:
        return statistics.median(p[which][key] for p in pairs)

    dw = statistics.median(p["run"]["wall_s"] - p["binary"]["wall_s"] for p in pairs)
    dc = statistics.median(p["run"]["cpu_s"] - p["binary"]["cpu_s"] for p in pairs)
    lines.append(
        f"median: aqmlab run {med('run', 'wall_s'):.3f} s wall, {med('run', 'cpu_s'):.3f} s CPU, "
        f"{med('run', 'maxrss_mb'):.1f} MB; aqmlab-sim {med('binary', 'wall_s'):.3f} s, "
        f"{med('binary', 'cpu_s'):.3f} s CPU, {med('binary', 'maxrss_mb'):.1f} MB; "
        f"overhead {1e3 * dw:.0f} ms wall, {1e3 * dc:.0f} ms CPU (median of the pairs' differences)"
    )
    return lines
