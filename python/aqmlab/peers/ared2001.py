#!/usr/bin/env python3
"""Floyd, Gummadi & Shenker 2001 (Adaptive RED) in ns-2: the scenarios of the catalogue's
Figs. 1-3 (a subset of N and max_p, seeds 1-5), Figs. 6-9 (seeds 1-5) and (``--only fig11-14``, not in the
catalogue's copy) the ECN oscillations of Figs. 11-14, run in ns-2 2.35 with the same
topology, flows, start times, queues and TCP settings as aqmlab's, and written to a CSV
that the catalogue reads (CI has no ns-2).

    benchmarks/peers/ared2001.py [--out CSV] [--jobs 2] [--only fig1-3|fig6-9] [--keep DIR]
    benchmarks/peers/ared2001.py --only fig1-3 --flows 5 --seeds 1,2,3,4,5 --out CSV \
        [--sim aqmlab]       # Figs. 1-3's runs over seeds, in ns-2 or aqmlab

The scenarios come from aqmlab itself (``aqmlab.reproduce.floyd2001_tradeoff.spec`` and
``floyd2001_congestion.congestion_scenario``), normalised by aqmlab, so both simulators
start every long-lived flow at the same drawn time; ns2/ared2001.tcl builds the network.
The web transfers too are aqmlab's: their arrival times and sizes are drawn in Python
from the scenario's seed as aqmlab draws them (web_transfers.py) and handed to ns-2 as a
list, so both simulators carry the same web load, transfer for transfer.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # the directory holding the aqmlab package

TCL = HERE / "ns2" / "ared2001.tcl"
DEFAULT_OUT = HERE.parent / "reproduce" / "floyd2001_ns2.csv"
COLUMNS = [
    "experiment",
    "queue",
    "case",
    "flows",
    "max_p",
    "seed",
    "t0",
    "t1",
    "utilization",
    "mean_queue",
    "mean_avg",
    "drop_rate",
    "arrivals",
    "drops",
]
#: Figs. 1-3's subset: N, max_p and seeds (the catalogue's cross-check runs the same).
TRADEOFF_FLOWS = (5, 20, 100)
TRADEOFF_MAX_P = (0.5, 0.1, 0.02)
TRADEOFF_SEEDS = (1, 2, 3, 4, 5)
CONGESTION_SEEDS = (1, 2, 3, 4, 5)


def params(sc: dict[str, Any], windows: Sequence[tuple[float, float]], name: str) -> str:
    """The ``key value...`` lines of ns2/ared2001.tcl for an aqmlab scenario dict."""
    from aqmlab.sim import Scenario
    from web_transfers import transfers

    norm = Scenario.from_dict(sc).normalized()
    (bl,) = [lk for lk in norm["links"] if {lk["a"], lk["b"]} == {"r1", "r2"}]
    q = bl["queue_ab"]
    if bl["queue_ba"] != q:
        raise ValueError("ared2001.tcl puts the same queue on both directions of r1-r2")
    left = [lk for lk in norm["links"] if "r1" in (lk["a"], lk["b"]) and lk is not bl]
    right = [lk for lk in norm["links"] if "r2" in (lk["a"], lk["b"]) and lk is not bl]
    lnames = [lk["a"] if lk["b"] == "r1" else lk["b"] for lk in left]
    rnames = [lk["a"] if lk["b"] == "r2" else lk["b"] for lk in right]

    def where(node: str) -> str:
        if node in lnames:
            return f"L {lnames.index(node)}"
        return f"R {rnames.index(node)}"

    flows, web = [], []
    seen_web = set()
    for f in norm["flows"]:
        if f["type"] == "tcp":
            stop = -1 if f["stop"] is None else f["stop"]
            flows.append(
                f"{{{where(f['src'])} {where(f['dst'])} {f['start']:.9f} {stop} {f['tcp']['max_window']}}}"
            )
        elif f["type"] == "web" and f["spec"] not in seen_web:
            seen_web.add(f["spec"])
            times = " ".join(f"{t / 1e9:.9f} {n}" for t, n in transfers(f, norm["duration"]))
            web.append(
                f"{{{where(f['src'])} {where(f['dst'])} {f['tcp']['max_window']} {{{times}}}}}"
            )
        elif f["type"] not in ("tcp", "web"):
            raise ValueError(f"flow type {f['type']} not supported by ared2001.tcl")
    ecn = {bool(f["tcp"]["ecn"]) for f in norm["flows"] if f["tcp"]} | {bool(q.get("ecn"))}
    if len(ecn) != 1:
        raise ValueError("ared2001.tcl takes ECN on every TCP flow and the queue, or on none")
    sizes = {f["tcp"]["packet_size"] for f in norm["flows"] if f["tcp"]}
    if len(sizes) != 1:
        raise ValueError("ared2001.tcl takes one packet size")
    lines = {
        "name": name,
        "rate": f"{bl['rate_bps']:g}",
        "rate_bps": f"{bl['rate_bps']:g}",
        "delay": f"{bl['delay']:g}",
        "limit": q["limit"],
        "queue": q["type"],
        "min_th": q["min_th"],
        "max_th": q["max_th"],
        "w_q": q["w_q"] if q["w_q"] is not None else 0,
        "max_p": q["max_p"],
        "access_rate": f"{left[0]['rate_bps']:g}",
        "packet_size": sizes.pop(),
        "duration": norm["duration"],
        "seed": norm["seed"],
        "left_delays": " ".join(f"{lk['delay']:g}" for lk in left),
        "right_delays": " ".join(f"{lk['delay']:g}" for lk in right),
        "windows": " ".join(f"{a:g} {b:g}" for a, b in windows),
        "flows": " ".join(flows),
        "web": " ".join(web) if web else "none",
        "ecn": int(ecn.pop()),
    }
    return "".join(f"{k} {v}\n" for k, v in lines.items())


def _key(experiment: str, queue: str, case: str, flows: int, max_p: float, seed: int) -> dict:
    """The columns that name a run."""
    return {
        "experiment": experiment,
        "queue": queue,
        "case": case,
        "flows": flows,
        "max_p": max_p,
        "seed": seed,
    }


def _tradeoff_cases(seeds: Sequence[int] = ()) -> list[dict[str, Any]]:
    """Figs. 1-3: RED and Adaptive RED over flow counts and max_p, each with the seeds of
    TRADEOFF_SEEDS (or of `seeds`)."""
    from aqmlab.reproduce import floyd2001_tradeoff as tr

    out = []
    for tag in tr.QUEUES:
        base = tr.spec(tag, quick=False)["base"]
        for n in TRADEOFF_FLOWS:
            for mp in TRADEOFF_MAX_P:
                for seed in seeds or TRADEOFF_SEEDS:
                    sc = json.loads(json.dumps(base))
                    for i in range(tr.GROUPS):
                        sc["flow"][i]["count"] = n // tr.GROUPS
                    sc["link"][0]["queue"]["max_p"] = mp
                    sc["seed"] = seed
                    key = _key("fig1-3", tag, "", n, mp, seed)
                    out.append({"scenario": sc, "windows": [(50.0, 100.0)], "key": key})
    return out


def _congestion_cases() -> list[dict[str, Any]]:
    """Figs. 6-9: the load increasing and decreasing."""
    from aqmlab.reproduce import floyd2001_congestion as cg

    windows = [(0.0, 25.0), (25.0, 50.0), (0.0, 50.0)]
    return [
        {
            "scenario": cg.congestion_scenario(case, queue, seed),
            "windows": windows,
            "key": _key("fig6-9", queue, case, 23, 0.1, seed),
        }
        for case in ("increase", "decrease")
        for queue in ("red", "ared")
        for seed in CONGESTION_SEEDS
    ]


def _oscillation_cases() -> list[dict[str, Any]]:
    """Figs. 11-14: the oscillations of 100 flows."""
    from aqmlab.reproduce import floyd2001_oscillations as osc

    st = osc.settings(quick=False)
    out = []
    for fig, (queue, _rich) in osc.FIGS.items():
        for seed in st["seeds"]:
            sc = osc.oscillation_scenario(fig, seed, st["duration"], st["warmup"])
            sc.pop("trace", None)
            key = _key("fig11-14", queue, f"fig{fig}", 100, 0.1, seed)
            out.append({"scenario": sc, "windows": [(st["warmup"], st["duration"])], "key": key})
    return out


def cases(only: str, seeds: Sequence[int] = ()) -> list[dict[str, Any]]:
    """Every ns-2 run: its scenario, windows and the columns that name it (`seeds`:
    Figs. 1-3's runs with each of these seeds instead of TRADEOFF_SEEDS)."""
    out: list[dict[str, Any]] = []
    if only in ("", "fig1-3"):
        out += _tradeoff_cases(seeds)
    if only in ("", "fig6-9"):
        out += _congestion_cases()
    if only == "fig11-14":
        out += _oscillation_cases()
    return out


def run_one(ns: str, c: dict[str, Any], tmp: Path, n: int) -> list[dict[str, Any]]:
    k = c["key"]
    name = f"{k['experiment']}-{k['queue']}-{k['case']}-{k['flows']}-{k['max_p']}-{k['seed']}"
    p = tmp / f"case{n}.params"
    p.write_text(params(c["scenario"], c["windows"], name))
    r = subprocess.run([ns, str(TCL), str(p)], capture_output=True, text=True, timeout=3600)
    if r.returncode != 0:
        raise RuntimeError(f"{name}: ns exited {r.returncode}: {r.stderr[-2000:]}")
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("{")][-1]
    rows = []
    for w in json.loads(line)["windows"]:
        rows.append(
            dict(
                k,
                t0=w["t0"],
                t1=w["t1"],
                utilization=round(w["utilization"], 6),
                mean_queue=round(w["mean_queue"], 4),
                mean_avg=round(w["mean_avg"], 4),
                drop_rate=round(w["drops"] / max(1, w["arrivals"]), 6),
                arrivals=w["arrivals"],
                drops=w["drops"],
            )
        )
    print(f"[ared2001] {name}: done", file=sys.stderr)
    return rows


def run_aqmlab(c: dict[str, Any]) -> list[dict[str, Any]]:
    """The same run in aqmlab (one window, the scenario's warmup to its end): the columns
    ns-2's rows have, to set the two side by side over several seeds."""
    from aqmlab.sim import Scenario, simulate

    (w,) = c["windows"]
    sc = Scenario.from_dict(c["scenario"])
    if sc.normalized()["warmup"] != w[0]:
        raise ValueError("aqmlab's side measures from the scenario's warmup to its end")
    link = simulate(sc, progress=False).summary["links"]["r1->r2"]
    row = dict(c["key"], t0=w[0], t1=w[1], arrivals=link["arrivals"], drops=link["drops"])
    row.update(
        utilization=round(link["utilization"], 6),
        mean_queue=round(link["mean_queue"], 4),
        mean_avg=round(link["mean_avg"], 4),
        drop_rate=round(link["drops"] / max(1, link["arrivals"]), 6),
    )
    return [row]


def _picked(c: dict[str, Any], a: argparse.Namespace) -> bool:
    """The run is among those `--queues`, `--flows` and `--max-p` name (all if unsaid)."""
    k = c["key"]
    return all(
        not want or str(k[col]) in want.split(",")
        for col, want in (("queue", a.queues), ("flows", a.flows), ("max_p", a.max_p))
    )


def main(argv: Sequence[str] = ()) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--out", default=str(DEFAULT_OUT), help="CSV to write (default: the catalogue's copy)"
    )
    ap.add_argument("--jobs", type=int, default=2, help="ns-2 processes at once (default 2)")
    ap.add_argument(
        "--only",
        default="",
        choices=["", "fig1-3", "fig6-9", "fig11-14"],
        help="one family of runs (fig11-14 only when named; write it to its own --out)",
    )
    ap.add_argument(
        "--keep", default="", help="keep the generated parameter files in this directory"
    )
    ap.add_argument(
        "--seeds", default="", help="Figs. 1-3 with these seeds (comma-separated; with --out)"
    )
    ap.add_argument("--queues", default="", help="only these queues (red_wq0002, ared, ...)")
    ap.add_argument("--flows", default="", help="only these flow counts (comma-separated)")
    ap.add_argument("--max-p", default="", help="only these max_p (comma-separated)")
    ap.add_argument(
        "--sim", default="ns2", choices=["ns2", "aqmlab"], help="aqmlab: Figs. 1-3 in aqmlab"
    )
    a = ap.parse_args(list(argv) or None)
    seeds = [int(x) for x in a.seeds.split(",") if x]
    todo = [c for c in cases(a.only, seeds) if _picked(c, a)]
    if a.out == str(DEFAULT_OUT) and (seeds or a.queues or a.flows or a.max_p or a.sim != "ns2"):
        print("--seeds, --queues, --flows, --max-p, --sim: write to an --out", file=sys.stderr)
        return 2
    ns = shutil.which("ns") if a.sim == "ns2" else "aqmlab"
    if ns is None:
        print("ns (ns-2) not found: apt-get install ns2", file=sys.stderr)
        return 2
    tmp = Path(a.keep) if a.keep else Path(tempfile.mkdtemp(prefix="ared2001-"))
    tmp.mkdir(parents=True, exist_ok=True)
    if a.sim == "aqmlab":
        results = [run_aqmlab(c) for c in todo]
    else:
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            results = list(pool.map(lambda nc: run_one(ns, nc[1], tmp, nc[0]), enumerate(todo)))
    rows = [r for rs in results for r in rs]
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    print(f"[ared2001] {len(rows)} rows -> {a.out}", file=sys.stderr)
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
