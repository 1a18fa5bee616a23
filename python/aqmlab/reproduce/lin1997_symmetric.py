"""Lin & Morris 1997, Section 3.2 (Figs. 3-4): two identical TCP connections through RED;
a run in which RED hits one connection repeatedly until it times out, found by searching
seeds as the paper did, and how often that happens."""

from __future__ import annotations

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

__all__ = ["PAPER", "FIG3", "FIG4"]

LINK = "gw->sink"
#: The span the figures show before the victim stalls (the paper's chart shows 0.1 s).
SPAN = 0.1


#: Seeds searched (quick mode stops at the first run with the event, or after 40).
SEEDS = range(1, 101)


def candidates(cw: pd.DataFrame, drops: pd.DataFrame, n_flows: int = 2) -> list[dict[str, Any]]:
    """Every timeout of the run, with what happened before the victim stalled since the
    other connection's last loss: the victim's drop episodes at the gateway (drops
    EPISODE_GAP apart or more: separate recoveries), whether the other connection kept
    sending, and ``event``: the paper's case -- the other connection increasing its
    window in congestion avoidance (no loss, an ACK in every SLICE) while RED hits the
    victim in at least two separate recoveries until it times out.

    `cw` is the cwnd trace (time, flow, cwnd), `drops` the gateway's drops (time, flow).
    A timeout is a fall of cwnd to 1 from above; the stall starts at the victim's last
    window change before it (the retransmission timer runs from there)."""
    flows = list(range(n_flows))
    times: dict[int, np.ndarray] = {}
    events: dict[int, list[Any]] = {}
    for f in flows:
        g = cw[cw["flow"] == f].sort_values("time", kind="stable")
        t = g["time"].to_numpy()
        c = g["cwnd"].to_numpy()
        times[f] = t
        fell = np.nonzero((c[1:] <= 1) & (c[:-1] > 1))[0] + 1
        events[f] = [(t[i], t[i - 1]) for i in fell]
    lost = {f: np.sort(drops[drops["flow"] == f]["time"].to_numpy()) for f in flows}
    out = []
    for f in flows:
        for tt, stall in events[f]:
            others = [o for o in flows if o != f]
            last = [lost[o][lost[o] <= stall] for o in others]
            t0 = max(
                [x[-1] for x in last if len(x)]
                + [max(times[o][0] if len(times[o]) else np.inf for o in others)]
            )
            mine = lost[f][(lost[f] > t0) & (lost[f] <= stall)]
            episodes = int(len(mine) and 1 + np.sum(np.diff(mine) >= EPISODE_GAP))
            sending = t0 < stall and all(_acked_throughout(times[o], t0, stall) for o in others)
            out.append(
                {
                    "flow": int(f),
                    "time": float(tt),
                    "stall": float(stall),
                    "since": float(t0),
                    "drops": int(len(mine)),
                    "episodes": episodes,
                    "other_sending": bool(sending),
                    "event": bool(episodes >= 2 and sending),
                }
            )
    return sorted(out, key=lambda c: c["time"])


def find_event(cw: pd.DataFrame, drops: pd.DataFrame, n_flows: int = 2) -> dict[str, Any] | None:
    """The first timeout that is the paper's case (see :func:`candidates`), or None."""
    return next((c for c in candidates(cw, drops, n_flows) if c["event"]), None)


#: The other connection must see its window move (an ACK) in every slice this long.
SLICE = 0.01
#: Drops of the victim this far apart (s) or more are separate recoveries (the round
#: trip is about 1-2 ms here).
EPISODE_GAP = 0.005


def _acked_throughout(t: np.ndarray, t0: float, t1: float) -> bool:
    """Whether window changes fall in every SLICE of [t0, t1) (an ACK clock running)."""
    edges = np.append(np.arange(t0, t1, SLICE), t1)
    h, _ = np.histogram(t, bins=edges)
    return bool(len(h) and (h > 0).all())


def _run(seed: int) -> Any:
    sc = scenario_dict("lin1997_fig2.toml")
    sc["seed"] = seed
    sc["trace"] = {"cwnd": True, "packets": [LINK]}
    return simulate(Scenario.from_dict(sc), progress=False)


def _drops(res: Any) -> pd.DataFrame:
    pk = res.traces["packets"]
    return pk[(pk["link"] == LINK) & (pk["event"] == "x") & (pk["ack"] == 0)][["time", "flow"]]


@dataclass
class Search:
    seeds: list[int]
    found: pd.DataFrame  # the timeouts that are the paper's event (columns of candidates())
    any_timeout: int  # runs in which some connection timed out
    seed: int | None  # the run plotted
    event: dict[str, Any] | None
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
    seeds = list(SEEDS)[:40] if ctx.quick else list(SEEDS)
    ctx.assume(
        "Network of Fig. 2 as scenarios/lin1997_fig2.toml states; starts uniform on [0, 0.1] s, "
        f"2 s runs, seeds {seeds[0]}-{seeds[-1]} searched"
        + (" until the first run with the event (quick mode)." if ctx.quick else ".")
    )
    ctx.assume(
        "The event: a connection times out after RED dropped its packets in at least two "
        f"separate recoveries (drops {EPISODE_GAP * 1e3:g} ms or more apart) since the other "
        "connection's last loss, while the other kept sending (its window moved in every "
        f"{SLICE * 1e3:g} ms): the paper's Fig. 3, where connection 1 increases its window in "
        "congestion avoidance while connection 2 is hit repeatedly until its timeout."
    )
    rows = []
    any_to = 0
    searched = []
    for s in seeds:
        res = _run(s)
        searched.append(s)
        any_to += int((res.flows["timeouts"] > 0).any())
        rows += [dict(seed=s, **c) for c in candidates(res.traces["cwnd"], _drops(res))]
        if ctx.quick and any(r["event"] for r in rows):
            break
    seeds = searched
    cols = ["seed", "flow", "time", "stall", "since", "drops", "episodes", "other_sending", "event"]
    timeouts = pd.DataFrame(rows, columns=cols)
    ctx.save_data(timeouts, "timeouts")
    found = timeouts[timeouts["event"].astype(bool)]
    if len(found):  # the clearest case: most recoveries of the victim (then the first seed)
        first = found.sort_values(
            ["episodes", "seed"], ascending=[False, True], kind="stable"
        ).iloc[0]
    elif len(timeouts):  # the closest: the other kept sending and lost least, the victim most
        ranked = timeouts.sort_values(
            ["other_sending", "episodes", "drops", "seed"],
            ascending=[False, False, False, True],
            kind="stable",
        )
        first = ranked.iloc[0]
        ctx.note(
            f"No run of seeds {seeds[0]}-{seeds[-1]} has the paper's event; the figures show the "
            f"closest (seed {int(first['seed'])}: {int(first['episodes'])} recoveries of the "
            "victim since the other's last loss)."
        )
    else:
        return Search(seeds, found, any_to, None, None, pd.DataFrame(), pd.DataFrame())
    res = _run(int(first["seed"]))
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


def _closest(d: Search) -> str:
    return "" if d.event is None or d.event["event"] else ", the closest run"


def fig3_plot(d: Search) -> dict[str, Figure]:
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
    ax.set_title(
        f"Fig. 3: congestion windows of two identical connections (seed {d.seed}{_closest(d)})"
    )
    ax.legend()
    return {"fig3": fig}


def fig4_plot(d: Search) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    if d.queued.empty:
        ax.text(0.5, 0.5, f"no run with the event in seeds 1-{len(d.seeds)}", ha="center")
    for c in d.queued.columns[1:]:
        ax.step(d.queued["time"], d.queued[c], where="post", label=f"{c}: packets at the gateway")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("packets")
    ax.set_title(
        f"Fig. 4: packets queued at the gateway per connection (seed {d.seed}{_closest(d)})"
    )
    ax.legend()
    return {"fig4": fig}


def fig3_compare(ctx: Context, d: Search) -> None:
    n = len(d.seeds)
    k = int(d.found["seed"].nunique())
    ctx.compare.claim(
        "a run exists where RED hits one connection repeatedly until it times out",
        k > 0,
        f"{k} of {n} runs (seeds {', '.join(str(x) for x in sorted(set(d.found['seed'])))}; "
        f"shown: seed {d.seed})"
        if k
        else f"none in {n} runs",
    )
    if ctx.quick:
        ctx.compare.not_reported("runs searched until the first with the event", n, "1 in 20-50")
    else:
        ctx.compare.claim(
            "it happens in a small percentage of runs, yet one is found within 20 to 50 runs "
            "(share of runs between 1/50 and 1/2)",
            1 / 50 <= k / n <= 0.5,
            f"{k / n:.3f}",
            paper="small percentage; 1 in 20-50",
        )
    ctx.compare.not_reported("share of runs in which some connection times out", d.any_timeout / n)
    if d.event:
        which = "the run shown" if d.event["event"] else "the closest run shown (not the event)"
        ctx.compare.not_reported(
            f"{which}: the victim's drop episodes (recoveries) since the other's last loss",
            int(d.event["episodes"]),
        )
        ctx.compare.not_reported(
            f"{which}: the victim's packets dropped then", int(d.event["drops"])
        )


def fig4_compare(ctx: Context, d: Search) -> None:
    if d.event is None or d.queued.empty:
        ctx.compare.claim(
            "the victim has few packets queued before its timeout", False, "no run found"
        )
        return
    t0, t = d.event["since"], d.event["stall"]
    victim = f"conn{int(d.event['flow']) + 1}"
    other = [c for c in d.queued.columns[1:] if c != victim][0]
    before = d.queued[(d.queued["time"] >= t0) & (d.queued["time"] < t)]
    mv, mo = float(before[victim].mean()), float(before[other].mean())
    ctx.compare.claim(
        "the victim has relatively few packets queued before its timeout, the other more "
        "(mean over the arrivals and departures since the other's last loss)",
        mv < mo,
        f"{victim} {mv:.1f}, {other} {mo:.1f} packets"
        + ("" if d.event["event"] else " (in the closest run: no run had the event)"),
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
