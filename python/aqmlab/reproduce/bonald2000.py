"""Bonald, May & Bolot, "Analytic evaluation of RED performance" (Infocom 2000).

The Markov chains of aqmlab.analysis.bonald beside the same open-loop models run on the
simulator (aqmlab.analysis.bonald_sim: exponential packet sizes, the model's queue
conventions mapped onto the simulator's, 99% intervals over independent runs).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .framework import Context, experiment

PAPER = "Bonald, May & Bolot 2000, Infocom"
EX1 = dict(min_th=20, max_th=40, max_p=1.0)  # Example 1
K = 40


def _runs(ctx: Context):
    return (2, 40.0) if ctx.quick else (5, 200.0)


def _assume(ctx: Context, reps: int, dur: float) -> None:
    ctx.assume("Exponential service: packets of exponential size (mean 1000 bytes) on an 8 Mb/s link "
               "(mu = 1000 packets/s).")
    ctx.assume("The model counts packets in the router including the one in service and drops with "
               "d(n+1) (the reading that reproduces Table III); the simulator's RED sees waiting "
               "packets, so it runs with limit K-1 and thresholds min_th-2, max_th-2, w_q = 1 and "
               "independent drops (mark_method geometric).")
    ctx.assume(f"{reps} independent runs of {dur:g} s (10 s warm-up) per point; 99% Student-t intervals.")


@experiment("bonald2000-fig3", "Drop probability vs offered load for several burst sizes (Example 1)", PAPER)
def fig3(ctx: Context) -> None:
    """RED (Example 1) and Tail Drop, batch-Poisson input with B = 1, 3, 5: chain against simulation."""
    import matplotlib.pyplot as plt

    from ..analysis import bonald, bonald_sim

    reps, dur = _runs(ctx)
    _assume(ctx, reps, dur)
    rhos = np.linspace(0.2, 3.0, 57)
    sim_rhos = [0.5, 1.0, 2.0] if ctx.quick else [0.5, 0.8, 1.0, 1.5, 2.0, 3.0]
    rows = []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    inside, total = 0, 0
    for i, B in enumerate((1, 3, 5)):
        model = [bonald.drop_probability("red", r, K, burst=B, **EX1) for r in rhos]
        ax.plot(rhos, model, color=f"C{i}", label=f"RED, B = {B} (analysis)")
        for r in sim_rhos:
            m = bonald.drop_probability("red", r, K, burst=B, **EX1)
            mean, half = bonald_sim.drop_probabilities("red", r, K, burst=B, replications=reps,
                                                       duration=dur, **EX1)["total"]
            # With no drop observed the t-interval is empty; use the rule of three (95% upper
            # bound 3/N for N packets without an event) instead.
            n_packets = r * 1000.0 * (dur - 10.0) * reps
            half = max(half, 3.0 / n_packets) if mean == 0 else half
            ax.errorbar([r], [mean], yerr=[half], fmt="o", color=f"C{i}", ms=4)
            rows.append({"B": B, "rho": r, "analysis": m, "simulation": mean, "half_width": half})
            inside += abs(m - mean) <= half
            total += 1
    ax.plot(rhos, [bonald.mm1k_loss(r, K) for r in rhos], "k--", label="Tail Drop, Poisson (M/M/1/K)")
    ax.set_xlabel("offered load rho")
    ax.set_ylabel("drop probability")
    ax.set_title("Fig. 3: RED (K = 40, min_th = 20, max_th = 40, max_p = 1); dots: simulation")
    ax.legend()
    ctx.save_fig(fig, "fig3")
    df = pd.DataFrame(rows)
    ctx.save_data(df, "fig3")
    out = df[(df["analysis"] - df["simulation"]).abs() > df["half_width"]]
    for _, r in out.iterrows():
        ctx.note(f"B = {int(r.B)}, rho = {r.rho:g}: analysis {r.analysis:.4f}, simulation {r.simulation:.4f} "
                 f"+- {r.half_width:.4f}" + (" (analysis below: Approximation 1 gives every packet of a burst "
                                             "its first packet's drop probability, a lower bound)"
                                             if r.analysis < r.simulation else ""))
    ctx.compare.claim("analysis with Approximation 1 agrees with simulation: all points but at most one inside "
                      "the 99% interval (the approximation is a lower bound for B > 1)",
                      inside >= total - 1, f"{inside} of {total} points inside")
    ctx.compare.claim("RED drops more than Tail Drop with Poisson input at every load (sample-path property)",
                      all(bonald.drop_probability("red", r, K, **EX1) >= bonald.mm1k_loss(r, K) - 1e-12
                          for r in rhos))
    rho_hi = 50.0
    ctx.compare.value("eq. 1: P_RED ~ 1 - 1/rho at rho = 50", 1 - 1 / rho_hi,
                      bonald.drop_probability("red", rho_hi, K, burst=3, **EX1), 0.005)


@experiment("bonald2000-fig5", "Drop probability of bursty and smooth traffic vs fraction of bursty traffic", PAPER)
def fig5(ctx: Context) -> None:
    """rho = 2, B = 3: Tail Drop's bias against bursty traffic, and RED without it."""
    import matplotlib.pyplot as plt

    from ..analysis import bonald, bonald_sim

    reps, dur = _runs(ctx)
    _assume(ctx, reps, dur)
    fr = np.linspace(0.05, 0.95, 19)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    rows = []
    for ax, policy in zip(axes, ("taildrop", "red")):
        kw = EX1 if policy == "red" else {}
        pb = [bonald.class_drop_probabilities(policy, 2.0, K, burst=3, bursty_fraction=f, **kw) for f in fr]
        ax.plot(fr, [p[0] for p in pb], "C3", label="bursty (analysis)")
        ax.plot(fr, [p[1] for p in pb], "C0", label="smooth (analysis)")
        for f in ([0.5] if ctx.quick else [0.1, 0.5, 0.9]):
            sim = bonald_sim.drop_probabilities(policy, 2.0, K, burst=3, bursty_fraction=f,
                                                replications=reps, duration=dur, **kw)
            for cls, c in (("bursty", "C3"), ("smooth", "C0")):
                ax.errorbar([f], [sim[cls][0]], yerr=[sim[cls][1]], fmt="o", color=c, ms=4)
                rows.append({"policy": policy, "fraction": f, "class": cls, "simulation": sim[cls][0],
                             "half_width": sim[cls][1]})
        ax.set_title("Tail Drop" if policy == "taildrop" else "RED (Example 1)")
        ax.set_xlabel("fraction of bursty traffic")
        ax.legend()
    axes[0].set_ylabel("drop probability")
    fig.suptitle("Fig. 5: rho = 2, B = 3; dots: simulation")
    ctx.save_fig(fig, "fig5")
    ctx.save_data(pd.DataFrame(rows), "fig5_simulation")
    td = bonald.class_drop_probabilities("taildrop", 2.0, K, burst=3, bursty_fraction=0.5)
    red = bonald.class_drop_probabilities("red", 2.0, K, burst=3, bursty_fraction=0.5, **EX1)
    ctx.compare.claim("Tail Drop is biased against bursty traffic: P(b) > P(s)", td[0] > td[1],
                      f"P(b) {td[0]:.3f}, P(s) {td[1]:.3f}")
    ctx.compare.value("RED: P(b) = P(s) (analysis, half bursty)", 0.0, red[0] - red[1], 0.005)
    ctx.compare.value("RED at rho = 2: P(s) close to 0.5", 0.5, red[1], 0.01)
    simred = [r for r in rows if r["policy"] == "red" and r["fraction"] == 0.5]
    bias = {r["class"]: r["simulation"] for r in simred}
    ctx.compare.not_reported("RED simulated P(b) - P(s), half bursty (Approximation 1 hides it)",
                             bias["bursty"] - bias["smooth"])


@experiment([("bonald2000-table3", "Mean and variance of the queue size, Tail Drop vs RED (rho = 2)"),
             ("bonald2000-fig10", "Distribution of the queue size for rho = 2")], paper=PAPER)
def table3_fig10(ctx: Context) -> None:
    """Eq. 5 and M/M/1/K at rho = 2 (Example 1): the distributions, their means and variances,
    and the simulated mean queue (waiting packets plus the one in service)."""
    import matplotlib.pyplot as plt

    from ..analysis import bonald, bonald_sim
    from ..sim import simulate

    reps, dur = _runs(ctx)
    _assume(ctx, reps, dur)
    td = bonald.queue_distribution("taildrop", 2.0, K)
    red = bonald.queue_distribution("red", 2.0, K, **EX1)
    n = np.arange(K + 1)
    moments = {}
    for name, pi in (("Tail Drop", td), ("RED", red)):
        m = float((n * pi).sum())
        moments[name] = (m, float(((n - m) ** 2 * pi).sum()))
    if ctx.id.endswith("fig10"):
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.bar(n - 0.2, td, width=0.4, label="Tail Drop")
        ax.bar(n + 0.2, red, width=0.4, label="RED (Example 1)")
        ax.set_xlabel("queue size (packets in the router)")
        ax.set_ylabel("probability")
        ax.set_title("Fig. 10: queue-size distribution, rho = 2 (eq. 5 and M/M/1/K)")
        ax.legend()
        ctx.save_fig(fig, "fig10")
        ctx.save_data(pd.DataFrame({"n": n, "taildrop": td, "red": red}), "fig10")
        ctx.compare.claim("RED's distribution is spread below max_th, Tail Drop's piles at K",
                          td[K] > 0.4 and red[K] < 1e-9 and red[20:K].sum() > 0.99)
        return
    for name, (pm, pv) in (("Tail Drop", (39.0, 2.0)), ("RED", (29.0, 10.0))):
        ctx.compare.value(f"{name}: mean queue (packets)", pm, moments[name][0], 0.05)
        ctx.compare.value(f"{name}: variance of the queue", pv, moments[name][1], 0.05)
    # The simulator's mean_queue counts waiting packets; in the router = waiting + utilization
    for policy, name, paper_mean in (("taildrop", "Tail Drop", 39.0), ("red", "RED", 29.0)):
        kw = EX1 if policy == "red" else {}
        vals = []
        for r in range(reps):
            sc = bonald_sim.scenario(policy, 2.0, K, burst=1, duration=dur, seed=1 + r, **kw)
            link = simulate(sc, progress=False).summary["links"]["s->d"]
            vals.append(link["mean_queue"] + link["utilization"])
        mean = float(np.mean(vals))
        ctx.compare.value(f"{name}: mean queue, simulation (packets in the router)", paper_mean, mean, 0.5)
    ctx.save_data(pd.DataFrame([{"policy": k, "mean": v[0], "variance": v[1]} for k, v in moments.items()]),
                  "table3")
    fig, ax = plt.subplots(figsize=(5, 3))
    ax.bar(["Tail Drop", "RED"], [moments["Tail Drop"][0], moments["RED"][0]],
           yerr=[np.sqrt(moments["Tail Drop"][1]), np.sqrt(moments["RED"][1])], capsize=6)
    ax.set_ylabel("queue size (packets), mean +- sd")
    ax.set_title("Table III: rho = 2, K = 40")
    ctx.save_fig(fig, "table3")
