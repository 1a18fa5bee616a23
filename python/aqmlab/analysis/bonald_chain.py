"""Bonald, May & Bolot 2000: the Markov chain of the number of packets in the router
(:class:`BonaldModel`: Sections II-IV) and eq. 5's closed form for RED. The module
:mod:`aqmlab.analysis.bonald` says what the model is and which queue size an arrival
sees; its functions are the contract.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse

from ..base import in_range, integer
from .bonald_forms import (
    CONVENTIONS,
    DEFAULT_CONVENTION,
    ConsecutiveDrops,
    DropProbabilities,
    binomial_pmf,
    check_rho_K,
    red_drop_function,
)

_POLICIES = ("taildrop", "red")


def red_eq5_distribution(
    rho: float,
    K: int,
    min_th: float,
    max_th: float | None,
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
    min_th: float | None = None
    max_th: float | None = None
    max_p: float | None = None
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
        rho, K = check_rho_K(self.rho, self.K)
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

    def _red_parameters(self) -> tuple[float, float, float]:
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
        pmf = binomial_pmf(B, keep)
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
        rows: list[np.ndarray] = []
        cols: list[np.ndarray] = []
        vals: list[np.ndarray] = []

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
        :func:`aqmlab.analysis.bonald_forms.mm1k_distribution` (Tail Drop) and eq. 5
        (:func:`red_eq5_distribution`).
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

    def queue_moments(self) -> tuple[float, float]:
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

    def _eq4_weights(self, weighting: str) -> tuple[np.ndarray, np.ndarray, float]:
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

    def consecutive_drops_exact(self) -> tuple[float, float]:
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

    def summary(self) -> dict[str, Any]:
        """All of the model's predictions as a dict, for comparison with a simulation."""
        dp = self.drop_probabilities()
        mean, var = self.queue_moments()
        out: dict[str, Any] = {
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
