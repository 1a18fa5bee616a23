"""Bonald, May & Bolot 2000, Figs. 13 and 15: the router's queue over time with RED and
Tail Drop, the UDP packets' queueing delay (buffers 40 and 150, Fig. 13) and the queue
with 25-100 flows (buffer 200, Fig. 15); the runs: the ``delay`` and ``queue`` sweeps of
:mod:`.bonald2000_tcp`."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from .bonald2000_tcp import (
    BOTTLENECK,
    DELAY_BUFFERS,
    DELAY_FLOWS,
    NAMES,
    QUEUE_RED,
    SAMPLE,
    SERVICE,
    assume_common,
    delay_spec,
    queue_for,
    queue_spec,
    run_sweep,
    trace_settings,
)
from .context import Context
from .registry import Experiment

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _series(js: str) -> pd.DataFrame:
    return pd.DataFrame(json.loads(js))


@dataclass
class Traces:
    stats: pd.DataFrame  # one row per setting
    series: dict[tuple[str, int], pd.DataFrame]  # per setting: its trace
    key: str  # the column that names a setting beside the policy ("buffer" or "flows")

    def get(self, policy: str, k: int, col: str) -> float:
        """Column `col` of setting (policy, k)."""
        st = self.stats
        return float(st[(st["policy"] == policy) & (st[self.key] == k)][col].iloc[0])


# ------------------------------------------------------------------ Fig. 13


def fig13_compute(ctx: Context) -> Traces:
    """The UDP packets' queueing delays and the queue, per buffer and policy."""
    s = trace_settings(ctx.quick)
    assume_common(ctx)
    ctx.assume(
        f"{DELAY_FLOWS} TCP flows (the text of Fig. 13), one run of {s['duration']:g} s per setting "
        f"(seed 1); statistics over [{s['warmup']:g} s, {s['duration']:g} s]. RED for K = 150: "
        "min_th 37.5, max_th 112.5 (K/4, 3K/4; not given in the paper)."
    )
    ctx.assume(
        "Queueing delay: each UDP packet's waiting time in the router (arrival to start of "
        "transmission), from a packet trace of r1 -> r2; the paper plots the delay in the router "
        "without saying which packets."
    )
    df = run_sweep(ctx, "delay", delay_spec)
    series: dict[tuple[str, int], pd.DataFrame] = {}
    rows = []
    for _, r in df.iterrows():
        p, b_ = r["setting"].split(":")
        b = int(b_)
        d = _series(r["udp_delays"])
        d["policy"], d["buffer"] = p, b
        series[(p, b)] = d
        q = queue_for(p, b)
        rows.append(
            {
                "policy": p,
                "buffer": b,
                "udp_delay_mean_ms": r["udp.delay_mean"] * 1e3,
                "udp_delay_sd_ms": r["udp.delay_std"] * 1e3,
                "queue_mean": r["queue.mean"],
                "queue_sd": r["queue.std"],
                "queue_empty_fraction": r["queue.empty"],
                "avg_mean": r["queue.avg_mean"],
                "min_th": q.get("min_th"),
                "max_th": q.get("max_th"),
                "limit": q["limit"],
                "utilization": r[f"links.{BOTTLENECK}.utilization"],
                "udp_loss": r["udp_loss"],
                "tcp_loss": r["tcp_loss"],
            }
        )
    st = pd.DataFrame(rows)
    ctx.save_data(st, "fig13_stats")
    ctx.save_data(pd.concat(series.values(), ignore_index=True), "fig13_udp_delays")
    return Traces(st, series, "buffer")


def fig13_plot(d: Traces) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 6.5), sharex=True, squeeze=False)
    for i, b in enumerate(DELAY_BUFFERS):
        for j, p in enumerate(("droptail", "red")):
            ax = axes[i][j]
            dl = d.series[(p, b)]
            ax.plot(dl["time"], dl["delay"] * 1e3, lw=0.4, color=f"C{j}")
            ax.axhline((b - 1) * SERVICE * 1e3, color="k", ls=":", lw=0.8)
            ax.set_ylim(0, b * SERVICE * 1e3 * 1.05)
            extra = f" (min_th {b / 4:g}, max_th {3 * b / 4:g})" if p == "red" else ""
            ax.set_title(f"{NAMES[p]}, buffer {b} packets{extra}", fontsize=9)
            if j == 0:
                ax.set_ylabel("queueing delay (ms)")
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    fig.suptitle(
        f"Fig. 13: queueing delay of the UDP packets at the router, {DELAY_FLOWS} TCP flows "
        "(dotted: full buffer)"
    )
    return {"fig13": fig}


def fig13_compare(ctx: Context, d: Traces) -> None:
    g = d.get
    for b in DELAY_BUFFERS:
        lim = b - 1
        m = g("droptail", b, "queue_mean")
        ctx.compare.claim(
            f"K = {b}: with Tail Drop the queue stays close to its maximum (mean >= 80% of "
            f"the buffer)",
            m >= 0.8 * lim,
            f"mean queue {m:.1f} of {lim}",
        )
        lo, hi = b / 4, 3 * b / 4
        a = g("red", b, "avg_mean")
        ctx.compare.claim(
            f"K = {b}: with RED the average queue stays close to max_th = {hi:g} (time mean "
            f"in the top quarter of [min_th, max_th])",
            a >= hi - 0.25 * (hi - lo),
            f"mean avg {a:.1f}",
        )
        sr, sd = g("red", b, "udp_delay_sd_ms"), g("droptail", b, "udp_delay_sd_ms")
        ctx.compare.claim(
            f"K = {b}: RED's queueing delay varies more than Tail Drop's (UDP delay standard "
            "deviation)",
            sr > sd,
            f"RED {sr:.2f} ms, Tail Drop {sd:.2f} ms",
        )
        mr, md = g("red", b, "udp_delay_mean_ms"), g("droptail", b, "udp_delay_mean_ms")
        ctx.compare.claim(
            f"K = {b}: RED lowers the mean queueing delay (Section IV)",
            mr < md,
            f"RED {mr:.2f} ms, Tail Drop {md:.2f} ms",
        )
        e = g("droptail", b, "queue_empty_fraction")
        ctx.compare.claim(
            f"K = {b}: no system-wide synchronization with Tail Drop: its queue does not "
            "drain (empty in < 1% of the samples)",
            e < 0.01,
            f"empty in {e:.2%} of samples",
        )
        ctx.compare.not_reported(
            f"K = {b}: UDP delay mean / sd, Tail Drop (ms)", f"{md:.2f} / {sd:.2f}", "curve only"
        )
        ctx.compare.not_reported(
            f"K = {b}: UDP delay mean / sd, RED (ms)", f"{mr:.2f} / {sr:.2f}", "curve only"
        )
    for b in DELAY_BUFFERS:
        a = g("red", b, "avg_mean")
        if a < 3 * b / 4 - 0.25 * (b / 2):
            ctx.note(
                f"K = {b}: RED's average settles at {a:.1f}, below max_th = {3 * b / 4:g}: with max_p = 0.1 "
                f"and ns-2's drop spacing the ramp reaches the drop rate the {DELAY_FLOWS} flows need "
                f"(TCP loss {g('red', b, 'tcp_loss'):.3f}) before max_th; the paper's 'close to max_th' "
                "needs a drop rate above max_p, which its (unstated) settings may have had."
            )


FIG13 = Experiment(
    "bonald2000-fig13",
    "Queueing delay over time for RED and Tail Drop, buffers 40 and 150",
    compute=fig13_compute,
    plot=fig13_plot,
    compare=fig13_compare,
)

# ------------------------------------------------------------------ Fig. 15


def fig15_compute(ctx: Context) -> Traces:
    """The queue traces and their statistics, per number of flows and policy."""
    s = trace_settings(ctx.quick)
    assume_common(ctx)
    ctx.assume(
        f"Buffer 200 (limit 199 waiting), RED min_th 50, max_th 150, max_p 0.1, w_q 0.002 (the paper); "
        f"one run of {s['duration']:g} s per setting (seed 1), queue sampled every {SAMPLE * 1e3:g} ms, "
        f"statistics over [{s['warmup']:g} s, {s['duration']:g} s]."
    )
    ctx.assume(
        "'Idle' router: the bottleneck line not transmitting (1 - utilization); 'empty' queue: no "
        "packet waiting at a sample."
    )
    df = run_sweep(ctx, "queue", queue_spec)
    series: dict[tuple[str, int], pd.DataFrame] = {}
    rows = []
    for _, r in df.iterrows():
        p, n = str(r["policy"]), int(r["flows"])
        tr = _series(r["series"])
        tr["policy"], tr["flows"] = p, n
        series[(p, n)] = tr
        rows.append(
            {
                "policy": p,
                "flows": n,
                "queue_mean": r["queue.mean"],
                "queue_sd": r["queue.std"],
                "queue_empty_fraction": r["queue.empty"],
                "avg_mean": r["queue.avg_mean"],
                "utilization": r[f"links.{BOTTLENECK}.utilization"],
                "idle_fraction": 1.0 - r[f"links.{BOTTLENECK}.utilization"],
                "udp_loss": r["udp_loss"],
                "tcp_loss": r["tcp_loss"],
                "goodput_mbps": r["tcp_goodput_bps"] / 1e6,
            }
        )
    st = pd.DataFrame(rows).sort_values(["flows", "policy"]).reset_index(drop=True)
    ctx.save_data(st, "fig15_stats")
    ctx.save_data(pd.concat(series.values(), ignore_index=True), "fig15_queue")
    return Traces(st, series, "flows")


def fig15_plot(d: Traces) -> dict[str, Figure]:
    import matplotlib.pyplot as plt

    ns = sorted(d.stats["flows"].unique())
    fig, axes = plt.subplots(
        len(ns), 2, figsize=(11, 2.2 * len(ns) + 0.8), sharex=True, sharey=True, squeeze=False
    )
    for i, n in enumerate(ns):
        for j, p in enumerate(("red", "droptail")):
            ax = axes[i][j]
            tr = d.series[(p, n)]
            ax.plot(tr["time"], tr["queue"], lw=0.5, color=f"C{1 - j}")
            if p == "red":
                ax.plot(tr["time"], tr["avg"], lw=1.0, color="k", alpha=0.7)
                for th in QUEUE_RED:
                    ax.axhline(th, color="k", ls=":", lw=0.7)
            ax.set_title(f"{NAMES[p]}, {n} flows", fontsize=9)
            if j == 0:
                ax.set_ylabel("queue (packets)")
    for ax in axes[-1]:
        ax.set_xlabel("time (s)")
    fig.suptitle("Fig. 15: instantaneous queue, buffer 200 (RED 50/150; black: RED's average)")
    return {"fig15": fig}


def _compare_idle(ctx: Context, d: Traces) -> None:
    """Few flows: RED's queue empties and the line idles; many flows: no difference."""
    g, ns = d.get, sorted(d.stats["flows"].unique())
    few, many = min(ns), max(ns)
    e = g("droptail", few, "queue_empty_fraction")
    ctx.compare.claim(
        f"{few} flows: the Tail Drop queue is rarely empty (< 5% of the samples)",
        e < 0.05,
        f"empty in {e:.2%} of samples",
    )
    ir, idt = g("red", few, "idle_fraction"), g("droptail", few, "idle_fraction")
    er = g("red", few, "queue_empty_fraction")
    ctx.compare.claim(
        f"{few} flows: RED's queue is more often empty and the line more often idle than with "
        "Tail Drop",
        er > e and ir > idt,
        f"empty: RED {er:.2%}, Tail Drop {e:.2%}; idle: RED {ir:.2%}, Tail Drop {idt:.2%}",
    )
    ctx.compare.claim(
        f"{many} flows: the router is never idle, with RED nor Tail Drop (idle < 1% of the time)",
        max(g("red", many, "idle_fraction"), g("droptail", many, "idle_fraction")) < 0.01,
        f"idle: RED {g('red', many, 'idle_fraction'):.2%}, Tail Drop {g('droptail', many, 'idle_fraction'):.2%}",
    )
    du = abs(g("red", many, "utilization") - g("droptail", many, "utilization"))
    ctx.compare.claim(
        f"{many} flows: hence not much difference in throughput (utilization within 1%)",
        du < 0.01,
        f"|difference| {du:.2%}",
    )
    ctx.compare.claim(
        f"{few} flows: larger throughput with Tail Drop than with RED",
        g("droptail", few, "utilization") > g("red", few, "utilization"),
        f"utilization: Tail Drop {g('droptail', few, 'utilization'):.4f}, RED {g('red', few, 'utilization'):.4f}",
    )


def fig15_compare(ctx: Context, d: Traces) -> None:
    _compare_idle(ctx, d)
    g, ns = d.get, sorted(d.stats["flows"].unique())
    osc = {n: (g("red", n, "queue_sd"), g("droptail", n, "queue_sd")) for n in ns}
    ctx.compare.claim(
        "RED's instantaneous queue oscillates more than Tail Drop's for every number of flows "
        "(larger standard deviation)",
        all(r > d for r, d in osc.values()),
        ", ".join(f"N={n}: {r:.1f} vs {d:.1f}" for n, (r, d) in osc.items()),
    )
    calmer = [n for n, (r, d) in osc.items() if r <= d]
    if calmer:
        ctx.note(
            f"Oscillation: with {', '.join(map(str, calmer))} flows aqmlab's Tail Drop queue swings as much "
            "as RED's or more: after a burst of overflow drops many windows halve together and the queue "
            "falls by up to 100 packets before refilling (see the plot), a partial synchronization the "
            "paper's Tail Drop traces do not show (its queue still never empties)."
            + (
                f" With {', '.join(str(n) for n in ns if n not in calmer)} flows RED oscillates more, as in "
                "the paper."
                if len(calmer) < len(ns)
                else ""
            )
            + " The paper gives no TCP details (windows, timers, start times) that would "
            "say how desynchronized its flows were."
        )
    for n in ns:
        ctx.compare.not_reported(
            f"{n} flows: mean queue Tail Drop / RED (packets)",
            f"{g('droptail', n, 'queue_mean'):.1f} / {g('red', n, 'queue_mean'):.1f}",
            "curve only",
        )


FIG15 = Experiment(
    "bonald2000-fig15",
    "Instantaneous queue for RED and Tail Drop with 25-100 flows (buffer 200)",
    compute=fig15_compute,
    plot=fig15_plot,
    compare=fig15_compare,
)
