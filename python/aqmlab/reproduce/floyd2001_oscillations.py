"""Floyd, Gummadi & Shenker 2001, Figs. 11-14 (Section 5.1): malignant oscillations of
the average queue under RED (w_q = 0.002, fixed max_p) and benign ones under Adaptive RED
(w_q = 0.00027), with 100 long-lived ECN flows of 250 ms round trip on 15 Mb/s, one-way
or with web and reverse-path traffic (``scenarios/floyd2001_fig11.toml``)."""

from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..sim import Scenario, simulate
from .common import ScenarioDict, scenario_dict
from .context import Context
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SCENARIO = "floyd2001_fig11.toml"
LINK = "r1->r2"
MIN_TH, MAX_TH = 20.0, 80.0
BAND = (44.0, 56.0)
#: figure -> (queue, richer traffic mix)
FIGS: dict[int, tuple[str, bool]] = {
    11: ("red", False),
    12: ("red", True),
    13: ("ared", False),
    14: ("ared", True),
}
ARED = {
    "type": "ared",
    "limit": 200,
    "min_th": 20,
    "max_th": 80,
    "max_p": 0.1,
    "gentle": True,
    "ecn": True,
}


def settings(quick: bool) -> dict[str, Any]:
    """Seeds, run length and start of the window (s)."""
    if quick:
        return {"seeds": [1], "duration": 40.0, "warmup": 20.0}
    return {"seeds": [1, 2, 3], "duration": 100.0, "warmup": 50.0}


def oscillation_scenario(fig: int, seed: int, duration: float, warmup: float) -> ScenarioDict:
    """The scenario of Fig. `fig` (11-14): RED or Adaptive RED; the 100 long-lived flows
    alone (Figs. 11, 13) or with the reverse and web flows (Figs. 12, 14); traced."""
    queue, rich = FIGS[fig]
    sc = copy.deepcopy(scenario_dict(SCENARIO))
    sc["seed"] = seed
    sc["duration"], sc["warmup"] = f"{duration:g}s", f"{warmup:g}s"
    if not rich:
        sc["flow"] = sc["flow"][:1]
    if queue == "ared":
        sc["link"][0]["queue"] = dict(ARED)
    sc["trace"] = {"queue": [LINK], "interval": "20ms"}
    if queue == "red":
        sc["trace"]["packets"] = [LINK]
    return sc


def marks_above_max_th(pk: pd.DataFrame, q: pd.DataFrame, t0: float) -> int:
    """ECN marks made after `t0` while RED's average (the last sample at or before the
    mark) was above max_th: the marks ns-2 would have turned into drops (its RED marks
    only while avg < max_th)."""
    m = pk[(pk["event"] == "m") & (pk["time"] >= t0)][["time"]].sort_values("time")
    s = q[["time", "avg"]].sort_values("time")
    if not len(m) or not len(s):
        return 0
    j = pd.merge_asof(m, s, on="time", direction="backward")
    return int((j["avg"] > MAX_TH).sum())


def run_fig(
    fig: int, seed: int, duration: float, warmup: float
) -> tuple[dict[str, Any], pd.DataFrame]:
    """One run's numbers over [warmup, duration] and its queue trace."""
    res = simulate(
        Scenario.from_dict(oscillation_scenario(fig, seed, duration, warmup)), progress=False
    )
    link = res.summary["links"][LINK]
    q = res.traces["queue"]
    q = q[q["link"] == LINK][["time", "queue", "avg"]].reset_index(drop=True)
    w = q[q["time"] >= warmup]["avg"]
    row: dict[str, Any] = {
        "fig": fig,
        "seed": seed,
        "utilization": link["utilization"],
        "loss_rate": link["drops"] / max(1, link["arrivals"]),
        "mark_rate": link["marks"] / max(1, link["arrivals"]),
        "mean_avg": link["mean_avg"],
        "std_avg": float(w.std()),
        "in_band": float(w.between(*BAND).mean()),
        "below_min_th": float((w < MIN_TH).mean()),
        "above_max_th": float((w > MAX_TH).mean()),
        "marks_above_max_th_rate": math.nan,
    }
    pk = res.traces.get("packets")
    if pk is not None:
        row["marks_above_max_th_rate"] = marks_above_max_th(pk, q, warmup) / max(
            1, link["arrivals"]
        )
    return row, q


@dataclass
class Oscillations:
    runs: pd.DataFrame
    traces: dict[int, pd.DataFrame]  # seed 1 per figure
    seeds: list[int]
    warmup: float
    duration: float

    def mean(self, fig: int, col: str) -> float:
        return float(self.runs.loc[self.runs["fig"] == fig, col].mean())


def oscillations_data(ctx: Context) -> Oscillations:
    def compute() -> Oscillations:
        s = settings(ctx.quick)
        rows, traces = [], {}
        for fig in FIGS:
            for seed in s["seeds"]:
                row, q = run_fig(fig, seed, s["duration"], s["warmup"])
                rows.append(row)
                if seed == 1:
                    traces[fig] = q
        return Oscillations(pd.DataFrame(rows), traces, s["seeds"], s["warmup"], s["duration"])

    d = ctx.once(("floyd2001", "oscillations"), compute)
    ctx.assume(
        "Network as scenarios/floyd2001_fig11.toml states: 100 long-lived NewReno ECN flows on 250 ms "
        "paths, 1000-byte packets, buffer 200, RED max_p 0.1 (ns-2's default) in gentle mode with ECN, "
        "the same queue both ways; the richer mix adds five reverse flows and web traffic both ways."
    )
    ctx.assume(
        f"Runs of {d.duration:g} s measured over {d.warmup:g}-{d.duration:g} s, means over seeds "
        f"{d.seeds[0]}-{d.seeds[-1]}; the fractions of time come from avg sampled every 20 ms; loss = "
        "drops / arrivals at the bottleneck (ECN marks are not losses)."
    )
    ctx.save_data(d.runs, "runs")
    return d


def _plot(d: Oscillations, fig_no: int) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    q = d.traces[fig_no]
    queue, rich = FIGS[fig_no]
    fig, ax = plt.subplots(figsize=(9, 3.8))
    ax.plot(q["time"], q["avg"], "k", lw=1.2, label="average queue (avg)")
    for th in (MIN_TH, MAX_TH):
        ax.axhline(th, color="k", ls=":", lw=0.8)
    if queue == "ared":
        ax.axhspan(*BAND, color="C2", alpha=0.25, label="target [44, 56]")
    ax.set_xlim(0, d.duration)
    ax.set_ylim(0, 170)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("average queue (packets)")
    name = "Adaptive RED" if queue == "ared" else "RED"
    mix = "richer traffic mix" if rich else "one-way long-lived traffic"
    wq = "0.00027" if queue == "ared" else "0.002"
    ax.set_title(f"Fig. {fig_no}: {name}, {mix}, w_q={wq} (seed 1)")
    ax.legend(fontsize=8, loc="upper right")
    return {f"fig{fig_no}": fig}


def _common_rows(ctx: Context, d: Oscillations, fig: int) -> None:
    for col, what in (
        ("utilization", "utilization"),
        ("loss_rate", "loss rate"),
        ("mark_rate", "ECN mark rate"),
        ("mean_avg", "mean avg (packets)"),
        ("std_avg", "standard deviation of avg (packets)"),
        ("in_band", "share of time with avg in [44, 56]"),
        ("below_min_th", "share of time with avg below min_th"),
        ("above_max_th", "share of time with avg above max_th"),
    ):
        ctx.compare.not_reported(what, d.mean(fig, col))


def fig11_compare(ctx: Context, d: Oscillations) -> None:
    n = len(d.seeds)
    ctx.compare.value(
        f"RED, one-way traffic: utilization (mean of {n} seeds)",
        0.90,
        d.mean(11, "utilization"),
        0.02,
    )
    ctx.compare.value(
        f"RED, one-way traffic: packet loss rate, even with ECN (mean of {n} seeds)",
        0.035,
        d.mean(11, "loss_rate"),
        0.3,
        relative=True,
    )
    ctx.compare.not_reported(
        "marks made while avg > max_th, per arrival (ns-2's RED would drop these)",
        d.mean(11, "marks_above_max_th_rate"),
    )
    ctx.compare.claim(
        "malignant oscillations: avg goes below min_th and above max_th (each for more than 5% of the time)",
        d.mean(11, "below_min_th") > 0.05 and d.mean(11, "above_max_th") > 0.05,
        f"below {d.mean(11, 'below_min_th'):.2f}, above {d.mean(11, 'above_max_th'):.2f} of the time",
    )
    ctx.note(
        "aqmlab's RED marks ECN-capable packets on every early decision, also in the gentle region "
        "(avg between max_th and 2 max_th); ns-2's RED, which the paper used, marks only while avg < "
        "max_th and drops ECN packets in the gentle region. With avg above max_th "
        f"{d.mean(11, 'above_max_th'):.0%} of the time, that is where the paper's losses 'even with "
        "ECN' come from; aqmlab loses nothing. The marks aqmlab made above max_th are "
        f"{d.mean(11, 'marks_above_max_th_rate'):.1%} of the arrivals: not a prediction of ns-2's loss "
        "rate (a drop instead of a mark cuts a window at least as hard and changes what follows, so "
        "fewer such decisions would be taken), but it shows where the two rules part."
    )
    _common_rows(ctx, d, 11)


def fig12_compare(ctx: Context, d: Oscillations) -> None:
    ctx.compare.claim(
        "the richer traffic mix dampens RED's oscillations (standard deviation of avg smaller than with "
        "one-way traffic, and less time outside [min_th, max_th])",
        d.mean(12, "std_avg") < d.mean(11, "std_avg")
        and d.mean(12, "below_min_th") + d.mean(12, "above_max_th")
        < d.mean(11, "below_min_th") + d.mean(11, "above_max_th"),
        f"std {d.mean(12, 'std_avg'):.1f} vs {d.mean(11, 'std_avg'):.1f} packets",
    )
    _common_rows(ctx, d, 12)


def fig13_compare(ctx: Context, d: Oscillations) -> None:
    n = len(d.seeds)
    ctx.compare.value(
        f"Adaptive RED, one-way traffic: utilization (mean of {n} seeds)",
        0.968,
        d.mean(13, "utilization"),
        0.02,
    )
    ctx.compare.claim(
        "a negligible loss rate (below 0.1%)",
        d.mean(13, "loss_rate") < 0.001,
        f"{d.mean(13, 'loss_rate'):.4f}",
    )
    ctx.compare.claim(
        "benign oscillations within the target range [44, 56]: avg never below min_th nor above max_th, "
        "and inside the band most of the time (> 50%)",
        d.mean(13, "below_min_th") == 0
        and d.mean(13, "above_max_th") == 0
        and d.mean(13, "in_band") > 0.5,
        f"mean avg {d.mean(13, 'mean_avg'):.1f}, standard deviation {d.mean(13, 'std_avg'):.1f}, in the "
        f"band {d.mean(13, 'in_band'):.0%} of the time",
    )
    ctx.compare.claim(
        "Adaptive RED eliminates RED's malignant oscillations (standard deviation of avg smaller than "
        "in Fig. 11)",
        d.mean(13, "std_avg") < d.mean(11, "std_avg"),
        f"{d.mean(13, 'std_avg'):.1f} vs {d.mean(11, 'std_avg'):.1f} packets",
    )
    _common_rows(ctx, d, 13)


def fig14_compare(ctx: Context, d: Oscillations) -> None:
    ctx.compare.claim(
        "richer mix: avg generally within the target [44, 56] (more than half of the time)",
        d.mean(14, "in_band") > 0.5,
        f"{d.mean(14, 'in_band'):.0%} of the time",
    )
    ctx.compare.claim(
        "the utilization is slightly higher than in Fig. 13",
        d.mean(14, "utilization") > d.mean(13, "utilization"),
        f"{d.mean(14, 'utilization'):.3f} vs {d.mean(13, 'utilization'):.3f}",
    )
    _common_rows(ctx, d, 14)


def _exp(fig: int, compare: Any, title: str) -> Experiment[Oscillations]:
    return Experiment(
        f"floyd2001-fig{fig}",
        title,
        compute=oscillations_data,
        plot=functools.partial(_plot, fig_no=fig),
        compare=compare,
    )


FIG11 = _exp(
    11, fig11_compare, "RED, one-way long-lived traffic, w_q = 0.002: malignant oscillations"
)
FIG12 = _exp(12, fig12_compare, "RED, richer traffic mix, w_q = 0.002")
FIG13 = _exp(13, fig13_compare, "Adaptive RED, one-way long-lived traffic: benign oscillations")
FIG14 = _exp(14, fig14_compare, "Adaptive RED, richer traffic mix")
