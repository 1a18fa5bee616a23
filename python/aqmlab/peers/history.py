"""The peer benchmark's history: one CSV row per case x simulator x run.

``benchmarks/peers/run --record`` appends a run's rows to ``history.csv``;
``run --report history.csv [--label PATTERN]`` prints the tables (and ``--plot``
draws the scaling plot) from them again. A row holds what the harness compares and
what its cost table shows: wall and CPU time and peak memory of the whole process,
bottleneck packets over the whole run, and the results over the window [T/2, T].
Numbers keep every digit, so the tables printed from the history are those of the
run and two builds' results can be compared for equality. Per-flow goodputs stay in
the raw ``--json`` records only. Stdlib only.
"""

from __future__ import annotations

import csv
import datetime
import fnmatch
import json
import os
import platform
import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the checkout (or, installed, a directory that is not one: no commit is recorded then)
REPO = HERE.parents[2]
HISTORY = HERE / "history.csv"

# the results the harness compares (tables, agreement rule)
# (mean_delay and delay_p95: the waiting time at the bottleneck, s, reported for the
# modern-AQM cases; columns added after the first rows, hence at the end of a row)
METRICS = ["utilization", "mean_queue", "mean_red_avg", "drop_rate", "jain"]
DELAYS = ["mean_delay", "delay_p95"]
# the senders' time-average congestion window (packets, mean over the flows)
TCP = ["mean_cwnd"]
RESULT_COLUMNS = METRICS + ["goodput_mbps", "arrivals", "drops", "final_max_p"]
COLUMNS = [
    "date",  # UTC; when the run started
    "commit",  # the build measured (`+dirty`: tracked files changed)
    "label",  # the run's name (--label, or the --json file's stem)
    "case",
    "sim",  # aqmlab | ns2 | ns3
    "threads",  # aqmlab's threads (1 or 2); empty for the peers
    "status",  # ok | timeout after N s | failed (rc N): last line of stderr
    "wall_s",  # the whole process: start-up and topology construction included
    "cpu_s",  # user + system
    "peak_mb",  # peak resident set
    "bottleneck_packets",  # bottleneck departures over the whole run
    *RESULT_COLUMNS,  # window [T/2, T]; drop_rate = drops / arrivals at the bottleneck
    "loadavg",  # 1, 5 and 15 min, when the run started
    "host",
    *DELAYS,
    *TCP,
]
INTEGERS = ("bottleneck_packets", "arrivals", "drops", "threads")


def _cell(v) -> str:
    return "" if v is None else repr(v) if isinstance(v, float) else str(v)


def row(rec: dict, **context: str) -> dict[str, str]:
    """The CSV row of one harness record; `context` gives date, commit, label, loadavg, host."""
    res = rec.get("result") or {}
    threads = rec.get("threads", 1 if rec["sim"] == "aqmlab" else None)
    out = {k: context.get(k, "") for k in COLUMNS}
    out.update(
        case=rec["case"],
        sim=rec["sim"],
        threads=_cell(threads),
        status=rec["status"],
        wall_s=_cell(rec.get("wall_s")),
        cpu_s=_cell(rec.get("cpu_s")),
        peak_mb=_cell(rec.get("maxrss_mb")),
        bottleneck_packets=_cell(res.get("departures_total")),
    )
    out.update({k: _cell(res.get(k)) for k in RESULT_COLUMNS + DELAYS + TCP})
    return out


def context(label: str) -> dict[str, str]:
    """Now (UTC), the commit (`+dirty` when tracked files differ), the label, load, host."""

    def git(*a: str) -> str:
        try:
            r = subprocess.run(
                ["git", "-C", str(REPO), *a], capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return ""
        return r.stdout.strip() if r.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD")
    if commit and git("status", "--porcelain", "--untracked-files=no"):
        commit += "+dirty"
    load = os.getloadavg() if hasattr(os, "getloadavg") else ()
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        "label": label,
        "loadavg": " ".join(f"{x:.2f}" for x in load),
        "host": platform.node(),
    }


def append(path: Path, records: list[dict], ctx: dict[str, str]) -> None:
    """Append the records' rows to the CSV history (header written once)."""
    new = not path.exists() or path.stat().st_size == 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        if new:
            w.writeheader()
        for rec in records:
            w.writerow(row(rec, **ctx))


def record(r: dict[str, str]) -> dict:
    """A history row back as a harness record, for the tables and the plot."""

    def num(k: str):
        v = r.get(k, "")
        if v == "":
            return None
        return int(v) if k in INTEGERS else float(v)

    rec: dict = {"case": r["case"], "sim": r["sim"], "status": r["status"]}
    rec.update(wall_s=num("wall_s"), cpu_s=num("cpu_s"), maxrss_mb=num("peak_mb"))
    if r.get("threads"):
        rec["threads"] = num("threads")
    if r["status"] == "ok":
        rec["result"] = {k: num(k) for k in RESULT_COLUMNS + DELAYS + TCP}
        rec["result"]["departures_total"] = dep = num("bottleneck_packets")
        wall = rec["wall_s"]
        rec["pkts_per_s"] = dep / wall if dep and wall else None
    return rec


def read(path: str, labels: str | None = None) -> list[dict]:
    """Records of a `--json` file, or of a CSV history: the rows whose label matches one of
    the comma-separated shell-style patterns `labels` (`2026-11-23/threads2-long*`), all
    of them without any."""
    if not path.endswith(".csv"):
        return json.loads(Path(path).read_text())
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    pats = [p for p in (labels or "").split(",") if p]
    return [
        record(r) for r in rows if not pats or any(fnmatch.fnmatchcase(r["label"], p) for p in pats)
    ]
