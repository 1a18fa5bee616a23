"""Lin & Morris 1997, Sections 3.3 and 5 (Figs. 6-7): TCP against an 8 Mb/s CBR UDP flow
on a 10 Mb/s link; under RED the CBR flow keeps 8 Mb/s (Fig. 6), under FRED it is held
to a fair share as TCP connections join every 20 s (Fig. 7)."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..sim import Scenario, simulate
from .common import scenario_dict
from .context import Context
from .lin1997 import PAPER
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PAPER", "FIG6", "FIG7"]

LINK = "gw->sink"
#: Bandwidth series bin (s).
BIN = 0.5
#: The paper's link in Mb/s, for the plots' axes (packet rates are scaled back by 636/552).
SCALE = 636 / 552


@dataclass
class Cbr:
    series: pd.DataFrame  # time, then Mb/s per flow (the paper's units)
    shares: pd.DataFrame  # per interval: flow, share of the bottleneck's throughput
    flows: pd.DataFrame  # the run's per-flow summary
    fred: bool


def _series(pk: pd.DataFrame, names: list[str], duration: float) -> pd.DataFrame:
    dep = pk[(pk["link"] == LINK) & (pk["ack"] == 0) & (pk["event"] == "d")]
    edges = np.arange(0.0, duration + BIN / 2, BIN)
    out: dict[str, Any] = {"time": edges[:-1]}
    for i, n in enumerate(names):
        h, _ = np.histogram(dep[dep["flow"] == i]["time"], bins=edges)
        out[n] = h * 552 * 8 / BIN / 1e6 * SCALE
    return pd.DataFrame(out)


def _shares(series: pd.DataFrame, names: list[str], spans: list[Any]) -> pd.DataFrame:
    rows = []
    for t0, t1 in spans:
        s = series[(series["time"] >= t0) & (series["time"] < t1)][names].sum()
        tot = float(s.sum())
        for n in names:
            rows.append(
                {"from": t0, "to": t1, "flow": n, "share": float(s[n]) / tot if tot else 0.0}
            )
    return pd.DataFrame(rows)


def fig6_compute(ctx: Context) -> Cbr:
    sc = scenario_dict("lin1997_fig5.toml")
    ctx.assume(
        "Network of Fig. 5 as scenarios/lin1997_fig5.toml states (RED, buffer 64, min_th 16, "
        "max_th 32): CBR from 0 s, TCP from 1 s, 20 s; ATM cell overhead folded into the rates; "
        "bandwidths plotted in the paper's Mb/s (packet rates times 636/552)."
    )
    res = simulate(Scenario.from_dict(sc), progress=False)
    names = ["cbr", "tcp1"]
    series = _series(res.traces["packets"], names, 20.0)
    ctx.save_data(series, "bandwidth")
    shares = _shares(series, names, [(2.0, 20.0)])
    ctx.save_data(shares, "shares")
    return Cbr(series, shares, res.flows, False)


def fig7_compute(ctx: Context) -> Cbr:
    sc = scenario_dict("lin1997_fig5.toml")
    sc["duration"] = "100s"
    sc["link"][-1]["queue_ab"] = dict(sc["link"][-1]["queue_ab"], type="fred", min_q=2)
    tcp = sc["flow"][1]
    for k in range(2, 5):
        sc["link"].insert(-1, dict(sc["link"][1], a=f"tcp{k}"))
        sc["flow"].append(copy.deepcopy(tcp) | {"name": f"tcp{k}", "src": f"tcp{k}"})
    for k, f in enumerate(sc["flow"][1:], start=1):
        f["start"] = 20.0 * k
    ctx.assume(
        "Fig. 7: the network of Fig. 5 under FRED (min_q 2, buffer 64, min_th 16, max_th 32); "
        "the CBR flow from 0 s and a new TCP connection (own 100 Mb/s, 1 ms access link) at "
        "20, 40, 60 and 80 s; 100 s. Shares are measured over the second half of each 20 s "
        "interval."
    )
    res = simulate(Scenario.from_dict(sc), progress=False)
    names = ["cbr", "tcp1", "tcp2", "tcp3", "tcp4"]
    series = _series(res.traces["packets"], names, 100.0)
    ctx.save_data(series, "bandwidth")
    shares = _shares(series, names, [(20.0 * k + 10, 20.0 * k + 20) for k in range(1, 5)])
    ctx.save_data(shares, "shares")
    return Cbr(series, shares, res.flows, True)


def _plot(title: str, name: str, d: Cbr) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4))
    for c in d.series.columns[1:]:
        ax.plot(d.series["time"], d.series[c], lw=0.8, label=c.upper() if c == "cbr" else c)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("bandwidth (Mb/s)")
    ax.set_title(title)
    ax.legend(loc="upper right")
    return {name: fig}


def fig6_plot(d: Cbr) -> dict[str, Figure]:
    return _plot("Fig. 6: CBR UDP gains more bandwidth than TCP (RED)", "fig6", d)


def fig7_plot(d: Cbr) -> dict[str, Figure]:
    return _plot("Fig. 7: FRED holds the CBR flow to a fair share", "fig7", d)


def fig6_compare(ctx: Context, d: Cbr) -> None:
    sh = d.shares.set_index("flow")["share"]
    ctx.compare.value(
        "CBR's share of the link after TCP starts (8 of 10 Mb/s)", 0.8, float(sh["cbr"]), 0.05
    )
    ctx.compare.value(
        "TCP's share of the link (the leftover 2 of 10 Mb/s)", 0.2, float(sh["tcp1"]), 0.05
    )
    f = d.flows.set_index("name")
    ctx.compare.claim(
        "RED drops packets of both connections although TCP uses less than its fair share",
        bool(f.loc["cbr", "drops"] > 0 and f.loc["tcp1", "drops"] > 0),
        f"CBR {f.loc['cbr', 'drops']}, TCP {f.loc['tcp1', 'drops']} drops",
    )
    ctx.compare.claim(
        "TCP falls into at least one timeout after its slow start",
        bool(f.loc["tcp1", "timeouts"] >= 1),
        f"{f.loc['tcp1', 'timeouts']} timeouts, {f.loc['tcp1', 'fast_retransmits']} fast retransmits",
    )


def fig7_compare(ctx: Context, d: Cbr) -> None:
    for t0, t1 in sorted(set(zip(d.shares["from"], d.shares["to"]))):
        g = d.shares[d.shares["from"] == t0]
        s = g.set_index("flow")["share"]
        active = [n for n in s.index if n == "cbr" or int(n[3:]) * 20 <= t0]
        fair = 1 / len(active)
        tcps = [n for n in active if n != "cbr"]
        ctx.compare.claim(
            f"{t0:.0f}-{t1:.0f} s ({len(active)} flows): the CBR flow is held near its fair share "
            f"{fair:.2f} (at most 1.5 times it)",
            bool(s["cbr"] <= 1.5 * fair),
            f"CBR {s['cbr']:.2f}",
        )
        ctx.compare.claim(
            f"{t0:.0f}-{t1:.0f} s: every TCP connection reaches at least half its fair share",
            bool(all(s[n] >= 0.5 * fair for n in tcps)),
            ", ".join(f"{n} {s[n]:.2f}" for n in tcps),
        )


FIG6 = Experiment(
    "lin1997-fig6",
    "TCP against an 8 Mb/s CBR UDP flow through RED on 10 Mb/s: bandwidth over time",
    compute=fig6_compute,
    plot=fig6_plot,
    compare=fig6_compare,
)
FIG7 = Experiment(
    "lin1997-fig7",
    "The CBR flow under FRED as TCP connections join every 20 s: bandwidth over time",
    compute=fig7_compute,
    plot=fig7_plot,
    compare=fig7_compare,
)
