"""The advisor's library function, :func:`recommend`."""

from __future__ import annotations

from typing import Any

from ..analysis.ared import ared_auto_parameters
from ..base import integer
from ..units import parse_rate, parse_size, parse_time
from . import rules
from .link import Link, number


def recommend(
    rate_bps: Any,
    rtt: Any,
    packet_size: Any = 1500,
    target_delay: Any = 0.005,
    burst: Any = 50,
    *,
    trace: Any = None,
    trace_link: str | None = None,
) -> dict[str, Any]:
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
    rate = number(rate_bps, "rate_bps", parse_rate)
    rtt_s = number(rtt, "rtt", parse_time)
    size = number(packet_size, "packet_size", parse_size)
    target = number(target_delay, "target_delay", parse_time)
    L = integer("burst", burst, minimum=1)
    lk = Link(rate, rtt_s, size, target, L, ared_auto_parameters(rate, size, target))

    # The rules speak in this order, so that warnings and notes read in it too.
    ared = rules.adaptive_red(lk)
    w_red, w_eq3 = rules.red_w_q(lk)
    red = rules.red(lk, w_red, w_eq3)
    rules.averaging_rules(lk, w_red)
    fred = rules.fred(lk)
    zheng = rules.zheng(lk, w_red, trace, trace_link)
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
        "predicted_delay": rules.predicted_delay(lk, fred),
        "warnings": lk.warnings,
        "notes": lk.notes,
    }
