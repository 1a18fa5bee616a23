"""Own AQMs against the built-ins, whole processes side by side: `aqmlab run` of the
peer benchmark's S1 (100 flows, 15 Mb/s, RED at the bottleneck; benchmarks/peers) with
the bottleneck queue as the built-in Drop Tail, the Python Drop Tail, the built-in RED,
the RED plugin and the Python RED (the tutorial's, docs/examples), one after the other,
each timed as a process (wall and CPU time of the child), and whether each gives the
built-in's summary (links and flows).

    python benchmarks/own_aqm/run.py --plugin PATH/libred_plugin.so [--duration 2000s]

Prints a table: the Python Drop Tail's time over the built-in Drop Tail's, the plugin
RED's and the Python RED's over the built-in RED's."""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks" / "peers"))

import scenarios  # noqa: E402

EXAMPLES = ROOT / "docs" / "examples"


def queues(plugin: str) -> dict:
    """The bottleneck queue of each variant: (label, table, built-in it should equal)."""
    red = {"limit": 200, "min_th": 20, "max_th": 80, "w_q": 0.002, "max_p": 0.1, "gentle": True}
    return {
        "droptail": ({"type": "droptail", "limit": 200}, None),
        "python droptail": (
            {"type": "python", "class": "droptail_aqm:DropTail", "limit": 200},
            "droptail",
        ),
        "red": ({"type": "red", **red}, None),
        "plugin red": ({"type": "plugin", "path": plugin, **red}, "red"),
        "python red": ({"type": "python", "class": "red_aqm:Red", **red}, "red"),
    }


def run_one(aqmlab: str, scenario: Path, out: Path) -> tuple:
    """`aqmlab run` as a child process: (wall s, CPU s, summary)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    cmd = [aqmlab, "run", str(scenario), "--out", str(out), "--quiet", "--no-progress"]
    subprocess.run(cmd + ["--threads", "1"], check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, json.loads((out / "summary.json").read_text())


def same(a: dict, b: dict) -> bool:
    """Links and flows equal but for the queue's type."""
    strip = lambda s: {d: {k: v for k, v in l.items() if k != "queue_type"} for d, l in s.items()}  # noqa: E731
    return a["flows"] == b["flows"] and strip(a["links"]) == strip(b["links"])


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--plugin", required=True, help="the RED plugin (docs/examples/red-plugin)")
    p.add_argument("--duration", default="2000s", help="simulated time (default 2000s)")
    p.add_argument("--aqmlab", default=shutil.which("aqmlab") or "aqmlab")
    args = p.parse_args()
    secs = float(args.duration.rstrip("s"))
    base = scenarios.s1(100, "red", duration=secs).aqmlab_scenario()
    results = {}
    with tempfile.TemporaryDirectory(prefix="aqmlab-own-") as tmp:
        tmpd = Path(tmp)
        for f in ("droptail_aqm.py", "red_aqm.py"):
            shutil.copy(EXAMPLES / f, tmpd / f)
        print(f"S1-n100 {args.duration}, bottleneck queue as below; one process each")
        print(f"{'queue':16} {'wall s':>8} {'CPU s':>8} {'x built-in':>10}  same results")
        for label, (table, ref) in queues(str(Path(args.plugin).resolve())).items():
            sc = json.loads(json.dumps(base))
            sc["link"][0]["queue_ab"] = table
            path = tmpd / f"{label.replace(' ', '_')}.toml"
            path.write_text(scenarios.to_toml(sc))
            wall, cpu, summary = run_one(args.aqmlab, path, tmpd / label.replace(" ", "_"))
            results[label] = (wall, cpu, summary)
            ratio = f"{cpu / results[ref][1]:.2f}" if ref else "1.00"
            equal = ("yes" if same(summary, results[ref][2]) else "NO") if ref else ""
            print(f"{label:16} {wall:8.2f} {cpu:8.2f} {ratio:>10}  {equal}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
