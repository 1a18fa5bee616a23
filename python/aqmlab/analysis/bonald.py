"""Bonald, May & Bolot 2000, "Analytic evaluation of RED performance".

The paper models a router with a buffer of K packets, exponential service times
(rate mu = 1 here, so time is in mean service times and the offered load rho equals
the arrival rate in packets per service time) and Poisson or batch-Poisson input:

- Section II-A: bursts of B packets arrive as a Poisson process, rho = B lambda / mu;
  Tail Drop admits what fits; RED with a drop function d of the *instantaneous* queue
  applies, by Approximation 1, the same d to every packet of a burst, taken at the
  queue size the burst's first packet sees. The number of packets in the router is a
  Markov chain: :meth:`BonaldModel.generator` builds its generator and
  :meth:`BonaldModel.distribution` solves pi Q = 0.
- Section II-B: a bursty (batch) stream plus a smooth (Poisson) stream, with the drop
  probability of each class (:meth:`BonaldModel.drop_probabilities`).
- Section II-A: the M/M/1/K loss probability (:func:`mm1k_loss`).
- Section III: the number of consecutive drops, Tail Drop (III-A, geometric with
  p = rho/(rho+1): mean rho+1, variance rho(rho+1)) and RED (III-B, eq. 4 under
  Approximation 2), with mean and variance (:meth:`BonaldModel.consecutive_drops`).
- Section IV: the queue-size distribution, M/M/1/K (IV-A) and eq. 5 for RED (IV-B),
  with mean and variance (:meth:`BonaldModel.queue_moments`).

Which queue size does an arrival see?
-------------------------------------
Eq. 5 writes the stationary law as rho^k prod_{l<k} (1 - d(l)): a packet arriving
when n packets are in the router (the one in service included) is dropped with
probability d(n). Read literally this gives, for Example 1 (K = 40, min_th = 20,
max_th = 40, max_p = 1) at rho = 2, a mean queue of 30.0 -- but Table III prints
29.0 (variance 10.0 either way). The paper's table is reproduced when the drop
function is applied to the queue size *including the arriving packet*, d(n + 1):
mean 29.0, variance 10.0, while Tail Drop (which drops exactly when n = K under
either reading) keeps 39.0 and 2.0. aqmlab therefore uses
``convention="including"`` by default and offers ``"excluding"`` (eq. 5 literally).
See docs/analysis.md for the full comparison with the paper's tables.

Comparing with a simulation
---------------------------
Every quantity is what a simulation with open-loop sources measures directly:
:meth:`BonaldModel.distribution` is the time-average distribution of the number of
packets in the router (in service included); the per-class drop probabilities are
the fractions of each class's packets dropped (early and forced drops together);
:meth:`BonaldModel.consecutive_drops` with ``weighting="run"`` and
:meth:`BonaldModel.consecutive_drops_exact` are the mean and variance over *runs* of
consecutive drops (a histogram of run lengths), whereas eq. 4 as printed
(``weighting="drop"``) weights each run by its length. :meth:`BonaldModel.summary`
returns them all as one dict.
"""

from __future__ import annotations

import numpy as np

from ..base import integer
from .bonald_chain import BonaldModel, red_eq5_distribution
from .bonald_forms import (
    CONVENTIONS,
    DEFAULT_CONVENTION,
    ConsecutiveDrops,
    DropProbabilities,
    mm1k_distribution,
    mm1k_loss,
    red_drop_function,
)

__all__ = [
    "BonaldModel",
    "DropProbabilities",
    "ConsecutiveDrops",
    "CONVENTIONS",
    "DEFAULT_CONVENTION",
    "red_drop_function",
    "mm1k_distribution",
    "mm1k_loss",
    "red_eq5_distribution",
    "queue_distribution",
    "queue_moments",
    "drop_probability",
    "class_drop_probabilities",
    "consecutive_drops",
    "consecutive_drop_pmf",
]


# --------------------------------------------------------------- the contract
def queue_distribution(
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
    burst: int = 1,
) -> np.ndarray:
    """Stationary distribution of the number of packets in the router, n = 0..K.

    Bonald, May & Bolot Sections II-A and IV: the batch-Poisson Markov chain for
    Tail Drop or RED on the instantaneous queue (Approximation 1), solved from its
    generator; equals M/M/1/K and eq. 5 for burst = 1. `policy` "taildrop" or "red";
    `rho` > 0 offered load; `K` >= 1 packets; RED's `min_th`, `max_th` (None = K)
    in packets and `max_p`; `burst` = B packets. Returns a numpy array of length K+1.
    """
    return BonaldModel(policy, rho, K, min_th, max_th, max_p, burst).distribution()


def queue_moments(
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
    burst: int = 1,
) -> tuple[float, float]:
    """(mean, variance) of the queue-size distribution (Section IV, Table III), packets."""
    return BonaldModel(policy, rho, K, min_th, max_th, max_p, burst).queue_moments()


def drop_probability(
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
    burst: int = 1,
    bursty_fraction: float = 1.0,
) -> float:
    """Probability that a packet is dropped (Section II), over all packets.

    A single bursty stream by default (`bursty_fraction` = 1, Section II-A); a
    fraction below 1 mixes in a smooth Poisson stream carrying the rest of `rho`
    (Section II-B). Arguments as :func:`queue_distribution`. Dimensionless.
    """
    return (
        BonaldModel(policy, rho, K, min_th, max_th, max_p, burst, bursty_fraction)
        .drop_probabilities()
        .total
    )


def class_drop_probabilities(
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
    burst: int = 3,
    bursty_fraction: float = 0.5,
) -> tuple[float, float]:
    """(P(b), P(s)): drop probability of the bursty and of the smooth class (Section II-B).

    `rho` is the total load rho(b) + rho(s), `bursty_fraction` = rho(b)/rho; the
    paper's examples use B = 3 (the default here). Tail Drop is biased against the
    bursty class; RED (Approximation 1) gives both the same probability.
    """
    dp = BonaldModel(
        policy, rho, K, min_th, max_th, max_p, burst, bursty_fraction
    ).drop_probabilities()
    return dp.bursty, dp.smooth


def consecutive_drops(
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
) -> tuple[float, float]:
    """(mean, variance) of the number of consecutive drops (Section III, Poisson input).

    Tail Drop: Section III-A (rho + 1, rho (rho + 1)). RED: the distribution of eq. 4
    (Approximation 2), its true variance (see :meth:`BonaldModel.consecutive_drops`
    for the paper's printed variance expression and for run-weighted and exact
    variants). Packets and packets^2.
    """
    cd = BonaldModel(policy, rho, K, min_th, max_th, max_p, 1).consecutive_drops()
    return cd.mean, cd.variance


def consecutive_drop_pmf(
    policy: str,
    rho: float,
    K: int,
    min_th: float | None = None,
    max_th: float | None = None,
    max_p: float | None = None,
    n_max: int = 30,
) -> np.ndarray:
    """P(N = n) for n = 1..n_max (Fig. 8 / Fig. 9): differences of the survival function.

    Section III-A (Tail Drop) and eq. 4 (RED). Returns an array of length `n_max`.
    """
    n = integer("n_max", n_max, minimum=1)
    s = BonaldModel(policy, rho, K, min_th, max_th, max_p, 1).consecutive_drop_survival(
        np.arange(n + 1)
    )
    return s[:-1] - s[1:]
