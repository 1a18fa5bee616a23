"""Zheng & Atiquzzaman, "A framework to determine the optimal weight parameter of RED in
next-generation Internet routers" (2008): Section 4.3's bounds on w (``bounds``).

The figures of Section 5 (Figs. 4-16) are in :mod:`.zheng2008_figs`, their runs in
:mod:`.zheng2008_runs`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..analysis import zheng_bounds_from_trace, zheng_w_bounds, zheng_w_bounds_exact
from ..analysis.zheng import (
    zheng_delta_lower,
    zheng_delta_upper,
    zheng_delta_upper_eq15,
    zheng_lower_bound,
)
from .context import Context
from .registry import Experiment
from .zheng2008_runs import base, simulate_run

if TYPE_CHECKING:
    from matplotlib.figure import Figure

PAPER = "Zheng & Atiquzzaman 2008, Int. J. Commun. Syst. 21"

#: Section 4.3's inputs, read by the paper off Floyd & Jacobson's Fig. 3.
INPUTS = {"b": 4.0, "K_l": 5.0, "q0": 5.0, "l1": 14, "g": 16.0, "m2_lower": 30, "m2_upper": 65}
#: The bounds the paper prints.
PAPER_LOWER, PAPER_UPPER = 0.045, 0.071
#: The simulated w whose traces the estimator reads (Floyd's recommendation, and the
#: paper's w = 0.05).
TRACE_WS = (0.002, 0.05)


@dataclass
class Bounds:
    lower: float  # eq. 14
    upper: float  # eq. 21
    exact: dict[str, Any]  # zheng_w_bounds_exact
    readings: pd.DataFrame  # candidate readings of the lower bound: reading, w
    delta_at: dict[float, float]  # eq. 14's delta at some w
    grid_lower: float  # smallest multiple of 0.005 satisfying eq. 14
    curve: pd.DataFrame  # w, eq. 13 delta, eq. 19 delta, eq. 15 summed
    traces: pd.DataFrame  # per simulated w: estimated inputs and bounds


def _readings() -> pd.DataFrame:
    """What eq. 14's lower bound gives under the readings of Section 4.1 one could take."""
    from scipy import optimize

    p = INPUTS
    target = p["K_l"] / (p["g"] * p["q0"] * (p["b"] + 1))
    rows: list[dict[str, Any]] = [
        {
            "reading": "eq. 14 as printed, exponent m2 - 2 = 28",
            "w": zheng_lower_bound(4, 5, 5, 16, 30),
        },
        {
            "reading": "eq. 12 (1 - w + b kept)",
            "w": zheng_lower_bound(4, 5, 5, 16, 30, eq12=True),
        },
        {
            "reading": "eq. 14 with exp(-w (m2 - 2)) for (1 - w)^(m2 - 2)",
            "w": optimize.brentq(lambda w: w * math.exp(-28 * w) - target, 1 / 28, 0.5),
        },
        {
            "reading": "eq. 14 with exponent m2 - 3 = 27",
            "w": zheng_lower_bound(4, 5, 5, 16, 29),
        },
        {
            "reading": "g(m-bar) that puts eq. 14's root at 0.045 (paper: 16)",
            "w": p["K_l"] / ((1 - PAPER_LOWER) ** 28 * PAPER_LOWER * p["q0"] * (p["b"] + 1)),
        },
    ]
    return pd.DataFrame(rows)


def _trace_bounds(ctx: Context) -> pd.DataFrame:
    """The estimator on the queue trace of the paper's network, for each w of TRACE_WS."""
    rows = []
    for w in TRACE_WS:
        sc = base(w)
        if ctx.quick:
            sc["duration"] = "30s"
        run = simulate_run(sc)
        try:
            b = zheng_bounds_from_trace(run.queue["queue"].to_numpy(), INPUTS["K_l"])
            rows.append(dict(w_run=w, error="", **b["inputs"], lower=b["lower"], upper=b["upper"]))
        except ValueError as e:
            rows.append({"w_run": w, "error": str(e)})
    return pd.DataFrame(rows)


def bounds_compute(ctx: Context) -> Bounds:
    p = INPUTS
    args = (p["b"], p["K_l"], p["q0"], p["l1"], p["g"], p["m2_lower"], p["m2_upper"])
    lower, upper = zheng_w_bounds(*args)
    exact = zheng_w_bounds_exact(*args)
    ctx.assume(
        "Section 4.3's inputs as the paper reads them off Floyd & Jacobson's Fig. 3: b = 4, "
        "K_l = 5, q0 = 5, l1 = 14, g(m-bar) = 16, m2 = 30 (lower) and 65 (upper)."
    )
    delta = lambda w: float(zheng_delta_lower(w, p["b"], p["q0"], p["g"], p["m2_lower"]))  # noqa: E731
    grid = np.round(np.arange(0.005, 0.2, 0.005), 3)
    ok = [w for w in grid if w > 1 / (p["m2_lower"] - 1) and delta(w) <= p["K_l"]]
    w = np.linspace(0.001, 0.15, 300)
    curve = pd.DataFrame(
        {
            "w": w,
            "delta_eq13": zheng_delta_lower(w, p["b"], p["q0"], p["g"], p["m2_lower"]),
            "delta_eq19": zheng_delta_upper(w, p["b"], p["q0"], p["l1"], p["m2_upper"]),
            "delta_eq15_summed": zheng_delta_upper_eq15(
                w, p["b"], p["q0"], int(p["l1"]), p["m2_upper"]
            ),
        }
    )
    readings = _readings()
    ctx.save_data(readings, "lower_bound_readings")
    ctx.save_data(curve, "deltas")
    ctx.assume(
        "The trace estimator (aqmlab.analysis.estimate_zheng_inputs) reads the gateway's queue "
        "at every arrival (one sample per calculation of the average) of the paper's network "
        "(scenarios/zheng2008.toml) run with w = 0.002 and w = 0.05"
        + (" for 30 s (quick mode)" if ctx.quick else " for 100 s")
        + "; K_l = 5."
    )
    traces = _trace_bounds(ctx)
    ctx.save_data(traces, "trace_bounds")
    return Bounds(
        lower,
        upper,
        exact,
        readings,
        {x: delta(x) for x in (0.040, 0.044, 0.045)},
        float(ok[0]) if ok else float("nan"),
        curve,
        traces,
    )


def bounds_plot(d: Bounds) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    c = d.curve
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.plot(c["w"], c["delta_eq13"], label="eq. 13: two adjacent bursts (m2 = 30)")
    ax.plot(c["w"], c["delta_eq19"], label="eq. 19: half a long-term period (m2 = 65)")
    ax.plot(c["w"], c["delta_eq15_summed"], "--", label="eq. 15 summed term by term")
    ax.axhline(INPUTS["K_l"], color="k", ls=":", lw=0.8, label="K_l = 5")
    for x, lab in ((d.lower, "eq. 14"), (d.upper, "eq. 21")):
        ax.axvline(x, color="C3", lw=0.8)
        ax.annotate(f"{lab}: {x:.4f}", (x, 0.5), rotation=90, fontsize=8)
    for x in (PAPER_LOWER, PAPER_UPPER):
        ax.axvline(x, color="grey", ls="--", lw=0.8)
    ax.set_ylim(0, 40)
    ax.set_xlabel("w")
    ax.set_ylabel("change of the average, delta (packets)")
    ax.set_title("Section 4.3: bounds of w (paper: 0.045 and 0.071, grey)")
    ax.legend(fontsize=8)
    return {"bounds": fig}


def bounds_compare(ctx: Context, d: Bounds) -> None:
    c = ctx.compare
    c.value("lower bound of w (eq. 14)", PAPER_LOWER, d.lower, 0.0005)
    c.value("upper bound of w (eq. 21)", PAPER_UPPER, d.upper, 0.0005)
    c.claim(
        "0.045 satisfies eq. 14 and 0.040 does not (the smallest multiple of 0.005 allowed)",
        d.delta_at[0.045] <= INPUTS["K_l"] < d.delta_at[0.040],
        f"delta(0.040) = {d.delta_at[0.040]:.2f}, delta(0.045) = {d.delta_at[0.045]:.2f}, "
        f"K_l = 5; smallest multiple of 0.005: {d.grid_lower:.3f}",
    )
    for _, r in d.readings.iterrows():
        c.not_reported(f"lower bound, {r['reading']}", float(r["w"]))
    c.not_reported(
        "lower bound from eq. 14's other (smaller) root", d.exact["lower_eq14_small_root"]
    )
    c.not_reported("upper bound from eq. 15 summed term by term", d.exact["upper_eq15"])
    c.not_reported("eq. 15 summed: smallest w that still tracks", d.exact["upper_eq15_lowest"])
    c.not_reported(
        "upper bound, eq. 21 with b + 1 (what eq. 18 gives for w -> 0)",
        d.exact["upper_eq21_b_plus_1"],
    )
    ctx.note(
        f"Eq. 14 with the paper's inputs gives {d.lower:.4f}, which rounds to 0.044, not 0.045; "
        f"eq. 21 gives {d.upper:.4f} (= 0.071). No reading of eq. 14 with the printed inputs gives "
        "0.045 to three decimals (lower_bound_readings.csv); 0.045 is the smallest multiple of "
        "0.005 that satisfies eq. 14 (delta(0.040) > K_l >= delta(0.045)), or the root for "
        f"g(m-bar) = {d.readings['w'].iloc[-1]:.2f} instead of 16. Eq. 15 summed term by term "
        f"makes the average track long-term congestion only for w in "
        f"[{d.exact['upper_eq15_lowest']:.4f}, {d.exact['upper_eq15']:.4f}]: the series "
        "approximations behind eq. 21 need w l1 >> 1, and w l1 is about 1 here, so the "
        "unapproximated bounds do not overlap ([0.0438, 0.0445] is the only w both allow)."
    )
    for _, r in d.traces.iterrows():
        w = r["w_run"]
        if r.get("error"):
            c.not_reported(f"trace of the w = {w:g} run: estimator", r["error"])
            continue
        c.not_reported(
            f"trace of the w = {w:g} run: estimated b, q0, l1, g, m2_lower, m2_upper",
            f"{r['b']:.2f}, {r['q0']:.3f}, {r['l1']:.1f}, {r['g']:.1f}, {r['m2_lower']:.0f}, "
            f"{r['m2_upper']:.0f}",
        )
        c.not_reported(f"trace of the w = {w:g} run: lower bound (eq. 14)", float(r["lower"]))
        c.not_reported(f"trace of the w = {w:g} run: upper bound (eq. 21)", float(r["upper"]))
        c.claim(
            f"trace of the w = {w:g} run: the paper's w = 0.05 lies within the bounds estimated "
            "from the trace of its own network",
            bool(r["lower"] <= 0.05 <= r["upper"]),
            f"[{r['lower']:.4f}, {r['upper']:.4f}]",
            paper="[0.045, 0.071] (inputs from Floyd's Fig. 3)",
        )


BOUNDS = Experiment(
    "zheng2008-bounds",
    "Section 4.3: lower and upper bounds of RED's weight w (eqs. 14, 21), and from a simulated trace",
    compute=bounds_compute,
    plot=bounds_plot,
    compare=bounds_compare,
)
