#!/usr/bin/env python3
"""aqmlab's `ns2` profile against ns-2 2.35 on a 40-flow RED dumbbell: Floyd, Gummadi &
Shenker 2001's Fig. 1 network (15 Mb/s, 20 ms, RED 20/80 packets, w_q 0.002, gentle,
max_p 0.1), its long-lived flows (8 on each of 5 paths), with or without its
reverse-path flows and web traffic, 100 s measured over [50 s, 100 s]. Prints each
simulator's utilization, drop rate and mean queue, means over the seeds.

    benchmarks/peers/dumbbell40.py [--seeds 1,2,3] [--parts fwd+rev+web] \\
        [--aqmlab-set recovery_window=rfc] [--ns2-set precisionReduce_=false]

`--aqmlab-set KEY=VALUE` writes a key into every flow (a written key wins over the
profile); `--ns2-set NAME=VALUE` sets an `Agent/TCP` variable in ns-2 (ns2/ared2001.tcl's
`tcp_set`). One ns-2 process at a time.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the directory holding the aqmlab package
sys.path.insert(0, str(HERE))

import ared2001  # noqa: E402

FLOWS = 40
WINDOW = (50.0, 100.0)


def scenario(seed: int, parts: str, max_p: float) -> dict[str, Any]:
    """Fig. 1's network with `FLOWS` long-lived flows and the `parts` named
    (`fwd`, `rev`, `web`, joined by `+`)."""
    from aqmlab.reproduce import floyd2001_tradeoff as tr

    sc = copy.deepcopy(tr.spec("red_wq0002", quick=False)["base"])
    keep = []
    for f in sc["flow"]:
        kind = "web" if f["type"] == "web" else ("fwd" if f["src"].startswith("s") else "rev")
        if kind == "fwd":
            f["count"] = FLOWS // tr.GROUPS
        if kind in parts.split("+"):
            keep.append(f)
    sc["flow"] = keep
    sc["link"][0]["queue"]["max_p"] = max_p
    sc["seed"] = seed
    sc["duration"], sc["warmup"] = f"{WINDOW[1]:g}s", f"{WINDOW[0]:g}s"
    sc["name"] = f"dumbbell{FLOWS}"
    return sc


def run_aqmlab(sc: dict[str, Any], keys: dict[str, Any]) -> dict[str, float]:
    from aqmlab.sim import Scenario, simulate

    sc = copy.deepcopy(sc)
    for f in sc["flow"]:
        f.update(keys)
    link = simulate(Scenario.from_dict(sc)).summary["links"]["r1->r2"]
    return {
        "utilization": link["utilization"],
        "drop_rate": link["drops"] / max(1, link["arrivals"]),
        "mean_queue": link["mean_queue"],
    }


def run_ns2(ns: str, sc: dict[str, Any], tcp_set: dict[str, str], tmp: Path) -> dict[str, float]:
    text = ared2001.params(sc, [WINDOW], sc["name"])
    if tcp_set:
        text += "tcp_set " + " ".join(f"{k} {v}" for k, v in tcp_set.items()) + "\n"
    p = tmp / "dumbbell40.params"
    p.write_text(text)
    r = subprocess.run([ns, str(ared2001.TCL), str(p)], capture_output=True, text=True, check=True)
    w = json.loads([ln for ln in r.stdout.splitlines() if ln.startswith("{")][-1])["windows"][0]
    return {
        "utilization": w["utilization"],
        "drop_rate": w["drops"] / max(1, w["arrivals"]),
        "mean_queue": w["mean_queue"],
    }


def _pairs(items: Sequence[str]) -> dict[str, str]:
    return dict(s.split("=", 1) for s in items)


def main(argv: Sequence[str] = ()) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--seeds", default="1,2,3", help="comma-separated seeds (default 1,2,3)")
    ap.add_argument("--parts", default="fwd+rev+web", help="fwd, rev, web joined by +")
    ap.add_argument("--max-p", type=float, default=0.1, help="RED's max_p (default 0.1)")
    ap.add_argument("--aqmlab-set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--ns2-set", action="append", default=[], metavar="NAME=VALUE")
    ap.add_argument("--sims", default="aqmlab,ns2", help="aqmlab, ns2 (default both)")
    a = ap.parse_args(list(argv) or None)
    keys: dict[str, Any] = {
        k: json.loads(v) if v[:1] in "0123456789[{" else v for k, v in _pairs(a.aqmlab_set).items()
    }
    ns = shutil.which("ns")
    sims = a.sims.split(",")
    if "ns2" in sims and ns is None:
        print("ns (ns-2) not found: apt-get install ns2", file=sys.stderr)
        return 2
    seeds = [int(s) for s in a.seeds.split(",")]
    print("| simulator | utilization | drop rate | mean queue |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="dumbbell40-") as tmp:
        for sim in sims:
            runs = []
            for seed in seeds:
                sc = scenario(seed, a.parts, a.max_p)
                if sim == "aqmlab":
                    runs.append(run_aqmlab(sc, keys))
                else:
                    runs.append(run_ns2(str(ns), sc, _pairs(a.ns2_set), Path(tmp)))
            mean = {m: sum(r[m] for r in runs) / len(runs) for m in runs[0]}
            print(
                f"| {sim} | {mean['utilization']:.4f} | {mean['drop_rate']:.5f} "
                f"| {mean['mean_queue']:.2f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
