"""Lin & Morris 1997, Section 6 (Table 5, Figs. 9-11): sixteen TCP connections from one
host through RED and FRED with 16 packets, and through RED and FRED with the
"two-packet-buffer" extension with 32; New-Reno with the tiny-window enhancement in all
four. Timeouts, utilization, goodput, and the per-connection bandwidth over 140 ms
intervals (Figs. 9-10: eight connections over time; Fig. 11: its distribution)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..sim import Scenario, simulation
from .common import scenario_dict
from .context import Context
from .lin1997 import PAPER
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PAPER", "TABLE5", "FIG9", "FIG10", "FIG11", "GATEWAYS"]

LINK = "gw->sink"
#: The paper's sampling interval of each connection's bandwidth.
INTERVAL = 0.14
FLOWS = 16
#: Table 5's columns: gateway, buffer, two-packet extension.
GATEWAYS = {
    "RED-16": ("red", 16, False),
    "RED-32": ("red", 32, False),
    "FRED-16": ("fred", 16, False),
    "FRED-32": ("fred", 32, True),
}
#: Table 5: total RTOs, link utilization, TCP goodput per flow (kb/s, payload),
#: per-flow throughput / link rate.
PAPER_TABLE5 = {
    "RED-16": (2349, 0.957, 496, 0.0617),
    "RED-32": (2006, 0.997, 500, 0.0623),
    "FRED-16": (2196, 0.993, 499, 0.0621),
    "FRED-32": (20, 1.0, 503, 0.0625),
}


def scenario(name: str, quick: bool) -> dict[str, Any]:
    kind, bs, many = GATEWAYS[name]
    sc = scenario_dict("lin1997_fig8.toml")
    q = dict(sc["link"][1]["queue_ab"], type=kind, limit=bs)
    if kind == "red":
        q.pop("min_q")
    if many:
        q["many_flows"] = True
    sc["link"][1]["queue_ab"] = q
    if quick:
        sc["duration"] = "60s"
    return sc


@dataclass
class Run:
    summary: dict[str, Any]
    share: np.ndarray  # [interval, flow]: packets delivered / link capacity in packets


def simulate_sampled(sc: dict[str, Any]) -> Run:
    """Run `sc`, reading every flow's delivered packets each INTERVAL."""
    s = Scenario.from_dict(sc)
    norm = s.normalized()
    (d,) = (d for d in norm["directions"] if d["name"] == LINK)
    per_interval = d["rate_bps"] * INTERVAL / (8 * 552)
    sim = simulation(s)
    rows: list[list[int]] = [[0] * FLOWS]
    k = 0
    while (k + 1) * INTERVAL <= sim.duration + 1e-9:
        k += 1
        sim.run_until(k * INTERVAL, True)
        rows.append([f["delivered"] for f in sim.summary()["flows"]])
    sim.run_until(sim.duration, True)
    share = np.diff(np.asarray(rows, dtype=float), axis=0) / per_interval
    return Run(sim.summary(), share)


@dataclass
class Many:
    runs: dict[str, Run]
    table: pd.DataFrame  # one row per gateway


def _compute_all(ctx: Context) -> Many:
    ctx.assume(
        "Network of Fig. 8 as scenarios/lin1997_fig8.toml states (ATM overhead folded into the "
        "rates, source link 10 times the bottleneck, 2 ms each, 16 connections starting "
        "uniformly in the first second, New-Reno with the tiny-window enhancement, delayed "
        "ACKs)" + (", 60 s runs (quick mode; the paper: 300 s)." if ctx.quick else ", 300 s runs.")
    )
    ctx.assume(
        "RED-32 and FRED-32 keep min_th 4 and max_th 8 ('the same parameters as before'); "
        "FRED-32 has the two-packet-buffer extension (many_flows). Fig. 9 is the FRED-16 run "
        "of Table 5 (with the tiny-window enhancement: the paper's Fig. 9 run may not have had "
        "it). Each connection's bandwidth: packets delivered to its receiver in each 140 ms "
        "over the bottleneck's capacity in packets (the paper measures at the bottleneck)."
    )
    runs = {name: simulate_sampled(scenario(name, ctx.quick)) for name in GATEWAYS}
    rows = []
    for name, r in runs.items():
        link = r.summary["links"][LINK]
        fl = r.summary["flows"]
        rows.append(
            {
                "gateway": name,
                "rtos": sum(f["timeouts"] for f in fl),
                "utilization": link["utilization"],
                "goodput_kbps": float(np.mean([f["goodput_bps"] for f in fl])) * 512 / 552 / 1e3,
                "per_flow_share": float(np.mean(r.share)),
                "zero_intervals": float(np.mean(r.share == 0)),
                "near_fair": float(np.mean(np.abs(r.share * FLOWS - 1) <= 0.5)),
                "max_share_over_fair": float(r.share.max() * FLOWS),
            }
        )
    return Many(runs, pd.DataFrame(rows))


def _compute(ctx: Context) -> Many:
    m = ctx.once("lin1997-many", lambda: _compute_all(ctx))
    ctx.save_data(m.table, "table5")
    return m


def table5_plot(d: Many) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    t = d.table
    axes[0].bar(t["gateway"], t["rtos"], color="C0")
    axes[0].bar(
        list(PAPER_TABLE5),
        [v[0] for v in PAPER_TABLE5.values()],
        fill=False,
        edgecolor="k",
        label="paper",
    )
    axes[0].set_ylabel("retransmission timeouts")
    axes[0].legend()
    axes[1].bar(t["gateway"], t["utilization"], color="C1")
    axes[1].set_ylim(0.9, 1.0)
    axes[1].set_ylabel("link utilization")
    fig.suptitle("Table 5: sixteen connections, RED and FRED, 16 and 32 buffers")
    return {"table5": fig}


def table5_compare(ctx: Context, d: Many) -> None:
    t = d.table.set_index("gateway")
    scale = 60 / 300 if ctx.quick else 1.0
    for name, (rtos, util, good, share) in PAPER_TABLE5.items():
        r = t.loc[name]
        ctx.compare.value(
            f"{name}: total RTOs" + (" (paper's 300 s count scaled to 60 s)" if ctx.quick else ""),
            rtos * scale,
            float(r["rtos"]),
            0.5,
            relative=True,
        )
        ctx.compare.value(f"{name}: link utilization", util, float(r["utilization"]), 0.02)
        ctx.compare.value(
            f"{name}: TCP goodput per flow (kb/s, payload)",
            good,
            float(r["goodput_kbps"]),
            0.03,
            relative=True,
        )
        ctx.compare.value(
            f"{name}: per-flow throughput / link rate", share, float(r["per_flow_share"]), 0.002
        )
    others = min(t.loc[n, "rtos"] for n in ("RED-16", "RED-32", "FRED-16"))
    ctx.compare.claim(
        "FRED with two-packet buffers nearly eliminates timeouts (below a tenth of any other)",
        bool(t.loc["FRED-32", "rtos"] < 0.1 * others),
        f"FRED-32 {t.loc['FRED-32', 'rtos']:.0f}, others at least {others:.0f}",
    )
    ctx.compare.claim(
        "RED-32's extra buffers do not reduce timeouts significantly (at least half of RED-16's)",
        bool(t.loc["RED-32", "rtos"] >= 0.5 * t.loc["RED-16", "rtos"]),
        f"RED-32 {t.loc['RED-32', 'rtos']:.0f}, RED-16 {t.loc['RED-16', 'rtos']:.0f}",
    )
    ctx.compare.claim(
        "FRED-16 produces fewer timeouts than RED-16 (protection of fragile connections)",
        bool(t.loc["FRED-16", "rtos"] < t.loc["RED-16", "rtos"]),
        f"FRED-16 {t.loc['FRED-16', 'rtos']:.0f}, RED-16 {t.loc['RED-16', 'rtos']:.0f}",
    )


def _onoff_plot(name: str, fig_name: str, title: str, d: Many) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    share = d.runs[name].share
    n = share.shape[0]
    lo = n // 2
    hi = min(n, lo + int(round(10 / INTERVAL)))
    t = (np.arange(lo, hi) + 1) * INTERVAL
    fig, axes = plt.subplots(8, 1, figsize=(9, 8), sharex=True, sharey=True)
    for i, ax in enumerate(axes):
        ax.step(t, share[lo:hi, i], where="post", lw=0.8)
        ax.set_ylabel(f"C-{i + 1}", rotation=0, labelpad=15)
    axes[0].set_title(title)
    axes[-1].set_xlabel("time (s)")
    fig.text(0.02, 0.5, "bandwidth (fraction of the link)", rotation=90, va="center")
    return {fig_name: fig}


def fig9_compare(ctx: Context, d: Many) -> None:
    t = d.table.set_index("gateway")
    z = float(t.loc["FRED-16", "zero_intervals"])
    ctx.compare.claim(
        "basic FRED-16: at any moment only a subset of the connections share the link (a "
        "connection gets nothing in at least a quarter of the 140 ms intervals)",
        z >= 0.25,
        f"{z:.2f} of the intervals",
    )
    ctx.compare.not_reported(
        "FRED-16: timeouts", float(t.loc["FRED-16", "rtos"]), "about 2000 (basic FRED, 300 s)"
    )


def fig10_compare(ctx: Context, d: Many) -> None:
    t = d.table.set_index("gateway")
    z = float(t.loc["FRED-32", "zero_intervals"])
    nf = float(t.loc["FRED-32", "near_fair"])
    ctx.compare.claim(
        "extended FRED-32: each connection keeps a smooth stream (nothing in under 5% of the "
        "140 ms intervals)",
        z < 0.05,
        f"{z:.3f} of the intervals",
    )
    ctx.compare.not_reported("FRED-32: share of intervals within 0.5-1.5 times the fair share", nf)


def fig11_plot(d: Many) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    edges = np.arange(0, 12.25, 0.25)
    for name, r in d.runs.items():
        h, _ = np.histogram(r.share.ravel() * FLOWS, bins=edges)
        ax.plot(edges[:-1], h / h.sum(), drawstyle="steps-post", label=name)
    ax.set_yscale("log")
    ax.set_xlabel("bandwidth in a 140 ms interval / fair share")
    ax.set_ylabel("frequency")
    ax.set_title("Fig. 11: distribution of each connection's bandwidth (140 ms intervals)")
    ax.legend()
    return {"fig11": fig}


def fig11_compare(ctx: Context, d: Many) -> None:
    t = d.table.set_index("gateway")
    others = ("RED-16", "RED-32", "FRED-16")
    ctx.compare.claim(
        "FRED-32: a small spike at zero and a large one near the fair share (more intervals "
        "within 0.5-1.5 times the fair share than any other gateway)",
        bool(all(t.loc["FRED-32", "near_fair"] > t.loc[n, "near_fair"] for n in others)),
        ", ".join(f"{n}: {t.loc[n, 'near_fair']:.2f}" for n in t.index),
    )
    ctx.compare.claim(
        "RED-16, RED-32, FRED-16: a large spike at zero (more zero intervals than FRED-32)",
        bool(all(t.loc[n, "zero_intervals"] > t.loc["FRED-32", "zero_intervals"] for n in others)),
        ", ".join(f"{n}: {t.loc[n, 'zero_intervals']:.2f}" for n in t.index),
    )
    ctx.compare.value(
        "largest interval bandwidth / fair share (RED-16, RED-32, FRED-16)",
        11,
        float(max(t.loc[n, "max_share_over_fair"] for n in others)),
        0.25,
        relative=True,
    )


TABLE5 = Experiment(
    "lin1997-table5",
    "Sixteen connections from one host: RED and FRED with 16 and 32 buffers (timeouts, utilization, goodput)",
    compute=_compute,
    plot=table5_plot,
    compare=table5_compare,
)
FIG9 = Experiment(
    "lin1997-fig9",
    "Basic FRED, 16 buffers: eight connections alternate ON and OFF",
    compute=_compute,
    plot=partial(
        _onoff_plot, "FRED-16", "fig9", "Fig. 9: basic FRED (16 buffers), connections 1-8"
    ),
    compare=fig9_compare,
)
FIG10 = Experiment(
    "lin1997-fig10",
    "FRED with two-packet buffers (32): the connections share smoothly",
    compute=_compute,
    plot=partial(
        _onoff_plot,
        "FRED-32",
        "fig10",
        "Fig. 10: FRED with two-packet buffers (32), connections 1-8",
    ),
    compare=fig10_compare,
)
FIG11 = Experiment(
    "lin1997-fig11",
    "Distribution of each connection's bandwidth over 140 ms intervals, four gateways",
    compute=_compute,
    plot=fig11_plot,
    compare=fig11_compare,
)
