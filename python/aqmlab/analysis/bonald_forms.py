"""Bonald, May & Bolot 2000: the closed forms (M/M/1/K, RED's drop function), the
conventions of which queue size an arrival sees, and the result types of
:mod:`aqmlab.analysis.bonald`'s Markov chains (see that module for the model).
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from ..base import integer, positive
from .floyd import red_initial_probability

#: "including": an arrival that finds n packets in the router is dropped with
#: probability d(n + 1) (the queue counting itself) -- reproduces Table III.
#: "excluding": with probability d(n) -- eq. 5 read literally.
CONVENTIONS = ("including", "excluding")
DEFAULT_CONVENTION = "including"


def red_drop_function(k: Any, min_th: float, max_th: float, max_p: float) -> np.ndarray:
    """RED's drop function d(k) of Bonald, May & Bolot Section II (Fig. 1).

    d = 0 for k < min_th, d = max_p (k - min_th) / (max_th - min_th) for
    min_th <= k < max_th, d = 1 for k >= max_th. `k`, `min_th`, `max_th` in packets,
    `max_p` in (0, 1]; vectorised over `k`. Returns probabilities.
    """
    return np.asarray(red_initial_probability(k, min_th, max_th, max_p), dtype=float)


def binomial_pmf(B: int, p: np.ndarray) -> np.ndarray:
    """P(Binomial(B, p) = j) for j = 0..B, one row per entry of `p` (computed in log space)."""
    j = np.arange(B + 1, dtype=float)
    log_comb = math.lgamma(B + 1) - np.array(
        [math.lgamma(x + 1) + math.lgamma(B - x + 1) for x in j]
    )
    p = np.asarray(p, dtype=float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        lp = np.where(j > 0, j * np.log(p), 0.0)
        lq = np.where(j < B, (B - j) * np.log1p(-p), 0.0)
    return np.exp(log_comb + lp + lq)


def check_rho_K(rho: float, K: int) -> tuple[float, int]:
    """Validated (rho > 0, integer K >= 1)."""
    return positive("rho", rho), integer("K", K, minimum=1)


def mm1k_distribution(rho: float, K: int) -> np.ndarray:
    """pi(k) = rho^k (1 - rho) / (1 - rho^(K+1)), k = 0..K: the M/M/1/K queue.

    Bonald, May & Bolot Section IV-A (Tail Drop with Poisson input). `rho` > 0 is the
    offered load, `K` >= 1 the buffer in packets (the one in service included).
    Computed in log space so that K in the thousands and rho far from 1 neither
    overflow nor lose the small terms; rho = 1 gives the uniform law.
    """
    r, n = check_rho_K(rho, K)
    logw = np.arange(n + 1) * math.log(r)
    w = np.exp(logw - logw.max())
    return w / w.sum()


def mm1k_loss(rho: float, K: int) -> float:
    """P = 1 - (1 - rho^K) / (1 - rho^(K+1)): loss probability of the M/M/1/K queue.

    Bonald, May & Bolot Section II-A; equal to pi(K) by PASTA. Dimensionless; tends to
    1 - 1/rho for rho >> 1 (eq. 1).
    """
    return float(mm1k_distribution(rho, K)[-1])


class DropProbabilities(NamedTuple):
    """Per-packet drop probabilities (dimensionless) of Section II."""

    total: float  #: over all packets, (rho_b P(b) + rho_s P(s)) / rho
    bursty: float  #: P(b): packets of the batch-Poisson stream (nan if it has no load)
    smooth: float  #: P(s): packets of the Poisson stream (nan if it has no load)


class ConsecutiveDrops(NamedTuple):
    """Mean and variance of the number N of consecutive drops (Section III)."""

    mean: float  #: E(N), packets
    variance: float  #: var(N) of the distribution, packets^2
    variance_paper_formula: float  #: Section III-B's printed expression (nan for Tail Drop)
    excluded_share: float  #: share of drops in states where d = 1, left out of eq. 4
