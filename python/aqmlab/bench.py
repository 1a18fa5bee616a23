"""``aqmlab bench``: the simulator's speed on the benchmark dumbbells (events and
bottleneck packets per wall-clock second), recorded to a CSV history when asked, and
beside ns-2 and ns-3 with ``--peers``."""

from __future__ import annotations

import argparse
import csv
import datetime
import json
import math
import os
import platform
import subprocess
import time
from typing import Any

from . import bench_overhead, bench_peers
from .base import positive_int
from .sim import DUMBBELL_RED, Scenario, dumbbell, simulate
from .units import quantity

__all__ = [
    "add_arguments",
    "run",
    "case_spec",
    "worst_case_bytes",
    "BENCH_CASES",
    "HISTORY_COLUMNS",
]

#: The benchmark cases: name -> (description, dumbbell keyword arguments).
BENCH_CASES: dict[str, dict[str, Any]] = {
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


#: The smallest packet of the benchmark dumbbells: a TCP ACK (bytes on the wire).
ACK_BYTES = 40


def worst_case_bytes(spec: dict[str, Any]) -> int:
    """The simulator's worst case for a benchmark dumbbell `spec` (docs/simulator.md,
    "Limits"): each link direction's buffer full (its queue's packet limit) and its line
    full of the smallest packets (rate x delay in 40-byte ACKs, rounded up, plus one),
    80 bytes a packet, plus 4 KiB per flow and 24 bytes per packet of each window."""
    packets = 0
    for link in spec["link"]:
        rate = quantity(link["rate"], "rate", "rate")
        delay = quantity(link["delay"], "time", "delay")
        line = math.ceil(rate * delay / (8 * ACK_BYTES)) + 1
        packets += 2 * (int(link["queue"]["limit"]) + line)  # both directions
    flows = spec["flow"]
    windows = sum(int(f["max_window"]) for f in flows)
    return 80 * packets + 4096 * len(flows) + 24 * windows


def case_spec(name: str, flows: int, duration: str | None = None, threads: int = 1) -> dict:
    """The scenario of benchmark case `name` (:data:`BENCH_CASES`) with `flows` flows.

    Its ``max_memory`` is 1.1 times its own worst case (:func:`worst_case_bytes`), as
    the peer harness's fast cases do: the 1 Gb/s case's 10 Gb/s access lines would hold
    hundreds of thousands of 40-byte ACKs each in that worst case (22.8 GB for 100
    flows), which 100 windows of 1000 packets never send, and above half of a 24 GB
    machine's memory, the default budget, the simulator refuses it. The run still
    counts the packets it really holds against that budget as it goes."""
    kw = dict(BENCH_CASES[name])
    if duration:
        kw["duration"] = duration
    spec = dumbbell(flows, name=f"bench-{name}", **kw)
    if threads != 1:
        spec["threads"] = threads
    spec["max_memory"] = int(1.1 * worst_case_bytes(spec))
    return spec


def add_arguments(parser: argparse.ArgumentParser) -> None:
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
        help="also run the peer harness's case (aqmlab/peers, shipped with the package) in "
        "aqmlab and these peers now, as whole processes, and compare them; without it no "
        "peer figure is compared (the recorded history is printed as such)",
    )
    parser.add_argument(
        "--peer-case",
        default=bench_peers.DEFAULT_CASE,
        help="the peer harness's case for --peers (default S1-n100-red-2000s: 100 flows, RED, "
        "15 Mb/s, 2000 s)",
    )
    parser.add_argument(
        "--peer-repeat",
        type=int,
        default=bench_peers.DEFAULT_REPEAT,
        help="with --peers or --overhead: run each N times in turns (medians; default 4)",
    )
    parser.add_argument(
        "--overhead",
        metavar="SCENARIO",
        help="instead of the dumbbells: what the installed `aqmlab run SCENARIO` costs beyond "
        "the simulator's own binary on the same file (whole processes in turns, "
        "--peer-repeat pairs; wall time, CPU time, peak memory)",
    )
    parser.add_argument(
        "--sim-binary",
        metavar="PATH",
        help="with --overhead: the aqmlab-sim binary (default: the source tree's "
        "target/release/aqmlab-sim, else aqmlab-sim on PATH)",
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


def run(args: argparse.Namespace) -> int:
    """Run the benchmark dumbbells and print simulated events per second and bottleneck
    packets per wall-clock second (whole run, scenario building included); with
    ``--peers``, the peer harness's case in aqmlab and the peers, measured now."""
    if args.overhead is not None:
        return _overhead(args)
    peers = bench_peers.parse_peers(args.peers) if args.peers is not None else []
    if peers:
        bench_peers.peers_dir(required=True)
    positive_int("peer_repeat", args.peer_repeat)
    cases = sorted(BENCH_CASES) if args.case == "all" else [args.case]
    rows: list[dict[str, Any]] = []
    for name in cases:
        sc = Scenario(case_spec(name, args.flows, args.duration, args.threads))
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


def _overhead(args: argparse.Namespace) -> int:
    """``--overhead``: the installed command against the binary, printed."""
    positive_int("peer_repeat", args.peer_repeat)
    if not os.path.isfile(args.overhead):
        raise ValueError(f"--overhead: no scenario file {args.overhead}")
    binary = bench_overhead.find_binary(args.sim_binary)
    pairs = bench_overhead.measure_overhead(args.overhead, binary, args.peer_repeat)
    if args.json:
        print(json.dumps(pairs, indent=2))
    else:
        print("\n".join(bench_overhead.overhead_lines(pairs, args.overhead)))
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


def _record(path: str, rows: list[dict[str, Any]]) -> None:
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
