"""Floyd & Jacobson 1993, Figs. 12-15 (Section IX, network of Fig. 11): a bursty
connection (node 5) with Drop Tail, Random Drop and RED gateways, one mark per one-second
period (the runs: :mod:`.floyd1993_multirun`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .context import Context
from .floyd1993_multirun import (
    NODE5,
    centroid_ratio,
    fig12_data,
    fig12_runs,
    fig12_settings,
    link_capacity_pps,
    node5_max_rate,
    share,
    spearman,
)
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The gateways of Figs. 12, 13 and 14, their names and figure numbers.
GATEWAYS = {"droptail": ("Drop Tail", 12), "randomdrop": ("Random Drop", 13), "red": ("RED", 14)}


def _assume_fig12(ctx: Context) -> None:
    bufs, mins, reps = fig12_settings(ctx.quick)
    ctx.assume(
        "Network of Fig. 11 as scenarios/floyd1993_fig12.toml states: sources 1-4 on 100 Mb/s 1 ms links, "
        "node 5 on a 45 Mb/s 16 ms link, gateway -> sink 45 Mb/s 2 ms; Tahoe, windows 12 (1-4) and 8 "
        "(node 5), initial threshold half the window, 1000-byte packets, 40-byte ACKs."
    )
    ctx.assume(
        "Every connection starts at a time drawn uniformly in [0, 0.1] s; the runs of one setting differ "
        "by seed."
    )
    ctx.assume(
        f"Buffers {bufs[0]}-{bufs[-1]} (Drop Tail, Random Drop) and min_th {mins[0]}-{mins[-1]} (RED, "
        f"max_th = 2 min_th, buffer 4 min_th, w_q 0.002, max_p 1/50), {reps} ten-second run(s) per setting "
        "(the paper does not say how many); every one-second period is one mark, the first included."
    )
    ctx.assume(
        "The packet-preparation delay U[0, 0.17 ms] only with Drop Tail (the paper gives it for Drop "
        "Tail); Random Drop drops a packet chosen uniformly among the queued packets and the arrival."
    )
    ctx.assume(
        "Node 5's throughput share = its packets that left the gateway / all packets that left, per "
        "period; drop share likewise over the gateway's drops; average queue = mean over arriving "
        "packets of the packets waiting (the one in transmission not counted)."
    )


@dataclass
class Node5:
    gateway: str  # "droptail", "randomdrop" or "red"
    long: pd.DataFrame  # every period of the sweep (all gateways)
    sub: pd.DataFrame  # the periods of this gateway
    means: pd.DataFrame  # per parameter: node 5's share, queue, utilization
    runs: pd.DataFrame  # whole-run statistics of this gateway
    r5: float  # node 5's window-limited throughput (packets/s)
    cap: float  # the bottleneck's capacity (packets/s)

    @property
    def name(self) -> str:
        return GATEWAYS[self.gateway][0]

    @property
    def fig(self) -> int:
        return GATEWAYS[self.gateway][1]

    @property
    def pooled(self) -> float:
        """Node 5's share of the throughput, all periods pooled."""
        return share(self.sub[f"dep{NODE5}"], self.sub["departures"])

    @property
    def drop_share(self) -> float:
        """Node 5's share of the drops, all periods pooled."""
        return share(self.sub[f"drop{NODE5}"], self.sub["drops"])


def node5_compute(ctx: Context, gateway: str) -> Node5:
    """The periods of one gateway, and the means per buffer (or min_th)."""
    _assume_fig12(ctx)
    long = fig12_data(ctx)
    sub = long[long["gateway"] == gateway].reset_index(drop=True)
    ctx.save_data(sub, f"fig{GATEWAYS[gateway][1]}_periods")
    m = sub.groupby("parameter", as_index=False)[
        ["n5_throughput_share", "q_seen", "utilization"]
    ].mean()
    ctx.save_data(m, f"fig{GATEWAYS[gateway][1]}_means")
    runs = fig12_runs(ctx)
    return Node5(
        gateway,
        long,
        sub,
        m,
        runs[runs["gateway"] == gateway],
        node5_max_rate(),
        link_capacity_pps(),
    )


def fig12_compute(ctx: Context) -> Node5:
    return node5_compute(ctx, "droptail")


def fig13_compute(ctx: Context) -> Node5:
    return node5_compute(ctx, "randomdrop")


def fig14_compute(ctx: Context) -> Node5:
    return node5_compute(ctx, "red")


def node5_plot(d: Node5) -> dict[str, Figure]:
    """Node 5's throughput share, the average queue and the utilization per setting."""
    import matplotlib.pyplot as plt

    sub, m, r5, cap = d.sub, d.means, d.r5, d.cap
    xlabel = (
        "min_th (packets); max_th = 2 min_th, buffer = 4 min_th"
        if d.gateway == "red"
        else "buffer size (packets)"
    )
    fig, axes = plt.subplots(3, 1, figsize=(7, 9), sharex=True)
    jitter = (sub["seed"] - sub["seed"].mean()) * 0.08
    x = sub["parameter"] + jitter
    axes[0].plot(x, 100 * sub["n5_throughput_share"], "o", ms=2.5, alpha=0.6)
    axes[0].plot(m["parameter"], 100 * m["n5_throughput_share"], "-", color="k", lw=1, label="mean")
    axes[0].axhline(
        100 * r5 / cap,
        ls="--",
        color="C3",
        lw=1,
        label=f"window-limited maximum ({r5:.0f} pkt/s = {100 * r5 / cap:.2f}% of the link)",
    )
    axes[0].set_ylabel("node 5 throughput (%)")
    axes[0].legend(fontsize=8)
    axes[1].plot(x, sub["q_seen"], "o", ms=2.5, alpha=0.6)
    axes[1].plot(m["parameter"], m["q_seen"], "-", color="k", lw=1)
    axes[1].set_ylabel("average queue (packets)")
    axes[2].plot(x, sub["utilization"], "o", ms=2.5, alpha=0.6)
    axes[2].plot(m["parameter"], m["utilization"], "-", color="k", lw=1)
    axes[2].set_ylabel("utilization")
    axes[2].set_xlabel(xlabel)
    fig.suptitle(
        f"Fig. {d.fig}: {d.name} gateway, network of Fig. 11 (one mark per one-second period)"
    )
    return {f"fig{d.fig}": fig}


def _compare_node5(ctx: Context, d: Node5) -> None:
    """What the paper shows only in the chart."""
    sub, m, r5, name = d.sub, d.means, d.r5, d.name
    pooled, drop_share = d.pooled, d.drop_share
    rate5 = float(sub["n5_rate"].mean())
    ctx.compare.not_reported(
        f"{name}: node 5's throughput share, all periods pooled (%)", 100 * pooled
    )
    ctx.compare.not_reported(
        f"{name}: node 5's share of the drops, all periods pooled (%)", 100 * drop_share
    )
    ctx.compare.not_reported(
        f"{name}: node 5's throughput / its window-limited maximum ({r5:.0f} pkt/s)", rate5 / r5
    )
    ctx.compare.not_reported(
        f"{name}: average queue range over the settings (packets)",
        f"{m['q_seen'].min():.1f}..{m['q_seen'].max():.1f}",
    )
    ctx.compare.not_reported(
        f"{name}: utilization range over the settings",
        f"{m['utilization'].min():.3f}..{m['utilization'].max():.3f}",
    )


def _compare_red_share(ctx: Context, d: Node5) -> None:
    """The comparison the paper calls most appropriate: a RED gateway with the same
    average queue, at every buffer where the gateway does drop."""
    long, sub, m, name = d.long, d.sub, d.means, d.name
    redm = (
        long[long["gateway"] == "red"]
        .groupby("parameter", as_index=False)[["q_seen", "n5_throughput_share"]]
        .mean()
        .sort_values("q_seen")
    )
    # only buffers where the gateway does drop (>= 3 drops per period on average, Fig. 15's cut)
    drops = sub.groupby("parameter")["drops"].mean()
    lossy = m[m["parameter"].map(drops) >= 3]
    inside = lossy[
        (lossy["q_seen"] >= redm["q_seen"].min()) & (lossy["q_seen"] <= redm["q_seen"].max())
    ]
    if len(inside):
        red_at = np.interp(inside["q_seen"], redm["q_seen"], redm["n5_throughput_share"])
        wins = int((red_at > inside["n5_throughput_share"].to_numpy()).sum())
        ctx.compare.claim(
            f"at the same average queue node 5 gets a larger share with RED than with {name} "
            "(every buffer with >= 3 drops per period whose average queue lies in RED's range)",
            wins == len(inside),
            f"{wins} of {len(inside)} buffers "
            f"({', '.join(str(int(b)) for b in inside['parameter'])})",
        )
    else:
        ctx.compare.claim(
            f"at the same average queue node 5 gets a larger share with RED than with {name}",
            False,
            "no buffer with an average queue inside RED's range",
        )


def _compare_penalty(ctx: Context, d: Node5) -> None:
    """Drop Tail and Random Drop: node 5 penalized unless the buffer is very large."""
    sub, m, r5, name = d.sub, d.means, d.r5, d.name
    pooled, drop_share = d.pooled, d.drop_share
    rho = spearman(m["parameter"], m["n5_throughput_share"])
    ratio = drop_share / pooled if pooled > 0 else float("nan")
    ctx.compare.claim(
        f"{name}: node 5 packets have a disproportionate probability of being dropped "
        "(node 5's share of drops at least twice its share of throughput, pooled)",
        ratio >= 2.0,
        f"ratio {ratio:.2f}",
    )
    ctx.compare.claim(
        f"{name}: node 5's throughput share grows with the buffer (rank correlation of the "
        "per-buffer means > 0.8)",
        rho > 0.8,
        f"rank correlation {rho:.2f}",
    )
    small = sub[sub["parameter"] <= np.median(m["parameter"])]
    big = sub[sub["parameter"] == m["parameter"].max()]
    s_small = float(small["n5_rate"].mean()) / r5
    s_big = float(big["n5_rate"].mean()) / r5
    ctx.compare.claim(
        f"{name} penalizes node 5 unless the buffer is very large: below half its "
        f"window-limited throughput with the smaller buffers (<= {int(np.median(m['parameter']))}), "
        f"above 90% with the largest ({int(m['parameter'].max())})",
        s_small < 0.5 and s_big > 0.9,
        f"{s_small:.2f} and {s_big:.2f} of the maximum",
    )
    _compare_red_share(ctx, d)


def _compare_red(ctx: Context, d: Node5) -> None:
    """RED: node 5 close to its window-limited throughput."""
    sub, m, r5, r = d.sub, d.means, d.r5, d.runs
    rate5 = float(sub["n5_rate"].mean())
    ctx.compare.claim(
        "RED: node 5's throughput is close to its window-limited maximum (mean over all "
        "periods >= 80% of it)",
        rate5 / r5 >= 0.8,
        f"{rate5 / r5:.2f} of {r5:.0f} pkt/s",
    )
    low = sub[sub["parameter"] == m["parameter"].min()]
    ctx.compare.not_reported(
        f"RED, min_th {int(m['parameter'].min())}: node 5 throughput / maximum",
        float(low["n5_rate"].mean()) / r5,
    )
    ctx.compare.not_reported(
        "RED: share of the drops that are forced (buffer overflow or avg > max_th)",
        share(r["forced_drops"], r["drops"]),
    )
    r0 = r[r["parameter"] == r["parameter"].min()]
    rest = sub[sub["parameter"] > m["parameter"].min()]
    ctx.note(
        f"With the smallest min_th ({int(r0['parameter'].iloc[0])}: max_th "
        f"{2 * int(r0['parameter'].iloc[0])}, buffer {4 * int(r0['parameter'].iloc[0])}) "
        f"{100 * share(r0['forced_drops'], r0['drops']):.0f}% of RED's drops are forced (full buffer or "
        "average above max_th), which hit a burst of node 5 the way Drop Tail does; node 5 then gets "
        f"{float(low['n5_rate'].mean()) / r5:.2f} of its window-limited throughput, against "
        f"{float(rest['n5_rate'].mean()) / r5:.2f} over the larger min_th values."
    )


def node5_compare(ctx: Context, d: Node5) -> None:
    _compare_node5(ctx, d)
    if d.gateway == "red":
        _compare_red(ctx, d)
    else:
        _compare_penalty(ctx, d)


@dataclass
class Fig15:
    long: pd.DataFrame  # every period of the sweep
    shown: pd.DataFrame  # the periods with at least three drops


def fig15_compute(ctx: Context) -> Fig15:
    """The periods of the three gateways with at least three drops."""
    _assume_fig12(ctx)
    ctx.note(
        "Periods with fewer than three drops are left out of the scatter and its statistics, "
        "as in the paper."
    )
    long = fig12_data(ctx)
    sc = long[long["drops"] >= 3].copy()
    ctx.save_data(
        sc[
            [
                "gateway",
                "parameter",
                "seed",
                "period",
                "drops",
                f"drop{NODE5}",
                "departures",
                f"dep{NODE5}",
                "n5_throughput_share",
                "n5_drop_share",
            ]
        ],
        "fig15_periods",
    )
    return Fig15(long, sc)


#: Fig. 15's marker, colour and label per gateway.
STYLE = {
    "droptail": ("s", "C0", "Drop Tail (Fig. 12)"),
    "randomdrop": ("^", "C2", "Random Drop (Fig. 13)"),
    "red": ("o", "C3", "RED (Fig. 14)"),
}


def fig15_plot(d: Fig15) -> dict[str, Figure]:
    """Node 5's share of the drops against its share of the throughput, per period."""
    import matplotlib.pyplot as plt

    sc, style = d.shown, STYLE
    fig, ax = plt.subplots(figsize=(6.5, 6))
    for gw, (mk, c, lab) in style.items():
        s = sc[sc["gateway"] == gw]
        ax.plot(
            100 * s["n5_throughput_share"],
            100 * s["n5_drop_share"],
            mk,
            color=c,
            ms=4,
            mfc="none" if gw != "red" else c,
            alpha=0.7,
            label=f"{lab}, {len(s)} periods",
        )
    top = max(5.0, float(100 * sc["n5_throughput_share"].max()) * 1.1) if len(sc) else 5.0
    ax.plot([0, top], [0, top], "k--", lw=1, label="drop share = throughput share")
    ax.set_xlabel("node 5's throughput (% of the total)")
    ax.set_ylabel("node 5's packet drops (% of all drops)")
    ax.set_title("Fig. 15: drops vs throughput of node 5, per one-second period (>= 3 drops)")
    ax.legend(fontsize=8)
    return {"fig15": fig}


def fig15_compare(ctx: Context, d: Fig15) -> None:
    long, sc, style = d.long, d.shown, STYLE
    ratios = {}
    for gw in style:
        s = sc[sc["gateway"] == gw]
        ratios[gw] = centroid_ratio(s["n5_drop_share"], s["n5_throughput_share"])
        pooled = (
            share(s[f"drop{NODE5}"], s["drops"]) / share(s[f"dep{NODE5}"], s["departures"])
            if len(s)
            else float("nan")
        )
        ctx.compare.not_reported(
            f"{style[gw][2]}: centre of the cluster (mean drop share, mean throughput share, %)",
            f"{100 * s['n5_drop_share'].mean():.2f}, {100 * s['n5_throughput_share'].mean():.2f}",
        )
        ctx.compare.not_reported(
            f"{style[gw][2]}: node 5's drops / throughput, all periods pooled", pooled
        )
    ctx.compare.claim(
        "RED: the cluster of dots is roughly centred on the diagonal (mean drop share / mean "
        "throughput share of the periods shown in [0.5, 2])",
        0.5 <= ratios["red"] <= 2.0,
        f"{ratios['red']:.2f}",
    )
    for gw in ("droptail", "randomdrop"):
        s = sc[sc["gateway"] == gw]
        ctx.compare.claim(
            f"{style[gw][2].split(' (')[0]}: node 5 gets a small fraction of the throughput but a "
            "large fraction of the drops (cluster centre: mean drop share at least twice the mean "
            "throughput share)",
            ratios[gw] >= 2.0,
            f"{ratios[gw]:.2f}",
        )
        above = (
            float((s["n5_drop_share"] > s["n5_throughput_share"]).mean())
            if len(s)
            else float("nan")
        )
        red_above = float(
            (
                sc[sc["gateway"] == "red"]["n5_drop_share"]
                > sc[sc["gateway"] == "red"]["n5_throughput_share"]
            ).mean()
        )
        ctx.compare.claim(
            f"more {style[gw][2].split(' (')[0]} periods than RED periods lie above the diagonal",
            above > red_above,
            f"{above:.2f} vs RED {red_above:.2f}",
        )
    mx = int(long["drops"].max())
    ctx.compare.value(
        "largest number of drops in a one-second period (paper: 'ranges from zero to 61')",
        61,
        mx,
        0.5,
        relative=True,
    )
    ctx.compare.claim(
        "some one-second periods have no drop (range starts at zero)",
        int(long["drops"].min()) == 0,
        f"minimum {int(long['drops'].min())}",
    )


FIG12 = Experiment(
    "floyd1993-fig12",
    "Bursty node 5 with Drop Tail gateways: throughput share, queue, utilization",
    compute=fig12_compute,
    plot=node5_plot,
    compare=node5_compare,
)
FIG13 = Experiment(
    "floyd1993-fig13",
    "Bursty node 5 with Random Drop gateways: throughput share, queue, utilization",
    compute=fig13_compute,
    plot=node5_plot,
    compare=node5_compare,
)
FIG14 = Experiment(
    "floyd1993-fig14",
    "Bursty node 5 with RED gateways: throughput share, queue, utilization vs min_th",
    compute=fig14_compute,
    plot=node5_plot,
    compare=node5_compare,
)
FIG15 = Experiment(
    "floyd1993-fig15",
    "Node 5's share of drops against its share of throughput, per one-second period",
    compute=fig15_compute,
    plot=fig15_plot,
    compare=fig15_compare,
)
