"""Floyd & Jacobson 1993: Fig. 16 (Hoeffding's bound on a connection's share of the last
n marks) and Section X on the simulator (identifying a misbehaving flow).

Section X has no simulation in the paper: scenarios/floyd1993_sectionx.toml puts one
CBR flow among ten TCP flows through the RED gateway of Figs. 3 and 9; the list of the n
most recently dropped packets is rebuilt from the packet trace
(:mod:`aqmlab.analysis.misbehaving`), and the same is done with a Drop Tail gateway of
the same mean queue.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from ..analysis import hoeffding_bound
from ..analysis.floyd import binomial_tail
from ..analysis.misbehaving import identify_misbehaving
from ..sim import Scenario, simulate
from .common import scenario
from .context import Context
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Length of the list of recent marks (Fig. 16's n).
N = 100
#: The gateway's output link in floyd1993_sectionx.toml.
LINK = "g->d"
#: Fig. 16's constants C and their line styles.
CURVES = ((2, "-"), (4, "--"))


def bound_curves(n: int = N) -> pd.DataFrame:
    """Fig. 16: Prob(S_{i,n} >= c p_i n) <= exp(-2 n (c-1)^2 p_i^2) for c = 2, 4 against
    p_i, beside the exact binomial tail it bounds (columns C, p_i, bound, exact)."""
    from scipy import stats

    rows = []
    for c, _ in CURVES:
        p = np.linspace(0.005, 1.0 / c, 100)
        bound = np.array([hoeffding_bound(pi, c, n) for pi in p])
        exact = np.array([stats.binom.sf(math.ceil(c * pi * n) - 1, n, pi) for pi in p])
        rows.append(pd.DataFrame({"C": c, "p_i": p, "bound": bound, "exact": exact}))
    return pd.concat(rows)


def exceedance(tcp: pd.DataFrame, recent: Any, n: int = N) -> pd.DataFrame:
    """Empirical Prob(S_i,n >= C p_i n) of each well-behaved flow (C = 2, 4) from the
    list of recent marks, beside the bound and the binomial tail."""
    rows = []
    for _, r in tcp.iterrows():
        for c, _ in CURVES:
            pi = float(r["throughput_share"])
            if c * pi <= 1:
                rows.append(
                    {
                        "flow": r["name"],
                        "C": c,
                        "p_i": pi,
                        "empirical": recent.exceedance(r["flow"], c * pi * n),
                        "bound": hoeffding_bound(pi, c, n),
                        "binomial": binomial_tail(pi, c, n),
                    }
                )
    return pd.DataFrame(rows)


def list_lengths(pk: pd.DataFrame, cbr_id: int, threshold: float, start: float) -> pd.DataFrame:
    """Identification against the list length n at a fixed threshold: the CBR flow's
    flagged fraction, the TCP flows' largest and mean, and Hoeffding's bound for the
    largest TCP share."""
    sweep = []
    for nn in (10, 25, 50, 100, 200, 400):
        r = identify_misbehaving(pk, n=nn, link=LINK, threshold=threshold, start=start)["per_flow"]
        w = r[r["flow"] != cbr_id]
        pmax = float(w["throughput_share"].max())
        sweep.append(
            {
                "n": nn,
                "cbr_flagged": float(r.loc[r["flow"] == cbr_id, "flagged_fraction"].iloc[0]),
                "tcp_flagged_max": float(w["flagged_fraction"].max()),
                "tcp_flagged_mean": float(w["flagged_fraction"].mean()),
                "bound_for_largest_tcp_share": float(
                    np.exp(-2 * nn * max(threshold - pmax, 0) ** 2)
                ),
            }
        )
    return pd.DataFrame(sweep)


def droptail_twin(
    base: dict[str, Any], dur: float, warm: float, red_mean_q: float
) -> tuple[int, float, Any]:
    """The Drop Tail buffer (of 10-40 packets) whose mean queue in a short run is closest
    to RED's, and the full run with it: (buffer, mean queue, result)."""
    short = float(min(30.0, dur))
    cands = []
    for lim in (10, 15, 20, 25, 30, 40):
        d = copy.deepcopy(base)
        d["link"][-1]["queue_ab"] = {"type": "droptail", "limit": lim}
        d.pop("trace", None)
        d["duration"], d["warmup"] = f"{short}s", f"{min(warm, short / 3)}s"
        mq = float(
            simulate(Scenario(d), progress=False).links.set_index("link").loc[LINK, "mean_queue"]
        )
        cands.append((abs(mq - red_mean_q), lim, mq))
    _, dt_lim, _ = min(cands)
    d = copy.deepcopy(base)
    d["link"][-1]["queue_ab"] = {"type": "droptail", "limit": dt_lim}
    rdt = simulate(Scenario(d), progress=False)
    return dt_lim, float(rdt.links.set_index("link").loc[LINK, "mean_queue"]), rdt


@dataclass
class Fig16:
    curves: pd.DataFrame  # bound_curves()
    names: dict[int, str]  # flow id -> name
    cbr_id: int
    per: pd.DataFrame  # RED: per-flow shares and flagged fractions
    recent: Any  # RED: the list of recent marks over time (analysis.misbehaving)
    theta: float  # the flag threshold of the CBR flow
    emp: pd.DataFrame  # exceedance()
    dt: pd.DataFrame  # Drop Tail: per-flow shares and flagged fractions
    dt_lim: int  # Drop Tail's buffer
    sw: pd.DataFrame  # list_lengths()


def _assume(ctx: Context, dur: float, warm: float) -> None:
    ctx.assume(
        "Section X has no simulation in the paper: scenarios/floyd1993_sectionx.toml puts one "
        "CBR/UDP flow at 3 Mb/s (30% of a 10 Mb/s link, 3.3 times the fair share) among ten Tahoe "
        "TCP flows (round-trip propagation 42-78 ms, windows of 100) through the RED gateway of "
        "Figs. 3 and 9 (w_q 0.002, thresholds 5 and 15, max_p 1/50, buffer 100)."
    )
    ctx.assume(
        f"Run of {dur:g} s, lists and shares measured after a {warm:g} s warm-up; the gateway "
        "signals by dropping, so the 'marked' packets are the dropped data packets (early and "
        "forced drops alike: the trace does not tell them apart)."
    )
    ctx.assume(
        "A flow is flagged when its share of the last n = 100 drops reaches "
        "flag_threshold(n, 1/N, alpha = 0.01) = 1/N + sqrt(ln(1/alpha)/(2n)) with N = 11 flows: "
        "by Hoeffding, a flow at or below the fair share is flagged at a given drop with "
        "probability at most 1%."
    )


def fig16_compute(ctx: Context) -> Fig16:
    """Fig. 16's curves, then Section X: the RED run and its list of recent drops, the
    Drop Tail run of the same mean queue, and the identification against the list length."""
    curves = bound_curves()
    ctx.save_data(curves, "fig16")
    dur, warm = (40.0, 5.0) if ctx.quick else (210.0, 10.0)
    sc = scenario("floyd1993_sectionx.toml").replace(duration=f"{dur}s", warmup=f"{warm}s")
    _assume(ctx, dur, warm)
    res = simulate(sc, progress=False)
    pk = res.traces["packets"]
    names = dict(zip(res.flows["id"], res.flows["name"]))
    cbr_id = int(res.flows.loc[res.flows["type"] == "cbr", "id"].iloc[0])
    ident = identify_misbehaving(pk, n=N, link=LINK, alpha=0.01, start=warm)
    per = ident["per_flow"].copy()
    per["name"] = per["flow"].map(names)
    rm = ident["recent"]
    emp = exceedance(per[per["flow"] != cbr_id], rm)

    red_mean_q = float(res.links.set_index("link").loc[LINK, "mean_queue"])
    dt_lim, dt_mq, rdt = droptail_twin(sc.to_dict(), dur, warm, red_mean_q)
    dt = identify_misbehaving(rdt.traces["packets"], n=N, link=LINK, alpha=0.01, start=warm)[
        "per_flow"
    ]
    ctx.assume(
        f"Drop Tail comparison: the buffer (of 10-40 packets) whose mean queue in a "
        f"{float(min(30.0, dur)):g} s run is closest to RED's ({red_mean_q:.1f} packets): "
        f"{dt_lim} packets (mean queue {dt_mq:.1f})."
    )
    sw = list_lengths(pk, cbr_id, 2.0 / len(per), warm)

    ctx.save_data(
        pd.concat(
            [
                per.assign(queue="red"),
                dt.assign(queue=f"droptail{dt_lim}", name=dt["flow"].map(names)),
            ],
            ignore_index=True,
        ),
        "sectionx_per_flow",
    )
    ctx.save_data(emp, "sectionx_exceedance")
    ctx.save_data(sw, "sectionx_list_length")
    shares = rm.shares()
    full_idx = np.flatnonzero(rm.full)
    ctx.save_data(
        pd.DataFrame(
            {
                "time": rm.time[full_idx],
                "marked_flow": rm.flow[full_idx],
                **{f"share_{names[f]}": shares[full_idx, j] for j, f in enumerate(rm.flows)},
            }
        ),
        "sectionx_recent_marks",
    )
    theta = float(ident["thresholds"][cbr_id])
    return Fig16(curves, names, cbr_id, per, rm, theta, emp, dt, dt_lim, sw)


def _plot_bound(d: Fig16) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for c, style in CURVES:
        cv = d.curves[d.curves["C"] == c]
        ax.plot(cv["p_i"], cv["bound"], "k" + style, label=f"bound, C = {c}")
        ax.plot(
            cv["p_i"],
            cv["exact"],
            style,
            color="tab:orange",
            alpha=0.7,
            label=f"exact binomial tail, C = {c}",
        )
    ax.set_xlabel("p_i (connection's fraction of the bandwidth)")
    ax.set_ylabel("probability")
    ax.set_title("Fig. 16: Prob(S_i,n >= C p_i n), n = 100")
    for c, mk in ((2, "o"), (4, "s")):
        e = d.emp[d.emp["C"] == c]
        ax.plot(
            e["p_i"],
            e["empirical"],
            mk,
            color="tab:blue",
            ms=5,
            mfc="none",
            label=f"simulated TCP flows, C = {c}",
        )
    ax.legend(fontsize=7)
    return fig


def _plot_recent(d: Fig16) -> Figure:
    import matplotlib.pyplot as plt

    rm, shares, full = d.recent, d.recent.shares(), d.recent.full
    n_flows = len(d.per)
    fig, ax = plt.subplots(figsize=(9, 4))
    for j, f in enumerate(rm.flows):
        if f == d.cbr_id:
            ax.plot(
                rm.time[full],
                shares[full, j],
                "r",
                lw=1.2,
                label=f"{d.names[f]} (misbehaving)",
                zorder=3,
            )
        else:
            ax.plot(
                rm.time[full],
                shares[full, j],
                lw=0.5,
                alpha=0.6,
                label="TCP flows" if j == 0 else None,
            )
    ax.axhline(d.theta, color="k", ls="--", lw=1, label=f"flag threshold {d.theta:.3f}")
    ax.axhline(1 / n_flows, color="k", ls=":", lw=1, label=f"fair share 1/{n_flows}")
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"share of the last {N} dropped packets")
    ax.set_title(
        "Section X: each flow's share of the list of the n most recently dropped packets (RED)"
    )
    ax.legend(loc="upper right", fontsize=7, ncol=2)
    return fig


def _plot_scatter(d: Fig16) -> Figure:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5))
    for df, mk, lab in ((d.per, "o", "RED"), (d.dt, "s", f"Drop Tail ({d.dt_lim} packets)")):
        isc = df["flow"] == d.cbr_id
        ax.plot(
            df.loc[~isc, "throughput_share"],
            df.loc[~isc, "mark_share"],
            mk,
            mfc="none",
            color="tab:blue" if lab == "RED" else "tab:gray",
            label=f"{lab}: TCP flows",
        )
        ax.plot(
            df.loc[isc, "throughput_share"],
            df.loc[isc, "mark_share"],
            mk,
            color="tab:red" if lab == "RED" else "k",
            label=f"{lab}: CBR flow",
        )
    lim_ = max(0.4, float(d.per["mark_share"].max()) * 1.1)
    ax.plot([0, lim_], [0, lim_], "k--", lw=0.8, label="drops share = throughput share")
    ax.set_xlabel("share of the throughput")
    ax.set_ylabel("share of the dropped packets")
    ax.set_title("Drops share vs throughput share (Section X)")
    ax.legend(fontsize=7)
    return fig


def fig16_plot(d: Fig16) -> dict[str, Figure]:
    return {
        "fig16": _plot_bound(d),
        "sectionx_recent_marks": _plot_recent(d),
        "sectionx_share_scatter": _plot_scatter(d),
    }


def _at_max(df: pd.DataFrame, col: str) -> pd.Series:
    """The first row where `col` is largest."""
    row: pd.Series = df[df[col] == df[col].max()].iloc[0]
    return row


def _compare_bound(ctx: Context, d: Fig16) -> None:
    ok_all = bool((d.curves["exact"] <= d.curves["bound"] + 1e-12).all())
    ctx.compare.claim(
        "the bound lies above the exact binomial tail everywhere on the curves", ok_all
    )
    for c, _ in CURVES:
        for pi in (0.05, 0.1, 0.2):
            if c * pi <= 1:
                ctx.compare.not_reported(
                    f"bound for C = {c}, p_i = {pi}", hoeffding_bound(pi, c, N), "curve only"
                )


def _compare_red(ctx: Context, d: Fig16) -> float:
    """Proportional drops and identification with RED; returns the largest |drops share
    - throughput share|."""
    from scipy import stats

    per, theta, n_flows = d.per, d.theta, len(d.per)
    cbr = per[per["flow"] == d.cbr_id].iloc[0]
    n_marks = int(per["marks"].sum())
    ctx.compare.not_reported("dropped data packets at the RED gateway after the warm-up", n_marks)
    # proportionality (Section X, para. 2; Section VIII 'fairness')
    t_prop = math.sqrt(math.log(2 * n_flows / 0.05) / (2 * n_marks)) if n_marks else float("nan")
    dev = float((per["mark_share"] - per["throughput_share"]).abs().max())
    ctx.compare.claim(
        "RED: each flow's share of the drops is roughly its share of the bandwidth "
        f"(max |drops share - throughput share| within the Hoeffding band {t_prop:.3f} "
        f"for {n_marks} drops, 5% over {n_flows} flows)",
        dev <= t_prop,
        f"max deviation {dev:.3f}",
    )
    ctx.compare.value(
        "RED: CBR flow's share of the drops / its share of the throughput",
        1.0,
        float(cbr["mark_share"] / cbr["throughput_share"]),
        0.15,
    )
    # identification
    ctx.compare.claim(
        "the misbehaving (CBR) flow is flagged at most drops once the list is full (> 50%)",
        cbr["flagged_fraction"] > 0.5,
        f"flagged at {cbr['flagged_fraction']:.1%} of {int(d.recent.full.sum())} drops",
    )
    pred = float(stats.binom.sf(math.ceil(theta * N - 1e-9) - 1, N, float(cbr["throughput_share"])))
    ctx.compare.value(
        "CBR flow's flagged fraction vs Section X's model: Prob(Binomial(n, p_cbr) >= "
        "threshold n) at its throughput share",
        pred,
        float(cbr["flagged_fraction"]),
        0.1,
    )
    ctx.compare.not_reported(
        "CBR flow: share of throughput / share of drops",
        f"{cbr['throughput_share']:.3f} / {cbr['mark_share']:.3f}",
    )
    return dev


def _compare_tcp(ctx: Context, d: Fig16) -> None:
    """False flags of the well-behaved flows and the simulated tails against the bound."""
    tcp, emp = d.per[d.per["flow"] != d.cbr_id], d.emp
    worst = tcp.loc[tcp["flagged_fraction"].idxmax()]
    ok_ff = bool((tcp["flagged_fraction"] <= tcp["false_flag_bound"] + 1e-12).all())
    ctx.compare.claim(
        "well-behaved TCP flows falsely flagged no more often than the Hoeffding bound "
        "exp(-2n(threshold - p_i)^2) allows, each flow",
        ok_ff,
        f"largest: {worst['name']} flagged at {worst['flagged_fraction']:.4f} "
        f"(p_i {worst['throughput_share']:.3f}, bound {worst['false_flag_bound']:.3g})",
    )
    ctx.compare.not_reported(
        "well-behaved flows: mean fraction of drops at which falsely flagged",
        float(tcp["flagged_fraction"].mean()),
    )
    short_rtt = tcp.loc[tcp["throughput_share"].idxmax()]
    ctx.compare.not_reported(
        "largest TCP share (shortest round trip): flow, throughput share, flagged",
        f"{short_rtt['name']}, {short_rtt['throughput_share']:.3f}, "
        f"{short_rtt['flagged_fraction']:.4f}",
        "a short RTT can give a TCP flow a large share",
    )
    ok_tail = bool((emp["empirical"] <= emp["bound"] + 1e-12).all()) if len(emp) else False
    ctx.compare.claim(
        "simulated Prob(S_i,n >= C p_i n), C = 2 and 4, n = 100, below the bound of Fig. 16 "
        "for every TCP flow",
        ok_tail,
        f"largest empirical {emp['empirical'].max():.4f} (binomial tail there "
        f"{_at_max(emp, 'empirical')['binomial']:.4f})",
    )
    ctx.compare.not_reported(
        "simulated vs binomial Prob(S_i,n >= 2 p_i n), mean over TCP flows",
        f"{emp.loc[emp['C'] == 2, 'empirical'].mean():.4f} vs "
        f"{emp.loc[emp['C'] == 2, 'binomial'].mean():.4f}",
    )


def _compare_lists(ctx: Context, d: Fig16, dev: float) -> None:
    """Longer lists separate better; Drop Tail's drops are not proportional."""
    sw, dt = d.sw, d.dt
    fl = sw["tcp_flagged_max"].to_numpy()
    ctx.compare.claim(
        "with more marks in the list a large share of marks means a large share of the "
        "bandwidth: false flags (threshold 2/N) do not grow with n and fall from n=10 to 400",
        bool(np.all(np.diff(fl) <= 1e-3) and fl[-1] < fl[0]),
        "max TCP flagged fraction " + ", ".join(f"n={a}: {b:.3f}" for a, b in zip(sw["n"], fl)),
    )
    ctx.compare.claim(
        "the CBR flow is flagged at threshold 2/N for every list length n >= 25",
        bool((sw.loc[sw["n"] >= 25, "cbr_flagged"] >= 0.95).all()),
        ", ".join(f"n={a}: {b:.2f}" for a, b in zip(sw["n"], sw["cbr_flagged"])),
    )
    dt_cbr = dt[dt["flow"] == d.cbr_id].iloc[0]
    dt_dev = float((dt["mark_share"] - dt["throughput_share"]).abs().max())
    ctx.compare.claim(
        "with Drop Tail drops are not proportional to bandwidth: larger max |drops share - "
        "throughput share| than RED's",
        dt_dev > dev,
        f"Drop Tail {dt_dev:.3f} vs RED {dev:.3f}; CBR {dt_cbr['throughput_share']:.3f} of the "
        f"throughput, {dt_cbr['mark_share']:.3f} of the drops, flagged at "
        f"{dt_cbr['flagged_fraction']:.1%}",
    )


def fig16_compare(ctx: Context, d: Fig16) -> None:
    _compare_bound(ctx, d)
    dev = _compare_red(ctx, d)
    _compare_tcp(ctx, d)
    _compare_lists(ctx, d, dev)
    ctx.note(
        "The list is computed from the packet trace after the run (aqmlab.analysis.misbehaving): "
        "the simulator has no monitor of the n most recently marked packets. The drops of a TCP flow "
        "are not independent draws (RED spaces drops; TCP responds to them), so the binomial tail is "
        "a reference, not an exact prediction, for the simulated frequencies."
    )
    ctx.note(
        f"Shares are of data packets leaving the bottleneck; RED counts in packets and all "
        f"packets are 1000 bytes, so they equal bandwidth shares. Mark threshold for N = {len(d.per)}: "
        f"{d.theta:.3f}."
    )


FIG16 = Experiment(
    "floyd1993-fig16",
    "Hoeffding bound on a connection's share of the last n marks; identifying a misbehaving flow",
    compute=fig16_compute,
    plot=fig16_plot,
    compare=fig16_compare,
)
