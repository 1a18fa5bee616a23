"""docs/timings.md and the timing blocks of the README and docs/evaluate.md: every
wall time the docs state, from the three histories (``benchmarks/wall-history.csv``,
``benchmarks/history.csv``, ``benchmarks/peers/history.csv``)."""

from __future__ import annotations

import csv
import fnmatch
import statistics

from . import peers, wall
from .blocks import ROOT, table

BENCH = ROOT / "benchmarks" / "history.csv"

#: the peer cost rows: (what, case, aqmlab's threads, labels); the latest records of each
PEER_COST: list[tuple[str, str, int, str]] = [
    ("S1: 100 flows, 15 Mb/s, RED, 100 s", "S1-n100-red", 1, "2026-11-23/threads1-S1n100-S2"),
    ("S2: 100 flows, 1 Gb/s, RED, 10 s", "S2-red", 1, "2026-11-23/threads1-S1n100-S2"),
    ("S1, 2000 s", "S1-n100-red-2000s", 1, "2026-11-23/threads1-long*"),
    ("S1, 2000 s, `threads = 2`", "S1-n100-red-2000s", 2, "2026-11-23/threads2-long*"),
    ("10,000 flows, 100 Mb/s, 10 s", "SC-f10000-100Mbps", 1, "2026-11-22-eve/C"),
]
#: the E cases' cost against ns-3: the full run of both simulators kept for its timings (the
#: profile runs of peers.E_LABELS were made while other jobs shared the two cores, so their
#: seconds are not the simulators' cost)
E_COST = "evaluate-2026-11-25/final"


def secs(x: float) -> str:
    """Seconds as the docs write them: `18.5 s`, `1 min 16 s`."""
    if x < 60:
        return f"{x:.3g} s" if x < 10 else f"{x:.0f} s" if x >= 20 else f"{x:.1f} s"
    m, s = divmod(round(x), 60)
    return f"{m} min {s} s"


def _span(xs: list[float], fmt: str) -> str:
    """`lo-hi` of `xs` in format `fmt` (one figure when both print alike)."""
    lo, hi = min(xs), max(xs)
    return (
        format(lo, fmt)
        if format(lo, fmt) == format(hi, fmt)
        else f"{format(lo, fmt)}-{format(hi, fmt)}"
    )


def _peer_rows(case: str, labels: str) -> list[dict[str, str]]:
    """The history's rows of `case` whose label matches one of `labels`' patterns."""
    pats = labels.split(",")
    with open(peers.HISTORY, newline="") as f:
        return [
            r
            for r in csv.DictReader(f)
            if r["case"] == case
            and r["status"] == "ok"
            and any(fnmatch.fnmatchcase(r["label"], p) for p in pats)
        ]


def _ns3_latest(case: str) -> dict[str, str] | None:
    with open(peers.HISTORY, newline="") as f:
        rows = [
            r
            for r in csv.DictReader(f)
            if r["case"] == case and r["sim"] == "ns3" and r["status"] == "ok"
        ]
    return rows[-1] if rows else None


def peer_cost() -> tuple[str, list[float]]:
    """The cost table against ns-2 and ns-3 and the 2000-s runs' aqmlab/ns-2 ratios (one thread)."""
    out, ratios_1 = [], []
    for what, case, threads, labels in PEER_COST:
        rows = _peer_rows(case, labels)
        aq = [r for r in rows if r["sim"] == "aqmlab" and int(r["threads"] or 1) == threads]
        ns2 = {r["label"]: r for r in rows if r["sim"] == "ns2"}
        pairs = [(a, ns2[a["label"]]) for a in aq if a["label"] in ns2]
        ratios = [float(a["wall_s"]) / float(n["wall_s"]) for a, n in pairs]
        if case.endswith("2000s") and threads == 1:
            ratios_1 = ratios
        n3 = _ns3_latest(case)
        runs = f" ({len(pairs)} runs)" if len(pairs) > 1 else ""
        cell = lambda rs: (  # noqa: E731
            f"{_span([float(r['wall_s']) for r in rs], '.2f')} s, {_span([float(r['peak_mb']) for r in rs], '.0f')} MB"
        )
        out.append(
            [
                what + runs,
                f"`{labels}`",
                cell(aq),
                cell([n for _, n in pairs]),
                f"{cell([n3])} (`{n3['label']}`)" if n3 else "-",
                _span(ratios, "#.3g"),
            ]
        )
    head = ["case", "label", "aqmlab", "ns-2", "ns-3", "aqmlab / ns-2"]
    return table(head, out), ratios_1


def e_cost() -> str:
    """aqmlab's and ns-3's summed wall time over the E cases of one run."""
    recs = peers.records(E_COST)
    aq = [d["aqmlab"]["wall_s"] for d in recs.values() if "aqmlab" in d and "ns3" in d]
    n3 = [d["ns3"]["wall_s"] for d in recs.values() if "aqmlab" in d and "ns3" in d]
    return (
        f"The {len(aq)} E cases of `{E_COST}` (300 s each, whole processes): aqmlab "
        f"{secs(sum(aq))} in all ({_span(aq, '.2f')} s per case), ns-3 {secs(sum(n3))} "
        f"({_span(n3, '.1f')} s); aqmlab took {100 * sum(aq) / sum(n3):.0f}% of ns-3's time.\n"
    )


def quiet(r: dict[str, str]) -> bool:
    """Was the machine otherwise idle: a 1-minute load average below 1 when the run
    started, or the row says so?"""
    load = r["loadavg"].split()
    return float(load[0]) < 1.0 if load else "idle" in r["how"]


def latest_wall(quiet_only: bool = True) -> dict[str, dict[str, str]]:
    """command -> its latest row of the wall-time history (measured on a quiet machine)."""
    out: dict[str, dict[str, str]] = {}
    for r in wall.history():
        if quiet(r) or not quiet_only:
            out[r["command"]] = r
    return out


def _wall_cell(r: dict[str, str]) -> str:
    cpu = f", {secs(float(r['cpu_s']))} CPU" if r["cpu_s"] else ""
    mem = f", {r['peak_mb']} MB" if r["peak_mb"] else ""
    return f"{secs(float(r['wall_s']))}{cpu}{mem}"


def wall_table(rows: list[dict[str, str]]) -> str:
    head = ["recorded", "build", "command", "runs", "wall (CPU, peak)", "load", "how"]
    body = [
        [
            r["date"][:16].replace("T", " "),
            f"`{r['commit']}`",
            f"`aqmlab {r['command']}`",
            r["runs"],
            _wall_cell(r),
            r["loadavg"] or "-",
            r["how"],
        ]
        for r in rows
    ]
    return table(head, body)


def readme_block() -> str:
    """The README's one paragraph of timings."""
    w = latest_wall()
    rep, rq, ev, eq = (
        w[k] for k in ("reproduce all", "reproduce all --quick", "evaluate", "evaluate --quick")
    )
    return (
        f"On the 2-core machine, otherwise idle, the whole catalogue ({rep['runs']} experiments) took "
        f"{secs(float(rep['wall_s']))} (build `{rep['commit']}`; `--quick`: {secs(float(rq['wall_s']))}), "
        f"`aqmlab evaluate --quick` ({eq['runs']} runs) {secs(float(eq['wall_s']))} and the full suite "
        f"({ev['runs']} runs) {secs(float(ev['wall_s']))} (build `{ev['commit']}`). Every measurement, "
        "under load too, with how it was run: [docs/timings.md](docs/timings.md).\n"
    )


def evaluate_block() -> str:
    w = latest_wall()
    return wall_table([w["evaluate --quick"], w["evaluate"]])


def peers_readme_block() -> str:
    tab, ratios = peer_cost()
    med = statistics.median(ratios) if ratios else float("nan")
    return (
        tab
        + f"\nOn the 2000-s run aqmlab on one thread took {_span(ratios, '#.3g')} of ns-2's wall "
        f"time (median {1 / med:.1f}x as fast). " + e_cost()
    )


def _bench_rows() -> list[dict[str, str]]:
    with open(BENCH, newline="") as f:
        return list(csv.DictReader(f))


def bench_table() -> str:
    """`aqmlab bench` by build: wall time and bottleneck packets per wall second per case."""
    cases: list[str] = []
    by: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
    for r in _bench_rows():
        case = r["case"] + (" 2000 s" if float(r["simulated_s"]) > 1000 else "")
        if case not in cases:
            cases.append(case)
        by.setdefault((r["date"][:10], r["commit"]), {})[case] = r
    head = ["date", "build"] + [f"{c}: wall s, packets/s" for c in cases]
    rows = []
    for (date, commit), d in by.items():
        cells = [
            f"{float(d[c]['wall_s']):.3g}, {float(d[c]['bottleneck_packets_per_s']) / 1e6:.2f} M"
            if c in d
            else "-"
            for c in cases
        ]
        rows.append([date, f"`{commit}`"] + cells)
    return table(head, rows)


PAGE = """# Timings

<!-- generated by scripts/docs build from benchmarks/wall-history.csv, benchmarks/history.csv
and benchmarks/peers/history.csv: edit those (or the generator), not this page -->

Every wall time the README and the docs state, from the benchmark histories. The machine is
a shared virtual machine with 2 cores: the same binary's times move by tens of percent with
the load of other work, so each row gives the load average when it started, and ratios
are only taken between runs side by side. Whether a change is slower is decided by
instruction counts ([simulator](simulator.md#performance)), not by these seconds.

## The catalogue and `aqmlab evaluate`

`scripts/docs time --aqmlab VENV/bin/aqmlab --out DIR --record` runs `aqmlab reproduce all`
(and `--quick`) and `aqmlab evaluate` (and `--quick`) from an installed package, each as
one process from a directory outside the source tree, and appends a row per command to
`benchmarks/wall-history.csv` (wall time; CPU time and peak memory from the process's
rusage; the load average when it started). Rows before 28 November were copied from the
docs that stated them. The README and docs/evaluate.md quote the latest row of each
command measured on an otherwise idle machine (a 1-minute load average below 1).

{wall}
## `aqmlab bench`

`aqmlab bench --record` appends to `benchmarks/history.csv`: a dumbbell of 100 NewReno
flows through RED, 15 Mb/s for 100 s (and 2000 s) and 1 Gb/s for 10 s, one process;
packets/s is bottleneck packets per wall-clock second.

{bench}
## Against ns-2 and ns-3

Whole processes, one after another in the same minutes ([peers](peers.md), section 4);
`benchmarks/peers/run --report benchmarks/peers/history.csv --label LABEL` prints a row's
records again. ns-3 was given the large cases only where it finishes in minutes.

{peers}
{ecost}"""


def page() -> str:
    """docs/timings.md."""
    tab, ratios = peer_cost()
    return PAGE.format(
        wall=wall_table(wall.history()), bench=bench_table(), peers=tab, ecost=e_cost()
    )
