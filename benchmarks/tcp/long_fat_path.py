"""One TCP flow on a long fat path with aqmlab's default TCP: 100 Mb/s, 100 ms round
trip, a Drop Tail buffer of one bandwidth-delay product (833 packets of 1500 bytes; the
path holds 1666), 300 s, measured over [50 s, 300 s]. Prints each sender's bottleneck
utilization, its time-average congestion window against 2 x (BDP + buffer), and its
timeouts:

    python benchmarks/tcp/long_fat_path.py [--duration 300]

The cases: CUBIC without and with SACK, NewReno without SACK (every key at its default,
the `rfc` profile), and CUBIC under the `linux` profile. Needs aqmlab installed.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

RATE, RTT, SIZE = 100e6, 0.100, 1500
BDP = int(RATE * RTT / 8 / SIZE)  # packets
CASES: list[tuple[str, dict[str, Any]]] = [
    ("cubic", {"variant": "cubic"}),
    ("cubic, sack = true", {"variant": "cubic", "sack": True}),
    ("newreno", {"variant": "newreno"}),
    ("cubic, profile linux", {"profile": "linux"}),
]


def scenario(flow: dict[str, Any], duration: float) -> dict[str, Any]:
    """s1 -1 Gb/s, 1 ms- r1 -100 Mb/s, 49 ms, Drop Tail of one BDP- k1."""
    return {
        "duration": duration,
        "warmup": 50.0,
        "bottleneck": "r1->k1",
        "link": [
            {
                "a": "s1",
                "b": "r1",
                "rate": "1Gbps",
                "delay": "1ms",
                "queue": {"type": "droptail", "limit": 10 * BDP},
            },
            {
                "a": "r1",
                "b": "k1",
                "rate": RATE,
                "delay": RTT / 2 - 0.001,
                "queue": {"type": "droptail", "limit": BDP},
            },
        ],
        "flow": [dict({"src": "s1", "dst": "k1", "packet_size": SIZE}, **flow)],
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=300.0, help="s (default 300)")
    a = ap.parse_args()
    from aqmlab.sim import simulate

    bound = 2 * (BDP + BDP)
    print(f"BDP {BDP} packets, buffer {BDP}; bound on the mean window 2 x (BDP + buffer) = {bound}")
    print(f"{'case':24} {'utilization':>11} {'mean cwnd':>10} {'< bound':>8} {'timeouts':>8}")
    for name, flow in CASES:
        s = simulate(scenario(flow, a.duration), progress=False).summary
        u = s["links"]["r1->k1"]["utilization"]
        f = s["flows"][0]
        w = f["mean_cwnd"]
        print(f"{name:24} {u:11.4f} {w:10.1f} {str(w < bound):>8} {f['timeouts']:8d}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
