"""``aqmlab run`` and ``aqmlab bench``: the simulator from the command line."""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, Optional

from . import bench_peers
from .base import check_out_dir, positive_int
from .cli import run_command
from .sim import DUMBBELL_RED, Scenario, dumbbell, simulate

__all__ = ["add_run_arguments", "run_run", "add_bench_arguments", "run_bench", "BENCH_CASES"]


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``aqmlab run``."""
    parser.add_argument("scenario", help="scenario file (TOML)")
    parser.add_argument(
        "--out",
        required=True,
        help="output directory (summary.json, flows/links/trace Parquet), checked before the "
        "run and written whole at its end (an existing one is replaced)",
    )
    parser.add_argument("--seed", type=int, help="override the scenario's seed")
    parser.add_argument("--duration", help="override the scenario's duration (e.g. 10s)")
    parser.add_argument("--warmup", help="override the scenario's warm-up (e.g. 5s)")
    parser.add_argument(
        "--threads",
        choices=["1", "2", "auto"],
        help="threads of the run: 2 runs a network that splits at its merging directions "
        "on two threads, with the results of one; auto (the default, unless the scenario "
        "sets threads) takes 2 when two cores are free at the start, else 1",
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
    success; an output directory that cannot be created or an invalid scenario raises
    ValueError (the CLI prints it and exits 2) before anything runs or is written. The
    path imports no pandas (unless traces or --plot ask for it)."""
    check_out_dir(args.out)
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
    threads = args.threads or ("auto" if "threads" not in sc.to_dict() else None)
    if threads == "auto":
        changes["threads"] = auto_threads()
    elif threads is not None:
        changes["threads"] = int(threads)
    if changes:
        sc = sc.replace(**changes)
    # pyarrow takes a tenth of a second or more to import: do it while the simulator runs
    # (it releases the interpreter's lock), on a core the run may leave free.

    threading.Thread(target=_import_writers, name="aqmlab-import", daemon=True).start()
    res = simulate(sc, progress=False if args.no_progress or args.quiet else None)
    out = res.to_dir(args.out)
    if args.plot:
        plot_traces(res, out)
    if not args.quiet:
        s = res.summary
        print(f"{args.scenario}: {s['events']} events in {s['wall_seconds']:.2f} s -> {out}")
        print(links_table(s))
    return 0


def _import_writers() -> None:
    """Import what writing a run's files needs (an import error surfaces when writing)."""
    try:
        import pyarrow.json  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        pass


#: The columns ``aqmlab run`` prints for each link direction that saw arrivals.
RUN_COLUMNS = [
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


def links_table(summary: Dict[str, Any]) -> str:
    """The busy link directions of a summary (arrivals > 0) as a text table of
    :data:`RUN_COLUMNS`, numbers to 4 significant digits, columns right-aligned."""
    links = sorted(summary["links"].items(), key=lambda kv: kv[1]["index"])
    rows = [[name] + [l.get(c) for c in RUN_COLUMNS[1:]] for name, l in links if l["arrivals"] > 0]

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return "NaN" if v is None else str(v)

    table = [RUN_COLUMNS] + [[cell(v) for v in r] for r in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(RUN_COLUMNS))]
    return "\n".join(" ".join(c.rjust(w) for c, w in zip(r, widths)) for r in table)


def auto_threads() -> int:
    """Threads for a one-off run: 2 where two cores are free, else 1 (the simulator
    itself runs on one thread where the network does not split). Free cores: the cores
    this process may use less the other runnable tasks, the most of a few looks over
    20 ms (two threads sharing one core wait for each other: several times slower
    than one thread)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    if cores < 2:
        return 1
    busy = _other_runnable()
    return 2 if busy is not None and cores - busy >= 2 else 1


def _other_runnable(looks: int = 5, gap: float = 0.005) -> Optional[int]:
    """Other tasks runnable now (from /proc/loadavg, less this process), the most of
    `looks` looks `gap` seconds apart; None where it cannot be read."""
    busy = 0
    try:
        for k in range(looks):
            if k:
                time.sleep(gap)
            with open("/proc/loadavg") as f:
                running = int(f.read().split()[3].split("/")[0])
            busy = max(busy, running - 1)
    except (OSError, ValueError, IndexError):
        return None
    return busy


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
    parser.add_argument(
        "--peers",
        metavar="ns2,ns3",
        help="also run the peer harness's case (benchmarks/peers, in the source tree) in "
        "aqmlab and these peers now, as whole processes, and compare them; without it no "
        "peer figure is compared (the recorded history is printed as such)",
    )
    parser.add_argument(
        "--peer-case",
        default="S1-n100-red",
        help="the peer harness's case for --peers (default S1-n100-red: 100 flows, RED, "
        "15 Mb/s, 100 s)",
    )
    parser.add_argument(
        "--peer-repeat",
        type=int,
        default=1,
        help="with --peers: run each simulator N times in turns (medians; default 1)",
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
    packets per wall-clock second (whole run, scenario building included); with
    ``--peers``, the peer harness's case in aqmlab and the peers, measured now."""
    peers = bench_peers.parse_peers(args.peers) if args.peers is not None else []
    if peers:
        bench_peers.peers_dir(required=True)
    positive_int("peer_repeat", args.peer_repeat)
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
    peer_records = bench_peers.measure(peers, args.peer_case, args.peer_repeat) if peers else []
    if args.json:
        print(json.dumps({"aqmlab": rows, "peers": peer_records} if peers else rows, indent=2))
    elif peers:
        print("\n".join(bench_peers.report_lines(peer_records, peers)))
    else:
        for line in bench_peers.history_lines(args.peer_case):
            print(line)
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
    parsers = {"run": sub.add_parser("run"), "bench": sub.add_parser("bench")}
    add_run_arguments(parsers["run"])
    add_bench_arguments(parsers["bench"])
    a = p.parse_args(argv)
    run = run_run if a.cmd == "run" else run_bench
    return run_command(run, a, parsers[a.cmd], f"aqmlab {a.cmd}")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
