"""Lin & Morris 1997, Section 3.2 (Figs. 3-4): two identical TCP connections through RED;
a run in which RED hits one connection repeatedly until it times out, found by searching
seeds as the paper did, and how often that happens."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional

import numpy as np
import pandas as pd

from .common import scenario_dict
from .context import Context
from .lin1997 import PAPER
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PAPER", "FIG3", "FIG4"]

LINK = "gw->sink"
#: The span before a timeout in which the victim's window must have been cut at least
#: twice (and the other connection's not at all): the paper's chart shows 0.1 s.
SPAN = 0.1


#: Seeds searched (quick mode stops at the first run with the event).
SEEDS = range(1, 101)


def find_event(cw: pd.DataFrame, n_flows: int = 2) -> Optional[Dict[str, Any]]:
    """The first timeout of a connection whose window was cut >= 2 times in the SPAN
    before it stalled while the other connection's window was not cut in that span;
    None if there is none.

    Cuts are ssthresh changes (fast retransmits and timeouts set it); a timeout is a
    change to cwnd = 1 after the window has been above 1; the stall starts at the
    victim's last window change before the timeout (the timer runs from there). The other
    connection must have been sending over the whole span."""
    flows = list(range(n_flows))
    cuts: Dict[int, np.ndarray] = {}
    events: Dict[int, List[Any]] = {}
    first: Dict[int, float] = {}
    for f in flows:
        g = cw[cw["flow"] == f].sort_values("time", kind="stable")
        if g.empty:  # never acknowledged anything
            first[f], cuts[f], events[f] = float("inf"), np.zeros(0), []
            continue
        grew = g[g["cwnd"] != g["cwnd"].iloc[0]]  # its first ACK: it is sending
        first[f] = float(grew["time"].iloc[0]) if len(grew) else float("inf")
        ss = g["ssthresh"].to_numpy()
        t = g["time"].to_numpy()
        changed = np.concatenate([[False], ss[1:] != ss[:-1]])
        c = g["cwnd"].to_numpy()
        prev_above = np.concatenate([[False], np.maximum.accumulate(c)[:-1] > 1])
        is_to = (c <= 1) & prev_above & changed
        cuts[f] = t[changed & ~is_to]
        events[f] = [(t[i], t[i - 1]) for i in np.nonzero(is_to)[0] if i > 0]
    for f in flows:
        for tt, stall in events[f]:
            mine = int(np.sum((cuts[f] >= stall - SPAN) & (cuts[f] <= stall)))
            others = sum(
                int(np.sum((cuts[o] >= stall - SPAN) & (cuts[o] <= stall))) for o in flows if o != f
            )
            started = all(first[o] <= stall - SPAN for o in flows if o != f)
            if mine >= 2 and others == 0 and started:
                return {
                    "flow": int(f),
                    "time": float(tt),
                    "stall": float(stall),
                    "cuts_before": mine,
                }
    return None


def _run(seed: int, packets: bool = False) -> Any:
    from ..sim import Scenario, simulate

    sc = scenario_dict("lin1997_fig2.toml")
    sc["seed"] = seed
    sc["trace"] = {"cwnd": True}
    if packets:
        sc["trace"]["packets"] = [LINK]
    return simulate(Scenario.from_dict(sc), progress=False)


@dataclass
class Search:
    seeds: List[int]
    found: pd.DataFrame  # seed, flow, time, cuts_before (one row per run with the event)
    any_timeout: int  # runs in which some connection timed out
    seed: Optional[int]  # the run plotted
    event: Optional[Dict[str, Any]]
    cwnd: pd.DataFrame
    queued: pd.DataFrame  # time, then packets queued per connection


def _queued(pk: pd.DataFrame) -> pd.DataFrame:
    """Packets of each connection waiting at the gateway after every event."""
    pk = pk[(pk["link"] == LINK) & (pk["ack"] == 0) & pk["event"].isin(["a", "m", "d"])]
    pk = pk.sort_values("time", kind="stable")
    out = {"time": pk["time"].to_numpy()}
    step = np.where(pk["event"] == "d", -1, 1)
    for f in sorted(pk["flow"].unique()):
        out[f"conn{f + 1}"] = np.cumsum(np.where(pk["flow"] == f, step, 0))
    return pd.DataFrame(out)


def search(ctx: Context) -> Search:
    seeds = list(SEEDS)
    ctx.assume(
        "Network of Fig. 2 as scenarios/lin1997_fig2.toml states; starts uniform on [0, 0.1] s, "
        f"2 s runs, seeds {seeds[0]}-{seeds[-1]} searched"
        + (" until the first run with the event (quick mode)." if ctx.quick else ".")
    )
    ctx.assume(
        f"The event: a connection times out after its window was cut at least twice in the "
        f"{SPAN:g} s before, while the other connection's window was not cut in that span "
        "(cuts: ssthresh changes in the cwnd trace; the paper's Fig. 3 shows two fast "
        "recoveries, then the timeout)."
    )
    rows = []
    any_to = 0
    searched = []
    for s in seeds:
        res = _run(s)
        searched.append(s)
        any_to += int((res.flows["timeouts"] > 0).any())
        ev = find_event(res.traces["cwnd"])
        if ev:
            rows.append(dict(seed=s, **ev))
            if ctx.quick:
                break
    seeds = searched
    found = pd.DataFrame(rows, columns=["seed", "flow", "time", "stall", "cuts_before"])
    ctx.save_data(found, "runs_with_the_event")
    if not len(found):
        return Search(seeds, found, any_to, None, None, pd.DataFrame(), pd.DataFrame())
    first = found.iloc[0]
    res = _run(int(first["seed"]), packets=True)
    t = float(first["stall"])
    cw = res.traces["cwnd"]
    cw = cw[(cw["time"] >= t - 1.5 * SPAN) & (cw["time"] <= t + 0.3 * SPAN)]
    q = _queued(res.traces["packets"])
    q = q[(q["time"] >= t - 1.5 * SPAN) & (q["time"] <= t + 0.3 * SPAN)]
    ctx.save_data(cw, "cwnd_trace")
    ctx.save_data(q, "queued_per_connection")
    return Search(seeds, found, any_to, int(first["seed"]), dict(first), cw, q)


def _compute(ctx: Context) -> Search:
    return ctx.once("lin1997-symmetric", lambda: search(ctx))


def fig3_plot(d: Search) -> Dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    if d.cwnd.empty:
        ax.text(0.5, 0.5, f"no run with the event in seeds 1-{len(d.seeds)}", ha="center")
    for f in sorted(d.cwnd["flow"].unique()) if not d.cwnd.empty else []:
        g = d.cwnd[d.cwnd["flow"] == f]
        ax.step(
            g["time"], g["cwnd"], where="post", label=f"connection {int(f) + 1}'s congestion window"
        )
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.set_title(f"Fig. 3: congestion windows of two identical connections (seed {d.seed})")
    ax.legend()
    return {"fig3": fig}


def fig4_plot(d: Search) -> Dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    if d.queued.empty:
        ax.text(0.5, 0.5, f"no run with the event in seeds 1-{len(d.seeds)}", ha="center")
    for c in d.queued.columns[1:]:
        ax.step(d.queued["time"], d.queued[c], where="post", label=f"{c}: packets at the gateway")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.set_title(f"Fig. 4: packets queued at the gateway per connection (seed {d.seed})")
    ax.legend()
    return {"fig4": fig}


def fig3_compare(ctx: Context, d: Search) -> None:
    n = len(d.seeds)
    k = len(d.found)
    ctx.compare.claim(
        "a run exists where RED hits one connection repeatedly until it times out",
        k > 0,
        f"{k} of {n} runs (first: seed {d.seed})" if k else f"none in {n} runs",
    )
    if ctx.quick:
        ctx.compare.not_reported("runs searched until the first with the event", n, "1 in 20-50")
    else:
        ctx.compare.claim(
            "it happens in a small percentage of runs, yet one is found within 20 to 50 runs "
            "(share of runs between 1/50 and 1/2)",
            1 / 50 <= k / n <= 0.5,
            f"{k / n:.2f}",
            paper="small percentage; 1 in 20-50",
        )
    ctx.compare.not_reported("share of runs in which some connection times out", d.any_timeout / n)
    if d.event:
        ctx.compare.not_reported(
            "window cuts of the victim in the 0.1 s before its timeout", d.event["cuts_before"]
        )


def fig4_compare(ctx: Context, d: Search) -> None:
    if d.event is None or d.queued.empty:
        ctx.compare.claim(
            "the victim has few packets queued before its timeout", False, "no run found"
        )
        return
    t = d.event["stall"]
    victim = f"conn{int(d.event['flow']) + 1}"
    other = [c for c in d.queued.columns[1:] if c != victim][0]
    before = d.queued[(d.queued["time"] >= t - SPAN) & (d.queued["time"] < t)]
    mv, mo = float(before[victim].mean()), float(before[other].mean())
    ctx.compare.claim(
        "the victim has relatively few packets queued before its timeout, the other more "
        "(time-mean over the 0.1 s before)",
        mv < mo,
        f"{victim} {mv:.1f}, {other} {mo:.1f} packets",
    )


FIG3 = Experiment(
    "lin1997-fig3",
    "Two identical connections through RED: one hit repeatedly until it times out (windows)",
    compute=_compute,
    plot=fig3_plot,
    compare=fig3_compare,
)
FIG4 = Experiment(
    "lin1997-fig4",
    "The same run: packets queued at the gateway per connection",
    compute=_compute,
    plot=fig4_plot,
    compare=fig4_compare,
)
