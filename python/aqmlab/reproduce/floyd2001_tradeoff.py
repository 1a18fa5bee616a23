"""Floyd, Gummadi & Shenker 2001, Figs. 1-5 (Section 3): the delay-utilization (Figs.
1-3) and delay-loss (Figs. 4-5) trade-offs of RED with w_q = 0.002, RED with w_q =
0.00026 and Adaptive RED on the 15 Mb/s dumbbell with N long-lived flows, web and
reverse-path traffic (``scenarios/floyd2001_fig1.toml``), each over (initial) max_p from
0.5 to 0.02; one 100 s run per cross, measured over its second half.

Three sweeps (``aqmlab.sweeps``, one per queue), flows x max_p each, shared by the five ids;
in full mode three more, the ns-2 cross-check's points with seeds 2-5 (the cross-check
compares means over seeds 1-5 with ns-2's over the same seeds).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from . import common, floyd2001_ns2
from .common import ScenarioDict, SweepRunner, simulate_normalized
from .context import Context
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SCENARIO = "floyd2001_fig1.toml"
LINK = "r1->r2"
REVERSE = "r2->r1"
MIN_TH, MAX_TH = 20.0, 80.0
BAND = (44.0, 56.0)
GROUPS = 5  # RTT groups: flow[0..4].count = N / 5

#: tag -> (figure title, queue table without max_p)
QUEUES: dict[str, tuple[str, dict[str, Any]]] = {
    "red_wq0002": (
        "RED, w_q = 0.002",
        {"type": "red", "limit": 200, "min_th": 20, "max_th": 80, "w_q": 0.002, "gentle": True},
    ),
    "red_wq000026": (
        "RED, w_q = 0.00026",
        {"type": "red", "limit": 200, "min_th": 20, "max_th": 80, "w_q": 0.00026, "gentle": True},
    ),
    "ared": (
        "Adaptive RED",
        {"type": "ared", "limit": 200, "min_th": 20, "max_th": 80, "gentle": True},
    ),
}


def settings(quick: bool) -> dict[str, Any]:
    """Numbers of flows, (initial) max_p values, run length and start of the window (s)."""
    if quick:
        return {"flows": [5, 20, 100], "max_p": [0.5, 0.1, 0.02], "duration": 40.0, "warmup": 20.0}
    return {
        "flows": [5, 10, 20, 40, 70, 100],
        "max_p": [0.5, 0.2, 0.1, 0.07, 0.04, 0.02],
        "duration": 100.0,
        "warmup": 50.0,
    }


def _point(sc: ScenarioDict) -> dict[str, Any]:
    """The simulator's summary plus ``drop_rate`` (drops / arrivals at the bottleneck over
    the window)."""
    res, _ = simulate_normalized(sc)
    summary = dict(res.summary)
    link = summary["links"][LINK]
    summary["drop_rate"] = link["drops"] / max(1, link["arrivals"])
    return summary


#: The ns-2 cross-check's points (``benchmarks/peers/ared2001.py`` runs them in ns-2) and
#: the seeds each is run with in both simulators (full mode only; seed 1 is the main
#: sweep's, the scenario's own).
NS2_FLOWS = (5, 20, 100)
NS2_MAX_P = (0.5, 0.1, 0.02)
NS2_SEEDS = (1, 2, 3, 4, 5)

#: The sweeps' runner (see :func:`_point`).
run_point = SweepRunner(_point, ref="aqmlab.reproduce.floyd2001_tradeoff:run_point", version=1)


def spec(tag: str, quick: bool) -> dict[str, Any]:
    """The sweep of one queue (`tag` of :data:`QUEUES`): flows x max_p."""
    s = settings(quick)
    base = run_point.base(SCENARIO)
    base["duration"], base["warmup"] = f"{s['duration']:g}s", f"{s['warmup']:g}s"
    base["link"][0]["queue"] = dict(QUEUES[tag][1], max_p=0.1)
    return {
        "name": f"floyd2001-{tag}",
        "base": base,
        "runner": run_point.ref,
        "metrics": [
            "drop_rate",
            f"links.{LINK}.utilization",
            f"links.{LINK}.mean_queue",
            f"links.{LINK}.mean_avg",
            f"links.{LINK}.drops",
            f"links.{LINK}.arrivals",
            f"links.{REVERSE}.utilization",
        ],
        "axis": [
            {
                "name": "flows",
                "paths": [f"flow[{i}].count" for i in range(GROUPS)],
                "values": [[n // GROUPS] * GROUPS for n in s["flows"]],
                "labels": list(s["flows"]),
            },
            {"name": "max_p", "path": "link[0].queue.max_p", "values": list(s["max_p"])},
        ],
    }


def seeds_spec(tag: str, quick: bool) -> dict[str, Any]:
    """The ns-2 cross-check's other seeds of one queue: :data:`NS2_FLOWS` x
    :data:`NS2_MAX_P` x the seeds of :data:`NS2_SEEDS` after the scenario's own (full
    mode's 100 s runs; `quick` is not used: the cross-check needs the full runs)."""
    sp = spec(tag, quick=False)
    sp["name"] = f"floyd2001-{tag}-seeds"
    sp["axis"] = [
        {
            "name": "flows",
            "paths": [f"flow[{i}].count" for i in range(GROUPS)],
            "values": [[n // GROUPS] * GROUPS for n in NS2_FLOWS],
            "labels": list(NS2_FLOWS),
        },
        {"name": "max_p", "path": "link[0].queue.max_p", "values": list(NS2_MAX_P)},
        {"path": "seed", "values": [s for s in NS2_SEEDS if s != sp["base"]["seed"]]},
    ]
    return sp


@dataclass
class Tradeoff:
    runs: pd.DataFrame  # queue, flows, max_p, utilization, mean_queue, mean_avg, drop_rate, ...
    #: The cross-check's points over :data:`NS2_SEEDS` (the same columns; full mode only).
    seeds: pd.DataFrame | None = None

    def of(self, tag: str) -> pd.DataFrame:
        return self.runs[self.runs["queue"] == tag]


COLUMNS = [
    "queue",
    "flows",
    "max_p",
    "seed",
    "utilization",
    "mean_queue",
    "mean_avg",
    "drop_rate",
    "drops",
    "arrivals",
    "reverse_utilization",
]


def _runs(ctx: Context, tag: str, make: Any, name: str) -> pd.DataFrame:
    """One sweep's rows with the columns named as :data:`COLUMNS` has them."""
    df = common.sweep(ctx, name, functools.partial(make, tag))
    df = df.rename(columns=lambda c: c.rsplit(".", 1)[-1] if c.startswith(f"links.{LINK}.") else c)
    df = df.rename(columns={f"links.{REVERSE}.utilization": "reverse_utilization"})
    return df.assign(queue=tag)[COLUMNS]


def _with_seeds(ctx: Context, runs: pd.DataFrame) -> pd.DataFrame:
    """The cross-check's points over :data:`NS2_SEEDS`: the main sweep's seed-1 rows and
    the seeds sweeps' rows (full mode)."""
    pts = runs[runs["flows"].isin(NS2_FLOWS) & runs["max_p"].isin(NS2_MAX_P)]
    more = [_runs(ctx, tag, seeds_spec, f"{tag}-seeds") for tag in QUEUES]
    return pd.concat([pts, *more], ignore_index=True)


def tradeoff_data(ctx: Context) -> Tradeoff:
    """The three sweeps (each computed once per group and stored beside the outputs), and
    in full mode the cross-check's seeds."""
    runs = pd.concat([_runs(ctx, tag, spec, tag) for tag in QUEUES], ignore_index=True)
    seeds = None if ctx.quick else _with_seeds(ctx, runs)
    s = settings(ctx.quick)
    ctx.assume(
        "Network and traffic as scenarios/floyd2001_fig1.toml states: five RTT groups (100-160 ms) of "
        "N/5 long-lived NewReno flows, five reverse long-lived flows, web traffic both ways "
        "(10 transfers/s, Pareto 12 packets), 1000-byte packets, buffer 200, the same queue both ways."
    )
    ctx.assume(
        f"N = {s['flows']}, (initial) max_p = {s['max_p']}; one run of {s['duration']:g} s per cross, "
        f"measured over {s['warmup']:g}-{s['duration']:g} s; Adaptive RED with min_th 20, max_th 80 "
        "and its automatic w_q (0.000267 at 15 Mb/s)."
    )
    ctx.assume(
        "x axis: the time-average queue at the bottleneck in packets (the queueing delay in packets); "
        "the target band [44, 56] is checked on the time average of RED's avg; loss = drops / "
        "arrivals at the bottleneck."
    )
    if seeds is not None:
        ctx.assume(
            f"ns-2 cross-check: N = {list(NS2_FLOWS)}, (initial) max_p = {list(NS2_MAX_P)}, each run "
            f"with seeds {NS2_SEEDS[0]}-{NS2_SEEDS[-1]} (the same workload per seed as ns-2's runs); "
            "the means over the seeds are compared, the plots show seed 1."
        )
        ctx.save_data(seeds, "seeds")
    ctx.save_data(runs, "runs")
    return Tradeoff(runs, seeds)


def _compute(ctx: Context) -> Tradeoff:
    return ctx.once(("floyd2001", "tradeoff"), lambda: tradeoff_data(ctx))


def box(d: Tradeoff) -> tuple[float, float, float, float]:
    """Fig. 3's region (x0, x1, y0, y1): the Adaptive RED runs' extent, padded a little."""
    a = d.of("ared")
    x0, x1 = float(a["mean_queue"].min()), float(a["mean_queue"].max())
    y0, y1 = float(a["utilization"].min()), float(a["utilization"].max())
    return x0 - 2, x1 + 2, y0 - 0.005, min(1.0, y1 + 0.005)


def _plot(d: Tradeoff, tag: str, y: str, fig_no: int, with_box: bool) -> dict[str, Figure]:
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle

    df = d.of(tag)
    fig, ax = plt.subplots(figsize=(7, 5))
    for k, (n, g) in enumerate(df.groupby("flows")):
        g = g.sort_values("max_p", ascending=False)  # 0.5 on the left ... 0.02 on the right
        ax.plot(g["mean_queue"], g[y], "-+", color=f"C{k}", ms=8, lw=1, label=f"{n} flows")
    if with_box:
        x0, x1, y0, y1 = box(d)
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, fill=False, ls="--", color="k", lw=1))
        ax.annotate("Fig. 3", (x1, y1), fontsize=8, ha="left", va="bottom")
    if tag == "ared":
        ax.axvspan(*BAND, color="C2", alpha=0.15, label="target [44, 56]")
    ax.set_xlabel("average queuing delay (packets), second half")
    ax.set_ylabel(
        "link utilization, second half" if y == "utilization" else "packet drop rate, second half"
    )
    kind = "Delay-Utilization" if y == "utilization" else "Delay-Loss"
    ax.set_title(f"Fig. {fig_no}: {kind} Tradeoff with {QUEUES[tag][0]}")
    ax.legend(fontsize=8)
    return {f"fig{fig_no}": fig}


def spearman(x: Any, y: Any) -> float:
    """Rank correlation of two sequences (nan if either is constant)."""
    from scipy.stats import spearmanr

    if (
        len(x) < 3
        or np.ptp(np.asarray(x, dtype=float)) == 0
        or np.ptp(np.asarray(y, dtype=float)) == 0
    ):
        return math.nan
    return float(spearmanr(x, y)[0])


NS2_METRICS = ("utilization", "mean_queue", "drop_rate")


def _seeds_text(seeds: list[int]) -> str:
    """``means of seeds 1-5`` (or of the seeds listed), ``seed 1`` for one."""
    if len(seeds) == 1:
        return f"seed {seeds[0]}"
    run = seeds == list(range(seeds[0], seeds[-1] + 1))
    return "means of seeds " + (f"{seeds[0]}-{seeds[-1]}" if run else ", ".join(map(str, seeds)))


def ns2_points(seeds: pd.DataFrame, ns: pd.DataFrame, tag: str) -> list[dict[str, Any]]:
    """The cross-check's points of queue `tag`: for each (N, max_p) that ns-2 ran, the
    mean of aqmlab's runs (`seeds`, rows of :attr:`Tradeoff.seeds`) beside the mean of
    ns-2's (`ns`, rows of floyd2001_ns2.csv) over the seeds of :data:`NS2_SEEDS` that ns-2
    ran there (all five in the committed file), and each one's seed-1 run. A point aqmlab
    has not run with each of those seeds is left out."""
    ns = ns[(ns["experiment"] == "fig1-3") & (ns["queue"] == tag) & ns["seed"].isin(NS2_SEEDS)]
    a = seeds[seeds["queue"] == tag]
    points = []
    for key, w in ns.groupby(["flows", "max_p"], sort=False):
        flows, max_p = cast(tuple[int, float], key)
        n, mp = int(flows), float(max_p)
        used = sorted(int(x) for x in set(w["seed"]))
        r = a[(a["flows"] == n) & (a["max_p"] == mp) & a["seed"].isin(used)]
        if sorted(r["seed"]) != used or len(w) != len(used):
            continue
        point = {
            "name": f"{_seeds_text(used)}, N={n}, max_p {mp:g}",
            "flows": n,
            "max_p": mp,
            "aqmlab": {m: float(r[m].mean()) for m in NS2_METRICS},
            "ns2": {m: float(w[m].mean()) for m in NS2_METRICS},
        }
        if len(used) > 1 and used[0] == NS2_SEEDS[0]:
            point["seed1"] = {
                "aqmlab": {m: float(r[r["seed"] == used[0]][m].iloc[0]) for m in NS2_METRICS},
                "ns2": {m: float(w[w["seed"] == used[0]][m].iloc[0]) for m in NS2_METRICS},
            }
        points.append(point)
    return sorted(points, key=lambda p: (p["flows"], -p["max_p"]))


def ns2_rows(ctx: Context, d: Tradeoff, tag: str) -> None:
    """aqmlab beside ns-2 (the committed runs of benchmarks/peers/ared2001.py): means over
    the seeds both ran at each point ns-2 ran; full mode only (ns-2 ran the 100 s runs)."""
    if ctx.quick or d.seeds is None:
        ctx.note("The ns-2 cross-check needs the full runs (100 s): not in quick mode.")
        return
    ns = floyd2001_ns2.load()
    if not len(ns):
        ctx.note("No ns-2 results found (floyd2001_ns2.csv): no cross-check.")
        return
    floyd2001_ns2.compare_points(ctx, "", ns2_points(d.seeds, ns, tag), NS2_METRICS)


def _red_claims(ctx: Context, d: Tradeoff, tag: str) -> None:
    """Figs. 1 and 2: lower queues with larger max_p, the utilization's dependence on N."""
    df = d.of(tag)
    rho: dict[Any, float] = {
        n: spearman(g["max_p"], g["mean_queue"]) for n, g in df.groupby("flows")
    }
    neg = [n for n, r in rho.items() if r < 0]
    ctx.compare.claim(
        "increasing max_p leads to lower queue lengths (rank correlation of max_p and the average "
        "queue < 0 for every N)",
        len(neg) == len(rho),
        ", ".join(f"N={n!s}: {r:.2f}" for n, r in rho.items()),
    )
    util = df.groupby("flows")["utilization"].mean()
    per_n = ", ".join(f"N={n}: {float(u):.3f}" for n, u in util.items())
    ctx.compare.claim(
        "poorer throughput with a larger number of long-lived flows (mean utilization over max_p, "
        "largest N below smallest N)",
        bool(util.iloc[-1] < util.iloc[0]),
        per_n,
    )
    for n, g in df.groupby("flows"):
        ctx.compare.not_reported(
            f"N={n}: utilization / average queue from max_p 0.5 to 0.02",
            "; ".join(
                f"{u:.3f}/{q:.0f}"
                for u, q in zip(
                    g.sort_values("max_p", ascending=False)["utilization"],
                    g.sort_values("max_p", ascending=False)["mean_queue"],
                )
            ),
        )


def fig1_compare(ctx: Context, d: Tradeoff) -> None:
    df = d.of("red_wq0002")
    nmax, nmin = df["flows"].max(), df["flows"].min()
    ctx.compare.value(
        f"largest drop rate (N={nmax}; paper: 'up to 8% for the simulations with 100 flows')",
        0.08,
        float(df[df["flows"] == nmax]["drop_rate"].max()),
        0.25,
        relative=True,
    )
    ctx.compare.value(
        f"drop rate with N={nmin} (paper: 'close to zero'; largest over max_p)",
        0.0,
        float(df[df["flows"] == nmin]["drop_rate"].max()),
        0.005,
    )
    big = df[df["flows"] == nmax].sort_values("max_p")
    low, best = float(big["utilization"].iloc[0]), float(big["utilization"].max())
    ctx.compare.claim(
        f"a downturn in utilization for low max_p (N={nmax}: utilization at the smallest max_p at "
        "least half a point below the best)",
        low < best - 0.005,
        f"{low:.3f} at max_p {big['max_p'].iloc[0]:g} vs best {best:.3f}",
    )
    _red_claims(ctx, d, "red_wq0002")
    ns2_rows(ctx, d, "red_wq0002")


def fig2_compare(ctx: Context, d: Tradeoff) -> None:
    df = d.of("red_wq000026")
    ctx.compare.claim(
        "the average queue size sometimes exceeds max_th = 80 (the largest time-average of avg over "
        "the runs)",
        float(df["mean_avg"].max()) > MAX_TH,
        f"largest mean avg {df['mean_avg'].max():.1f}",
    )
    one = d.of("red_wq0002")
    u1 = one.groupby("flows")["utilization"].max()
    u2 = df.groupby("flows")["utilization"].max()
    better = [n for n in u2.index if u2[n] >= u1[n]]
    ctx.compare.claim(
        "RED performs better with w_q = 0.00026 than with 0.002 (best utilization over max_p at least "
        "as high, for every N)",
        len(better) == len(u2),
        ", ".join(f"N={n}: {u2[n]:.3f} vs {u1[n]:.3f}" for n in u2.index),
    )
    spread = df.groupby("flows")["mean_queue"].agg(lambda s: s.max() - s.min())
    ctx.compare.claim(
        "the average queue is still a function of max_p (its range over max_p exceeds 10 packets for "
        "every N of 20 or more)",
        bool((spread[spread.index >= 20] > 10).all()),
        ", ".join(f"N={n}: {v:.0f}" for n, v in spread.items()),
    )
    _red_claims(ctx, d, "red_wq000026")
    ns2_rows(ctx, d, "red_wq000026")


def _equivalent_max_p(d: Tradeoff, n: int) -> float:
    """The RED (w_q 0.00026) max_p whose average queue is closest to Adaptive RED's (mean over
    its initial max_p), for N flows."""
    a = d.of("ared")
    r = d.of("red_wq000026")
    q = float(a[a["flows"] == n]["mean_queue"].mean())
    rr = r[r["flows"] == n]
    return float(rr.loc[(rr["mean_queue"] - q).abs().idxmin(), "max_p"])


def fig3_compare(ctx: Context, d: Tradeoff) -> None:
    a = d.of("ared")
    nmin, nmax = int(a["flows"].min()), int(a["flows"].max())
    many = a[a["flows"] > nmin]
    inside = many["mean_avg"].between(*BAND)
    ctx.compare.claim(
        f"Adaptive RED's average queue lies in the target [44, 56] in every run with more than {nmin} flows",
        bool(inside.all()),
        f"{int(inside.sum())} of {len(many)} runs; mean avg {many['mean_avg'].min():.1f}-{many['mean_avg'].max():.1f}",
    )
    few = a[a["flows"] == nmin]
    ctx.compare.claim(
        f"the runs with {nmin} flows have a smaller average queue (below the band)",
        bool((few["mean_avg"] < BAND[0]).all()),
        f"mean avg {few['mean_avg'].min():.1f}-{few['mean_avg'].max():.1f}",
    )
    ctx.compare.value(
        f"Adaptive RED: lowest utilization (N={nmax}; paper: 'from 98% upwards')",
        0.98,
        float(a[a["flows"] == nmax]["utilization"].min()),
        0.01,
    )
    ctx.compare.value(
        f"Adaptive RED: utilization with N={nmin} (paper: 100%; lowest over initial max_p)",
        1.0,
        float(few["utilization"].min()),
        0.01,
    )
    spread_q = a.groupby("flows")["mean_avg"].agg(lambda s: s.max() - s.min())
    spread_u = a.groupby("flows")["utilization"].agg(lambda s: s.max() - s.min())
    ctx.compare.claim(
        "results essentially independent of the initial max_p (for each N the average queue spreads "
        "less than the band's 12 packets and the utilization less than one point)",
        bool((spread_q < 12).all() and (spread_u < 0.01).all()),
        "; ".join(
            f"N={n}: {spread_q[n]:.1f} pkts, {spread_u[n] * 100:.2f} pts" for n in spread_q.index
        ),
    )
    for n, paper in ((20, 0.07), (100, 0.2)):
        if n in set(a["flows"]):
            ctx.compare.value(
                f"N={n}: max_p of non-adaptive RED (w_q 0.00026) with Adaptive RED's average queue "
                "(nearest on the grid)",
                paper,
                _equivalent_max_p(d, n),
                0.5,
                relative=True,
            )
    ns2_rows(ctx, d, "ared")


def fig4_compare(ctx: Context, d: Tradeoff) -> None:
    r, a = d.of("red_wq000026"), d.of("ared")
    ratio = a.groupby("flows")["drop_rate"].mean() / r.groupby("flows")["drop_rate"].median()
    big = ratio[ratio.index >= 20]
    ctx.compare.claim(
        "RED and Adaptive RED have roughly the same drop rates for a given N (Adaptive RED's mean over "
        "initial max_p within 30% of RED's median over max_p, N >= 20)",
        bool(((big > 0.7) & (big < 1.3)).all()),
        ", ".join(f"N={n}: {v:.2f}" for n, v in ratio.items()),
    )
    nmax = int(r["flows"].max())
    rr = r[r["flows"] == nmax]
    worst = float(rr.loc[rr["mean_avg"].idxmax(), "drop_rate"])
    ared = float(a[a["flows"] == nmax]["drop_rate"].mean())
    ctx.compare.claim(
        f"RED incurs a higher loss when its average is near max_th (N={nmax}: the run with the largest "
        "average loses more than Adaptive RED)",
        worst > ared,
        f"RED {worst:.4f} at mean avg {rr['mean_avg'].max():.0f} vs Adaptive RED {ared:.4f}",
    )
    for n, g in r.groupby("flows"):
        ctx.compare.not_reported(
            f"RED N={n}: drop rate from max_p 0.5 to 0.02",
            "; ".join(f"{v:.4f}" for v in g.sort_values("max_p", ascending=False)["drop_rate"]),
        )


def fig5_compare(ctx: Context, d: Tradeoff) -> None:
    a = d.of("ared")
    spread = a.groupby("flows")["drop_rate"].agg(["min", "max"])
    ctx.compare.claim(
        "Adaptive RED's drop rate for a given N hardly depends on the initial max_p (max/min < 1.3 "
        "where the drop rate exceeds 0.1%)",
        bool(
            (
                (spread["max"] / spread["min"].clip(lower=1e-12) < 1.3) | (spread["max"] < 0.001)
            ).all()
        ),
        ", ".join(f"N={n}: {r['min']:.4f}-{r['max']:.4f}" for n, r in spread.iterrows()),
    )


def _exp(
    fig_no: int, tag: str, y: str, with_box: bool, compare: Any, title: str
) -> Experiment[Tradeoff]:
    return Experiment(
        f"floyd2001-fig{fig_no}",
        title,
        compute=_compute,
        plot=functools.partial(_plot, tag=tag, y=y, fig_no=fig_no, with_box=with_box),
        compare=compare,
    )


FIG1 = _exp(
    1,
    "red_wq0002",
    "utilization",
    True,
    fig1_compare,
    "Delay-utilization tradeoff with RED, w_q = 0.002",
)
FIG2 = _exp(
    2,
    "red_wq000026",
    "utilization",
    True,
    fig2_compare,
    "Delay-utilization tradeoff with RED, w_q = 0.00026",
)
FIG3 = _exp(
    3, "ared", "utilization", False, fig3_compare, "Delay-utilization tradeoff with Adaptive RED"
)
FIG4 = _exp(
    4,
    "red_wq000026",
    "drop_rate",
    False,
    fig4_compare,
    "Delay-loss tradeoff with RED, w_q = 0.00026",
)
FIG5 = _exp(5, "ared", "drop_rate", False, fig5_compare, "Delay-loss tradeoff with Adaptive RED")
