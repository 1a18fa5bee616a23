"""Lin & Morris, "Dynamics of Random Early Detection" (SIGCOMM 1997): a fragile long-RTT
TCP against four robust local TCPs through RED (Tables 1, 2) and FRED (Tables 3, 4).

The paper simulated ATM (552-byte packets in 12 cells, 13.2% overhead); aqmlab folds the
overhead into the link rates (``scenarios/lin1997_fig1.toml`` says how). Figs. 3-4 are in
:mod:`.lin1997_symmetric`, Figs. 6-7 in :mod:`.lin1997_cbr`, Table 5 and Figs. 9-11 in
:mod:`.lin1997_many`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..sim import Scenario, simulate
from .common import scenario_dict
from .context import Context
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PAPER = "Lin & Morris 1997, ACM SIGCOMM '97"

#: Payload share of an ATM link a 552-byte packet gets (12 cells of 53 bytes).
CELL_FACTOR = 552 / 636
BUFFERS = (16, 24, 32, 40, 48, 56)
#: The fragile connection's window-limited rate: 16 packets per 36 ms round trip.
FRAGILE_MAX_PPS = 16 / 0.036
LINK = "gw->sink"

#: Table 1 (RED, fragile window 16): BW/MAX, BW%/DROP%, fragile and R-1 loss rates.
TABLE1 = {
    "bw_max": (0.45, 0.67, 0.69, 0.70, 0.70, 0.71),
    "bw_drop": (0.456, 1.05, 1.03, 0.982, 0.911, 0.940),
    "loss_fragile": (0.0113, 0.0055, 0.0042, 0.0040, 0.0037, 0.0032),
    "loss_r1": (0.0049, 0.0044, 0.0040, 0.0038, 0.0035, 0.0033),
}
#: Table 2 (RED, fragile window 64 KB): BW/link rate, BW%/DROP%, loss rates.
TABLE2 = {
    "bw_link": (0.027, 0.039, 0.043, 0.045, 0.046, 0.046),
    "bw_drop": (0.522, 0.989, 1.01, 1.04, 0.995, 0.907),
    "loss_fragile": (0.0097, 0.0051, 0.0043, 0.0046, 0.0037, 0.0039),
    "loss_r1": (0.0051, 0.0045, 0.0040, 0.0037, 0.0035, 0.0034),
}
#: Table 4 (FRED, fragile window 64 KB). The text's table block captioned "Table 3" holds
#: a "BW/Link Rate" row, which is Table 4's (Table 3's rows are BW/MAX); Table 3's numbers
#: are not in the text, only its claim that the fragile connection runs at its maximum.
TABLE4 = {
    "bw_link": (0.069, 0.19, 0.20, 0.20, 0.16, 0.15),
    "loss_fragile": (0.0026, 0.0008, 0.0006, 0.0007, 0.0005, 0.0004),
    "loss_r1": (0.0135, 0.0118, 0.0121, 0.0106, 0.0086, 0.0075),
}


def queue(kind: str, bs: int) -> dict[str, Any]:
    """RED or FRED (min_q 2) with the paper's parameters for buffer `bs`."""
    q: dict[str, Any] = {
        "type": kind,
        "limit": bs,
        "min_th": bs / 4,
        "max_th": bs / 2,
        "w_q": 0.002,
        "max_p": 0.02,
        "mean_pkt_size": 552,
        "max_pkt_size": 552,
    }
    if kind == "fred":
        q["min_q"] = 2
    return q


def fragile_scenario(kind: str, bs: int, window: int, seed: int, quick: bool) -> dict[str, Any]:
    sc = scenario_dict("lin1997_fig1.toml")
    sc["seed"] = seed
    sc["link"][-1]["queue_ab"] = queue(kind, bs)
    sc["flow"][0]["max_window"] = window
    if quick:
        sc["duration"], sc["warmup"] = "20s", "10s"
    return sc


def run_fragile(
    kind: str, window: int, buffers: Sequence[int], seeds: Sequence[int], quick: bool
) -> pd.DataFrame:
    """One row per (buffer, seed): the fragile flow's rate and shares, loss rates."""
    rows: list[dict[str, Any]] = []
    for bs in buffers:
        for seed in seeds:
            sc = fragile_scenario(kind, bs, window, seed, quick)
            res = simulate(Scenario.from_dict(sc), progress=False)
            f = res.flows.set_index("name")
            link = res.summary["links"][LINK]
            pps = f["throughput_bps"] / (552 * 8)
            share_bw = pps["fragile"] / pps.sum()
            drops = f["drops"]
            share_drop = drops["fragile"] / drops.sum() if drops.sum() else float("nan")
            rows.append(
                {
                    "buffer": bs,
                    "seed": seed,
                    "bw_max": pps["fragile"] / FRAGILE_MAX_PPS,
                    "bw_link": f["throughput_bps"]["fragile"] / (45e6 * CELL_FACTOR),
                    "bw_drop": share_bw / share_drop if share_drop else float("nan"),
                    "loss_fragile": f["drops"]["fragile"] / f["arrivals"]["fragile"],
                    "loss_r1": f["drops"]["R1"] / f["arrivals"]["R1"],
                    "utilization": link["utilization"],
                    "mean_avg": link["mean_avg"],
                    "fragile_timeouts": int(f["timeouts"]["fragile"]),
                }
            )
    return pd.DataFrame(rows)


def seeds_for(quick: bool) -> list[int]:
    """Runs per buffer: the paper's 10 are cut to 4 (1 in quick mode) for time."""
    return [1] if quick else [1, 2, 3, 4]


def buffers_for(quick: bool) -> Sequence[int]:
    return (16, 32) if quick else BUFFERS


@dataclass
class Table:
    kind: str  # "red" | "fred"
    window: int
    runs: pd.DataFrame
    means: pd.DataFrame  # per buffer


def _compute(kind: str, window: int, ctx: Context) -> Table:
    seeds = seeds_for(ctx.quick)
    ctx.assume(
        "Network of Fig. 1 as scenarios/lin1997_fig1.toml states (ATM cell overhead folded into "
        "the link rates: every rate times 552/636)."
    )
    ctx.assume(
        f"{len(seeds)} run(s) per buffer (the paper: 10), seeds {seeds[0]}-{seeds[-1]}"
        + (
            ", 20 s runs measured over 10-20 s (quick mode)"
            if ctx.quick
            else ", 50 s runs measured over 25-50 s"
        )
        + f"; {'RED' if kind == 'red' else 'FRED (min_q = 2)'} with min_th = BS/4, max_th = BS/2, "
        "w_q = 0.002, max_p = 0.02; fragile window "
        + ("16 packets." if window == 16 else "64 KB (128 packets).")
    )
    ctx.assume(
        "BW/MAX: the fragile connection's packets/s over 16 packets per 36 ms. BW/link rate: its "
        "share of the bottleneck's packet capacity (the paper's cell share). BW%/DROP%: its share "
        "of all packets sent over its share of all drops. Loss rate: drops / arrivals at the "
        "gateway."
    )
    runs = ctx.once(
        ("lin1997-fragile", kind, window),
        lambda: run_fragile(kind, window, buffers_for(ctx.quick), seeds, ctx.quick),
    )
    ctx.save_data(runs, "runs")
    means = runs.groupby("buffer").mean(numeric_only=True).reset_index()
    ctx.save_data(means, "table")
    return Table(kind, window, runs, means)


def _row(d: Table, bs: int, col: str) -> float:
    return float(d.means.set_index("buffer").loc[bs, col])


def _compare_numbers(
    ctx: Context, d: Table, paper: Mapping[str, Sequence[float]], tol: Mapping[str, float]
) -> None:
    labels = {
        "bw_max": "fragile bandwidth / window-limited maximum",
        "bw_link": "fragile bandwidth / link rate",
        "bw_drop": "fragile BW% / DROP%",
        "loss_fragile": "fragile loss rate",
        "loss_r1": "R-1 loss rate",
    }
    for col, values in paper.items():
        for bs, v in zip(BUFFERS, values):
            if bs in set(d.means["buffer"]):
                ctx.compare.value(
                    f"BS = {bs}: {labels[col]}", v, _row(d, bs, col), tol[col], relative=True
                )


def table1_compare(ctx: Context, d: Table) -> None:
    _compare_numbers(
        ctx, d, TABLE1, {"bw_max": 0.15, "bw_drop": 0.25, "loss_fragile": 0.5, "loss_r1": 0.5}
    )
    big = d.means[d.means["buffer"] > 16]
    ctx.compare.claim(
        "the fragile connection gets well below its window-limited maximum (BW/MAX < 0.9 at every buffer)",
        bool((d.means["bw_max"] < 0.9).all()),
        ", ".join(f"{b}: {x:.2f}" for b, x in zip(d.means["buffer"], d.means["bw_max"])),
    )
    ctx.compare.claim(
        "RED keeps drops proportional to bandwidth (BW%/DROP% in [0.75, 1.33] for BS > 16)",
        bool(((big["bw_drop"] > 0.75) & (big["bw_drop"] < 1.33)).all()),
        ", ".join(f"{b}: {x:.2f}" for b, x in zip(big["buffer"], big["bw_drop"])),
    )


def table2_compare(ctx: Context, d: Table) -> None:
    _compare_numbers(
        ctx, d, TABLE2, {"bw_link": 0.25, "bw_drop": 0.25, "loss_fragile": 0.5, "loss_r1": 0.5}
    )
    ctx.compare.claim(
        "the fragile connection fails to obtain its 20% share (BW/link rate < 10% at every buffer)",
        bool((d.means["bw_link"] < 0.10).all()),
        ", ".join(f"{b}: {x:.3f}" for b, x in zip(d.means["buffer"], d.means["bw_link"])),
    )


def table3_compare(ctx: Context, d: Table) -> None:
    big = d.means[d.means["buffer"] > 16]
    ctx.compare.claim(
        "under FRED the fragile connection runs at about its maximum (BW/MAX >= 0.9 for BS > 16)",
        bool((big["bw_max"] >= 0.9).all()),
        ", ".join(f"{b}: {x:.2f}" for b, x in zip(big["buffer"], big["bw_max"])),
    )
    ctx.compare.claim(
        "its loss rate is lower than R-1's (FRED relates drops to buffer use), every buffer",
        bool((d.means["loss_fragile"] < d.means["loss_r1"]).all()),
        ", ".join(
            f"{b}: {x:.4f} vs {y:.4f}"
            for b, x, y in zip(d.means["buffer"], d.means["loss_fragile"], d.means["loss_r1"])
        ),
    )
    for _, r in d.means.iterrows():
        ctx.compare.not_reported(f"BS = {r['buffer']:.0f}: fragile BW/MAX", float(r["bw_max"]))
        ctx.compare.not_reported(
            f"BS = {r['buffer']:.0f}: fragile loss rate", float(r["loss_fragile"])
        )
        ctx.compare.not_reported(f"BS = {r['buffer']:.0f}: R-1 loss rate", float(r["loss_r1"]))
    ctx.note(
        "Table 3's numbers are not in the paper's text (its block holds Table 4's rows); only its claims are compared."
    )


def table4_compare(ctx: Context, d: Table) -> None:
    _compare_numbers(ctx, d, TABLE4, {"bw_link": 0.25, "loss_fragile": 0.5, "loss_r1": 0.5})
    big = d.means[d.means["buffer"] > 16]
    ctx.compare.claim(
        "under FRED the fragile connection gets close to the 20% fair share for BS > 16 (>= 15%)",
        bool((big["bw_link"] >= 0.15).all()),
        ", ".join(f"{b}: {x:.3f}" for b, x in zip(big["buffer"], big["bw_link"])),
    )
    ctx.compare.claim(
        "its loss rate is much lower than R-1's (below half), every buffer",
        bool((d.means["loss_fragile"] < 0.5 * d.means["loss_r1"]).all()),
        ", ".join(
            f"{b}: {x:.4f} vs {y:.4f}"
            for b, x, y in zip(d.means["buffer"], d.means["loss_fragile"], d.means["loss_r1"])
        ),
    )


def table_plot(name: str, col: str, ylabel: str, d: Table) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot(d.runs["buffer"], d.runs[col], "o", ms=3, alpha=0.5, label="runs")
    ax.plot(d.means["buffer"], d.means[col], "-s", label="mean")
    ax.set_xlabel("gateway buffer BS (packets)")
    ax.set_ylabel(ylabel)
    ax.set_title(f"{name}: {'RED' if d.kind == 'red' else 'FRED'}, fragile window {d.window}")
    ax.legend()
    return {name.lower().replace(" ", ""): fig}


def _exp(
    n: int, kind: str, window: int, title: str, compare: Any, col: str, ylabel: str
) -> Experiment[Table]:
    return Experiment(
        f"lin1997-table{n}",
        title,
        compute=partial(_compute, kind, window),
        plot=partial(table_plot, f"Table {n}", col, ylabel),
        compare=compare,
    )


TABLE_1 = _exp(
    1,
    "red",
    16,
    "A long-RTT TCP with a 16-packet window against four local TCPs under RED",
    table1_compare,
    "bw_max",
    "fragile BW / maximum",
)
TABLE_2 = _exp(
    2,
    "red",
    128,
    "A long-RTT TCP with a 64 KB window against four local TCPs under RED",
    table2_compare,
    "bw_link",
    "fragile BW / link rate",
)
TABLE_3 = _exp(
    3,
    "fred",
    16,
    "The same as Table 1 under FRED",
    table3_compare,
    "bw_max",
    "fragile BW / maximum",
)
TABLE_4 = _exp(
    4,
    "fred",
    128,
    "The same as Table 2 under FRED",
    table4_compare,
    "bw_link",
    "fragile BW / link rate",
)
TABLES = (TABLE_1, TABLE_2, TABLE_3, TABLE_4)
