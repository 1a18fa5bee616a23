"""``python -m aqmlab.testbed.bbr_grid``: Linux's BBR on the testbed beside the
simulator's (`variant = "bbr"`, profile `linux`), over the grid of docs/testbed.md:
1 and 2 BBR flows, and 1 BBR beside 1 CUBIC; base RTT 20 and 80 ms; 20 Mb/s; Drop Tail
of 1 and 4 BDP, CoDel and FQ-CoDel. Prints one row per cell with the testbed's and
the simulator's figures and whether the cell is inside the bounds.

The bounds, per cell: bottleneck utilization within 2 points, mean queue within 25 %
and retransmission rate within 30 % of the testbed's, and BBR's share of the goodput
beside CUBIC within 0.1.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .core import run_testbed
from .scenario import payload_per_packet

RATE_BPS = 20e6
PACKET = 1500
RTTS_MS = (20, 80)
QUEUES = ("droptail1", "droptail4", "codel", "fq_codel")
MIXES = ("bbr1", "bbr2", "bbr+cubic")
BOTTLENECK = "r1->r2"
# The bounds (docs/testbed.md): absolute for utilization and share, relative to the
# testbed's figure for the mean queue and the retransmission rate.
UTIL_POINTS = 0.02
QUEUE_REL = 0.25
RETX_REL = 0.30
SHARE_ABS = 0.1


def bdp_packets(rtt_ms: int) -> float:
    """The path's bandwidth-delay product in packets of `PACKET` bytes."""
    return RATE_BPS * rtt_ms / 1e3 / (8 * PACKET)


def queue_config(queue: str, rtt_ms: int) -> dict[str, Any]:
    """The bottleneck queue of a cell: Drop Tail of 1 or 4 BDP (rounded to whole
    packets), CoDel and FQ-CoDel at their defaults with a 1000-packet limit (Linux's
    CoDel default)."""
    if queue.startswith("droptail"):
        return {"type": "droptail", "limit": round(int(queue[-1]) * bdp_packets(rtt_ms))}
    return {"type": queue, "limit": 1000}


def scenario(mix: str, rtt_ms: int, queue: str, duration: float, warmup: float) -> dict:
    """A cell's scenario: s1 - r1 =20 Mb/s, RTT/2 one way= r2 - k1, access links 1 Gb/s
    with no delay, 1500-byte packets, the `linux` profile (Linux's TCP, tcp_bbr.c's
    gains); flows start at uniform times in [0, 1] s."""
    variants = {"bbr1": ["bbr"], "bbr2": ["bbr", "bbr"], "bbr+cubic": ["bbr", "cubic"]}[mix]
    flows = [
        {
            "type": "tcp",
            "variant": v,
            "src": "s1",
            "dst": "k1",
            "packet_size": PACKET,
            "start": {"uniform": [0, 1]},
        }
        for v in variants
    ]
    return {
        "duration": duration,
        "warmup": warmup,
        "seed": 1,
        "profile": "linux",
        "link": [
            {"a": "s1", "b": "r1", "rate": "1Gbps", "delay": "0ms"},
            {
                "a": "r1",
                "b": "r2",
                "rate": f"{RATE_BPS:.0f}bps",
                "delay": f"{rtt_ms / 2:g}ms",
                "queue": queue_config(queue, rtt_ms),
            },
            {"a": "r2", "b": "k1", "rate": "1Gbps", "delay": "0ms"},
        ],
        "flow": flows,
    }


def cell_name(mix: str, rtt_ms: int, queue: str) -> str:
    return f"{mix}-rtt{rtt_ms}-{queue}"


def cells() -> list[tuple[str, int, str]]:
    return [(m, r, q) for m in MIXES for r in RTTS_MS for q in QUEUES]


@dataclass
class Side:
    """One side's figures for a cell (testbed or simulator)."""

    utilization: float
    mean_queue: float
    retx_rate: float | None  # retransmitted / sent segments, all flows, in the window
    share: float | None  # BBR's goodput over the sum (bbr+cubic only)
    # The BBR flows' bandwidth estimates summed, over the link's rate (testbed: the
    # medians of `ss -ti`'s samples, in payload; simulator: at the end, in packets)
    bw_ratio: float | None


def _share(flows: list[dict[str, Any]], variant_of) -> float | None:
    goodput = {variant_of(f): f.get("goodput_bps") or 0.0 for f in flows}
    total = sum(goodput.values())
    return goodput.get("bbr", 0.0) / total if "cubic" in goodput and total > 0 else None


def testbed_side(s: dict[str, Any]) -> Side:
    """The testbed's figures from its summary: the gateway's bottleneck direction, the
    iperf3 senders' retransmissions over the gateway's count of their packets."""
    link = s["links"][BOTTLENECK]
    tcp = [f for f in s["flows"] if f.get("type") == "tcp"]
    sent = sum(f.get("sent") or 0 for f in tcp)
    retx = [f.get("window_retransmits") for f in tcp]
    rate = sum(retx) / sent if sent and None not in retx else None
    bws = [f.get("bbr_bw_bps") for f in tcp if f["variant"] == "bbr"]
    payload = RATE_BPS * payload_per_packet(PACKET) / PACKET
    bw = sum(bws) / payload if bws and None not in bws else None
    share = _share(tcp, lambda f: f["variant"])
    return Side(link["utilization"], link["mean_queue"], rate, share, bw)


def simulator_side(s: dict[str, Any]) -> Side:
    """The simulator's figures from its summary (the testbed's `prediction`)."""
    link = s["links"][BOTTLENECK]
    tcp = [f for f in s["flows"] if f.get("variant")]
    sent = sum(f["sent"] for f in tcp)
    rate = sum(f["retransmits"] for f in tcp) / sent if sent else None
    bw = sum(f["bbr_btl_bw_bps"] for f in tcp if f["variant"] == "bbr") / RATE_BPS
    share = _share(tcp, lambda f: f["variant"])
    return Side(link["utilization"], link["mean_queue"], rate, share, bw)


def _rel_ok(t: float | None, p: float | None, rel: float) -> bool:
    if t is None or p is None:
        return False
    return abs(p - t) <= rel * t if t > 0 else p == 0


def verdicts(t: Side, p: Side) -> dict[str, bool]:
    """Each bound of the cell: True when the simulator is inside it."""
    v = {
        "utilization": abs(t.utilization - p.utilization) <= UTIL_POINTS,
        "mean_queue": _rel_ok(t.mean_queue, p.mean_queue, QUEUE_REL),
        "retx_rate": _rel_ok(t.retx_rate, p.retx_rate, RETX_REL),
    }
    if t.share is not None or p.share is not None:
        v["share"] = (
            t.share is not None and p.share is not None and abs(t.share - p.share) <= SHARE_ABS
        )
    return v


@dataclass
class Row:
    name: str
    testbed: Side
    simulator: Side
    load: float | None  # the 1-minute load average as the testbed's run ended
    lag_ms: float | None  # the gateway's p99 lateness sending to the receivers, ms


def _opt(x: float | None, fmt: str) -> str:
    return "-" if x is None else format(x, fmt)


def _pct(x: float | None) -> str:
    return "-" if x is None or math.isnan(x) else f"{100 * x:.3f}"


def _share_s(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _pair(v: dict[str, bool], key: str, a: str, b: str) -> str:
    """ "testbed / simulator", in bold when the cell's bound `key` fails."""
    s = f"{a} / {b}"
    return s if v.get(key, True) else f"**{s}**"


def table(rows: list[Row]) -> str:
    """The grid as the Markdown table of docs/testbed.md (testbed / simulator; a
    figure outside its bound in bold) and the count of cells inside."""
    out = [
        "| cell | utilization | mean queue (packets) | retransmitted % | BBR's share | inside "
        "| BBR's bw / link | gateway lag p99 (ms) | load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    inside = 0
    for r in rows:
        name, t, p = r.name, r.testbed, r.simulator
        v = verdicts(t, p)
        inside += all(v.values())

        out.append(
            f"| {name} "
            f"| {_pair(v, 'utilization', f'{t.utilization:.3f}', f'{p.utilization:.3f}')} "
            f"| {_pair(v, 'mean_queue', f'{t.mean_queue:.1f}', f'{p.mean_queue:.1f}')} "
            f"| {_pair(v, 'retx_rate', _pct(t.retx_rate), _pct(p.retx_rate))} "
            f"| {_pair(v, 'share', _share_s(t.share), _share_s(p.share))} "
            f"| {'yes' if all(v.values()) else 'no'} "
            f"| {_opt(t.bw_ratio, '.3f')} / {_opt(p.bw_ratio, '.3f')} "
            f"| {_opt(r.lag_ms, '.1f')} | {_opt(r.load, '.1f')} |"
        )
    out.append("")
    out.append(f"{inside} of {len(rows)} cells inside ({100 * inside / max(1, len(rows)):.0f} %).")
    return "\n".join(out)


def load_row(out: Path, name: str, predict: dict[str, Any] | None = None) -> Row | None:
    """A cell's row from its run's summary.json under `out` (None if it has none, or
    the simulator's prediction is missing), with the machine's load as it ended;
    `predict`: the cell's scenario, simulated now in place of the recorded prediction."""
    path = out / name / "summary.json"
    if not path.is_file():
        return None
    s = json.loads(path.read_text())
    if predict is not None:
        from aqmlab.sim import simulate

        s["prediction"] = simulate(predict, progress=False).summary
    if not s.get("prediction"):
        return None
    load = out / name / "load.txt"
    la = float(load.read_text()) if load.is_file() else None
    lag = s["testbed"]["gateway"].get("side_b", {}).get("tx_lag_p99_s")
    lag_ms = lag * 1e3 if lag is not None else None
    return Row(name, testbed_side(s), simulator_side(s["prediction"]), la, lag_ms)


def _span(xs: list[float | None], fmt) -> str:
    v = [x for x in xs if x is not None]
    if not v:
        return "-"
    lo, hi = fmt(min(v)), fmt(max(v))
    return lo if lo == hi else f"{lo}-{hi}"


def spread_table(names: list[str], runs: list[list[Side]], sims: list[list[Side]]) -> str:
    """Each cell's testbed runs (`runs[i]`, one Side per run directory) and the simulator
    over seeds (`sims[i]`): the range of the mean queue, the retransmission rate and
    BBR's share, to tell a difference from either side's spread."""
    out = [
        "| cell | mean queue: testbed runs | simulator seeds | retransmitted %: testbed runs "
        "| simulator seeds | BBR's share: testbed runs | simulator seeds |",
        "|---|---|---|---|---|---|---|",
    ]
    q = lambda x: f"{x:.1f}"  # noqa: E731
    for name, tb, sim in zip(names, runs, sims):
        cols = []
        for get, fmt in (
            (lambda s: s.mean_queue, q),
            (lambda s: s.retx_rate, _pct),
            (lambda s: s.share, _share_s),
        ):
            cols += [", ".join(fmt(get(t)) if get(t) is not None else "-" for t in tb)]
            cols += [_span([get(t) for t in sim], fmt)]
        out.append(f"| {name} | " + " | ".join(cols) + " |")
    return "\n".join(out)


def _spread(a: argparse.Namespace, chosen: list[tuple[str, int, str]]) -> str:
    """The spread table for `--spread`: the testbed runs in --out and the --spread
    directories, the simulator over seeds 1 to --seeds."""
    from aqmlab.sim import simulate

    names, runs, sims = [], [], []
    dirs = [Path(a.out), *map(Path, a.spread)]
    for c in chosen:
        name = cell_name(*c)
        tb = [r.testbed for d in dirs if (r := load_row(d, name))]
        sim = []
        for seed in range(1, a.seeds + 1):
            sc = scenario(*c, a.duration, a.warmup)
            sc["seed"] = seed
            sim.append(simulator_side(simulate(sc, progress=False).summary))
        names.append(name)
        runs.append(tb)
        sims.append(sim)
    return spread_table(names, runs, sims)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m aqmlab.testbed.bbr_grid", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--out", default="testbed-bbr-grid", help="one subdirectory per cell")
    p.add_argument(
        "--cells",
        default="",
        help="comma-separated cell names or name prefixes to run (default: all 24), "
        "e.g. bbr1-rtt20",
    )
    p.add_argument("--duration", type=float, default=40.0, help="seconds (default 40)")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds (default 10)")
    p.add_argument(
        "--table-only",
        action="store_true",
        help="print the table from the runs already in --out, run nothing",
    )
    p.add_argument(
        "--resimulate",
        action="store_true",
        help="with --table-only: the simulator's side from this installation's simulator "
        "(same --duration and --warmup as the runs), not the runs' recorded predictions",
    )
    p.add_argument(
        "--spread",
        nargs="*",
        default=None,
        metavar="DIR",
        help="with --table-only: also each cell's spread, over the runs in --out and "
        "in these directories (other runs of the grid) and the simulator over --seeds seeds",
    )
    p.add_argument("--seeds", type=int, default=4, help="simulator seeds for --spread (default 4)")
    a = p.parse_args(argv)
    out = Path(a.out)
    want = [c for c in a.cells.split(",") if c]
    chosen = [c for c in cells() if not want or any(cell_name(*c).startswith(w) for w in want)]
    if not a.table_only:
        for c in chosen:
            name = cell_name(*c)
            print(f"running {name} ...", file=sys.stderr, flush=True)
            run_testbed(scenario(*c, a.duration, a.warmup), out / name)
            (out / name / "load.txt").write_text(f"{os.getloadavg()[0]:.1f}\n")
    rows = [
        r
        for c in chosen
        if (
            r := load_row(
                out,
                cell_name(*c),
                scenario(*c, a.duration, a.warmup) if a.resimulate else None,
            )
        )
    ]
    print(table(rows))
    if a.table_only and a.spread is not None:
        print()
        print(_spread(a, chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
