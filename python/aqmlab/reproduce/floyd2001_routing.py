"""Floyd, Gummadi & Shenker 2001, Fig. 18 (Section 5.3): Adaptive RED's average queue
when the output link fails from 50 to 60 s and the traffic takes an alternate path of
lower precedence and half the capacity.

The network is the dumbbell of Figs. 1-5 (``scenarios/floyd2001_fig1.toml``, its default
N = 20 long-lived flows with web and reverse-path traffic) with Adaptive RED on r1-r2 and
an alternate path r1 - r3 - r2 of 7.5 Mb/s links (20 ms in all, like r1-r2) whose routing
cost (5 per link) is higher than r1-r2's (1): routes use it only while r1-r2 is down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from ..sim import Scenario, simulate
from .common import ScenarioDict, scenario_dict
from .context import Context
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

LINK = "r1->r2"
ALT = "r1->r3"
DOWN, UP = 50.0, 60.0
DURATION = 100.0
BAND = (44.0, 56.0)
#: Section 5.3: utilization over the 10 s after the repair and the 10 s after those.
PAPER_UTIL = {(60.0, 70.0): 0.883, (70.0, 80.0): 0.961}
ARED = {"type": "ared", "limit": 200, "min_th": 20, "max_th": 80, "max_p": 0.1, "gentle": True}


def routing_scenario(seed: int = 1) -> ScenarioDict:
    """Figs. 1-5's dumbbell (20 flows) with Adaptive RED, the alternate path and the failure."""
    sc = scenario_dict("floyd2001_fig1.toml")
    sc["name"] = "floyd2001-fig18"
    sc["seed"] = seed
    sc["duration"], sc["warmup"] = f"{DURATION:g}s", "0s"
    sc["link"][0]["queue"] = dict(ARED)
    sc["link"][0]["cost"] = 1
    for a, b in (("r1", "r3"), ("r3", "r2")):
        sc["link"].append(
            {"a": a, "b": b, "rate": "7.5Mbps", "delay": "10ms", "queue": dict(ARED), "cost": 5}
        )
    sc["event"] = [
        {"at": f"{DOWN:g}s", "a": "r1", "b": "r2", "action": "down"},
        {"at": f"{UP:g}s", "a": "r1", "b": "r2", "action": "up"},
    ]
    return sc


def _window(sc: ScenarioDict, t0: float, t1: float) -> dict[str, Any]:
    res = simulate(
        Scenario.from_dict(dict(sc, warmup=f"{t0:g}s", duration=f"{t1:g}s")), progress=False
    )
    links: dict[str, Any] = res.summary["links"]
    return links


@dataclass
class Routing:
    queue: pd.DataFrame  # time, link, queue, avg (both the primary and the alternate)
    periods: pd.DataFrame  # t0, t1, utilization of r1->r2 and r1->r3, drops, link-down drops
    seeds: list[int]


def fig18_compute(ctx: Context) -> Routing:
    seeds = [1] if ctx.quick else [1, 2, 3]
    ctx.assume(
        "The paper gives only the failure (50-60 s) and the alternate path (lower precedence, half "
        "the capacity). aqmlab runs it on Figs. 1-5's dumbbell with N = 20 long-lived flows, five "
        "reverse-path flows and web traffic both ways (scenarios/floyd2001_fig1.toml), Adaptive RED "
        "(min_th 20, max_th 80, initial max_p 0.1, automatic w_q) on r1-r2 and on the alternate "
        "r1-r3-r2 (two 7.5 Mb/s, 10 ms links of routing cost 5 each against r1-r2's 1), 100 s."
    )
    ctx.assume(
        "When r1-r2 goes down everything queued on it is lost and routes are recomputed at once (no "
        f"routing protocol delay). Utilizations are means over seeds {seeds[0]}-{seeds[-1]}."
    )
    rows = []
    queue = None
    for seed in seeds:
        sc = routing_scenario(seed)
        if seed == 1:
            traced = dict(sc, trace={"queue": [LINK, ALT], "interval": "50ms"})
            queue = simulate(Scenario.from_dict(traced), progress=False).traces["queue"]
        for t0, t1 in ((40.0, 50.0), (50.0, 60.0), (60.0, 70.0), (70.0, 80.0), (80.0, 100.0)):
            links = _window(sc, t0, t1)
            rows.append(
                {
                    "seed": seed,
                    "t0": t0,
                    "t1": t1,
                    "utilization": links[LINK]["utilization"],
                    "alt_utilization": links[ALT]["utilization"],
                    "mean_avg": links[LINK]["mean_avg"],
                    "drops": links[LINK]["drops"],
                    "link_down_drops": links[LINK]["link_down_drops"],
                }
            )
    assert queue is not None
    periods = pd.DataFrame(rows)
    ctx.save_data(periods, "periods")
    ctx.save_data(queue, "queue_trace")
    return Routing(queue, periods, seeds)


def fig18_plot(d: Routing) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    for link, style, label in (
        (LINK, "k", "r1->r2 (15 Mb/s)"),
        (ALT, "C0", "r1->r3 (alternate, 7.5 Mb/s)"),
    ):
        q = d.queue[d.queue["link"] == link]
        ax.plot(q["time"], q["avg"], style, lw=1.4, label=f"average queue, {label}")
    ax.axvspan(DOWN, UP, color="C3", alpha=0.12, label="r1-r2 down")
    ax.axhspan(*BAND, color="C2", alpha=0.2, label="target [44, 56]")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("average queue (packets)")
    ax.set_title("Fig. 18: Average queue size variation with routing change (seed 1)")
    ax.legend(fontsize=8, loc="upper left")
    return {"fig18": fig}


def fig18_compare(ctx: Context, d: Routing) -> None:
    p = d.periods.groupby(["t0", "t1"], as_index=False).mean()
    n = len(d.seeds)

    def at(t0: float, col: str) -> float:
        return float(p.loc[p["t0"] == t0, col].iloc[0])

    for (t0, t1), paper in PAPER_UTIL.items():
        ctx.compare.value(
            f"utilization of r1->r2 over {t0:g}-{t1:g} s (after the repair; mean of {n} seeds)",
            paper,
            at(t0, "utilization"),
            0.02,
        )
    ctx.compare.claim(
        "the utilization recovers: higher over 70-80 s than over 60-70 s",
        at(70.0, "utilization") > at(60.0, "utilization"),
        f"{at(60.0, 'utilization'):.3f} then {at(70.0, 'utilization'):.3f}",
    )
    ctx.compare.claim(
        "the TCP connections keep sending over the alternate path during the outage (its utilization "
        "over 50-60 s > 50%)",
        at(50.0, "alt_utilization") > 0.5,
        f"{at(50.0, 'alt_utilization'):.3f}",
    )
    ctx.compare.not_reported(
        "utilization of r1->r2 over 40-50 s (before the failure)", at(40.0, "utilization")
    )
    ctx.compare.not_reported("mean avg of r1->r2 over 80-100 s (packets)", at(80.0, "mean_avg"))
    ctx.compare.not_reported("packets lost on r1-r2 when it went down", at(50.0, "link_down_drops"))


FIG18 = Experiment(
    "floyd2001-fig18",
    "Adaptive RED's average queue when the output link fails for 10 s (alternate path at half capacity)",
    compute=fig18_compute,
    plot=fig18_plot,
    compare=fig18_compare,
)
