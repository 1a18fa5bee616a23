"""Floyd, Gummadi & Shenker 2001, Figs. 6-9 (Section 3.1): RED and Adaptive RED when
the congestion level changes sharply at 25 s on a 1.5 Mb/s link
(``scenarios/floyd2001_fig6.toml``).

Figs. 6-7: twenty flows join at 25 s (RED, then Adaptive RED); Figs. 8-9: twenty flows
run from 0 to 25 s. Each setting is run for several seeds; the paper's numbers (one run
each) are compared with the mean over seeds, and seed 1's run is plotted.
"""

from __future__ import annotations

import copy
import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..sim import Scenario, simulate
from . import floyd2001_ns2
from .common import ScenarioDict, scenario_dict
from .context import Context
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SCENARIO = "floyd2001_fig6.toml"
LINK = "r1->r2"
CHANGE = 25.0  # s: the twenty flows join or leave
DURATION = 50.0
MIN_TH, MAX_TH = 5.0, 15.0
BAND = (MIN_TH + 0.4 * (MAX_TH - MIN_TH), MIN_TH + 0.6 * (MAX_TH - MIN_TH))  # [9, 11]
NEW_FLOWS, NEW_GAP, NEW_WINDOW = 20, 0.1, 20
TRACE_INTERVAL = "20ms"

#: (case, queue type) -> figure number
FIGS = {
    ("increase", "red"): 6,
    ("increase", "ared"): 7,
    ("decrease", "red"): 8,
    ("decrease", "ared"): 9,
}


def congestion_scenario(case: str, queue: str, seed: int) -> ScenarioDict:
    """The scenario of Figs. 6-9: `case` "increase" (twenty flows start at 25 s, one every
    0.1 s) or "decrease" (they start at 0 s, one every 0.1 s, and stop at 25 s); `queue`
    "red" or "ared" on both directions of r1-r2 (same thresholds, w_q and initial max_p)."""
    if case not in ("increase", "decrease"):
        raise ValueError(f"case must be 'increase' or 'decrease', got {case!r}")
    if queue not in ("red", "ared"):
        raise ValueError(f"queue must be 'red' or 'ared', got {queue!r}")
    sc = copy.deepcopy(scenario_dict(SCENARIO))
    sc["seed"] = seed
    sc["link"][0]["queue"]["type"] = queue
    t0 = CHANGE if case == "increase" else 0.0
    for k in range(NEW_FLOWS):
        f: dict[str, Any] = {
            "type": "tcp",
            "variant": "newreno",
            "src": "s1" if k % 2 == 0 else "s2",
            "dst": "s3" if k % 2 == 0 else "s4",
            "start": f"{t0 + NEW_GAP * k:g}s",
            "packet_size": 1000,
            "max_window": NEW_WINDOW,
        }
        if case == "decrease":
            f["stop"] = f"{CHANGE:g}s"
        sc["flow"].append(f)
    return sc


def _window(
    sc: ScenarioDict, t0: float, t1: float, trace: bool = False
) -> tuple[dict[str, Any], Any]:
    """The bottleneck's summary over [t0, t1] of a run of t1 s (and its queue trace)."""
    s = dict(sc, warmup=f"{t0:g}s", duration=f"{t1:g}s")
    if trace:
        s["trace"] = {"queue": [LINK], "interval": TRACE_INTERVAL}
    res = simulate(Scenario.from_dict(s), progress=False)
    return res.summary["links"][LINK], res.traces.get("queue")


def recovery_time(
    q: pd.DataFrame, case: str, band: tuple[float, float] = BAND, t0: float = CHANGE
) -> float:
    """Seconds after `t0` until avg, smoothed over 1 s, is back at the target band after
    the change pushed it out: for "increase" the first time it is <= the band's top after
    it first exceeded it, for "decrease" the first time it is >= the band's bottom after it
    first fell below it. 0 if it never left the band that way, nan if it never came back."""
    lo, hi = band
    after = q[q["time"] >= t0]
    times = after["time"].to_numpy()
    step = float(np.median(np.diff(times))) if len(times) > 1 else 1.0
    smooth = after["avg"].rolling(max(1, int(round(1.0 / step))), min_periods=1).mean().to_numpy()
    out = smooth > hi if case == "increase" else smooth < lo
    back = smooth <= hi if case == "increase" else smooth >= lo
    left = np.flatnonzero(out)
    if not len(left):
        return 0.0
    hit = np.flatnonzero(back[left[0] :])
    return float(times[left[0] + hit[0]] - t0) if len(hit) else math.nan


def run_setting(case: str, queue: str, seed: int) -> tuple[dict[str, float], pd.DataFrame]:
    """One run's numbers (per half and whole) and its queue trace."""
    sc = congestion_scenario(case, queue, seed)
    first, _ = _window(sc, 0.0, CHANGE)
    second, _ = _window(sc, CHANGE, DURATION)
    whole, q = _window(sc, 0.0, DURATION, trace=True)
    q = q[q["link"] == LINK][["time", "queue", "avg"]].reset_index(drop=True)
    row: dict[str, float] = {"case": case, "queue": queue, "seed": seed}  # type: ignore[dict-item]
    for name, s in (("first", first), ("second", second), ("all", whole)):
        row[f"drop_rate_{name}"] = s["drops"] / max(1, s["arrivals"])
        row[f"utilization_{name}"] = s["utilization"]
        row[f"mean_avg_{name}"] = s["mean_avg"]
        row[f"mean_queue_{name}"] = s["mean_queue"]
    row["recovery_s"] = recovery_time(q, case)
    late = q[q["time"] >= CHANGE + 10.0]
    row["mean_avg_late"] = float(late["avg"].mean())
    row["in_band_late"] = float(late["avg"].between(*BAND).mean())
    return row, q


@dataclass
class Congestion:
    runs: pd.DataFrame  # one row per (case, queue, seed)
    means: pd.DataFrame  # mean per (case, queue)
    traces: dict[tuple[str, str], pd.DataFrame]  # seed 1's queue trace per (case, queue)
    seeds: list[int]

    def mean(self, case: str, queue: str, col: str) -> float:
        m = self.means[(self.means["case"] == case) & (self.means["queue"] == queue)]
        return float(m[col].iloc[0])


def _assume(ctx: Context, seeds: list[int]) -> None:
    ctx.assume(
        "Network as scenarios/floyd2001_fig6.toml states: ns-2's RED test-suite dumbbell (10 Mb/s "
        "access links of 2-5 ms, 1.5 Mb/s 20 ms bottleneck), buffer 35, min_th 5, max_th 15, w_q "
        "0.0027, gentle, initial max_p 0.1, the same queue both ways; 1000-byte packets; NewReno "
        "(no SACK in aqmlab); long-lived windows of 1000 packets."
    )
    ctx.assume(
        "Twenty flows with windows of 20 packets, alternately s1->s3 and s2->s4, one every 0.1 s "
        "from 25 s (Figs. 6-7) or from 0 s, stopping at 25 s (Figs. 8-9)."
    )
    ctx.assume(
        "Drop rate = drops / arrivals at the bottleneck; utilization = time transmitting / window; "
        "'average queue size' = the time average of RED's avg (mean_avg; the time-average queue "
        "is reported beside it); halves 0-25 s and 25-50 s, overall 0-50 s."
    )
    ctx.assume(
        f"The paper's numbers (one run each) are compared with the mean over seeds {seeds[0]}-"
        f"{seeds[-1]}; seed 1 is plotted. ARED's recovery: seconds after 25 s until avg (a 1 s "
        "running mean of it), having left [9, 11] in the direction of the change, is back at the "
        "band's edge (recovery_time)."
    )


def congestion_data(ctx: Context) -> Congestion:
    """Every setting of Figs. 6-9 over seeds (computed once for the group)."""

    def compute() -> Congestion:
        seeds = [1, 2] if ctx.quick else [1, 2, 3, 4, 5]
        rows, traces = [], {}
        for case, queue in FIGS:
            for seed in seeds:
                row, q = run_setting(case, queue, seed)
                rows.append(row)
                if seed == 1:
                    traces[(case, queue)] = q
        runs = pd.DataFrame(rows)
        means = runs.drop(columns="seed").groupby(["case", "queue"], as_index=False).mean()
        return Congestion(runs, means, traces, seeds)

    d = ctx.once(("floyd2001", "congestion"), compute)
    _assume(ctx, d.seeds)
    ctx.save_data(d.runs, "runs")
    return d


def _plot(d: Congestion, case: str, queue: str) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig_no = FIGS[(case, queue)]
    q = d.traces[(case, queue)]
    fig, ax = plt.subplots(figsize=(9, 3.8))
    ax.plot(q["time"], q["queue"], ":", color="0.35", lw=0.8, label="queue")
    ax.plot(q["time"], q["avg"], "k", lw=1.6, label="average (avg)")
    if queue == "ared":
        ax.axhspan(*BAND, color="C2", alpha=0.25, label="target [9, 11]")
    ax.axvline(CHANGE, color="C3", ls="--", lw=0.8)
    ax.set_ylim(0, 36)
    ax.set_xlim(0, DURATION)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("queue (packets)")
    name = "Adaptive RED" if queue == "ared" else "RED"
    what = "an Increase" if case == "increase" else "a Decrease"
    ax.set_title(f"Fig. {fig_no}: {name} with {what} in Congestion (seed 1)")
    ax.legend(loc="upper left", fontsize=8)
    return {f"fig{fig_no}": fig}


def _drop_rows(
    ctx: Context, d: Congestion, case: str, queue: str, first: float, second: float
) -> None:
    for half, paper in (("first", first), ("second", second)):
        ctx.compare.value(
            f"drop rate, {'0-25' if half == 'first' else '25-50'} s (mean of {len(d.seeds)} seeds)",
            paper,
            d.mean(case, queue, f"drop_rate_{half}"),
            0.25,
            relative=True,
        )


def _half_rows(ctx: Context, d: Congestion, case: str, queue: str) -> None:
    for half in ("first", "second"):
        span = "0-25" if half == "first" else "25-50"
        ctx.compare.not_reported(
            f"utilization, {span} s", d.mean(case, queue, f"utilization_{half}")
        )
        ctx.compare.not_reported(
            f"mean avg, {span} s (packets)", d.mean(case, queue, f"mean_avg_{half}")
        )
        ctx.compare.not_reported(
            f"time-average queue, {span} s (packets)", d.mean(case, queue, f"mean_queue_{half}")
        )


def _ns2_rows(ctx: Context, d: Congestion, case: str, queue: str) -> None:
    """aqmlab beside ns-2 (the committed run of benchmarks/peers/ared2001.py) per window,
    means over the same seeds."""
    ns = floyd2001_ns2.load()
    if not len(ns):
        ctx.note("No ns-2 results found (floyd2001_ns2.csv): no cross-check.")
        return
    ns = ns[(ns["experiment"] == "fig6-9") & (ns["queue"] == queue) & (ns["case"] == case)]
    ns = ns[ns["seed"].isin(d.seeds)]
    runs = d.runs[(d.runs["case"] == case) & (d.runs["queue"] == queue)]
    points = []
    for name, t0, t1 in (("first", 0.0, 25.0), ("second", 25.0, 50.0), ("all", 0.0, 50.0)):
        w = ns[(ns["t0"] == t0) & (ns["t1"] == t1)]
        if len(w) != len(d.seeds):
            continue
        points.append(
            {
                "name": f"{t0:g}-{t1:g} s",
                "aqmlab": {m: float(runs[f"{m}_{name}"].mean()) for m in NS2_METRICS},
                "ns2": {m: float(w[m].mean()) for m in NS2_METRICS},
            }
        )
    floyd2001_ns2.compare_points(
        ctx, f"means of seeds {d.seeds[0]}-{d.seeds[-1]},", points, NS2_METRICS
    )


NS2_METRICS = ("utilization", "mean_queue", "drop_rate")


def _compare_red(ctx: Context, d: Congestion, case: str, first: float, second: float) -> None:
    _drop_rows(ctx, d, case, "red", first, second)
    up = d.mean(case, "red", "mean_avg_second") > d.mean(case, "red", "mean_avg_first")
    ctx.compare.claim(
        "RED's average queue moves with the drop rate: higher in the more congested half",
        up if case == "increase" else not up,
        f"mean avg {d.mean(case, 'red', 'mean_avg_first'):.1f} (0-25 s), "
        f"{d.mean(case, 'red', 'mean_avg_second'):.1f} (25-50 s)",
    )
    _half_rows(ctx, d, case, "red")
    _ns2_rows(ctx, d, case, "red")


def _compare_ared(
    ctx: Context, d: Congestion, case: str, util: tuple[float, float], avg: tuple[float, float]
) -> None:
    n = len(d.seeds)
    rec = d.runs[(d.runs["case"] == case) & (d.runs["queue"] == "ared")]["recovery_s"]
    ctx.compare.claim(
        "Adaptive RED brings avg back to the target range [9, 11] within roughly ten seconds "
        "of the change (every seed, <= 15 s)",
        bool(rec.notna().all() and (rec <= 15.0).all()),
        "recovery " + ", ".join("never" if math.isnan(r) else f"{r:.1f} s" for r in rec),
    )
    ctx.compare.value(
        f"Adaptive RED: utilization, 0-50 s (mean of {n} seeds)",
        util[0],
        d.mean(case, "ared", "utilization_all"),
        0.02,
    )
    ctx.compare.value(
        f"RED: utilization, 0-50 s (mean of {n} seeds)",
        util[1],
        d.mean(case, "red", "utilization_all"),
        0.02,
    )
    ctx.compare.value(
        f"Adaptive RED: average queue size, 0-50 s (mean avg, packets; mean of {n} seeds)",
        avg[0],
        d.mean(case, "ared", "mean_avg_all"),
        0.15,
        relative=True,
    )
    ctx.compare.value(
        f"RED: average queue size, 0-50 s (mean avg, packets; mean of {n} seeds)",
        avg[1],
        d.mean(case, "red", "mean_avg_all"),
        0.15,
        relative=True,
    )
    ared_lower = d.mean(case, "ared", "mean_avg_all") < d.mean(case, "red", "mean_avg_all")
    ctx.compare.claim("Adaptive RED's overall average queue is lower than RED's", ared_lower)
    if case == "increase":
        ctx.compare.claim(
            "Adaptive RED has a higher throughput and a smaller drop rate than RED (0-50 s)",
            d.mean(case, "ared", "utilization_all") > d.mean(case, "red", "utilization_all")
            and d.mean(case, "ared", "drop_rate_all") < d.mean(case, "red", "drop_rate_all"),
            f"utilization {d.mean(case, 'ared', 'utilization_all'):.3f} vs "
            f"{d.mean(case, 'red', 'utilization_all'):.3f}, drop rate "
            f"{d.mean(case, 'ared', 'drop_rate_all'):.4f} vs {d.mean(case, 'red', 'drop_rate_all'):.4f}",
        )
    ctx.compare.not_reported(
        "Adaptive RED: mean avg from 35 s to the end (packets)",
        d.mean(case, "ared", "mean_avg_late"),
    )
    ctx.compare.not_reported(
        "Adaptive RED: share of 35-50 s with avg in [9, 11]",
        d.mean(case, "ared", "in_band_late"),
    )
    for half in ("first", "second"):
        ctx.compare.not_reported(
            f"Adaptive RED: drop rate, {'0-25' if half == 'first' else '25-50'} s",
            d.mean(case, "ared", f"drop_rate_{half}"),
        )
    _half_rows(ctx, d, case, "ared")
    _ns2_rows(ctx, d, case, "ared")


FIG6 = Experiment(
    "floyd2001-fig6",
    "RED with an increase in congestion (1.5 Mb/s, twenty flows join at 25 s)",
    compute=congestion_data,
    plot=functools.partial(_plot, case="increase", queue="red"),
    compare=functools.partial(_compare_red, case="increase", first=0.01, second=0.126),
)
FIG7 = Experiment(
    "floyd2001-fig7",
    "Adaptive RED with an increase in congestion",
    compute=congestion_data,
    plot=functools.partial(_plot, case="increase", queue="ared"),
    compare=functools.partial(
        _compare_ared, case="increase", util=(0.951, 0.931), avg=(11.5, 13.4)
    ),
)
FIG8 = Experiment(
    "floyd2001-fig8",
    "RED with a decrease in congestion (twenty flows leave at 25 s)",
    compute=congestion_data,
    plot=functools.partial(_plot, case="decrease", queue="red"),
    compare=functools.partial(_compare_red, case="decrease", first=0.097, second=0.008),
)
FIG9 = Experiment(
    "floyd2001-fig9",
    "Adaptive RED with a decrease in congestion",
    compute=congestion_data,
    plot=functools.partial(_plot, case="decrease", queue="ared"),
    compare=functools.partial(_compare_ared, case="decrease", util=(0.93, 0.927), avg=(11.1, 12.4)),
)
