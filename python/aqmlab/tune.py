"""``aqmlab tune``: RED, Adaptive RED and FRED parameters for a link, explained.

    aqmlab tune --rate 10Gbps --rtt 50ms [--packet-size 1500] [--target-delay 5ms]
                [--burst 50] [--trace trace_queue.parquet [--trace-link r1->r2]] [--json]

Each recommended value names the rule or model it comes from:

- Adaptive RED (Floyd, Gummadi & Shenker 2001): automatic w_q = 1 - exp(-1/C)
  (Sec. 4.3, eq. 1), max_th = 3 min_th (Sec. 4.3), min_th = max(5, delay_target C / 2)
  (Sec. 6), max_p adapted in [0.01, 0.5] by AIMD every 0.5 s (Fig. 10, Sec. 4.1-4.2);
- RED (Floyd & Jacobson 1993): the same thresholds, w_q limited by eq. (3) so that a
  burst of `burst` packets leaves the average below min_th, the time constant
  -1/ln(1-w_q) (Sec. VI-B) reported in seconds and round-trip times, max_th - min_th
  checked against the rise of the average in one round-trip time (Sec. VI-C);
- FRED (Lin & Morris 1997, Sec. 4.5): minth = min(buffer/4, RTT in packets),
  maxth = 2 minth, minq 2 or 4, maxq = minth;
- Zheng & Atiquzzaman 2008 (eqs. 14 and 21): bounds on w when a queue trace is given,
  since their inputs (b, q0, l1, g, m2) can only be estimated from one.

Warnings say where these rules conflict. The library function is :func:`recommend`;
:func:`add_arguments` and :func:`run` are the command line. Units: rates in bits/s,
times in seconds, sizes in bytes, thresholds and buffers in packets.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from .analysis.ared import (
    BETA,
    INTERVAL,
    MAX_P_BOTTOM,
    MAX_P_TOP,
    ared_adaptation_times,
    ared_alpha,
    ared_alpha_ok,
    ared_auto_parameters,
    ared_beta_ok,
)
from .analysis.floyd import ewma_time_constant, red_burst_average, red_max_w_q
from .analysis.fred import LARGE_BUFFER, fred_parameters
from .analysis.zheng import zheng_bounds_from_trace
from .base import integer, positive
from .units import parse_rate, parse_size, parse_time

__all__ = ["recommend", "add_arguments", "run", "format_text"]

FJ93 = "Floyd & Jacobson 1993"
FGS01 = "Floyd, Gummadi & Shenker 2001 (Adaptive RED)"
LM97 = "Lin & Morris 1997 (FRED)"
ZA08 = "Zheng & Atiquzzaman 2008"

#: max_p of non-adaptive RED and the initial max_p of Adaptive RED: ns-2's default,
#: the largest value Floyd & Jacobson Sec. VII consider reasonable.
RED_MAX_P = 0.1


def _param(value: Any, unit: str, rule: str, source: str, why: str = "") -> Dict[str, Any]:
    """One recommended value with its unit, the rule it comes from, the source and why."""
    out = {"value": value, "unit": unit, "rule": rule, "source": source}
    if why:
        out["why"] = why
    return out


def _num(x: Any, name: str, parser: Any) -> float:
    """A number, or a unit string parsed by `parser`; ValueError naming `name`."""
    if isinstance(x, str):
        return parser(x, name)
    return positive(name, x)


def _s(x: float) -> str:
    """Seconds in a readable unit."""
    for unit, f in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if x >= 0.9995 * f:
            return f"{x / f:.3g} {unit}"
    return f"{x * 1e9:.3g} ns"


def _rate(x: float) -> str:
    """A rate in bits/s in a readable unit."""
    for unit, f in (("Tb/s", 1e12), ("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if x >= f:
            return f"{x / f:g} {unit}"
    return f"{x:g} b/s"


@dataclass
class _Link:
    """What every rule reads: the inputs in SI units, Adaptive RED's automatic
    parameters (which set the thresholds of all three disciplines) and the buffer; and
    what the rules say where they conflict (`warnings`) or need a remark (`notes`)."""

    rate: float  #: link rate, bits/s
    rtt: float  #: typical round-trip time, s
    size: float  #: mean packet size, bytes
    target: float  #: average queueing delay wanted, s
    burst: int  #: burst to absorb without marking, packets
    auto: Dict[str, Any]  #: :func:`ared_auto_parameters` of the link
    warnings: List[Dict[str, str]] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)

    @property
    def C(self) -> float:
        """Capacity, packets/s."""
        return float(self.auto["C"])

    @property
    def bdp(self) -> float:
        """Delay-bandwidth product, packets."""
        return self.C * self.rtt

    @property
    def min_th(self) -> float:
        """Adaptive RED's min_th, shared by RED (packets)."""
        return float(self.auto["min_th"])

    @property
    def max_th(self) -> float:
        """Adaptive RED's max_th, shared by RED (packets)."""
        return float(self.auto["max_th"])

    @property
    def w_auto(self) -> float:
        """Adaptive RED's automatic w_q."""
        return float(self.auto["w_q"])

    @property
    def limit(self) -> float:
        """The buffer (packets): limit >= max(2 max_th, max_th + burst), aqmlab's rule."""
        return float(math.ceil(max(2.0 * self.max_th, self.max_th + self.burst)))

    def warn(self, code: str, message: str) -> None:
        """Record a conflict between rules."""
        self.warnings.append({"code": code, "message": message})


def recommend(
    rate_bps: Any,
    rtt: Any,
    packet_size: Any = 1500,
    target_delay: Any = 0.005,
    burst: Any = 50,
    *,
    trace: Any = None,
    trace_link: Optional[str] = None,
) -> Dict[str, Any]:
    """Recommended RED, Adaptive RED and FRED parameters for a link, with reasons.

    `rate_bps` link rate (bits/s, or a string such as ``"10Gbps"``), `rtt` a typical
    round-trip time (s or ``"50ms"``), `packet_size` the mean packet size (bytes or
    ``"1500B"``), `target_delay` the average queueing delay wanted (s), `burst` the
    burst (packets, back to back) RED should absorb without marking. `trace`
    (optional, keyword only) is a queue-length trace (array, DataFrame, Parquet or
    CSV path; `trace_link` picks a link) from which Zheng & Atiquzzaman's inputs are
    estimated. Returns a JSON-serialisable dict: ``inputs``, ``link``, ``red``,
    ``adaptive_red``, ``fred``, ``zheng``, ``predicted_delay``, ``warnings``,
    ``notes``. Bad arguments raise ValueError naming the argument.
    """
    rate = _num(rate_bps, "rate_bps", parse_rate)
    rtt_s = _num(rtt, "rtt", parse_time)
    size = _num(packet_size, "packet_size", parse_size)
    target = _num(target_delay, "target_delay", parse_time)
    L = integer("burst", burst, minimum=1)
    lk = _Link(rate, rtt_s, size, target, L, ared_auto_parameters(rate, size, target))

    # The rules speak in this order, so that warnings and notes read in it too.
    ared = _adaptive_red(lk)
    w_red, w_eq3 = _red_w_q(lk)
    red = _red(lk, w_red, w_eq3)
    _averaging_rules(lk, w_red)
    fred = _fred(lk)
    zheng = _zheng(lk, w_red, trace, trace_link)
    return {
        "inputs": {
            "rate_bps": rate,
            "rtt_s": rtt_s,
            "packet_size_bytes": size,
            "target_delay_s": target,
            "burst_packets": L,
        },
        "link": {
            "rate_bps": rate,
            "capacity_pkts_per_s": lk.C,
            "service_time_s": 1.0 / lk.C,
            "bdp_packets": lk.bdp,
        },
        "red": red,
        "adaptive_red": ared,
        "fred": fred,
        "zheng": zheng,
        "predicted_delay": _predicted_delay(lk, fred),
        "warnings": lk.warnings,
        "notes": lk.notes,
    }


def _adaptive_red(lk: _Link) -> Dict[str, Any]:
    """Adaptive RED's parameters and adaptation times (Floyd, Gummadi & Shenker 2001):
    w_q = 1 - exp(-1/C) (Sec. 4.3, eq. 1), max_th = 3 min_th (Sec. 4.3),
    min_th = max(5, delay_target C / 2) (Sec. 6), max_p adapted in [0.01, 0.5] every
    0.5 s by alpha = min(0.01, max_p/4) and beta = 0.9 (Fig. 10, Sec. 4.1-4.2).
    Notes the reading of Sec. 6's worked example; warns when the floor of 5 packets
    misses the target delay."""
    auto, C, min_th = lk.auto, lk.C, lk.min_th
    times = ared_adaptation_times()
    alpha0 = ared_alpha(RED_MAX_P)
    ared = {
        "parameters": {
            "min_th": _param(
                min_th,
                "packets",
                "min_th = max(5, delay_target * C / 2)",
                f"{FGS01}, Sec. 6",
                f"C = {C:.6g} packets/s; Adaptive RED holds avg near 2 min_th, so the average "
                f"queueing delay is 2 min_th / C = {_s(2 * min_th / C)}",
            ),
            "max_th": _param(
                lk.max_th,
                "packets",
                "max_th = 3 * min_th",
                f"{FGS01}, Sec. 4.3",
                "target band for avg is [min_th + 0.4 (max_th - min_th), min_th + 0.6 (max_th - min_th)]"
                f" = [{auto['target_band'][0]:.6g}, {auto['target_band'][1]:.6g}] packets (Fig. 10)",
            ),
            "w_q": _param(
                lk.w_auto,
                "",
                "w_q = 1 - exp(-1/C)",
                f"{FGS01}, Sec. 4.3, eq. 1",
                f"time constant -1/ln(1-w_q) = {auto['time_constant_arrivals']:.6g} arrivals = "
                f"{_s(auto['time_constant_s'])} at full load = {auto['time_constant_s'] / lk.rtt:.3g} RTTs",
            ),
            "max_p_initial": _param(
                RED_MAX_P,
                "",
                "any initial value; adapted",
                f"{FGS01}, Sec. 3 and Fig. 10",
                "results are essentially independent of the initial max_p (Fig. 3); 0.1 is ns-2's default",
            ),
            "max_p_range": _param(
                [MAX_P_BOTTOM, MAX_P_TOP], "", "max_p kept in [0.01, 0.5]", f"{FGS01}, Sec. 4.1"
            ),
            "interval": _param(INTERVAL, "s", "adapt max_p every 0.5 s", f"{FGS01}, Fig. 10"),
            "alpha": _param(
                "min(0.01, max_p/4)",
                "",
                "additive increase",
                f"{FGS01}, Fig. 10 and Sec. 4.2",
                f"alpha/(max_p + alpha) <= 0.2 (Sec. 4.2): {ared_alpha_ok(alpha0, RED_MAX_P)} at max_p = {RED_MAX_P}, "
                "and with equality for max_p <= 0.04",
            ),
            "beta": _param(
                BETA,
                "",
                "multiplicative decrease",
                f"{FGS01}, Fig. 10 and Sec. 4.2",
                f"(1 - beta)/beta < 0.2, i.e. beta > 0.83: {ared_beta_ok(BETA)}",
            ),
            "gentle": _param(
                True,
                "",
                "drop rate from max_p to 1 between max_th and 2 max_th",
                f"{FGS01}, Sec. 4.1",
            ),
            "limit": _param(
                lk.limit,
                "packets",
                "limit >= max(2 max_th, max_th + burst)",
                "aqmlab",
                "the gentle region ends at 2 max_th; a burst arriving at max_th still fits",
            ),
        },
        "adaptation": {
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
        },
    }
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
            f"the average queueing delay will be about 2*5/C = {_s(10 / C)}, above the {_s(lk.target)} target",
        )
    return ared


def _red_w_q(lk: _Link) -> Tuple[float, float]:
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
            f"w_q <= {w_eq3:.3g}); RED uses {w_eq3:.3g} (time constant {_s(ewma_time_constant(w_eq3) / lk.C)})",
        )
    return min(w_auto, w_eq3), w_eq3


def _red(lk: _Link, w_red: float, w_eq3: float) -> Dict[str, Any]:
    """RED's parameters (Floyd & Jacobson 1993): Adaptive RED's thresholds, w_q from
    :func:`_red_w_q` with its time constant -1/ln(1-w_q) (Sec. VI-B) in seconds and
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
        f"{avg_after:.4g} packets (eq. 2). Time constant {tc_red:.6g} arrivals = {_s(tc_red / C)} = "
        f"{tc_red / C / lk.rtt:.3g} RTTs"
    )
    rise_rtt = L * (1.0 - (1.0 - w_red) ** (C * lk.rtt))
    red = {
        "parameters": {
            "min_th": _param(
                min_th,
                "packets",
                "as Adaptive RED: max(5, delay_target * C / 2)",
                f"{FGS01}, Sec. 6",
                f"min_th must be large enough for bursts ({FJ93}, Sec. VI-C)",
            ),
            "max_th": _param(
                max_th,
                "packets",
                "max_th = 3 min_th (at least twice min_th)",
                f"{FJ93}, Sec. VI-C; {FGS01}, Sec. 4.3",
                f"max_th - min_th = {max_th - min_th:.4g} packets exceeds the rise of avg in one RTT "
                f"after a step of {L} packets, {rise_rtt:.4g} packets"
                if rise_rtt < max_th - min_th
                else f"max_th - min_th = {max_th - min_th:.4g} packets",
            ),
            "w_q": _param(
                w_red,
                "",
                "w_q = min(1 - exp(-1/C), eq. 3 bound)",
                f"{FJ93}, Sec. VI-A eq. 3 and VI-B; {FGS01}, Sec. 4.3",
                w_reason,
            ),
            "max_p": _param(
                RED_MAX_P,
                "",
                "max_p = 0.1",
                f"{FJ93}, Sec. VII",
                "never a reason to exceed 0.1 (Sec. VII); with a fixed max_p the average settles wherever "
                "the drop function gives the drop rate the traffic needs, so delay depends on load "
                f"({FGS01}, Sec. 3) -- use Adaptive RED to pin it",
            ),
            "marking": _param(
                "uniform",
                "",
                "Method 2: p_a = p_b / (1 - count p_b)",
                f"{FJ93}, Sec. VII",
                "marks evenly spaced (uniform inter-mark gap, mean 1/(2 p_b) + 1/2) rather than clustered",
            ),
            "gentle": _param(
                True,
                "",
                "gentle mode",
                f"{FGS01}, Sec. 4.1",
                "not in the 1993 paper; avoids the cliff at max_th",
            ),
            "limit": _param(
                lk.limit, "packets", "limit >= max(2 max_th, max_th + burst)", "aqmlab"
            ),
        }
    }
    if rise_rtt >= max_th - min_th:
        lk.warn(
            "max_th_gap",
            f"max_th - min_th = {max_th - min_th:.3g} packets is not larger than the rise of avg in one RTT after a "
            f"step of {L} packets ({rise_rtt:.3g}); Floyd & Jacobson Sec. VI-C want it larger",
        )
    return red


def _averaging_rules(lk: _Link, w_red: float) -> None:
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
                f"{name}: w_q = {w:.3g} averages over {_s(tau)}, less than one RTT ({_s(rtt_s)}); Adaptive RED Sec. 3 "
                "and 4.3: the average should span a small multiple of RTTs, not a fraction of one",
            )
    if target >= rtt_s:
        lk.warn(
            "target_vs_rtt",
            f"the target delay {_s(target)} is not a fraction of the RTT {_s(rtt_s)} "
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


def _fred(lk: _Link) -> Dict[str, Any]:
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
            "min_th": _param(
                fp["min_th"],
                "packets",
                "minth = MIN(buffer size / 4, RTT)",
                f"{LM97}, Sec. 4.5",
                f"buffer = {limit:.0f} packets, RTT = {lk.bdp:.6g} packets; {fp['min_th_rule']} is smaller",
            ),
            "max_th": _param(fp["max_th"], "packets", "maxth = 2 * minth", f"{LM97}, Sec. 4.5"),
            "max_p": _param(fp["max_p"], "", "maxp = 0.02", f"{LM97}, Sec. 4.5"),
            "minq": _param(
                fp["minq"],
                "packets",
                "2 for small buffers, 4 for large",
                f"{LM97}, Sec. 4.1 and 4.5",
                f"a TCP sends at most 3 packets back to back; buffers above {LARGE_BUFFER} packets count as "
                "large (aqmlab's reading)",
            ),
            "maxq": _param(
                fp["maxq"], "packets", "maxq = minth (2 while avg >= maxth)", f"{LM97}, Sec. 4.5"
            ),
            "w_q": _param(
                w_fred,
                "",
                "w_q = 1 - exp(-1/(2C))",
                f"{FGS01}, Sec. 4.3, applied to {LM97}, Sec. 4.4",
                f"FRED averages at arrivals and departures (about 2C samples/s at full load), so this keeps "
                f"the 1 s time constant; the paper's constant 0.002 would average over {_s(tau_fred_paper)}",
            ),
            "limit": _param(limit, "packets", "as RED", "aqmlab"),
        },
        "paper_w_q": fp["w_q"],
    }
    if tau_fred_paper < lk.rtt:
        lk.notes.append(
            f"FRED's published w_q = 0.002 averages over {_s(tau_fred_paper)} here, less than one RTT; "
            "aqmlab scales it with the link as Adaptive RED does."
        )
    if fp["max_th"] / C > lk.target * 1.0001:
        lk.warn(
            "fred_vs_target",
            f"FRED's rule minth = min(buffer/4, RTT) puts avg in [{fp['min_th']:.4g}, {fp['max_th']:.4g}] packets, "
            f"a delay of up to {_s(fp['max_th'] / C)}, above the {_s(lk.target)} target that sets RED's thresholds",
        )
    return fred


def _zheng(lk: _Link, w_red: float, trace: Any, trace_link: Optional[str]) -> Dict[str, Any]:
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


def _predicted_delay(lk: _Link, fred: Dict[str, Any]) -> Dict[str, Any]:
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


# ------------------------------------------------------------------- output
def _val(p: Dict[str, Any]) -> str:
    """A parameter's value and unit for the text output."""
    x, unit = p["value"], p["unit"]
    if isinstance(x, bool):
        s = "on" if x else "off"
    elif isinstance(x, (int, float)):
        s = f"{x:.6g}" if not (isinstance(x, float) and x < 1e-3) else f"{x:.4g}"
    elif isinstance(x, list):
        s = "[" + ", ".join(f"{y:g}" for y in x) + "]"
    else:
        s = str(x)
    return f"{s} {unit}".strip()


def format_text(rec: Dict[str, Any]) -> str:
    """The recommendation as plain text for people."""
    i, lk = rec["inputs"], rec["link"]
    lines = [
        f"aqmlab tune: {_rate(i['rate_bps'])}, RTT {_s(i['rtt_s'])}, {i['packet_size_bytes']:g}-byte packets, "
        f"target delay {_s(i['target_delay_s'])}, bursts of {i['burst_packets']} packets",
        f"link: C = {lk['capacity_pkts_per_s']:.6g} packets/s ({_s(lk['service_time_s'])} per packet), "
        f"delay-bandwidth product {lk['bdp_packets']:.6g} packets",
    ]
    titles = (
        ("red", "RED (Floyd & Jacobson 1993)"),
        ("adaptive_red", "Adaptive RED (Floyd, Gummadi & Shenker 2001)"),
        ("fred", "FRED (Lin & Morris 1997)"),
    )
    for key, title in titles:
        lines += ["", title]
        params = rec[key]["parameters"]
        width = max(len(n) for n in params)
        pad = " " * (width + 4)
        for name, p in params.items():
            lines.append(f"  {name:<{width}}  {_val(p):<20} {p['rule']}")
            lines.append(f"{pad}from: {p['source']}")
            if p.get("why"):
                lines.append(f"{pad}why:  {p['why']}")
        if key == "adaptive_red":
            lines.append(f"  adaptation: {rec[key]['adaptation']['explanation']}")
    z = rec["zheng"]
    lines += ["", "Zheng & Atiquzzaman 2008 bounds on w"]
    if z["available"]:
        inp = z["inputs"]
        lines.append(
            f"  w in [{z['lower']:.4g}, {z['upper']:.4g}] (eq. 14, eq. 21); inputs b = {inp['b']:.3g}, "
            f"q0 = {inp['q0']:.3g}, l1 = {inp['l1']:.3g}, g = {inp['g']:.3g}, m2 = {inp['m2_lower']:.3g} / "
            f"{inp['m2_upper']:.3g}"
        )
    else:
        lines.append(f"  not computed: {z['reason']}")
    pd = rec["predicted_delay"]
    lines += [
        "",
        "Predicted queueing delay",
        f"  Adaptive RED: {_s(pd['adaptive_red']['delay_s'])} (target band {_s(pd['adaptive_red']['band_s'][0])} - "
        f"{_s(pd['adaptive_red']['band_s'][1])})",
        f"  RED:          {_s(pd['red']['delay_range_s'][0])} - {_s(pd['red']['delay_range_s'][1])} depending on load",
        f"  FRED:         {_s(pd['fred']['delay_range_s'][0])} - {_s(pd['fred']['delay_range_s'][1])}",
        f"  worst case (full buffer): {_s(pd['worst_case_s'])}",
    ]
    if rec["warnings"]:
        lines += ["", "Warnings (where the rules conflict)"]
        lines += [f"  - [{w['code']}] {w['message']}" for w in rec["warnings"]]
    if rec["notes"]:
        lines += ["", "Notes"]
        lines += [f"  - {n}" for n in rec["notes"]]
    return "\n".join(lines)


# --------------------------------------------------------------------- CLI
def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``aqmlab tune``'s options to `parser`."""
    parser.add_argument(
        "--rate", required=True, help="link rate, e.g. 10Gbps, 100Mb/s (bits per second)"
    )
    parser.add_argument("--rtt", required=True, help="typical round-trip time, e.g. 50ms")
    parser.add_argument(
        "--packet-size",
        default="1500B",
        help="mean packet size, e.g. 1500 or 1500B (default 1500B)",
    )
    parser.add_argument(
        "--target-delay", default="5ms", help="average queueing delay wanted (default 5ms)"
    )
    parser.add_argument(
        "--burst", default="50", help="burst in packets to absorb without marking (default 50)"
    )
    parser.add_argument(
        "--trace",
        default=None,
        help="queue trace (Parquet or CSV from the simulator) to estimate Zheng & Atiquzzaman's bounds",
    )
    parser.add_argument("--trace-link", default=None, help="link direction in --trace, e.g. r1->r2")
    parser.add_argument(
        "--json", action="store_true", help="print JSON for scripts instead of text"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``aqmlab tune``; returns the exit code (2 with a message naming the option on bad input)."""
    try:
        rate = parse_rate(args.rate, "--rate")
        rtt = parse_time(args.rtt, "--rtt")
        size = parse_size(args.packet_size, "--packet-size")
        target = parse_time(args.target_delay, "--target-delay")
        burst = integer("--burst", args.burst, minimum=1)
        rec = recommend(
            rate, rtt, size, target, burst, trace=args.trace, trace_link=args.trace_link
        )
    except ValueError as e:
        print(f"aqmlab tune: error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(rec, indent=2, allow_nan=False))
    else:
        print(format_text(rec))
    return 0
