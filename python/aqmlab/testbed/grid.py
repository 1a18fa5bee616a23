"""The testbed's grids: a set of dumbbell cells run on live Linux flows through the
gateway and in the simulator, each cell judged by bounds on the simulator's figures
against the testbed's (docs/testbed.md). :mod:`.linux_grid` (issue 32's `linux` profile
against Linux's CUBIC and Reno) and :mod:`.bbr_grid` (the simulator's BBR against
Linux's) are two :class:`Grid` values; this module runs them, reads their runs back,
prints the table, and records its figures in a CSV file that docs/testbed.md's tables
are generated from (``scripts/docs build``).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable

from aqmlab.sim import simulate

from .core import run_testbed
from .scenario import payload_per_packet

RATE_BPS = 20e6
PACKET = 1500
BOTTLENECK = "r1->r2"
# The access links' buffer, packets: the testbed does not emulate access links (a
# sender's burst goes through its veth to the gateway whole), so in the simulator they
# must not drop either; the simulator's default (50) drops a CUBIC sender's bursts at
# 1 Gb/s after a recovery.
ACCESS_LIMIT = 100_000


def bdp_packets(rtt_ms: int) -> float:
    """The path's bandwidth-delay product in packets of `PACKET` bytes."""
    return RATE_BPS * rtt_ms / 1e3 / (8 * PACKET)


def dumbbell(
    variants: Sequence[str], rtt_ms: int, queue: dict[str, Any], duration: float, warmup: float
) -> dict[str, Any]:
    """A cell's scenario: s1 - r1 =20 Mb/s, RTT/2 one way= r2 - k1, access links 1 Gb/s
    with no delay and a buffer that never fills (`ACCESS_LIMIT`), 1500-byte packets,
    the `linux` profile; one TCP flow per variant from s1 to k1, starting at uniform
    times in [0, 1] s (seed 1)."""
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
    access = {"type": "droptail", "limit": ACCESS_LIMIT}
    return {
        "duration": duration,
        "warmup": warmup,
        "seed": 1,
        "profile": "linux",
        "link": [
            {"a": "s1", "b": "r1", "rate": "1Gbps", "delay": "0ms", "queue": access},
            {
                "a": "r1",
                "b": "r2",
                "rate": f"{RATE_BPS:.0f}bps",
                "delay": f"{rtt_ms / 2:g}ms",
                "queue": queue,
            },
            {"a": "r2", "b": "k1", "rate": "1Gbps", "delay": "0ms", "queue": access},
        ],
        "flow": flows,
    }


@dataclass
class Side:
    """One side's figures for a cell (testbed or simulator); None where not measured."""

    utilization: float
    mean_queue: float
    drop_rate: float | None = None  # the bottleneck's drops / arrivals, in the window
    retx_rate: float | None = None  # retransmitted / sent segments, all flows, in the window
    share: float | None = None  # the grid's `share_of` variant's goodput over the sum
    # The BBR flows' bandwidth estimates summed, over the link's rate (testbed: the
    # medians of `ss -ti`'s samples, in payload; simulator: at the end, in packets)
    bw_ratio: float | None = None
    # retransmission timeouts, all flows, over the whole run (testbed: nstat's)
    timeouts: float | None = None


def _share(flows: list[dict[str, Any]], of: str | None) -> float | None:
    """`of`'s share of the goodput when the flows have more than one variant."""
    goodput: dict[str, float] = {}
    for f in flows:
        goodput[f["variant"]] = goodput.get(f["variant"], 0.0) + (f.get("goodput_bps") or 0.0)
    total = sum(goodput.values())
    if of is None or len(goodput) < 2 or total <= 0:
        return None
    return goodput.get(of, 0.0) / total


def _drop_rate(link: dict[str, Any]) -> float | None:
    return link["drops"] / link["arrivals"] if link.get("arrivals") else None


def testbed_side(s: dict[str, Any], share_of: str | None = None) -> Side:
    """The testbed's figures from its summary: the gateway's bottleneck direction, the
    iperf3 senders' retransmissions over the gateway's count of their packets, the
    namespace's `TcpExtTCPTimeouts`."""
    link = s["links"][BOTTLENECK]
    tcp = [f for f in s["flows"] if f.get("type") == "tcp"]
    sent = sum(f.get("sent") or 0 for f in tcp)
    retx = [f.get("window_retransmits") for f in tcp]
    rate = sum(retx) / sent if sent and None not in retx else None
    bws = [f.get("bbr_bw_bps") for f in tcp if f["variant"] == "bbr"]
    payload = RATE_BPS * payload_per_packet(PACKET) / PACKET
    bw = sum(bws) / payload if bws and None not in bws else None
    # nstat's counters per end namespace, over the whole run
    counters = (s.get("testbed", {}).get("tcp_counters") or {}).values()
    seen = [c["TcpExtTCPTimeouts"] for c in counters if c and "TcpExtTCPTimeouts" in c]
    timeouts = sum(seen) if seen else None
    return Side(
        link["utilization"],
        link["mean_queue"],
        _drop_rate(link),
        rate,
        _share(tcp, share_of),
        bw,
        float(timeouts) if timeouts is not None else None,
    )


def simulator_side(s: dict[str, Any], share_of: str | None = None) -> Side:
    """The simulator's figures from its summary (the testbed's `prediction`)."""
    link = s["links"][BOTTLENECK]
    tcp = [f for f in s["flows"] if f.get("variant")]
    sent = sum(f["sent"] for f in tcp)
    rate = sum(f["retransmits"] for f in tcp) / sent if sent else None
    bbr = [f["bbr_btl_bw_bps"] for f in tcp if f["variant"] == "bbr"]
    bw = sum(bbr) / RATE_BPS if bbr else None
    timeouts = float(sum(f.get("timeouts") or 0 for f in tcp))
    return Side(
        link["utilization"],
        link["mean_queue"],
        _drop_rate(link),
        rate,
        _share(tcp, share_of),
        bw,
        timeouts,
    )


@dataclass(frozen=True)
class Bound:
    """A bound of a cell: the simulator's figure `key` within `limit` of the testbed's,
    in absolute terms or relative to the testbed's figure."""

    key: str
    limit: float
    relative: bool

    def applies(self, t: Side, p: Side) -> bool:
        """Judged where either side has the figure (BBR's share only beside CUBIC)."""
        return getattr(t, self.key) is not None or getattr(p, self.key) is not None

    def holds(self, t: Side, p: Side) -> bool:
        a, b = getattr(t, self.key), getattr(p, self.key)
        if a is None or b is None:
            return False
        if not self.relative:
            return abs(b - a) <= self.limit
        return abs(b - a) <= self.limit * a if a > 0 else b == 0


def _pct(x: float | None) -> str:
    return "-" if x is None or math.isnan(x) else f"{100 * x:.3f}"


def _fixed(digits: int) -> Callable[[float | None], str]:
    return lambda x: "-" if x is None else f"{x:.{digits}f}"


# Each figure's column title and format, in table order.
COLUMNS: dict[str, tuple[str, Callable[[float | None], str]]] = {
    "utilization": ("utilization", _fixed(3)),
    "mean_queue": ("mean queue (packets)", _fixed(1)),
    "drop_rate": ("dropped %", _pct),
    "retx_rate": ("retransmitted %", _pct),
    "share": ("BBR's share", _fixed(2)),
    "bw_ratio": ("BBR's bw / link", _fixed(3)),
    "timeouts": ("timeouts (whole run)", _fixed(0)),
}


@dataclass
class Row:
    name: str
    testbed: Side
    simulator: Side
    load: float | None  # the 1-minute load average as the testbed's run ended
    lag_ms: float | None  # the gateway's p99 lateness sending to the receivers, ms


@dataclass(frozen=True)
class Grid:
    """A grid: its cells, each cell's scenario, its bounds and the columns its table
    shows (the bounds' figures first, then `extra`)."""

    prog: str
    about: str
    cells: tuple[tuple[Any, ...], ...]
    name: Callable[..., str]
    scenario: Callable[..., dict[str, Any]]
    bounds: tuple[Bound, ...]
    extra: tuple[str, ...]
    share_of: str | None = None

    def verdicts(self, t: Side, p: Side) -> dict[str, bool]:
        """Each bound that applies to the cell: True when the simulator is inside it."""
        return {b.key: b.holds(t, p) for b in self.bounds if b.applies(t, p)}

    def table(self, rows: list[Row]) -> str:
        """The Markdown table of docs/testbed.md (testbed / simulator; a figure outside
        its bound in bold) and the count of cells inside."""
        judged = [b.key for b in self.bounds]
        heads = [COLUMNS[k][0] for k in judged] + ["inside"] + [COLUMNS[k][0] for k in self.extra]
        heads += ["gateway lag p99 (ms)", "load"]
        out = ["| cell | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
        inside = 0
        for r in rows:
            v = self.verdicts(r.testbed, r.simulator)
            ok = all(v.values())
            inside += ok
            cols = []
            for k in judged + ["inside"] + list(self.extra):
                if k == "inside":
                    cols.append("yes" if ok else "no")
                    continue
                fmt = COLUMNS[k][1]
                pair = f"{fmt(getattr(r.testbed, k))} / {fmt(getattr(r.simulator, k))}"
                cols.append(pair if v.get(k, True) else f"**{pair}**")
            cols += [_fixed(1)(r.lag_ms), _fixed(1)(r.load)]
            out.append(f"| {r.name} | " + " | ".join(cols) + " |")
        out.append("")
        share = 100 * inside / max(1, len(rows))
        each = ", ".join(f"{COLUMNS[k][0]} {a} of {b}" for k, (a, b) in self.by_bound(rows).items())
        out.append(
            f"{inside} of {len(rows)} cells inside ({share:.0f} %); inside each bound: {each}."
        )
        return "\n".join(out)

    def by_bound(self, rows: list[Row]) -> dict[str, tuple[int, int]]:
        """For each bound, the cells inside it and the cells it applies to."""
        n = {b.key: [0, 0] for b in self.bounds}
        for r in rows:
            for k, ok in self.verdicts(r.testbed, r.simulator).items():
                n[k][0] += ok
                n[k][1] += 1
        return {k: (a, b) for k, (a, b) in n.items()}

    def chosen(self, want: list[str]) -> list[tuple[Any, ...]]:
        """The cells whose names start with one of `want` (all when empty)."""
        return [c for c in self.cells if not want or any(self.name(*c).startswith(w) for w in want)]


def load_row(grid: Grid, out: Path, name: str, predict: dict[str, Any] | None = None) -> Row | None:
    """A cell's row from its run's summary.json under `out` (None if it has none, or
    the simulator's prediction is missing), with the machine's load as it ended;
    `predict`: the cell's scenario, simulated now in place of the recorded prediction."""
    path = out / name / "summary.json"
    if not path.is_file():
        return None
    s = json.loads(path.read_text())
    if predict is not None:
        s["prediction"] = simulate(predict, progress=False).summary
    if not s.get("prediction"):
        return None
    load = out / name / "load.txt"
    la = float(load.read_text()) if load.is_file() else None
    lag = s["testbed"]["gateway"].get("side_b", {}).get("tx_lag_p99_s")
    lag_ms = lag * 1e3 if lag is not None else None
    t = testbed_side(s, grid.share_of)
    p = simulator_side(s["prediction"], grid.share_of)
    return Row(name, t, p, la, lag_ms)


# -- the recorded figures (the CSV docs/testbed.md's tables are generated from) -------
_SIDE_KEYS = [f.name for f in fields(Side)]


def write_csv(rows: list[Row], path: Path) -> None:
    """Each row's figures, one line per cell (testbed_* and simulator_* per figure)."""
    head = ["cell"] + [f"{s}_{k}" for s in ("testbed", "simulator") for k in _SIDE_KEYS]
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(head + ["load", "lag_ms"])
        for r in rows:
            vals = [getattr(side, k) for side in (r.testbed, r.simulator) for k in _SIDE_KEYS]
            w.writerow([r.name] + ["" if v is None else repr(v) for v in vals + [r.load, r.lag_ms]])


def read_csv(path: Path) -> list[Row]:
    """The rows `write_csv` wrote."""

    def num(x: str) -> float | None:
        return None if x == "" else float(x)

    rows = []
    with open(path, newline="") as fh:
        for d in csv.DictReader(fh):
            sides = [
                Side(**{k: num(d[f"{s}_{k}"]) for k in _SIDE_KEYS})  # type: ignore[arg-type]
                for s in ("testbed", "simulator")
            ]
            rows.append(Row(d["cell"], sides[0], sides[1], num(d["load"]), num(d["lag_ms"])))
    return rows


# -- the spread over runs and seeds ----------------------------------------------------
def _span(xs: list[float | None], fmt: Callable[[float | None], str]) -> str:
    v = [x for x in xs if x is not None]
    if not v:
        return "-"
    lo, hi = fmt(min(v)), fmt(max(v))
    return lo if lo == hi else f"{lo}-{hi}"


def spread_table(
    grid: Grid, names: list[str], runs: list[list[Side]], sims: list[list[Side]]
) -> str:
    """Each cell's testbed runs (`runs[i]`, one Side per run directory) and the simulator
    over seeds (`sims[i]`): the range of each bounded figure but utilization, to tell a
    difference from either side's spread."""
    keys = [b.key for b in grid.bounds if b.key != "utilization"]
    heads = []
    for k in keys:
        heads += [f"{COLUMNS[k][0]}: testbed runs", "simulator seeds"]
    out = ["| cell | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
    for name, tb, sim in zip(names, runs, sims):
        cols = []
        for k in keys:
            fmt = COLUMNS[k][1]
            cols += [", ".join(fmt(getattr(t, k)) for t in tb)]
            cols += [_span([getattr(s, k) for s in sim], fmt)]
        out.append(f"| {name} | " + " | ".join(cols) + " |")
    return "\n".join(out)


def _spread(grid: Grid, a: argparse.Namespace, chosen: list[tuple[Any, ...]]) -> str:
    """The spread table for `--spread`: the testbed runs in --out and the --spread
    directories, the simulator over seeds 1 to --seeds."""
    names, runs, sims = [], [], []
    dirs = [Path(a.out), *map(Path, a.spread)]
    for c in chosen:
        name = grid.name(*c)
        tb = [r.testbed for d in dirs if (r := load_row(grid, d, name))]
        sim = []
        for seed in range(1, a.seeds + 1):
            sc = grid.scenario(*c, a.duration, a.warmup)
            sc["seed"] = seed
            sim.append(simulator_side(simulate(sc, progress=False).summary, grid.share_of))
        names.append(name)
        runs.append(tb)
        sims.append(sim)
    return spread_table(grid, names, runs, sims)


def recorded_rows(grid: Grid, a: argparse.Namespace, chosen: list[tuple[Any, ...]]) -> list[Row]:
    """The chosen cells' rows of the CSV `--recorded` names; with `--resimulate`, their
    simulator side from this installation's simulator (`--duration`, `--warmup`)."""
    by_name = {r.name: r for r in read_csv(Path(a.recorded))}
    rows = []
    for c in chosen:
        r = by_name.get(grid.name(*c))
        if r is None:
            continue
        if a.resimulate:
            summary = simulate(grid.scenario(*c, a.duration, a.warmup), progress=False).summary
            r = Row(r.name, r.testbed, simulator_side(summary, grid.share_of), r.load, r.lag_ms)
        rows.append(r)
    return rows


# -- the command -----------------------------------------------------------------------
def parser(grid: Grid) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"python -m {grid.prog}", description=grid.about)
    n = len(grid.cells)
    p.add_argument(
        "--out", default=f"testbed-{grid.prog.rsplit('.', 1)[-1]}", help="one subdirectory per cell"
    )
    p.add_argument(
        "--cells",
        default="",
        help=f"comma-separated cell names or name prefixes to run (default: all {n}), "
        f"e.g. {grid.name(*grid.cells[0]).rsplit('-', 1)[0]}",
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
    p.add_argument(
        "--recorded",
        default=None,
        metavar="PATH",
        help="with --table-only: the rows of a CSV --csv wrote (the testbed's figures of "
        "a run whose directories are gone) in place of --out's runs; with --resimulate, "
        "each cell's simulator side simulated again",
    )
    p.add_argument(
        "--csv",
        default=None,
        metavar="PATH",
        help="also write the table's figures to PATH (the file docs/testbed.md's table "
        "is generated from)",
    )
    return p


def main(grid: Grid, argv: list[str] | None = None) -> int:
    a = parser(grid).parse_args(argv)
    out = Path(a.out)
    chosen = grid.chosen([c for c in a.cells.split(",") if c])
    if not a.table_only:
        for c in chosen:
            name = grid.name(*c)
            print(f"running {name} ...", file=sys.stderr, flush=True)
            run_testbed(grid.scenario(*c, a.duration, a.warmup), out / name)
            (out / name / "load.txt").write_text(f"{os.getloadavg()[0]:.1f}\n")
    rows = []
    if a.table_only and a.recorded:
        rows = recorded_rows(grid, a, chosen)
    for c in [] if a.table_only and a.recorded else chosen:
        predict = grid.scenario(*c, a.duration, a.warmup) if a.resimulate else None
        if r := load_row(grid, out, grid.name(*c), predict):
            rows.append(r)
    print(grid.table(rows))
    if a.csv:
        write_csv(rows, Path(a.csv))
    if a.table_only and a.spread is not None:
        print()
        print(_spread(grid, a, chosen))
    return 0
