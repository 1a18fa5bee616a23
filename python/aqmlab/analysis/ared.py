"""Floyd, Gummadi & Shenker 2001, "Adaptive RED" -- the closed-form parts.

- :func:`ared_auto_parameters` -- the automatic w_q (Section 4.3, eq. 1), max_th
  (Section 4.3) and min_th (Section 6);
- :func:`ared_alpha`, :func:`ared_alpha_ok`, :func:`ared_beta_ok` and the shifts of
  avg they bound -- the alpha/beta conditions of Section 4.2;
- :func:`ared_adaptation_times` -- how long max_p takes to travel between its bounds
  [0.01, 0.5] (Section 4.2), both the paper's "at least" figures and the exact count
  of Fig. 10's steps;
- :func:`ared_target_band` -- Fig. 10's target range for avg.

Units: link rates in bits/s, packet sizes in bytes, C in packets/s, thresholds and
averages in packets, times in seconds, probabilities dimensionless.

A note on min_th. Section 6 sets min_th = max(5, delay_target C / 2) "packets" and
then says this "translates to setting min_th to 12.5 packets for a 10Mbps link, and
to 125 packets for a 100Mbps link". With the paper's 500-byte packets C = 2500 and
25000 packets/s, so 12.5 and 125 are delay_target x C *without* the /2: the worked
numbers do not follow the formula. aqmlab follows the formula (it is the one that
gives the stated target delay, since Adaptive RED holds avg near 2 min_th, and it is
what ns-2 computes) and reports the other reading as ``min_th_worked_example``.
"""

from __future__ import annotations

import math
from typing import Any

from ..base import in_range, non_negative, positive

__all__ = [
    "link_capacity_pkts",
    "ared_auto_parameters",
    "ared_target_band",
    "ared_alpha",
    "ared_alpha_ok",
    "ared_beta_ok",
    "ared_avg_decrease_on_increase",
    "ared_avg_increase_on_decrease",
    "ared_adaptation_times",
    "ared_max_overshoot",
    "MAX_P_BOTTOM",
    "MAX_P_TOP",
    "INTERVAL",
    "BETA",
]

#: Section 4.1: lower and upper bound of max_p (dimensionless).
MAX_P_BOTTOM = 0.01
MAX_P_TOP = 0.5
#: Fig. 10: adaptation interval (s) and decrease factor.
INTERVAL = 0.5
BETA = 0.9
_EPS = 1e-12


def link_capacity_pkts(link_rate_bps: float, mean_pkt_size: float = 500) -> float:
    """C = link rate / (8 x packet size), packets/s.

    Floyd, Gummadi & Shenker Section 4.3: "C is the link capacity in packets/second,
    computed for packets of the specified default size" (500 bytes in ns-2).
    `link_rate_bps` in bits/s, `mean_pkt_size` in bytes.
    """
    r = positive("link_rate_bps", link_rate_bps)
    s = positive("mean_pkt_size", mean_pkt_size)
    return r / (8.0 * s)


def ared_target_band(min_th: float, max_th: float) -> tuple[float, float]:
    """Fig. 10's target for avg: [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)].

    Floyd, Gummadi & Shenker Fig. 10. Thresholds in packets; returns packets. With
    max_th = 3 min_th it is [1.8, 2.2] x min_th, centred on 2 min_th (Section 4.3).
    """
    mn = non_negative("min_th", min_th)
    mx = positive("max_th", max_th)
    if not mn < mx:
        raise ValueError(f"min_th must be < max_th, got min_th={min_th!r}, max_th={max_th!r}")
    return (mn + 0.4 * (mx - mn), mn + 0.6 * (mx - mn))


def ared_auto_parameters(
    link_rate_bps: float, mean_pkt_size: float = 500, delay_target: float = 0.005
) -> dict[str, Any]:
    """Adaptive RED's automatic w_q, min_th and max_th for a link.

    Floyd, Gummadi & Shenker 2001:
    - Section 4.3, eq. (1): w_q = 1 - exp(-1/C), a time constant -1/ln(1 - w_q) of C
      arrivals = 1 s at full load (ten 100 ms round-trip times);
    - Section 6: min_th = max(5, delay_target C / 2) packets;
    - Section 4.3: max_th = 3 min_th, so the target band is centred on 2 min_th and the
      target average queueing delay is 2 min_th / C = delay_target (unless the floor
      of 5 packets applies).

    `link_rate_bps` in bits/s, `mean_pkt_size` in bytes (500 in the paper and ns-2),
    `delay_target` in seconds (5 ms). Returns a dict with ``min_th``, ``max_th``
    (packets), ``w_q``, and for explanation ``C`` (packets/s), ``time_constant_arrivals``,
    ``time_constant_s``, ``target_band`` (packets), ``target_avg`` (packets),
    ``target_delay_s`` (s), ``min_th_worked_example`` (max(5, delay_target C): the
    reading that gives the paper's 12.5 and 125 packets) and ``min_th_floor_applied``.
    """
    C = link_capacity_pkts(link_rate_bps, mean_pkt_size)
    d = positive("delay_target", delay_target)
    w_q = -math.expm1(-1.0 / C)
    tc = -1.0 / math.log1p(-w_q)
    min_th = max(5.0, d * C / 2.0)
    max_th = 3.0 * min_th
    band = ared_target_band(min_th, max_th)
    target_avg = (band[0] + band[1]) / 2.0
    return {
        "min_th": min_th,
        "max_th": max_th,
        "w_q": w_q,
        "C": C,
        "time_constant_arrivals": tc,
        "time_constant_s": tc / C,
        "target_band": band,
        "target_avg": target_avg,
        "target_delay_s": target_avg / C,
        "min_th_worked_example": max(5.0, d * C),
        "min_th_floor_applied": d * C / 2.0 < 5.0,
    }


def ared_alpha(max_p: float) -> float:
    """Fig. 10's additive increment: alpha = min(0.01, max_p / 4) (dimensionless)."""
    mp = in_range("max_p", max_p, 0.0, 1.0, lo_open=True)
    return min(0.01, mp / 4.0)


def ared_avg_decrease_on_increase(
    p: float, max_p: float, alpha: float, min_th: float, max_th: float
) -> float:
    """Drop of avg (packets) when max_p grows by alpha at a fixed drop rate p.

    Floyd, Gummadi & Shenker Section 4.2: avg moves from min_th + p/max_p (max_th -
    min_th) to min_th + p/(max_p + alpha) (max_th - min_th), a decrease of
    alpha/(max_p + alpha) x p/max_p x (max_th - min_th). Requires p < max_p.
    """
    mp = in_range("max_p", max_p, 0.0, 1.0, lo_open=True)
    pp = in_range("p", p, 0.0, mp)
    a = positive("alpha", alpha)
    ared_target_band(min_th, max_th)  # validates the thresholds
    span = float(max_th) - float(min_th)
    return a / (mp + a) * pp / mp * span


def ared_avg_increase_on_decrease(
    p: float, max_p: float, beta: float, min_th: float, max_th: float
) -> float:
    """Rise of avg (packets) when max_p is multiplied by beta at a fixed drop rate p.

    Floyd, Gummadi & Shenker Section 4.2: p (1 - beta) / (max_p beta) x (max_th - min_th).
    Requires p < beta max_p (avg stays below max_th after the decrease).
    """
    mp = in_range("max_p", max_p, 0.0, 1.0, lo_open=True)
    b = in_range("beta", beta, 0.0, 1.0, lo_open=True, hi_open=True)
    pp = in_range("p", p, 0.0, b * mp)
    ared_target_band(min_th, max_th)  # validates the thresholds
    span = float(max_th) - float(min_th)
    return pp * (1.0 - b) / (mp * b) * span


def ared_alpha_ok(alpha: float, max_p: float) -> bool:
    """Section 4.2's condition alpha / (max_p + alpha) <= 0.2, i.e. alpha <= 0.25 max_p.

    Then one increase of max_p cannot move avg from above the target band (0.2 (max_th
    - min_th) wide) to below it. The paper writes "< 0.2", but its own default alpha =
    min(0.01, max_p/4) meets the condition with equality whenever max_p <= 0.04, so
    aqmlab accepts equality (to within 1e-12). Dimensionless inputs.
    """
    a = positive("alpha", alpha)
    mp = in_range("max_p", max_p, 0.0, 1.0, lo_open=True)
    return a / (mp + a) <= 0.2 + 1e-12


def ared_beta_ok(beta: float) -> bool:
    """Section 4.2's condition (1 - beta) / beta < 0.2, i.e. beta > 0.83 (5/6).

    Then one decrease of max_p cannot move avg from below the target band to above it.
    """
    b = in_range("beta", beta, 0.0, 1.0, lo_open=True, hi_open=True)
    return (1.0 - b) / b < 0.2


def ared_max_overshoot(k: float = 3.0) -> float:
    """How far above its target avg can go once max_p is stuck at 0.5: 2 max_th / target.

    Floyd, Gummadi & Shenker Section 4.1 and footnote 4: with max_th = k min_th the
    target is (k + 1)/2 min_th, and with drop rates approaching 100 % (gentle mode,
    max_p = 0.5) avg approaches 2 max_th = 2 k min_th; the ratio 4k/(k + 1) is 3 for
    the automatic k = 3 and tends to the paper's "factor of four" as k grows.
    `k` > 1 (dimensionless); returns the ratio (dimensionless).
    """
    kk = positive("k", k)
    if not kk > 1:
        raise ValueError(f"k must be > 1, got {k!r}")
    return 2.0 * kk / ((kk + 1.0) / 2.0)


def _steps_up(bottom: float, top: float, alpha: float | None) -> int:
    """Fig. 10 increases from `bottom` until max_p >= top; alpha None = min(0.01, max_p/4)."""
    mp, n = bottom, 0
    while mp < top - _EPS:
        mp += alpha if alpha is not None else min(0.01, mp / 4.0)
        n += 1
    return n


def _steps_down(bottom: float, top: float, beta: float) -> int:
    """Fig. 10 decreases from `top` until max_p <= bottom."""
    mp, n = top, 0
    while mp > bottom + _EPS:
        mp *= beta
        n += 1
    return n


def ared_adaptation_times(
    alpha: float = 0.01,
    beta: float = BETA,
    interval: float = INTERVAL,
    bottom: float = MAX_P_BOTTOM,
    top: float = MAX_P_TOP,
) -> dict[str, float]:
    """Intervals and seconds for max_p to go from `bottom` to `top` and back.

    Floyd, Gummadi & Shenker Section 4.2: "it takes at least 0.49/alpha intervals for
    max_p to increase from 0.01 to 0.50; this is 24.5 seconds ... at least log
    0.02/log beta intervals ... to decrease from 0.50 to 0.01; ... this is 20.1
    seconds". Returns:

    - ``up_intervals_bound`` = (top - bottom)/alpha, ``up_s_bound`` (s);
    - ``down_intervals_bound`` = ln(bottom/top)/ln(beta), ``down_s_bound`` (s);
    - ``up_intervals_exact``: Fig. 10's steps with alpha = min(0.01, max_p/4)
      recomputed at each step (it starts at 0.0025 from max_p = 0.01), counted until
      max_p >= top; ``up_s_exact``;
    - ``down_intervals_exact``: whole steps until max_p <= bottom; ``down_s_exact``.

    `alpha` (the paper's default: its largest value 0.01) and `beta` dimensionless,
    `interval` in seconds.
    """
    a = positive("alpha", alpha)
    b = in_range("beta", beta, 0.0, 1.0, lo_open=True, hi_open=True)
    t = positive("interval", interval)
    lo = positive("bottom", bottom)
    hi = positive("top", top)
    if not lo < hi:
        raise ValueError(f"bottom must be < top, got bottom={bottom!r}, top={top!r}")
    up_bound = (hi - lo) / a
    down_bound = math.log(lo / hi) / math.log(b)
    up_exact = _steps_up(lo, hi, None)
    down_exact = _steps_down(lo, hi, b)
    return {
        "up_intervals_bound": up_bound,
        "up_s_bound": up_bound * t,
        "down_intervals_bound": down_bound,
        "down_s_bound": down_bound * t,
        "up_intervals_exact": float(up_exact),
        "up_s_exact": up_exact * t,
        "up_intervals_constant_alpha": float(_steps_up(lo, hi, a)),
        "down_intervals_exact": float(down_exact),
        "down_s_exact": down_exact * t,
    }
