"""Lin & Morris 1997, "Dynamics of Random Early Detection" -- FRED's parameter rules.

Section 4.5 lists FRED's constants:

    wq = 0.002;  minth = MIN(buffer size / 4, RTT);  maxth = 2 * minth;  maxp = 0.02;
    minq = 2 for small buffers, 4 for large buffers;

and the algorithm sets maxq = minth (2 while avg >= maxth). Section 4.1 explains minq:
a TCP sends at most 3 packets back to back (two for a delayed ACK, one for a window
increase), so "minq is set to 2 to 4 packets". "RTT" in minth is the round-trip time
expressed in packets (the delay-bandwidth product), as the simulations' "BS = RTT = 16"
shows. The paper does not say where a buffer becomes "large"; aqmlab takes a buffer of
more than 64 packets as large (twice the largest buffer of the paper's simulations,
which use minq = 2 with 16-64 packet buffers) -- an assumption, stated as such.

Units: buffer, thresholds, minq, maxq in packets; w_q, max_p dimensionless.
"""

from __future__ import annotations

from typing import Any

from ..base import positive

__all__ = ["fred_parameters", "LARGE_BUFFER"]

#: Buffers above this many packets count as "large" for minq (aqmlab's assumption).
LARGE_BUFFER = 64


def fred_parameters(buffer: float, rtt_packets: float) -> dict[str, Any]:
    """FRED's constants of Lin & Morris Section 4.5 for a buffer and a round-trip time.

    `buffer` (packets, > 0) is the physical queue limit; `rtt_packets` (> 0) the
    round-trip time times the link rate in packets (delay-bandwidth product). Returns
    a dict with ``min_th`` = min(buffer/4, rtt_packets), ``max_th`` = 2 min_th,
    ``max_p`` = 0.02, ``w_q`` = 0.002, ``minq`` (2, or 4 for buffers above
    :data:`LARGE_BUFFER`), ``maxq`` = min_th, and ``min_th_rule`` naming which term of
    the minimum won.
    """
    buf = positive("buffer", buffer)
    rtt = positive("rtt_packets", rtt_packets)
    by_buffer = buf / 4.0
    min_th = min(by_buffer, rtt)
    return {
        "min_th": min_th,
        "max_th": 2.0 * min_th,
        "max_p": 0.02,
        "w_q": 0.002,
        "minq": 4 if buf > LARGE_BUFFER else 2,
        "maxq": min_th,
        "min_th_rule": "buffer/4" if by_buffer <= rtt else "RTT in packets",
    }
