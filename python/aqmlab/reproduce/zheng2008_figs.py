"""Zheng & Atiquzzaman 2008, Section 5: Figs. 4-16, RED at w = 0.05 against 0.0042
(Figs. 4-10) and at w = 0.045 and 0.071 against 0.002 (Figs. 11-16) on the paper's
network: queue, drops (early against forced), per-server load, queueing delay,
normalized throughput; and, under Fig. 16, the study over seeds, start times and TCP
variants of whether the paper's claims hold in aqmlab."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable

import pandas as pd

from .context import Context
from .registry import Experiment
from .zheng2008_runs import SERVERS, W_FIRST, W_SECOND, Run, paper_runs, study

if TYPE_CHECKING:
    from matplotlib.figure import Figure

INSIDE = (0.05, 0.045, 0.071)  # w inside the paper's bounds
OUTSIDE = (0.0042, 0.002)  # w of Floyd & Jacobson 1993 and Floyd 1997


@dataclass
class Figs:
    runs: dict[float, Run]


def _assume(ctx: Context) -> None:
    ctx.assume(
        "Network of Fig. 3 as scenarios/zheng2008.toml states: three servers on 100 Mb/s links "
        "(1, 5, 3 ms) to a RED gateway (buffer 50, K_l = 5, K_h = 15, max_drop = 0.1), 10 Mb/s 5 ms "
        "to the client, 100 s. Not in the paper: 1500-byte packets (the 1 ms per packet "
        "processing is then faster than the 1.2 ms line and not modelled), TCP Reno with a 64 KB "
        "receiver window (43 packets), no delayed ACKs, all servers starting at 0 s, seed 1."
    )
    ctx.assume(
        "Drop kinds from the queue sample of the dropped arrival: overflow (buffer full), forced "
        "(avg >= K_h), early (RED's random drop); the totals are the link summary's counters. "
        "Global synchronization: the time all three servers send nothing at once (100 ms bins "
        "after the first second: the paper's 'back off (no transmission of data) "
        "simultaneously'), and the share of loss episodes (drops < 100 ms apart) that hit all "
        "three."
    )


def _runs(ctx: Context) -> Figs:
    _assume(ctx)
    runs = ctx.once("zheng2008-runs", lambda: paper_runs(W_FIRST + W_SECOND))
    ctx.save_data(pd.DataFrame([r.stats for r in runs.values()]), "runs")
    return Figs(runs)


def _thin(df: pd.DataFrame, every: float = 0.02) -> pd.DataFrame:
    """One row per `every` seconds (the last of each), to keep data files small."""
    return df.groupby((df["time"] // every).astype(int)).tail(1)


def _fmt(runs: dict[float, Run], ws: Sequence[float], key: str, f: str = "{:.3g}") -> str:
    return ", ".join(f"w={w:g}: " + f.format(runs[w].stats[key]) for w in ws)


# ------------------------------------------------------------------ plots


def _queue_plot(ws: Sequence[float], title: str, name: str, d: Figs) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(ws), 1, figsize=(9, 2.2 * len(ws)), sharex=True, sharey=True)
    for ax, w in zip(axes, ws):
        q = d.runs[w].queue
        ax.plot(q["time"], q["queue"], lw=0.4, label=f"queue, w = {w:g}")
        ax.plot(q["time"], q["avg"], "r", lw=0.8, label="average")
        ax.axhline(5, color="k", ls=":", lw=0.6)
        ax.axhline(15, color="k", ls=":", lw=0.6)
        ax.set_ylabel("packets")
        ax.legend(loc="upper right", fontsize=8)
    axes[0].set_title(title)
    axes[-1].set_xlabel("time (s)")
    return {name: fig}


def _drops_plot(ws: Sequence[float], title: str, name: str, d: Figs) -> dict[str, Figure]:
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(len(ws), 1, figsize=(9, 2.2 * len(ws)), sharex=True, sharey=True)
    edges = np.arange(0, 101, 1.0)
    for ax, w in zip(axes, ws):
        dr = d.runs[w].drops
        for kind, color in (("early", "C0"), ("forced", "C1"), ("overflow", "C3")):
            h, _ = np.histogram(dr[dr["kind"] == kind]["time"], bins=edges)
            ax.step(edges[:-1], h, where="post", color=color, lw=0.8, label=f"{kind}")
        ax.set_ylabel(f"drops/s, w = {w:g}")
        ax.legend(loc="upper right", fontsize=8)
    axes[0].set_title(title)
    axes[-1].set_xlabel("time (s)")
    return {name: fig}


def _load_plot(w: float, title: str, name: str, d: Figs) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    ld = d.runs[w].load
    fig, axes = plt.subplots(3, 1, figsize=(9, 6), sharex=True, sharey=True)
    for ax, s in zip(axes, SERVERS):
        ax.plot(ld["time"], ld[s], lw=0.5)
        ax.set_ylabel(f"{s} (Mb/s)")
    axes[0].set_title(title)
    axes[-1].set_xlabel("time (s)")
    return {name: fig}


def _delay_plot(ws: Sequence[float], title: str, name: str, d: Figs) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 3.5))
    for w in ws:
        dl = d.runs[w].delay
        ax.plot(dl["time"], dl["delay"] * 1e3, lw=0.4, label=f"w = {w:g}")
    ax.set_ylabel("queueing delay (ms)")
    ax.set_xlabel("time (s)")
    ax.set_title(title)
    ax.legend(loc="upper right")
    return {name: fig}


def _throughput_plot(w: float, title: str, name: str, d: Figs) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    t = d.runs[w].throughput
    fig, ax = plt.subplots(figsize=(9, 3))
    ax.plot(t["time"], t["normalized"], lw=0.8)
    ax.set_ylim(0, 1.05)
    ax.set_ylabel("normalized throughput")
    ax.set_xlabel("time (s)")
    ax.set_title(title)
    return {name: fig}


# ------------------------------------------------------------------ comparisons


def _less(
    ctx: Context, d: Figs, what: str, key: str, small: Sequence[float], big: Sequence[float]
) -> None:
    r = d.runs
    holds = max(r[w].stats[key] for w in small) < min(r[w].stats[key] for w in big)
    ctx.compare.claim(
        f"{what} smaller with w = {', '.join(f'{w:g}' for w in small)} than with "
        f"w = {', '.join(f'{w:g}' for w in big)}",
        holds,
        _fmt(r, tuple(small) + tuple(big), key),
    )


def _drops_compare(ctx: Context, d: Figs, inside: Sequence[float], outside: float) -> None:
    r = d.runs
    _less(ctx, d, "number of drops", "drops", [outside], inside)
    for w in inside:
        s = r[w].stats
        ctx.compare.claim(
            f"w = {w:g}: drops are active (early) drops, not buffer overflows (early > half)",
            s["early_drops"] > 0.5 * s["drops"],
            f"{s['early_drops']:.0f} early, {s['forced_drops']:.0f} forced "
            f"({s['overflow_drops']:.0f} overflows) of {s['drops']:.0f}",
        )
    s = r[outside].stats
    ctx.compare.claim(
        f"w = {outside:g}: drops are predominantly tail (forced) drops (forced > half)",
        s["forced_drops"] > 0.5 * s["drops"],
        f"{s['early_drops']:.0f} early, {s['forced_drops']:.0f} forced "
        f"({s['overflow_drops']:.0f} overflows) of {s['drops']:.0f}",
    )


def _drops_cmp(inside: Sequence[float], outside: float, ctx: Context, d: Figs) -> None:
    _drops_compare(ctx, d, inside, outside)


def _sync_cmp(w: float, synchronized: bool, ctx: Context, d: Figs) -> None:
    _sync_compare(ctx, d, w, synchronized)


def _sync_compare(ctx: Context, d: Figs, w: float, synchronized: bool) -> None:
    s = d.runs[w].stats
    text = (
        f"all three silent {s['silent_all_s']:.1f} s in {s['silences']:.0f} spells; "
        f"{s['episodes_hitting_all']:.0f} of {s['loss_episodes']:.0f} loss episodes hit all three"
    )
    if synchronized:
        ctx.compare.claim(
            f"w = {w:g}: global synchronization: the three servers back off simultaneously "
            "(all silent at once for some time)",
            s["silent_all_s"] > 0,
            text,
        )
    else:
        ctx.compare.claim(
            f"w = {w:g}: no global synchronization (never all three silent at once)",
            s["silent_all_s"] == 0,
            text,
        )
    other = OUTSIDE if not synchronized else INSIDE
    shares = {x: d.runs[x].stats["share_episodes_all"] for x in (w,) + tuple(other)}
    if synchronized:
        holds = shares[w] > max(shares[x] for x in other)
        what = f"larger than at every w inside the bounds ({', '.join(f'{x:g}' for x in other)})"
    else:
        holds = shares[w] < min(shares[x] for x in other)
        what = f"smaller than at w = {', '.join(f'{x:g}' for x in other)}"
    ctx.compare.claim(
        f"w = {w:g}: share of loss episodes that hit all three servers (synchronized losses) "
        + what,
        holds,
        ", ".join(f"w={x:g}: {v:.2f}" for x, v in shares.items()),
    )
    ctx.compare.not_reported(
        f"w = {w:g}: mean pairwise correlation of the servers' loads (1 s bins)",
        s["load_correlation"],
    )
    ctx.compare.not_reported(f"w = {w:g}: link utilization", s["utilization"])


def _exp(
    n: int,
    title: str,
    plot: Callable[[Figs], dict[str, Figure]],
    compare: Callable[[Context, Figs], None],
) -> Experiment[Figs]:
    return Experiment(f"zheng2008-fig{n}", title, compute=_runs, plot=plot, compare=compare)


def _fig4_compare(ctx: Context, d: Figs) -> None:
    _less(ctx, d, "mean queue", "mean_queue", [0.05], [0.0042])
    _less(ctx, d, "queue variation (standard deviation)", "queue_sd", [0.05], [0.0042])
    ctx.save_data(_thin(d.runs[0.05].queue), "queue_w0.05")
    ctx.save_data(_thin(d.runs[0.0042].queue), "queue_w0.0042")


def _fig8_compare(ctx: Context, d: Figs) -> None:
    _less(ctx, d, "mean queueing delay", "mean_delay", [0.05], [0.0042])
    _less(ctx, d, "delay variation (jitter, standard deviation)", "delay_sd", [0.05], [0.0042])


def _fig10_compare(ctx: Context, d: Figs) -> None:
    _less(ctx, d, "normalized throughput", "normalized_throughput", [0.05], [0.0042])


def _fig9_compare(ctx: Context, d: Figs) -> None:
    ctx.compare.not_reported(
        "w = 0.05: normalized throughput over 100 s", d.runs[0.05].stats["normalized_throughput"]
    )
    ctx.save_data(d.runs[0.05].throughput, "throughput_w0.05")


def _fig11_compare(ctx: Context, d: Figs) -> None:
    _less(ctx, d, "mean queue", "mean_queue", [0.045, 0.071], [0.002])


def _fig16_compare(ctx: Context, d: Figs) -> None:
    _less(ctx, d, "mean queueing delay", "mean_delay", [0.045, 0.071], [0.002])
    _study_compare(ctx)


FIG4 = _exp(
    4,
    "Instantaneous queue at the RED gateway, w = 0.05 and 0.0042",
    partial(_queue_plot, W_FIRST, "Fig. 4: queue size, w = 0.05 and 0.0042", "fig4"),
    _fig4_compare,
)
FIG5 = _exp(
    5,
    "Packet drops at the RED gateway (early vs forced), w = 0.05 and 0.0042",
    partial(_drops_plot, W_FIRST, "Fig. 5: packet drops, w = 0.05 and 0.0042", "fig5"),
    partial(_drops_cmp, [0.05], 0.0042),
)
FIG6 = _exp(
    6,
    "TCP load at the three servers, w = 0.0042 (global synchronization)",
    partial(_load_plot, 0.0042, "Fig. 6: TCP load at the three servers, w = 0.0042", "fig6"),
    partial(_sync_cmp, 0.0042, True),
)
FIG7 = _exp(
    7,
    "TCP load at the three servers, w = 0.05 (no global synchronization)",
    partial(_load_plot, 0.05, "Fig. 7: TCP load at the three servers, w = 0.05", "fig7"),
    partial(_sync_cmp, 0.05, False),
)
FIG8 = _exp(
    8,
    "Queueing delay at the RED gateway, w = 0.05 and 0.0042",
    partial(_delay_plot, W_FIRST, "Fig. 8: queueing delay, w = 0.05 and 0.0042", "fig8"),
    _fig8_compare,
)
FIG9 = _exp(
    9,
    "Normalized end-to-end throughput, w = 0.05",
    partial(_throughput_plot, 0.05, "Fig. 9: normalized throughput, w = 0.05", "fig9"),
    _fig9_compare,
)
FIG10 = _exp(
    10,
    "Normalized end-to-end throughput, w = 0.0042",
    partial(_throughput_plot, 0.0042, "Fig. 10: normalized throughput, w = 0.0042", "fig10"),
    _fig10_compare,
)
FIG11 = _exp(
    11,
    "Instantaneous queue, w = 0.045, 0.071 and 0.002",
    partial(_queue_plot, W_SECOND, "Fig. 11: queue size, w = 0.045, 0.071 and 0.002", "fig11"),
    _fig11_compare,
)
FIG12 = _exp(
    12,
    "Packet drops (early vs forced), w = 0.045, 0.071 and 0.002",
    partial(_drops_plot, W_SECOND, "Fig. 12: packet drops, w = 0.045, 0.071 and 0.002", "fig12"),
    partial(_drops_cmp, [0.045, 0.071], 0.002),
)
FIG13 = _exp(
    13,
    "TCP load at the three servers, w = 0.002 (global synchronization)",
    partial(_load_plot, 0.002, "Fig. 13: TCP load at the three servers, w = 0.002", "fig13"),
    partial(_sync_cmp, 0.002, True),
)
FIG14 = _exp(
    14,
    "TCP load at the three servers, w = 0.045 (no global synchronization)",
    partial(_load_plot, 0.045, "Fig. 14: TCP load at the three servers, w = 0.045", "fig14"),
    partial(_sync_cmp, 0.045, False),
)
FIG15 = _exp(
    15,
    "TCP load at the three servers, w = 0.071 (no global synchronization)",
    partial(_load_plot, 0.071, "Fig. 15: TCP load at the three servers, w = 0.071", "fig15"),
    partial(_sync_cmp, 0.071, False),
)
FIG16 = _exp(
    16,
    "Queueing delay, w = 0.045, 0.071 and 0.002; the study over seeds, starts and TCP variants",
    partial(_delay_plot, W_SECOND, "Fig. 16: queueing delay, w = 0.045, 0.071 and 0.002", "fig16"),
    _fig16_compare,
)

FIGS = (FIG4, FIG5, FIG6, FIG7, FIG8, FIG9, FIG10, FIG11, FIG12, FIG13, FIG14, FIG15, FIG16)


# ------------------------------------------------------------------ the study


def study_seeds(quick: bool) -> list[int]:
    """Seeds of the study (one in quick mode)."""
    return [1] if quick else [1, 2, 3, 4]


def study_ws(quick: bool) -> tuple[float, ...]:
    """The w of the study: all five, or one inside and one outside in quick mode."""
    return (0.05, 0.0042) if quick else W_FIRST + W_SECOND


def _study_claims(df: pd.DataFrame, inside: list[float], outside: list[float]) -> pd.DataFrame:
    """One row per run of the study (variant, start, seed): whether each claim holds."""
    rows = []
    for (variant, start, seed), g in df.groupby(["variant", "start", "seed"]):
        by = g.set_index("w")
        rows.append(
            {
                "variant": variant,
                "start": start,
                "seed": seed,
                "lower_delay": max(by.loc[w, "mean_delay"] for w in inside)
                < min(by.loc[w, "mean_delay"] for w in outside),
                "no_sync_inside": all(by.loc[w, "silent_all_s"] == 0 for w in inside),
                "sync_outside": all(by.loc[w, "silent_all_s"] > 0 for w in outside),
                "fewer_sync_losses": max(by.loc[w, "share_episodes_all"] for w in inside)
                < min(by.loc[w, "share_episodes_all"] for w in outside),
            }
        )
    return pd.DataFrame(rows)


def _study_compare(ctx: Context) -> None:
    """Do the paper's claims hold over seeds, start times and TCP variants? For each
    condition: the share of runs in which every inside w has a lower mean delay than
    both outside w, and the share without synchronization inside / with it outside."""
    seeds = study_seeds(ctx.quick)
    ctx.assume(
        f"Study: w = {', '.join(f'{w:g}' for w in study_ws(ctx.quick))} under TCP Reno and NewReno, all servers starting at 0 s or at times "
        f"uniform on [0, 2] s, seeds {seeds[0]}-{seeds[-1]} (the seed draws RED's random "
        "numbers and the start times)."
    )
    ws = study_ws(ctx.quick)
    inside = [w for w in ws if w in INSIDE]
    outside = [w for w in ws if w in OUTSIDE]
    df = study(ws, seeds)
    ctx.save_data(df, "study")
    per = _study_claims(df, inside, outside)
    ctx.save_data(per, "study_claims")
    for (variant, start), g in per.groupby(["variant", "start"]):
        cond = f"{variant}, {start} starts, {len(g)} seeds"
        ctx.compare.not_reported(
            f"{cond}: share of runs where every w inside the bounds has a lower mean delay than "
            "0.0042 and 0.002",
            float(g["lower_delay"].mean()),
        )
        ctx.compare.not_reported(
            f"{cond}: share of runs without synchronization at every inside w",
            float(g["no_sync_inside"].mean()),
        )
        ctx.compare.not_reported(
            f"{cond}: share of runs with synchronization at both outside w",
            float(g["sync_outside"].mean()),
        )
        ctx.compare.not_reported(
            f"{cond}: share of runs where every inside w has a smaller share of loss episodes "
            "hitting all three servers than both outside w",
            float(g["fewer_sync_losses"].mean()),
        )
    ctx.compare.claim(
        "over the study: every inside w has a lower mean queueing delay than both outside w, in "
        "every run",
        bool(per["lower_delay"].all()),
        f"{int(per['lower_delay'].sum())} of {len(per)} runs",
    )
    ctx.compare.claim(
        "over the study: the inside w avoid synchronization and the outside w show it, in every run",
        bool((per["no_sync_inside"] & per["sync_outside"]).all()),
        f"{int((per['no_sync_inside'] & per['sync_outside']).sum())} of {len(per)} runs",
    )
    silent = per[~per["no_sync_inside"]]
    where = sorted({f"{v} with {st} starts" for v, st in zip(silent["variant"], silent["start"])})
    ctx.note(
        "Over the study, every w inside the paper's bounds gives a lower mean queueing delay than "
        f"the outside w in {int(per['lower_delay'].sum())} of {len(per)} runs. Losses hit all "
        "three servers together less often inside the bounds in "
        f"{int(per['fewer_sync_losses'].sum())} of {len(per)} runs; spells in which all three "
        "servers are silent at once (the paper's criterion for global synchronization) occur at "
        f"some inside w in {len(silent)} of {len(per)} runs ("
        + ("; ".join(where) if where else "none")
        + "): simultaneous retransmission timeouts of small windows (study.csv has every run)."
    )
    ctx.compare.claim(
        "over the study: losses hit all three servers together less often at every inside w than "
        "at both outside w, in every run",
        bool(per["fewer_sync_losses"].all()),
        f"{int(per['fewer_sync_losses'].sum())} of {len(per)} runs",
    )
