"""Floyd & Jacobson 1993, "Random Early Detection Gateways for Congestion Avoidance".

The closed-form pieces of Sections VI, VII and X and of the Appendix:

- :func:`red_burst_average` -- eq. (2): the average queue after a burst of L packets
  arrives at an empty queue (Section VI-A);
- :func:`red_max_w_q` -- eq. (3): the largest w_q that lets such a burst leave the
  average below min_th (Section VI-A);
- :func:`ewma_time_constant` -- Section VI-B: -1/ln(1-w_q) arrivals for the average to
  cover 63 % (1 - 1/e) of a step;
- :func:`intermark_pmf_geometric`, :func:`intermark_pmf_uniform` -- Section VII: the
  number of arrivals between marks with Method 1 (p_b per packet) and Method 2
  (p_a = p_b / (1 - count p_b));
- :func:`hoeffding_bound` -- Section X / Fig. 16 and the Appendix: the bound on the
  probability that a connection receives at least c times its share of the last n
  marks.

Units: queue sizes and averages in packets; w_q, p_b, p_a, probabilities
dimensionless; "time" constants in packet arrivals (Floyd & Jacobson count time in
arrivals, not seconds).
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np

from ..base import in_range, integer, non_negative, positive
from ._arrays import ArrayLike, scalar_or_array

__all__ = [
    "red_burst_average",
    "red_burst_average_sum",
    "red_max_w_q",
    "ewma_time_constant",
    "ewma_w_q_for_time_constant",
    "ewma_step_response",
    "red_initial_probability",
    "red_marking_probability",
    "intermark_pmf_geometric",
    "intermark_pmf_uniform",
    "intermark_mean_geometric",
    "intermark_mean_uniform",
    "hoeffding_bound",
    "hoeffding_bound_kl",
    "binomial_tail",
]


def _w_q_array(w_q: ArrayLike, name: str = "w_q") -> np.ndarray:
    """w_q as an array, every entry in (0, 1]; ValueError naming `name` otherwise."""
    w = np.asarray(w_q, dtype=float)
    if w.size == 0 or np.any(~np.isfinite(w)) or np.any(w <= 0) or np.any(w > 1):
        raise ValueError(f"{name} must be in (0, 1], got {w_q!r}")
    return w


@overload
def red_burst_average(w_q: float, burst: float) -> float: ...
@overload
def red_burst_average(w_q: ArrayLike, burst: ArrayLike) -> ArrayLike: ...
def red_burst_average(w_q: ArrayLike, burst: ArrayLike) -> ArrayLike:
    """Average queue (packets) after a burst of `burst` packets into an empty queue.

    Floyd & Jacobson Section VI-A, eq. (2): the queue grows from 0 to L over L arrivals
    (the i-th arrival sees a queue of i packets) with avg = 0 at the start, so

        avg_L = sum_{i=1..L} i w_q (1 - w_q)^(L-i) = L + 1 + ((1 - w_q)^(L+1) - 1) / w_q.

    `w_q` in (0, 1] (dimensionless), `burst` = L >= 1 packets; both may be numpy arrays
    (broadcast). Returns packets. Floyd & Jacobson's example: w_q = 0.001, L = 100
    gives 4.88 packets.
    """
    w = _w_q_array(w_q)
    L = np.asarray(burst, dtype=float)
    if L.size == 0 or np.any(~np.isfinite(L)) or np.any(L < 1) or np.any(L != np.floor(L)):
        raise ValueError(f"burst must be an integer >= 1 packet, got {burst!r}")
    # (1-w)^(L+1) - 1 as expm1((L+1) log1p(-w)) keeps its precision for tiny w_q.
    w_lt1 = np.where(w < 1, w, 0.0)
    term = np.where(w < 1, np.expm1((L + 1) * np.log1p(-w_lt1)), -1.0)
    out = L + 1 + term / w
    return scalar_or_array(out)


def red_burst_average_sum(w_q: float, burst: int) -> float:
    """eq. (2) by its defining sum, sum_{i=1..L} i w_q (1-w_q)^(L-i) (packets).

    Floyd & Jacobson Section VI-A, first line of eq. (2); a cross-check of the closed
    form :func:`red_burst_average`.
    """
    w = float(_w_q_array(w_q))
    L = integer("burst", burst, minimum=1)
    i = np.arange(1, L + 1, dtype=float)
    return float(np.sum(i * w * (1.0 - w) ** (L - i)))


def red_max_w_q(min_th: float, burst: int) -> float:
    """Largest w_q for which a burst of `burst` packets leaves avg below `min_th`.

    Floyd & Jacobson Section VI-A, eq. (3): w_q must satisfy

        L + 1 + ((1 - w_q)^(L+1) - 1) / w_q < min_th.

    avg_L is increasing in w_q, from 0 (w_q -> 0) to L (w_q = 1), so the bound is the
    root of avg_L(w_q) = min_th, found with :func:`scipy.optimize.brentq`. When
    min_th >= L no w_q in (0, 1] lets the burst reach min_th and 1.0 is returned (no
    constraint). `min_th` > 0 in packets, `burst` = L >= 1 packets; returns w_q
    (dimensionless). The paper's example: min_th = 5, L = 50 gives w_q <= 0.0042.
    """
    mn = positive("min_th", min_th)
    L = integer("burst", burst, minimum=1)
    if mn >= L:
        return 1.0

    from scipy import optimize

    def f(w: float) -> float:
        """avg_L(w) - min_th, packets: eq. 3 holds where this is negative."""
        return red_burst_average(w, L) - mn

    # avg_L ~ w L (L+1) / 2 for small w: start the bracket below the root.
    lo = min(1e-3, mn / (L * (L + 1.0))) * 1e-3
    while f(lo) >= 0:  # pragma: no cover - only for extreme inputs
        lo *= 1e-3
    return float(optimize.brentq(f, lo, 1.0, xtol=1e-15, rtol=1e-13, maxiter=500))


@overload
def ewma_time_constant(w_q: float) -> float: ...
@overload
def ewma_time_constant(w_q: np.ndarray) -> np.ndarray: ...
def ewma_time_constant(w_q: ArrayLike) -> ArrayLike:
    """Arrivals for the EWMA to cover 1 - 1/e (63 %) of a step: -1 / ln(1 - w_q).

    Floyd & Jacobson Section VI-B (and Floyd, Gummadi & Shenker 2001 Section 4.3, who
    call it the estimator's "time constant"). `w_q` in (0, 1); returns packet arrivals
    (1000, 500 and 333 for w_q = 0.001, 0.002, 0.003). Multiply by the arrival rate's
    inverse (s per packet) for seconds.
    """
    w = _w_q_array(w_q)
    if np.any(w >= 1):
        raise ValueError(f"w_q must be in (0, 1), got {w_q!r}")
    out = -1.0 / np.log1p(-w)
    return scalar_or_array(out)


def ewma_w_q_for_time_constant(arrivals: ArrayLike) -> ArrayLike:
    """The w_q whose time constant is `arrivals` packet arrivals: 1 - exp(-1/arrivals).

    Inverse of :func:`ewma_time_constant` (Floyd & Jacobson Section VI-B); with
    arrivals = C packets/s x 1 s it is Adaptive RED's automatic w_q (Floyd, Gummadi &
    Shenker 2001, Section 4.3, eq. 1). `arrivals` > 0; returns w_q (dimensionless).
    """
    n = np.asarray(arrivals, dtype=float)
    if n.size == 0 or np.any(~np.isfinite(n)) or np.any(n <= 0):
        raise ValueError(f"arrivals must be > 0, got {arrivals!r}")
    out = -np.expm1(-1.0 / n)
    return scalar_or_array(out)


def ewma_step_response(w_q: float, arrivals: ArrayLike) -> ArrayLike:
    """Fraction of a unit step the average has covered after `arrivals` arrivals.

    Floyd & Jacobson Section VI-B: the queue goes from 0 to 1 packet and stays there;
    after n arrivals avg = 1 - (1 - w_q)^n (dimensionless, in [0, 1)). At
    n = :func:`ewma_time_constant` it equals 1 - 1/e = 0.632.
    """
    w = float(_w_q_array(w_q))
    n = np.asarray(arrivals, dtype=float)
    if np.any(n < 0):
        raise ValueError(f"arrivals must be >= 0, got {arrivals!r}")
    out = -np.expm1(n * math.log1p(-w)) if w < 1 else np.where(n > 0, 1.0, 0.0)
    return scalar_or_array(out)


def red_initial_probability(
    avg: ArrayLike, min_th: float, max_th: float, max_p: float
) -> ArrayLike:
    """p_b = max_p (avg - min_th) / (max_th - min_th) for min_th <= avg < max_th.

    Floyd & Jacobson Section IV and VII (and Fig. 2): 0 below min_th, the linear ramp
    up to max_p at max_th, 1 at and above max_th (every arrival marked). `avg`,
    `min_th`, `max_th` in packets; `max_p` in (0, 1]. Returns p_b (dimensionless).
    """
    mn = non_negative("min_th", min_th)
    mx = positive("max_th", max_th)
    if not mn < mx:
        raise ValueError(f"min_th must be < max_th, got min_th={min_th!r}, max_th={max_th!r}")
    mp = in_range("max_p", max_p, 0.0, 1.0, lo_open=True)
    a = np.asarray(avg, dtype=float)
    out = np.where(a < mn, 0.0, np.where(a >= mx, 1.0, mp * (a - mn) / (mx - mn)))
    return scalar_or_array(out)


def red_marking_probability(p_b: float, count: ArrayLike) -> ArrayLike:
    """p_a = p_b / (1 - count p_b), clamped to 1 once count p_b >= 1.

    Floyd & Jacobson Section IV / VII (Method 2); `count` is the number of unmarked
    arrivals since the last mark (0, 1, 2, ...). Returns p_a (dimensionless).
    """
    p = in_range("p_b", p_b, 0.0, 1.0)
    c = np.asarray(count, dtype=float)
    if np.any(c < 0):
        raise ValueError(f"count must be >= 0, got {count!r}")
    den = 1.0 - c * p
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(den <= 1e-12, 1.0, np.minimum(1.0, p / np.where(den <= 1e-12, 1.0, den)))
    return scalar_or_array(out)


def intermark_pmf_geometric(n: ArrayLike, p_b: float) -> ArrayLike:
    """Method 1: Prob[X = n] = (1 - p_b)^(n-1) p_b, n = 1, 2, ... arrivals.

    Floyd & Jacobson Section VII: each arrival is marked with probability p_b, so the
    number X of arrivals after a mark up to and including the next one is geometric
    with mean 1/p_b. `p_b` in (0, 1]; returns probabilities (0 for n < 1).
    """
    p = in_range("p_b", p_b, 0.0, 1.0, lo_open=True)
    k = np.asarray(n, dtype=float)
    with np.errstate(invalid="ignore"):
        out = np.where(k >= 1, p * (1.0 - p) ** np.maximum(k - 1, 0), 0.0)
    return scalar_or_array(out)


def intermark_pmf_uniform(n: ArrayLike, p_b: float) -> ArrayLike:
    """Method 2: Prob[X = n] = p_a(n-1) prod_{i=0..n-2} (1 - p_a(i)), p_a(i) = p_b/(1 - i p_b).

    Floyd & Jacobson Section VII, computed from the product (not from its result): the
    product telescopes to p_b for 1 <= n <= 1/p_b, so X is uniform on {1, ..., 1/p_b}
    when 1/p_b is an integer. When it is not, p_a is clamped to 1 once count p_b >= 1
    (as Fig. 2 does) and the remaining mass sits at n = floor(1/p_b) + 1. `p_b` in
    (0, 1]; returns probabilities.
    """
    p = in_range("p_b", p_b, 0.0, 1.0, lo_open=True)
    k = np.asarray(n, dtype=float)
    nmax = int(np.max(k)) if k.size and np.max(k) >= 1 else 1
    counts = np.arange(0, nmax, dtype=float)  # count before arrival n is n-1
    pa = red_marking_probability(p, counts)
    pa = np.atleast_1d(pa)
    keep = np.where(1.0 - pa < 1e-12, 0.0, 1.0 - pa)  # rounding must not leave mass past 1/p_b
    survive = np.concatenate([[1.0], np.cumprod(keep)[:-1]])  # prod_{i<n-1} (1 - p_a(i))
    pmf = pa * survive  # index j -> n = j + 1
    idx = k.astype(int) - 1
    out = np.where((k >= 1) & (k == np.floor(k)), pmf[np.clip(idx, 0, nmax - 1)], 0.0)
    return scalar_or_array(out)


def intermark_mean_geometric(p_b: float) -> float:
    """E[X] = 1/p_b arrivals for Method 1 (Floyd & Jacobson Section VII)."""
    return 1.0 / in_range("p_b", p_b, 0.0, 1.0, lo_open=True)


def intermark_mean_uniform(p_b: float) -> float:
    """E[X] for Method 2 (arrivals), summed from :func:`intermark_pmf_uniform`.

    Floyd & Jacobson Section VII state E[X] = 1/(2 p_b) + 1/2 when 1/p_b is an
    integer; this sums the distribution, so it also holds for other p_b.
    """
    p = in_range("p_b", p_b, 0.0, 1.0, lo_open=True)
    n = np.arange(1, int(math.floor(1.0 / p)) + 2)
    return float(np.sum(n * intermark_pmf_uniform(n, p)))


def hoeffding_bound(p: ArrayLike, c: ArrayLike, n: ArrayLike) -> ArrayLike:
    """Prob(S_{i,n} >= c p n) <= exp(-2 n (c - 1)^2 p^2), for 1 <= c <= 1/p.

    Floyd & Jacobson Section X (Fig. 16) from Hoeffding's theorem in the Appendix with
    t = (c - 1) p: connection i has fraction `p` of the bandwidth (so each mark is its
    own with probability p); S_{i,n} is how many of the n most recent marks are its.
    `p` in (0, 1], `c` in [1, 1/p], `n` >= 1 marks; arrays broadcast. Returns the
    bound (dimensionless). Fig. 16 plots it for c = 2 and 4, n = 100.
    """
    pp = np.asarray(p, dtype=float)
    cc = np.asarray(c, dtype=float)
    nn = np.asarray(n, dtype=float)
    if np.any(~(pp > 0)) or np.any(pp > 1):
        raise ValueError(f"p must be in (0, 1], got {p!r}")
    if np.any(~(nn >= 1)):
        raise ValueError(f"n must be >= 1, got {n!r}")
    if np.any(~(cc >= 1)) or np.any(cc * pp > 1 + 1e-12):
        raise ValueError(f"c must be in [1, 1/p], got c={c!r} with p={p!r}")
    out = np.exp(-2.0 * nn * (cc - 1.0) ** 2 * pp**2)
    return scalar_or_array(out)


def hoeffding_bound_kl(p: ArrayLike, c: ArrayLike, n: ArrayLike) -> ArrayLike:
    """The Appendix's tighter first bound [(mu/(mu+t))^(mu+t) ((1-mu)/(1-mu-t))^(1-mu-t)]^n.

    Floyd & Jacobson Appendix, eq. (4), with mu = p and t = (c - 1) p (so mu + t = c p).
    Equal to exp(-n KL(c p || p)); never larger than :func:`hoeffding_bound`. Same
    arguments and units as :func:`hoeffding_bound`.
    """
    base = hoeffding_bound(p, c, n)  # validates
    mu = np.asarray(p, dtype=float)
    q = np.asarray(c, dtype=float) * mu
    nn = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        t1 = q * np.log(q / mu)
        t2 = np.where(q < 1, (1 - q) * np.log((1 - q) / np.where(mu < 1, 1 - mu, 1.0)), 0.0)
    kl = t1 + t2  # KL(c p || p) in nats; q = 1 leaves -ln p
    out = np.minimum(np.exp(-nn * kl), base)
    return scalar_or_array(out)


def binomial_tail(p: ArrayLike, c: ArrayLike, n: int) -> ArrayLike:
    """Exact Prob(S >= c p n) for S ~ Binomial(n, p): what the bounds bound.

    Under Section X's assumption (each of the n marks is connection i's with
    probability p, independently) S_{i,n} is binomial; this is the exact tail next to
    :func:`hoeffding_bound`. Returns a probability.
    """
    from scipy import stats

    nn = integer("n", n, minimum=1)
    pp = np.asarray(p, dtype=float)
    k = np.ceil(np.asarray(c, dtype=float) * pp * nn - 1e-9)
    out = stats.binom.sf(k - 1, nn, pp)
    return scalar_or_array(out)
