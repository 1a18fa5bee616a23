"""Bonald, May & Bolot's open-loop models run on the packet-level simulator.

:func:`scenario` writes the model of Section II as a scenario: one link of rate
8 Mb/s serving packets of exponential size (mean 1000 bytes, so exponential service at
mu = 1000 packets/s), fed by a batch-Poisson stream (bursts of B packets) and/or a
Poisson stream with total offered load rho. :func:`drop_probabilities` runs
independent replications and returns each class's drop probability with a confidence
interval, to set beside :class:`aqmlab.analysis.bonald.BonaldModel`.

Mapping the model's conventions onto the simulator's
----------------------------------------------------
The model counts n, the packets in the router *including the one in service*, has a
buffer of K such packets, and (aqmlab's default ``convention="including"``, the one
that reproduces Table III) drops an arrival that finds n packets with probability
d(n + 1). The simulator's queue, like ns-2's and Linux's, holds the packets *waiting*:
an arrival that finds n >= 1 packets in the router sees q = n - 1. So the scenario uses
``limit = K - 1`` waiting packets and RED thresholds ``min_th - 2`` and ``max_th - 2``
with ``w_q = 1`` (the drop function of the instantaneous queue) and independent drops
(``mark_method = "geometric"``, the model's d has no count). The simulation has no
Approximation 1: each packet of a burst sees the queue its predecessors built.
"""

from __future__ import annotations

import math
from typing import Any

from ..base import in_range, integer, positive
from ..sim import simulate

LINK_RATE_BPS = 8e6
MEAN_PACKET_BYTES = 1000


def scenario(  # noqa: PLR0913 - the model's parameters (Bonald et al. Sec. II), by name
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
    burst: int = 1,
    bursty_fraction: float = 1.0,
    duration: float = 200.0,
    warmup: float = 10.0,
    seed: int = 1,
) -> dict[str, Any]:
    """The simulator scenario (a dict) of the Section II model; arguments as
    :func:`aqmlab.analysis.bonald.drop_probability`, plus run length (s) and seed."""
    if policy not in ("taildrop", "red"):
        raise ValueError(f"policy must be 'taildrop' or 'red', got {policy!r}")
    rho = positive("rho", rho)
    K = integer("K", K, minimum=2)
    burst = integer("burst", burst, minimum=1)
    if not 0.0 <= bursty_fraction <= 1.0:
        raise ValueError(f"bursty_fraction must be in [0, 1], got {bursty_fraction}")
    if policy == "taildrop":
        queue: dict[str, Any] = {"type": "droptail", "limit": K - 1}
    else:
        max_th = K if max_th is None else max_th
        if min_th is None or max_p is None:
            raise ValueError("min_th and max_p are required for policy 'red'")
        queue = {
            "type": "red",
            "limit": K - 1,
            "min_th": float(min_th) - 2.0,
            "max_th": float(max_th) - 2.0,
            "w_q": 1.0,
            "max_p": float(max_p),
            "mark_method": "geometric",
        }
    total_bps = rho * LINK_RATE_BPS
    flows = []
    if bursty_fraction > 0:
        flows.append(
            {
                "name": "bursty",
                "type": "batch_poisson",
                "src": "s",
                "dst": "d",
                "rate": bursty_fraction * total_bps,
                "batch": burst,
                "packet_size": MEAN_PACKET_BYTES,
                "size_distribution": "exponential",
            }
        )
    if bursty_fraction < 1:
        flows.append(
            {
                "name": "smooth",
                "type": "poisson",
                "src": "s",
                "dst": "d",
                "rate": (1.0 - bursty_fraction) * total_bps,
                "packet_size": MEAN_PACKET_BYTES,
                "size_distribution": "exponential",
            }
        )
    return {
        "duration": duration,
        "warmup": warmup,
        "seed": seed,
        "link": [{"a": "s", "b": "d", "rate": LINK_RATE_BPS, "delay": "1ms", "queue_ab": queue}],
        "flow": flows,
    }


# two-sided Student t quantiles at 0.995 for 1..9 degrees of freedom (99% intervals)
_T995 = [63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250]


def drop_probabilities(  # noqa: PLR0913 - the model's parameters (Bonald et al. Sec. II), by name
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
    burst: int = 1,
    bursty_fraction: float = 1.0,
    replications: int = 5,
    duration: float = 200.0,
    seed: int = 1,
) -> dict[str, tuple[float, float]]:
    """Simulated drop probabilities ``{"total"|"bursty"|"smooth": (mean, half-width)}``,
    the half-width of a 99% Student-t interval over `replications` independent runs."""
    n = integer("replications", replications, minimum=2)
    if n > len(_T995) + 1:
        raise ValueError(f"replications must be <= {len(_T995) + 1}, got {n}")
    samples: dict[str, list] = {"total": [], "bursty": [], "smooth": []}
    for r in range(n):
        sc = scenario(
            policy, rho, K, min_th, max_th, max_p, burst, bursty_fraction, duration, seed=seed + r
        )
        flows = simulate(sc, progress=False).summary["flows"]
        arrivals = {f["name"]: f["arrivals"] for f in flows}
        drops = {f["name"]: f["drops"] for f in flows}
        samples["total"].append(sum(drops.values()) / max(sum(arrivals.values()), 1))
        for cls in ("bursty", "smooth"):
            if cls in arrivals:
                samples[cls].append(drops[cls] / max(arrivals[cls], 1))
    return {k: t_interval(xs) for k, xs in samples.items() if xs}


# ------------------------------------------------------------------ additions
def with_average(sc: dict[str, Any], w_q: float) -> dict[str, Any]:
    """The same scenario with RED's average queue (weight `w_q`) instead of the
    instantaneous queue (Sections II-C, III-C and IV-C); Tail Drop is left unchanged."""
    q = sc["link"][0]["queue_ab"]
    if q["type"] == "red":
        q["w_q"] = float(in_range("w_q", w_q, 0.0, 1.0))
    return sc


def pareto_scenario(  # noqa: PLR0913 - the model's parameters (Bonald et al. Sec. II), by name
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
    bursty_fraction: float = 0.9,
    shape: float = 1.4,
    burst_time: float = 2.5e-6,
    spacing: float = 1e-6,
    duration: float = 200.0,
    warmup: float = 10.0,
    seed: int = 1,
) -> dict[str, Any]:
    """Section II-D (Fig. 7): the bursty stream replaced by bursts with Pareto times between
    them, beside a Poisson stream. The simulator's ``pareto_onoff`` source with ON and OFF
    periods Pareto of the same `shape`; during ON one packet every `spacing` s (nearly
    back to back, like a batch), so a burst holds ceil(ON / spacing) packets, about
    `burst_time`/`spacing` + 0.5 on average. The mean OFF time is set for the bursty
    share of `rho`; the load actually offered is what the run's arrivals say."""
    sc = scenario(policy, rho, K, min_th, max_th, max_p, 1, bursty_fraction, duration, warmup, seed)
    bursty_pps = bursty_fraction * positive("rho", rho) * LINK_RATE_BPS / (8 * MEAN_PACKET_BYTES)
    mean_burst = burst_time / spacing + 0.5
    off = mean_burst / bursty_pps - burst_time
    for f in sc["flow"]:
        if f["name"] == "bursty":
            for k in ("rate", "batch"):
                f.pop(k, None)
            f.update(
                type="pareto_onoff",
                interval=spacing,
                on_time=burst_time,
                off_time=max(off, 1e-9),
                shape=float(shape),
            )
    return sc


def drop_run_lengths(packets, link: str = "s->d", since: float = 0.0):
    """Lengths of the runs of consecutively dropped arrivals at `link` from a packets trace
    (events ``a`` admitted arrival, ``m`` marked arrival, ``x`` drop; departures ignored),
    counting arrivals at or after `since` s. Returns a numpy int array, one entry per run
    (a run still open at the end of the trace is left out)."""
    import numpy as np

    pk = packets[
        (packets["link"] == link)
        & (packets["time"] >= since)
        & packets["event"].isin(["a", "m", "x"])
    ]
    drop = (pk["event"].to_numpy() == "x").astype(np.int8)
    if drop.size == 0:
        return np.zeros(0, dtype=int)
    edges = np.diff(np.concatenate(([0], drop, [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1)
    runs = ends - starts
    if drop[-1] == 1:
        runs = runs[:-1]
    return runs.astype(int)


def router_queue_histogram(queue_samples, utilization: float, K: int):
    """Distribution of the packets in the router (waiting + the one in service), n = 0..K,
    from time samples of the waiting queue: q > 0 waiting means q + 1 in the router; the
    samples with q = 0 are split between n = 0 and n = 1 so that P(n = 0) = 1 - utilization
    (the trace does not say whether the line was busy)."""
    import numpy as np

    q = np.asarray(queue_samples, dtype=int)
    h = np.bincount(np.clip(q + 1, 0, K), minlength=K + 1).astype(float)[: K + 1]
    h /= max(h.sum(), 1.0)
    p_empty = min(max(1.0 - float(utilization), 0.0), h[1])
    h[0], h[1] = p_empty, h[1] - p_empty
    return h


def t_interval(xs) -> tuple[float, float]:
    """(mean, half-width of the 99% Student-t interval) of 2..10 independent samples."""
    n = len(xs)
    if not 2 <= n <= len(_T995) + 1:
        raise ValueError(f"need 2 to {len(_T995) + 1} samples, got {n}")
    m = sum(xs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    return m, _T995[n - 2] * sd / math.sqrt(n)
