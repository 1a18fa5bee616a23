"""Zheng & Atiquzzaman 2008, "A framework to determine the optimal weight parameter of RED".

The queue is modelled (Section 3.1, eq. 1) as q(i) = g(i) f(i): a slow function g
(long-term congestion) modulating a fast ON-OFF function f (eq. 10) that alternates
between q0 (odd i) and b q0 (even i), i counting the calculations of the average.
The change of the average between calculations m1 and m2 is eq. (8),

    delta(m2, m1) = sum_{i=1..m2-m1} (1 - w)^(m2 - i) w g(i) f(i).

- Lower bound, Section 4.1: two adjacent short-term peaks (m2 - m1 = 2, g constant)
  must not move the average by K_l: eq. (13)/(14)

      (1 - w)^(m2 - 2) w g q0 (b + 1) <= K_l.

  The left side rises then falls in w (peak at w = 1/(m2 - 1)), so the inequality
  holds below a first root and above a second; the paper's lower bound is the
  second root, found here with :func:`scipy.optimize.brentq`. When the left side
  never reaches K_l every w satisfies it and the lower bound is 0.
- Upper bound, Section 4.2: over half a long-term period l1, with g(i) = i, the
  average must move by at least K_l: eq. (20)/(21)

      K_l <= q0 l1 (b + 2)/2 (1 - w)^(m2 - l1)  <=>  w <= 1 - exp(ln(2 K_l / ((b+2) q0 l1)) / (m2 - l1)).

  If even w -> 0 cannot satisfy eq. (20) (2 K_l >= (b+2) q0 l1) the upper bound is 0.

Section 4.3's example (b = 4, K_l = 5, q0 = 5, l1 = 14, g = 16, m2 = 30 and 65) is
printed as 0.045 and 0.071. Eq. (21) gives 0.0707 (= 0.071); eq. (14) gives 0.0438,
not 0.045 (docs/analysis.md discusses why, and what the unapproximated eqs. (12)
and (15) give: :func:`zheng_w_bounds_exact`).

:func:`estimate_zheng_inputs` estimates (b, q0, l1, g, m2) from a queue-length trace
(a numpy array, a pandas DataFrame or a Parquet/CSV file from the simulator's queue
trace), so the framework can be applied to a user's own trace. The paper reads its
inputs off a figure by eye; the estimator is aqmlab's own operational reading of
Sections 3-4, documented in :func:`estimate_zheng_inputs`.

Units: w, b dimensionless; K_l, q0 x g and queue lengths in packets; l1, m2 in
calculations of the average (one per arrival for RED).
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass
from typing import Any, Callable

import numpy as np

from ..base import integer, positive
from ._arrays import ArrayLike, scalar_or_array

__all__ = [
    "zheng_w_bounds",
    "zheng_w_bounds_exact",
    "zheng_lower_bound",
    "zheng_upper_bound",
    "zheng_delta_lower",
    "zheng_delta_lower_eq12",
    "zheng_delta_upper",
    "zheng_delta_upper_eq15",
    "ZhengInputs",
    "estimate_zheng_inputs",
    "zheng_bounds_from_trace",
    "load_queue_trace",
]


# ---------------------------------------------------------------- the deltas
def zheng_delta_lower(w: ArrayLike, b: float, q0: float, g: float, m2: float) -> ArrayLike:
    """Eq. (13): delta(m2, m2 - 2) ~ (1 - w)^(m2 - 2) w g q0 (b + 1), packets."""
    return (1.0 - w) ** (m2 - 2) * w * g * q0 * (b + 1.0)


def zheng_delta_lower_eq12(w: ArrayLike, b: float, q0: float, g: float, m2: float) -> ArrayLike:
    """Eq. (12), before 1 - w + b ~ 1 + b: (1 - w)^(m2 - 2) w g q0 (1 - w + b), packets."""
    return (1.0 - w) ** (m2 - 2) * w * g * q0 * (1.0 - w + b)


def zheng_delta_upper(w: ArrayLike, b: float, q0: float, l1: float, m2: float) -> ArrayLike:
    """Eq. (19): delta(m2, m2 - l1) ~ q0 l1 (b + 2)/2 (1 - w)^(m2 - l1), packets."""
    return q0 * l1 * (b + 2.0) / 2.0 * (1.0 - w) ** (m2 - l1)


def zheng_delta_upper_eq15(w: ArrayLike, b: float, q0: float, l1: int, m2: float) -> ArrayLike:
    """Eq. (15) summed term by term (no series approximation), packets.

    delta = w q0 sum_{i=1..l1} (1 - w)^(m2 - i) i f~(i), f~(i) = 1 for odd i and b for
    even i (eq. 10 with q0 factored out, g(i) = i). Vectorised over `w`.
    """
    ww = np.asarray(w, dtype=float)
    i = np.arange(1, int(l1) + 1, dtype=float)
    ft = np.where(i % 2 == 1, 1.0, b)
    out = ww * q0 * np.sum(i * ft * (1.0 - ww[..., None]) ** (m2 - i), axis=-1)
    return scalar_or_array(out)


# --------------------------------------------------------------- root finding
#: A delta as a function of w, vectorised: a float for a float, an array for an array.
DeltaOfW = Callable[[ArrayLike], ArrayLike]


def _grid_peak(f: DeltaOfW) -> tuple[np.ndarray, np.ndarray, int]:
    """f on a grid of w in (0, 1) (log-spaced near 0, linear above), and where it peaks."""
    grid = np.unique(
        np.concatenate([np.geomspace(1e-9, 1e-2, 400), np.linspace(1e-2, 1 - 1e-9, 2000)])
    )
    vals = np.asarray(f(grid), dtype=float)
    return grid, vals, int(np.argmax(vals))


def _upper_root(f: DeltaOfW, target: float) -> float | None:
    """Largest w in (0, 1) with f(w) = target, for f rising from 0 then falling to 0 at w = 1.

    The peak is located on a grid (log-spaced near 0, linear above) and refined; the
    root on its right is found with brentq. None if f never exceeds `target`.
    """
    from scipy import optimize

    grid, vals, k = _grid_peak(f)
    lo_b = grid[max(k - 1, 0)]
    hi_b = grid[min(k + 1, len(grid) - 1)]
    res = optimize.minimize_scalar(
        lambda w: -float(f(w)), bounds=(lo_b, hi_b), method="bounded", options={"xatol": 1e-14}
    )
    w_pk = float(res.x) if -res.fun >= vals[k] else float(grid[k])
    if not f(w_pk) > target:
        return None
    return float(
        optimize.brentq(lambda w: f(w) - target, w_pk, 1.0, xtol=1e-15, rtol=1e-13, maxiter=500)
    )


def _lower_root(f: DeltaOfW, target: float) -> float | None:
    """Smallest w in (0, 1) with f(w) = target for the same shape of f; None if none."""
    from scipy import optimize

    grid, vals, k = _grid_peak(f)
    if not vals[k] > target:
        return None
    return float(
        optimize.brentq(
            lambda w: f(w) - target, 0.0, float(grid[k]), xtol=1e-15, rtol=1e-13, maxiter=500
        )
    )


def _check_common(b: float, K_l: float, q0: float) -> tuple[float, float, float]:
    """Validated b, K_l, q0 (all > 0)."""
    return positive("b", b), positive("K_l", K_l), positive("q0", q0)


def zheng_lower_bound(
    b: float, K_l: float, q0: float, g: float, m2: float, *, eq12: bool = False
) -> float:
    """Lower bound of w from eq. (14) (or eq. 12 when `eq12`): the larger root of delta = K_l.

    Zheng & Atiquzzaman Section 4.1. `b` > 0, `K_l` > 0 packets (min_th), `q0` > 0
    packets, `g` > 0 (g(m-bar), dimensionless), `m2` > 2 calculations. Returns w in
    [0, 1); 0 when delta never reaches K_l (no constraint).
    """
    bb, kl, q = _check_common(b, K_l, q0)
    gg = positive("g", g)
    m = positive("m2_lower", m2)
    if not m > 2:
        raise ValueError(f"m2_lower must be > 2, got {m2!r}")
    delta = zheng_delta_lower_eq12 if eq12 else zheng_delta_lower
    r = _upper_root(lambda w: delta(w, bb, q, gg, m), kl)
    return 0.0 if r is None else r


def zheng_upper_bound(b: float, K_l: float, q0: float, l1: float, m2: float) -> float:
    """Upper bound of w from eq. (21): 1 - exp(ln(2 K_l / ((b + 2) q0 l1)) / (m2 - l1)).

    Zheng & Atiquzzaman Section 4.2. `l1` > 0 and `m2` > l1 in calculations. Returns w
    in [0, 1); 0 when 2 K_l >= (b + 2) q0 l1 (no w satisfies eq. 20).
    """
    bb, kl, q = _check_common(b, K_l, q0)
    ll = positive("l1", l1)
    m = positive("m2_upper", m2)
    if not m > ll:
        raise ValueError(f"m2_upper must be > l1, got m2_upper={m2!r}, l1={l1!r}")
    ratio = 2.0 * kl / ((bb + 2.0) * q * ll)
    if ratio >= 1.0:
        return 0.0
    return -math.expm1(math.log(ratio) / (m - ll))


def zheng_w_bounds(
    b: float, K_l: float, q0: float, l1: float, g: float, m2_lower: float, m2_upper: float
) -> tuple[float, float]:
    """(lower, upper) bounds of RED's weight w from eqs. (14) and (21).

    Zheng & Atiquzzaman Sections 4.1-4.3: `b` burst ratio (ON/OFF, > 0), `K_l`
    min_th (packets), `q0` OFF-period queue scale (packets), `l1` half of a long-term
    congestion period (calculations), `g` = g(m-bar) (dimensionless), `m2_lower` and
    `m2_upper` the calculation indices at which the two conditions are evaluated.
    Eq. (14) is solved numerically (its larger root); eq. (21) is closed form. A
    lower bound above the upper one means no w satisfies both. The paper's example
    (4, 5, 5, 14, 16, 30, 65) gives (0.0438, 0.0707); the paper prints 0.045 and
    0.071.
    """
    return (zheng_lower_bound(b, K_l, q0, g, m2_lower), zheng_upper_bound(b, K_l, q0, l1, m2_upper))


def zheng_w_bounds_exact(
    b: float, K_l: float, q0: float, l1: float, g: float, m2_lower: float, m2_upper: float
) -> dict[str, Any]:
    """The bounds from the equations before the paper's approximations.

    - ``lower_eq12``: larger root of eq. (12) = K_l (keeps 1 - w + b);
    - ``lower_eq14_small_root``: eq. (14)'s other root -- w below it also satisfies
      eq. (14), a second admissible interval the paper does not mention;
    - ``upper_eq15``: largest w with eq. (15), summed term by term, >= K_l; the
      series approximations (16)-(17) behind eq. (18) need (1 - w)^(-l1) >> 1, i.e.
      w l1 >> 1, which fails for the paper's numbers (w l1 ~ 1);
    - ``upper_eq15_lowest``: the smallest w with eq. (15) >= K_l (the summed delta
      vanishes as w -> 0, so tracking also fails for tiny w);
    - ``upper_eq21_b_plus_1``: eq. (21) with (b + 1) in place of (b + 2), which is
      what eq. (18) gives for w -> 0 (eq. 19's b + 2 does not follow from eq. 18).

    Same arguments as :func:`zheng_w_bounds`; every value is a w in [0, 1) or None.
    """
    bb, kl, q = _check_common(b, K_l, q0)
    gg = positive("g", g)
    ll = integer("l1", l1, minimum=1)
    m_lo = positive("m2_lower", m2_lower)
    m_up = positive("m2_upper", m2_upper)
    if not m_lo > 2:
        raise ValueError(f"m2_lower must be > 2, got {m2_lower!r}")
    if not m_up > ll:
        raise ValueError(f"m2_upper must be > l1, got m2_upper={m2_upper!r}, l1={l1!r}")
    eq15 = lambda w: zheng_delta_upper_eq15(w, bb, q, ll, m_up)  # noqa: E731
    ratio = 2.0 * kl / ((bb + 1.0) * q * ll)
    return {
        "lower_eq12": zheng_lower_bound(bb, kl, q, gg, m_lo, eq12=True),
        "lower_eq14_small_root": _lower_root(lambda w: zheng_delta_lower(w, bb, q, gg, m_lo), kl),
        "upper_eq15": _upper_root(eq15, kl),
        "upper_eq15_lowest": _lower_root(eq15, kl),
        "upper_eq21_b_plus_1": (-math.expm1(math.log(ratio) / (m_up - ll)) if ratio < 1 else 0.0),
    }


# ------------------------------------------------------------------ estimator
@dataclass(frozen=True)
class ZhengInputs:
    """Inputs of Zheng & Atiquzzaman's bounds estimated from a queue trace.

    b (dimensionless), q0 (packets per calculation: the slope of the OFF-level
    envelope, so that q0 g is the OFF-level queue), l1 (calculations), g = g(m-bar)
    (dimensionless), m2_lower and m2_upper (calculation indices), and for the record
    the long-term period (calculations), the short-term window (samples) and the
    number of samples used.
    """

    b: float
    q0: float
    l1: float
    g: float
    m2_lower: float
    m2_upper: float
    period: float
    short_window: int
    n_samples: int

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (JSON-friendly)."""
        return asdict(self)


def load_queue_trace(trace: Any, *, column: str = "queue", link: str | None = None) -> np.ndarray:
    """Queue lengths (packets) from an array, a pandas object or a Parquet/CSV file.

    DataFrames and files are read as the simulator writes its queue trace (columns
    ``time, link, queue, avg``; ``trace_queue.parquet`` or ``queue.csv``): `column`
    picks the queue column and `link` (e.g. ``"r1->r2"``) the link direction when the
    trace holds several. Rows are taken in order. Raises ValueError naming `trace`,
    `column` or `link` on a bad input.
    """
    import pandas as pd

    if isinstance(trace, (str, os.PathLike)):
        path = os.fspath(trace)
        if not os.path.exists(path):
            raise ValueError(f"trace: no such file {path!r}")
        trace = pd.read_csv(path) if path.endswith(".csv") else pd.read_parquet(path)
    if isinstance(trace, pd.DataFrame):
        if link is not None:
            if "link" not in trace.columns:
                raise ValueError("link: the trace has no 'link' column")
            trace = trace[trace["link"] == link]
            if trace.empty:
                raise ValueError(f"link: no rows for link {link!r}")
        elif "link" in trace.columns and trace["link"].nunique() > 1:
            raise ValueError(
                f"link: the trace holds several links {sorted(trace['link'].unique())}; choose one"
            )
        if column not in trace.columns:
            raise ValueError(
                f"column: the trace has no column {column!r} (columns: {list(trace.columns)})"
            )
        trace = trace[column]
    q = np.asarray(trace, dtype=float).ravel()
    if q.size == 0 or np.any(~np.isfinite(q)) or np.any(q < 0):
        raise ValueError("trace must be a non-empty sequence of queue lengths >= 0")
    return q


def _moving_average(x: np.ndarray, w: int) -> np.ndarray:
    """Centred moving average over `w` samples, edges padded by reflection."""
    if w <= 1:
        return x.copy()
    pad_l, pad_r = w // 2, w - 1 - w // 2
    xp = (
        np.pad(x, (pad_l, pad_r), mode="reflect")
        if len(x) > w
        else np.pad(x, (pad_l, pad_r), mode="edge")
    )
    c = np.cumsum(np.concatenate([[0.0], xp]))
    return (c[w:] - c[:-w]) / w


def _dominant_period(s: np.ndarray) -> float:
    """Long-term period (samples): the highest autocorrelation peak after the first zero crossing."""
    x = s - s.mean()
    n = len(x)
    if not np.any(x != 0):
        raise ValueError(
            "trace: the queue is constant; there is no long-term congestion to measure"
        )
    f = np.fft.rfft(x, 2 * n)
    acf = np.fft.irfft(f * np.conj(f))[:n]
    acf = acf / acf[0]
    below = np.nonzero(acf[: n // 2] <= 0)[0]
    if below.size == 0:
        raise ValueError(
            "trace: no long-term oscillation found (the autocorrelation never crosses zero "
            "within half the trace); a longer trace is needed to estimate l1"
        )
    start = int(below[0])
    seg = acf[start : n // 2]
    if seg.size < 3 or seg.max() <= 0:
        raise ValueError(
            "trace: no repeated long-term congestion period found; a longer trace is needed to estimate l1"
        )
    return float(start + int(np.argmax(seg)))


def _short_window(q: np.ndarray) -> int:
    """The short-term scale of a trace: the median spacing of its local maxima (at
    least 2 samples)."""
    inner = q[1:-1]
    peaks = np.nonzero((inner > q[:-2]) & (inner >= q[2:]))[0] + 1
    ws = int(round(float(np.median(np.diff(peaks))))) if peaks.size >= 3 else 2
    return max(2, ws)


def _burst_ratio(q: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    """(b, the OFF level): the ON and OFF samples are those above and below the local
    long-term level s (eq. 10 alternates q0 g and b q0 g around (1 + b)/2 q0 g). Where s
    is small its relative error distorts the ratio, so only the upper half of the
    long-term cycle counts."""
    upper = (s >= max(1.0, float(np.median(s)))) & (s > 0)
    if upper.sum() < max(8, 0.1 * len(q)):
        raise ValueError(
            "trace: the queue is too often (nearly) empty to measure the burst ratio b"
        )
    r = q[upper] / s[upper]
    on, off = r[r > 1.0], r[r <= 1.0]
    if on.size < 4 or off.size < 4 or not np.median(off) > 0:
        raise ValueError("trace: no short-term ON-OFF variation found to measure the burst ratio b")
    off_level = float(np.median(off))
    return float(np.median(on) / off_level), off_level


def estimate_zheng_inputs(
    trace: Any,
    *,
    column: str = "queue",
    link: str | None = None,
    calculations_per_sample: float = 1.0,
    short_window: int | None = None,
) -> ZhengInputs:
    """Estimate Zheng & Atiquzzaman's (b, q0, l1, g, m2) from a queue-length trace.

    The trace should start, as Section 3.1 assumes, from an empty queue, and hold
    several long-term congestion cycles; each sample is one calculation of the average
    (a trace at every arrival -- the simulator's ``trace.interval = 0``); otherwise
    give `calculations_per_sample` (arrivals per sample) to convert. The reading of
    the model q(i) = g(i) f(i) (eqs. 1, 10, 15) is:

    1. short-term scale: the median spacing of the trace's local maxima (at least 2
       samples; or `short_window`);
    2. long-term component s: the trace averaged over that window; its period P is
       the highest autocorrelation peak after the first zero crossing, and
       l1 = P / 2 (Fig. 2: l1 is half a long-term period);
    3. b: samples above the local long-term level s are ON, those below are OFF
       (eq. 10); b = median(q/s over ON) / median(q/s over OFF), over the upper half
       of the long-term cycle (s at or above its median and >= 1 packet);
    4. q0 and g: the OFF-level envelope e = s median(q/s over OFF) is g(i) q0 with
       g rising by one per calculation (eq. 15's g(i) = i), so q0 = (range of e) / l1
       -- the range being the 5-95 % interquantile range -- and g = e(m-bar) / q0;
    5. m2_lower: the first long-term peak of s (where adjacent short-term peaks sit
       on the largest g), with m-bar = m2_lower - 1; m2_upper = m2_lower + P, the
       next peak, by which the average must have followed a whole long-term cycle.

    Returns :class:`ZhengInputs`. Raises ValueError when the trace is too short, has
    no long-term cycle or is too often empty to measure b.
    """
    q = load_queue_trace(trace, column=column, link=link)
    cps = positive("calculations_per_sample", calculations_per_sample)
    n = len(q)
    if n < 32:
        raise ValueError(f"trace must hold at least 32 samples, got {n}")
    ws = (
        _short_window(q)
        if short_window is None
        else integer("short_window", short_window, minimum=1)
    )
    s = _moving_average(q, ws)
    P = _dominant_period(s)
    l1 = P / 2.0
    b, off_level = _burst_ratio(q, s)
    e = s * off_level  # OFF-level envelope, g(i) q0
    spread = float(np.quantile(e, 0.95) - np.quantile(e, 0.05))
    if not spread > 0:
        raise ValueError(
            "trace: the OFF-level envelope does not vary; no long-term congestion to measure"
        )
    q0 = spread / l1
    first = s[: max(3, int(round(P)))]
    m2_lower = float(int(np.argmax(first)) + 1)
    m2_lower = max(m2_lower, 3.0)
    g = float(e[int(m2_lower) - 2] / q0)
    m2_upper = m2_lower + P
    return ZhengInputs(
        b=b,
        q0=q0 / cps,
        l1=l1 * cps,
        g=g * cps,
        m2_lower=m2_lower * cps,
        m2_upper=m2_upper * cps,
        period=P * cps,
        short_window=ws,
        n_samples=n,
    )


def zheng_bounds_from_trace(trace: Any, K_l: float, **kwargs: Any) -> dict[str, Any]:
    """Estimate the inputs from `trace` (see :func:`estimate_zheng_inputs`) and apply eqs. (14) and (21).

    `K_l` is RED's min_th in packets; keyword arguments go to the estimator. Returns
    ``{"inputs": {...}, "lower": w, "upper": w, "feasible": lower <= upper}``.
    """
    kl = positive("K_l", K_l)
    inp = estimate_zheng_inputs(trace, **kwargs)
    lower, upper = zheng_w_bounds(inp.b, kl, inp.q0, inp.l1, inp.g, inp.m2_lower, inp.m2_upper)
    return {
        "inputs": inp.as_dict(),
        "K_l": kl,
        "lower": lower,
        "upper": upper,
        "feasible": lower <= upper,
    }
