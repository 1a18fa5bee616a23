"""``aqmlab run`` and ``aqmlab bench``: the simulator from the command line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

from .sim import DUMBBELL_RED

__all__ = ["add_run_arguments", "run_run", "add_bench_arguments", "run_bench", "BENCH_CASES"]


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``aqmlab run``."""
    parser.add_argument("scenario", help="scenario file (TOML)")
    parser.add_argument(
        "--out", required=True, help="output directory (summary.json, flows/links/trace Parquet)"
    )
    parser.add_argument("--seed", type=int, help="override the scenario's seed")
    parser.add_argument("--duration", help="override the scenario's duration (e.g. 10s)")
    parser.add_argument("--warmup", help="override the scenario's warm-up (e.g. 5s)")
    parser.add_argument(
        "--threads",
        type=int,
        choices=[1, 2],
        help="override the scenario's threads (2: a network that splits at its merging "
        "directions runs on two threads, with the results of one)",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--plot",
        action="store_true",
        help="also plot the queue/avg trace (queue.png) and the cwnd trace (cwnd.png) if traced",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")


def run_run(args: argparse.Namespace) -> int:
    """Run one scenario file; write DIR/summary.json and Parquet files. Exit status 0 on
    success; an invalid scenario raises ValueError (the CLI prints it and exits 2) before
    anything is written."""
    from .sim import Scenario, simulate

    try:
        sc = Scenario.from_file(args.scenario)
    except OSError as e:
        print(f"aqmlab run: error: cannot read {args.scenario}: {e.strerror or e}", file=sys.stderr)
        return 2
    changes: Dict[str, Any] = {}
    if args.seed is not None:
        changes["seed"] = args.seed
    if args.duration is not None:
        changes["duration"] = args.duration
    if args.warmup is not None:
        changes["warmup"] = args.warmup
    if args.threads is not None:
        changes["threads"] = args.threads
    if changes:
        sc = sc.replace(**changes)
    res = simulate(sc, progress=False if args.no_progress or args.quiet else None)
    out = res.to_dir(args.out)
    if args.plot:
        plot_traces(res, out)
    if not args.quiet:
        s = res.summary
        print(f"{args.scenario}: {s['events']} events in {s['wall_seconds']:.2f} s -> {out}")
        cols = [
            "link",
            "utilization",
            "arrivals",
            "drops",
            "early_drops",
            "marks",
            "mean_queue",
            "mean_avg",
            "mean_delay",
        ]
        busy = res.links[res.links["arrivals"] > 0][cols]
        print(busy.to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    return 0


def plot_traces(res: Any, out: Path) -> List[Path]:
    """Plot the queue and avg traces (one panel per traced link direction) and the cwnd
    trace of a result into `out`; returns the files written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    q = res.traces.get("queue")
    if q is not None and len(q):
        links = list(dict.fromkeys(q["link"]))
        fig, axes = plt.subplots(len(links), 1, figsize=(8, 2.8 * len(links)), squeeze=False)
        for ax, name in zip(axes[:, 0], links):
            d = q[q["link"] == name]
            ax.step(d["time"], d["queue"], where="post", lw=0.6, label="queue q")
            ax.plot(d["time"], d["avg"], lw=1.4, label="average avg")
            ax.set_title(name)
            ax.set_ylabel("packets")
            ax.legend(loc="upper left")
        axes[-1, 0].set_xlabel("time (s)")
        fig.tight_layout()
        fig.savefig(out / "queue.png", dpi=120)
        plt.close(fig)
        written.append(out / "queue.png")
    c = res.traces.get("cwnd")
    if c is not None and len(c):
        fig, ax = plt.subplots(figsize=(8, 3))
        for f, d in c.groupby("flow"):
            ax.step(d["time"], d["cwnd"], where="post", lw=0.8, label=f"flow {f}")
        ax.set_xlabel("time (s)")
        ax.set_ylabel("cwnd (packets)")
        if c["flow"].nunique() <= 10:
            ax.legend(loc="upper left")
        fig.tight_layout()
        fig.savefig(out / "cwnd.png", dpi=120)
        plt.close(fig)
        written.append(out / "cwnd.png")
    return written


#: The benchmark cases: name -> (description, dumbbell keyword arguments).
BENCH_CASES: Dict[str, Dict[str, Any]] = {
    "15mbps": dict(
        rate="15Mbps",
        access_rate="100Mbps",
        duration="100s",
        access_limit=1000,
        queue=dict(DUMBBELL_RED),
    ),
    "1gbps": dict(
        rate="1Gbps",
        access_rate="10Gbps",
        duration="10s",
        access_limit=10000,
        queue={
            "type": "red",
            "limit": 5000,
            "min_th": 250,
            "max_th": 750,
            "w_q": 0.0001,
            "max_p": 0.1,
            "gentle": True,
        },
    ),
}

#: ns-2 2.35 and ns-3 3.37 on the 15 Mb/s case, measured on the reference machine
#: (bottleneck packets per wall-clock second).
PEERS = {"ns-2 2.35 (100 s run)": 180e3, "ns-2 2.35 (1000 s run)": 310e3, "ns-3 3.37": 12e3}


def add_bench_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``aqmlab bench``."""
    parser.add_argument(
        "--case",
        choices=sorted(BENCH_CASES) + ["all"],
        default="all",
        help="which dumbbell (default: both)",
    )
    parser.add_argument(
        "--duration", help="simulated time (default: 100s for 15mbps, 10s for 1gbps)"
    )
    parser.add_argument("--flows", type=int, default=100, help="number of flows (default 100)")
    parser.add_argument(
        "--threads",
        type=int,
        choices=[1, 2],
        default=1,
        help="threads of the run (default 1; 2 runs each side of the dumbbell on its own "
        "thread, with the same results; recorded as case NAME-2threads)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--record",
        nargs="?",
        const="benchmarks/history.csv",
        metavar="CSV",
        help="append the figures, with the date, commit and load average, to a CSV "
        "history (default benchmarks/history.csv)",
    )


def run_bench(args: argparse.Namespace) -> int:
    """Run the benchmark dumbbells and print simulated events per second and bottleneck
    packets per wall-clock second (whole run, scenario building included)."""
    import pandas  # noqa: F401  (imported before timing: simulate() builds DataFrames)

    from .sim import Scenario, dumbbell, simulate

    cases = sorted(BENCH_CASES) if args.case == "all" else [args.case]
    rows: List[Dict[str, Any]] = []
    for name in cases:
        kw = dict(BENCH_CASES[name])
        if args.duration:
            kw["duration"] = args.duration
        spec = dumbbell(args.flows, name=f"bench-{name}", **kw)
        if args.threads != 1:
            spec["threads"] = args.threads
        sc = Scenario(spec)
        t0 = time.perf_counter()
        res = simulate(sc, progress=False)
        wall = time.perf_counter() - t0
        s = res.summary
        b = s["links"]["r1->r2"]
        row = {
            "case": name if args.threads == 1 else f"{name}-{args.threads}threads",
            "flows": args.flows,
            "simulated_s": s["duration"],
            "wall_s": wall,
            "events": s["events"],
            "events_per_s": s["events"] / wall,
            "bottleneck_packets": s["bottleneck_packets"],
            "bottleneck_packets_per_s": s["bottleneck_packets"] / wall,
            "utilization": b["utilization"],
        }
        rows.append(row)
        if not args.json:
            print(
                f"{name:>7}: {args.flows} flows, {row['simulated_s']:g} s simulated in {wall:.2f} s wall: "
                f"{row['events_per_s'] / 1e6:.2f} M events/s, "
                f"{row['bottleneck_packets_per_s'] / 1e3:.0f} k bottleneck packets/s "
                f"(utilization {row['utilization']:.3f})"
            )
    if args.record:
        _record(args.record, rows)
    if args.json:
        print(json.dumps(rows, indent=2))
    elif "15mbps" in cases:
        r = rows[cases.index("15mbps")]
        for peer, v in PEERS.items():
            print(
                f"         {peer}: {v / 1e3:.0f} k packets/s -> aqmlab x{r['bottleneck_packets_per_s'] / v:.1f}"
            )
    return 0


HISTORY_COLUMNS = [
    "date",
    "commit",
    "case",
    "flows",
    "simulated_s",
    "wall_s",
    "events",
    "events_per_s",
    "bottleneck_packets",
    "bottleneck_packets_per_s",
    "utilization",
    "loadavg",
    "host",
]


def _record(path: str, rows: List[Dict[str, Any]]) -> None:
    """Append benchmark rows to a CSV history (header written once)."""
    import csv
    import datetime
    import os
    import platform
    import subprocess

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else ""
    new = not os.path.exists(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=HISTORY_COLUMNS)
        if new:
            w.writeheader()
        for r in rows:
            w.writerow(
                {
                    **{k: r.get(k, "") for k in HISTORY_COLUMNS},
                    "date": date,
                    "commit": commit,
                    "loadavg": load,
                    "host": platform.node(),
                }
            )


def main(argv: List[str] | None = None) -> int:  # pragma: no cover - for `python -m aqmlab.runner`
    p = argparse.ArgumentParser(prog="aqmlab-runner")
    sub = p.add_subparsers(dest="cmd", required=True)
    add_run_arguments(sub.add_parser("run"))
    add_bench_arguments(sub.add_parser("bench"))
    a = p.parse_args(argv)
    return run_run(a) if a.cmd == "run" else run_bench(a)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
