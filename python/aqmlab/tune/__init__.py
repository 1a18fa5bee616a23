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

Warnings say where these rules conflict. The library function is :func:`recommend`
(:mod:`.advice`), the rules are :mod:`.rules`; :func:`add_arguments` and :func:`run` are
the command line (:mod:`.cli`). Units: rates in bits/s,
times in seconds, sizes in bytes, thresholds and buffers in packets.
"""

from .advice import recommend
from .cli import add_arguments, format_text, run

__all__ = ["recommend", "add_arguments", "run", "format_text"]
