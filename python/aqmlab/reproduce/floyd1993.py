"""Floyd & Jacobson, "Random Early Detection Gateways for Congestion Avoidance" (1993)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .framework import Context, experiment

PAPER = "Floyd & Jacobson 1993, IEEE/ACM ToN 1(4)"

# The catalogue's scenario files ship inside the package (`scenarios/` at the top of the
# source tree links there).
_SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"


def _scenario(name: str):
    """A scenario file of the catalogue, by file name."""
    from ..sim import Scenario

    return Scenario.from_file(_SCENARIOS / name)


@experiment("floyd1993-fig3", "Four staggered FTP connections through a RED gateway: queue, average, drops", PAPER)
def fig3(ctx: Context) -> None:
    """The simulation of Section V (network of Fig. 4): queue and average over time with the
    thresholds, each connection's packet numbers with drops marked, and the utilization."""
    import matplotlib.pyplot as plt

    from ..sim import simulate

    sc = _scenario("floyd1993_fig3.toml")
    ctx.assume("Topology, windows and start times as scenarios/floyd1993_fig3.toml states: sources at "
               "0, 0.2, 0.4, 0.6 s; windows 33/67/78/112 packets; Tahoe with fast retransmit; "
               "ACKs of 40 bytes; buffer 1000 packets.")
    res = simulate(sc, progress=False)
    first = simulate(sc.replace(warmup="0s", duration="1s"), progress=False).summary["links"]["g5->n6"]
    second = simulate(sc.replace(warmup="1s", duration="2s"), progress=False).summary["links"]["g5->n6"]
    q = res.traces["queue"]
    pk = res.traces["packets"]
    ctx.save_data(q, "queue_trace")
    ctx.save_data(pk[pk["event"].isin(["a", "x"])], "packet_events")

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 6), sharex=True)
    ax1.step(q["time"], q["queue"], where="post", lw=0.6, label="queue")
    ax1.plot(q["time"], q["avg"], "r", lw=1.5, label="average (avg)")
    for th in (5, 15):
        ax1.axhline(th, color="k", ls=":", lw=0.8)
    ax1.set_ylabel("queue (packets)")
    ax1.legend(loc="upper right")
    ax1.set_title("Fig. 3: RED gateway, four FTP connections (thresholds 5 and 15)")
    arr = pk[pk["event"] == "a"]
    drops = pk[pk["event"] == "x"]
    # the paper's y axis: n mod 90 + (i - 1) 100 for packet n of node i
    for f, g in arr.groupby("flow"):
        ax2.plot(g["time"], g["seq"] % 90 + 100 * f, ".", ms=1, color=f"C{f}")
    ax2.plot(drops["time"], drops["seq"] % 90 + 100 * drops["flow"], "kx", ms=5, label="dropped")
    ax2.set_ylabel("packet number (mod 90) + 100 (node - 1)")
    ax2.set_xlabel("time (s)")
    ax2.legend(loc="upper right")
    ctx.save_fig(fig, "fig3")

    ctx.compare.value("utilization of the gateway link, 0-1 s", 0.76, first["utilization"], 0.03)
    ctx.compare.value("utilization of the gateway link, 1-2 s", 0.82, second["utilization"], 0.03)
    ctx.compare.claim("no packet is dropped by buffer overflow (all drops by RED)",
                      res.summary["links"]["g5->n6"]["overflow_drops"] == 0,
                      f"{res.summary['links']['g5->n6']['overflow_drops']} overflow drops")
    qmax = int(q["queue"].max())
    ctx.compare.claim("the instantaneous queue stays below 40 packets (Section V)", qmax < 40,
                      f"maximum queue {qmax} packets")
    if qmax >= 40:
        ctx.note(f"The queue reaches {qmax} packets once, in a slow-start burst while the average is "
                 "still below min_th; the paper's Fig. 3 stays below 40. Start times and windows are "
                 "reconstructions (the figure is not in the text), and the burst size at that moment "
                 "depends on them.")
    ctx.compare.not_reported("drops at the gateway over 0-2 s", int(len(drops)))


@experiment("floyd1993-fig7", "Average queue after a burst of L packets (eq. 2) against w_q and L", PAPER)
def fig7(ctx: Context) -> None:
    """Eq. 2's surface over w_q in [0.001, 0.005] and L in [10, 100], checked against the
    RED implementation driven with the same bursts, and eq. 3's worked example."""
    import matplotlib.pyplot as plt

    from .. import aqm
    from ..analysis import red_burst_average, red_max_w_q

    w = np.linspace(0.001, 0.005, 41)
    L = np.arange(10, 101, 2)
    W, LL = np.meshgrid(w, L)
    avg = np.vectorize(red_burst_average)(W, LL)
    ctx.save_data(pd.DataFrame({"w_q": W.ravel(), "L": LL.ravel(), "avg_L": avg.ravel()}), "eq2_surface")

    fig = plt.figure(figsize=(7, 5))
    ax = fig.add_subplot(projection="3d")
    ax.plot_surface(W, LL, avg, cmap="viridis", linewidth=0)
    ax.set_xlabel("w_q")
    ax.set_ylabel("L (burst, packets)")
    ax.set_zlabel("average queue after the burst")
    ax.set_title("Fig. 7: avg_L = L + 1 + ((1 - w_q)^(L+1) - 1) / w_q")
    ctx.save_fig(fig, "fig7")

    # The library's RED driven by the burst: the (L+1)-th of L+1 back-to-back packets sees L waiting.
    worst = 0.0
    for wq in (0.001, 0.003, 0.005):
        for burst in (10, 50, 100):
            q = aqm.Red(min_th=1e6, max_th=2e6, w_q=wq, limit=10_000)
            for _ in range(burst + 1):
                q.enqueue(1.0, 1000, 0)
            worst = max(worst, abs(q.avg - red_burst_average(wq, burst)))
    ctx.compare.claim("RED implementation after a burst equals eq. 2 (max abs difference < 1e-9)",
                      worst < 1e-9, f"{worst:.2e}")
    a100 = red_burst_average(0.001, 100)
    ctx.compare.value("avg after a burst of L=100 at w_q=0.001 (packets)", 4.88, a100, 0.01)
    ctx.note(f"Eq. 2 gives {a100:.4f}; the paper prints 4.88 (truncated: rounding would give 4.89).")
    wmax = red_max_w_q(5, 50)
    ctx.compare.value("largest w_q keeping avg_L < min_th for min_th=5, L=50 (eq. 3)", 0.0042, wmax, 0.00005)


@experiment("floyd1993-fig8", "Method 1 (geometric) vs Method 2 (uniform) marking over 5000 packets", PAPER)
def fig8(ctx: Context) -> None:
    """Marks over 5000 arrivals at a constant average: Method 1 with p = 0.02, Method 2 with
    p_b = 0.01 (RED's own code, w_q = 1 and the queue held constant)."""
    import matplotlib.pyplot as plt

    from .. import aqm

    n = 5000

    def marks(method: str, p_b: float, seed: int) -> np.ndarray:
        # thresholds 0..100 and max_p = 1 make p_b = q / 100 for a held queue of q packets
        q = aqm.Red(min_th=0.0, max_th=100.0, w_q=1.0, max_p=1.0, limit=1_000_000,
                    mark_method=method, seed=seed)
        hold = int(round(p_b * 100))
        for _ in range(hold):
            q.enqueue(0.0, 1000, 0)
        marked = []
        for i in range(n):
            v = q.enqueue(1e-6 * (i + 1), 1000, 1)
            if v == "enqueue":
                q.dequeue(1e-6 * (i + 1))
            else:
                marked.append(i + 1)
        return np.array(marked)

    m1 = marks("geometric", 0.02, 1)
    m2 = marks("uniform", 0.01, 2)
    ctx.assume("The average is held constant (w_q = 1, queue fixed) so that p_b is exactly 0.02 (Method 1) "
               "and 0.01 (Method 2), as in the figure.")
    ctx.save_data(pd.DataFrame({"method": ["method1"] * len(m1) + ["method2"] * len(m2),
                                "packet": np.concatenate([m1, m2])}), "marks")
    fig, ax = plt.subplots(figsize=(9, 2.4))
    ax.plot(m1, np.full(len(m1), 1.0), "|", ms=14, label="Method 1 (geometric, p = 0.02)")
    ax.plot(m2, np.full(len(m2), 0.0), "|", ms=14, label="Method 2 (uniform, p_b = 0.01)")
    ax.set_yticks([0, 1], ["Method 2", "Method 1"])
    ax.set_ylim(-0.6, 1.6)
    ax.set_xlabel("packet number")
    ax.set_title("Fig. 8: randomly marked packets")
    ctx.save_fig(fig, "fig8")

    # Counts: Method 1 ~ Binomial(5000, 0.02): sd = 9.9; Method 2: renewal with uniform gaps
    sd1 = math.sqrt(n * 0.02 * 0.98)
    g = 1 / 0.01
    mean_gap, var_gap = (g + 1) / 2, (g * g - 1) / 12
    sd2 = math.sqrt(n * var_gap / mean_gap ** 3)
    ctx.compare.value("marks out of 5000, Method 1 (p = 0.02)", 100, len(m1), 3 * sd1)
    ctx.compare.value("marks out of 5000, Method 2 (p_b = 0.01)", 100, len(m2), 3 * sd2 + abs(100 - n / mean_gap))
    cv1 = np.diff(m1).std() / np.diff(m1).mean()
    cv2 = np.diff(m2).std() / np.diff(m2).mean()
    ctx.compare.claim("marks more clustered with Method 1 (gap coefficient of variation larger)",
                      cv1 > cv2, f"CV {cv1:.2f} vs {cv2:.2f}")
    ctx.compare.claim("Method 2 never waits more than 1/p_b = 100 packets between marks",
                      int(np.diff(m2).max()) <= 100, f"longest gap {int(np.diff(m2).max())}")
    ctx.note("The caption writes Method 2's probability as p/(1 + i p); with that hazard the gaps have "
             "a tail ~ 1/(1 + 0.01 n) and infinite mean, which cannot mark ~100 of 5000 packets. The "
             "text's p/(1 - i p) (Section VII) is what the figure shows and what aqmlab uses.")
    # The caption's reading, computed: expected marks in 5000 arrivals when the k-th arrival
    # after a mark is marked with probability p / (1 + (k-1) p), by the renewal recursion.
    p = 0.01
    hz = p / (1 + np.arange(n) * p)
    f = hz * np.concatenate([[1.0], np.cumprod(1 - hz)[:-1]])  # gap distribution
    u = np.zeros(n + 1)
    u[0] = 1.0
    for t in range(1, n + 1):
        u[t] = np.dot(u[t - 1::-1][:t], f[:t])
    caption_marks = u[1:].sum()
    ctx.compare.claim("the caption's p/(1 + i p) would mark far fewer than 100 of 5000 packets",
                      caption_marks < 60, f"{caption_marks:.1f} expected marks")


@experiment("floyd1993-fig16", "Hoeffding bound on a connection's share of the last n marks", PAPER)
def fig16(ctx: Context) -> None:
    """Prob(S_{i,n} >= c p_i n) <= exp(-2 n (c-1)^2 p_i^2) for c = 2, 4 and n = 100, beside
    the exact binomial tail it bounds."""
    import matplotlib.pyplot as plt
    from scipy import stats

    from ..analysis import hoeffding_bound

    n = 100
    rows = []
    fig, ax = plt.subplots(figsize=(6, 4))
    ok_all = True
    for c, style in ((2, "-"), (4, "--")):
        p = np.linspace(0.005, 1.0 / c, 100)
        bound = np.array([hoeffding_bound(pi, c, n) for pi in p])
        exact = np.array([stats.binom.sf(math.ceil(c * pi * n) - 1, n, pi) for pi in p])
        ok_all &= bool(np.all(exact <= bound + 1e-12))
        ax.plot(p, bound, "k" + style, label=f"bound, C = {c}")
        ax.plot(p, exact, style, color="tab:orange", alpha=0.7, label=f"exact binomial tail, C = {c}")
        rows.append(pd.DataFrame({"C": c, "p_i": p, "bound": bound, "exact": exact}))
    ax.set_xlabel("p_i (connection's fraction of the bandwidth)")
    ax.set_ylabel("probability")
    ax.set_title("Fig. 16: Prob(S_i,n >= C p_i n), n = 100")
    ax.legend()
    ctx.save_fig(fig, "fig16")
    ctx.save_data(pd.concat(rows), "fig16")
    ctx.compare.claim("the bound lies above the exact binomial tail everywhere on the curves", ok_all)
    for c in (2, 4):
        for pi in (0.05, 0.1, 0.2):
            if c * pi <= 1:
                ctx.compare.not_reported(f"bound for C = {c}, p_i = {pi}", hoeffding_bound(pi, c, n),
                                         "curve only")
