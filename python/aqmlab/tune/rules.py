"""The rules of ``aqmlab tune``, one function per discipline: each returns its
parameters with the rule and source of each, and records on the :class:`.link.Link`
where the rules conflict (warnings) or need a remark (notes)."""

from __future__ import annotations

import math
from typing import Any

from ..analysis.ared import (
    BETA,
    INTERVAL,
    MAX_P_BOTTOM,
    MAX_P_TOP,
    ared_adaptation_times,
    ared_alpha,
    ared_alpha_ok,
    ared_beta_ok,
)
from ..analysis.floyd import ewma_time_constant, red_burst_average, red_max_w_q
from ..analysis.fred import LARGE_BUFFER, fred_parameters
from ..analysis.zheng import zheng_bounds_from_trace
from .link import FGS01, FJ93, LM97, RED_MAX_P, ZA08, Link, param, seconds


def _ared_parameters(lk: Link) -> dict[str, Any]:
    """Adaptive RED's parameters, each with its rule and source (see :func:`adaptive_red`)."""
    auto, C, min_th = lk.auto, lk.C, lk.min_th
    alpha0 = ared_alpha(RED_MAX_P)
    return {
        "min_th": param(
            min_th,
            "packets",
            "min_th = max(5, delay_target * C / 2)",
            f"{FGS01}, Sec. 6",
            f"C = {C:.6g} packets/s; Adaptive RED holds avg near 2 min_th, so the average "
            f"queueing delay is 2 min_th / C = {seconds(2 * min_th / C)}",
        ),
        "max_th": param(
            lk.max_th,
            "packets",
            "max_th = 3 * min_th",
            f"{FGS01}, Sec. 4.3",
            "target band for avg is [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]"
            f" = [{auto['target_band'][0]:.6g}, {auto['target_band'][1]:.6g}] packets (Fig. 10)",
        ),
        "w_q": param(
            lk.w_auto,
            "",
            "w_q = 1 - exp(-1/C)",
            f"{FGS01}, Sec. 4.3, eq. 1",
            f"time constant -1/ln(1-w_q) = {auto['time_constant_arrivals']:.6g} arrivals = "
            f"{seconds(auto['time_constant_s'])} at full load = {auto['time_constant_s'] / lk.rtt:.3g} RTTs",
        ),
        "max_p_initial": param(
            RED_MAX_P,
            "",
            "any initial value; adapted",
            f"{FGS01}, Sec. 3 and Fig. 10",
            "results are essentially independent of the initial max_p (Fig. 3); 0.1 is ns-2's default",
        ),
        "max_p_range": param(
            [MAX_P_BOTTOM, MAX_P_TOP], "", "max_p kept in [0.01, 0.5]", f"{FGS01}, Sec. 4.1"
        ),
        "interval": param(INTERVAL, "s", "adapt max_p every 0.5 s", f"{FGS01}, Fig. 10"),
        "alpha": param(
            "min(0.01, max_p/4)",
            "",
            "additive increase",
            f"{FGS01}, Fig. 10 and Sec. 4.2",
            f"alpha/(max_p + alpha) <= 0.2 (Sec. 4.2): {ared_alpha_ok(alpha0, RED_MAX_P)} at max_p = {RED_MAX_P}, "
            "and with equality for max_p <= 0.04",
        ),
        "beta": param(
            BETA,
            "",
            "multiplicative decrease",
            f"{FGS01}, Fig. 10 and Sec. 4.2",
            f"(1 - beta)/beta < 0.2, i.e. beta > 0.83: {ared_beta_ok(BETA)}",
        ),
        "gentle": param(
            True,
            "",
            "drop rate from max_p to 1 between max_th and 2 max_th",
            f"{FGS01}, Sec. 4.1",
        ),
        "limit": param(
            lk.limit,
            "packets",
            "limit >= max(2 max_th, max_th + burst)",
            "aqmlab",
            "the gentle region ends at 2 max_th; a burst arriving at max_th still fits",
        ),
    }


def _ared_adaptation() -> dict[str, Any]:
    """How long max_p takes to cross its range, up and down (Sec. 4.2)."""
    times = ared_adaptation_times()
    return {
        "up_s_paper_bound": times["up_s_bound"],
        "down_s_paper_bound": times["down_s_bound"],
        "up_s_exact": times["up_s_exact"],
        "down_s_exact": times["down_s_exact"],
        "explanation": (
            "max_p needs at least 0.49/alpha intervals from 0.01 to 0.5 "
            f"({times['up_s_bound']:.3g} s with alpha = 0.01) and log(0.02)/log(beta) intervals back "
            f"({times['down_s_bound']:.3g} s); with alpha = min(0.01, max_p/4) recomputed at each step "
            f"the climb takes {times['up_intervals_exact']:.0f} intervals ({times['up_s_exact']:.3g} s) "
            f"and the descent {times['down_intervals_exact']:.0f} ({times['down_s_exact']:.3g} s). "
            "(Sec. 4.2 prints 24.5 s and 20.1 s; see docs/analysis.md.)"
        ),
    }


def adaptive_red(lk: Link) -> dict[str, Any]:
    """Adaptive RED's parameters and adaptation times (Floyd, Gummadi & Shenker 2001):
    w_q = 1 - exp(-1/C) (Sec. 4.3, eq. 1), max_th = 3 min_th (Sec. 4.3),
    min_th = max(5, delay_target C / 2) (Sec. 6), max_p adapted in [0.01, 0.5] every
    0.5 s by alpha = min(0.01, max_p/4) and beta = 0.9 (Fig. 10, Sec. 4.1-4.2).
    Notes the reading of Sec. 6's worked example; warns when the floor of 5 packets
    misses the target delay."""
    auto, C, min_th = lk.auto, lk.C, lk.min_th
    ared = {"parameters": _ared_parameters(lk), "adaptation": _ared_adaptation()}
    lk.notes.append(
        f"Adaptive RED Sec. 6 gives min_th = max(5, delay_target*C/2) = {min_th:.6g} packets here, but its worked "
        "example (12.5 packets at 10 Mb/s, 125 at 100 Mb/s, 500-byte packets) equals delay_target*C without the /2; "
        f"that reading would give {auto['min_th_worked_example']:.6g} packets"
        + (
            " and twice the target delay"
            if auto["min_th_worked_example"] != min_th
            else " (the floor of 5 packets applies to both)"
        )
        + ". aqmlab follows the formula, which gives the stated target delay (and is what ns-2 computes)."
    )
    if auto["min_th_floor_applied"]:
        lk.warn(
            "min_th_floor",
            f"delay_target*C/2 = {lk.target * C / 2:.3g} packets is below Adaptive RED's floor of 5 packets (Sec. 6): "
            f"the average queueing delay will be about 2*5/C = {seconds(10 / C)}, above the {seconds(lk.target)} target",
        )
    return ared


def red_w_q(lk: Link) -> tuple[float, float]:
    """RED's w_q and Floyd & Jacobson's eq. (3) bound (Sec. VI-A), the largest w_q that
    lets a burst of `burst` packets leave avg below min_th: RED takes the smaller of the
    bound and Adaptive RED's automatic w_q, and warns when the automatic value breaks
    eq. (3)."""
    w_auto, L = lk.w_auto, lk.burst
    w_eq3 = red_max_w_q(lk.min_th, L)
    if w_auto > w_eq3:
        lk.warn(
            "eq3_vs_auto_w_q",
            f"Adaptive RED's automatic w_q = {w_auto:.3g} lets a burst of {L} packets push avg to "
            f"{red_burst_average(w_auto, L):.3g} packets, past min_th = {lk.min_th:.3g} (Floyd & Jacobson eq. 3 needs "
            f"w_q <= {w_eq3:.3g}); RED uses {w_eq3:.3g} (time constant {seconds(ewma_time_constant(w_eq3) / lk.C)})",
        )
    return min(w_auto, w_eq3), w_eq3


def red(lk: Link, w_red: float, w_eq3: float) -> dict[str, Any]:
    """RED's parameters (Floyd & Jacobson 1993): Adaptive RED's thresholds, w_q from
    :func:`red_w_q` with its time constant -1/ln(1-w_q) (Sec. VI-B) in seconds and
    round-trip times, max_p = 0.1 (Sec. VII), Method 2 marking (Sec. VII), gentle mode
    (Floyd, Gummadi & Shenker Sec. 4.1). Warns when max_th - min_th is not larger than
    the rise of avg in one round-trip time after a step of `burst` packets (Sec. VI-C)."""
    C, L, min_th, max_th, w_auto = lk.C, lk.burst, lk.min_th, lk.max_th, lk.w_auto
    tc_red = ewma_time_constant(w_red)
    avg_after = red_burst_average(w_red, L)
    w_reason = (
        f"largest w_q letting a burst of {L} packets leave avg below min_th is {w_eq3:.4g} (eq. 3"
        + (", no constraint since min_th >= burst" if w_eq3 >= 1 else "")
        + f"); the 1 s time-constant rule gives {w_auto:.4g}; the smaller is kept. After the burst avg = "
        f"{avg_after:.4g} packets (eq. 2). Time constant {tc_red:.6g} arrivals = {seconds(tc_red / C)} = "
        f"{tc_red / C / lk.rtt:.3g} RTTs"
    )
    rise_rtt = L * (1.0 - (1.0 - w_red) ** (C * lk.rtt))
    red = {
        "parameters": {
            "min_th": param(
                min_th,
                "packets",
                "as Adaptive RED: max(5, delay_target * C / 2)",
                f"{FGS01}, Sec. 6",
                f"min_th must be large enough for bursts ({FJ93}, Sec. VI-C)",
            ),
            "max_th": param(
                max_th,
                "packets",
                "max_th = 3 min_th (at least twice min_th)",
                f"{FJ93}, Sec. VI-C; {FGS01}, Sec. 4.3",
                f"max_th - min_th = {max_th - min_th:.4g} packets exceeds the rise of avg in one RTT "
                f"after a step of {L} packets, {rise_rtt:.4g} packets"
                if rise_rtt < max_th - min_th
                else f"max_th - min_th = {max_th - min_th:.4g} packets",
            ),
            "w_q": param(
                w_red,
                "",
                "w_q = min(1 - exp(-1/C), eq. 3 bound)",
                f"{FJ93}, Sec. VI-A eq. 3 and VI-B; {FGS01}, Sec. 4.3",
                w_reason,
            ),
            "max_p": param(
                RED_MAX_P,
                "",
                "max_p = 0.1",
                f"{FJ93}, Sec. VII",
                "never a reason to exceed 0.1 (Sec. VII); with a fixed max_p the average settles wherever "
                "the drop function gives the drop rate the traffic needs, so delay depends on load "
                f"({FGS01}, Sec. 3) -- use Adaptive RED to pin it",
            ),
            "marking": param(
                "uniform",
                "",
                "Method 2: p_a = p_b / (1 - count p_b)",
                f"{FJ93}, Sec. VII",
                "marks evenly spaced (uniform inter-mark gap, mean 1/(2 p_b) + 1/2) rather than clustered",
            ),
            "gentle": param(
                True,
                "",
                "gentle mode",
                f"{FGS01}, Sec. 4.1",
                "not in the 1993 paper; avoids the cliff at max_th",
            ),
            "limit": param(lk.limit, "packets", "limit >= max(2 max_th, max_th + burst)", "aqmlab"),
        }
    }
    if rise_rtt >= max_th - min_th:
        lk.warn(
            "max_th_gap",
            f"max_th - min_th = {max_th - min_th:.3g} packets is not larger than the rise of avg in one RTT after a "
            f"step of {L} packets ({rise_rtt:.3g}); Floyd & Jacobson Sec. VI-C want it larger",
        )
    return red


def averaging_rules(lk: Link, w_red: float) -> None:
    """The rules of thumb that tie the average to the round-trip time (Floyd, Gummadi &
    Shenker 2001): the average should span a small multiple of RTTs (Sec. 3 and 4.3),
    the target delay be a fraction of the RTT and 2 min_th be weighed against the
    delay-bandwidth product (Sec. 6); and the buffer must hold a burst (aqmlab)."""
    rtt_s, target = lk.rtt, lk.target
    for name, w in (("adaptive_red", lk.w_auto), ("red", w_red)):
        tau = ewma_time_constant(w) / lk.C
        if tau < rtt_s:
            lk.warn(
                f"{name}_time_constant",
                f"{name}: w_q = {w:.3g} averages over {seconds(tau)}, less than one RTT ({seconds(rtt_s)}); Adaptive RED Sec. 3 "
                "and 4.3: the average should span a small multiple of RTTs, not a fraction of one",
            )
    if target >= rtt_s:
        lk.warn(
            "target_vs_rtt",
            f"the target delay {seconds(target)} is not a fraction of the RTT {seconds(rtt_s)} "
            "(Adaptive RED Sec. 6 rule of thumb)",
        )
    min_th, bdp = lk.min_th, lk.bdp
    lk.notes.append(
        f"The average-queue target 2 min_th = {2 * min_th:.6g} packets is {2 * min_th / bdp:.1%} of the "
        f"delay-bandwidth product ({bdp:.6g} packets): a small target costs throughput when few flows share the "
        "link (Adaptive RED Sec. 6)."
    )
    if lk.burst > lk.limit:
        lk.warn(
            "burst_vs_limit",
            f"a burst of {lk.burst} packets exceeds the recommended limit of {lk.limit:.0f} packets",
        )


def fred(lk: Link) -> dict[str, Any]:
    """FRED's parameters (Lin & Morris 1997, Sec. 4.5): minth = min(buffer/4, RTT in
    packets), maxth = 2 minth, maxp = 0.02, minq 2 or 4 (Sec. 4.1), maxq = minth; w_q
    scaled with the link as Adaptive RED's (Floyd, Gummadi & Shenker Sec. 4.3) for an
    average taken at arrivals and departures (Sec. 4.4). Warns when FRED's thresholds
    miss the target delay that sets RED's."""
    C, limit = lk.C, lk.limit
    fp = fred_parameters(limit, lk.bdp)
    w_fred = -math.expm1(-1.0 / (2.0 * C))
    tau_fred_paper = ewma_time_constant(fp["w_q"]) / (2.0 * C)
    fred = {
        "parameters": {
            "min_th": param(
                fp["min_th"],
                "packets",
                "minth = MIN(buffer size / 4, RTT)",
                f"{LM97}, Sec. 4.5",
                f"buffer = {limit:.0f} packets, RTT = {lk.bdp:.6g} packets; {fp['min_th_rule']} is smaller",
            ),
            "max_th": param(fp["max_th"], "packets", "maxth = 2 * minth", f"{LM97}, Sec. 4.5"),
            "max_p": param(fp["max_p"], "", "maxp = 0.02", f"{LM97}, Sec. 4.5"),
            "minq": param(
                fp["minq"],
                "packets",
                "2 for small buffers, 4 for large",
                f"{LM97}, Sec. 4.1 and 4.5",
                f"a TCP sends at most 3 packets back to back; buffers above {LARGE_BUFFER} packets count as "
                "large (aqmlab's reading)",
            ),
            "maxq": param(
                fp["maxq"], "packets", "maxq = minth (2 while avg >= maxth)", f"{LM97}, Sec. 4.5"
            ),
            "w_q": param(
                w_fred,
                "",
                "w_q = 1 - exp(-1/(2C))",
                f"{FGS01}, Sec. 4.3, applied to {LM97}, Sec. 4.4",
                f"FRED averages at arrivals and departures (about 2C samples/s at full load), so this keeps "
                f"the 1 s time constant; the paper's constant 0.002 would average over {seconds(tau_fred_paper)}",
            ),
            "limit": param(limit, "packets", "as RED", "aqmlab"),
        },
        "paper_w_q": fp["w_q"],
    }
    if tau_fred_paper < lk.rtt:
        lk.notes.append(
            f"FRED's published w_q = 0.002 averages over {seconds(tau_fred_paper)} here, less than one RTT; "
            "aqmlab scales it with the link as Adaptive RED does."
        )
    if fp["max_th"] / C > lk.target * 1.0001:
        lk.warn(
            "fred_vs_target",
            f"FRED's rule minth = min(buffer/4, RTT) puts avg in [{fp['min_th']:.4g}, {fp['max_th']:.4g}] packets, "
            f"a delay of up to {seconds(fp['max_th'] / C)}, above the {seconds(lk.target)} target that sets RED's thresholds",
        )
    return fred


def zheng(lk: Link, w_red: float, trace: Any, trace_link: str | None) -> dict[str, Any]:
    """Zheng & Atiquzzaman 2008's bounds on w (eqs. 14 and 21) with K_l = min_th, their
    inputs (b, q0, l1, g, m2) estimated from a queue trace (Sec. 3-4); unavailable
    without one. Warns when the bounds are infeasible or RED's or Adaptive RED's w_q
    lies outside them."""
    if trace is None:
        return {
            "available": False,
            "reason": (
                "eqs. 14 and 21 need the queue's burst ratio b, OFF level q0, half long-term period l1, g and "
                "m2, which can only be estimated from a queue trace: pass --trace (a per-arrival queue trace)"
            ),
        }

    zb = zheng_bounds_from_trace(trace, lk.min_th, link=trace_link)
    if not zb["feasible"]:
        lk.warn(
            "zheng_infeasible",
            f"Zheng's lower bound {zb['lower']:.3g} exceeds the upper bound {zb['upper']:.3g}: "
            "no w satisfies both for this trace",
        )
    for name, w in (("red", w_red), ("adaptive_red", lk.w_auto)) if zb["feasible"] else ():
        if not zb["lower"] <= w <= zb["upper"]:
            lk.warn(
                f"zheng_vs_{name}",
                f"{name}: w_q = {w:.3g} lies outside Zheng & Atiquzzaman's bounds [{zb['lower']:.3g}, "
                f"{zb['upper']:.3g}] for this trace; their bounds (eqs. 14, 21) are built on a per-trace model "
                "and typically ask for a much faster average than Floyd's rules",
            )
    return {
        "available": True,
        **zb,
        "explanation": f"K_l = min_th = {lk.min_th:.4g} packets; inputs estimated from the trace ({ZA08}, Sec. 3-4)",
    }


def predicted_delay(lk: Link, fred: dict[str, Any]) -> dict[str, Any]:
    """The average queueing delay each discipline aims at, avg / C: Adaptive RED's
    target band (Floyd, Gummadi & Shenker Fig. 10), RED's and FRED's threshold ranges,
    and a full buffer."""
    auto, C = lk.auto, lk.C
    fp = fred["parameters"]
    return {
        "adaptive_red": {
            "avg_packets": auto["target_avg"],
            "delay_s": auto["target_delay_s"],
            "band_s": [auto["target_band"][0] / C, auto["target_band"][1] / C],
            "explanation": "Adaptive RED steers avg into its target band (Fig. 10); delay = avg / C",
        },
        "red": {
            "delay_range_s": [lk.min_th / C, lk.max_th / C],
            "explanation": "avg settles between min_th and max_th where the drop function meets the drop rate the "
            "traffic needs; where depends on load and max_p",
        },
        "fred": {
            "delay_range_s": [fp["min_th"]["value"] / C, fp["max_th"]["value"] / C],
            "explanation": "avg between minth and maxth",
        },
        "worst_case_s": lk.limit / C,
        "worst_case_explanation": "a full buffer: limit / C",
    }
