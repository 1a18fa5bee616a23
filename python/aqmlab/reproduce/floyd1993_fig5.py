"""Floyd & Jacobson 1993, Fig. 5 (Section V, network of Fig. 6): Drop Tail and RED
gateways with two large-window connections, average queue against throughput, one mark
per five-second run (the runs: :mod:`.floyd1993_multirun`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .context import Context
from .floyd1993_multirun import (
    EPISODE_GAP,
    fig5_data,
    fig5_settings,
    fit_constant,
    share,
    spearman,
)
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# The paper's reference curves of Fig. 5: average queue (packets) against throughput x.
RED_CURVE = (1.73, 1)  # 1.73 / (1 - x)
DT_CURVE = (0.1, 3)  # 0.1 / (1 - x)^3


@dataclass
class Fig5:
    runs: pd.DataFrame  # one row per run (fig5_data)
    means: pd.DataFrame  # per gateway and parameter
    dt_set: list[int]  # Drop Tail buffers
    c_red: float  # c of RED_CURVE's form fitted to the RED runs
    c_dt: float  # c of DT_CURVE's form fitted to the Drop Tail runs

    @property
    def dt(self) -> pd.DataFrame:
        return self.runs[self.runs["gateway"] == "droptail"]

    @property
    def red(self) -> pd.DataFrame:
        return self.runs[self.runs["gateway"] == "red"]

    def settings(self, gateway: str) -> pd.DataFrame:
        """The means of `gateway`'s settings, by parameter."""
        return self.means[self.means["gateway"] == gateway].sort_values("parameter")


def fig5_compute(ctx: Context) -> Fig5:
    """The runs of Fig. 5 and their means per setting."""
    dt_set, red_set, reps = fig5_settings(ctx.quick)
    ctx.assume(
        "Network of Fig. 6 as scenarios/floyd1993_fig5.toml states: 100 Mb/s access links of 1 and 4 ms, "
        "45 Mb/s 20 ms bottleneck, Tahoe with windows of 240 packets and an initial threshold of 120 "
        "(half the receiver's window), 1000-byte packets, 40-byte ACKs."
    )
    ctx.assume(
        "ftp1 starts at 0 s, ftp2 at a time drawn uniformly in [0, 0.1] s ('slightly different times'); "
        "the runs of one setting differ by seed (start time, preparation delays, RED's draws)."
    )
    ctx.assume(
        f"Drop Tail buffers {dt_set} and RED min_th {red_set} (11 values spread evenly over the paper's "
        "ranges, rounded; the paper does not list them); max_th = 3 min_th, buffer 100, w_q 0.002, "
        f"max_p 1/50; {reps} runs of 5 s per setting, measured over the whole run."
    )
    ctx.assume(
        "The packet-preparation delay U[0, 0.17 ms] only in the Drop Tail runs (the paper gives it "
        "for them); buffers and queues count waiting packets, not the one in transmission."
    )
    ctx.assume(
        "Throughput x = bottleneck utilization over the run (bytes that started transmission x 8 / "
        "45 Mb/s / 5 s, retransmissions included); average queue = mean over all arriving packets "
        "(dropped ones included) of the packets waiting when they arrived, from the gateway's packet trace."
    )
    ctx.assume(
        "Network power (the ratio of throughput to delay) = x / (q + 1): the gateway's mean delay is "
        "q + 1 service times (the waiting packets plus the packet's own transmission); the paper "
        "itself calls the average queue 'the average delay'."
    )
    ctx.assume(
        f"Drop episodes: drops less than {EPISODE_GAP:g} s apart (about two round-trip times) form "
        "one episode; an episode that hits both connections counts as synchronized."
    )
    df = fig5_data(ctx)
    ctx.save_data(df, "fig5_runs")
    means = df.groupby(["gateway", "parameter"], as_index=False)[
        ["throughput", "q_seen", "mean_queue", "power", "drops", "episodes", "episodes_multi"]
    ].mean()
    ctx.save_data(means, "fig5_settings")
    # The paper's approximations, fitted to aqmlab's runs with the paper's functional forms
    dt, red = df[df["gateway"] == "droptail"], df[df["gateway"] == "red"]
    c_red = fit_constant(red["throughput"], red["q_seen"], RED_CURVE[1])
    c_dt = fit_constant(dt["throughput"], dt["q_seen"], DT_CURVE[1])
    return Fig5(df, means, dt_set, c_red, c_dt)


def fig5_plot(d: Fig5) -> dict[str, Figure]:
    """Average queue and network power against throughput, with the paper's curves."""
    import matplotlib.pyplot as plt

    df, dt, red = d.runs, d.dt, d.red
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    xs = np.linspace(0.0, 0.995, 400)
    ax1.plot(
        dt["throughput"],
        dt["q_seen"],
        "s",
        mfc="none",
        color="C0",
        ms=5,
        label="Drop Tail (buffer 15-140)",
    )
    ax1.plot(red["throughput"], red["q_seen"], "o", color="C3", ms=4, label="RED (min_th 3-50)")
    for (c, p), colour, label in (
        (RED_CURVE, "C3", "1.73/(1-x) (paper, RED)"),
        (DT_CURVE, "C0", "0.1/(1-x)^3 (paper, Drop Tail)"),
    ):
        ax1.plot(xs, c / (1 - xs) ** p, "--", color=colour, lw=1, label=label)
    ymax = max(10.0, float(df["q_seen"].max()) * 1.15)
    ax1.set_ylim(0, ymax)
    ax1.set_xlim(min(0.4, float(df["throughput"].min()) - 0.02), 1.0)
    ax1.set_xlabel("throughput (fraction of the 45 Mb/s link)")
    ax1.set_ylabel("average queue seen by arrivals (packets)")
    ax1.set_title("Fig. 5: Drop Tail (squares) and RED (dots), one mark per 5 s run")
    ax1.legend(fontsize=8, loc="upper left")
    ax2.plot(dt["throughput"], dt["power"], "s", mfc="none", color="C0", ms=5, label="Drop Tail")
    ax2.plot(red["throughput"], red["power"], "o", color="C3", ms=4, label="RED")
    ax2.plot(
        xs, xs / (RED_CURVE[0] / (1 - xs) + 1), "--", color="C3", lw=1, label="from 1.73/(1-x)"
    )
    ax2.plot(
        xs, xs / (DT_CURVE[0] / (1 - xs) ** 3 + 1), "--", color="C0", lw=1, label="from 0.1/(1-x)^3"
    )
    ax2.set_xlim(ax1.get_xlim())
    ax2.set_xlabel("throughput (fraction of the 45 Mb/s link)")
    ax2.set_ylabel("network power = throughput / (queue + 1)")
    ax2.set_title("Network power (throughput / delay at the gateway)")
    ax2.legend(fontsize=8)
    return {"fig5": fig}


def _compare_curves(ctx: Context, d: Fig5) -> None:
    """The paper's approximations fitted to the runs; Drop Tail's trend with the buffer."""
    ctx.compare.value(
        "RED: c in average queue ~ c/(1-x), fitted to the runs",
        RED_CURVE[0],
        d.c_red,
        0.3,
        relative=True,
    )
    ctx.compare.value(
        "Drop Tail: c in average queue ~ c/(1-x)^3, fitted to the runs",
        DT_CURVE[0],
        d.c_dt,
        0.3,
        relative=True,
    )
    dtm = d.settings("droptail")
    rho_x = spearman(dtm["parameter"], dtm["throughput"])
    rho_q = spearman(dtm["parameter"], dtm["q_seen"])
    ctx.compare.claim(
        "Drop Tail: throughput and average queue increase with the buffer (rank correlation of "
        "the per-buffer means > 0.8 for both)",
        rho_x > 0.8 and rho_q > 0.8,
        f"rank correlation {rho_x:.2f} (throughput), {rho_q:.2f} (queue)",
    )


def _compare_power(ctx: Context, d: Fig5) -> None:
    """Network power and synchronization, RED against Drop Tail."""
    dt, red = d.dt, d.red
    # Power at equal throughput, for high link utilization
    bins = np.arange(0.80, 1.0001, 0.05)
    won, compared, detail = 0, 0, []
    for lo, hi in zip(bins[:-1], bins[1:]):
        a = red[(red["throughput"] >= lo) & (red["throughput"] < hi)]["power"]
        b = dt[(dt["throughput"] >= lo) & (dt["throughput"] < hi)]["power"]
        if len(a) and len(b):
            compared += 1
            won += a.mean() > b.mean()
            detail.append(f"[{lo:.2f},{hi:.2f}): RED {a.mean():.3f} vs DT {b.mean():.3f}")
    if compared:
        ctx.compare.claim(
            "network power higher with RED than with Drop Tail at high utilization (mean power in "
            "every throughput bin of width 0.05 above 0.8 holding runs of both)",
            won == compared,
            f"{won} of {compared} bins; " + "; ".join(detail),
        )
    else:
        ctx.compare.not_reported(
            "network power, RED vs Drop Tail at high utilization",
            "no throughput bin above 0.8 holds runs of both",
            "RED higher",
        )
    ctx.compare.claim(
        "the best network power of any run is higher with RED than with Drop Tail",
        red["power"].max() > dt["power"].max(),
        f"RED {red['power'].max():.3f}, Drop Tail {dt['power'].max():.3f}",
    )
    sync_dt = share(dt["episodes_multi"], dt["episodes"])
    sync_red = share(red["episodes_multi"], red["episodes"])
    ctx.compare.claim(
        "Drop Tail drops packets of both connections at the same time more often than RED "
        "(fraction of drop episodes hitting both)",
        sync_dt > sync_red,
        f"Drop Tail {sync_dt:.2f}, RED {sync_red:.2f}",
    )


def _note_runs(ctx: Context, d: Fig5) -> None:
    """The settings' ranges, and notes on how far the runs lie from the paper's curves."""
    dt, red, dt_set, c_red, c_dt = d.dt, d.red, d.dt_set, d.c_red, d.c_dt
    dtm = d.settings("droptail")
    lo_dt = dtm.iloc[0]
    ctx.compare.not_reported(
        f"Drop Tail, buffer {int(lo_dt['parameter'])}: mean throughput", float(lo_dt["throughput"])
    )
    ctx.compare.not_reported(
        f"Drop Tail, buffer {int(dtm.iloc[-1]['parameter'])}: mean throughput / average queue",
        f"{dtm.iloc[-1]['throughput']:.3f} / {dtm.iloc[-1]['q_seen']:.1f}",
    )
    redm = d.settings("red")
    ctx.compare.not_reported(
        f"RED, min_th {int(redm.iloc[0]['parameter'])}..{int(redm.iloc[-1]['parameter'])}: "
        "mean throughput range",
        f"{redm['throughput'].min():.3f}..{redm['throughput'].max():.3f}",
    )
    hi_dt = dt[dt["throughput"] >= 0.7]
    small = dt[dt["parameter"] < np.median(dt_set)]
    top = dt[dt["parameter"] == max(dt_set)]
    x_top, q_top = float(top["throughput"].mean()), float(top["q_seen"].mean())
    ctx.note(
        f"Drop Tail: with the paper's form 0.1/(1-x)^3 the fitted constant is {c_dt:.3g}. The runs with the "
        f"smaller buffers (< {int(np.median(dt_set))}) reach a throughput of only "
        f"{small['throughput'].min():.2f}-{small['throughput'].max():.2f}, limited by Tahoe's slow recovery "
        "from its slow-start losses (each window then grows by one packet per ~45 ms round trip, far from "
        "the ~120 packets it needs within a 5 s run), and see "
        f"{small['q_seen'].min():.1f}-{small['q_seen'].max():.1f} packets waiting on arrival where the curve "
        f"gives {DT_CURVE[0] / (1 - small['throughput'].min()) ** 3:.1f}-"
        f"{DT_CURVE[0] / (1 - small['throughput'].max()) ** 3:.1f}; the largest buffer reaches {x_top:.2f} "
        f"with {q_top:.0f} packets, where the curve gives {DT_CURVE[0] / (1 - x_top) ** 3:.0f}. "
        f"Fitted on the runs with throughput >= 0.7 only: "
        f"{fit_constant(hi_dt['throughput'], hi_dt['q_seen'], 3):.3g}; with the time-average queue instead "
        f"of the queue seen by arrivals: {fit_constant(dt['throughput'], dt['mean_queue'], 3):.3g} (all runs)."
    )
    for name, sub, c, p in (("RED", red, RED_CURVE[0], 1), ("Drop Tail", dt, DT_CURVE[0], 3)):
        resid = np.log(sub["q_seen"].clip(lower=1e-9)) - np.log(
            c / (1 - sub["throughput"].clip(upper=0.999)) ** p
        )
        ctx.note(
            f"{name}: aqmlab's runs lie a factor {math.exp(float(np.median(resid))):.2f} (median) from the "
            f"paper's curve; the fitted constant is {c_red if p == 1 else c_dt:.3g} against the paper's {c:g}."
        )


def fig5_compare(ctx: Context, d: Fig5) -> None:
    _compare_curves(ctx, d)
    _compare_power(ctx, d)
    _note_runs(ctx, d)


FIG5 = Experiment(
    "floyd1993-fig5",
    "Drop Tail vs RED with two large-window connections: average queue vs throughput",
    compute=fig5_compute,
    plot=fig5_plot,
    compare=fig5_compare,
)
