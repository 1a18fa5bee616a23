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

import math
from dataclasses import dataclass
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

import numpy as np
from scipy import sparse

from ..base import in_range, integer, positive
from .floyd import red_initial_probability

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

#: "including": an arrival that finds n packets in the router is dropped with
#: probability d(n + 1) (the queue counting itself) -- reproduces Table III.
#: "excluding": with probability d(n) -- eq. 5 read literally.
CONVENTIONS = ("including", "excluding")
DEFAULT_CONVENTION = "including"
_POLICIES = ("taildrop", "red")


def red_drop_function(k: Any, min_th: float, max_th: float, max_p: float) -> np.ndarray:
    """RED's drop function d(k) of Bonald, May & Bolot Section II (Fig. 1).

    d = 0 for k < min_th, d = max_p (k - min_th) / (max_th - min_th) for
    min_th <= k < max_th, d = 1 for k >= max_th. `k`, `min_th`, `max_th` in packets,
    `max_p` in (0, 1]; vectorised over `k`. Returns probabilities.
    """
    return np.asarray(red_initial_probability(k, min_th, max_th, max_p), dtype=float)


def _binom_pmf(B: int, p: np.ndarray) -> np.ndarray:
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


def _check_rho_K(rho: float, K: int) -> Tuple[float, int]:
    """Validated (rho > 0, integer K >= 1)."""
    return positive("rho", rho), integer("K", K, minimum=1)


def mm1k_distribution(rho: float, K: int) -> np.ndarray:
    """pi(k) = rho^k (1 - rho) / (1 - rho^(K+1)), k = 0..K: the M/M/1/K queue.

    Bonald, May & Bolot Section IV-A (Tail Drop with Poisson input). `rho` > 0 is the
    offered load, `K` >= 1 the buffer in packets (the one in service included).
    Computed in log space so that K in the thousands and rho far from 1 neither
    overflow nor lose the small terms; rho = 1 gives the uniform law.
    """
    r, n = _check_rho_K(rho, K)
    logw = np.arange(n + 1) * math.log(r)
    w = np.exp(logw - logw.max())
    return w / w.sum()


def mm1k_loss(rho: float, K: int) -> float:
    """P = 1 - (1 - rho^K) / (1 - rho^(K+1)): loss probability of the M/M/1/K queue.

    Bonald, May & Bolot Section II-A; equal to pi(K) by PASTA. Dimensionless; tends to
    1 - 1/rho for rho >> 1 (eq. 1).
    """
    return float(mm1k_distribution(rho, K)[-1])


def red_eq5_distribution(
    rho: float,
    K: int,
    min_th: float,
    max_th: Optional[float],
    max_p: float,
    convention: str = DEFAULT_CONVENTION,
) -> np.ndarray:
    """Eq. 5: pi(k) proportional to rho^k prod_{l=0..k-1} (1 - d(l)), k = 0..K.

    Bonald, May & Bolot Section IV-B (RED on the instantaneous queue, Poisson input, a
    birth-death process). With ``convention="including"`` d(l + 1) replaces d(l) (the
    arrival counts itself; see the module docstring). `max_th` None means K, as the
    paper lets it be. Closed form, computed in log space; the Markov-chain solution of
    :class:`BonaldModel` must agree with it for burst = 1.
    """
    m = BonaldModel("red", rho, K, min_th, max_th, max_p, 1, 1.0, convention)
    d = m.arrival_drop()
    with np.errstate(divide="ignore"):
        logs = np.log(m.rho) + np.log1p(-d[:-1])
    logw = np.concatenate([[0.0], np.cumsum(logs)])
    finite = np.isfinite(logw)
    w = np.zeros_like(logw)
    w[finite] = np.exp(logw[finite] - logw[finite].max())
    return w / w.sum()


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


@dataclass(frozen=True)
class BonaldModel:
    """One configuration of Bonald, May & Bolot's router model.

    - `policy`: ``"taildrop"`` or ``"red"`` (drop function of the instantaneous queue,
      Approximation 1);
    - `rho` > 0: total offered load (packets per mean service time);
    - `K` >= 1: buffer in packets, the packet in service included;
    - `min_th`, `max_th`, `max_p`: RED's drop function (packets, packets,
      probability); `max_th` None means K ("we let max_th = K"); ignored for Tail Drop;
    - `burst` >= 1: packets per batch of the bursty stream (B);
    - `bursty_fraction` in [0, 1]: rho(b) / rho (Section II-B; 1 = a single bursty
      stream, 0 = Poisson only);
    - `convention`: ``"including"`` (default) or ``"excluding"``, the queue size an
      arrival sees (module docstring).

    Invalid values raise ValueError naming the argument.
    """

    policy: str
    rho: float
    K: int
    min_th: Optional[float] = None
    max_th: Optional[float] = None
    max_p: Optional[float] = None
    burst: int = 1
    bursty_fraction: float = 1.0
    convention: str = DEFAULT_CONVENTION

    def __post_init__(self) -> None:
        if self.policy not in _POLICIES:
            raise ValueError(f"policy must be 'taildrop' or 'red', got {self.policy!r}")
        if self.convention not in CONVENTIONS:
            raise ValueError(
                f"convention must be 'including' or 'excluding', got {self.convention!r}"
            )
        rho, K = _check_rho_K(self.rho, self.K)
        object.__setattr__(self, "rho", rho)
        object.__setattr__(self, "K", K)
        object.__setattr__(self, "burst", integer("burst", self.burst, minimum=1))
        object.__setattr__(
            self, "bursty_fraction", in_range("bursty_fraction", self.bursty_fraction, 0.0, 1.0)
        )
        if self.policy == "red":
            if self.min_th is None:
                raise ValueError("min_th is required for policy 'red'")
            if self.max_p is None:
                raise ValueError("max_p is required for policy 'red'")
            mx = float(K) if self.max_th is None else self.max_th
            red_drop_function(0.0, self.min_th, mx, self.max_p)  # validates min_th < max_th, max_p
            object.__setattr__(self, "min_th", float(self.min_th))
            object.__setattr__(self, "max_th", float(mx))
            object.__setattr__(self, "max_p", float(self.max_p))

    def _red_parameters(self) -> Tuple[float, float, float]:
        """RED's (min_th, max_th, max_p), all set by ``__post_init__`` for policy "red"."""
        if self.min_th is None or self.max_th is None or self.max_p is None:
            raise ValueError("min_th, max_th and max_p are needed for policy 'red'")
        return self.min_th, self.max_th, self.max_p

    # ----------------------------------------------------------------- rates
    @property
    def lambda_bursty(self) -> float:
        """Batch arrival rate lambda = rho(b) / B (batches per mean service time)."""
        return self.rho * self.bursty_fraction / self.burst

    @property
    def lambda_smooth(self) -> float:
        """Arrival rate of the Poisson stream, rho(s) (packets per mean service time)."""
        return self.rho * (1.0 - self.bursty_fraction)

    def arrival_drop(self) -> np.ndarray:
        """Drop probability of a packet (or a burst's first packet) arriving in state n = 0..K.

        Tail Drop: 1 when n = K, else 0. RED: d(n + 1) (``"including"``) or d(n)
        (``"excluding"``), and 1 when n = K (the buffer is full).
        """
        n = np.arange(self.K + 1, dtype=float)
        if self.policy == "taildrop":
            d = np.zeros(self.K + 1)
        else:
            seen = n + 1.0 if self.convention == "including" else n
            d = red_drop_function(seen, *self._red_parameters())
        d[self.K] = 1.0
        return d

    def admission(self) -> np.ndarray:
        """A[n, j] = P(j packets of a burst are admitted | n packets in the router), j = 0..B.

        Tail Drop admits min(B, K - n). RED (Approximation 1) drops each packet of the
        burst independently with the probability its first packet sees, then the
        buffer takes what fits: min(Binomial(B, 1 - d), K - n).
        """
        B, K = self.burst, self.K
        n = np.arange(K + 1)
        cap = K - n
        j = np.arange(B + 1)
        if self.policy == "taildrop":
            return (j[None, :] == np.minimum(B, cap)[:, None]).astype(float)
        keep = 1.0 - self.arrival_drop()
        pmf = _binom_pmf(B, keep)
        tail = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]  # P(Binomial >= j)
        capc = np.minimum(cap, B)[:, None]
        return np.where(j[None, :] < capc, pmf, np.where(j[None, :] == capc, tail, 0.0))

    # ---------------------------------------------------------------- chain
    def generator(self) -> sparse.csr_matrix:
        """The generator Q of the number of packets in the router (states 0..K).

        Bonald, May & Bolot Sections II-A and II-B: bursts at rate lambda = rho(b)/B
        move n to n + j with probability A[n, j] (:meth:`admission`), Poisson packets
        at rate rho(s) move n to n + 1 unless dropped, services at rate mu = 1 move n
        to n - 1. Sparse, (K+1) x (K+1), rows summing to zero.
        """
        K, B = self.K, self.burst
        n = np.arange(K + 1)
        rows: List[np.ndarray] = []
        cols: List[np.ndarray] = []
        vals: List[np.ndarray] = []

        def jumps(r: np.ndarray, c: np.ndarray, rate: np.ndarray) -> None:
            """Add the transitions r -> c at the given rates."""
            rows.append(r)
            cols.append(c)
            vals.append(rate)

        if self.lambda_bursty > 0:
            A = self.admission()
            jj = np.arange(1, B + 1)
            rr = np.repeat(n, B)
            cc = rr + np.tile(jj, K + 1)
            vv = self.lambda_bursty * A[:, 1:].ravel()
            keep = (cc <= K) & (vv > 0)
            jumps(rr[keep], cc[keep], vv[keep])
        if self.lambda_smooth > 0:
            up = self.lambda_smooth * (1.0 - self.arrival_drop())
            keep = (n < K) & (up > 0)
            jumps(n[keep], n[keep] + 1, up[keep])
        jumps(n[1:], n[1:] - 1, np.ones(K))
        r = np.concatenate(rows)
        c = np.concatenate(cols)
        x = np.concatenate(vals)
        Q = sparse.coo_matrix((x, (r, c)), shape=(K + 1, K + 1)).tocsr()
        Q = Q - sparse.diags(np.asarray(Q.sum(axis=1)).ravel())
        return Q.tocsr()

    def distribution(self, method: str = "cut") -> np.ndarray:
        """Stationary distribution pi(n), n = 0..K packets in the router (time average).

        Solves pi Q = 0, sum(pi) = 1 for the generator Q of :meth:`generator`.
        ``method="cut"`` (default) uses the chain's structure: packets leave one at a
        time, so the balance of the cut between n and n + 1,

            mu pi(n + 1) = sum_{i <= n} pi(i) q(i, > n),

        with q(i, > n) the rate of jumps from i to above n (read off Q), is a
        triangular system solved by forward substitution in O(K B), with rescaling so
        that K in the thousands neither overflows nor loses the small terms (all terms
        are positive: no cancellation). ``method="lu"`` replaces one balance equation of
        pi Q = 0 by the normalisation and solves with a sparse LU factorisation (slower
        for large K; kept as a cross-check). For burst = 1 both equal
        :func:`mm1k_distribution` (Tail Drop) and eq. 5 (:func:`red_eq5_distribution`).
        """
        if method not in ("cut", "lu"):
            raise ValueError(f"method must be 'cut' or 'lu', got {method!r}")
        K = self.K
        Q = self.generator()
        if method == "lu":
            from scipy.sparse import linalg as splinalg

            A = sparse.vstack(
                [Q.T.tocsr()[:K], sparse.csr_matrix(np.ones((1, K + 1)))], format="csc"
            )
            b = np.zeros(K + 1)
            b[K] = 1.0
            pi = np.maximum(splinalg.spsolve(A, b), 0.0)
            return pi / pi.sum()
        # Upward rates by jump size: U[i, j-1] = Q[i, i + j], j = 1..B (zero past K).
        B = self.burst
        Qc = Q.tocoo()
        up = Qc.col > Qc.row
        U = np.zeros((K + 1, B))
        U[Qc.row[up], Qc.col[up] - Qc.row[up] - 1] = Qc.data[up]
        tail = np.cumsum(U[:, ::-1], axis=1)[:, ::-1]  # tail[i, k-1] = rate from i to >= i + k
        mu = -Q.diagonal() - U.sum(axis=1)  # departure rate out of each state (1 for n >= 1)
        pi = np.zeros(K + 1)
        pi[0] = 1.0
        for n in range(K):
            lo = max(0, n - B + 1)
            i = np.arange(lo, n + 1)
            pi[n + 1] = pi[lo : n + 1] @ tail[i, n - i] / mu[n + 1]
            if pi[n + 1] > 1e250:
                pi[: n + 2] *= 1e-250
        return pi / pi.sum()

    # --------------------------------------------------------------- measures
    def drop_probabilities(self) -> DropProbabilities:
        """Drop probability per packet, overall and per class (Section II, by PASTA).

        P(b) = sum_n pi(n) E[packets of a burst dropped | n] / B -- for Tail Drop the
        paper's pi(K) + pi(K-1)(B-1)/B + ... + pi(K-B+1)/B; for RED it is the paper's
        sum pi(n) d plus the overflow a burst can still cause, which the paper's
        expression leaves out (equal when B = 1). P(s) = sum_n pi(n) d(n) (Tail Drop:
        pi(K)). Dimensionless.
        """
        pi = self.distribution()
        d = self.arrival_drop()
        B = self.burst
        if self.bursty_fraction > 0:
            A = self.admission()
            admitted = A @ np.arange(B + 1)
            p_b = float(pi @ (B - admitted)) / B
        else:
            p_b = float("nan")
        p_s = float(pi @ d) if self.bursty_fraction < 1 else float("nan")
        f = self.bursty_fraction
        total = (f * p_b if f > 0 else 0.0) + ((1 - f) * p_s if f < 1 else 0.0)
        return DropProbabilities(total, p_b, p_s)

    def queue_moments(self) -> Tuple[float, float]:
        """Mean (packets) and variance (packets^2) of the number in the router (Section IV)."""
        pi = self.distribution()
        n = np.arange(self.K + 1, dtype=float)
        mean = float(pi @ n)
        return mean, float(pi @ (n - mean) ** 2)

    def _require_poisson(self) -> None:
        """Section III assumes Poisson input: refuse bursts."""
        if self.burst != 1:
            raise ValueError(
                f"burst must be 1 for consecutive drops (Section III assumes Poisson input), got {self.burst!r}"
            )

    def _eq4_weights(self, weighting: str) -> Tuple[np.ndarray, np.ndarray, float]:
        """Start-state weights of a run and the drop probabilities, certain-drop states removed."""
        if weighting not in ("drop", "run"):
            raise ValueError(f"weighting must be 'drop' or 'run', got {weighting!r}")
        pi = self.distribution()
        d = self.arrival_drop()
        pd = pi * d
        total = pd.sum()
        if not total > 0:
            raise ValueError("the model drops no packet: rho is too small for consecutive drops")
        certain = d >= 1.0
        excluded = float(pd[certain].sum() / total)
        ok = ~certain & (d > 0)
        if not ok.any():  # every drop is certain: runs never end under Approximation 2
            return np.zeros(0), np.zeros(0), excluded
        w = pd[ok] * (1.0 - d[ok]) if weighting == "run" else pd[ok]
        return w / w.sum(), d[ok], excluded

    def consecutive_drop_survival(
        self, n: Any, weighting: str = "drop", negligible: float = 1e-3
    ) -> np.ndarray:
        """P(N > n) for n = 0, 1, 2, ... (Section III).

        Tail Drop (III-A): p^n with p = lambda/(lambda + mu) = rho/(rho + 1). RED (III-B,
        eq. 4, Approximation 2): sum_k pi(k) d(k)^(n+1) / sum_k pi(k) d(k), the sums over
        the states whose drop probability is below 1 (the paper's "assuming pi(K|drop)
        is negligible"); if those states carry more than `negligible` of the drops (as
        when max_th < K, Section III-C), N is infinite with positive probability and
        the survival function tends to that share. ``weighting="run"`` starts runs with
        probability proportional to pi(k) d(k) (1 - d(k)) -- a run, not a drop, is
        drawn -- which is what a histogram of run lengths measures.
        """
        nn = np.asarray(n, dtype=float)
        if np.any(nn < 0):
            raise ValueError(f"n must be >= 0, got {n!r}")
        if self.policy == "taildrop":
            p = self.rho / (self.rho + 1.0)
            return p**nn
        self._require_poisson()
        w, d, excluded = self._eq4_weights(weighting)
        s = (w[None, :] * d[None, :] ** nn.reshape(-1, 1)).sum(axis=1).reshape(nn.shape)
        if excluded > negligible:
            s = excluded + (1.0 - excluded) * s
        return s

    def consecutive_drops(
        self, weighting: str = "drop", negligible: float = 1e-3
    ) -> ConsecutiveDrops:
        """Mean and variance of the number of consecutive drops (Section III).

        Tail Drop (III-A): N geometric on {1, 2, ...} with P(N > n) = p^n,
        p = rho/(rho + 1): mean 1/(1 - p), variance p/(1 - p)^2 (eq. 3: rho + 1 and
        rho (rho + 1)). RED (III-B): the distribution of eq. 4, whose mean is the
        paper's E(N) = 1 + sum pi d^2/(1-d) / sum pi d and whose variance is
        sum pi d (1+d)/(1-d)^2 / sum pi d - E(N)^2 (law of total variance). The paper's
        printed var(N) = sum pi (d/(1-d))^2 / sum pi d is the mean of the conditional
        variances only; it is returned as ``variance_paper_formula``. When the
        certain-drop states carry more than `negligible` of the drops the mean is
        infinite (Section III-C). ``weighting="run"`` weights start states by runs
        rather than by drops (see :meth:`consecutive_drop_survival`).
        """
        if self.policy == "taildrop":
            p = self.rho / (self.rho + 1.0)
            return ConsecutiveDrops(1.0 / (1.0 - p), p / (1.0 - p) ** 2, float("nan"), 0.0)
        self._require_poisson()
        w, d, excluded = self._eq4_weights(weighting)
        if excluded > negligible:
            inf = float("inf")
            return ConsecutiveDrops(inf, inf, inf, excluded)
        mean = float(w @ (1.0 / (1.0 - d)))
        second = float(w @ ((1.0 + d) / (1.0 - d) ** 2))
        paper = float(w @ (d / (1.0 - d) ** 2))
        return ConsecutiveDrops(mean, second - mean**2, paper, excluded)

    def consecutive_drops_exact(self) -> Tuple[float, float]:
        """Mean and variance of run lengths of consecutive drops, without Approximation 2.

        The same Poisson model, solved exactly: after a drop in state s the next
        arrival finds state l <= s with probability (mu/(lambda+mu))^(s-l)
        lambda/(lambda+mu) (services between arrivals; l = 0 absorbs the rest) and is
        dropped with its own d(l). A run starts at a drop that follows an admitted
        packet. Returns (mean, variance) over runs, in packets and packets^2 -- what
        a simulation's histogram of runs of consecutive drops estimates. For Tail Drop
        it equals Section III-A's geometric law.
        """
        from scipy import linalg

        self._require_poisson()
        lam, mu, K = self.rho, 1.0, self.K
        a, b = lam / (lam + mu), mu / (lam + mu)
        s = np.arange(K + 1)
        diff = s[:, None] - s[None, :]
        P = np.where(diff >= 0, b ** np.maximum(diff, 0) * a, 0.0)
        P[:, 0] = b**s  # no arrival before the queue empties
        d = self.arrival_drop()
        M = P * d[None, :]
        I_M = np.eye(K + 1) - M  # lower triangular
        h = linalg.solve_triangular(I_M, M @ np.ones(K + 1), lower=True)
        g = linalg.solve_triangular(I_M, M @ (1.0 + 2.0 * h), lower=True)
        pi = self.distribution()
        after = np.zeros(K + 1)
        after[1:] = (pi * (1.0 - d))[:-1]
        start = (after @ P) * d
        start = start / start.sum()
        mean = 1.0 + float(start @ h)
        second = float(start @ (1.0 + 2.0 * h + g))
        return mean, second - mean**2

    def summary(self) -> Dict[str, Any]:
        """All of the model's predictions as a dict, for comparison with a simulation."""
        dp = self.drop_probabilities()
        mean, var = self.queue_moments()
        out: Dict[str, Any] = {
            "policy": self.policy,
            "rho": self.rho,
            "K": self.K,
            "burst": self.burst,
            "bursty_fraction": self.bursty_fraction,
            "convention": self.convention,
            "drop_probability": dp.total,
            "drop_probability_bursty": dp.bursty,
            "drop_probability_smooth": dp.smooth,
            "queue_mean": mean,
            "queue_variance": var,
        }
        if self.burst == 1:
            cd = self.consecutive_drops()
            run = self.consecutive_drops("run")
            ex = self.consecutive_drops_exact()
            out.update(
                consecutive_drops_mean_eq4=cd.mean,
                consecutive_drops_variance_eq4=cd.variance,
                consecutive_drops_mean_runs=run.mean,
                consecutive_drops_variance_runs=run.variance,
                consecutive_drops_mean_exact=ex[0],
                consecutive_drops_variance_exact=ex[1],
            )
        return out


# --------------------------------------------------------------- the contract
def queue_distribution(
    policy: str,
    rho: float,
    K: int,
    min_th: Optional[float] = None,
    max_th: Optional[float] = None,
    max_p: Optional[float] = None,
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
    min_th: Optional[float] = None,
    max_th: Optional[float] = None,
    max_p: Optional[float] = None,
    burst: int = 1,
) -> Tuple[float, float]:
    """(mean, variance) of the queue-size distribution (Section IV, Table III), packets."""
    return BonaldModel(policy, rho, K, min_th, max_th, max_p, burst).queue_moments()


def drop_probability(
    policy: str,
    rho: float,
    K: int,
    min_th: Optional[float] = None,
    max_th: Optional[float] = None,
    max_p: Optional[float] = None,
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
    min_th: Optional[float] = None,
    max_th: Optional[float] = None,
    max_p: Optional[float] = None,
    burst: int = 3,
    bursty_fraction: float = 0.5,
) -> Tuple[float, float]:
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
    min_th: Optional[float] = None,
    max_th: Optional[float] = None,
    max_p: Optional[float] = None,
) -> Tuple[float, float]:
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
    min_th: Optional[float] = None,
    max_th: Optional[float] = None,
    max_p: Optional[float] = None,
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
