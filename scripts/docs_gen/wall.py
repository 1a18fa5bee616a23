"""``scripts/docs time``: the catalogue's and ``aqmlab evaluate``'s wall times, measured
from an installed aqmlab and appended to ``benchmarks/wall-history.csv``.

Each command runs as one child process from a temporary directory outside the source
tree; its wall time is taken around a blocking ``os.wait4`` and its CPU time and peak
resident set from that child's rusage. ``reproduce all`` also leaves ``run.json`` in its
output directory (date, commit, build, wall time), which ``scripts/docs reproductions``
reads."""

from __future__ import annotations

import csv
import datetime
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .blocks import ROOT

WALL = ROOT / "benchmarks" / "wall-history.csv"
COLUMNS = [
    "date",
    "commit",
    "command",
    "runs",
    "wall_s",
    "cpu_s",
    "peak_mb",
    "loadavg",
    "host",
    "how",
]
#: name -> (arguments after `aqmlab`, the output directory's name)
COMMANDS = {
    "reproduce": (["reproduce", "all"], "reproduce"),
    "reproduce-quick": (["reproduce", "all", "--quick"], "reproduce-quick"),
    "evaluate-quick": (["evaluate", "--quick"], "evaluate-quick"),
    "evaluate": (["evaluate"], "evaluate"),
}


def commit() -> str:
    """The source tree's commit, ``+dirty`` when tracked files differ."""
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run(git + ["rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(git + ["diff", "--quiet", "HEAD"]).returncode != 0
    return head.stdout.strip() + ("+dirty" if dirty else "")


def build(python: Path) -> str:
    """A digest of the compiled extension that `python` imports (which build ran)."""
    out = subprocess.run(
        [str(python), "-c", "import aqmlab._native as n; print(n.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return hashlib.sha256(Path(out.stdout.strip()).read_bytes()).hexdigest()[:12]


def measured(cmd: list[str], cwd: str) -> dict[str, float]:
    """Wall time, CPU time and peak RSS of one child process."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        err = p.stderr.read().decode(errors="replace")[-2000:] if p.stderr else ""
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{err}")
    return {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime, "peak_mb": ru.ru_maxrss / 1024}


def count(python: Path, out: Path, name: str) -> int:
    """Experiments written (reproduce) or runs in metrics.parquet (evaluate)."""
    if name.startswith("reproduce"):
        return sum(1 for d in out.iterdir() if (d / "meta.json").exists())
    code = f"import pyarrow.parquet as pq; print(pq.read_metadata({str(out / 'metrics.parquet')!r}).num_rows)"
    return int(subprocess.check_output([str(python), "-c", code], text=True))


def run(
    aqmlab: Path, out: Path, names: list[str], record: bool, how: str, source: str
) -> list[dict[str, str]]:
    """Run each named command into ``out/<name>`` and return (and with `record` append)
    its row of the wall-time history; `source` is the commit the package was installed
    from (the source tree's own commit when empty)."""
    python = aqmlab.parent / "python"
    rows = []
    for name in names:
        args, sub = COMMANDS[name]
        dest = out / sub
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        with tempfile.TemporaryDirectory() as cwd:
            m = measured([str(aqmlab), *args, "--out", str(dest), "--no-progress"], cwd)
        row = {
            "date": date,
            "commit": source or commit(),
            "command": " ".join(args),
            "runs": str(count(python, dest, name)),
            "wall_s": f"{m['wall_s']:.1f}",
            "cpu_s": f"{m['cpu_s']:.1f}",
            "peak_mb": f"{m['peak_mb']:.0f}",
            "loadavg": load,
            "host": "vm",
            "how": how,
        }
        if name == "reproduce":
            meta = {k: row[k] for k in ("date", "commit", "wall_s", "cpu_s")}
            meta["build"] = build(python)
            (dest / "run.json").write_text(json.dumps(meta, indent=2) + "\n")
        rows.append(row)
        print(
            f"{row['command']}: {row['runs']} runs, {row['wall_s']} s wall, {row['cpu_s']} s CPU, "
            f"{row['peak_mb']} MB, load {load}",
            file=sys.stderr,
        )
        if record:
            with open(WALL, "a", newline="") as f:
                csv.DictWriter(f, COLUMNS).writerow(row)
    return rows


def history() -> list[dict[str, str]]:
    with open(WALL, newline="") as f:
        return list(csv.DictReader(f))
